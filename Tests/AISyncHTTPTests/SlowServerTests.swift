import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncHTTP

/// A server that trickles its answer (one byte every 0.4 s) never trips the inactivity
/// timeout; the overall deadline, scaled to the bytes a request may move, ends it (issue 10),
/// and the speed floor ends it sooner (issue 27). Over the socket transport's own TLS too.
@Suite("Slow servers", .tags(.python), .needsPython)
struct SlowServerTests {
    /// A loopback server that answers every request with a 200 whose 1,000-byte body arrives
    /// one byte at a time.
    static let trickle = """
        import os, socket, ssl, sys, threading, time
        tls = None
        if os.environ.get("AISYNC_TEST_SERVER_TLS"):
            d = os.environ["AISYNC_TEST_SERVER_TLS"]
            tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            tls.load_cert_chain(d + "/good.pem", d + "/good.key")
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0)); s.listen(8)
        print(s.getsockname()[1], flush=True)
        def serve(c):
            try:
                if tls: c = tls.wrap_socket(c, server_side=True)
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

    /// A server whose 6,000-byte answer arrives 100 bytes every 0.25 s (400 bytes/s, 15 s).
    static let steady = trickle.replacingOccurrences(of: "Content-Length: 1000", with: "Content-Length: 6000")
        .replacingOccurrences(of: "for _ in range(1000):", with: "for _ in range(60):")
        .replacingOccurrences(
            of: #"c.sendall(b" "); time.sleep(0.4)"#, with: #"c.sendall(b" " * 100); time.sleep(0.25)"#)

    /// Starts the trickle server (or `script`); returns it and its port.
    static func startTrickle(_ script: String = trickle, for kind: TransportKind = .socket) throws -> (Process, Int) {
        let server = Process()
        // The system interpreter itself (a pyenv-style shim would leave the real server
        // running after terminate(), holding the test runner's output open).
        server.executableURL = URL(
            fileURLWithPath: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
                ? "/usr/bin/python3" : "/usr/bin/env")
        server.arguments = (server.executableURL?.path == "/usr/bin/env" ? ["python3"] : []) + ["-c", script]
        let out = Pipe()
        server.standardOutput = out
        server.standardError = FileHandle.nullDevice
        server.standardInput = FileHandle.nullDevice
        if let environment = try kind.serverEnvironment() { server.environment = environment }
        try server.run()
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let port = try #require(
            Int(line.trimmingCharacters(in: .whitespacesAndNewlines)), "no port from the trickle server: \(line)")
        if kind == .socketTLS { try TLSFixtures.crossCheck(port: port) }
        return (server, port)
    }

    @Test("a trickling answer ends at the deadline with a clear temporary error", arguments: TransportKind.withTLS)
    func trickleEndsAtDeadline(_ kind: TransportKind) async throws {
        let (server, port) = try Self.startTrickle(for: kind)
        defer { kill(server.processIdentifier, SIGKILL) }
        // Inactivity timeout 1 s (never reached: a byte comes every 0.4 s); a 1,000-byte limit
        // gives a deadline of 4 × 1 s + 1000 / 128 KiB/s.
        // No speed floor: this is about the deadline alone.
        let transport = kind.make(timeoutSeconds: 1, speedFloor: .none)
        // Without the deadline the whole answer arrives after 400 s and is accepted.
        do {
            _ = try await transport.send(
                HTTPRequest(
                    method: "GET", url: "\(kind.scheme)://127.0.0.1:\(port)/heads/x.json", headers: [:], body: .none),
                downloadTo: nil, maxBytes: 1000)
            Issue.record("a trickling answer was accepted")
        } catch {
            #expect(error.code == .temporary)
            #expect(error.description.contains("answered too slowly"), "\(error)")
        }
    }

    @Test(
        "a transfer under the speed floor ends after one stretch, long before the deadline",
        arguments: TransportKind.withTLS)
    func trickleEndsAtTheSpeedFloor(_ kind: TransportKind) async throws {
        let (server, port) = try Self.startTrickle(for: kind)
        defer { kill(server.processIdentifier, SIGKILL) }
        // 2.5 bytes/s against a floor of 100 bytes/s over 2 s; the inactivity timeout (5 s)
        // and the deadline (4 × 5 s) would let it run 20 s and end it as "answered too slowly".
        let transport = kind.make(timeoutSeconds: 5, speedFloor: SpeedFloor(bytesPerSecond: 100, seconds: 2))
        do {
            _ = try await transport.send(
                HTTPRequest(
                    method: "GET", url: "\(kind.scheme)://127.0.0.1:\(port)/heads/x.json", headers: [:], body: .none),
                downloadTo: nil, maxBytes: 1000)
            Issue.record("a trickling answer was accepted")
        } catch {
            #expect(error.code == .temporary, "\(error)")
            #expect(
                error.message.contains("is too slow") && error.message.contains("under 100 bytes/s for 2 s"), "\(error)"
            )
        }
    }

    @Test(
        "a slow answer that keeps the speed floor is received whole: what moves is counted",
        arguments: TransportKind.withTLS)
    func steadyAnswerKeepsTheFloor(_ kind: TransportKind) async throws {
        #expect(Self.steady.contains("range(60)") && Self.steady.contains("* 100"))
        let (server, port) = try Self.startTrickle(Self.steady, for: kind)
        defer { kill(server.processIdentifier, SIGKILL) }
        // 400 bytes/s for 15 s against a floor of 1 byte/s over 6 s: each of the two stretches
        // judged moves about 2,400, and a loaded machine that delivers in bursts (seen: 3 s
        // with nothing delivered while the whole suite ran) keeps it. A transport that counted
        // only the first bytes, or lost what it counted, would end it after a stretch.
        let transport = kind.make(timeoutSeconds: 10, speedFloor: SpeedFloor(bytesPerSecond: 1, seconds: 6))
        let r = try await transport.send(
            HTTPRequest(method: "GET", url: "\(kind.scheme)://127.0.0.1:\(port)/segments/x", headers: [:], body: .none),
            downloadTo: nil, maxBytes: 8000)
        #expect(r.status == 200 && r.body.count == 6000)
    }

    @Test("the pace meter: each stretch from the first byte must move floor × seconds bytes; no floor never fails")
    func paceMeter() {
        let second: UInt64 = 1_000_000_000
        let meter = PaceMeter(SpeedFloor(bytesPerSecond: 100, seconds: 10))
        #expect(meter.check(now: 100 * second) == nil, "nothing moved yet: the inactivity timeout governs")
        meter.add(999, now: 100 * second)
        for t in 101...109 { #expect(meter.check(now: UInt64(t) * second) == nil, "judged only once it is over") }
        meter.add(1, now: 109 * second)
        #expect(meter.check(now: 110 * second) == nil, "1,000 bytes in 10 s keeps a floor of 100 bytes/s")
        meter.add(400, now: 111 * second)
        for t in 111...119 { #expect(meter.check(now: UInt64(t) * second) == nil) }
        #expect(meter.check(now: 120 * second) == 400, "the second stretch moved 400 bytes")
        #expect(meter.check(now: 121 * second) == 400, "once too slow, it stays so")
        let none = PaceMeter(.none)
        none.add(1, now: 0)
        #expect(none.check(now: 1000 * second) == nil)
    }

    @Test("a check that comes long after the one before (this process stalled) starts the stretch again")
    func paceMeterStall() {
        let second: UInt64 = 1_000_000_000
        let meter = PaceMeter(SpeedFloor(bytesPerSecond: 100, seconds: 10))
        meter.add(10, now: 0)
        for t in 1...4 { #expect(meter.check(now: UInt64(t) * second) == nil) }
        // Nothing checked (nor delivered) from 4 s to 12 s: not the server's doing.
        #expect(meter.check(now: 12 * second) == nil, "a stalled process does not judge the server")
        for t in 13...21 { #expect(meter.check(now: UInt64(t) * second) == nil) }
        #expect(meter.check(now: 22 * second) == 0, "the stretch from 12 s to 22 s moved nothing")
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
