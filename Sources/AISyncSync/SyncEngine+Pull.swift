import AISyncCore
import AISyncFiles
import AISyncStore
import AISyncRemote
import AISyncImgur
extension SyncEngine {
    func pullLocked(dryRun: Bool, createIfMissing: Bool = false) async throws(AISyncError) -> SyncReport {
        var checkpoint = try await store.readCheckpoint(name)
        var report = SyncReport()
        report.dryRun = dryRun
        if checkpoint.remoteID == nil { _ = try await manifest(create: createIfMissing, checkpoint: &checkpoint) }

        // 1. Which heads changed since the last pull.
        var heads: [(DeviceID, DeviceHead, String?)] = []
        let (changed, ownETag) = try await changedHeads(checkpoint: checkpoint)
        if !dryRun { try await takeBackOwnHistoryIfRestored(&checkpoint, listedETag: ownETag) }
        for (device, etag, preloaded) in changed {
            let path = RemotePath.headPath(device)
            let where_ = "\(remote.displayName)/\(path)"
            var head = preloaded
            var headETag = etag
            if head == nil {
                guard let read = try await readParsed(path, { (bytes: [UInt8]) throws(AISyncError) -> DeviceHead in
                    try DeviceHead(bytes: bytes, path: where_, expected: device)
                }) else { continue }
                head = read.value
                headETag = read.file.etag ?? etag
                report.bytes += Int64(read.file.bytes.count)
            }
            if let head { heads.append((device, head, headETag)) }
        }

        // 2. Their new segments, each verified whole before anything is applied.
        var entries: [Segment.Entry] = []
        var counters: [DeviceID: Int64] = [:]
        for (device, head, _) in heads where device != store.deviceID {
            let from = (checkpoint.pulled[device]?.seq ?? 0) + 1
            guard head.seq >= from else { continue }
            for seq in from...head.seq {
                progress(SyncProgress(phase: .pullingSegments, done: Int(seq - from), total: Int(head.seq - from + 1),
                                      bytes: report.bytes, from: head.name))
                try AISyncError.checkCancellation()
                let read = try await readSegment(of: device, seq: seq, remoteID: head.remoteID)
                entries += read.entries
                for e in read.entries where e.version.device == device {
                    counters[device] = max(counters[device] ?? 0, e.version.clock[device])
                }
                report.segments += 1
                report.bytes += Int64(read.bytes)
            }
        }
        if dryRun {
            report.pulled = entries.count
            report.conflicts = try await store.conflictCount()
            return report
        }

        // 3. Image bytes first (content-addressed, harmless if unused), so a record never
        // arrives before its picture when the remote has it.
        // Pictures that earlier pulls could not get are tried again too.
        var wanted = try await store.previewImages(entries)
        let incoming = Set(wanted.map(\.0))
        for (_, image) in try await store.liveImages() where !incoming.contains(image.sha256) {
            if await !store.hasObject(image.sha256) { wanted.append((image.sha256, image)) }
        }
        for (n, (digest, image)) in wanted.enumerated() where !(await store.hasObject(digest)) {
            try AISyncError.checkCancellation()
            progress(SyncProgress(phase: .pullingImages, done: n, total: wanted.count, bytes: report.bytes))
            let fromImgur = await imgur?.fetchOriginal(image)
            if fromImgur == .fetched {
                report.blobs += 1
                continue
            }
            let temp = try await store.scratchPath()
            let path = RemotePath.objectPath(digest)
            guard try await remote.download(path, to: temp, maxBytes: RemoteLimits.blob) else {
                report.missingBlobs.append(digest)
                if fromImgur == .removed { report.removedOnImgur.append(digest) }
                continue
            }
            report.bytes += Platform.stat(temp)?.size ?? 0
            guard try await store.adoptBlob(at: temp, expected: digest) else {
                throw AISyncError(.damagedData, "remote object \(remote.displayName)/\(path) does not match its sha256", hint: "Nothing was applied; the device that pushed it should push again")
            }
            report.blobs += 1
        }

        // 4. Merge, then remember how far we got.
        let result = try await store.integrate(entries, expectedEnd: checkpoint.pushedOffset)
        if result.wasAtEnd { checkpoint.pushedOffset = result.end }
        for (device, head, etag) in heads where device != store.deviceID {
            let known = checkpoint.pulled[device]
            checkpoint.pulled[device] = SyncCheckpoint.Pulled(seq: max(head.seq, known?.seq ?? 0), etag: etag,
                                                              counter: max(counters[device] ?? 0, known?.counter ?? 0))
        }
        try await store.writeCheckpoint(checkpoint)
        try await store.rememberDeviceNames(Dictionary(heads.map { ($0.0, $0.1.name) }, uniquingKeysWith: { a, _ in a }))
        report.pulled = result.applied.count
        report.conflicts = try await store.conflictCount()
        return report
    }

    /// Heads that may have moved since the last pull: on WebDAV and folders one listing, and
    /// only heads whose ETag changed; on plain HTTP, which cannot list, every head named by the
    /// device index or by another head, read and kept when its number moved (nginx's ETag is
    /// seconds and size, so two pushes in one second can share it).
    /// Also returns our own head's listed ETag when it differs from the one we wrote (a store
    /// restored from a backup), or "" when the head should be read to find out.
    func changedHeads(checkpoint: SyncCheckpoint) async throws(AISyncError) -> (heads: [(DeviceID, String?, DeviceHead?)], own: String?) {
        var result: [(DeviceID, String?, DeviceHead?)] = []
        var own: String?
        if remote.canList {
            for entry in try await remote.list("heads") ?? [] {
                guard entry.name.hasSuffix(".json"), let device = DeviceID(String(entry.name.dropLast(5))) else { continue }
                if device == store.deviceID {
                    if !Self.sameETag(entry.etag, checkpoint.headETag) { own = entry.etag ?? "" }
                    continue
                }
                if Self.sameETag(entry.etag, checkpoint.pulled[device]?.etag) { continue }
                result.append((device, entry.etag, nil))
            }
            return (result, own)
        }
        var pending = Set(checkpoint.pulled.keys)
        let indexPath = RemotePath.devicesIndex
        if let read = try await readParsed(indexPath, { (bytes: [UInt8]) throws(AISyncError) -> DevicesIndex in
            try DevicesIndex(bytes: bytes, path: "\(remote.displayName)/\(indexPath)")
        }) {
            pending.formUnion(read.value.devices.keys)
        }
        // Our own head is read too (when the index names it): a store restored from a backup
        // finds its newer segments even when it has nothing to push.
        own = checkpoint.headETag == nil ? "" : nil
        var seen = Set<DeviceID>()
        while let device = pending.popFirst() {
            seen.insert(device)
            let path = RemotePath.headPath(device)
            let where_ = "\(remote.displayName)/\(path)"
            guard let read = try await readParsed(path, { (bytes: [UInt8]) throws(AISyncError) -> DeviceHead in
                try DeviceHead(bytes: bytes, path: where_, expected: device)
            }) else { continue }
            if device == store.deviceID {
                if read.value.seq > checkpoint.pushedSeq { own = read.file.etag ?? "" }
                continue
            }
            for other in read.value.devices where other != store.deviceID && !seen.contains(other) { pending.insert(other) }
            if read.value.seq <= checkpoint.pulled[device]?.seq ?? 0 { continue }
            result.append((device, read.file.etag, read.value))
        }
        return (result, own)
    }

    /// Pull takes back this device's own segments when the store was restored from a backup
    /// (its head on the remote is past what the store knows it pushed); see `adoptOwnHistory`.
    func takeBackOwnHistoryIfRestored(_ checkpoint: inout SyncCheckpoint, listedETag: String?) async throws(AISyncError) {
        guard listedETag != nil else { return }
        let path = RemotePath.headPath(store.deviceID)
        guard let file = try await remote.read(path) else { return }
        let head = try DeviceHead(bytes: file.bytes, path: "\(remote.displayName)/\(path)", expected: store.deviceID)
        guard checkpoint.headETag == nil || head.seq > checkpoint.pushedSeq else { return }
        do {
            _ = try await adoptOwnHistory(head: head, etag: file.etag, checkpoint: &checkpoint, reidentify: false)
        } catch where error.code == .configuration {
            // A copy that diverged: pulling is still safe; its next push says what to do.
        }
    }

}
