import AISyncCore
import AISyncHTTP

/// What Imgur answered to an upload, checked: every field comes from a server and is validated
/// before aisync records it (ids and links end up in records other machines fetch).
///
/// `description` hides the deletehash, which is a secret (docs/DESIGN.md §7).
public struct ImgurUpload: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// 5-10 letters and digits (`^[A-Za-z0-9]{5,10}$`).
    public var id: String
    /// `https://i.imgur.com/{id}.{ext}`, or with a non-official API base (a test stand-in or a
    /// proxy), a link on the API base's own scheme, host and port ending in `/{id}.{ext}`.
    public var link: String
    /// 5-40 letters and digits; absent when Imgur sends none. A secret (anyone holding it can
    /// delete the image): never log or print it.
    public var deletehash: String?
    /// The size in bytes of what Imgur stores and serves (after any re-encoding).
    public var size: Int64
    /// The width in pixels Imgur reports for what it serves; nil when it did not say.
    public var width: Int64?
    /// The height in pixels Imgur reports for what it serves; nil when it did not say.
    public var height: Int64?
    /// The media type Imgur serves (`image/jpeg` after PNG→JPEG re-encoding, for example).
    public var type: String

    /// An answer with the given fields, taken as already checked (tests and stand-ins build
    /// these; answers from Imgur are parsed and validated by ``ImgurClient``).
    public init(id: String, link: String, deletehash: String?, size: Int64, width: Int64?, height: Int64?, type: String)
    {
        self.id = id
        self.link = link
        self.deletehash = deletehash
        self.size = size
        self.width = width
        self.height = height
        self.type = type
    }

    /// `Imgur image <id> at <link>, <size> bytes, <type>[, WxH][, deletehash •••]`: the
    /// deletehash is masked, so this is safe to log.
    public var description: String {
        var s = "Imgur image \(id) at \(link), \(size) bytes, \(type)"
        if let width, let height { s += ", \(width)x\(height)" }
        if deletehash != nil { s += ", deletehash •••" }
        return s
    }

    /// The same masked text as ``description``, so `debugPrint` cannot leak the deletehash.
    public var debugDescription: String { description }

    /// The largest size aisync believes (Imgur's own limit is 200 MB for video).
    static let maxSize: Int64 = 1 << 30
    /// The largest width or height aisync believes.
    static let maxDimension: Int64 = 1 << 20

    /// Reads and checks the `data` object of a successful upload answer.
    static func parse(_ data: JSONValue, endpoint: ImgurEndpoint) throws(AISyncError) -> ImgurUpload {
        func bad(_ what: String) -> AISyncError {
            AISyncError(
                .damagedData, "Imgur's upload answer has \(what)",
                hint: "Nothing was recorded; the upload stays pending and is retried on the next push")
        }
        guard let o = data.objectValue else { throw bad("no data object") }
        guard let id = o["id"]?.stringValue else { throw bad("no image id") }
        guard ImgurEndpoint.isImageID(id) else { throw bad("an invalid image id '\(ImgurEndpoint.printable(id))'") }
        guard let rawLink = o["link"]?.stringValue else { throw bad("no link") }
        guard let link = endpoint.imageLink(rawLink)?.link, endpoint.imageLink(rawLink)?.id == id else {
            throw bad("a link that is not an Imgur image link for \(id): '\(ImgurEndpoint.printable(rawLink))'")
        }
        var deletehash: String?
        switch o["deletehash"] {
        case nil, .null?: deletehash = nil
        case .string(let d)? where ImgurEndpoint.isDeletehash(d): deletehash = d
        default: throw bad("an invalid deletehash")  // never echo it: it is a secret
        }
        guard case .int(let size)? = o["size"] else { throw bad("no size") }
        guard (0...maxSize).contains(size) else { throw bad("an impossible size (\(size))") }
        func dimension(_ key: String) throws(AISyncError) -> Int64? {
            switch o[key] {
            case nil, .null?: return nil
            case .int(let v)? where (0...maxDimension).contains(v): return v
            default: throw bad("an invalid \(key)")
            }
        }
        let width = try dimension("width")
        let height = try dimension("height")
        guard let type = o["type"]?.stringValue else { throw bad("no media type") }
        guard ImgurEndpoint.isMediaType(type) else {
            throw bad("an invalid media type '\(ImgurEndpoint.printable(type))'")
        }
        return ImgurUpload(
            id: id, link: link, deletehash: deletehash, size: size, width: width, height: height, type: type)
    }
}

/// A URL split into the parts aisync checks; only plain ASCII http(s) URLs with a safe path.
struct ImgurURL: Equatable, Sendable {
    var scheme: String
    /// Lowercase; IPv6 literals keep their brackets.
    var host: String
    /// The effective port (443/80 when the URL gives none).
    var port: Int
    /// Starts with "/"; letters, digits and `/._~-` only, no `..` or empty segments.
    var path: String

    var isDefaultPort: Bool { port == (scheme == "https" ? 443 : 80) }
    var origin: String { "\(scheme)://\(host)" + (isDefaultPort ? "" : ":\(port)") }
    var string: String { origin + (path == "/" ? "" : path) }
    func sameOrigin(_ other: ImgurURL) -> Bool { scheme == other.scheme && host == other.host && port == other.port }

    /// Parses `text`; a query or fragment makes it fail unless `dropQuery`, which discards them
    /// (for `Location` headers).
    static func parse(_ text: String, dropQuery: Bool = false) -> ImgurURL? {
        let bytes = Array(text.utf8)
        guard (1...2048).contains(bytes.count), bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        let lower = text.lowercased()
        let scheme: String
        if lower.hasPrefix("https://") {
            scheme = "https"
        } else if lower.hasPrefix("http://") {
            scheme = "http"
        } else {
            return nil
        }
        var rest = Substring(text.dropFirst(scheme.count + 3))
        if let cut = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            guard dropQuery else { return nil }
            rest = rest[..<cut]
        }
        let authority = rest.prefix { $0 != "/" }
        var path = String(rest.dropFirst(authority.count))
        if path.isEmpty { path = "/" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
            guard host.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return nil
            }
        } else {
            if let colon = authority.firstIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
            guard !host.isEmpty,
                host.allSatisfy({ ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") && $0.isASCII })
            else { return nil }
        }
        var port = scheme == "https" ? 443 : 80
        if let portText {
            guard (1...5).contains(portText.count), portText.allSatisfy({ $0.isASCII && $0.isNumber }),
                let p = Int(portText), (1...65535).contains(p)
            else { return nil }
            port = p
        }
        guard isSafePath(path) else { return nil }
        return ImgurURL(scheme: scheme, host: host.lowercased(), port: port, path: path)
    }

    static func isSafePath(_ path: String) -> Bool {
        guard path.hasPrefix("/") else { return false }
        let ok = path.utf8.allSatisfy { b in
            (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 47 || b == 46 || b == 95
                || b == 126 || b == 45
        }
        guard ok else { return false }
        if path == "/" { return true }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        // A trailing slash is allowed (an API base); empty, "." and ".." segments elsewhere are not.
        for (i, s) in segments.enumerated() where s.isEmpty || s == "." || s == ".." {
            if !(s.isEmpty && i == segments.count - 1) { return false }
        }
        return true
    }
}

/// The API base an `ImgurClient` talks to, and the rules derived from it for which image links
/// are acceptable.
struct ImgurEndpoint: Sendable {
    static let officialBase = "https://api.imgur.com"
    static let imageHost = "i.imgur.com"

    let url: ImgurURL
    /// Without a trailing slash.
    let base: String
    let isOfficial: Bool

    /// Parses an API base: `https://…`, or `http://` to a loopback host (a local stand-in), since
    /// the credential travels with every request.
    init(_ text: String) throws(AISyncError) {
        var trimmed = text
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let url = ImgurURL.parse(trimmed) else {
            throw AISyncError(
                .configuration, "'\(Self.printable(text))' is not a usable Imgur API URL",
                hint:
                    "Use https://api.imgur.com (the default) or the https:// URL of a proxy, without query or credentials"
            )
        }
        if url.scheme == "http",
            !HTTPHost.isLoopback(url.host.hasPrefix("[") ? String(url.host.dropFirst().dropLast()) : url.host)
        {
            throw AISyncError(
                .configuration,
                "refusing plain http:// to \(url.host) for the Imgur API: the credential would travel unencrypted",
                hint: "Use an https:// API URL (plain http is only allowed to localhost)")
        }
        self.url = url
        self.base = url.string
        self.isOfficial = url.scheme == "https" && url.host == "api.imgur.com" && url.isDefaultPort && url.path == "/"
    }

    /// An endpoint path below the base, e.g. "3/image".
    func url(_ path: String) -> String { "\(base)/\(path)" }

    /// Checks an image link and returns it normalised with the image id it names: an
    /// `i.imgur.com/{id}.{ext}` link (http is upgraded to https), or with a non-official base, a
    /// link on the base's own origin whose last path segment is `{id}.{ext}`.
    func imageLink(_ text: String) -> (link: String, id: String)? {
        guard let link = ImgurURL.parse(text) else { return nil }
        if link.host == Self.imageHost, link.isDefaultPort {
            guard let name = Self.imageFileName(link.path.dropFirst()) else { return nil }
            return ("https://\(Self.imageHost)/\(name.id).\(name.ext)", name.id)
        }
        guard !isOfficial, link.sameOrigin(url), let last = link.path.split(separator: "/").last,
            !link.path.hasSuffix("/"),
            let name = Self.imageFileName(last)
        else { return nil }
        return (link.string, name.id)
    }

    /// True when a redirect target (already parsed) is Imgur's placeholder for removed images.
    static func isRemovedPlaceholder(_ url: ImgurURL) -> Bool {
        url.path.split(separator: "/").last == "removed.png"
    }

    /// `{id}.{ext}` with a valid id and a 2-5 character alphanumeric extension.
    static func imageFileName(_ name: Substring) -> (id: String, ext: String)? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, isImageID(String(parts[0])), (2...5).contains(parts[1].utf8.count),
            parts[1].utf8.allSatisfy(isAlphanumeric)
        else { return nil }
        return (String(parts[0]), String(parts[1]))
    }

    static func isAlphanumeric(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122)
    }

    /// `^[A-Za-z0-9]{5,10}$`
    static func isImageID(_ s: String) -> Bool { (5...10).contains(s.utf8.count) && s.utf8.allSatisfy(isAlphanumeric) }

    /// `^[A-Za-z0-9]{5,40}$`
    static func isDeletehash(_ s: String) -> Bool {
        (5...40).contains(s.utf8.count) && s.utf8.allSatisfy(isAlphanumeric)
    }

    /// `type/subtype`, lowercase type, at most 100 characters.
    static func isMediaType(_ s: String) -> Bool {
        let parts = s.split(separator: "/", omittingEmptySubsequences: false)
        guard s.utf8.count <= 100, parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return false }
        return parts[0].utf8.allSatisfy { $0 >= 97 && $0 <= 122 }
            && parts[1].utf8.allSatisfy { isAlphanumeric($0) || $0 == 46 || $0 == 43 || $0 == 45 }
    }

    /// A short, printable rendering of an untrusted value for a message.
    static func printable(_ s: String, limit: Int = 80) -> String {
        var out = ""
        for scalar in s.unicodeScalars.prefix(limit) {
            out.unicodeScalars.append(scalar.value < 0x20 || scalar.value == 0x7F ? "?" : scalar)
        }
        return s.unicodeScalars.count > limit ? out + "…" : out
    }
}
