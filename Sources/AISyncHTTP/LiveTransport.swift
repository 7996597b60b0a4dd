import Foundation

/// The transport aisync uses for real servers on this platform.
public enum LiveTransport {
    /// On Linux, ``SocketTransport`` (its own TLS with the system's OpenSSL for `https://`,
    /// URLSession where there is none); on Apple platforms, ``URLSessionTransport``, whose
    /// URLSession is the system's own networking. `timeoutSeconds` bounds each wait for the
    /// server; `redirects` says which redirects are followed by the transport itself; `trust`
    /// is what a remote trusts beside the system's certificates.
    public static func make(
        timeoutSeconds: TimeInterval = 30, redirects: RedirectPolicy = .sameHost, trust: TLSTrust = .system
    ) -> any HTTPTransport {
        #if canImport(Glibc) || canImport(Musl)
            SocketTransport(timeoutSeconds: timeoutSeconds, redirects: redirects, trust: trust)
        #else
            URLSessionTransport(timeoutSeconds: timeoutSeconds, redirects: redirects, trust: trust)
        #endif
    }
}
