import AISyncCore
import AISyncImgur
import AISyncRemote
import AISyncStore

/// A store restored from a backup (Time Machine, a phone restore, a copied-back folder) is
/// behind its own history on the remote: its head there names segments this store never
/// saw as pushed, or this store has no checkpoint at all. If everything this device wrote
/// locally since its last push is already in those segments, the journal is a prefix of
/// the remote's history: the store takes its own segments back and carries on (docs/DESIGN.md §5.6).
/// If it wrote something the remote does not have, the two copies diverged: pushing as the
/// same device would make two different versions with one clock. A push then gives this store
/// a new device id, re-stamping what the remote lacks (`Store.reidentify`), and starts again.
extension SyncEngine {
    /// Adopts this device's own segments up to `head` when that is safe. Returns the ETag
    /// to replace the head with next.
    func adoptOwnHistory(head: DeviceHead, etag: String?, checkpoint: inout SyncCheckpoint, reidentify: Bool)
        async throws(AISyncError) -> String
    {
        var entries: [Segment.Entry] = []
        var seq = checkpoint.pushedSeq + 1
        var snapshotRead = false
        while seq <= head.seq {
            progress(
                SyncProgress(
                    phase: .takingBackOwnSegments, done: Int(seq - checkpoint.pushedSeq - 1),
                    total: Int(head.seq - checkpoint.pushedSeq)))
            if let read = try await readSegmentIfPresent(of: store.deviceID, seq: seq, remoteID: head.remoteID) {
                entries += read.entries
                seq += 1
                continue
            }
            // Removed after this device compacted (the backup predates it): its snapshot holds
            // what the store needs. Versions it left out cannot be matched, so local work
            // since the backup counts as diverged and is re-stamped, never lost.
            guard !snapshotRead, let info = head.snapshot, let covered = info.covers[store.deviceID], covered >= seq
            else {
                throw missingSegment(of: store.deviceID, seq: seq)
            }
            for part in 1...info.parts { entries += try await readSnapshotPart(of: head, info, part: part).entries }
            snapshotRead = true
            seq = covered + 1
        }
        let (journaled, _) = try await store.journalVersions(from: checkpoint.pushedOffset)
        let diverged = RestorePlanner.diverged(
            journaled: journaled, onRemote: Set(entries.map(\.version.id)), device: store.deviceID)
        guard diverged.isEmpty else {
            guard reidentify else { throw copiedStoreError(diverged: diverged.count) }
            let (old, _) = try await store.reidentify(diverged: Set(diverged), remote: name)
            throw AISyncError(.reidentified, "this store was a copy; it took a new device id", cause: old.rawValue)
        }
        let result = try await store.integrate(entries, expectedEnd: nil)
        // Pictures of the records taken back were never looked for: the next pull scans.
        await store.forgetMissingImages()
        checkpoint = RestorePlanner.adopted(checkpoint, head: head, etag: etag, end: result.end)
        try await store.writeCheckpoint(checkpoint)
        return etag ?? ""
    }

    /// Reads and verifies one segment; a segment a head names must exist.
    func readSegment(of device: DeviceID, seq: Int64, remoteID: String) async throws(AISyncError) -> (
        entries: [Segment.Entry], bytes: Int
    ) {
        guard let read = try await readSegmentIfPresent(of: device, seq: seq, remoteID: remoteID) else {
            throw missingSegment(of: device, seq: seq)
        }
        return read
    }

    /// Reads and verifies one segment; nil when the remote does not have it (removed after
    /// compaction, or never written). `downloaded`: a download already made of it (its
    /// scratch file, taken over and removed, or its error); `inHalves`: see
    /// ``readSegmentFile(_:device:seq:remoteID:downloaded:inHalves:)``.
    func readSegmentIfPresent(
        of device: DeviceID, seq: Int64, remoteID: String, downloaded: Result<String, AISyncError>? = nil,
        inHalves: Bool = false
    ) async throws(AISyncError) -> (entries: [Segment.Entry], bytes: Int)? {
        let read = try await readSegmentFile(
            RemotePath.segmentPath(device, seq), device: device, seq: seq, remoteID: remoteID, downloaded: downloaded,
            inHalves: inHalves)
        return read.map { ($0.segment.entries, $0.bytes) }
    }

    /// The error for a segment a head names that the remote lacks (and no snapshot covers).
    func missingSegment(of device: DeviceID, seq: Int64) -> AISyncError {
        AISyncError(
            .damagedData,
            "remote segment \(remote.displayName)/\(RemotePath.segmentPath(device, seq)) is missing although its device's head names it",
            hint: "Nothing was applied from it; the device that wrote it should push again")
    }
}
