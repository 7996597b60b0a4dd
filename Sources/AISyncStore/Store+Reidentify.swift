import AISyncCore
import AISyncFiles

/// A store directory copied and used in two places has diverged: both copies wrote versions
/// as one device, with the same clocks. The copy that finds out takes a new device id and
/// re-stamps its unpushed versions with it (docs/DESIGN.md §5.6), so both keep syncing, nothing lost.
extension Store {
    /// Rewrites the journal with `diverged` (this device's versions the remote does not have)
    /// re-stamped under a new device id, updates every checkpoint so the old identity reads
    /// as another device, then saves the new id. Returns (old, new).
    ///
    /// A re-stamped version keeps its time, record and operations; its clock keeps every
    /// entry but the old device's, which drops back to the last version both copies share,
    /// and counts the new device instead. So it follows what it followed before, and is
    /// concurrent with what the other copy wrote since.
    package func reidentify(diverged: Set<SHA256Digest>, remote: String) throws(AISyncError) -> (
        old: DeviceID, new: DeviceID
    ) {
        try locked(write: true) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> (DeviceID, DeviceID) in
            let old = deviceID
            let new = environment.makeDeviceID()
            let all = try journal.read(from: 0, firstLine: 0).versions.map(\.version)
            var shared: [RecordID: Int64] = [:]
            var lastShared: Int64 = 0
            for v in all where v.device == old && !diverged.contains(v.id) {
                shared[v.record] = max(shared[v.record] ?? 0, v.clock[old])
                lastShared = max(lastShared, v.clock[old])
            }
            var kept: [Version] = []
            var restamped: [Version] = []
            var counters: [RecordID: Int64] = [:]
            for v in all {
                guard diverged.contains(v.id) else {
                    kept.append(v)
                    continue
                }
                var clock = v.clock.counters
                clock[old] = shared[v.record] ?? 0
                counters[v.record, default: 0] += 1
                clock[new] = counters[v.record]
                restamped.append(
                    Version(
                        record: v.record, kind: v.kind, clock: VectorClock(clock), time: v.time, device: new,
                        payload: v.payload))
            }
            let keptBytes = try journal.replace(with: kept + restamped, splitAfter: kept.count)
            try rewriteCheckpoints(old: old, lastShared: lastShared, thisRemote: remote, keptBytes: keptBytes)
            var config = try currentConfig()
            config.deviceID = new
            try FileIO.writeAtomically(
                "\(root)/config.json", config.json.canonicalBytes + [10], temporarySuffix: environment.temporarySuffix()
            )
            configBox.withLock { $0 = config }
            dropIndex()
            snapshot = try refresh(canWrite: true)
            return (old, new)
        }
    }

    /// Every checkpoint forgets what it pushed (the new device has pushed nothing) and
    /// remembers the old identity as a device it has pulled up to its last push, so the old
    /// versions are not sent again and the other copy's later work is pulled.
    private func rewriteCheckpoints(old: DeviceID, lastShared: Int64, thisRemote: String, keptBytes: Int64)
        throws(AISyncError)
    {
        for remote in Set(config.remotes.map(\.name) + [thisRemote]) {
            var c = try readCheckpoint(remote)
            c.pulled[old] = SyncCheckpoint.Pulled(seq: c.pushedSeq, etag: nil, counter: lastShared)
            c.pushedOffset = remote == thisRemote ? keptBytes : 0
            c.pushedSeq = 0
            c.headETag = nil
            c.pendingSeq = nil
            c.pendingOffset = nil
            c.registered = false
            try writeCheckpoint(c)
        }
    }
}
