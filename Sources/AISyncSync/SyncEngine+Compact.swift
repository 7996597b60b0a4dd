import AISyncCore
import AISyncFiles
import AISyncRemote
import AISyncStore

/// Compaction (docs/DESIGN.md §5.7): a device writes a snapshot of what its store needs, its head names
/// it, and a fresh store restores from it plus the segments past it instead of replaying
/// every version ever pushed. This device's own segments and older snapshots are removed only
/// once a snapshot covering them is older than the grace period, so a device offline for
/// months still syncs: it finds a segment gone and falls back to the snapshot.
extension SyncEngine {
    /// What `compact` did.
    public struct CompactReport: Sendable, Equatable {
        /// The new snapshot's number.
        public var snapshot: Int64 = 0
        /// How many part files it has.
        public var parts = 0
        /// Versions the snapshot keeps.
        public var versions = 0
        /// Versions of the same records it could leave out (superseded in all they wrote).
        public var dropped = 0
        /// Bytes written (the snapshot's parts and the head).
        public var bytes: Int64 = 0
        /// This device's segments removed because a snapshot older than the grace period covers them.
        public var removedSegments = 0
        /// Part files of this device's older snapshots removed for the same reason.
        public var removedSnapshotParts = 0
        /// Whether the remote's pictures were swept for orphans (not on a remote that cannot
        /// list, and never by the compaction a push does by itself: it has not pulled).
        public var sweptOrphans = false
        /// Pictures no version names, removed because a sweep found them so at least the
        /// grace period ago.
        public var removedOrphans = 0
        /// Pictures no version names, kept until the grace period has passed since they were
        /// first found so.
        public var waitingOrphans = 0
        /// Unfinished uploads (S3 multipart uploads a stopped push left) ended because a
        /// sweep found them at least the grace period ago.
        public var endedUploads = 0
        /// Unfinished uploads kept until the grace period has passed since they were first found.
        public var waitingUploads = 0
    }

    /// The default grace period: 30 days.
    public static let defaultGraceMilliseconds: Int64 = 30 * 24 * 3600 * 1000

    /// Syncs, writes a snapshot of this store, then removes what an older snapshot made
    /// unnecessary (only past `graceMilliseconds`).
    public func compact(graceMilliseconds: Int64 = SyncEngine.defaultGraceMilliseconds) async throws(AISyncError)
        -> CompactReport
    {
        try await withSyncLock("compact", pulls: true) { () async throws(AISyncError) -> CompactReport in
            _ = try await pullLocked(dryRun: false)
            _ = try await pushLocked(dryRun: false)
            return try await snapshotLocked(grace: graceMilliseconds, sweep: true)
        }
    }

    /// Pulls, then sweeps the remote as `compact` does after its snapshot, without writing
    /// one: pictures no version names are removed, and unfinished uploads (S3 multipart
    /// uploads a killed push left) ended, once a sweep found them at least `graceMilliseconds`
    /// ago; what is first found now is noted. The report's snapshot fields stay zero.
    public func sweepRemote(graceMilliseconds: Int64 = SyncEngine.defaultGraceMilliseconds) async throws(AISyncError)
        -> CompactReport
    {
        try await withSyncLock("sweep", pulls: true) { () async throws(AISyncError) -> CompactReport in
            _ = try await pullLocked(dryRun: false)
            var checkpoint = try await store.readCheckpoint(name)
            var report = CompactReport()
            try await sweepOrphans(grace: graceMilliseconds, checkpoint: &checkpoint, report: &report)
            return report
        }
    }

    /// After a push: counts what it sent, and writes a snapshot once this device has pushed
    /// more since its last one than `autoCompactBytes` and than that snapshot's size (so the
    /// snapshots' cost stays a fraction of what was pushed).
    func compactIfDue(pushed report: SyncReport) async throws(AISyncError) {
        guard let threshold = autoCompactBytes, report.segmentBytes > 0 else { return }
        var checkpoint = try await store.readCheckpoint(name)
        // A history uploaded in one push (a first sync after an import) has nothing superseded
        // yet: a snapshot of it would only double the upload. Wait for a later push.
        let firstUpload = checkpoint.snapshot == nil && checkpoint.sinceSnapshot == 0
        checkpoint.sinceSnapshot += report.segmentBytes
        try await store.writeCheckpoint(checkpoint)
        guard !firstUpload, checkpoint.sinceSnapshot >= max(threshold, checkpoint.snapshotBytes) else { return }
        _ = try await snapshotLocked(grace: Self.defaultGraceMilliseconds, sweep: false)
    }

    /// Writes a snapshot of the store as it is (synced by the caller), then removes what an
    /// older snapshot made unnecessary, and sweeps for orphan pictures when `sweep` is set
    /// (the caller pulled first, in the same lock).
    func snapshotLocked(grace graceMilliseconds: Int64, sweep: Bool) async throws(AISyncError) -> CompactReport {
        var checkpoint = try await store.readCheckpoint(name)
        guard let remoteID = checkpoint.remoteID else { throw AISyncError(.other, "no remote id after a push") }
        var report = CompactReport()
        var covers = checkpoint.pulled.mapValues(\.seq)
        covers[store.deviceID] = checkpoint.pushedSeq
        let seq = (checkpoint.snapshot?.seq ?? 0) + 1
        let parts = try await writeSnapshotParts(seq: seq, remoteID: remoteID, report: &report)
        try await raiseToSnapshotFormat()
        let info = SnapshotInfo(
            seq: seq, parts: Int64(parts), covers: covers, created: Timestamp(milliseconds: store.environment.now()))
        try await publish(info, checkpoint: &checkpoint, report: &report)
        checkpoint.sinceSnapshot = 0
        checkpoint.snapshotBytes = report.bytes
        try await store.writeCheckpoint(checkpoint)
        try await removeCovered(grace: graceMilliseconds, checkpoint: &checkpoint, report: &report)
        // Only after a pull in the same lock: a push alone has not seen the versions other
        // devices pushed since, and their pictures would look like orphans.
        if sweep { try await sweepOrphans(grace: graceMilliseconds, checkpoint: &checkpoint, report: &report) }
        return report
    }

    /// Writes the snapshot's parts (segment format, create-only), a few records at a time.
    private func writeSnapshotParts(seq: Int64, remoteID: String, report: inout CompactReport) async throws(AISyncError)
        -> Int
    {
        let ids = try await store.allRecordIDs()
        var part = 0
        var batch: [Segment.Entry] = []
        var size = 0
        func flush() async throws(AISyncError) {
            guard !batch.isEmpty || part == 0 else { return }
            part += 1
            let bytes = Segment(device: store.deviceID, seq: Int64(part), remoteID: remoteID, entries: batch).encoded()
            _ = try await remote.write(
                RemotePath.snapshotPath(store.deviceID, seq, part: Int64(part)), bytes, condition: .always)
            report.bytes += Int64(bytes.count)
            (batch, size) = ([], 0)
        }
        for start in stride(from: 0, to: ids.count, by: 500) {
            try AISyncError.checkCancellation()
            progress(SyncProgress(phase: .pushingSegments, done: start, total: ids.count, bytes: report.bytes))
            let (lines, total) = try await store.essentialLines(of: Array(ids[start..<min(start + 500, ids.count)]))
            report.versions += lines.count
            report.dropped += total - lines.count
            for (v, raw) in lines {
                let objects = try await store.objectsOf(v)
                let entrySize = PushPlanner.entrySize(lineBytes: raw.count, objectSizes: objects.values.map(\.count))
                if !batch.isEmpty, size + entrySize > Segment.targetBytes || batch.count >= Segment.maxEntries {
                    try await flush()
                }
                batch.append(Segment.Entry(version: v, objects: objects, line: raw))
                size += entrySize
            }
        }
        try await flush()
        report.snapshot = seq
        report.parts = part
        return part
    }

    /// Names the snapshot in this device's head. The checkpoint notes it first, as a pending
    /// write of the same head number: a crash before the head's ETag is saved is settled by
    /// the next push like any interrupted head write.
    private func publish(_ info: SnapshotInfo, checkpoint: inout SyncCheckpoint, report: inout CompactReport)
        async throws(AISyncError)
    {
        guard let remoteID = checkpoint.remoteID else { return }
        checkpoint.snapshots.append(info)
        checkpoint.pendingSeq = checkpoint.pushedSeq
        checkpoint.pendingOffset = checkpoint.pushedOffset
        try await store.writeCheckpoint(checkpoint)
        var known = Set(checkpoint.pulled.keys)
        known.insert(store.deviceID)
        let head = DeviceHead(
            device: store.deviceID, name: store.config.deviceName, seq: checkpoint.pushedSeq,
            updated: Timestamp(milliseconds: store.environment.now()), remoteID: remoteID, devices: known.sorted(),
            snapshot: info)
        let bytes = head.json.canonicalBytes + [10]
        let condition: WriteCondition =
            checkpoint.headETag.flatMap { $0.isEmpty ? nil : WriteCondition.replacing(etag: $0) } ?? .always
        var etag = try await putHead(head, bytes, condition: condition)
        if etag == nil { etag = try await remote.read(RemotePath.headPath(store.deviceID))?.etag ?? "" }
        report.bytes += Int64(bytes.count)
        checkpoint.headETag = etag
        checkpoint.pendingSeq = nil
        checkpoint.pendingOffset = nil
        try await store.writeCheckpoint(checkpoint)
    }

    /// Removes this device's segments and older snapshots that the newest of its snapshots
    /// older than the grace period covers. Other devices still reading them had that long.
    private func removeCovered(grace: Int64, checkpoint: inout SyncCheckpoint, report: inout CompactReport)
        async throws(AISyncError)
    {
        let now = store.environment.now()
        guard let durable = checkpoint.snapshots.last(where: { now - $0.created.milliseconds >= grace }) else { return }
        let through = durable.covers[store.deviceID] ?? 0
        if through > checkpoint.removedThrough {
            for seq in (checkpoint.removedThrough + 1)...through {
                try AISyncError.checkCancellation()
                try await remote.delete(RemotePath.segmentPath(store.deviceID, seq))
                report.removedSegments += 1
            }
            checkpoint.removedThrough = through
            try await store.writeCheckpoint(checkpoint)
        }
        for old in checkpoint.snapshots where old.seq < durable.seq {
            for part in 1...max(old.parts, 1) {
                try await remote.delete(RemotePath.snapshotPath(store.deviceID, old.seq, part: part))
                report.removedSnapshotParts += 1
            }
        }
        checkpoint.snapshots.removeAll { $0.seq < durable.seq }
        try await store.writeCheckpoint(checkpoint)
    }
}
