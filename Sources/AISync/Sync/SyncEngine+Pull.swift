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
            var file = preloaded
            if file == nil { file = try await remote.read(path) }
            guard let file else { continue }
            let head = try DeviceHead(bytes: file.bytes, path: "\(remote.displayName)/\(path)", expected: device)
            heads.append((device, head, file.etag ?? etag))
            report.bytes += Int64(file.bytes.count)
        }

        // 2. Their new segments, each verified whole before anything is applied.
        var entries: [Segment.Entry] = []
        for (device, head, _) in heads where device != store.deviceID {
            let from = (checkpoint.pulled[device]?.seq ?? 0) + 1
            guard head.seq >= from else { continue }
            for seq in from...head.seq {
                let path = RemotePath.segmentPath(device, seq)
                guard let file = try await remote.read(path, maxBytes: RemoteLimits.segment) else {
                    throw AISyncError(.damagedData, "remote segment \(remote.displayName)/\(path) is missing although its device's head names it",
                                      hint: "Nothing was applied; the device that wrote it should push again")
                }
                // A device's segments carry the remote id its head declares.
                let segment = try Segment.decode(file.bytes, path: "\(remote.displayName)/\(path)", device: device, seq: seq, remoteID: head.remoteID)
                entries += segment.entries
                report.segments += 1
                report.bytes += Int64(file.bytes.count)
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
        var wanted = imageBodies(in: entries)
        let incoming = Set(wanted.map(\.0))
        for (_, image) in try await store.liveImages() where !incoming.contains(image.sha256) {
            if await !store.hasObject(image.sha256) { wanted.append((image.sha256, image)) }
        }
        for (digest, image) in wanted where !(await store.hasObject(digest)) {
            if let imgur, await imgur.fetchOriginal(image) {
                report.blobs += 1
                continue
            }
            let temp = try await store.scratchPath()
            let path = RemotePath.objectPath(digest)
            guard try await remote.download(path, to: temp, maxBytes: RemoteLimits.blob) else {
                report.missingBlobs.append(digest)
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
            checkpoint.pulled[device] = SyncCheckpoint.Pulled(seq: max(head.seq, checkpoint.pulled[device]?.seq ?? 0), etag: etag)
        }
        try await store.writeCheckpoint(checkpoint)
        report.pulled = result.applied.count
        report.conflicts = try await store.conflictCount()
        return report
    }

    /// Heads whose ETag differs from the checkpoint: one listing on WebDAV and folders; on
    /// plain HTTP, the device index plus every head named by a head we read.
    func changedHeads(checkpoint: SyncCheckpoint) async throws(AISyncError) -> [(DeviceID, String?, RemoteFile?)] {
        var result: [(DeviceID, String?, RemoteFile?)] = []
        if remote.canList {
            for entry in try await remote.list("heads") ?? [] {
                guard entry.name.hasSuffix(".json"), let device = DeviceID(String(entry.name.dropLast(5))) else { continue }
                // Our own head is checked by push, which is the only writer of it.
                if device == store.deviceID { continue }
                if let etag = entry.etag, etag == checkpoint.pulled[device]?.etag { continue }
                result.append((device, entry.etag, nil))
            }
            return result
        }
        var pending = Set(checkpoint.pulled.keys)
        if let file = try await remote.read(RemotePath.devicesIndex) {
            let index = try DevicesIndex(bytes: file.bytes, path: "\(remote.displayName)/\(RemotePath.devicesIndex)")
            pending.formUnion(index.devices.keys)
        }
        pending.remove(store.deviceID)
        var seen = Set<DeviceID>()
        while let device = pending.popFirst() {
            seen.insert(device)
            guard let file = try await remote.read(RemotePath.headPath(device)) else { continue }
            if let head = try? DeviceHead(bytes: file.bytes, path: "", expected: device) {
                for other in head.devices where other != store.deviceID && !seen.contains(other) { pending.insert(other) }
            }
            if let etag = file.etag, etag == checkpoint.pulled[device]?.etag { continue }
            result.append((device, file.etag, file))
        }
        return result
    }

    /// Image bytes the entries refer to, each with the last body describing them (the one
    /// that knows where Imgur keeps them, if any).
    func imageBodies(in entries: [Segment.Entry]) -> [(SHA256Digest, ImageBody)] {
        var latest: [SHA256Digest: ImageBody] = [:]
        var order: [SHA256Digest] = []
        for e in entries where e.version.kind == .image {
            guard let body = e.body, case .image(let image)? = try? RecordBody(bytes: body, expected: .image) else { continue }
            if latest[image.sha256]?.imgur != nil, image.imgur == nil { continue }
            if latest.updateValue(image, forKey: image.sha256) == nil { order.append(image.sha256) }
        }
        return order.map { ($0, latest[$0]!) }
    }
}
