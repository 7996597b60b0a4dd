import AISyncCore
import AISyncFiles
import AISyncStore
import AISyncRemote
import AISyncImgur
/// Push and pull between a store and one remote (design §4).
///
/// Push writes blobs, then segments, then the head: a crash at any point leaves the remote
/// valid (a head never names a missing segment) and the next push finishes the job. Pull
/// verifies everything before it touches the store. Both hold a per-remote lock, so two
/// processes never sync the same remote from one store at once.
public struct SyncEngine: Sendable {
    public let store: Store
    public let remote: any RemoteStorage
    public let name: String
    /// The Imgur side: uploads when `uploadsToImgur`, and fetches pictures Imgur serves unchanged.
    public let imgur: ImgurSync?
    public let uploadsToImgur: Bool
    /// Told what is moving, for a progress bar (see `SyncProgress.stream()`).
    public let progress: @Sendable (SyncProgress) -> Void

    public init(store: Store, remote: any RemoteStorage, name: String, imgur: ImgurSync? = nil, uploadsToImgur: Bool = false,
                progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }) {
        self.store = store; self.remote = remote; self.name = name; self.imgur = imgur
        self.uploadsToImgur = uploadsToImgur && imgur != nil
        self.progress = progress
    }

    func withSyncLock<T>(_ body: () async throws(AISyncError) -> T) async throws(AISyncError) -> T {
        try FileIO.makeDirectories("\(store.root)/sync")
        let lock = try StoreLock.acquire(path: "\(store.root)/sync/\(name).lock", what: "syncing with \(name)", timeoutMilliseconds: 30_000)
        let result = try await body()
        _ = consume lock
        return result
    }

    public func push(dryRun: Bool = false) async throws(AISyncError) -> SyncReport {
        try await withSyncLock { () async throws(AISyncError) -> SyncReport in try await pushLocked(dryRun: dryRun) }
    }

    public func pull(dryRun: Bool = false) async throws(AISyncError) -> SyncReport {
        try await withSyncLock { () async throws(AISyncError) -> SyncReport in try await pullLocked(dryRun: dryRun) }
    }

    /// Pull, merge, push.
    public func sync(dryRun: Bool = false) async throws(AISyncError) -> SyncReport {
        try await withSyncLock { () async throws(AISyncError) -> SyncReport in
            // Like push, sync may start an empty remote.
            let pulled = try await pullLocked(dryRun: dryRun, createIfMissing: !dryRun)
            let pushed = try await pushLocked(dryRun: dryRun)
            return pulled + pushed
        }
    }

    /// Reads and parses a remote file, reading again after a short wait when it does not
    /// parse: Apache and rclone write files in place, so a reader can catch one half-written.
    /// Real damage still fails after the last attempt. Nil when the file does not exist.
    func readParsed<T>(_ path: String, maxBytes: Int = RemoteLimits.smallFile,
                       _ parse: ([UInt8]) throws(AISyncError) -> T) async throws(AISyncError) -> (value: T, file: RemoteFile)? {
        var attempt = 0
        while true {
            guard let file = try await remote.read(path, maxBytes: maxBytes) else { return nil }
            do {
                return (try parse(file.bytes), file)
            } catch where error.code == .damagedData && attempt < 3 {
                attempt += 1
                await store.environment.sleep(150 * attempt)
            }
        }
    }

    /// ETags compared weakly: Apache turns `W/"x"` into `"x"` a second after a write.
    static func sameETag(_ a: String?, _ b: String?) -> Bool {
        guard let a, let b else { return false }
        func opaque(_ e: String) -> Substring { e.hasPrefix("W/") ? e.dropFirst(2) : Substring(e) }
        return opaque(a) == opaque(b)
    }

    // MARK: - Manifest

    /// Reads `aisync.json`; creates it on first push to an empty location.
    func manifest(create: Bool, checkpoint: inout SyncCheckpoint) async throws(AISyncError) -> RemoteManifest {
        if let file = try await remote.read(RemotePath.manifest) {
            let manifest = try RemoteManifest(bytes: file.bytes, location: remote.displayName)
            if let known = checkpoint.remoteID, known != manifest.remoteID, try await !ownHeadBelongs(to: known) {
                throw AISyncError(.configuration, "\(remote.displayName) is no longer the remote this store synced with (its id changed)",
                                  hint: "If it was reset on purpose, remove and re-add the remote: `aisync remote remove \(name)` then `aisync remote add \(name) URL`")
            }
            if checkpoint.remoteID == nil { checkpoint.remoteID = manifest.remoteID }
            if create, manifest.format < RemoteManifest.currentFormat {
                // The first push of records v2 raises the format, so aisync 1 stops pushing here.
                var raised = manifest
                raised.format = RemoteManifest.currentFormat
                _ = try await remote.write(RemotePath.manifest, raised.json.canonicalBytes + [10],
                                           condition: file.etag.map { .replacing(etag: $0) } ?? .always)
                return raised
            }
            return manifest
        }
        guard create else {
            throw AISyncError(.notFound, "\(remote.displayName) is not an aisync remote (no aisync.json there)",
                              hint: checkpoint.remoteID == nil ? "Check the URL, or push to it first" : "The remote was emptied; push to it again to restore it")
        }
        let manifest = RemoteManifest(remoteID: StoreEnvironment.randomHex(bytes: 16), created: Timestamp(milliseconds: store.environment.now()))
        switch try await remote.write(RemotePath.manifest, manifest.json.canonicalBytes + [10], condition: .createOnly) {
        case .written: break
        case .preconditionFailed: break  // another device created it at the same moment: use theirs
        }
        // Read back: with two first pushes at once (and a server ignoring If-None-Match), the
        // last write wins, and both devices must agree on it.
        guard let file = try await remote.read(RemotePath.manifest) else {
            throw AISyncError(.unavailable, "\(remote.displayName) did not keep aisync.json", hint: "Check that the server accepts uploads")
        }
        let final = try RemoteManifest(bytes: file.bytes, location: remote.displayName)
        checkpoint.remoteID = final.remoteID
        return final
    }

    /// Whether our own head is still on the remote under `remoteID`. Two devices creating the
    /// manifest at the same moment on a server that ignores If-None-Match (nginx) can leave
    /// one of them with another id than the manifest's; its files are still there, so the
    /// remote was not reset. A reset remote has lost our head.
    func ownHeadBelongs(to remoteID: String) async throws(AISyncError) -> Bool {
        let path = RemotePath.headPath(store.deviceID)
        guard let file = try await remote.read(path) else { return false }
        let head = try DeviceHead(bytes: file.bytes, path: "\(remote.displayName)/\(path)", expected: store.deviceID)
        return head.remoteID == remoteID
    }
}
