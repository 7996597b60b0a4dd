import AISyncCore
import AISyncFiles
import AISyncRemote
import AISyncStore

/// What `aisync encrypt` did.
public struct EncryptionReport: Sendable, Equatable {
    /// Files sealed in place (heads, segments, snapshot parts, the device index).
    public var files = 0
    /// Pictures sealed under their keyed names (their plain copies removed).
    public var objects = 0
    /// Files found sealed already (a conversion run again after it was cut off).
    public var alreadySealed = 0
}

extension SyncEngine {
    /// Encrypts a remote that holds plain aisync data, in place (`aisync encrypt NAME`): a
    /// sync first (so this store has every record and picture), then a key (`keys.json`, or
    /// the one a cut-off run made), then `aisync.json` raised to the encrypted format (so
    /// devices without the key stop pushing plaintext), then every file sealed where it is
    /// and every picture sealed under its keyed name, its plain copy removed last.
    ///
    /// Resumable: a run cut off anywhere leaves every file readable (plain or sealed) and the
    /// next run finishes, skipping what is sealed. Run it while other devices are not
    /// syncing; a file one of them writes meanwhile is sealed by running it again. Pictures
    /// this store does not have (orphans on the server) stay as they are.
    ///
    /// - Returns: the keys, for the caller to remember if the user allows, and what was done.
    public func encryptRemote(passphrase: PassphraseSource) async throws(AISyncError) -> (
        keys: RemoteKeys, report: EncryptionReport
    ) {
        let raw = (remote as? EncryptedRemote)?.inner ?? remote
        guard let manifest = try await RemoteEncryption.readManifest(raw) else {
            throw AISyncError(
                .notFound, "\(raw.displayName) is not a sync remote yet (no aisync.json)",
                hint: "Nothing to encrypt: add the remote as encrypted and push to it", remedy: .addEncryptedRemote)
        }
        if !manifest.encrypted, keys == nil { _ = try await sync() }
        let keys = try await RemoteEncryption.conversionKeys(
            raw, remoteID: manifest.remoteID, store: store, passphrase: passphrase)
        return try await withSyncLock("encrypt") {
            () async throws(AISyncError) -> (keys: RemoteKeys, report: EncryptionReport) in
            if !manifest.encrypted {
                var raised = manifest
                raised.format = RemoteManifest.encryptedFormat
                raised.encrypted = true
                _ = try await raw.write(RemotePath.manifest, raised.json.canonicalBytes + [10], condition: .always)
            }
            let sealed = EncryptedRemote(
                raw, keys: keys, environment: store.environment,
                scratchDirectory: FileIO.parentDirectory(of: try await store.scratchPath()))
            var report = EncryptionReport()
            try await sealFiles(raw, sealed, report: &report)
            try await sealObjects(raw, sealed, report: &report)
            try await store.markRemoteEncrypted(name)
            return (keys, report)
        }
    }

    /// Seals every device's segments, snapshot parts and head, then the device index.
    private func sealFiles(_ raw: any RemoteStorage, _ sealed: EncryptedRemote, report: inout EncryptionReport)
        async throws(AISyncError)
    {
        var devices = Set<DeviceID>()
        if raw.canList {
            for entry in try await raw.list("heads") ?? [] where entry.name.hasSuffix(".json") {
                if let device = DeviceID(String(entry.name.dropLast(5))) { devices.insert(device) }
            }
        }
        if let index = try await sealFile(RemotePath.devicesIndex, raw, sealed, report: &report) {
            devices.formUnion(try DevicesIndex(bytes: index, path: RemotePath.devicesIndex).devices.keys)
        }
        devices.insert(store.deviceID)
        var pending = Array(devices)
        while let device = pending.popLast() {
            let path = RemotePath.headPath(device)
            // Read once: parsed now, sealed last (after the segments it names).
            guard let headFile = try await readForSealing(path, raw, sealed) else { continue }
            let head = try DeviceHead(bytes: headFile.plain, path: path, expected: device)
            for other in head.devices where devices.insert(other).inserted { pending.append(other) }
            guard head.seq <= 10_000_000 else {
                throw AISyncError(
                    .damagedData, "\(raw.displayName)/\(path) claims \(head.seq) segments",
                    hint: "The device that wrote it should push again")
            }
            for seq in stride(from: Int64(1), through: head.seq, by: 1) {
                progress(
                    SyncProgress(
                        phase: .pushingSegments, done: Int(seq), total: Int(head.seq), bytes: 0, from: head.name))
                _ = try await sealFile(RemotePath.segmentPath(device, seq), raw, sealed, report: &report)
            }
            if let info = head.snapshot, info.parts > 0 {
                for part in 1...info.parts {
                    _ = try await sealFile(
                        RemotePath.snapshotPath(device, info.seq, part: part), raw, sealed, report: &report)
                }
            }
            try await seal(path, headFile, sealed, report: &report)
        }
    }

    /// A file as stored and its plaintext (read plain, or opened when it is sealed already);
    /// nil when missing.
    private func readForSealing(_ path: String, _ raw: any RemoteStorage, _ sealed: EncryptedRemote)
        async throws(AISyncError)
        -> (stored: RemoteFile, plain: [UInt8])?
    {
        try AISyncError.checkCancellation()
        guard
            let file = try await raw.read(
                path, maxBytes: Int(sealed.storedSize(path, plainSize: Int64(RemoteLimits.segment))))
        else { return nil }
        return (file, file.bytes.starts(with: SealedFile.magic) ? try sealed.open(file.bytes, at: path) : file.bytes)
    }

    /// Seals one file where it is (unless it is already); returns its plaintext, nil when missing.
    private func sealFile(
        _ path: String, _ raw: any RemoteStorage, _ sealed: EncryptedRemote,
        report: inout EncryptionReport
    ) async throws(AISyncError) -> [UInt8]? {
        guard let read = try await readForSealing(path, raw, sealed) else { return nil }
        try await seal(path, read, sealed, report: &report)
        return read.plain
    }

    /// Writes a file read by ``readForSealing(_:_:_:)`` back sealed, unless it was already.
    private func seal(
        _ path: String, _ read: (stored: RemoteFile, plain: [UInt8]), _ sealed: EncryptedRemote,
        report: inout EncryptionReport
    ) async throws(AISyncError) {
        guard !read.stored.bytes.starts(with: SealedFile.magic) else {
            report.alreadySealed += 1
            return
        }
        let written = try await sealed.write(path, read.plain, condition: .always)
        report.files += 1
        if path == RemotePath.headPath(store.deviceID), case .written(let etag) = written {
            // Our own head changed bytes, not content: the next push must not take it for a restore.
            var checkpoint = try await store.readCheckpoint(name)
            checkpoint.headETag = etag ?? ""
            try await store.writeCheckpoint(checkpoint)
        }
    }

    /// Seals every picture this store has that the remote holds in plain, under its keyed
    /// name, checked against its sha256 on the way; the plain copy is removed once the
    /// sealed one is stored.
    private func sealObjects(_ raw: any RemoteStorage, _ sealed: EncryptedRemote, report: inout EncryptionReport)
        async throws(AISyncError)
    {
        let digests = await store.objectDigests()
        for (n, digest) in digests.enumerated() {
            try AISyncError.checkCancellation()
            let plainPath = RemotePath.objectPath(digest)
            guard case .present = try await raw.presence(plainPath) else { continue }
            progress(SyncProgress(phase: .pushingImages, done: n, total: digests.count, bytes: 0))
            let local = store.objectPath(digest)
            let size = Platform.stat(local)?.size ?? 0
            if case .present(let stored) = try await sealed.presence(plainPath),
                stored == nil || stored == sealed.storedSize(plainPath, plainSize: size)
            {
                report.alreadySealed += 1
            } else {
                _ = try await sealed.upload(plainPath, from: local, condition: .always)
                report.objects += 1
            }
            try await raw.delete(plainPath)
        }
    }
}
