import AISyncCore

/// `sync/<remote>.json`: how far this store has pushed to and pulled from one remote.
package struct SyncCheckpoint: Sendable, Equatable {
    package struct Pulled: Sendable, Equatable {
        package var seq: Int64
        package var etag: String?
        /// The highest counter of that device's own versions read from its segments: the
        /// remote has every version it wrote up to there, so push never sends them back.
        package var counter: Int64 = 0

        package init(seq: Int64, etag: String?, counter: Int64 = 0) {
            self.seq = seq
            self.etag = etag
            self.counter = counter
        }
    }

    var remote: String
    package var remoteID: String?
    /// Our last segment on the remote, and the journal offset it covers.
    package var pushedSeq: Int64 = 0
    package var pushedOffset: Int64 = 0
    package var headETag: String?
    /// A push that wrote its segments and was about to write the head: if the head on the
    /// remote shows this number, that push landed and only the checkpoint was not updated.
    package var pendingSeq: Int64?
    package var pendingOffset: Int64?
    /// Whether this device is in the remote's `devices.json` (checked by re-reading).
    package var registered = false
    package var pulled: [DeviceID: Pulled] = [:]
    /// This device's snapshots on the remote, oldest first, until compaction removes them:
    /// every push writes the latest into the head again.
    package var snapshots: [SnapshotInfo] = []
    package var snapshot: SnapshotInfo? { snapshots.last }
    /// This device's segments up to here were removed after a snapshot covered them.
    package var removedThrough: Int64 = 0
    /// Bytes pushed since this device's last snapshot, and that snapshot's size: a push past
    /// both (and a minimum) writes a snapshot by itself.
    package var sinceSnapshot: Int64 = 0
    package var snapshotBytes: Int64 = 0
    /// Remote objects (stored paths) no version in this store names, and when a sweep first
    /// found them so: removed once that is older than the grace period, forgotten when named.
    package var orphans: [String: Int64] = [:]
    /// Unfinished uploads on the remote (by the store's id for each) and when a sweep first
    /// found them: ended once that is older than the grace period.
    package var unfinishedUploads: [String: Int64] = [:]

    init(remote: String) { self.remote = remote }

    var json: JSONValue {
        var pushed: JSONObject = ["seq": .int(pushedSeq), "journalOffset": .int(pushedOffset)]
        pushed.setIfPresent("headETag", headETag.map(JSONValue.string))
        pushed.setIfPresent("pendingSeq", pendingSeq.map(JSONValue.int))
        pushed.setIfPresent("pendingOffset", pendingOffset.map(JSONValue.int))
        if registered { pushed["registered"] = .bool(true) }
        var o: JSONObject = [
            "format": .int(1), "remote": .string(remote), "pushed": .object(pushed),
            "pulled": .object(
                JSONObject(
                    uniqueKeysWithValues: pulled.map { key, p in
                        var v: JSONObject = ["seq": .int(p.seq)]
                        v.setIfPresent("etag", p.etag.map(JSONValue.string))
                        if p.counter > 0 { v["counter"] = .int(p.counter) }
                        return (key.rawValue, JSONValue.object(v))
                    })),
        ]
        o.setIfPresent("remoteId", remoteID.map(JSONValue.string))
        if !snapshots.isEmpty { o["snapshots"] = .array(snapshots.map(\.json)) }
        if removedThrough > 0 { o["removedThrough"] = .int(removedThrough) }
        if sinceSnapshot > 0 { o["sinceSnapshot"] = .int(sinceSnapshot) }
        if snapshotBytes > 0 { o["snapshotBytes"] = .int(snapshotBytes) }
        if !orphans.isEmpty { o["orphans"] = .object(JSONObject(orphans.mapValues(JSONValue.int))) }
        if !unfinishedUploads.isEmpty {
            o["unfinishedUploads"] = .object(JSONObject(unfinishedUploads.mapValues(JSONValue.int)))
        }
        return .object(o)
    }

    init(bytes: [UInt8], path: String) throws(AISyncError) {
        let bad = AISyncError(
            .damagedData, "\(path) is damaged",
            hint: "Delete it; the next sync re-reads the remote from the start (nothing is duplicated)")
        guard let value = try? JSONParser.parse(bytes), value["format"]?.intValue == 1,
            let remote = value["remote"]?.stringValue, let pushed = value["pushed"]
        else { throw bad }
        self.remote = remote
        remoteID = value["remoteId"]?.stringValue
        pushedSeq = pushed["seq"]?.intValue ?? 0
        pushedOffset = pushed["journalOffset"]?.intValue ?? 0
        headETag = pushed["headETag"]?.stringValue
        pendingSeq = pushed["pendingSeq"]?.intValue
        pendingOffset = pushed["pendingOffset"]?.intValue
        registered = pushed["registered"]?.boolValue ?? false
        for s in value["snapshots"]?.arrayValue ?? [] {
            do { snapshots.append(try SnapshotInfo(json: s, context: path)) } catch { throw bad }
        }
        removedThrough = value["removedThrough"]?.intValue ?? 0
        sinceSnapshot = value["sinceSnapshot"]?.intValue ?? 0
        snapshotBytes = value["snapshotBytes"]?.intValue ?? 0
        for (path, seen) in value["orphans"]?.objectValue ?? [:] {
            guard let seen = seen.intValue else { throw bad }
            orphans[path] = seen
        }
        for (id, seen) in value["unfinishedUploads"]?.objectValue ?? [:] {
            guard let seen = seen.intValue else { throw bad }
            unfinishedUploads[id] = seen
        }
        for (key, p) in value["pulled"]?.objectValue ?? [:] {
            guard let id = DeviceID(key), let seq = p["seq"]?.intValue else { throw bad }
            pulled[id] = Pulled(seq: seq, etag: p["etag"]?.stringValue, counter: p["counter"]?.intValue ?? 0)
        }
    }
}
