import AISyncCore
import AISyncHTTP

/// A remote's URL, checked: which transport it needs and whether it is safe to use.
public struct RemoteLocation: Sendable, Equatable {
    /// Which transport a remote needs; the raw value is what the store's config records.
    public enum Kind: String, Sendable {
        /// An `http(s)://` WebDAV server (Nextcloud, ownCloud, Apache mod_dav): can list directories.
        case webdav
        /// A plain HTTP server (`--plain`: GET/PUT/DELETE only), which cannot list.
        case http
        /// A local folder (`file:///path`): a USB stick, a mounted cloud drive.
        case folder
    }

    /// Which transport this location needs.
    public var kind: Kind
    /// For folders: the absolute path. For servers: the base URL without a trailing slash.
    public var base: String
    /// The server's host name, lowercased, without port or brackets (credentials are looked up
    /// by it, e.g. in `~/.netrc`); empty for a folder.
    public var host: String

    /// Names are file names in `sync/`: short, lowercase, safe.
    public static func validateName(_ name: String) throws(AISyncError) {
        let ok =
            (1...32).contains(name.utf8.count)
            && name.utf8.enumerated().allSatisfy { n, b in
                (b >= 97 && b <= 122) || (b >= 48 && b <= 57)
                    || (n > 0 && (b == UInt8(ascii: "-") || b == UInt8(ascii: "_")))
            }
        guard ok else {
            throw AISyncError(
                .usage, "'\(name.prefix(40))' is not a valid remote name",
                hint: "Use 1-32 lowercase letters, digits, - or _, starting with a letter or digit")
        }
    }

    /// Parses and vets a URL given by the user (`remote add`) or read from config.
    public init(url: String, plain: Bool, insecure: Bool) throws(AISyncError) {
        if url.hasPrefix("file://") {
            let path = String(url.dropFirst(7))
            guard path.hasPrefix("/"), !path.split(separator: "/").contains("..") else {
                throw AISyncError(.usage, "'\(url)' is not a folder URL", hint: "Use file:///absolute/path")
            }
            guard !plain else { throw AISyncError(.usage, "plain HTTP applies to http(s) URLs, not folders") }
            kind = .folder
            base = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
            host = ""
            return
        }
        let scheme: String
        if url.hasPrefix("https://") {
            scheme = "https"
        } else if url.hasPrefix("http://") {
            scheme = "http"
        } else {
            throw AISyncError(
                .usage, "'\(url.prefix(100))' is not a URL a remote can use",
                hint: "Use https://host/path (WebDAV or a plain HTTP server), or file:///path for a folder",
                remedy: .giveRemoteURL)
        }
        let rest = url.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else {
            throw AISyncError(
                .usage, "the URL contains credentials",
                hint: "Remove them from the URL; set AISYNC_USER and AISYNC_PASSWORD, or add the host to ~/.netrc")
        }
        guard !rest.contains("?"), !rest.contains("#"), !rest.contains(" ") else {
            throw AISyncError(
                .usage, "the URL must not contain a query, fragment or spaces",
                hint: "Give the folder's URL, e.g. https://cloud.example.com/remote.php/dav/files/me/aisync")
        }
        var hostPart = String(authority)
        if hostPart.hasPrefix("[") {
            hostPart = String(hostPart.prefix { $0 != "]" }.dropFirst())
        } else if let colon = hostPart.lastIndex(of: ":") {
            hostPart = String(hostPart[..<colon])
        }
        guard !hostPart.isEmpty else { throw AISyncError(.usage, "the URL has no host") }
        host = hostPart.lowercased()
        if scheme == "http", !insecure, !Self.isLoopback(host) {
            throw AISyncError(
                .usage, "refusing plain http:// to \(host): credentials and data would travel unencrypted",
                hint: "Use https://, or allow plain http:// if this network is trusted",
                remedy: .allowInsecureHTTP)
        }
        kind = plain ? .http : .webdav
        var b = url
        while b.hasSuffix("/") { b.removeLast() }
        base = b
    }

    /// `localhost`, `::1`, or an IPv4 literal in 127.0.0.0/8 (not a name that starts with "127.").
    public static func isLoopback(_ host: String) -> Bool { HTTPHost.isLoopback(host) }
}
