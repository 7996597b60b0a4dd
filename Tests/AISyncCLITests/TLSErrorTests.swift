import AISyncTestSupport
import Foundation
import Testing

/// A server whose certificate is refused is there: the error says the certificate is not
/// trusted, and why, with its own exit code (78), never "cannot reach … check that the
/// server is running" (issue 31). Real TLS servers (`openssl s_server`) on loopback, with
/// certificates made for this run (Tests/Fixtures/tls/make-certs.py).
@Suite("TLS certificate errors", .needsTools("openssl"), .needsPythonModules("cryptography"))
struct TLSErrorTests {
    /// Starts `openssl s_server` with `name`.pem/.key from `certs` on a free loopback port;
    /// returns the process and the port once it accepts.
    static func serve(_ name: String, certs: String) throws -> (CLIBackgroundProcess, Int) {
        let server = try CLIHarness.startShell(
            "exec openssl s_server -accept 127.0.0.1:0 -cert '\(certs)/\(name).pem' -key '\(certs)/\(name).key' -www")
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

    @Test(
        "a self-signed certificate and one from an unknown CA: exit 78, the certificate named as not trusted and why, the store unchanged",
        arguments: [
            ("self", "self-signed certificate"), ("good", "unable to get local issuer certificate"),
        ])
    func untrustedCertificate(name: String, reason: String) throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let certs = "\(store.directory)/certs"
        let made = CLIHarness.runProcess(
            "/usr/bin/env", ["python3", "\(CLIHarness.packageRoot)/Tests/Fixtures/tls/make-certs.py", certs])
        try #require(made.exitCode == 0, "\(made)")
        let (server, port) = try Self.serve(name, certs: certs)
        defer { kill(server.pid, SIGKILL) }
        try store.ok(["chat", "new", "--title", "over TLS"])
        try store.ok(["remote", "add", "nas", "https://localhost:\(port)/aisync", "--plain"])
        let journal = store.journalBytes()
        for command in [["push"], ["pull"], ["sync"]] {
            let r = store.run(command)
            CLIExpect.cleanError(r, code: 78, mentioning: ["TLS certificate of localhost is not trusted", reason])
            #expect(r.stderr.contains("trusted certificates"), "the hint says how to trust it: \(r)")
            #expect(!r.stderr.contains("cannot reach") && !r.stderr.contains("is running"), "\(r)")
        }
        #expect(store.journalBytes() == journal)
    }
}
