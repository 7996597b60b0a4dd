import AISyncCore
import AISyncRemote
import AISyncStore

/// Restoring from a snapshot (docs/DESIGN.md §5.7): a fresh store merges the newest snapshot and then
/// only the segments past what it covers; a store that finds a segment removed after
/// compaction merges the snapshot that covers it and carries on after it.
extension SyncEngine {
    /// Merges every part of `writer`'s snapshot `info` (each verified whole before anything of
    /// it is applied), then marks every device's segments up to what it covers as pulled.
    func applySnapshot(of writer: DeviceHead, _ info: SnapshotInfo, run: inout PullRun) async throws(AISyncError) {
        var counters: [DeviceID: Int64] = [:]
        for part in 1...info.parts {
            try AISyncError.checkCancellation()
            progress(
                SyncProgress(
                    phase: .pullingSegments, done: Int(part - 1), total: Int(info.parts), bytes: run.report.bytes,
                    from: writer.name))
            let read = try await readSnapshotPart(of: writer, info, part: part)
            run.report.segments += 1
            run.report.bytes += Int64(read.bytes)
            let versions = read.entries.map(\.version)
            for (device, counter) in PullPlanner.counters(info.covers.keys.map { ($0, versions) }) {
                counters[device] = max(counters[device] ?? 0, counter)
            }
            _ = try await merge(read.entries, run: &run)
        }
        run.checkpoint = PullPlanner.afterSnapshot(run.checkpoint, info, device: store.deviceID, counters: counters)
        try await store.writeCheckpoint(run.checkpoint)
    }

    /// Reads and verifies one part of a snapshot; a part the head names must exist.
    func readSnapshotPart(of writer: DeviceHead, _ info: SnapshotInfo, part: Int64) async throws(AISyncError) -> (
        entries: [Segment.Entry], bytes: Int
    ) {
        let path = RemotePath.snapshotPath(writer.device, info.seq, part: part)
        let site = "\(remote.displayName)/\(path)"
        guard let read = try await readSegmentFile(path, device: writer.device, seq: part, remoteID: writer.remoteID)
        else {
            throw AISyncError(
                .damagedData, "remote snapshot \(site) is missing although \(writer.name)'s head names it",
                hint: "Nothing more was applied; the device that wrote it should compact the remote again",
                remedy: .compactRemote)
        }
        return (read.segment.entries, read.bytes)
    }
}

extension PullPlanner {
    /// The snapshot a store that never synced with this remote starts from: the newest one
    /// any head names. Nil for a store that pulled or pushed here before (it has the history).
    static func startingSnapshot(heads: [DeviceHead], checkpoint: SyncCheckpoint) -> (DeviceHead, SnapshotInfo)? {
        guard checkpoint.pulled.isEmpty, checkpoint.pushedSeq == 0 else { return nil }
        return heads.compactMap { h in h.snapshot.map { (h, $0) } }.max { a, b in
            a.1.created != b.1.created ? a.1.created < b.1.created : a.0.device < b.0.device
        }
    }

    /// The checkpoint after merging a snapshot: each device it covers counts as pulled up to
    /// there (never going back); its ETag is kept, so its head is read again next time.
    static func afterSnapshot(
        _ checkpoint: SyncCheckpoint, _ info: SnapshotInfo, device: DeviceID, counters: [DeviceID: Int64]
    ) -> SyncCheckpoint {
        var next = checkpoint
        for (other, seq) in info.covers where other != device {
            let known = checkpoint.pulled[other]
            next.pulled[other] = SyncCheckpoint.Pulled(
                seq: max(seq, known?.seq ?? 0), etag: known?.etag,
                counter: max(counters[other] ?? 0, known?.counter ?? 0))
        }
        return next
    }
}
