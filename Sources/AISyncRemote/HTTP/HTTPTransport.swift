import AISyncCore
/// One HTTP request, as aisync's remotes need it.
public struct HTTPRequest: Sendable, Equatable {
    public enum Body: Sendable, Equatable {
        case none
        case bytes([UInt8])
        /// Streamed from a local file, never read whole into memory by aisync.
        case file(String)
    }

    public var method: String
    public var url: String
    public var headers: [String: String]
    public var body: Body

    public init(method: String, url: String, headers: [String: String] = [:], body: Body = .none) {
        self.method = method; self.url = url; self.headers = headers; self.body = body
    }
}

public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// Header names in lowercase.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status; self.headers = headers; self.body = body
    }
}

/// Sends HTTP requests: the live one uses URLSession (keep-alive, bounded connections), tests
/// use an in-memory one. Throws `AISyncError` with `.unavailable` (cannot connect) or
/// `.temporary` (timed out) for transport failures; HTTP statuses are returned, not thrown.
public protocol HTTPTransport: Sendable {
    /// Sends `request`. With `downloadTo`, a 2xx body is streamed to that file and `body` is empty.
    func send(_ request: HTTPRequest, downloadTo: String?, maxBytes: Int64) async throws(AISyncError) -> HTTPResponse
}
