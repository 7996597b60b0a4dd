extension SyncEngine {
    func pullLocked(dryRun: Bool, createIfMissing: Bool = false) async throws(AISyncError) -> SyncReport {
        var checkpoint = try await store.readCheckpoint(name)
        var report = SyncReport()
        report.dryRun = dryRun
        if checkpoint.remoteID == nil { _ = try await manifest(create: createIfMissing, checkpoint: &checkpoint) }

        // 1. Which heads changed since the last pull.
        var heads: [(DeviceID, DeviceHead, String?)] = []
        for (device, etag, preloaded) in try await changedHeads(checkpoint: checkpoint) {
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
                progress("pulling segment \(seq)/\(head.seq) of \(head.name.prefix(40))")
                let path = RemotePath.segmentPath(device, seq)
                let where_ = "\(remote.displayName)/\(path)"
                // A device's segments carry the remote id its head declares.
                guard let read = try await readParsed(path, maxBytes: RemoteLimits.segment, { (bytes: [UInt8]) throws(AISyncError) -> Segment in
                    try Segment.decode(bytes, path: where_, device: device, seq: seq, remoteID: head.remoteID)
                }) else {
                    throw AISyncError(.damagedData, "remote segment \(where_) is missing although its device's head names it",
                                      hint: "Nothing was applied; the device that wrote it should push again")
                }
                entries += read.value.entries
                for e in read.value.entries where e.version.device == device {
                    counters[device] = max(counters[device] ?? 0, e.version.clock[device])
                }
                report.segments += 1
                report.bytes += Int64(read.file.bytes.count)
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
        for (digest, image) in wanted where !(await store.hasObject(digest)) {
            progress("pulling image \(digest.hex.prefix(12))")
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
    func changedHeads(checkpoint: SyncCheckpoint) async throws(AISyncError) -> [(DeviceID, String?, DeviceHead?)] {
        var result: [(DeviceID, String?, DeviceHead?)] = []
        if remote.canList {
            for entry in try await remote.list("heads") ?? [] {
                guard entry.name.hasSuffix(".json"), let device = DeviceID(String(entry.name.dropLast(5))) else { continue }
                // Our own head is checked by push, which is the only writer of it.
                if device == store.deviceID { continue }
                if Self.sameETag(entry.etag, checkpoint.pulled[device]?.etag) { continue }
                result.append((device, entry.etag, nil))
            }
            return result
        }
        var pending = Set(checkpoint.pulled.keys)
        let indexPath = RemotePath.devicesIndex
        if let read = try await readParsed(indexPath, { (bytes: [UInt8]) throws(AISyncError) -> DevicesIndex in
            try DevicesIndex(bytes: bytes, path: "\(remote.displayName)/\(indexPath)")
        }) {
            pending.formUnion(read.value.devices.keys)
        }
        pending.remove(store.deviceID)
        var seen = Set<DeviceID>()
        while let device = pending.popFirst() {
            seen.insert(device)
            let path = RemotePath.headPath(device)
            let where_ = "\(remote.displayName)/\(path)"
            guard let read = try await readParsed(path, { (bytes: [UInt8]) throws(AISyncError) -> DeviceHead in
                try DeviceHead(bytes: bytes, path: where_, expected: device)
            }) else { continue }
            for other in read.value.devices where other != store.deviceID && !seen.contains(other) { pending.insert(other) }
            if read.value.seq <= checkpoint.pulled[device]?.seq ?? 0 { continue }
            result.append((device, read.file.etag, read.value))
        }
        return result
    }

}
