import AISyncCore
import AISyncStore

/// Where the store stands with one remote, read without touching the network: what the
/// last syncs did (whoever ran them), what is not on the remote yet, and whether the two
/// are in sync. An app shows it as is; `aisync status` prints it.
public struct RemoteStatus: Hashable, Sendable {
    /// The remote's name, as configured.
    public var name: String
    /// Its URL, as configured.
    public var url: String
    /// What the syncs with it did.
    public var history: SyncHistory
    /// Versions in this store the remote does not have yet (this device's and those relayed
    /// from other remotes): what the next push sends.
    public var unpushedVersions: Int
    /// Pictures of those versions, which go up with them.
    public var picturesNotUploaded: Int
    /// Live pictures whose bytes are not in this store yet (the remote lacked them at the
    /// last pull); a pull fetches them when they appear. The store's count, not the remote's.
    public var picturesNotDownloaded: Int
    /// Records in conflict in this store.
    public var conflicts: Int

    /// True only when everything here is on the remote (nothing unpushed, no picture waiting)
    /// and the newest sync ended well and pulled at some point: the last pull saw the
    /// remote's newest heads, and nothing failed since. As of that pull: another device may
    /// have pushed since, which only a pull can tell.
    public var inSync: Bool {
        guard let last = history.lastAttempt, last.succeeded, history.lastPull != nil else { return false }
        return unpushedVersions == 0 && picturesNotUploaded == 0
    }

    /// Why it is not in sync, in a few words (`the last sync failed, 2 versions not pushed`);
    /// nil when it is.
    public var notInSyncBecause: String? {
        guard !inSync else { return nil }
        var parts: [String] = []
        if let last = history.lastAttempt {
            if !last.succeeded { parts.append("the last \(last.operation) failed") }
            if history.lastPull == nil { parts.append("never pulled") }
        } else {
            parts.append("never synced")
        }
        if unpushedVersions > 0 {
            parts.append("\(unpushedVersions) version\(unpushedVersions == 1 ? "" : "s") not pushed")
        }
        if picturesNotUploaded > 0 {
            parts.append("\(picturesNotUploaded) picture\(picturesNotUploaded == 1 ? "" : "s") not uploaded")
        }
        return parts.joined(separator: ", ")
    }

    /// The remote status document (in `status --json`'s `sync`): `{name, url, inSync,
    /// notInSyncBecause?, unpushedVersions, picturesNotUploaded, picturesNotDownloaded,
    /// conflicts, lastAttempt?, lastSuccess?, lastPull?, failuresInARow}`.
    public var json: JSONValue {
        var o: JSONObject = [
            "name": .string(name), "url": .string(url), "inSync": .bool(inSync),
            "unpushedVersions": .int(Int64(unpushedVersions)), "picturesNotUploaded": .int(Int64(picturesNotUploaded)),
            "picturesNotDownloaded": .int(Int64(picturesNotDownloaded)), "conflicts": .int(Int64(conflicts)),
            "failuresInARow": .int(Int64(history.failuresInARow)),
        ]
        o.setIfPresent("notInSyncBecause", notInSyncBecause.map(JSONValue.string))
        o.setIfPresent("lastAttempt", history.lastAttempt.map(SyncHistory.json))
        o.setIfPresent("lastSuccess", history.lastSuccess.map(SyncHistory.json))
        o.setIfPresent("lastPull", history.lastPull.map(SyncHistory.json))
        return .object(o)
    }
}

extension Store.Status {
    /// The `status --json` document (Schemas/status-output.schema.json): the store's counts
    /// (``json``) plus `sync`, where it stands with each remote.
    public func json(remotes: [RemoteStatus]) -> JSONValue {
        var document = json.objectValue ?? [:]
        document["sync"] = .array(remotes.map(\.json))
        return .object(document)
    }
}

extension Store {
    /// Where the store stands with each configured remote, in the config's order (see
    /// ``RemoteStatus``). Local only: reads the config, each remote's checkpoint and history,
    /// and the journal past what was pushed (nothing when all of it was).
    public func remoteStatuses() async throws(AISyncError) -> [RemoteStatus] {
        let config = try currentConfig()
        let conflicts = try conflictCount()
        let notDownloaded = missingImages()?.count ?? 0
        var result: [RemoteStatus] = []
        for remote in config.remotes {
            let checkpoint = try readCheckpoint(remote.name)
            var unpushed = 0
            var pictures = Set<SHA256Digest>()
            var offset = checkpoint.pushedOffset
            while true {
                let (lines, end) = try journalWindow(from: offset, maxBytes: 2 << 20)
                guard !lines.isEmpty, end > offset else { break }
                offset = end
                let versions = lines.map(\.version)
                for i in PushPlanner.outgoing(versions, device: deviceID, checkpoint: checkpoint) {
                    unpushed += 1
                    if versions[i].kind == .image { pictures.formUnion(versions[i].objectReferences) }
                }
            }
            result.append(
                RemoteStatus(
                    name: remote.name, url: remote.url, history: syncHistory(remote.name), unpushedVersions: unpushed,
                    picturesNotUploaded: pictures.count, picturesNotDownloaded: notDownloaded, conflicts: conflicts))
        }
        return result
    }
}
