import AISync

/// A remote held in memory, for fast tests, with spy accessors (requests made, files held).
///
/// It can behave like the servers aisync meets: `canList: false` is a plain HTTP server;
/// `ignoresConditions: true` is nginx, which overwrites despite If-None-Match/If-Match; a
/// `wholeSecondETags` clock is WsgiDAV, whose ETag is the second of the last write and the size.
public actor InMemoryRemote: RemoteStorage {
    /// One call the remote received, named like the HTTP request it stands for.
    public struct Request: Sendable, Equatable {
        /// `GET` (read, download), `PUT` (write, upload), `PROPFIND` (list), `HEAD` (exists) or `DELETE`.
        public var method: String
        /// The remote path the call was about.
        public var path: String
    }

    /// The name given at init (`memory://remote` by default), used in messages.
    public nonisolated let displayName: String
    /// Whether ``list(_:)`` works; false behaves like a plain HTTP server.
    public nonisolated let canList: Bool
    let ignoresConditions: Bool
    /// Milliseconds now, when ETags are whole seconds and sizes.
    let wholeSecondETags: (@Sendable () -> Int64)?
    private var files: [String: (bytes: [UInt8], etag: String, written: Int64)] = [:]
    private var counter = 0
    /// Downloads served, naming their temp files (deterministic: the actor runs one at a time).
    private var downloads = 0
    /// Every call received so far, oldest first (an upload counts as one `PUT`).
    public private(set) var requests: [Request] = []
    /// When set, called before each request; throwing simulates a failing server.
    private var failure: (@Sendable (Request) -> AISyncError?)?

    /// An empty remote called `name`; `canList: false` imitates a plain HTTP server and
    /// `ignoresConditions: true` one that overwrites regardless of write conditions (nginx).
    /// With `wholeSecondETags` (a clock in milliseconds) a file's ETag is the second it was
    /// last written and its size, as WsgiDAV's, and a read less than two seconds after that
    /// second has an unsettled ETag (`RemoteFile.etagSettled`), as an HTTP server's dates tell.
    public init(
        name: String = "memory://remote", canList: Bool = true, ignoresConditions: Bool = false,
        wholeSecondETags: (@Sendable () -> Int64)? = nil
    ) {
        displayName = name
        self.canList = canList
        self.ignoresConditions = ignoresConditions
        self.wholeSecondETags = wholeSecondETags
    }

    /// Installs a hook called before every request (after it is recorded): returning an error
    /// makes that request throw it, to simulate a failing server. Pass nil to remove it.
    public func setFailure(_ f: (@Sendable (Request) -> AISyncError?)?) { failure = f }
    /// Forgets the recorded ``requests``, e.g. between the steps of a test.
    public func resetRequests() { requests = [] }
    /// The paths of every file held, sorted.
    public var paths: [String] { files.keys.sorted() }
    /// The bytes held at `path`, nil when there is no file; not recorded as a request.
    public func contents(_ path: String) -> [UInt8]? { files[path]?.bytes }
    /// Puts `bytes` at `path` (a new ETag), or removes the file when `bytes` is nil, without
    /// recording a request: for setting up a test or simulating another writer.
    public func setContents(_ path: String, _ bytes: [UInt8]?) {
        if let bytes { store(path, bytes) } else { files[path] = nil }
    }

    private func log(_ method: String, _ path: String) throws(AISyncError) {
        let r = Request(method: method, path: path)
        requests.append(r)
        if let error = failure?(r) { throw error }
        try RemotePath.validate(path)
    }

    @discardableResult
    private func store(_ path: String, _ bytes: [UInt8]) -> String {
        counter += 1
        let now = wholeSecondETags?() ?? 0
        let etag = wholeSecondETags == nil ? "\"\(counter)\"" : "\"\(now / 1000)-\(bytes.count)\""
        files[path] = (bytes, etag, now)
        return etag
    }

    /// Records a `GET` and returns the file with its ETag; nil when absent, damaged data when
    /// it is larger than `maxBytes`.
    public func read(_ path: String, maxBytes: Int) async throws(AISyncError) -> RemoteFile? {
        try log("GET", path)
        guard let f = files[path] else { return nil }
        guard f.bytes.count <= maxBytes else { throw AISyncError(.damagedData, "\(path) is larger than allowed") }
        let settled = wholeSecondETags.map { $0() / 1000 - f.written / 1000 >= 2 } ?? true
        return RemoteFile(bytes: f.bytes, etag: f.etag, etagSettled: settled)
    }

    /// Records a `GET` and writes the file to `localPath`; false when absent. `maxBytes` is not checked.
    public func download(_ path: String, to localPath: String, maxBytes: Int64) async throws(AISyncError) -> Bool {
        try log("GET", path)
        guard let f = files[path] else { return false }
        downloads += 1
        try FileIO.writeAtomically(localPath, f.bytes, durable: false, temporarySuffix: "memory-\(downloads)")
        return true
    }

    /// Records a `PUT` and stores `bytes` under a new ETag, honouring `condition` unless the
    /// remote was made with `ignoresConditions`.
    public func write(_ path: String, _ bytes: [UInt8], condition: WriteCondition) async throws(AISyncError)
        -> WriteResult
    {
        try log("PUT", path)
        if !ignoresConditions {
            switch condition {
            case .always: break
            case .createOnly: if files[path] != nil { return .preconditionFailed }
            case .replacing(let etag): if files[path]?.etag != etag { return .preconditionFailed }
            }
        }
        return .written(etag: store(path, bytes))
    }

    /// Reads the local file at `localPath` and stores it like ``write(_:_:condition:)``.
    public func upload(_ path: String, from localPath: String, condition: WriteCondition) async throws(AISyncError)
        -> WriteResult
    {
        let bytes = try FileIO.read(localPath, limit: 1 << 32)
        return try await write(path, bytes, condition: condition)
    }

    /// Records a `PROPFIND` and returns the files directly in `directory`, sorted; nil when
    /// there are none (directories exist only through their files) or ``canList`` is false.
    public func list(_ directory: String) async throws(AISyncError) -> [RemoteEntry]? {
        try log("PROPFIND", directory)
        guard canList else { return nil }
        let prefix = directory + "/"
        let entries = files.filter { $0.key.hasPrefix(prefix) && !$0.key.dropFirst(prefix.count).contains("/") }
            .map { RemoteEntry(name: String($0.key.dropFirst(prefix.count)), etag: $0.value.etag) }
        return entries.isEmpty ? nil : entries.sorted { $0.name < $1.name }
    }

    /// Records a `HEAD` and says whether a file is held at `path`.
    public func exists(_ path: String) async throws(AISyncError) -> Bool {
        try log("HEAD", path)
        return files[path] != nil
    }

    /// Records a `DELETE` and drops the file; a missing file is not an error.
    public func delete(_ path: String) async throws(AISyncError) {
        try log("DELETE", path)
        files[path] = nil
    }
}
