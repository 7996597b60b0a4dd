import AISync
/// A remote held in memory, for fast tests, with spy accessors (requests made, files held).
///
/// It can behave like the servers aisync meets: `canList: false` is a plain HTTP server;
/// `ignoresConditions: true` is nginx, which overwrites despite If-None-Match/If-Match.
public actor InMemoryRemote: RemoteStorage {
    public struct Request: Sendable, Equatable {
        public var method: String
        public var path: String
    }

    public nonisolated let displayName: String
    public nonisolated let canList: Bool
    let ignoresConditions: Bool
    private var files: [String: (bytes: [UInt8], etag: String)] = [:]
    private var counter = 0
    public private(set) var requests: [Request] = []
    /// When set, called before each request; throwing simulates a failing server.
    private var failure: (@Sendable (Request) -> AISyncError?)?

    public init(name: String = "memory://remote", canList: Bool = true, ignoresConditions: Bool = false) {
        displayName = name
        self.canList = canList
        self.ignoresConditions = ignoresConditions
    }

    public func setFailure(_ f: (@Sendable (Request) -> AISyncError?)?) { failure = f }
    public func resetRequests() { requests = [] }
    public var paths: [String] { files.keys.sorted() }
    public func contents(_ path: String) -> [UInt8]? { files[path]?.bytes }
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
        let etag = "\"\(counter)\""
        files[path] = (bytes, etag)
        return etag
    }

    public func read(_ path: String, maxBytes: Int) async throws(AISyncError) -> RemoteFile? {
        try log("GET", path)
        guard let f = files[path] else { return nil }
        guard f.bytes.count <= maxBytes else { throw AISyncError(.damagedData, "\(path) is larger than allowed") }
        return RemoteFile(bytes: f.bytes, etag: f.etag)
    }

    public func download(_ path: String, to localPath: String, maxBytes: Int64) async throws(AISyncError) -> Bool {
        try log("GET", path)
        guard let f = files[path] else { return false }
        try FileIO.writeAtomically(localPath, f.bytes, durable: false)
        return true
    }

    public func write(_ path: String, _ bytes: [UInt8], condition: WriteCondition) async throws(AISyncError) -> WriteResult {
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

    public func upload(_ path: String, from localPath: String, condition: WriteCondition) async throws(AISyncError) -> WriteResult {
        let bytes = try FileIO.read(localPath, limit: 1 << 32)
        return try await write(path, bytes, condition: condition)
    }

    public func list(_ directory: String) async throws(AISyncError) -> [RemoteEntry]? {
        try log("PROPFIND", directory)
        guard canList else { return nil }
        let prefix = directory + "/"
        let entries = files.filter { $0.key.hasPrefix(prefix) && !$0.key.dropFirst(prefix.count).contains("/") }
            .map { RemoteEntry(name: String($0.key.dropFirst(prefix.count)), etag: $0.value.etag) }
        return entries.isEmpty ? nil : entries.sorted { $0.name < $1.name }
    }

    public func exists(_ path: String) async throws(AISyncError) -> Bool {
        try log("HEAD", path)
        return files[path] != nil
    }

    public func delete(_ path: String) async throws(AISyncError) {
        try log("DELETE", path)
        files[path] = nil
    }
}
