import AISyncCore
import AISyncFiles
import Synchronization

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A remote that is a local folder: a USB stick, a mounted cloud drive, or the quick start.
///
/// Files are written atomically (temp file + rename); create-only writes use link(2), which
/// fails if the target exists, so they are atomic too. ETags are size, mtime and inode.
/// Temp files live in `.aisync-tmp/` at the root (never beside the files other devices read);
/// what a killed write left there is removed after an hour, once per process and folder.
public struct FolderRemote: RemoteStorage {
    static let temporaryDirectory = ".aisync-tmp"
    /// Folders swept in this process.
    private static let swept = Mutex<Set<String>>([])

    /// The absolute path of the folder that holds the remote's files.
    public let root: String
    /// Names temp files and dates the sweep of old ones.
    let environment: AISyncEnvironment
    /// The folder as a `file://` URL, for messages.
    public var displayName: String { "file://\(root)" }
    /// Always true: a folder can be listed.
    public var canList: Bool { true }

    /// A remote in the folder `root`; `environment` supplies temp names and the clock
    /// (pass the store's, so a seeded test environment governs the remote too).
    public init(root: String, environment: AISyncEnvironment = .live) {
        self.root = root
        self.environment = environment
    }

    private func full(_ path: String) throws(AISyncError) -> String {
        try RemotePath.validate(path)
        return "\(root)/\(path)"
    }

    static func etag(_ path: String) -> String? {
        guard let st = Platform.statInfo(path), st.isRegular else { return nil }
        return "\"\(st.size)-\(st.modifiedNanoseconds)-\(st.inode)\""
    }

    private func checkRoot() throws(AISyncError) {
        guard Platform.stat(root)?.isDirectory == true else {
            throw AISyncError(
                .unavailable, "the folder remote \(root) does not exist or is not mounted",
                hint: "Mount it or create it, then try again")
        }
    }

    /// Reads the file at `path` under ``root``; nil when it does not exist. Throws
    /// `unavailable` when the folder itself is missing (not mounted), and damaged data for
    /// something that is not a regular file or is larger than `maxBytes`.
    public func read(_ path: String, maxBytes: Int) async throws(AISyncError) -> RemoteFile? {
        try checkRoot()
        let p = try full(path)
        guard let st = Platform.stat(p) else { return nil }
        // A FIFO or device would block the read forever; a directory is not a file either.
        guard st.isRegular else {
            throw AISyncError(
                .damagedData, "\(displayName)/\(path) is not a regular file",
                hint: "Remove it from the remote folder; syncing only writes regular files")
        }
        // Refused before a byte is read: a hostile or broken remote cannot make us buffer it.
        guard st.size <= Int64(maxBytes) else {
            throw AISyncError(
                .damagedData,
                "\(displayName)/\(path) is larger than a file of its kind may be (\(st.size) bytes, at most \(maxBytes))",
                hint: "No device wrote it: remove it from the remote folder, then push from a device that has the data")
        }
        let bytes = try FileIO.read(p, limit: Int64(maxBytes))
        return RemoteFile(bytes: bytes, etag: Self.etag(p))
    }

    /// Copies the file at `path` to `localPath`; false when it does not exist. A file over
    /// `maxBytes` bytes, or something that is not a regular file, is refused as damaged data.
    public func download(_ path: String, to localPath: String, maxBytes: Int64) async throws(AISyncError) -> Bool {
        try checkRoot()
        let p = try full(path)
        guard let st = Platform.stat(p) else { return false }
        // As for `read`: a FIFO would block the copy forever.
        guard st.isRegular else {
            throw AISyncError(
                .damagedData, "\(displayName)/\(path) is not a regular file",
                hint: "Remove it from the remote folder; syncing only writes regular files")
        }
        guard st.size <= maxBytes else {
            throw AISyncError(.damagedData, "\(displayName)/\(path) is larger than allowed (\(st.size) bytes)")
        }
        // A download is a scratch copy: nothing to hash (`downloadHashed` does) and no fsync.
        try FileIO.copy(p, to: localPath, scratch: true)
        return true
    }

    /// Copies the file at `path` to `localPath` like ``download(_:to:maxBytes:)`` and returns
    /// the SHA-256 the copy computed on the way; nil when it does not exist.
    public func downloadHashed(_ path: String, to localPath: String, maxBytes: Int64) async throws(AISyncError)
        -> SHA256Digest?
    {
        try checkRoot()
        let p = try full(path)
        guard let st = Platform.stat(p), st.isRegular else { return nil }
        guard st.size <= maxBytes else {
            throw AISyncError(.damagedData, "\(displayName)/\(path) is larger than allowed (\(st.size) bytes)")
        }
        return try FileIO.copy(p, to: localPath).digest
    }

    /// Writes `bytes` atomically at `path` (temp file in `.aisync-tmp/`, then rename or link),
    /// honouring `condition`; readers never see a partial file.
    public func write(_ path: String, _ bytes: [UInt8], condition: WriteCondition) async throws(AISyncError)
        -> WriteResult
    {
        try checkRoot()
        let p = try full(path)
        let temp = try temporaryPath()
        try FileIO.makeDirectories(FileIO.parentDirectory(of: p), mode: FileIO.sharedDirectory)
        try FileIO.writeAtomically(temp, bytes, temporarySuffix: environment.temporarySuffix(), mode: FileIO.sharedFile)
        return try place(temp, at: p, condition: condition)
    }

    /// Copies the local file at `localPath` to `path` atomically, like ``write(_:_:condition:)``.
    public func upload(_ path: String, from localPath: String, condition: WriteCondition) async throws(AISyncError)
        -> WriteResult
    {
        try checkRoot()
        let p = try full(path)
        let temp = try temporaryPath()
        try FileIO.makeDirectories(FileIO.parentDirectory(of: p), mode: FileIO.sharedDirectory)
        try FileIO.copy(localPath, to: temp, mode: FileIO.sharedFile)
        return try place(temp, at: p, condition: condition)
    }

    /// A fresh temp file name in `.aisync-tmp/` (same file system as the target, so the
    /// rename or link that places it is atomic). Sweeps old leftovers on first use.
    private func temporaryPath() throws(AISyncError) -> String {
        let dir = "\(root)/\(Self.temporaryDirectory)"
        try FileIO.makeDirectories(dir, mode: FileIO.sharedDirectory)
        if Self.swept.withLock({ $0.insert(root).inserted }) {
            Self.sweep(dir, olderThanSeconds: 3600, now: environment.now())
        }
        return "\(dir)/\(environment.temporarySuffix())"
    }

    /// Removes temp files left by killed writes; recent ones may be another device's upload.
    /// `now` is in milliseconds since the epoch.
    static func sweep(_ dir: String, olderThanSeconds age: Int64, now: Int64) {
        let cutoff = (now / 1000 - age) * 1_000_000_000
        for name in Platform.listDirectory(dir) ?? [] {
            guard let st = Platform.statInfo("\(dir)/\(name)"), st.isRegular, st.modifiedNanoseconds < cutoff else {
                continue
            }
            _ = Platform.unlink("\(dir)/\(name)")
        }
    }

    private func place(_ temp: String, at p: String, condition: WriteCondition) throws(AISyncError) -> WriteResult {
        defer { _ = Platform.unlink(temp) }
        switch condition {
        case .createOnly:
            let code = Platform.link(temp, p)
            if code == EEXIST { return .preconditionFailed }
            guard code == 0 else { throw FileIO.ioError("write", p, errno: code) }
        case .replacing(let etag):
            guard Self.etag(p) == etag else { return .preconditionFailed }
            guard Platform.rename(temp, p) else { throw FileIO.ioError("write", p, errno: Platform.errno) }
        case .always:
            guard Platform.rename(temp, p) else { throw FileIO.ioError("write", p, errno: Platform.errno) }
        }
        FileIO.syncDirectory(FileIO.parentDirectory(of: p))
        return .written(etag: Self.etag(p))
    }

    /// The regular files in `directory`, sorted by name, leaving out temp files; nil when
    /// the directory does not exist.
    public func list(_ directory: String) async throws(AISyncError) -> [RemoteEntry]? {
        try checkRoot()
        let d = try full(directory)
        guard Platform.stat(d)?.isDirectory == true else { return nil }
        guard let names = Platform.listDirectory(d) else { throw FileIO.ioError("list", d, errno: Platform.errno) }
        return names.filter { !$0.contains(".tmp-") }.sorted().compactMap { name in
            Self.etag("\(d)/\(name)").map { RemoteEntry(name: name, etag: $0) }
        }
    }

    /// The directories inside `directory`, sorted; empty when it does not exist.
    public func subfolders(_ directory: String) async throws(AISyncError) -> [String]? {
        try checkRoot()
        let d = try full(directory)
        guard Platform.stat(d)?.isDirectory == true else { return [] }
        guard let names = Platform.listDirectory(d) else { throw FileIO.ioError("list", d, errno: Platform.errno) }
        return names.filter { !$0.hasPrefix(".") && Platform.stat("\(d)/\($0)")?.isDirectory == true }.sorted()
    }

    /// Whether a regular file exists at `path`, and its size.
    public func presence(_ path: String) async throws(AISyncError) -> RemotePresence {
        try checkRoot()
        guard let st = Platform.stat(try full(path)), st.isRegular else { return .missing }
        return .present(size: st.size)
    }

    /// Whether a regular file exists at `path`.
    public func exists(_ path: String) async throws(AISyncError) -> Bool {
        try checkRoot()
        return Platform.stat(try full(path))?.isRegular == true
    }

    /// Removes the file at `path`; a file that is already gone is not an error.
    public func delete(_ path: String) async throws(AISyncError) {
        try checkRoot()
        let p = try full(path)
        if !Platform.unlink(p), Platform.errno != ENOENT { throw FileIO.ioError("delete", p, errno: Platform.errno) }
    }
}
