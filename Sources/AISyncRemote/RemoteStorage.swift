import AISyncCore
import AISyncFiles

/// A file read from a remote, with the validator the server gave it.
public struct RemoteFile: Sendable, Equatable {
    /// The file's whole contents.
    public var bytes: [UInt8]
    /// The server's ETag for this content, to pass back in ``WriteCondition/replacing(etag:)``;
    /// nil when the server sent none.
    public var etag: String?
    /// False when the file had changed moments before the server answered (its
    /// `Last-Modified` less than two seconds before the answer's `Date`): a server whose ETag
    /// holds whole seconds (WsgiDAV's is inode-mtime-size) gives a same-size rewrite within that
    /// second the same ETag, so this ETag cannot show later that the file is still this one.
    public var etagSettled: Bool
    /// A file with the given contents and ETag; `etagSettled` as ``etagSettled``.
    public init(bytes: [UInt8], etag: String?, etagSettled: Bool = true) {
        self.bytes = bytes
        self.etag = etag
        self.etagSettled = etagSettled
    }
}

/// One entry of a remote directory listing.
public struct RemoteEntry: Sendable, Equatable {
    /// The file's name within the listed directory (no path, no trailing slash).
    public var name: String
    /// The file's ETag when the listing gives one; nil otherwise.
    public var etag: String?
    /// An entry with the given name and ETag.
    public init(name: String, etag: String?) {
        self.name = name
        self.etag = etag
    }
}

/// When a write may happen (docs/DESIGN.md §5.2: create with `If-None-Match: *`, replace with `If-Match`).
public enum WriteCondition: Sendable, Equatable {
    /// Unconditionally: create or overwrite.
    case always
    /// Only if nothing exists at the path yet.
    case createOnly
    /// Only if the current file still has this ETag.
    case replacing(etag: String)
}

/// What a conditional write did.
public enum WriteResult: Sendable, Equatable {
    /// The file was written; `etag` is the server's new ETag for it, nil when it sent none.
    case written(etag: String?)
    /// The condition did not hold (HTTP 412).
    case preconditionFailed
}

/// Where a remote keeps aisync's files: a WebDAV server, a plain HTTP server, or a folder.
///
/// Paths are relative to the remote's root, `/`-separated, and made only by aisync from
/// validated ids. Servers may ignore conditions (nginx does), so callers must stay correct
/// without them: every file has a single writer. Every method throws `AISyncError` with a
/// code the CLI maps to an exit code (permission, unavailable, temporary, configuration).
public protocol RemoteStorage: Sendable {
    /// The remote's location for messages, never with credentials.
    var displayName: String { get }
    /// Whether `list` works (plain HTTP cannot list).
    var canList: Bool { get }
    /// Reads a small file; nil when it does not exist.
    func read(_ path: String, maxBytes: Int) async throws(AISyncError) -> RemoteFile?
    /// Streams a file to a local path; false when it does not exist.
    func download(_ path: String, to localPath: String, maxBytes: Int64) async throws(AISyncError) -> Bool
    /// Streams a file to a local path and returns the SHA-256 of the bytes written there,
    /// computed on the way when the remote can (so a blob is verified without reading it
    /// again); nil when it does not exist.
    func downloadHashed(_ path: String, to localPath: String, maxBytes: Int64) async throws(AISyncError)
        -> SHA256Digest?
    /// Writes a small file, creating parent directories as needed.
    func write(_ path: String, _ bytes: [UInt8], condition: WriteCondition) async throws(AISyncError) -> WriteResult
    /// Streams a local file up, creating parent directories as needed.
    func upload(_ path: String, from localPath: String, condition: WriteCondition) async throws(AISyncError)
        -> WriteResult
    /// Names and ETags of the files in a directory; nil when the directory does not exist.
    func list(_ directory: String) async throws(AISyncError) -> [RemoteEntry]?
    /// Names of the folders directly inside a directory (`objects/` holds one per name
    /// prefix), so a sweep lists only those that exist; empty when the directory does not
    /// exist, nil when the remote cannot tell.
    func subfolders(_ directory: String) async throws(AISyncError) -> [String]?
    /// Whether a file exists (cheap: HEAD, stat).
    func exists(_ path: String) async throws(AISyncError) -> Bool
    /// Whether a file exists and, when the remote says, its size (HEAD, stat).
    func presence(_ path: String) async throws(AISyncError) -> RemotePresence
    /// Deletes a file; deleting a missing file is not an error.
    func delete(_ path: String) async throws(AISyncError)
    /// The size ``presence(_:)`` reports for a file of `plainSize` bytes written at `path`
    /// (an encrypted remote adds its header, tags and padding).
    func storedSize(_ path: String, plainSize: Int64) -> Int64
    /// Uploads begun and not finished (S3's multipart uploads, whose parts stay stored until
    /// ended): a killed process's, or one running now on another device. Remotes that write
    /// each file whole have none.
    func unfinishedUploads() async throws(AISyncError) -> [UnfinishedUpload]
    /// Ends an unfinished upload, deleting what it stored.
    func endUpload(_ upload: UnfinishedUpload) async throws(AISyncError)
}

/// An upload begun and not finished: the path it was writing, and the store's id for it.
public struct UnfinishedUpload: Sendable, Hashable {
    /// The remote path the upload was writing.
    public var path: String
    /// The store's id for the upload (opaque).
    public var id: String
    /// The upload of `path` known to the store as `id`.
    public init(path: String, id: String) {
        self.path = path
        self.id = id
    }
}

/// Whether a remote file is there, and how big it is when the remote says.
public enum RemotePresence: Sendable, Equatable {
    /// No such file.
    case missing
    /// A file; `size` in bytes, nil when the remote did not say.
    case present(size: Int64?)
}

extension RemoteStorage {
    /// Files are stored as they are written.
    public func storedSize(_ path: String, plainSize: Int64) -> Int64 { plainSize }

    /// None: files are written whole.
    public func unfinishedUploads() async throws(AISyncError) -> [UnfinishedUpload] { [] }

    /// Nothing to end.
    public func endUpload(_ upload: UnfinishedUpload) async throws(AISyncError) {}

    /// From ``exists(_:)``, without a size: for remotes that cannot say it cheaply.
    public func presence(_ path: String) async throws(AISyncError) -> RemotePresence {
        try await exists(path) ? .present(size: nil) : .missing
    }

    /// Downloads, then hashes the file written: for remotes that cannot hash on the way
    /// (in-memory remotes, wrappers in tests).
    public func downloadHashed(_ path: String, to localPath: String, maxBytes: Int64) async throws(AISyncError)
        -> SHA256Digest?
    {
        guard try await download(path, to: localPath, maxBytes: maxBytes) else { return nil }
        return try hashFile(localPath)
    }

    /// Unknown: a sweep tries every name it could be.
    public func subfolders(_ directory: String) async throws(AISyncError) -> [String]? { nil }

    /// Reads a small file of at most ``RemoteLimits/smallFile`` bytes; nil when it does not exist.
    public func read(_ path: String) async throws(AISyncError) -> RemoteFile? {
        try await read(path, maxBytes: RemoteLimits.smallFile)
    }
}

/// Size limits for what a server may send, so a hostile one cannot exhaust memory or disk.
public enum RemoteLimits {
    /// Heads, the remote's `aisync.json`, device indexes.
    public static let smallFile = 1 << 20
    /// One segment; pushes cut segments well below this.
    public static let segment = 64 << 20
    /// One image.
    public static let blob: Int64 = 4 << 30
}

/// The SHA-256 of a downloaded file, as an `AISyncError` when it cannot be read.
func hashFile(_ path: String) throws(AISyncError) -> SHA256Digest {
    try SHA256.hash(fileAt: path).digest
}
