import AISyncTestSupport
import Foundation
import Testing

/// A server whose certificate is refused is there: the error says the certificate is not
/// trusted, and why, with its own exit code (78), never "cannot reach … check that the
/// server is running" (issue 31). Real TLS servers (`openssl s_server`) on loopback, with
/// certificates made for this run (Tests/Fixtures/tls/make-certs.py); every verdict aisync
/// reaches is also reached by `openssl s_client` against the same server, so no test passes
/// because a check was skipped.
@Suite("TLS certificate errors", .needsTools("openssl"), .needsPythonModules("cryptography"))
struct TLSErrorTests {
    /// Starts `openssl s_server` with `name`.pem/.key from `certs` on a free loopback port;
    /// returns the process and the port once it accepts.
    static func serve(_ name: String, certs: String, address: String = "127.0.0.1", options: String = "") throws -> (
        CLIBackgroundProcess, Int
    ) {
        let server = try CLIHarness.startShell(
            "exec openssl s_server -accept \(address):0 -cert '\(certs)/\(name).pem' -key '\(certs)/\(name).key' -www \(options)"
        )
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let out = server.currentStdout()
            if let line = out.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT ") }),
                let port = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
            {
                return (server, port)
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        kill(server.pid, SIGKILL)
        throw CLIJSON.NotJSON(description: "openssl s_server did not start: \(server.currentStdout())")
    }

    /// What `openssl s_client` makes of the server at `port` for `host`, trusting `ca` (a PEM
    /// file) or nothing: nil when it verifies, else OpenSSL's reason.
    static func clientVerdict(address: String = "127.0.0.1", port: Int, host: String, ca: String?) -> String? {
        let trust = ca.map { "-CAfile '\($0)'" } ?? "-no-CAfile -no-CApath -no-CAstore"
        let r = CLIHarness.runProcess(
            "/bin/sh",
            [
                "-c",
                "openssl s_client -connect \(address):\(port) -servername \(host) -verify_hostname \(host) \(trust) -verify_return_error </dev/null 2>&1",
            ])
        if r.exitCode == 0 && r.stdout.contains("Verify return code: 0 (ok)") { return nil }
        let line = r.stdout.split(separator: "\n").first {
            $0.contains("Verify return code:") || $0.contains("verify error:")
        }
        return line.map(String.init) ?? "refused: \(r.stdout.suffix(300))"
    }

    @Test(
        "a self-signed certificate and one from an unknown CA: exit 78, the certificate named as not trusted and why, the store unchanged",
        arguments: [
            ("self", "self-signed certificate"), ("good", "unable to get local issuer certificate"),
        ])
    func untrustedCertificate(name: String, reason: String) throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let certs = try TLSFixtures.folder()
        let (server, port) = try Self.serve(name, certs: certs)
        defer { kill(server.pid, SIGKILL) }
        let verdict = Self.clientVerdict(port: port, host: "localhost", ca: nil)
        #expect(verdict?.contains(reason) == true, "openssl s_client refuses it too: \(verdict ?? "verified")")
        try store.ok(["chat", "new", "--title", "over TLS"])
        try store.ok(["remote", "add", "nas", "https://localhost:\(port)/aisync", "--plain"])
        let journal = store.journalBytes()
        for command in [["push"], ["pull"], ["sync"]] {
            let r = store.run(command)
            CLIExpect.cleanError(r, code: 78, mentioning: ["TLS certificate of localhost is not trusted", reason])
            #expect(r.stderr.contains("aisync remote trust NAME --ca-cert FILE"), "the hint says how to trust it: \(r)")
            #expect(!r.stderr.contains("cannot reach") && !r.stderr.contains("is running"), "\(r)")
        }
        #expect(store.journalBytes() == journal)
    }

    @Test(
        "trusted with --ca-cert, yet expired or issued for another name: refused with their own words, exit 78",
        arguments: [
            (
                "expired", "localhost", ["TLS certificate of localhost is not trusted", "certificate has expired"],
                "clock"
            ),
            ("other", "localhost", ["TLS certificate of localhost is for another name"], "name the certificate"),
            ("good", "127.0.0.2", ["TLS certificate of 127.0.0.2 is for another name"], "name the certificate"),
        ])
    func trustedButWrong(name: String, host: String, words: [String], hint: String) throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let certs = try TLSFixtures.folder()
        // A name the certificate does not carry: 127.0.0.2, where the server listens for it.
        let address = host == "localhost" ? "127.0.0.1" : host
        let (server, port) = try Self.serve(name, certs: certs, address: address)
        defer { kill(server.pid, SIGKILL) }
        let verdict = Self.clientVerdict(address: address, port: port, host: host, ca: "\(certs)/ca.pem")
        #expect(verdict != nil, "openssl s_client refuses it too")
        try store.ok(["chat", "new", "--title", "over TLS"])
        try store.ok([
            "remote", "add", "nas", "https://\(host):\(port)/aisync", "--plain", "--ca-cert", "\(certs)/ca.pem",
        ])
        let journal = store.journalBytes()
        let r = store.run(["push"])
        CLIExpect.cleanError(r, code: 78, mentioning: words)
        #expect(r.stderr.contains(hint), "\(r)")
        #expect(!r.stderr.contains("cannot reach"), "\(r)")
        #expect(store.journalBytes() == journal)
    }

    @Test(
        "a CA only in the CA file (SSL_CERT_FILE) is trusted though the hashed CA folder, searched first, lacks it"
    )
    func hashedFolderThenFile() throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let certs = try TLSFixtures.folder()
        let (server, port) = try Self.serve("good", certs: certs)
        defer { kill(server.pid, SIGKILL) }
        // A hashed folder holding one unrelated certificate, and the test CA as the CA file.
        let folder = "\(store.directory)/hashed"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(certs)/self.pem", toPath: "\(folder)/0123abcd.0")
        try store.ok(["remote", "add", "nas", "https://localhost:\(port)/aisync", "--plain"])
        let found = store.run(["pull"], environment: ["SSL_CERT_DIR": folder, "SSL_CERT_FILE": "\(certs)/ca.pem"])
        // s_server -www is no aisync remote: past TLS, the pull fails on what it was served.
        #expect(found.exitCode != 0 && !found.stderr.contains("TLS"), "TLS went through: \(found)")
        #expect(found.stderr.contains("not a sync remote") || found.stderr.contains("aisync.json"), "\(found)")
        let missing = store.run(
            ["pull"], environment: ["SSL_CERT_DIR": folder, "SSL_CERT_FILE": "\(certs)/self.pem"])
        CLIExpect.cleanError(missing, code: 78, mentioning: ["TLS certificate of localhost is not trusted"])
    }

    @Test("a server that offers only TLS 1.1 is refused: TLS 1.2 is the oldest aisync speaks")
    func oldProtocolRefused() throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let certs = try TLSFixtures.folder()
        let (server, port) = try Self.serve("good", certs: certs, options: "-tls1_1 -cipher DEFAULT@SECLEVEL=0")
        defer { kill(server.pid, SIGKILL) }
        let curl = CLIHarness.runProcess(
            "/bin/sh",
            ["-c", "openssl s_client -connect 127.0.0.1:\(port) -tls1_1 -cipher DEFAULT@SECLEVEL=0 </dev/null 2>&1"]
        )
        #expect(curl.stdout.contains("TLSv1.1"), "the server does speak TLS 1.1: \(curl.stdout.suffix(400))")
        try store.ok([
            "remote", "add", "nas", "https://localhost:\(port)/aisync", "--plain", "--ca-cert", "\(certs)/ca.pem",
        ])
        let r = store.run(["pull"])
        CLIExpect.cleanError(r, code: 78, mentioning: ["cannot make a secure connection to localhost"])
        #expect(r.stderr.contains("TLS 1.2 or newer"), "\(r)")
    }

    @Test(
        "trust is checked when it is given: no certificate in the file, a key file, a pin that is not one, trust for http://"
    )
    func badTrustInput() throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let certs = try TLSFixtures.folder()
        let empty = CLIFixtures.writeFile(Data("nothing here\n".utf8), in: store.directory, name: "empty.pem")
        let config = try String(contentsOfFile: "\(store.path)/config.json", encoding: .utf8)
        for (arguments, words) in [
            (["--ca-cert", empty], ["no certificate"]),
            (["--ca-cert", "\(certs)/good.key"], ["no certificate"]),
            (["--ca-cert", "\(store.directory)/missing.pem"], ["missing.pem"]),
            (["--pin-sha256", "abc"], ["not a SHA-256 key pin"]),
            (["--pin-sha256", "sha1//AAAA"], ["not a SHA-256 key pin"]),
        ] {
            let r = store.run(["remote", "add", "nas", "https://localhost:1/aisync"] + arguments)
            #expect(r.exitCode != 0 && r.stderr.hasPrefix("Error: "), "\(arguments): \(r)")
            for word in words { #expect(r.stderr.contains(word), "\(arguments): \(r)") }
        }
        let plain = store.run(["remote", "add", "nas", "http://127.0.0.1:1/aisync", "--ca-cert", "\(certs)/ca.pem"])
        CLIExpect.cleanError(plain, code: 64, mentioning: ["not https://"])
        #expect(try String(contentsOfFile: "\(store.path)/config.json", encoding: .utf8) == config)
        // A file with a key and a certificate: only the certificate is kept.
        let both = CLIFixtures.writeFile(
            try Data(contentsOf: URL(fileURLWithPath: "\(certs)/good.key"))
                + Data(contentsOf: URL(fileURLWithPath: "\(certs)/ca.pem")), in: store.directory, name: "both.pem")
        try store.ok(["remote", "add", "nas", "https://localhost:1/aisync", "--ca-cert", both])
        let kept = try String(contentsOfFile: "\(store.path)/config.json", encoding: .utf8)
        #expect(kept.contains("BEGIN CERTIFICATE") && !kept.contains("PRIVATE KEY"))
        let listed = try CLIJSON.array(store.run(["remote", "list", "--json"]))
        let trust = listed.first?["trust"] as? [String: Any]
        #expect(trust?["certificates"] as? Int == 1 && (trust?["pins"] as? [Any])?.isEmpty == true, "\(listed)")
        // With a pin too: config.json and `remote list --json` as their schemas say.
        let pin = "sha256//" + Data(repeating: 9, count: 32).base64EncodedString()
        try store.ok(["remote", "trust", "nas", "--ca-cert", "\(certs)/ca.pem", "--pin-sha256", pin])
        let configCheck = SchemaValidator.validate("config", files: [store.configPath], canonical: true)
        #expect(configCheck.passed, "\(configCheck)")
        let output = store.run(["remote", "list", "--json"])
        let check = SchemaValidator.validate("remote-list-output", stdin: output.stdoutData)
        #expect(check.passed, "\(check)")
        #expect(output.stdout.contains(pin), "\(output)")
        // Certificates damaged in config.json (edited by hand): a configuration error, exit 78,
        // before anything is sent; not the usage error of a bad file on the command line.
        let good = try String(contentsOfFile: store.configPath, encoding: .utf8)
        let damaged = good.replacingOccurrences(of: "CERTIFICATE-----\\nMII", with: "CERTIFICATE-----\\n!!!")
        #expect(damaged != good, "config.json keeps the certificate as PEM: \(good)")
        try damaged.write(toFile: store.configPath, atomically: true, encoding: .utf8)
        let r = store.run(["pull"])
        CLIExpect.cleanError(r, code: 78, mentioning: ["certificates kept for this remote cannot be read"])
    }
}
