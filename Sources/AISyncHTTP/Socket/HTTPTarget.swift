import AISyncCore

/// Where an `http://` or `https://` URL points: the host and port to connect to, the `Host`
/// header and the request target, taken from the URL text as it is (its percent-encoding kept).
struct HTTPTarget: Equatable, Sendable {
    /// `https://`: the connection is TLS.
    var secure: Bool
    var host: String
    var port: Int
    /// Host, and port when not the scheme's own (80, 443), as the `Host` header says it.
    var authority: String
    /// Path and query, e.g. `/dav/segments/abc/1.seg`.
    var target: String

    /// Nil for a URL that is neither `http://` nor `https://`, or that has no host.
    init?(_ url: String) {
        let scheme = url.prefix(8).lowercased()
        let secure = scheme == "https://"
        guard secure || scheme.hasPrefix("http://") else { return nil }
        let rest = url.dropFirst(secure ? 8 : 7).prefix { $0 != "#" }
        var authority = rest.prefix { $0 != "/" && $0 != "?" }
        var target = String(rest.dropFirst(authority.count))
        if target.isEmpty || target.first == "?" { target = "/" + target }
        // Credentials never travel in a URL aisync builds; drop any userinfo.
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = Substring(authority)
        let standard = secure ? 443 : 80
        var port = standard
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            guard let p = Int(authority[authority.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            port = p
            host = authority[..<colon]
        }
        guard !host.isEmpty, !target.utf8.contains(where: { $0 <= 32 || $0 == 127 }) else { return nil }
        self.secure = secure
        self.host = String(host)
        self.port = port
        self.authority = port == standard ? String(host) : String(authority)
        self.target = target
    }
}
