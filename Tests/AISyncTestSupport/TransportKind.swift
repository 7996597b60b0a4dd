import AISyncHTTP
import Foundation
import Testing

/// The live HTTP transports: tests that pin transport behaviour run against each.
package enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// HTTP/1.1 on POSIX sockets, the live transport for http:// on Linux.
    case socket
    /// URLSession: https on Linux, everything on Apple platforms.
    case urlSession

    package var testDescription: String { rawValue }

    package func make(
        timeoutSeconds: TimeInterval = 30, redirects: RedirectPolicy = .sameHost, speedFloor: SpeedFloor = .standard
    ) -> any HTTPTransport {
        switch self {
        case .socket: SocketTransport(timeoutSeconds: timeoutSeconds, redirects: redirects, speedFloor: speedFloor)
        case .urlSession:
            URLSessionTransport(timeoutSeconds: timeoutSeconds, redirects: redirects, speedFloor: speedFloor)
        }
    }
}
