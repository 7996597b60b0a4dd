import AISyncHTTP
import Foundation
import Testing

/// The live HTTP transports: tests that pin transport behaviour run against each.
package enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// HTTP/1.1 on POSIX sockets, the live transport for http:// on Linux.
    case socket
    /// URLSession: on Linux where no libssl is found, everything on Apple platforms.
    case urlSession
    /// The socket transport over its own TLS (`https://`), trusting the test CA
    /// (``TLSFixtures``); the server must speak TLS (``serverEnvironment``). Not in
    /// ``allCases``: the suites that run over TLS add it (``withTLS``).
    case socketTLS = "socket over TLS"

    /// The plain transports.
    package static let allCases: [TransportKind] = [.socket, .urlSession]
    /// The plain transports and the socket transport over TLS.
    package static let withTLS: [TransportKind] = allCases + [.socketTLS]

    /// `https` for the TLS kind, else `http`.
    package var scheme: String { self == .socketTLS ? "https" : "http" }

    /// The environment a Python test server (`testserver_http.serve_loopback`, the trickle
    /// server) needs to speak to this kind: the test certificates for TLS, else nothing added.
    package func serverEnvironment() throws -> [String: String]? {
        guard self == .socketTLS else { return nil }
        var environment = ProcessInfo.processInfo.environment
        environment["AISYNC_TEST_SERVER_TLS"] = try TLSFixtures.folder()
        return environment
    }

    package var testDescription: String { rawValue }

    package func make(
        timeoutSeconds: TimeInterval = 30, redirects: RedirectPolicy = .sameHost, speedFloor: SpeedFloor = .standard
    ) -> any HTTPTransport {
        switch self {
        case .socket: SocketTransport(timeoutSeconds: timeoutSeconds, redirects: redirects, speedFloor: speedFloor)
        case .urlSession:
            URLSessionTransport(timeoutSeconds: timeoutSeconds, redirects: redirects, speedFloor: speedFloor)
        case .socketTLS:
            // Both test CAs: the Python servers' (TLSFixtures) and that of the HTTPS servers
            // servers.sh started (AISYNC_TEST_TLS_CA). Without them nothing verifies, visibly.
            SocketTransport(
                timeoutSeconds: timeoutSeconds, redirects: redirects, speedFloor: speedFloor,
                trust: TLSTrust(certificates: TLSFixtures.authorities()))
        }
    }
}
