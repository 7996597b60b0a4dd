import AISyncCore
import AISyncFiles
import AISyncHTTP

/// A remote on an HTTP server: WebDAV (PROPFIND/MKCOL/PUT/GET/DELETE with ETags) or plain
/// HTTP (GET/PUT/DELETE, no listing) such as nginx's dav module.
///
/// Transient failures (connection refused, timeouts, 423, 429, 5xx) are retried with
/// exponential backoff and jitter; every other status maps to one clear error.
public struct HTTPRemote: RemoteStorage {
    /// The server's checked URL and kind (WebDAV or plain HTTP).
    public let location: RemoteLocation
    let transport: any HTTPTransport
    let credentials: Credentials?
    /// Waits between retries and draws their jitter (tests record the waits).
    let environment: AISyncEnvironment
    let maxAttempts: Int
    /// Collections known to exist on the server (shared by copies of this value), so an
    /// upload checks its folder once per process, not once per file.
    let collections = KnownCollections()

    /// The base URL, for messages; it never contains credentials (``RemoteLocation`` refuses them).
    public var displayName: String { location.base }
    /// True for WebDAV (PROPFIND); a plain HTTP server cannot list.
    public var canList: Bool { location.kind == .webdav }

    /// A remote at `location`, sending through `transport` (``LiveTransport/make(timeoutSeconds:redirects:)`` for real servers).
    /// `credentials`, when given, go in an `Authorization` header on every request; each
    /// request is tried at most `maxAttempts` times in all, and `environment` supplies the
    /// backoff waits and their jitter.
    public init(
        location: RemoteLocation, transport: any HTTPTransport, credentials: Credentials?,
        maxAttempts: Int = 5, environment: AISyncEnvironment = .live
    ) {
        self.location = location
        self.transport = transport
        self.credentials = credentials
        self.maxAttempts = maxAttempts
        self.environment = environment
    }

    func url(_ path: String) -> String { path.isEmpty ? location.base + "/" : "\(location.base)/\(path)" }

    /// Sends with authentication and retries; returns the final response (any status).
    func send(
        _ method: String, _ path: String, headers: [String: String] = [:], body: HTTPRequest.Body = .none,
        downloadTo: String? = nil, maxBytes: Int64 = Int64(RemoteLimits.smallFile)
    ) async throws(AISyncError) -> HTTPResponse {
        if !path.isEmpty { try RemotePath.validate(path.hasSuffix("/") ? String(path.dropLast()) : path) }
        var request = HTTPRequest(method: method, url: url(path), headers: headers, body: body)
        if let credentials { request.headers["Authorization"] = credentials.basicAuthorization }
        return try await Retrying.send(
            through: transport, maxAttempts: maxAttempts, environment: environment, downloadTo: downloadTo,
            maxBytes: maxBytes, isTransient: { Self.isTransient($0.status) }, build: { request })
    }

    static func isTransient(_ status: Int) -> Bool {
        status == 423 || status == 429 || status == 408
            || (status >= 500 && status != 501 && status != 505 && status != 507)
    }

    /// The one error for a status that is not what the operation expects.
    func failure(_ response: HTTPResponse, _ method: String, _ path: String) -> AISyncError {
        let site = "\(method) \(url(path))"
        switch response.status {
        case 401:
            return AISyncError(
                .permission, "\(location.host) refused the credentials (401 Unauthorized) for \(site)",
                hint: credentials == nil
                    ? "Set AISYNC_USER and AISYNC_PASSWORD, or add \(location.host) to ~/.netrc"
                    : "Check AISYNC_USER/AISYNC_PASSWORD or ~/.netrc",
                remedy: .provideCredentials(host: location.host))
        case 403:
            return AISyncError(
                .permission, "\(location.host) forbids \(site) (403 Forbidden)",
                hint: "Check that this account may write to that folder")
        case 404:
            return AISyncError(
                .configuration, "\(url(path)) does not exist (404 Not Found)", hint: "Check the remote's URL",
                remedy: .checkRemoteURL)
        case 405 where method == "PROPFIND":
            return AISyncError(
                .configuration, "\(location.host) is not a WebDAV server (PROPFIND not allowed)",
                hint: "If it is a plain HTTP server, add the remote as plain HTTP", remedy: .addPlainHTTPRemote)
        case 405, 501:
            return AISyncError(
                .configuration, "\(location.host) does not allow \(method) (\(response.status))",
                hint: "Check the server's WebDAV/upload configuration")
        case 423:
            return AISyncError(
                .temporary, "\(url(path)) is locked on the server (423 Locked)", hint: "Try again later",
                remedy: .retryLater,
                retryAfter: Backoff.retryAfterDuration(response.headers["retry-after"]))
        case 429:
            return AISyncError(
                .temporary, "\(location.host) is rate limiting requests (429)", hint: "Try again later",
                remedy: .retryLater,
                retryAfter: Backoff.retryAfterDuration(response.headers["retry-after"]))
        case 507:
            return AISyncError(
                .io, "\(location.host) is out of storage (507 Insufficient Storage)",
                hint: "Free space or raise the quota on the server")
        case 300...399:
            // A redirect reaches us only when the redirect policy refused it (another host,
            // or too many): the remote's URL is not where the data is.
            let target = response.headers["location"].map { " to \(String($0.prefix(200)))" } ?? ""
            return AISyncError(
                .configuration,
                "\(location.host) redirected \(site)\(target) (\(response.status)); redirects are followed only on the same host",
                hint: "If the remote moved, remove it and add it again with its new URL", remedy: .checkRemoteURL)
        case 500...599:
            return AISyncError(
                .unavailable, "\(location.host) failed with \(response.status) for \(site)",
                hint: "Try again later; check the server's logs",
                remedy: .retryLater, retryAfter: Backoff.retryAfterDuration(response.headers["retry-after"]))
        default:
            return AISyncError(.other, "\(location.host) answered \(response.status) to \(site)")
        }
    }

    /// GETs `path` (at most `maxBytes` bytes) with its ETag, unsettled when the file changed
    /// moments before the answer (``etagSettled(_:)``); nil on 404 or 410. Other failures are
    /// retried when transient, then thrown as an ``AISyncError``.
    public func read(_ path: String, maxBytes: Int) async throws(AISyncError) -> RemoteFile? {
        let response = try await send("GET", path, maxBytes: Int64(maxBytes))
        switch response.status {
        case 200:
            return RemoteFile(
                bytes: response.body, etag: response.headers["etag"], etagSettled: Self.etagSettled(response.headers))
        case 404, 410: return nil
        default: throw failure(response, "GET", path)
        }
    }

    /// GETs `path` straight into the file `localPath`, never holding it in memory; false on
    /// 404 or 410. A body over `maxBytes` bytes is refused.
    public func download(_ path: String, to localPath: String, maxBytes: Int64) async throws(AISyncError) -> Bool {
        try await get(path, to: localPath, maxBytes: maxBytes) != nil
    }

    /// GETs `path` into `localPath` like ``download(_:to:maxBytes:)`` and returns the SHA-256
    /// the transport computed while writing it (the file is hashed when it computed none).
    public func downloadHashed(_ path: String, to localPath: String, maxBytes: Int64) async throws(AISyncError)
        -> SHA256Digest?
    {
        guard let response = try await get(path, to: localPath, maxBytes: maxBytes) else { return nil }
        return try Retrying.digest(of: response, at: localPath)
    }

    /// The 200 answer of a GET streamed to `localPath`; nil on 404 or 410.
    private func get(_ path: String, to localPath: String, maxBytes: Int64) async throws(AISyncError) -> HTTPResponse? {
        let response = try await send("GET", path, downloadTo: localPath, maxBytes: maxBytes)
        switch response.status {
        case 200: return response
        case 404, 410: return nil
        default: throw failure(response, "GET", path)
        }
    }

    /// PUTs `bytes` at `path`, as `If-None-Match: *` or `If-Match` for `condition`, creating
    /// parent collections on WebDAV as needed.
    public func write(_ path: String, _ bytes: [UInt8], condition: WriteCondition) async throws(AISyncError)
        -> WriteResult
    {
        try await put(path, body: .bytes(bytes), condition: condition)
    }

    /// PUTs the local file `localPath` at `path`, streamed from disk, like ``write(_:_:condition:)``.
    public func upload(_ path: String, from localPath: String, condition: WriteCondition) async throws(AISyncError)
        -> WriteResult
    {
        try await put(path, body: .file(localPath), condition: condition)
    }

    private func put(_ path: String, body: HTTPRequest.Body, condition: WriteCondition) async throws(AISyncError)
        -> WriteResult
    {
        var headers = ["Content-Type": "application/octet-stream"]
        switch condition {
        case .always: break
        case .createOnly: headers["If-None-Match"] = "*"
        case .replacing(let etag) where Self.isWeak(etag):
            // `If-Match` compares strongly (RFC 9110 §13.1.1), so a weak ETag never matches:
            // Apache's mod_dav_fs hands out weak ETags for a file changed within the last
            // second, and a push right after a push would always fail with 412. Compare
            // weakly with a HEAD instead, then replace unconditionally: files replaced this
            // way have a single writer, and conditions are only a safety net (docs/DESIGN.md §5.2).
            let current = try await send("HEAD", path)
            switch current.status {
            case 200:
                guard let now = current.headers["etag"], Self.weakMatch(now, etag) else { return .preconditionFailed }
            case 404, 410:
                return .preconditionFailed
            default:
                throw failure(current, "HEAD", path)
            }
        case .replacing(let etag): headers["If-Match"] = etag
        }
        if case .file = body, location.kind == .webdav {
            // A large body is sent once: its collection is made sure of first.
            try await ensureParent(of: path)
        }
        var response = try await send("PUT", path, headers: headers, body: body)
        if response.status == 409 || (response.status == 404 && location.kind == .webdav) {
            // WebDAV needs the parent collections first (RFC 4918 §9.7.1); also when one we
            // knew of was deleted since.
            collections.forget(Self.parent(of: path))
            try await makeCollections(for: path)
            response = try await send("PUT", path, headers: headers, body: body)
        }
        switch response.status {
        case 200, 201, 204:
            collections.insert(Self.parent(of: path))
            return .written(etag: response.headers["etag"])
        case 412: return .preconditionFailed
        case 409:
            // Still no parent after creating every collection below the root: the root itself is missing.
            throw missingRoot(response.status)
        case 404 where location.kind == .webdav:
            throw missingRoot(response.status)
        default: throw failure(response, "PUT", path)
        }
    }

    /// The remote's folder does not exist on the server. aisync creates collections below it,
    /// never the root itself, so a mistyped URL is reported instead of silently created.
    func missingRoot(_ status: Int) -> AISyncError {
        AISyncError(
            .configuration, "the folder \(location.base)/ does not exist on \(location.host) (\(status) on upload)",
            hint: "Check the remote's URL, or create the folder on the server first", remedy: .checkRemoteURL)
    }

    /// The collection `path` is in ("" at the root).
    static func parent(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
    }

    /// Makes sure the collection `path` goes in exists before a large body is sent, so the
    /// body is not sent to a 409 and again: one MKCOL of the parent (201 made, 405 there),
    /// all of them when its own parent is missing (409), none when it is known to exist.
    func ensureParent(of path: String) async throws(AISyncError) {
        let parent = Self.parent(of: path)
        guard !parent.isEmpty, !collections.contains(parent) else { return }
        let response = try await send("MKCOL", parent + "/")
        switch response.status {
        case 200, 201, 405: break
        case 409: try await makeCollections(for: path)
        default:
            // A lost race (Apache answers 403) is fine if the collection exists now.
            guard try await collectionExists(parent + "/") else { throw failure(response, "MKCOL", parent + "/") }
        }
        collections.insert(parent)
    }

    func makeCollections(for path: String) async throws(AISyncError) {
        let parts = path.split(separator: "/").dropLast()
        var prefix = ""
        for part in parts {
            prefix += (prefix.isEmpty ? "" : "/") + part
            let response = try await send("MKCOL", prefix + "/")
            switch response.status {
            case 200, 201, 405: continue  // 405: it exists already
            // RFC 4918 §9.3.1: no parent
            case 409 where prefix == String(parts[parts.startIndex]): throw missingRoot(409)
            default:
                // Two devices creating the same collection at once: Apache answers the loser
                // 403. If the collection exists now, that is all we wanted.
                if try await collectionExists(prefix + "/") { continue }
                throw failure(response, "MKCOL", prefix + "/")
            }
        }
    }

    func collectionExists(_ path: String) async throws(AISyncError) -> Bool {
        guard location.kind == .webdav else { return false }
        let response = try await send(
            "PROPFIND", path, headers: ["Depth": "0", "Content-Type": "application/xml; charset=utf-8"],
            body: .bytes(Self.propfindBody))
        return response.status == 207
    }

    /// Whether an answer's ETag can later show that the file is unchanged: not when the file's
    /// `Last-Modified` is less than two seconds before the answer's `Date`. A server whose ETag
    /// holds whole seconds (WsgiDAV: inode-mtime-size) keeps it through a same-size rewrite in
    /// the same second, and the `Date` may be taken up to a second after the file was looked
    /// at. Without both dates it is settled: the servers that send neither have finer ETags.
    static func etagSettled(_ headers: [String: String]) -> Bool {
        guard let modified = headers["last-modified"].flatMap(HTTPDate.seconds),
            let date = headers["date"].flatMap(HTTPDate.seconds)
        else { return true }
        return date - modified >= 2
    }

    /// A listed `getetag` as the entity-tag a GET or PUT gives in its `ETag` header: WsgiDAV
    /// lists it without the quotes RFC 4918 §15.6 asks for, and a listed ETag that never equals
    /// the one a pull stored would make every pull read every head again.
    static func entityTag(_ listed: String) -> String {
        let tag = listed.trimmingCharacters(in: .whitespaces)
        return tag.hasPrefix("\"") || tag.hasPrefix("W/\"") ? tag : "\"\(tag)\""
    }

    /// `W/"…"`: a weak validator (RFC 9110 §8.8.1).
    static func isWeak(_ etag: String) -> Bool { etag.hasPrefix("W/") }

    /// The weak comparison of two ETags: equal opaque tags, weak or not.
    static func weakMatch(_ a: String, _ b: String) -> Bool {
        func opaque(_ e: String) -> Substring { e.hasPrefix("W/") ? e.dropFirst(2) : Substring(e) }
        return opaque(a) == opaque(b)
    }

    static let propfindBody = Array(
        """
        <?xml version="1.0" encoding="utf-8"?>
        <D:propfind xmlns:D="DAV:"><D:prop><D:getetag/><D:resourcetype/></D:prop></D:propfind>
        """.utf8)

    /// The files directly in `directory` (a `Depth: 1` PROPFIND), sorted by name; nil when it
    /// does not exist, and always nil on a plain HTTP server. Entries the server names
    /// outside `directory` or with unsafe names are ignored.
    public func list(_ directory: String) async throws(AISyncError) -> [RemoteEntry]? {
        guard let responses = try await propfind(directory) else { return nil }
        var entries: [RemoteEntry] = []
        for r in responses where !r.isCollection {
            // Hrefs are untrusted: only a plain file name directly inside `directory` counts.
            guard let name = Self.childName(href: r.href, directory: directory, base: location.base) else { continue }
            entries.append(RemoteEntry(name: name, etag: r.etag.map(Self.entityTag)))
        }
        return entries.sorted { $0.name < $1.name }
    }

    /// The collections directly in `directory`, by the same PROPFIND and the same checks as
    /// ``list(_:)``; empty when it does not exist, nil when the server cannot list.
    public func subfolders(_ directory: String) async throws(AISyncError) -> [String]? {
        guard location.kind == .webdav else { return nil }
        guard let responses = try await propfind(directory) else { return [] }
        return responses.filter(\.isCollection).compactMap { r in
            var href = r.href
            while href.hasSuffix("/") { href.removeLast() }
            return Self.childName(href: href, directory: directory, base: location.base)
        }.sorted()
    }

    /// A `Depth: 1` PROPFIND of `directory`: nil when it does not exist or this is plain HTTP.
    private func propfind(_ directory: String) async throws(AISyncError) -> [WebDAVMultistatus.Response]? {
        guard location.kind == .webdav else { return nil }
        let response = try await send(
            "PROPFIND", directory + "/", headers: ["Depth": "1", "Content-Type": "application/xml; charset=utf-8"],
            body: .bytes(Self.propfindBody), maxBytes: 64 << 20)
        switch response.status {
        case 207: break
        case 404: return nil
        default: throw failure(response, "PROPFIND", directory + "/")
        }
        guard let responses = WebDAVMultistatus.parse(response.body) else {
            throw AISyncError(
                .damagedData, "\(location.host) sent an unreadable PROPFIND answer for \(url(directory))/")
        }
        return responses
    }

    /// The file name `href` names if it is a safe name directly under `<base>/<directory>/`
    /// (an absolute path, or a URL on the same host); nil for anything else.
    static func childName(href: String, directory: String, base: String) -> String? {
        func split(_ url: String) -> (authority: String?, path: String) {
            guard let range = url.range(of: "://") else { return (nil, url) }
            let rest = url[range.upperBound...]
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            return (rest[..<slash].lowercased(), String(rest[slash...]))
        }
        let (baseAuthority, basePathRaw) = split(base)
        let (hrefAuthority, hrefPathRaw) = split(href)
        if let hrefAuthority, hrefAuthority != baseAuthority { return nil }
        guard let basePath = basePathRaw.removingPercentEncoding, let path = hrefPathRaw.removingPercentEncoding,
            path.hasPrefix("/")
        else { return nil }
        var prefix = basePath
        while prefix.hasSuffix("/") { prefix.removeLast() }
        prefix += "/\(directory)/"
        guard path.hasPrefix(prefix) else { return nil }
        let name = path.dropFirst(prefix.count)
        return RemotePath.isFileName(name) ? String(name) : nil
    }

    /// Whether `path` exists and its Content-Length, by a HEAD request.
    public func presence(_ path: String) async throws(AISyncError) -> RemotePresence {
        let response = try await send("HEAD", path)
        switch response.status {
        case 200:
            return .present(
                size: response.headers["content-length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) })
        case 404, 410: return .missing
        default: throw failure(response, "HEAD", path)
        }
    }

    /// Whether `path` exists, by a HEAD request (200 yes, 404/410 no, anything else throws).
    public func exists(_ path: String) async throws(AISyncError) -> Bool {
        let response = try await send("HEAD", path)
        switch response.status {
        case 200: return true
        case 404, 410: return false
        default: throw failure(response, "HEAD", path)
        }
    }

    /// DELETEs `path`; a file that is already gone (404, 410) is not an error.
    public func delete(_ path: String) async throws(AISyncError) {
        let response = try await send("DELETE", path)
        switch response.status {
        case 200, 202, 204, 404, 410: return
        default: throw failure(response, "DELETE", path)
        }
    }
}
