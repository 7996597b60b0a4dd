import Foundation

/// The TLS certificates the tests use, made once per test process by
/// `Tests/Fixtures/tls/make-certs.py` (Python's `cryptography`): a CA (`ca.pem`), a good server
/// certificate for localhost and 127.0.0.1 (`good.pem`/`.key`), an expired one, one for another
/// name and a self-signed one. Nothing is in any system trust store.
package enum TLSFixtures {
    private static let made: Result<String, HostileServerError> = {
        let folder = CLIHarness.makeTemporaryDirectory() + "/tls"
        let result = CLIHarness.runProcess(
            "/usr/bin/env", ["python3", "\(CLIHarness.packageRoot)/Tests/Fixtures/tls/make-certs.py", folder])
        guard result.exitCode == 0 else {
            return .failure(HostileServerError(message: "make-certs.py failed: \(result)"))
        }
        return .success(folder)
    }()

    /// The folder holding the certificates (made on first use).
    package static func folder() throws -> String { try made.get() }

    /// The CA's certificate, as PEM text.
    package static func authority() throws -> String {
        try String(contentsOfFile: "\(folder())/ca.pem", encoding: .utf8)
    }

    /// This CA's certificate and, when `scripts/servers.sh` started the HTTPS servers, theirs
    /// (AISYNC_TEST_TLS_CA), as one PEM bundle; nil when neither can be read.
    package static func authorities() -> String? {
        let servers = ProcessInfo.processInfo.environment["AISYNC_TEST_TLS_CA"].flatMap {
            try? String(contentsOfFile: $0, encoding: .utf8)
        }
        let both = [try? authority(), servers].compactMap { $0 }.joined()
        return both.isEmpty ? nil : both
    }

    /// Checks with `openssl s_client` that the server on `port` presents a certificate that
    /// verifies for `host` against this CA: a test over TLS then never passes because
    /// aisync skipped a check the server would fail. Throws what s_client said otherwise.
    package static func crossCheck(port: Int, host: String = "127.0.0.1") throws {
        let isAddress = host.allSatisfy { $0.isNumber || $0 == "." }
        let name = isAddress ? "-verify_ip \(host)" : "-servername \(host) -verify_hostname \(host)"
        let r = CLIHarness.runProcess(
            "/bin/sh",
            [
                "-c",
                "openssl s_client -connect 127.0.0.1:\(port) \(name) -CAfile '\(try folder())/ca.pem' -verify_return_error </dev/null 2>&1",
            ])
        guard r.exitCode == 0, r.stdout.contains("Verify return code: 0 (ok)") else {
            throw HostileServerError(
                message: "openssl s_client does not verify 127.0.0.1:\(port): \(r.stdout.suffix(400))")
        }
    }
}
