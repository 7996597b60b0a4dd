import AISyncCore
import AISyncFiles
import AISyncStore
import AISyncRemote
import AISyncImgur
extension SyncEngine {
    /// A push; when it finds this store to be a copy that diverged, the store takes a new
    /// device id and the push runs again under it (and the report says so).
    func pushLocked(dryRun: Bool) async throws(AISyncError) -> SyncReport {
        do {
            return try await pushOnce(dryRun: dryRun)
        } catch where error.code == .reidentified {
            var report = try await pushOnce(dryRun: dryRun)
            report.oldDeviceID = error.cause.flatMap(DeviceID.init)
            report.newDeviceID = store.deviceID
            return report
        }
    }

    private func pushOnce(dryRun: Bool) async throws(AISyncError) -> SyncReport {
        var checkpoint = try await store.readCheckpoint(name)
        if checkpoint.pendingSeq != nil, !dryRun { try await settleInterruptedPush(&checkpoint) }
        var report = SyncReport()
        report.dryRun = dryRun
        // Imgur first: its answers become new versions of the image records, pushed below.
        var imgurRefused: AISyncError?
        if uploadsToImgur, !dryRun, let imgur { imgurRefused = try await imgur.uploadPending(into: &report) }
        var (versions, journaled, end) = try await outgoing(checkpoint)
        // Nothing new and already registered: no request at all.
        if versions.isEmpty && checkpoint.headETag != nil && checkpoint.registered {
            if journaled > 0, !dryRun {
                checkpoint.pushedOffset = end
                try await store.writeCheckpoint(checkpoint)
            }
            if uploadsToImgur, !dryRun, let imgur { try await imgur.flushDeletes(into: &report) }
            if let imgurRefused { throw imgurRefused }
            report.conflicts = try await store.conflictCount()
            return report
        }
        var chunks = try await segmentChunks(versions)
        if dryRun {
            report.pushed = versions.count
            report.segments = chunks.count
            report.bytes = chunks.reduce(0) { $0 + Int64($1.bytes) }
            for (digest, image) in try await imageDigests(in: versions.map(\.version)) where await store.hasObject(digest) {
                if let imgur, !ImgurSync.keepsOriginalOnRemote(image, placement: imgur.placement) { continue }
                report.blobs += 1
                report.bytes += Platform.stat(await store.objectPath(digest))?.size ?? 0
            }
            return report
        }
        _ = try await manifest(create: true, checkpoint: &checkpoint)
        // A WebDAV remote must list, or every later pull fails: find out on the first push
        // (a server answering 405 to PROPFIND is plain HTTP: `--plain`).
        if checkpoint.headETag == nil, remote.canList { _ = try await remote.list("heads") }
        // The id this device writes under: the one it first saw (see `ownHeadBelongs`).
        guard let remoteID = checkpoint.remoteID else { throw AISyncError(.other, "no remote id after reading the manifest") }
        let headPath = RemotePath.headPath(store.deviceID)
        let offset = checkpoint.pushedOffset
        var headETag = try await checkOwnHead(checkpoint: &checkpoint)
        if checkpoint.pushedOffset != offset {
            // Restored from a backup: its own segments were taken back; send only what is left.
            (versions, _, end) = try await outgoing(checkpoint)
            chunks = try await segmentChunks(versions)
        }

        // 1. Blobs: the image bytes the new versions refer to, unless Imgur alone keeps them.
        let images = try await imageDigests(in: versions.map(\.version))
        var imageBytes: Int64 = 0
        for (n, (digest, image)) in images.enumerated() where await store.hasObject(digest) {
            if let imgur, !ImgurSync.keepsOriginalOnRemote(image, placement: imgur.placement) { continue }
            try AISyncError.checkCancellation()
            let path = RemotePath.objectPath(digest)
            if try await remote.exists(path) { continue }
            progress(SyncProgress(phase: .pushingImages, done: n, total: images.count, bytes: imageBytes))
            _ = try await remote.upload(path, from: await store.objectPath(digest), condition: .createOnly)
            report.blobs += 1
            let size = Platform.stat(await store.objectPath(digest))?.size ?? 0
            report.bytes += size
            imageBytes += size
        }

        // 2. Segments. Numbers past our head are not referenced yet, so a leftover from an
        // interrupted push may be replaced.
        var seq = checkpoint.pushedSeq
        for (n, chunk) in chunks.enumerated() {
            try AISyncError.checkCancellation()
            progress(SyncProgress(phase: .pushingSegments, done: n, total: chunks.count, bytes: report.bytes))
            seq += 1
            let segment = Segment(device: store.deviceID, seq: seq, remoteID: remoteID, entries: chunk.entries)
            let bytes = segment.encoded()
            let path = RemotePath.segmentPath(store.deviceID, seq)
            if try await remote.write(path, bytes, condition: .createOnly) == .preconditionFailed {
                if try await remote.read(path, maxBytes: RemoteLimits.segment)?.bytes != bytes {
                    _ = try await remote.write(path, bytes, condition: .always)
                }
            }
            report.segments += 1
            report.bytes += Int64(bytes.count)
        }

        try AISyncError.checkCancellation()
        // 3. The head, last: only now do other devices see the new segments. The checkpoint
        // first notes the push as pending, so a crash right after the head is recognised.
        checkpoint.pendingSeq = seq
        checkpoint.pendingOffset = end
        try await store.writeCheckpoint(checkpoint)
        var known = Set(checkpoint.pulled.keys)
        known.insert(store.deviceID)
        let head = DeviceHead(device: store.deviceID, name: store.config.deviceName, seq: seq,
                              updated: Timestamp(milliseconds: store.environment.now()), remoteID: remoteID, devices: Array(known))
        let headBytes = head.json.canonicalBytes + [10]
        let condition: WriteCondition = headETag.map { .replacing(etag: $0) } ?? .createOnly
        switch try await remote.write(headPath, headBytes, condition: condition) {
        case .written(let etag):
            headETag = etag
        case .preconditionFailed:
            throw copiedStoreError()
        }
        if headETag == nil { headETag = try await remote.read(headPath)?.etag ?? "" }
        report.bytes += Int64(headBytes.count)
        if !checkpoint.registered {
            try await register()
            checkpoint.registered = true
        }

        checkpoint.pushedSeq = seq
        checkpoint.pushedOffset = end
        checkpoint.headETag = headETag
        checkpoint.pendingSeq = nil
        checkpoint.pendingOffset = nil
        try await store.writeCheckpoint(checkpoint)
        report.pushed = versions.count
        if let imgur {
            try await imgur.queueDeletes(versions.map(\.version).filter { $0.device == store.deviceID })
            if uploadsToImgur { try await imgur.flushDeletes(into: &report) }
        }
        // A refused Imgur credential: the records are on the remote now; say so clearly.
        if let imgurRefused { throw imgurRefused }
        report.conflicts = try await store.conflictCount()
        return report
    }

    /// What a push sends: the versions journaled since the checkpoint, less those pulled
    /// from this remote (never sent back: a sync with local edits would otherwise re-publish
    /// everything it just pulled). Also how many were journaled, and where they end.
    func outgoing(_ checkpoint: SyncCheckpoint) async throws(AISyncError) -> (versions: [(version: Version, raw: [UInt8])], journaled: Int, end: Int64) {
        let (journaled, end) = try await store.journalLines(from: checkpoint.pushedOffset)
        let versions = journaled.filter { line in
            let v = line.version
            return v.device == store.deviceID || v.clock[v.device] > checkpoint.pulled[v.device]?.counter ?? 0
        }
        return (versions, journaled.count, end)
    }

    /// After a push was cut off around its head write: did the head land? Either way the
    /// checkpoint is made to match the remote.
    func settleInterruptedPush(_ checkpoint: inout SyncCheckpoint) async throws(AISyncError) {
        let path = RemotePath.headPath(store.deviceID)
        if let file = try await remote.read(path) {
            let head = try DeviceHead(bytes: file.bytes, path: "\(remote.displayName)/\(path)", expected: store.deviceID)
            if head.seq == checkpoint.pendingSeq, let offset = checkpoint.pendingOffset {
                checkpoint.pushedSeq = head.seq
                checkpoint.pushedOffset = offset
                checkpoint.headETag = file.etag ?? ""
            }
        }
        checkpoint.pendingSeq = nil
        checkpoint.pendingOffset = nil
        try await store.writeCheckpoint(checkpoint)
    }

    /// Our head on the remote must be the one we last wrote. One that moved on without us
    /// means this store was restored from a backup (its own segments are taken back) or
    /// copied and used in two places (refused: see `adoptOwnHistory`).
    func checkOwnHead(checkpoint: inout SyncCheckpoint) async throws(AISyncError) -> String? {
        let path = RemotePath.headPath(store.deviceID)
        guard let file = try await remote.read(path) else {
            return nil
        }
        let head = try DeviceHead(bytes: file.bytes, path: "\(remote.displayName)/\(path)", expected: store.deviceID)
        guard checkpoint.headETag != nil, head.seq <= checkpoint.pushedSeq else {
            return try await adoptOwnHistory(head: head, etag: file.etag, checkpoint: &checkpoint, reidentify: true)
        }
        return file.etag ?? checkpoint.headETag
    }

    func copiedStoreError(diverged: Int? = nil) -> AISyncError {
        AISyncError(.configuration,
                    "another store is pushing to \(remote.displayName) as this device (\(store.deviceID.short)); this store directory was probably copied"
                        + (diverged.map { " (\($0) local change(s) are not on the remote, which has changes this store lacks)" } ?? ""),
                    hint: "Keep one copy. For a second machine create a new store (`aisync init --store DIR`) and `aisync pull` into it")
    }

    struct Chunk {
        var entries: [Segment.Entry] = []
        var bytes = 0
    }

    /// Cuts versions into segments of about `Segment.targetBytes`, with their bodies.
    func segmentChunks(_ versions: [(version: Version, raw: [UInt8])]) async throws(AISyncError) -> [Chunk] {
        var chunks: [Chunk] = []
        var current = Chunk()
        for (v, raw) in versions {
            let objects = try await store.objectsOf(v)
            let size = objects.values.reduce(0) { $0 + $1.count + 70 } + raw.count + 24
            if !current.entries.isEmpty, current.bytes + size > Segment.targetBytes || current.entries.count >= Segment.maxEntries {
                chunks.append(current)
                current = Chunk()
            }
            current.entries.append(Segment.Entry(version: v, objects: objects, line: raw))
            current.bytes += size
        }
        if !current.entries.isEmpty { chunks.append(current) }
        return chunks
    }

    /// The image bytes the versions' records refer to, each with its visible body.
    func imageDigests(in versions: [Version]) async throws(AISyncError) -> [(SHA256Digest, ImageBody)] {
        try await store.imageBodies(of: Set(versions.filter { $0.kind == .image }.map(\.record)))
    }

    /// Adds this device to `devices.json`, re-reading to make sure a concurrent writer (on a
    /// server that ignores If-Match) did not drop it.
    func register() async throws(AISyncError) {
        let path = RemotePath.devicesIndex
        for attempt in 0..<8 {
            let read = try await readParsed(path, { (bytes: [UInt8]) throws(AISyncError) -> DevicesIndex in
                try DevicesIndex(bytes: bytes, path: "\(remote.displayName)/\(path)")
            })
            var index = read?.value ?? DevicesIndex()
            if index.devices[store.deviceID] != nil, attempt > 0 { return }
            index.devices[store.deviceID] = store.config.deviceName
            let condition: WriteCondition = read.map { $0.file.etag.map { .replacing(etag: $0) } ?? .always } ?? .createOnly
            _ = try await remote.write(path, index.json.canonicalBytes + [10], condition: condition)
            // Give a concurrent writer time to land, then verify on the next loop.
            await store.environment.sleep(50 * (attempt + 1))
        }
        throw AISyncError(.temporary, "could not register this device in \(remote.displayName)/\(path): other devices kept rewriting it",
                          hint: "Push again")
    }
}
