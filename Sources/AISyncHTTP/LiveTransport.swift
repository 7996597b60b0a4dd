import Foundation

/// The transport aisync uses for real servers on this platform.
public enum LiveTransport {
    /// On Linux, ``SocketTransport`` for `http://` (with URLSession for `https://`); on Apple
    /// platforms, ``URLSessionTransport``, whose URLSession is the system's own networking.
    /// `timeoutSeconds` bounds each wait for the server; `redirects` says which redirects
    /// are followed by the transport itself.
    public static func make(timeoutSeconds: TimeInterval = 30, redirects: RedirectPolicy = .sameHost)
        -> any HTTPTransport
    {
        #if canImport(Glibc) || canImport(Musl)
            SocketTransport(timeoutSeconds: timeoutSeconds, redirects: redirects)
        #else
            URLSessionTransport(timeoutSeconds: timeoutSeconds, redirects: redirects)
        #endif
    }
}
