import AISyncCore
import Foundation

/// Which HTTP redirects the live transports (`SocketTransport`, `URLSessionTransport`) follow by themselves. A redirect it does not follow
/// is handed back to the caller as the 3xx response, `Location` header and all, so the caller
/// can treat the hop itself as the answer.
///
/// The transport knows no service: a service whose redirects mean something (Imgur's
/// `removed.png`) passes its own rule when it builds its transport. Whatever the policy says,
/// the transport never follows a redirect to another host, so credentials never travel there,
/// nor from `https` to plain `http`.
public struct RedirectPolicy: Sendable {
    private let decide: @Sendable (_ from: URL, _ to: URL) -> Bool

    /// A policy from a decision: `follow(from, to)` is true to follow the redirect from
    /// `from` (the URL first requested) to `to`.
    public init(follow: @escaping @Sendable (_ from: URL, _ to: URL) -> Bool) {
        decide = follow
    }

    /// Follows every redirect on the same host (compared case-insensitively): the default.
    public static let sameHost = RedirectPolicy { from, to in from.host?.lowercased() == to.host?.lowercased() }

    /// This policy, except that redirects to a URL for which `stop` is true are not followed.
    public func stopping(at stop: @escaping @Sendable (_ target: URL) -> Bool) -> RedirectPolicy {
        let decide = self.decide
        return RedirectPolicy { from, to in !stop(to) && decide(from, to) }
    }

    /// True when the transport should follow the redirect from `from` to `to`. Never from
    /// `https` to anything else: credentials would go out in the clear, and the remote's
    /// certificates and pins would no longer apply.
    public func follows(from: URL, to: URL) -> Bool {
        if from.scheme?.lowercased() == "https" && to.scheme?.lowercased() != "https" { return false }
        return from.host?.lowercased() == to.host?.lowercased() && decide(from, to)
    }
}
