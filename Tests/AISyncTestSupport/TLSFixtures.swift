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
}
