import AISyncCore
import AISyncFiles
import AISyncImgur
import AISyncRemote
import AISyncStore

/// Pull, the executor: finds the heads that moved, fetches and verifies their segments and
/// pictures, merges, and records how far it got — each decision made by `PullPlanner`.
extension SyncEngine {
    func pullLocked(dryRun: Bool, createIfMissing: Bool = false) async throws(AISyncError) -> SyncReport {
        var checkpoint = try await store.readCheckpoint(name)
        var report = SyncReport()
        report.dryRun = dryRun
        if checkpoint.remoteID == nil { _ = try await manifest(create: createIfMissing, checkpoint: &checkpoint) }
        // 1. Which heads changed since the last pull.
        let (changed, ownETag, unlisted) = try await changedHeads(checkpoint: checkpoint)
        if !dryRun { try await takeBackOwnHistoryIfRestored(&checkpoint, listedETag: ownETag) }
        // On a remote that cannot list, other devices find this one only through `devices.json`.
        // A server whose ETags do not change on a same-second, same-size rewrite (nginx) lets
        // a concurrent first push drop our entry despite If-Match: every pull puts it back.
        if !dryRun, unlisted, checkpoint.headETag != nil { try await register() }
        let heads = try await readHeads(changed, report: &report)
        if keys != nil {
            for (head, _) in heads {
                try PullPlanner.checkNotReplayed(
                    head, knownSeq: checkpoint.pulled[head.device]?.seq ?? 0, shown: remote.displayName)
            }
        }
        // 2. Their new segments, each verified whole before anything is applied, merged a
        // batch at a time (memory stays one batch; an interrupted pull resumes after the last).
        var run = PullRun(checkpoint: checkpoint, report: report, total: 0)
        let startedEmpty = store.journalFileSize() == 0
        // A store that never synced with this remote starts from the newest snapshot, if any.
        if !dryRun, let (writer, info) = PullPlanner.startingSnapshot(heads: heads.map(\.head), checkpoint: checkpoint)
        {
            try await applySnapshot(of: writer, info, run: &run)
        }
        let fetches = PullPlanner.fetches(heads: heads.map(\.head), device: store.deviceID, checkpoint: run.checkpoint)
        run.total = fetches.reduce(0) { sum, f in
            sum.addingReportingOverflow(f.seqs.count).overflow ? .max : sum + f.seqs.count
        }
        for fetch in fetches {
            guard let head = heads.first(where: { $0.head.device == fetch.device }) else { continue }
            try await pullSegments(fetch, head: head, dryRun: dryRun, run: &run)
        }
        (checkpoint, report) = (run.checkpoint, run.report)
        if dryRun {
            report.conflicts = try await store.conflictCount()
            return report
        }
        // 3. Pictures that earlier pulls could not get, now that the remote may have them.
        // Only this pull wrote to a store empty before it when the journal ends where its last
        // merge did (another process pulling another remote at once would have moved it on).
        let onlyThisPull = startedEmpty && store.journalFileSize() == checkpoint.pushedOffset
        try await retryMissingImages(run.missing, onlyThisPull: onlyThisPull, report: &report)
        // 4. Remember how far we got: every head read, ETags included.
        let next = PullPlanner.checkpoint(
            after: checkpoint, heads: heads, device: store.deviceID, counters: [:], merged: (false, 0))
        if next != checkpoint { try await store.writeCheckpoint(next) }
        if report.pulled > 0 { try await store.flushIndex() }
        try await store.rememberDeviceNames(
            Dictionary(heads.map { ($0.head.device, $0.head.name) }, uniquingKeysWith: { a, _ in a }))
        report.conflicts = try await store.conflictCount()
        return report
    }

    /// What a pull carries from batch to batch.
    struct PullRun {
        var checkpoint: SyncCheckpoint
        var report: SyncReport
        var done = 0
        var total: Int
        /// Pictures of applied batches that neither Imgur nor the remote had.
        var missing: [Store.WantedImage] = []
    }

    /// Fetches one device's new segments in order and applies them in batches of about
    /// `PullPlanner.batchBytes`, checkpointing after each (a dry run only counts them). A
    /// segment removed after compaction is replaced by the device's snapshot that covers it.
    /// The next segment is downloaded and verified while this one is merged, and the one after
    /// it downloaded to a scratch file (`SegmentPrefetch`): one segment ahead in memory, so
    /// memory stays about two batches. A read ahead that will not be taken (an error, a
    /// cancel) is stopped and waited for before this returns.
    private func pullSegments(
        _ fetch: PullPlanner.Fetch, head: (head: DeviceHead, etag: String?), dryRun: Bool, run: inout PullRun
    ) async throws(AISyncError) {
        let engine = self
        var ahead = SegmentPrefetch(through: fetch.seqs.upperBound) { (n) async throws(AISyncError) in
            try await engine.downloadSegmentFile(RemotePath.segmentPath(fetch.device, n))
        } read: { (n, file) async throws(AISyncError) in
            // The first is parsed on both cores: nothing is being merged yet.
            try await engine.readSegmentIfPresent(
                of: fetch.device, seq: n, remoteID: fetch.remoteID, downloaded: file,
                inHalves: n == fetch.seqs.lowerBound)
        }
        if !dryRun { await ahead.start(fetch.seqs.lowerBound) }
        do {
            try await pullSegments(fetch, head: head, dryRun: dryRun, ahead: &ahead, run: &run)
        } catch {
            await ahead.stop()
            throw error
        }
        await ahead.stop()
    }

    private func pullSegments(
        _ fetch: PullPlanner.Fetch, head: (head: DeviceHead, etag: String?), dryRun: Bool,
        ahead: inout SegmentPrefetch, run: inout PullRun
    ) async throws(AISyncError) {
        var batch: [Segment.Entry] = []
        var batchBytes = 0
        var seq = fetch.seqs.lowerBound
        while seq <= fetch.seqs.upperBound {
            defer { seq += 1 }
            progress(
                SyncProgress(
                    phase: .pullingSegments, done: run.done, total: run.total, bytes: run.report.bytes, from: fetch.name
                ))
            try AISyncError.checkCancellation()
            let read = try await ahead.take(seq)
            if read != nil, !dryRun, seq < fetch.seqs.upperBound { await ahead.start(seq + 1) }
            guard var read else {
                guard !dryRun, let info = head.head.snapshot, let covered = info.covers[fetch.device], covered >= seq
                else {
                    throw missingSegment(of: fetch.device, seq: seq)
                }
                if !batch.isEmpty {
                    try await apply(take(&batch), from: fetch.device, through: seq - 1, headETag: nil, run: &run)
                    batchBytes = 0
                }
                try await applySnapshot(of: head.head, info, run: &run)
                seq = covered
                continue
            }
            run.report.segments += 1
            run.report.bytes += Int64(read.bytes)
            run.done += 1
            if dryRun {
                run.report.pulled += read.entries.count
                continue
            }
            batchBytes += read.bytes
            // Taken out of the read, so the batch holds the only copy of its entries.
            var entries: [Segment.Entry] = []
            swap(&entries, &read.entries)
            if batch.isEmpty { swap(&batch, &entries) } else { batch += entries }
            entries = []
            let last = seq == fetch.seqs.upperBound
            guard last || batchBytes >= PullPlanner.batchBytes else { continue }
            try await apply(take(&batch), from: fetch.device, through: seq, headETag: last ? head.etag : nil, run: &run)
            batchBytes = 0
        }
    }

    /// Applies one batch of a device's segments: their pictures first (so a record never
    /// arrives before its picture when the remote has it), then the versions, then the
    /// checkpoint moves past the last segment of the batch.
    /// The batch is taken over: the store frees its entries as they go in.
    private func apply(
        _ batch: consuming [Segment.Entry], from device: DeviceID, through seq: Int64, headETag: String?,
        run: inout PullRun
    ) async throws(AISyncError) {
        let counter = PullPlanner.counter(of: device, in: batch.lazy.map(\.version))
        let result = try await merge(batch, run: &run)
        run.checkpoint = PullPlanner.advance(
            run.checkpoint, device: device, through: seq, etag: headETag, counter: counter,
            merged: (result.wasAtEnd, result.end))
        try await store.writeCheckpoint(run.checkpoint)
    }

    /// Merges verified entries: their pictures first, then the versions (no checkpoint change).
    func merge(_ batch: consuming [Segment.Entry], run: inout PullRun) async throws(AISyncError) -> (
        applied: Int, wasAtEnd: Bool, end: Int64
    ) {
        let incoming = try await store.previewImages(batch)
        var have = Set<SHA256Digest>()
        for digest in Set(incoming.map(\.0)) where store.hasObject(digest) { have.insert(digest) }
        let wanted = PullPlanner.wantedImages(incoming: incoming, live: [], have: have).map { ($0.0, $0.1.imgur) }
        run.missing += try await fetchImages(wanted, report: &run.report)
        let result = try await store.integrate(batch, expectedEnd: run.checkpoint.pushedOffset, streaming: true)
        if result.wasAtEnd { run.checkpoint.pushedOffset = result.end }
        run.report.pulled += result.applied
        return result
    }

    /// Tries again the pictures earlier pulls could not get (the recorded list, or every live
    /// image when none was ever recorded), then records what is still missing. A store that
    /// holds only what this pull wrote (`onlyThisPull`) has no pictures but this pull's: what
    /// it missed is `missedNow`.
    private func retryMissingImages(_ missedNow: [Store.WantedImage], onlyThisPull: Bool, report: inout SyncReport)
        async throws(AISyncError)
    {
        let known: [Store.WantedImage]
        if let recorded = await store.missingImages() {
            known = recorded
        } else if onlyThisPull {
            known = []
        } else {
            known = try await store.liveImages().map { ($0.1.sha256, $0.1.imgur) }
        }
        var seen = Set(missedNow.map(\.digest))
        var retry: [Store.WantedImage] = []
        for image in known where seen.insert(image.digest).inserted {
            if !store.hasObject(image.digest) { retry.append(image) }
        }
        let still = try await fetchImages(retry, report: &report)
        try await store.setMissingImages(missedNow + still)
    }

    /// Reads the heads that a listing said moved (those already read while walking a remote
    /// that cannot list come with their head).
    private func readHeads(_ changed: [(PullPlanner.Change, DeviceHead?)], report: inout SyncReport)
        async throws(AISyncError) -> [(head: DeviceHead, etag: String?)]
    {
        var heads: [(head: DeviceHead, etag: String?)] = []
        for (change, preloaded) in changed {
            if let preloaded {
                heads.append((preloaded, change.etag))
                continue
            }
            guard let read = try await readHead(of: change.device) else { continue }
            heads.append((read.value, PullPlanner.rememberedETag(read.file, listed: change.etag)))
            report.bytes += Int64(read.file.bytes.count)
        }
        return heads
    }

    /// One device's head, read and verified (re-read once when caught half-written).
    private func readHead(of device: DeviceID) async throws(AISyncError) -> (value: DeviceHead, file: RemoteFile)? {
        let path = RemotePath.headPath(device)
        let site = "\(remote.displayName)/\(path)"
        return try await readParsed(
            path,
            { (bytes: [UInt8]) throws(AISyncError) -> DeviceHead in
                try DeviceHead(bytes: bytes, path: site, expected: device)
            })
    }

    /// Fetches pictures: from Imgur when it serves the original unchanged, else from the
    /// remote, verified. Returns those that neither had.
    private func fetchImages(_ wanted: [Store.WantedImage], report: inout SyncReport) async throws(AISyncError)
        -> [Store.WantedImage]
    {
        var missing: [Store.WantedImage] = []
        let before = report.bytes
        for (n, image) in wanted.enumerated() {
            try AISyncError.checkCancellation()
            progress(SyncProgress(phase: .pullingImages, done: n, total: wanted.count, bytes: report.bytes - before))
            let fromImgur = await imgur?.fetchOriginal(sha256: image.digest, imgur: image.imgur)
            if fromImgur == .fetched {
                report.blobs += 1
                continue
            }
            guard try await downloadBlob(image.digest, report: &report) else {
                report.missingBlobs.append(image.digest)
                if fromImgur == .removed { report.removedOnImgur.append(image.digest) }
                missing.append(image)
                continue
            }
            report.blobs += 1
        }
        return missing
    }

    /// Downloads one picture from the remote into the store, checking its sha256. False when
    /// the remote does not have it.
    private func downloadBlob(_ digest: SHA256Digest, report: inout SyncReport) async throws(AISyncError) -> Bool {
        let temp = try await store.scratchPath()
        let path = RemotePath.objectPath(digest)
        // Hashed while it is written (by the remote, from the bytes in `temp`): not read twice.
        guard let hashed = try await remote.downloadHashed(path, to: temp, maxBytes: RemoteLimits.blob) else {
            return false
        }
        report.bytes += Platform.stat(temp)?.size ?? 0
        guard try await store.adoptBlob(at: temp, expected: digest, hashed: hashed) else {
            throw AISyncError(
                .damagedData, "remote object \(remote.displayName)/\(path) does not match its sha256",
                hint: "Nothing was applied; the device that pushed it should push again")
        }
        return true
    }

    /// Heads that may have moved since the last pull (`PullPlanner.changedHeads`): on WebDAV
    /// and folders one listing; on plain HTTP, which cannot list, a walk of the heads.
    /// Also returns our own head's ETag when it is not the one we wrote (a store restored from
    /// a backup), or "" when the head should be read to find out.
    /// `unlisted`: the remote cannot list and its device index does not name this device.
    func changedHeads(checkpoint: SyncCheckpoint) async throws(AISyncError) -> (
        heads: [(PullPlanner.Change, DeviceHead?)], own: String?, unlisted: Bool
    ) {
        guard remote.canList else { return try await walkHeads(checkpoint: checkpoint) }
        let changes = PullPlanner.changedHeads(
            listing: try await remote.list("heads") ?? [], device: store.deviceID, checkpoint: checkpoint)
        return (changes.toRead.map { ($0, nil) }, changes.own, false)
    }

    /// Without a listing: every head named by the device index or by another head is read,
    /// and kept when its number moved (`PullPlanner.headMoved`).
    private func walkHeads(checkpoint: SyncCheckpoint) async throws(AISyncError) -> (
        heads: [(PullPlanner.Change, DeviceHead?)], own: String?, unlisted: Bool
    ) {
        var pending = Set(checkpoint.pulled.keys)
        let indexPath = RemotePath.devicesIndex
        var unlisted = true
        if let read = try await readParsed(
            indexPath,
            { (bytes: [UInt8]) throws(AISyncError) -> DevicesIndex in
                try DevicesIndex(bytes: bytes, path: "\(remote.displayName)/\(indexPath)")
            })
        {
            pending.formUnion(read.value.devices.keys)
            unlisted = read.value.devices[store.deviceID] == nil
        }
        // Our own head is read too (when the index names it): a store restored from a backup
        // finds its newer segments even when it has nothing to push.
        var own: String? = checkpoint.headETag == nil ? "" : nil
        var result: [(PullPlanner.Change, DeviceHead?)] = []
        var seen = Set<DeviceID>()
        while let device = pending.popFirst() {
            seen.insert(device)
            guard let read = try await readHead(of: device) else { continue }
            if device == store.deviceID {
                if read.value.seq > checkpoint.pushedSeq { own = read.file.etag ?? "" }
                continue
            }
            for other in read.value.devices where other != store.deviceID && !seen.contains(other) {
                pending.insert(other)
            }
            if PullPlanner.headMoved(read.value, checkpoint: checkpoint) {
                result.append(
                    (
                        PullPlanner.Change(device: device, etag: PullPlanner.rememberedETag(read.file, listed: nil)),
                        read.value
                    ))
            }
        }
        return (result, own, unlisted)
    }

    /// Pull takes back this device's own segments when the store was restored from a backup
    /// (its head on the remote is past what the store knows it pushed); see `adoptOwnHistory`.
    func takeBackOwnHistoryIfRestored(_ checkpoint: inout SyncCheckpoint, listedETag: String?) async throws(AISyncError)
    {
        guard listedETag != nil, let read = try await readOwnHead(),
            PullPlanner.ownHeadMoved(read.head, checkpoint: checkpoint)
        else { return }
        do {
            _ = try await adoptOwnHistory(head: read.head, etag: read.etag, checkpoint: &checkpoint, reidentify: false)
        } catch  where error.code == .configuration {
            // A copy that diverged: pulling is still safe; its next push says what to do.
        }
    }
}

/// The array's elements, leaving it empty: the caller keeps no copy of what it hands on.
private func take<Element>(_ array: inout [Element]) -> [Element] {
    var taken: [Element] = []
    swap(&taken, &array)
    return taken
}

/// The segments read ahead of a pull's merging. One is read (downloaded, verified, decoded)
/// ahead: started for a sequence number, taken when the pull gets there (or read then, when
/// nothing was started for it). And the download of the one after it starts as soon as that
/// read's download has succeeded, so the link does not wait while a segment is verified; the
/// segment waits on disk, in a scratch file, not in memory. A read or download that will not
/// be taken (the pull stops early, or jumps to a snapshot) is cancelled and waited for, and
/// its file removed, so nothing outlives the pull. A pull cancelled while it waits for the
/// read cancels the read.
struct SegmentPrefetch {
    typealias Read = (entries: [Segment.Entry], bytes: Int)?
    /// How a download made ahead went.
    enum Downloaded: Sendable {
        /// The segment, in this scratch file.
        case file(String)
        /// The remote does not have it.
        case absent
        /// It failed: the read goes on from the error as if it had made the download.
        case failed(AISyncError)
        /// Not tried: the download before it did not succeed.
        case notTried
    }
    private let download: @Sendable (Int64) async throws(AISyncError) -> String?
    private let read: @Sendable (Int64, Result<String, AISyncError>?) async throws(AISyncError) -> Read
    private let last: Int64
    private var pending: (seq: Int64, task: Task<Result<Read, AISyncError>, Never>)?
    private var downloading: (seq: Int64, task: Task<Downloaded, Never>)?

    /// A read ahead of the segments up to `last`: `download(n)` fetches segment `n` to a
    /// scratch file (nil when the remote lacks it); `read(n, downloaded)` verifies and decodes
    /// it, taking over how that download went (its file, removed after, or its error), or
    /// fetching it itself when given nil.
    init(
        through last: Int64, download: @escaping @Sendable (Int64) async throws(AISyncError) -> String?,
        read: @escaping @Sendable (Int64, Result<String, AISyncError>?) async throws(AISyncError) -> Read
    ) {
        self.last = last
        self.download = download
        self.read = read
    }

    /// Starts reading segment `seq` in a task of its own (on the download already under way
    /// for it, if any), and the download of `seq + 1` for when that download has succeeded.
    mutating func start(_ seq: Int64) async {
        var fetch: Task<Downloaded, Never>?
        if let downloading, downloading.seq == seq {
            fetch = downloading.task
            self.downloading = nil
        }
        await stop()
        let download = download
        let fetched = fetch ?? Task { await Self.downloaded(seq, download) }
        if seq < last {
            downloading = (
                seq + 1,
                Task { () async -> Downloaded in
                    // A failed or missing segment ends the pull or sends it to a snapshot.
                    guard case .file = await fetched.value, !Task.isCancelled else { return .notTried }
                    return await Self.downloaded(seq + 1, download)
                }
            )
        }
        let read = read
        pending = (
            seq,
            Task { () async -> Result<Read, AISyncError> in
                let outcome = await withTaskCancellationHandler {
                    await fetched.value
                } onCancel: {
                    fetched.cancel()
                }
                do throws(AISyncError) {
                    switch outcome {
                    case .absent: return .success(nil)
                    case .file(let path): return .success(try await read(seq, .success(path)))
                    case .failed(let error): return .success(try await read(seq, .failure(error)))
                    case .notTried: return .success(try await read(seq, nil))
                    }
                } catch { return .failure(error) }
            }
        )
    }

    private static func downloaded(
        _ seq: Int64, _ download: @Sendable (Int64) async throws(AISyncError) -> String?
    ) async -> Downloaded {
        do throws(AISyncError) {
            guard let file = try await download(seq) else { return .absent }
            return .file(file)
        } catch { return .failed(error) }
    }

    /// Segment `seq`: the read started for it, or read now (on the download made ahead for
    /// it, if any).
    mutating func take(_ seq: Int64) async throws(AISyncError) -> Read {
        if pending?.seq != seq, downloading?.seq == seq { await start(seq) }
        guard let pending, pending.seq == seq else {
            await stop()
            return try await read(seq, nil)
        }
        self.pending = nil
        let task = pending.task
        return try await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }.get()
    }

    /// Cancels the read and the download no one will take, waits for them to end, and
    /// removes the file of a download that had finished.
    mutating func stop() async {
        let (pending, downloading) = (self.pending, self.downloading)
        (self.pending, self.downloading) = (nil, nil)
        pending?.task.cancel()
        downloading?.task.cancel()
        if let pending { _ = await pending.task.value }
        if let downloading, case .file(let file) = await downloading.task.value { _ = Platform.unlink(file) }
    }
}
