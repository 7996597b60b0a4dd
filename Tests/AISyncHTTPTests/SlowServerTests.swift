import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncHTTP

/// A server that trickles its answer (one byte every 0.4 s) never trips the inactivity
/// timeout; the overall deadline, scaled to the bytes a request may move, ends it (issue 10).
@Suite("Slow servers", .tags(.python), .needsPython)
struct SlowServerTests {
    /// A loopback server that answers every request with a 200 whose 1,000-byte body arrives
    /// one byte at a time.
    static let trickle = """
        import socket, sys, threading, time
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0)); s.listen(8)
        print(s.getsockname()[1], flush=True)
        def serve(c):
            try:
                c.recv(65536)
                c.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 1000\\r\\nContent-Type: application/json\\r\\n\\r\\n")
                for _ in range(1000):
                    c.sendall(b" "); time.sleep(0.4)
            except OSError:
                pass
            finally:
                c.close()
        while True:
            c, _ = s.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
        """

    @Test("a trickling answer ends at the deadline with a clear temporary error", arguments: TransportKind.allCases)
    func trickleEndsAtDeadline(_ kind: TransportKind) async throws {
        let server = Process()
        // The system interpreter itself (a pyenv-style shim would leave the real server
        // running after terminate(), holding the test runner's output open).
        server.executableURL = URL(
            fileURLWithPath: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
                ? "/usr/bin/python3" : "/usr/bin/env")
        server.arguments = (server.executableURL?.path == "/usr/bin/env" ? ["python3"] : []) + ["-c", Self.trickle]
        let out = Pipe()
        server.standardOutput = out
        server.standardError = FileHandle.nullDevice
        server.standardInput = FileHandle.nullDevice
        try server.run()
        defer { kill(server.processIdentifier, SIGKILL) }
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let port = try #require(
            Int(line.trimmingCharacters(in: .whitespacesAndNewlines)), "no port from the trickle server: \(line)")
        // Inactivity timeout 1 s (never reached: a byte comes every 0.4 s); a 1,000-byte limit
        // gives a deadline of 4 × 1 s + 1000 / 128 KiB/s.
        let transport = kind.make(timeoutSeconds: 1)
        // Without the deadline the whole answer arrives after 400 s and is accepted.
        do {
            _ = try await transport.send(
                HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/heads/x.json", headers: [:], body: .none),
                downloadTo: nil, maxBytes: 1000)
            Issue.record("a trickling answer was accepted")
        } catch {
            #expect(error.code == .temporary)
            #expect(error.description.contains("answered too slowly"), "\(error)")
        }
    }

    @Test(
        "the deadline grows with the bytes a request may move",
        arguments: [
            (30.0, Int64(0), 120.0), (30.0, Int64(1 << 20), 128.0), (5.0, Int64(64 << 20), 532.0),
        ] as [(Double, Int64, Double)])
    func deadline(timeout: Double, bytes: Int64, expected: Double) {
        #expect(abs(URLSessionTransport.deadline(timeout: timeout, bytes: bytes) - expected) < 0.001)
    }
}
