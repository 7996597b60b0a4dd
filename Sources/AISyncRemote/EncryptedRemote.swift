import AISyncCore
import AISyncFiles

/// A remote whose every file is sealed (``SealedFile``) before it leaves the device, over
/// any other remote: the server sees only ciphertext, padded sizes, and object names that
/// are keyed hashes.
///
/// Paths stay as the engine names them except objects (`objects/ab/<sha256>` becomes
/// `objects/xy/<HMAC>`); each file is sealed for its logical path, so a file the server
/// moves is refused as `.misplaced`. `aisync.json` and `keys.json` pass through unsealed:
/// they must be read before any key is known, and the engine checks them against the keys.
public struct EncryptedRemote: RemoteStorage {
    /// The remote that holds the sealed files.
    public let inner: any RemoteStorage
    /// The keys files are sealed with.
    public let keys: RemoteKeys
    let environment: AISyncEnvironment
    /// Where sealed copies of uploads and downloads are made (the store's scratch folder, so
    /// a 200 MB picture is not sealed into a RAM-backed /tmp).
    let scratchDirectory: String

    /// Seals what goes to `inner` with `keys`; `environment` gives salts and temp names,
    /// `scratchDirectory` (default: the environment's temporary directory) holds sealed copies.
    public init(
        _ inner: any RemoteStorage, keys: RemoteKeys, environment: AISyncEnvironment, scratchDirectory: String? = nil
    ) {
        self.inner = inner
        self.keys = keys
        self.environment = environment
        self.scratchDirectory = scratchDirectory ?? environment.temporaryDirectory
    }

    func scratchPath() -> String { "\(scratchDirectory)/sealed-\(environment.temporarySuffix())" }

    /// The inner remote's name.
    public var displayName: String { inner.displayName }
    /// Whether the inner remote lists.
    public var canList: Bool { inner.canList }

    static func isPlain(_ path: String) -> Bool { path == "aisync.json" || path == KeyFile.path }

    /// Where a logical path is stored on the server.
    public func storedPath(_ path: String) -> String {
        let parts = path.split(separator: "/")
        guard parts.count == 3, parts[0] == "objects", let digest = SHA256Digest(hex: String(parts[2])) else {
            return path
        }
        let name = keys.objectName(digest)
        return "objects/\(name.prefix(2))/\(name)"
    }

    func binding(_ path: String) -> SealedFile.Binding { SealedFile.Binding(remoteID: keys.remoteID, path: path) }

    func shown(_ path: String) -> String { "\(inner.displayName)/\(path)" }

    /// Opens sealed bytes read from `path` (for a conversion that reads files raw).
    package func open(_ sealed: [UInt8], at path: String) throws(AISyncError) -> [UInt8] {
        try SealedFile.open(sealed, dataKey: keys.dataKey, binding: binding(path), shown: shown(path))
    }

    /// The sealed size: header, tags and Padmé padding (plain files as they are).
    public func storedSize(_ path: String, plainSize: Int64) -> Int64 {
        Self.isPlain(path) ? plainSize : SealedFile.storedSize(plainSize: plainSize, binding: binding(path))
    }

    /// Reads and opens a file; throws `.tampered`, `.truncated` or `.misplaced` for one the
    /// server changed, cut or moved.
    public func read(_ path: String, maxBytes: Int) async throws(AISyncError) -> RemoteFile? {
        if Self.isPlain(path) { return try await inner.read(path, maxBytes: maxBytes) }
        let bound = Int(clamping: storedSize(path, plainSize: Int64(maxBytes)))
        guard let file = try await inner.read(storedPath(path), maxBytes: bound) else { return nil }
        return RemoteFile(bytes: try open(file.bytes, at: path), etag: file.etag, etagSettled: file.etagSettled)
    }

    /// Downloads and opens a file into `localPath`, chunk by chunk.
    public func download(_ path: String, to localPath: String, maxBytes: Int64) async throws(AISyncError) -> Bool {
        if Self.isPlain(path) { return try await inner.download(path, to: localPath, maxBytes: maxBytes) }
        return try await downloadOpening(path, to: localPath, maxBytes: maxBytes, hashing: false).found
    }

    /// Downloads and opens a file, hashing the plaintext as it is written.
    public func downloadHashed(_ path: String, to localPath: String, maxBytes: Int64) async throws(AISyncError)
        -> SHA256Digest?
    {
        if Self.isPlain(path) { return try await inner.downloadHashed(path, to: localPath, maxBytes: maxBytes) }
        return try await downloadOpening(path, to: localPath, maxBytes: maxBytes, hashing: true).digest
    }

    /// Downloads the sealed file to the scratch folder, then opens it a chunk at a time into
    /// `localPath` (hashing the plaintext on the way when asked); nil when the remote does not
    /// have it. On any failure `localPath` is removed: no unauthenticated byte stays behind.
    private func downloadOpening(_ path: String, to localPath: String, maxBytes: Int64, hashing: Bool)
        async throws(AISyncError)
        -> (found: Bool, digest: SHA256Digest?)
    {
        let sealedPath = scratchPath()
        defer { _ = Platform.unlink(sealedPath) }
        guard
            try await inner.download(storedPath(path), to: sealedPath, maxBytes: storedSize(path, plainSize: maxBytes))
        else { return (false, nil) }
        do {
            return (
                true,
                try SealedFileIO.open(
                    sealedPath, to: localPath, keys: keys, binding: binding(path), shown: shown(path), hashing: hashing)
            )
        } catch {
            _ = Platform.unlink(localPath)
            throw error
        }
    }

    /// Seals `bytes` with a fresh salt and writes them under the stored path.
    public func write(_ path: String, _ bytes: [UInt8], condition: WriteCondition) async throws(AISyncError)
        -> WriteResult
    {
        if Self.isPlain(path) { return try await inner.write(path, bytes, condition: condition) }
        let sealed = SealedFile.seal(
            bytes, dataKey: keys.dataKey, salt: environment.secureRandom(24), binding: binding(path))
        return try await inner.write(storedPath(path), sealed, condition: condition)
    }

    /// Seals a local file into the scratch folder, then uploads the sealed copy.
    public func upload(_ path: String, from localPath: String, condition: WriteCondition) async throws(AISyncError)
        -> WriteResult
    {
        if Self.isPlain(path) { return try await inner.upload(path, from: localPath, condition: condition) }
        let sealedPath = scratchPath()
        defer { _ = Platform.unlink(sealedPath) }
        try SealedFileIO.seal(
            localPath, to: sealedPath, keys: keys, salt: environment.secureRandom(24), binding: binding(path))
        return try await inner.upload(storedPath(path), from: sealedPath, condition: condition)
    }

    /// Names as stored: the same as written except under `objects/`, where they are keyed hashes.
    public func list(_ directory: String) async throws(AISyncError) -> [RemoteEntry]? {
        try await inner.list(directory)
    }
    /// Folder names are not secret: they are the first two characters of stored names.
    public func subfolders(_ directory: String) async throws(AISyncError) -> [String]? {
        try await inner.subfolders(directory)
    }
    /// Whether the stored file exists.
    public func exists(_ path: String) async throws(AISyncError) -> Bool { try await inner.exists(storedPath(path)) }
    /// The stored file's presence and sealed size (compare with ``storedSize(_:plainSize:)``).
    public func presence(_ path: String) async throws(AISyncError) -> RemotePresence {
        try await inner.presence(storedPath(path))
    }
    /// Deletes the stored file.
    public func delete(_ path: String) async throws(AISyncError) { try await inner.delete(storedPath(path)) }
}
