import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncHTTP

/// The socket transport's own TLS (issue 31) against `openssl s_server -www`, whose answer
/// page says whether the connection resumed a session: sessions resumed across a sync's
/// connections, pinned keys (the pin computed by the openssl command line, not by aisync), and
/// the PEM and pin text a user gives.
@Suite("TLS transport", .needsTools("openssl"), .needsPythonModules("cryptography"))
struct TLSTransportTests {
    /// `openssl s_server -www` with the good certificate; stopped when released.
    final class Server: Sendable {
        let port: Int
        private let pid: Int32

        init() throws {
            let certs = try TLSFixtures.folder()
            let (process, port) = try TLSTransportTests.serve(certs: certs)
            self.port = port
            pid = process.pid
            try TLSFixtures.crossCheck(port: port, host: "localhost")
        }

        deinit { kill(pid, SIGKILL) }
    }

    /// Starts the server off the cooperative pool (it waits for s_server and runs s_client).
    static func startServer() async throws -> Server {
        try await ProcessGate.run { Result { try Server() } }.get()
    }

    static func serve(certs: String, options: String = "") throws -> (CLIBackgroundProcess, Int) {
        let server = try CLIHarness.startShell(
            "exec openssl s_server -accept 127.0.0.1:0 -cert '\(certs)/good.pem' -key '\(certs)/good.key' -www \(options)"
        )
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let line = server.currentStdout().split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT ") }),
                let port = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
            {
                return (server, port)
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        kill(server.pid, SIGKILL)
        throw HostileServerError(message: "openssl s_server did not start: \(server.currentStdout())")
    }

    /// The good certificate's key pin, as the openssl command line computes it.
    static func pin() throws -> String {
        let certs = try TLSFixtures.folder()
        let r = CLIHarness.runProcess(
            "/bin/sh",
            [
                "-c",
                "openssl x509 -in '\(certs)/good.pem' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64",
            ])
        try #require(r.exitCode == 0, "\(r)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func get(_ t: SocketTransport, _ port: Int) async throws -> String {
        let r = try await t.send(
            HTTPRequest(method: "GET", url: "https://localhost:\(port)/"), downloadTo: nil, maxBytes: 1 << 20)
        #expect(r.status == 200)
        return String(decoding: r.body, as: UTF8.self)
    }

    @Test("each request after the first resumes the TLS session (s_server closes after each answer): no full handshake")
    func sessionsResume() async throws {
        let server = try await Self.startServer()
        let t = SocketTransport(timeoutSeconds: 10, trust: TLSTrust(certificates: try TLSFixtures.authority()))
        let first = try await Self.get(t, server.port)
        #expect(first.contains("New, TLSv1."), "\(first.prefix(600))")
        #expect(first.contains("TLSv1.3") || first.contains("TLSv1.2"))
        for _ in 0..<3 {
            let again = try await Self.get(t, server.port)
            #expect(again.contains("Reused, TLSv1."), "\(again.prefix(600))")
        }
        // Another transport has sessions of its own: a full handshake.
        let other = SocketTransport(timeoutSeconds: 10, trust: TLSTrust(certificates: try TLSFixtures.authority()))
        #expect(try await Self.get(other, server.port).contains("New, TLSv1."))
    }

    @Test("SNI: the host name is sent, and the server picks its certificate by it; an address sends none")
    func serverNameIndication() async throws {
        let certs = try TLSFixtures.folder()
        // By default the server presents the certificate for other.example; for the name
        // localhost (SNI) the good one.
        let options =
            "-cert '\(certs)/other.pem' -key '\(certs)/other.key' -servername localhost -cert2 '\(certs)/good.pem' -key2 '\(certs)/good.key'"
        let (server, port) = try await ProcessGate.run {
            Result { () throws -> (CLIBackgroundProcess, Int) in
                let started = try Self.serve(certs: certs, options: options)
                try TLSFixtures.crossCheck(port: started.1, host: "localhost")
                return started
            }
        }.get()
        defer { kill(server.pid, SIGKILL) }
        let t = SocketTransport(timeoutSeconds: 10, trust: TLSTrust(certificates: try TLSFixtures.authority()))
        #expect(try await Self.get(t, port).contains("TLSv1."))
        await #expect {
            _ = try await t.send(
                HTTPRequest(method: "GET", url: "https://127.0.0.1:\(port)/"), downloadTo: nil, maxBytes: 1 << 20)
        } throws: { "\($0)".contains("TLS certificate of 127.0.0.1 is for another name") }
    }

    @Test("a pinned key: the server's passes; another is refused naming the key the server has")
    func pins() async throws {
        let server = try await Self.startServer()
        let pin = try Self.pin()
        let authority = try TLSFixtures.authority()
        let right = SocketTransport(
            timeoutSeconds: 10,
            trust: TLSTrust(certificates: authority, pins: try TLSTrust.pins(from: "sha256//\(pin)")))
        #expect(try await Self.get(right, server.port).contains("TLSv1."))
        // One right pin among wrong ones is enough (a key being rolled over).
        let among = SocketTransport(
            timeoutSeconds: 10,
            trust: TLSTrust(
                certificates: authority,
                pins: try TLSTrust.pins(from: "sha256//\(String(repeating: "A", count: 43))=;\(pin)")))
        #expect(try await Self.get(among, server.port).contains("TLSv1."))
        let wrong = SocketTransport(
            timeoutSeconds: 10, trust: TLSTrust(certificates: authority, pins: [Array(repeating: 1, count: 32)]))
        await #expect {
            _ = try await Self.get(wrong, server.port)
        } throws: {
            let e = $0 as? AISyncError
            return e?.code == .configuration && e?.remedy == .checkPinnedKey
                && "\($0)".contains("TLS key of localhost is not the one pinned")
                && "\($0)".contains("sha256//\(pin)")
        }
        // A pin never stands in for the certificate: without the CA, the chain is refused first.
        let pinOnly = SocketTransport(timeoutSeconds: 10, trust: TLSTrust(pins: try TLSTrust.pins(from: pin)))
        await #expect {
            _ = try await Self.get(pinOnly, server.port)
        } throws: { ($0 as? AISyncError)?.remedy == .trustServer && "\($0)".contains("not trusted") }
    }

    @Test(
        "the name a certificate must carry: brackets of an IPv6 literal dropped; addresses only inet_aton reads refused"
    )
    func checkedNames() {
        #expect(TLSContext.checkedName("localhost")! == ("localhost", false))
        #expect(TLSContext.checkedName("nas.example.com")! == ("nas.example.com", false))
        #expect(TLSContext.checkedName("127.0.0.1")! == ("127.0.0.1", true))
        #expect(TLSContext.checkedName("[::1]")! == ("::1", true))
        #expect(TLSContext.checkedName("::1")! == ("::1", true))
        // Connected to as 127.0.0.1 or 1.2.3.8 by the resolver, read otherwise by a check.
        for loose in ["127.1", "2130706433", "1.2.3.010", "0x7f.0.0.1", "", "[]", "[::1", "::1]"] {
            #expect(TLSContext.checkedName(loose) == nil, "\(loose)")
        }
    }

    @Test("PEM text: certificates found in order, keys and other blocks left out; broken text refused")
    func pemText() throws {
        let certs = try TLSFixtures.folder()
        let ca = try String(contentsOfFile: "\(certs)/ca.pem", encoding: .utf8)
        let good = try String(contentsOfFile: "\(certs)/good.pem", encoding: .utf8)
        let key = try String(contentsOfFile: "\(certs)/good.key", encoding: .utf8)
        let found = try TLSTrust.certificates(inPEM: "junk\n" + key + ca + "\n" + good)
        #expect(found.count == 2)
        #expect(found.map(TLSTrust.pem).joined() == ca + good, "re-encoded as the same PEM lines")
        #expect(throws: AISyncError.self) { try TLSTrust.certificates(inPEM: key) }
        #expect(throws: AISyncError.self) { try TLSTrust.certificates(inPEM: "") }
        #expect(throws: AISyncError.self) {
            try TLSTrust.certificates(inPEM: "-----BEGIN CERTIFICATE-----\nMIIB!!\n-----END CERTIFICATE-----\n")
        }
        #expect(throws: AISyncError.self) {
            try TLSTrust.certificates(inPEM: String(ca.dropLast(30)))
        }
        #expect(throws: AISyncError.self) {
            try TLSTrust.certificates(inPEM: String(repeating: " ", count: TLSTrust.maxCertificateBytes + 1))
        }
    }

    @Test("pin text as curl writes it: sha256//BASE64 or bare base64 of 32 bytes, several with ';'")
    func pinText() throws {
        let digest = Array(0..<32).map(UInt8.init)
        let text = TLSTrust.pinText(digest)
        #expect(text == "sha256//AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
        #expect(try TLSTrust.pins(from: text) == [digest])
        #expect(try TLSTrust.pins(from: String(text.dropFirst(8))) == [digest])
        #expect(try TLSTrust.pins(from: "\(text); SHA256//\(text.dropFirst(8))") == [digest, digest])
        for bad in [
            "", "sha256//", "sha256//AAEC", "md5//AAECAwQFBgcICQoLDA0ODw==", String(repeating: "ab", count: 32),
        ] {
            #expect(throws: AISyncError.self, "\(bad)") { try TLSTrust.pins(from: bad) }
        }
        let trust = TLSTrust(pins: [digest])
        #expect(trust.pinned(digest))
        var other = digest
        other[31] ^= 1
        #expect(!trust.pinned(other) && !trust.pinned(Array(digest.prefix(31))))
    }
}
