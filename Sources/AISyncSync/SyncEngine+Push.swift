import AISyncCore
import AISyncFiles
import AISyncImgur
import AISyncRemote
import AISyncStore

/// Push, the executor: reads what `PushPlanner` needs, carries out its plan in the order that
/// keeps the remote valid at every moment (blobs, segments, head), and feeds answers back.
extension SyncEngine {
    /// A push; when it finds this store to be a copy that diverged, the store takes a new
    /// device id and the push runs again under it (and the report says so).
    func pushLocked(dryRun: Bool) async throws(AISyncError) -> SyncReport {
        do {
            return try await pushOnce(dryRun: dryRun)
        } catch  where error.code == .reidentified {
            var report = try await pushOnce(dryRun: dryRun)
            report.oldDeviceID = error.cause.flatMap(DeviceID.init)
            report.newDeviceID = store.deviceID
            return report
        }
    }

    /// What a push would send, found by one pass over the journal that keeps only where
    /// each line is and its size: the lines are read again a segment at a time (the next
    /// while one is sent), so memory stays two segments however much is unpushed.
    struct Outgoing {
        /// Where each version to send is in the journal: its line's offset and length, in two
        /// arrays (12 bytes a version: 12 MB for a first push of 1,000,000; their sizes are
        /// not kept, the segments are cut as they are found).
        struct Places {
            private var offsets: [Int64] = []
            private var lengths: [UInt32] = []
            /// The objects of the few versions that have any (large values), by index.
            private var objects: [Int: [SHA256Digest]] = [:]
            var count: Int { offsets.count }
            mutating func append(offset: Int64, length: Int, objects: [SHA256Digest]) {
                if !objects.isEmpty { self.objects[offsets.count] = objects }
                offsets.append(offset)
                lengths.append(UInt32(length))
            }
            subscript(range: Range<Int>) -> [(offset: Int64, length: Int, objects: [SHA256Digest])] {
                range.map { (offsets[$0], Int(lengths[$0]), objects[$0] ?? []) }
            }
        }
        var entries = Places()
        /// The entries cut into segments as they were found.
        var segments = PushPlanner.Cutter()
        /// Their encoded bytes in all.
        var bytes: Int64 = 0
        /// The image records among them (their bytes go first).
        var imageRecords: Set<RecordID> = []
        /// This device's deletes of records that may hold pictures (Imgur copies to delete).
        var deletions: [RecordID] = []
        /// Records this device deletes in this push (the mass-delete safeguard counts them).
        var deletedRecords: Set<RecordID> = []
        /// How many lines were journaled since the checkpoint, and where they end.
        var journaled = 0
        var end: Int64
        /// The journal file these places are in (``Store/journalFile()``, read before the scan).
        var journal: UInt64? = nil
    }

    private func pushOnce(dryRun: Bool) async throws(AISyncError) -> SyncReport {
        var checkpoint = try await store.readCheckpoint(name)
        if checkpoint.pendingSeq != nil, !dryRun { try await settleInterruptedPush(&checkpoint) }
        var report = SyncReport()
        report.dryRun = dryRun
        // Imgur first: its answers become new versions of the image records, pushed below.
        var imgurRefused: AISyncError?
        if uploadsToImgur, !dryRun, let imgur { imgurRefused = try await imgur.uploadPending(into: &report) }
        var outgoing = try await self.outgoing(checkpoint)
        if !allowMassDelete {
            do { try await refuseMassDelete(outgoing.deletedRecords) } catch  where dryRun {
                report.massDelete = try await stillDeleted(outgoing.deletedRecords).count
            }
        }
        if case .nothingToSend(let advanceTo) = PushPlanner.start(
            outgoing: outgoing.entries.count, journaled: outgoing.journaled,
            end: outgoing.end, checkpoint: checkpoint)
        {
            if let advanceTo, !dryRun {
                checkpoint.pushedOffset = advanceTo
                try await store.writeCheckpoint(checkpoint)
            }
            if uploadsToImgur, !dryRun, let imgur { try await imgur.flushDeletes(into: &report) }
            return try await finish(report, imgurRefused: imgurRefused)
        }
        if dryRun { return try await dryRunReport(outgoing, report) }
        _ = try await manifest(create: true, checkpoint: &checkpoint)
        // A WebDAV remote must list, or every later pull fails: find out on the first push
        // (a server answering 405 to PROPFIND is plain HTTP: `--plain`).
        if checkpoint.headETag == nil, remote.canList { _ = try await remote.list("heads") }
        let ownHead = try await judgeOwnHead(&checkpoint)
        if case .ahead = ownHead {
            // Restored from a backup: its own segments were taken back; send only what is left.
            outgoing = try await self.outgoing(checkpoint)
        }
        try await execute(plan(outgoing, checkpoint: checkpoint, ownHead: ownHead), outgoing: outgoing, report: &report)
        if let imgur {
            try await imgur.queueDeletes(outgoing.deletions)
            if uploadsToImgur { try await imgur.flushDeletes(into: &report) }
        }
        return try await finish(report, imgurRefused: imgurRefused)
    }

    /// The end of every push: a refused Imgur credential is reported once the records are on
    /// the remote; the report counts conflicts.
    private func finish(_ report: SyncReport, imgurRefused: AISyncError?) async throws(AISyncError) -> SyncReport {
        if let imgurRefused { throw imgurRefused }
        var report = report
        report.conflicts = try await store.conflictCount()
        return report
    }

    /// What a push would send, without sending it.
    private func dryRunReport(_ outgoing: Outgoing, _ report: SyncReport) async throws(AISyncError) -> SyncReport {
        var report = report
        report.pushed = outgoing.entries.count
        report.segments = outgoing.segments.finish().count
        report.bytes = outgoing.bytes
        for digest in try await blobDigests(outgoing) {
            report.blobs += 1
            report.bytes += Platform.stat(store.objectPath(digest))?.size ?? 0
        }
        return report
    }

    /// Reads our own head and judges it; a head that moved on without us is a restore (its
    /// segments are taken back) or a copy (refused, or re-identified: see `adoptOwnHistory`).
    private func judgeOwnHead(_ checkpoint: inout SyncCheckpoint) async throws(AISyncError) -> PushPlanner.OwnHead {
        let read = try await readOwnHead()
        if keys != nil, let read {
            try PullPlanner.checkNotReplayed(read.head, knownSeq: checkpoint.pushedSeq, shown: remote.displayName)
        }
        let verdict = PushPlanner.ownHead(
            read.map { PushPlanner.ObservedHead(seq: $0.head.seq, etag: $0.etag) }, checkpoint: checkpoint)
        if case .ahead = verdict, let read {
            _ = try await adoptOwnHistory(head: read.head, etag: read.etag, checkpoint: &checkpoint, reidentify: true)
        }
        return verdict
    }

    /// This device's head on the remote, if there is one.
    func readOwnHead() async throws(AISyncError) -> (head: DeviceHead, etag: String?)? {
        let path = RemotePath.headPath(store.deviceID)
        let site = "\(remote.displayName)/\(path)"
        let read = try await readParsed(path) { (bytes: [UInt8]) throws(AISyncError) -> DeviceHead in
            try DeviceHead(bytes: bytes, path: site, expected: store.deviceID)
        }
        return read.map { ($0.value, $0.file.etag) }
    }

    /// Asks the planner for the push, from the outgoing versions and the checkpoint.
    private func plan(_ outgoing: Outgoing, checkpoint: SyncCheckpoint, ownHead: PushPlanner.OwnHead)
        async throws(AISyncError) -> PushPlanner.Plan
    {
        guard let remoteID = checkpoint.remoteID else {
            throw AISyncError(.other, "no remote id after reading the manifest")
        }
        let ownHead: PushPlanner.OwnHead =
            if case .ahead = ownHead { .current(etag: checkpoint.headETag) } else { ownHead }
        return PushPlanner.plan(
            PushPlanner.Input(
                checkpoint: checkpoint, ownHead: ownHead, remoteID: remoteID, device: store.deviceID,
                deviceName: store.config.deviceName, now: Timestamp(milliseconds: store.environment.now()),
                chunks: outgoing.segments.finish(), end: outgoing.end, blobs: try await blobDigests(outgoing)))
    }

    /// Carries out a plan: blobs, segments, the pending mark, the head, registration, and the
    /// final checkpoint. Cancellation is honoured between writes, never inside the head write.
    private func execute(_ plan: PushPlanner.Plan, outgoing: Outgoing, report: inout SyncReport)
        async throws(AISyncError)
    {
        try await putBlobs(plan.blobs, report: &report)
        let totalBytes = outgoing.bytes
        var segmentBytes: Int64 = 0
        // The next segment is encoded (its lines read from the journal) while one goes up:
        // two segments in memory at most. One encoded and not sent is cancelled and waited for.
        var next = plan.segments.isEmpty ? nil : encodeSegment(plan, 0, outgoing)
        do {
            for (n, write) in plan.segments.enumerated() {
                try AISyncError.checkCancellation()
                progress(
                    SyncProgress(
                        phase: .pushingSegments, done: write.entries.lowerBound, total: outgoing.entries.count,
                        bytes: segmentBytes, totalBytes: totalBytes))
                guard let encoding = next.take() else { break }
                let bytes = try await encoding.value.get()
                if n + 1 < plan.segments.count { next = encodeSegment(plan, n + 1, outgoing) }
                let sent = Int64(try await putSegment(write.seq, bytes))
                report.bytes += sent
                report.segmentBytes += sent
                report.segments += 1
                segmentBytes += sent
            }
        } catch {
            if let next {
                next.cancel()
                _ = await next.value
            }
            throw error
        }
        if !plan.segments.isEmpty {
            progress(
                SyncProgress(
                    phase: .pushingSegments, done: outgoing.entries.count, total: outgoing.entries.count,
                    bytes: segmentBytes, totalBytes: segmentBytes))
        }
        try AISyncError.checkCancellation()
        // The head, last: only now do other devices see the new segments. The checkpoint
        // first notes the push as pending, so a crash right after the head is recognised.
        try await store.writeCheckpoint(plan.pending)
        let headBytes = plan.head.json.canonicalBytes + [10]
        var etag = try await putHead(plan.head, headBytes, condition: plan.headCondition)
        if etag == nil { etag = try await remote.read(RemotePath.headPath(store.deviceID))?.etag ?? "" }
        report.bytes += Int64(headBytes.count)
        if plan.register { try await register() }
        var committed = plan.committed
        committed.headETag = etag
        try await store.writeCheckpoint(committed)
        report.pushed = outgoing.entries.count
    }

    /// Uploads the image bytes the remote lacks (create-only: content-addressed, so a file
    /// already there is the same bytes).
    private func putBlobs(_ digests: [SHA256Digest], report: inout SyncReport) async throws(AISyncError) {
        var sent: Int64 = 0
        var locals: [(path: String, size: Int64)] = []
        for digest in digests {
            let local = store.objectPath(digest)
            locals.append((local, Platform.stat(local)?.size ?? 0))
        }
        var totalBytes = locals.reduce(0) { $0 + $1.size }
        for (n, digest) in digests.enumerated() {
            try AISyncError.checkCancellation()
            let path = RemotePath.objectPath(digest)
            // A HEAD on a kept-alive connection is the cheapest way not to send bytes the
            // remote has: the PUT's `If-None-Match: *` is refused before the body only by
            // servers that honour it (nginx overwrites) and answer `Expect: 100-continue`.
            let (local, size) = locals[n]
            let presence = try await remote.presence(path)
            if case .present(let remoteSize) = presence,
                remoteSize == nil || remoteSize == remote.storedSize(path, plainSize: size)
            {
                totalBytes -= size
                continue
            }
            progress(
                SyncProgress(phase: .pushingImages, done: n, total: digests.count, bytes: sent, totalBytes: totalBytes))
            // A file of another size under a content address is what a killed upload leaves on
            // a server that writes in place (rclone): it is replaced, not trusted.
            _ = try await remote.upload(path, from: local, condition: presence == .missing ? .createOnly : .always)
            report.blobs += 1
            report.bytes += size
            sent += size
        }
    }

    /// Writes one segment create-only; a file already under that number is kept when it is
    /// the same bytes and replaced otherwise (`PushPlanner.collision`). Returns bytes sent.
    /// Segment `n` of `plan` encoded on the store's thread, in a task of its own.
    private func encodeSegment(_ plan: PushPlanner.Plan, _ n: Int, _ outgoing: Outgoing) -> Task<
        Result<[UInt8], AISyncError>, Never
    > {
        let write = plan.segments[n]
        let header = Segment.header(
            device: store.deviceID, seq: write.seq, remoteID: plan.head.remoteID, count: write.entries.count)
        let places = outgoing.entries[write.entries]
        let (store, journal) = (store, outgoing.journal)
        return Task { () async -> Result<[UInt8], AISyncError> in
            do throws(AISyncError) {
                try AISyncError.checkCancellation()
                return .success(try await store.segment(header: header, lines: places, journal: journal))
            } catch { return .failure(error) }
        }
    }

    private func putSegment(_ seq: Int64, _ bytes: [UInt8]) async throws(AISyncError) -> Int {
        let path = RemotePath.segmentPath(store.deviceID, seq)
        if try await remote.write(path, bytes, condition: .createOnly) == .preconditionFailed {
            let existing = try await remote.read(path, maxBytes: RemoteLimits.segment)?.bytes
            if PushPlanner.collision(existing: existing, ours: bytes) == .replace {
                _ = try await remote.write(path, bytes, condition: .always)
            }
        }
        return bytes.count
    }

    /// Writes the head under its condition. A 412 is read back before judging: after a lost
    /// answer the transport's retry finds the head already written — by us.
    func putHead(_ head: DeviceHead, _ bytes: [UInt8], condition: WriteCondition) async throws(AISyncError) -> String? {
        var outcome = PushPlanner.headOutcome(
            try await remote.write(RemotePath.headPath(store.deviceID), bytes, condition: condition))
        if outcome == .readBack {
            let read = try? await readOwnHead()
            outcome = PushPlanner.judgeReadBack(read?.head, etag: read?.etag, sent: head)
        }
        switch outcome {
        case .landed(let etag): return etag
        case .copied, .readBack: throw copiedStoreError()
        }
    }

    /// What a push sends: the versions journaled since the checkpoint that `PushPlanner.outgoing`
    /// keeps. Also how many were journaled, and where they end.
    func outgoing(_ checkpoint: SyncCheckpoint) async throws(AISyncError) -> Outgoing {
        var result = Outgoing(end: checkpoint.pushedOffset)
        result.journal = store.journalFile()
        while true {
            // 2 MB at a time: a window's parsed versions are several times its size.
            let (lines, end) = try await store.journalWindow(from: result.end, maxBytes: 2 << 20)
            try AISyncError.checkCancellation()
            result.end = end
            guard !lines.isEmpty else { return result }
            result.journaled += lines.count
            for i in PushPlanner.outgoing(lines.map(\.version), device: store.deviceID, checkpoint: checkpoint) {
                let (v, offset, length) = lines[i]
                let size = PushPlanner.entrySize(
                    lineBytes: length, objectSizes: store.objectSizes(of: v.objectReferences))
                result.entries.append(offset: offset, length: length, objects: v.objectReferences)
                result.segments.add(size)
                result.bytes += Int64(size)
                if v.kind == .image { result.imageRecords.insert(v.record) }
                if v.device == store.deviceID, v.isDeleted, v.kind != .chat { result.deletions.append(v.record) }
                if v.device == store.deviceID, v.isDeleted { result.deletedRecords.insert(v.record) }
            }
        }
    }

    /// A wiped or half-restored store must never empty every other device: a push that would
    /// delete more than max(50 records, a quarter of the store) stops before it sends
    /// anything, naming what it would delete, unless ``allowMassDelete`` (rclone's
    /// `--max-delete`, Joplin's fail-safe).
    func refuseMassDelete(_ outgoing: Set<RecordID>) async throws(AISyncError) {
        guard outgoing.count > 50 else { return }
        let (found, records) = try await store.summaries(of: outgoing)
        let deleted = found.filter(\.deleted)
        guard deleted.count > Swift.max(50, records / 4) else { return }
        let named = deleted.prefix(5).map { r in r.title.isEmpty ? r.id.rawValue : "\(r.id) “\(r.title.prefix(40))”" }
        throw AISyncError(
            .usage,
            "sending these changes would delete \(deleted.count) of the \(records) records on every device (\(named.joined(separator: ", "))\(deleted.count > named.count ? ", …" : ""))",
            hint:
                "If you meant to, push again allowing mass deletes; if not, pull from another device's remote before pushing",
            remedy: .allowMassDelete(count: deleted.count))
    }

    /// Of the records outgoing versions delete, those still deleted (a delete undone by a
    /// restore before the push deletes nothing).
    private func stillDeleted(_ outgoing: Set<RecordID>) async throws(AISyncError) -> Set<RecordID> {
        Set(try await store.summaries(of: outgoing).found.lazy.filter(\.deleted).map(\.id))
    }

    /// After a push was cut off around its head write: did the head land? Either way the
    /// checkpoint is made to match the remote (`PushPlanner.settle`).
    func settleInterruptedPush(_ checkpoint: inout SyncCheckpoint) async throws(AISyncError) {
        let read = try await readOwnHead()
        checkpoint = PushPlanner.settle(
            checkpoint, observed: read.map { PushPlanner.ObservedHead(seq: $0.head.seq, etag: $0.etag) })
        try await store.writeCheckpoint(checkpoint)
    }

    func copiedStoreError(diverged: Int? = nil) -> AISyncError {
        AISyncError(
            .configuration,
            "another store is pushing to \(remote.displayName) as this device (\(store.deviceID.short)); this store directory was probably copied"
                + (diverged.map { " (\($0) local change(s) are not on the remote, which has changes this store lacks)" }
                    ?? ""),
            hint: "Keep one copy. For a second machine create a new store and pull into it", remedy: .separateStore)
    }

    /// The image bytes the outgoing versions' records need on the remote.
    private func blobDigests(_ outgoing: Outgoing) async throws(AISyncError) -> [SHA256Digest] {
        let images = try await store.imageBodies(of: outgoing.imageRecords)
        var local = Set<SHA256Digest>()
        for (digest, _) in images where store.hasObject(digest) { local.insert(digest) }
        return PushPlanner.blobs(images, local: local)
    }

    /// Adds this device to `devices.json`, re-reading to make sure a concurrent writer (on a
    /// server that ignores If-Match) did not drop it.
    func register() async throws(AISyncError) {
        let path = RemotePath.devicesIndex
        for attempt in 0..<8 {
            let read = try await readParsed(
                path,
                { (bytes: [UInt8]) throws(AISyncError) -> DevicesIndex in
                    try DevicesIndex(bytes: bytes, path: "\(remote.displayName)/\(path)")
                })
            var index = read?.value ?? DevicesIndex()
            if index.devices[store.deviceID] != nil, attempt > 0 { return }
            index.devices[store.deviceID] = store.config.deviceName
            let condition: WriteCondition =
                read.map { $0.file.etag.map { .replacing(etag: $0) } ?? .always } ?? .createOnly
            _ = try await remote.write(path, index.json.canonicalBytes + [10], condition: condition)
            // Give a concurrent writer time to land, then verify on the next loop. A remote
            // that lists finds devices by their heads (the index only names them), so it is
            // read back at once: the wait protected nothing there and slowed every first push.
            if !remote.canList { await store.environment.sleep(50 * (attempt + 1)) }
        }
        throw AISyncError(
            .temporary,
            "could not register this device in \(remote.displayName)/\(path): other devices kept rewriting it",
            hint: "Push again")
    }
}
