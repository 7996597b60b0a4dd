import AISyncCore
import AISyncFiles

/// One HTTP request, as aisync's remotes need it.
public struct HTTPRequest: Sendable, Equatable {
    /// What a request sends.
    public enum Body: Sendable, Equatable {
        /// No body (GET, HEAD, DELETE, MKCOL).
        case none
        /// These bytes, held in memory (small files, PROPFIND bodies).
        case bytes([UInt8])
        /// Streamed from a local file, never read whole into memory by aisync.
        case file(String)

        /// How many bytes it sends (a file's size now; 0 when it cannot be read).
        public var byteCount: Int64 {
            switch self {
            case .none: 0
            case .bytes(let bytes): Int64(bytes.count)
            case .file(let path): Platform.stat(path)?.size ?? 0
            }
        }
    }

    /// The HTTP method, e.g. `GET`, `PUT` or WebDAV's `PROPFIND`.
    public var method: String
    /// The absolute URL, without credentials.
    public var url: String
    /// Request headers by name; `Authorization` here is a secret and must not be logged.
    public var headers: [String: String]
    /// What the request sends.
    public var body: Body

    /// A request with the given method, URL, headers and body.
    public init(method: String, url: String, headers: [String: String] = [:], body: Body = .none) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// A server's answer to an ``HTTPRequest``; any status, errors included, arrives as a response.
public struct HTTPResponse: Sendable, Equatable {
    /// The HTTP status code, e.g. 200, 404, 412.
    public var status: Int
    /// Header names in lowercase.
    public var headers: [String: String]
    /// The response body; empty when it was streamed to a file (`downloadTo`).
    public var body: [UInt8]
    /// The SHA-256 of a 2xx body streamed to a file (`downloadTo`), computed while it was
    /// written, so a caller can verify a download without reading it again; nil when the
    /// transport did not compute it (then hash the file).
    public var bodyDigest: SHA256Digest?

    /// A response with the given status, headers (names in lowercase), body and body digest.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = [], bodyDigest: SHA256Digest? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyDigest = bodyDigest
    }
}

/// Sends HTTP requests: the live one uses URLSession (keep-alive, bounded connections), tests
/// use an in-memory one. Throws `AISyncError` with `.unavailable` (cannot connect) or
/// `.temporary` (timed out) for transport failures; HTTP statuses are returned, not thrown.
public protocol HTTPTransport: Sendable {
    /// Sends `request`. With `downloadTo`, a 2xx body is streamed to that file and `body` is
    /// empty (`bodyDigest` may then carry its SHA-256).
    func send(_ request: HTTPRequest, downloadTo: String?, maxBytes: Int64) async throws(AISyncError) -> HTTPResponse
}
