import AISyncCore
import AISyncFiles
import AISyncImgur
import AISyncRemote
import AISyncStore

/// Push and pull between a store and one remote (docs/DESIGN.md §5.3, §5.4).
///
/// Push writes blobs, then segments, then the head: a crash at any point leaves the remote
/// valid (a head never names a missing segment) and the next push finishes the job. Pull
/// verifies everything before it touches the store. Both hold a per-remote lock, so two
/// processes never sync the same remote from one store at once.
public struct SyncEngine: Sendable {
    /// The local store this engine syncs.
    public let store: Store
    /// Where the store's files go: a folder, WebDAV or plain HTTP remote (see ``RemoteFactory``).
    public let remote: any RemoteStorage
    /// The remote's name in the store's config; it names the checkpoint (`sync/<name>.json`)
    /// and the per-remote lock, so use the same name for the same remote every time.
    public let name: String
    /// The Imgur side: uploads when `uploadsToImgur`, and fetches pictures Imgur serves unchanged.
    public let imgur: ImgurSync?
    /// Whether a push uploads pending images to Imgur (and deletes unused ones there) before
    /// sending the records; always false without ``imgur``.
    public let uploadsToImgur: Bool
    /// Told what is moving, for a progress bar (see `SyncProgress.stream()`).
    public internal(set) var progress: @Sendable (SyncProgress) -> Void
    /// A push or sync writes a snapshot by itself (as `compact` does, with the default grace
    /// period) once this device has pushed more bytes since its last snapshot than this and
    /// than that snapshot's size, so restoring costs about the store's size, never its whole
    /// history. Nil: only `compact` writes snapshots.
    public var autoCompactBytes: Int64? = SyncEngine.defaultAutoCompactBytes
    /// Lets a push send deletes of more than max(50 records, a quarter of the store); off by
    /// default, so a wiped or half-restored store cannot empty every other device.
    public var allowMassDelete = false
    /// 64 MiB: about 80,000 chat versions.
    public static let defaultAutoCompactBytes: Int64 = 64 << 20

    /// An engine for `store` and `remote`. `progress` is called from the syncing task, often:
    /// keep it cheap, and hop to the main actor yourself to update UI.
    public init(
        store: Store, remote: any RemoteStorage, name: String, imgur: ImgurSync? = nil, uploadsToImgur: Bool = false,
        progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) {
        self.store = store
        self.remote = remote
        self.name = name
        self.imgur = imgur
        self.uploadsToImgur = uploadsToImgur && imgur != nil
        self.progress = progress
    }

    /// Runs `body` holding this remote's sync lock. With an `operation` (nil for a dry run),
    /// how it ended is noted in the store's ``SyncHistory`` before the lock is let go, so
    /// `status` tells the truth whoever ran it; `pulls` says whether a success saw every
    /// head the remote had.
    func withSyncLock<T>(
        _ operation: String? = nil, pulls: Bool = false, _ body: () async throws(AISyncError) -> T
    ) async throws(AISyncError) -> T {
        // A task cancelled before it started (a view that went away) does nothing at all.
        try AISyncError.checkCancellation()
        try FileIO.makeDirectories("\(store.root)/sync")
        let lock = try await StoreLock.acquireAsync(
            path: "\(store.root)/sync/\(name).lock", what: "syncing with \(name)", timeoutMilliseconds: 30_000)
        let started = Timestamp(milliseconds: store.environment.now())
        let result: Result<T, AISyncError>
        do throws(AISyncError) { result = .success(try await body()) } catch { result = .failure(error) }
        if let operation {
            var failure: SyncHistory.Attempt.Failure?
            if case .failure(let error) = result { failure = .init(error) }
            let attempt = SyncHistory.Attempt(
                operation: operation, started: started, finished: Timestamp(milliseconds: store.environment.now()),
                error: failure)
            // A note that cannot be written (a full disk) must not turn a sync into a failure.
            try? await store.recordSync(name, attempt, pulled: pulls)
        }
        _ = consume lock
        return try result.get()
    }

    /// Sends this device's versions the remote does not have yet, with the image bytes they
    /// need (images go to Imgur first when ``uploadsToImgur``). With `dryRun`, only reports
    /// what it would send. Cancelling the task stops between writes with code `cancelled`;
    /// the remote stays valid and the next push finishes the job. Waits up to 30 s for
    /// another sync with this remote from the same store, then throws `temporary`.
    public func push(dryRun: Bool = false) async throws(AISyncError) -> SyncReport {
        try await withSyncLock(dryRun ? nil : "push") { () async throws(AISyncError) -> SyncReport in
            let report = try await pushLocked(dryRun: dryRun)
            if !dryRun { try await compactIfDue(pushed: report) }
            return report
        }
    }

    /// Fetches other devices' new versions and their pictures, verifies them, and merges them
    /// into the store; a bad segment is rejected whole, before anything is applied. With
    /// `dryRun`, only reports what it would fetch. Pictures the remote lacks are reported in
    /// ``SyncReport/missingBlobs``, not thrown.
    public func pull(dryRun: Bool = false) async throws(AISyncError) -> SyncReport {
        try await withSyncLock(dryRun ? nil : "pull", pulls: true) { () async throws(AISyncError) -> SyncReport in
            try await pullLocked(dryRun: dryRun)
        }
    }

    /// Pull, merge, push.
    public func sync(dryRun: Bool = false) async throws(AISyncError) -> SyncReport {
        try await withSyncLock(dryRun ? nil : "sync", pulls: true) { () async throws(AISyncError) -> SyncReport in
            // Like push, sync may start an empty remote.
            let pulled = try await pullLocked(dryRun: dryRun, createIfMissing: !dryRun)
            let pushed = try await pushLocked(dryRun: dryRun)
            if !dryRun { try await compactIfDue(pushed: pushed) }
            return pulled + pushed
        }
    }

    /// Reads and parses a remote file, reading again after a short wait when it does not
    /// parse: Apache and rclone write files in place, so a reader can catch one half-written,
    /// and a lost connection can cut an answer short. Real damage fails as soon as a read
    /// gives the same refused bytes again (or after the last attempt). Nil when the file does not exist.
    func readParsed<T>(
        _ path: String, maxBytes: Int = RemoteLimits.smallFile,
        _ parse: ([UInt8]) throws(AISyncError) -> T
    ) async throws(AISyncError) -> (value: T, file: RemoteFile)? {
        var attempt = 0
        var refused: SHA256Digest?
        while true {
            guard let file = try await remote.read(path, maxBytes: maxBytes) else { return nil }
            do throws(AISyncError) {
                if keys == nil, file.bytes.starts(with: SealedFile.magic) { throw try await encryptedNow() }
                return (try parse(file.bytes), file)
            } catch  where (error.code == .damagedData || error.code == .truncated) && attempt < 3 {
                // A clean read that gives the very bytes refused before says the damage is
                // real: stop there, rather than parse a large file four times.
                let digest = SHA256.hash(file.bytes)
                if digest == refused { throw error }
                refused = digest
                attempt += 1
                await store.environment.sleep(150 * attempt)
            }
        }
    }

    // MARK: - Manifest

    /// Reads `aisync.json`; creates it on first push to an empty location, raises an aisync 1
    /// remote on the first push of records v2, and refuses a remote that was reset
    /// (`PullPlanner.manifestAction`).
    func manifest(create: Bool, checkpoint: inout SyncCheckpoint) async throws(AISyncError) -> RemoteManifest {
        let read = try await readManifest()
        let (found, file) = (read?.value, read?.file)
        if let found { try await checkEncryption(found) }
        switch PullPlanner.manifestAction(found: found, knownID: checkpoint.remoteID, create: create) {
        case .checkReset(let found):
            guard let known = checkpoint.remoteID, try await ownHeadBelongs(to: known) else {
                throw AISyncError(
                    .configuration,
                    "\(remote.displayName) is no longer the remote this store synced with (its id changed)",
                    hint: "If it was reset on purpose, remove the remote and add it again", remedy: .replaceRemote(name)
                )
            }
            return found
        case .use(let found):
            if checkpoint.remoteID == nil { checkpoint.remoteID = found.remoteID }
            return found
        case .raise(let found):
            // The first push of records v2 raises the format, so aisync 1 stops pushing here.
            var raised = found
            raised.format = RemoteManifest.currentFormat
            if checkpoint.remoteID == nil { checkpoint.remoteID = raised.remoteID }
            _ = try await remote.write(
                RemotePath.manifest, raised.json.canonicalBytes + [10],
                condition: file?.etag.map { .replacing(etag: $0) } ?? .always)
            return raised
        case .missing:
            throw AISyncError(
                .notFound, "\(remote.displayName) is not a sync remote (no aisync.json there)",
                hint: checkpoint.remoteID == nil
                    ? "Check the URL, or push to it first" : "The remote was emptied; push to it again to restore it")
        case .create:
            return try await createManifest(&checkpoint)
        }
    }

    /// Creates `aisync.json` create-only, then reads it back: with two first pushes at once
    /// (and a server ignoring If-None-Match), the last write wins, and both must agree on it.
    private func createManifest(_ checkpoint: inout SyncCheckpoint) async throws(AISyncError) -> RemoteManifest {
        let manifest = RemoteManifest(
            remoteID: keys?.remoteID ?? store.environment.randomHex(bytes: 16),
            created: Timestamp(milliseconds: store.environment.now()), encrypted: keys != nil)
        // 412: another device created it at the same moment; use theirs.
        _ = try await remote.write(RemotePath.manifest, manifest.json.canonicalBytes + [10], condition: .createOnly)
        guard let final = try await readManifest()?.value else {
            throw AISyncError(
                .unavailable, "\(remote.displayName) did not keep aisync.json",
                hint: "Check that the server accepts uploads")
        }
        try await checkEncryption(final)
        checkpoint.remoteID = final.remoteID
        return final
    }

    /// The keys files are sealed with; nil for a remote that is not encrypted.
    public var keys: RemoteKeys? { (remote as? EncryptedRemote)?.keys }

    /// An encrypted engine refuses a manifest that says otherwise (a server stripping the
    /// encryption, or the key of another remote); a plain one that finds an encrypted
    /// remote (another device encrypted it) marks it so and asks to be run again.
    func checkEncryption(_ manifest: RemoteManifest) async throws(AISyncError) {
        if let keys {
            guard manifest.encrypted, manifest.remoteID == keys.remoteID else {
                throw AISyncError(
                    .tampered,
                    "\(remote.displayName)/aisync.json does not match the remote's key (\(manifest.encrypted ? "another remote id" : "it says the remote is not encrypted"))",
                    hint: "Nothing was sent; check the URL, or restore the server's aisync.json from a backup")
            }
        } else if manifest.encrypted {
            throw try await encryptedNow()
        }
    }

    /// A plain engine met encrypted files: the remote is marked encrypted in the config, and
    /// the caller is told to run again with the passphrase.
    func encryptedNow() async throws(AISyncError) -> AISyncError {
        try await store.markRemoteEncrypted(name)
        return AISyncError(
            .configuration, "\(remote.displayName) is encrypted now (another device turned encryption on)",
            hint: "Try again with the remote's passphrase", remedy: .providePassphrase(remote: name, new: false))
    }

    /// Raises the remote to the snapshot format before the first head names a snapshot.
    func raiseToSnapshotFormat() async throws(AISyncError) {
        guard let read = try await readManifest(), read.value.format < RemoteManifest.snapshotFormat else { return }
        var raised = read.value
        raised.format = RemoteManifest.snapshotFormat
        _ = try await remote.write(
            RemotePath.manifest, raised.json.canonicalBytes + [10],
            condition: read.file.etag.map { .replacing(etag: $0) } ?? .always)
    }

    /// Reads `aisync.json`, read again when it does not parse (a truncated answer after a
    /// transport error is not damage until a clean read says so: `readParsed`).
    private func readManifest() async throws(AISyncError) -> (value: RemoteManifest, file: RemoteFile)? {
        try await readParsed(RemotePath.manifest) { (bytes: [UInt8]) throws(AISyncError) -> RemoteManifest in
            try RemoteManifest(bytes: bytes, location: remote.displayName)
        }
    }

    /// Whether our own head is still on the remote under `remoteID`. Two devices creating the
    /// manifest at the same moment on a server that ignores If-None-Match (nginx) can leave
    /// one of them with another id than the manifest's; its files are still there, so the
    /// remote was not reset. A reset remote has lost our head.
    func ownHeadBelongs(to remoteID: String) async throws(AISyncError) -> Bool {
        try await readOwnHead()?.head.remoteID == remoteID
    }
}
