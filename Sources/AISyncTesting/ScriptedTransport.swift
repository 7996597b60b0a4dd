import AISync
import AISyncFiles

/// An HTTP transport that answers from a script, then with a fallback, and records every
/// request it was sent (with the bytes of its body): the in-memory side of the
/// `HTTPTransport` seam, for tests of remotes, Imgur and downloads without a server.
///
/// A 2xx answer to a download writes the step's `download` bytes (or its body) to the
/// destination and answers with an empty body, as the live transports do.
public actor ScriptedTransport: HTTPTransport {
    /// One answer of the script.
    public enum Step: Sendable {
        /// Answer with this response; a download of it writes `download` (else its body).
        case respond(HTTPResponse, download: [UInt8]? = nil)
        /// Fail with this error, as a transport does when the connection fails.
        case fail(AISyncError)
    }

    /// One request as the transport saw it.
    public struct Sent: Sendable {
        /// The request.
        public var request: HTTPRequest
        /// Its body's bytes (a file body is read when it is sent).
        public var body: [UInt8]
        /// Where a download was to be written.
        public var downloadTo: String?
    }

    private var script: [Step]
    private let fallback: Step
    /// Every request sent so far, oldest first.
    public private(set) var sent: [Sent] = []

    /// Every request sent so far, without the bodies.
    public var requests: [HTTPRequest] { sent.map(\.request) }

    /// A transport that answers with `script`, one step per request, then with `fallback`.
    public init(_ script: [Step] = [], fallback: Step = .respond(HTTPResponse(status: 200))) {
        self.script = script
        self.fallback = fallback
    }

    /// Records the request and answers with the next step of the script.
    public func send(_ request: HTTPRequest, downloadTo: String?, maxBytes: Int64) async throws(AISyncError)
        -> HTTPResponse
    {
        var body: [UInt8] = []
        switch request.body {
        case .none: break
        case .bytes(let bytes): body = bytes
        case .file(let path): body = (try? FileIO.read(path)) ?? Array("<unreadable>".utf8)
        }
        sent.append(Sent(request: request, body: body, downloadTo: downloadTo))
        let step = script.isEmpty ? fallback : script.removeFirst()
        switch step {
        case .fail(let error):
            throw error
        case .respond(let response, let download):
            guard let downloadTo, (200..<300).contains(response.status) else { return response }
            try FileIO.writeAtomically(downloadTo, download ?? response.body, durable: false, temporarySuffix: "fake")
            return HTTPResponse(status: response.status, headers: response.headers, body: [])
        }
    }
}

/// Records the delays a retry loop asked to sleep instead of sleeping, for exact backoff tests:
/// set `environment.sleep = { await recorder.record($0) }`.
public actor SleepRecorder {
    /// Every delay asked for, in milliseconds, oldest first.
    public private(set) var delays: [Int] = []

    /// An empty recorder.
    public init() {}

    /// Notes one delay.
    public func record(_ milliseconds: Int) { delays.append(milliseconds) }
}
