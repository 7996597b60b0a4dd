import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncHTTP

/// The socket transport against a scripted loopback server (`scripts/http_edge_server.py`):
/// connection reuse, a kept-alive connection closed under it, interim answers, bodies framed
/// every way HTTP/1.1 allows, redirects, early answers, limits and cancellation; each over
/// plain HTTP and over the transport's own TLS (the same server behind Python's `ssl`, with a
/// certificate from a CA made for this run, which the transport is given to trust).
@Suite("Socket transport", .tags(.python), .needsPython, .needsPythonModules("cryptography"))
struct SocketTransportTests {
    /// A running edge server; stopped when released.
    final class Server: Sendable {
        let port: Int
        let secure: Bool
        private let pid: Int32

        init(secure: Bool = false) throws {
            self.secure = secure
            let process = Process()
            process.executableURL = URL(
                fileURLWithPath: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
                    ? "/usr/bin/python3" : "/usr/bin/env")
            process.arguments =
                (process.executableURL?.path == "/usr/bin/env" ? ["python3"] : []) + [
                    "\(CLIHarness.packageRoot)/scripts/http_edge_server.py"
                ]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            if secure {
                var environment = ProcessInfo.processInfo.environment
                environment["AISYNC_TEST_SERVER_TLS"] = try TLSFixtures.folder()
                process.environment = environment
            }
            try process.run()
            pid = process.processIdentifier
            let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
            guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                kill(pid, SIGKILL)
                throw HostileServerError(message: "no port from http_edge_server.py: \(line)")
            }
            self.port = port
            if secure { try TLSFixtures.crossCheck(port: port) }
        }

        deinit { kill(pid, SIGKILL) }

        func url(_ path: String) -> String { "\(secure ? "https" : "http")://127.0.0.1:\(port)\(path)" }

        /// A socket transport for this server: trusting the run's CA when it speaks TLS.
        func transport(timeoutSeconds: TimeInterval = 5) throws -> SocketTransport {
            let trust = secure ? TLSTrust(certificates: try TLSFixtures.authority()) : .system
            return SocketTransport(timeoutSeconds: timeoutSeconds, trust: trust)
        }
    }

    /// Records what reaches the fallback (https) transport.
    actor Recorder: HTTPTransport {
        private(set) var urls: [String] = []
        func send(_ request: HTTPRequest, downloadTo: String?, maxBytes: Int64) async throws(AISyncError)
            -> HTTPResponse
        {
            urls.append(request.url)
            return HTTPResponse(status: 204)
        }
    }

    static func text(_ r: HTTPResponse) -> String { String(decoding: r.body, as: UTF8.self) }

    @Test(
        "requests reuse a kept-alive connection; a chunked answer read to its end keeps it", arguments: [false, true])
    func reuse(secure: Bool) async throws {
        let server = try Server(secure: secure)
        let t = try server.transport()
        let a = try await t.send(HTTPRequest(method: "GET", url: server.url("/echo")), downloadTo: nil, maxBytes: 1000)
        let b = try await t.send(
            HTTPRequest(method: "GET", url: server.url("/chunked")), downloadTo: nil, maxBytes: 1000)
        let c = try await t.send(
            HTTPRequest(method: "PUT", url: server.url("/echo"), body: .bytes(Array("x".utf8))), downloadTo: nil,
            maxBytes: 1000)
        #expect(Self.text(b) == "hello world")
        #expect(Self.text(c) == "x")
        #expect([a, b, c].map { $0.headers["x-connection"] } == ["1", "1", "1"])
    }

    @Test(
        "a kept-alive connection closed as it is reused: the request goes again, body and all, on a fresh one",
        arguments: [false, true])
    func staleConnection(secure: Bool) async throws {
        let server = try Server(secure: secure)
        let t = try server.transport()
        _ = try await t.send(HTTPRequest(method: "GET", url: server.url("/drop-next")), downloadTo: nil, maxBytes: 1000)
        let body = Array(repeating: UInt8(ascii: "b"), count: 300_000)
        let r = try await t.send(
            HTTPRequest(method: "PUT", url: server.url("/echo"), body: .bytes(body)), downloadTo: nil, maxBytes: 1 << 20
        )
        #expect(r.status == 200 && r.body == body)
        #expect(r.headers["x-connection"] == "2")
    }

    @Test("a file body is streamed whole, and sent again whole after a stale connection", arguments: [false, true])
    func fileBody(secure: Bool) async throws {
        let server = try Server(secure: secure)
        let t = try server.transport()
        let path = "\(CLIHarness.makeTemporaryDirectory())/body"
        let bytes = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        _ = try await t.send(HTTPRequest(method: "GET", url: server.url("/drop-next")), downloadTo: nil, maxBytes: 1000)
        let down = "\(CLIHarness.makeTemporaryDirectory())/echoed"
        let r = try await t.send(
            HTTPRequest(method: "PUT", url: server.url("/echo"), body: .file(path)), downloadTo: down, maxBytes: 4 << 20
        )
        #expect(r.status == 200)
        #expect(r.bodyDigest == SHA256.hash(bytes))
        #expect(try Data(contentsOf: URL(fileURLWithPath: down)) == Data(bytes))
    }

    @Test("a POST never rides a reused connection (the server may have acted on it)", arguments: [false, true])
    func postIsFresh(secure: Bool) async throws {
        let server = try Server(secure: secure)
        let t = try server.transport()
        _ = try await t.send(HTTPRequest(method: "GET", url: server.url("/echo")), downloadTo: nil, maxBytes: 1000)
        let r = try await t.send(
            HTTPRequest(method: "POST", url: server.url("/echo"), body: .bytes([1, 2])), downloadTo: nil, maxBytes: 1000
        )
        #expect(r.body == [1, 2] && r.headers["x-connection"] == "2")
    }

    @Test(
        "interim 100 answers are skipped; a body ended by the close is read whole and its connection not reused",
        arguments: [false, true])
    func interimAndUntilClose(secure: Bool) async throws {
        let server = try Server(secure: secure)
        let t = try server.transport()
        let a = try await t.send(
            HTTPRequest(method: "GET", url: server.url("/continue")), downloadTo: nil, maxBytes: 1000)
        #expect(a.status == 200 && Self.text(a) == "after continue")
        let b = try await t.send(
            HTTPRequest(method: "GET", url: server.url("/until-close")), downloadTo: nil, maxBytes: 1000)
        #expect(Self.text(b) == "until the end")
        let c = try await t.send(HTTPRequest(method: "GET", url: server.url("/echo")), downloadTo: nil, maxBytes: 1000)
        #expect([a, b, c].map { $0.headers["x-connection"] } == ["1", "1", "2"])
    }

    @Test(
        "same-host redirects are followed; one to https goes over the transport's own TLS, or to the fallback where there is none"
    )
    func redirects() async throws {
        let server = try Server()
        let recorder = Recorder()
        let t = SocketTransport(timeoutSeconds: 5, fallback: recorder)
        let a = try await t.send(
            HTTPRequest(method: "GET", url: server.url("/redirect")), downloadTo: nil, maxBytes: 1000)
        #expect(a.status == 200)
        // The redirect's https://127.0.0.1:PORT is this plain server, which waits for a request
        // head that the TLS hello never ends: the handshake times out on the transport's own TLS.
        let quick = SocketTransport(timeoutSeconds: 1, fallback: recorder)
        await #expect {
            try await quick.send(
                HTTPRequest(method: "GET", url: server.url("/to-https")), downloadTo: nil, maxBytes: 1000)
        } throws: { ($0 as? AISyncError)?.code == .temporary && "\($0)".contains("127.0.0.1 did not answer in time") }
        #expect(await recorder.urls.isEmpty)
        let without = SocketTransport(
            timeoutSeconds: 5, maxConnections: 4, redirects: .sameHost, speedFloor: .standard, trust: .system,
            fallback: recorder, ownTLS: false)
        let b = try await without.send(
            HTTPRequest(method: "GET", url: server.url("/to-https")), downloadTo: nil, maxBytes: 1000)
        #expect(b.status == 204)
        #expect(await recorder.urls == ["https://127.0.0.1:\(server.port)/secure"])
        let c = try await without.send(
            HTTPRequest(method: "GET", url: "https://example.invalid/x"), downloadTo: nil, maxBytes: 1000)
        #expect(c.status == 204)
        // A remote's own trust cannot be given to the fallback: refused, never sent unchecked.
        let pinned = SocketTransport(
            timeoutSeconds: 5, maxConnections: 4, redirects: .sameHost, speedFloor: .standard,
            trust: TLSTrust(pins: [Array(repeating: 7, count: 32)]), fallback: recorder, ownTLS: false)
        await #expect {
            try await pinned.send(
                HTTPRequest(method: "GET", url: "https://example.invalid/y"), downloadTo: nil, maxBytes: 1)
        } throws: { ($0 as? AISyncError)?.code == .configuration && "\($0)".contains("libssl") }
        #expect(await recorder.urls.count == 2)
    }

    @Test("an answer sent before the upload's body was read comes back as the answer", arguments: [false, true])
    func earlyAnswer(secure: Bool) async throws {
        let server = try Server(secure: secure)
        let t = try server.transport()
        let body = Array(repeating: UInt8(0), count: 8 << 20)
        let r = try await t.send(
            HTTPRequest(method: "PUT", url: server.url("/early"), body: .bytes(body)), downloadTo: nil, maxBytes: 1000)
        #expect(r.status == 413)
    }

    @Test(
        "an answer framed by the close: over TLS, a close without close_notify is no proof of its end (it could be cut)",
        arguments: [false, true])
    func untilCloseWithoutCloseNotify(secure: Bool) async throws {
        let server = try Server(secure: secure)
        let t = try server.transport()
        let request = HTTPRequest(method: "GET", url: server.url("/until-close-cut"))
        if secure {
            await #expect {
                try await t.send(request, downloadTo: nil, maxBytes: 1000)
            } throws: { ($0 as? AISyncError)?.code == .temporary && "\($0)".contains("close_notify") }
        } else {
            #expect(Self.text(try await t.send(request, downloadTo: nil, maxBytes: 1000)) == "until the end")
        }
    }

    @Test(
        "an answer over the limit is refused before its body is read; a refused download writes no file",
        arguments: [false, true])
    func limits(secure: Bool) async throws {
        let server = try Server(secure: secure)
        let t = try server.transport()
        await #expect {
            try await t.send(
                HTTPRequest(method: "PUT", url: server.url("/echo"), body: .bytes(Array(repeating: 1, count: 2000))),
                downloadTo: nil, maxBytes: 1000)
        } throws: { ($0 as? AISyncError)?.code == .damagedData && "\($0)".contains("larger") }
        let target = "\(CLIHarness.makeTemporaryDirectory())/missing"
        let r = try await t.send(
            HTTPRequest(method: "GET", url: server.url("/nothing")), downloadTo: target, maxBytes: 1000)
        #expect(r.status == 404 && Self.text(r) == "no such path")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test(
        "a server that never answers: cancelling the caller stops the request at once; otherwise the inactivity timeout does",
        arguments: [false, true])
    func stall(secure: Bool) async throws {
        let server = try Server(secure: secure)
        let slow = try server.transport(timeoutSeconds: 600)
        let task = Task {
            try await slow.send(HTTPRequest(method: "GET", url: server.url("/stall")), downloadTo: nil, maxBytes: 1000)
        }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        // With a 600 s timeout, only the cancellation can end it.
        let outcome = await task.result
        #expect(throws: AISyncError.cancelled) { try outcome.get() }
        let quick = try server.transport(timeoutSeconds: 1)
        await #expect {
            try await quick.send(HTTPRequest(method: "GET", url: server.url("/stall")), downloadTo: nil, maxBytes: 1000)
        } throws: { ($0 as? AISyncError)?.code == .temporary && "\($0)".contains("did not answer in time") }
    }

    @Test("nothing listening: cannot reach, exit 69's error")
    func refused() async throws {
        let port = try TestServer.closedPort()
        await #expect {
            try await SocketTransport(timeoutSeconds: 5).send(
                HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/"), downloadTo: nil, maxBytes: 10)
        } throws: { ($0 as? AISyncError)?.code == .unavailable && "\($0)".contains("cannot reach 127.0.0.1") }
    }
}
