import AISyncCore
import AISyncFiles
import AISyncHTTP

/// A remote in an S3-compatible bucket (AWS S3, R2, B2, Wasabi, MinIO, Ceph RGW, SeaweedFS,
/// Garage), under a prefix: GetObject, PutObject (`If-None-Match: *` to create, `If-Match` to
/// replace a head), HeadObject, DeleteObject and ListObjectsV2, each signed with Signature V4
/// and the SHA-256 of its payload.
///
/// The remote's layout maps onto keys as it maps onto a WebDAV server's paths: `segments/D/1.seg`
/// is the key `PREFIX/segments/D/1.seg`. Folders are key prefixes, so nothing is made before a
/// write. ETags are opaque (a multipart upload's is not an MD5). Transient answers (`SlowDown`,
/// 5xx, 409 `ConditionalRequestConflict`, timeouts) are retried with backoff, honouring
/// `Retry-After`; every other error is one line (``S3ErrorMapping``).
public struct S3Remote: RemoteStorage {
    /// The bucket, prefix, endpoint, region and addressing.
    public let location: S3Location
    let transport: any HTTPTransport
    /// The access key, and where it was found (named in errors; the secret never is).
    let credentials: AWSCredentials
    let environment: AISyncEnvironment
    let maxAttempts: Int
    /// Keys a ListObjectsV2 page may hold; nil lets the server choose (1000 on AWS). Tests
    /// force small pages.
    let pageSize: Int?
    /// Which files go up in parts, and how big the parts are.
    let parts: S3PartPolicy

    /// `s3://bucket/prefix`, never with credentials.
    public var displayName: String {
        "s3://\(location.bucket)" + (location.prefix.isEmpty ? "" : "/\(location.prefix)")
    }
    /// Buckets list.
    public var canList: Bool { true }

    /// A remote at `location`, sending through `transport` and signing with `credentials`;
    /// each request is tried at most `maxAttempts` times, `environment` gives the clock that
    /// dates signatures and the backoff waits; files larger than `parts` says go up in parts.
    public init(
        location: S3Location, transport: any HTTPTransport, credentials: AWSCredentials, maxAttempts: Int = 5,
        pageSize: Int? = nil, parts: S3PartPolicy = .standard, environment: AISyncEnvironment = .live
    ) {
        self.parts = parts
        self.location = location
        self.transport = transport
        self.credentials = credentials
        self.maxAttempts = maxAttempts
        self.pageSize = pageSize
        self.environment = environment
    }

    // MARK: requests

    /// The `Host` a request carries, as the transport sends it (a default port left out):
    /// it is signed, so it must be the same.
    var signedHost: String {
        let host = location.requestHost
        let defaultPort = location.scheme == "https" ? ":443" : ":80"
        return host.hasSuffix(defaultPort) ? String(host.dropLast(defaultPort.count)) : host
    }

    /// Sends a signed request for `path` (a remote path; "" is the bucket under the prefix),
    /// retrying transient failures (up to `attempts` tries, the remote's own count by default);
    /// returns the final answer, whatever its status.
    func send(
        _ method: String, _ path: String, query: [(name: String, value: String)] = [],
        headers: [String: String] = [:], body: HTTPRequest.Body = .none, payloadHash: String = SigV4.emptyPayloadHash,
        downloadTo: String? = nil, maxBytes: Int64 = Int64(RemoteLimits.smallFile), attempts: Int? = nil
    ) async throws(AISyncError) -> HTTPResponse {
        if !path.isEmpty { try RemotePath.validate(path) }
        return try await Retrying.send(
            through: transport, maxAttempts: attempts ?? maxAttempts, environment: environment, downloadTo: downloadTo,
            maxBytes: maxBytes, isTransient: Self.isTransient
        ) { () throws(AISyncError) -> HTTPRequest in
            // Signed anew each time: a signature is dated, and a retry may come minutes later.
            var request = HTTPRequest(
                method: method, url: location.url(path, query: query), headers: headers, body: body)
            let signed = SigV4.sign(
                SigV4.Request(
                    method: method, path: location.objectPath(path), query: query, headers: [("host", signedHost)],
                    payloadHash: payloadHash),
                credentials: credentials.key, region: location.region, time: Timestamp(milliseconds: environment.now()))
            for (name, value) in signed { request.headers[name] = value }
            return request
        }
    }

    /// 5xx (but 501), 429, 408, `SlowDown` whatever its status, and 409
    /// `ConditionalRequestConflict` (two conditional writes of one key at once): worth another try.
    static func isTransient(_ response: HTTPResponse) -> Bool {
        let status = response.status
        if status == 429 || status == 408 || (status >= 500 && status != 501) { return true }
        guard status == 409 || status == 503 || status == 400 else { return false }
        let code = S3XML.error(response.body)?.code
        return code == "ConditionalRequestConflict" || code == "SlowDown" || code == "RequestTimeout"
    }

    /// The one error for an answer the operation does not expect.
    func failure(_ response: HTTPResponse, _ action: String) -> AISyncError {
        if [301, 307, 400, 403].contains(response.status),
            let actual = S3ErrorMapping.otherRegion(response.headers, than: location.region)
        {
            return S3ErrorMapping.wrongRegion(
                bucket: location.bucket, actual: actual, region: location.region, cause: "HTTP \(response.status)")
        }
        if response.body.isEmpty {
            // HEAD answers have no body: only the status speaks.
            switch response.status {
            case 301, 307, 400:
                return AISyncError(
                    .configuration, "S3 answered \(response.status) to \(action) in bucket \(location.bucket)",
                    hint: "Check the remote's region (\(location.region)) and endpoint")
            case 403:
                return AISyncError(
                    .permission, "S3 refused the access key from \(credentials.source) to \(action)",
                    hint: "Check the key id and secret there, and the key's rights on bucket \(location.bucket)")
            default: break
            }
        }
        return S3ErrorMapping.error(
            status: response.status, body: response.body, action: action, bucket: location.bucket,
            keySource: credentials.source, region: location.region,
            retryAfter: Backoff.retryAfterDuration(response.headers["retry-after"]))
    }

    /// A 404 that means the bucket is missing, not the key.
    func isMissingBucket(_ response: HTTPResponse) -> Bool {
        response.status == 404 && S3XML.error(response.body)?.code == "NoSuchBucket"
    }

    // MARK: RemoteStorage

    /// GetObject of at most `maxBytes`; nil when there is no such key.
    public func read(_ path: String, maxBytes: Int) async throws(AISyncError) -> RemoteFile? {
        let response = try await send("GET", path, maxBytes: Int64(maxBytes))
        switch response.status {
        case 200: return RemoteFile(bytes: response.body, etag: response.headers["etag"])
        case 404 where !isMissingBucket(response): return nil
        default: throw failure(response, "read \(path)")
        }
    }

    /// GetObject streamed to `localPath`; false when there is no such key.
    public func download(_ path: String, to localPath: String, maxBytes: Int64) async throws(AISyncError) -> Bool {
        try await get(path, to: localPath, maxBytes: maxBytes) != nil
    }

    /// GetObject streamed to `localPath`, with the SHA-256 the transport computed on the way.
    public func downloadHashed(_ path: String, to localPath: String, maxBytes: Int64) async throws(AISyncError)
        -> SHA256Digest?
    {
        guard let response = try await get(path, to: localPath, maxBytes: maxBytes) else { return nil }
        return try Retrying.digest(of: response, at: localPath)
    }

    private func get(_ path: String, to localPath: String, maxBytes: Int64) async throws(AISyncError) -> HTTPResponse? {
        let response = try await send("GET", path, downloadTo: localPath, maxBytes: maxBytes)
        switch response.status {
        case 200: return response
        case 404 where !isMissingBucket(response): return nil
        default: throw failure(response, "download \(path)")
        }
    }

    /// PutObject of `bytes`, create-only or replacing an ETag as `condition` says.
    public func write(_ path: String, _ bytes: [UInt8], condition: WriteCondition) async throws(AISyncError)
        -> WriteResult
    {
        try await put(path, body: .bytes(bytes), payloadHash: SHA256.hash(bytes).hex, condition: condition)
    }

    /// PutObject of the file at `localPath`, streamed from disk (hashed first: the signature
    /// covers the payload's SHA-256); a file over the part policy's threshold goes up in parts.
    public func upload(_ path: String, from localPath: String, condition: WriteCondition) async throws(AISyncError)
        -> WriteResult
    {
        // Heads (replaced with a condition) are small: never in parts.
        if let size = Platform.stat(localPath)?.size, size > parts.threshold,
            condition == .always || condition == .createOnly
        {
            return try await uploadInParts(path, from: localPath, size: size, condition: condition)
        }
        let digest = try hashFile(localPath)
        return try await put(path, body: .file(localPath), payloadHash: digest.hex, condition: condition)
    }

    private func put(_ path: String, body: HTTPRequest.Body, payloadHash: String, condition: WriteCondition)
        async throws(AISyncError) -> WriteResult
    {
        var headers = ["Content-Type": "application/octet-stream"]
        switch condition {
        case .always: break
        case .createOnly: headers["If-None-Match"] = "*"
        case .replacing(let etag): headers["If-Match"] = etag
        }
        let response = try await send(
            "PUT", path, headers: headers, body: body, payloadHash: payloadHash, maxBytes: Int64(RemoteLimits.smallFile)
        )
        switch response.status {
        case 200, 201, 204: return .written(etag: response.headers["etag"])
        case 412: return .preconditionFailed
        // If-Match on a key that is gone: S3 answers 404 NoSuchKey; the condition did not hold.
        case 404 where condition != .always && !isMissingBucket(response): return .preconditionFailed
        default: throw failure(response, "upload \(path)")
        }
    }

    /// The files directly in `directory` (ListObjectsV2 with a delimiter, page after page),
    /// sorted by name; nil when no key is under it (S3 has no empty folders). Keys the server
    /// lists outside the folder or with names aisync never writes are ignored.
    public func list(_ directory: String) async throws(AISyncError) -> [RemoteEntry]? {
        var entries: [RemoteEntry] = []
        var any = false
        try await listPages(directory) { page, prefix in
            any = any || !page.objects.isEmpty || !page.commonPrefixes.isEmpty
            for object in page.objects {
                guard let name = Self.childName(object.key, under: prefix) else { continue }
                entries.append(RemoteEntry(name: name, etag: object.etag))
            }
        }
        return any ? entries.sorted { $0.name < $1.name } : nil
    }

    /// The folders directly in `directory` (the listing's common prefixes); empty when there
    /// are none.
    public func subfolders(_ directory: String) async throws(AISyncError) -> [String]? {
        var names: [String] = []
        try await listPages(directory) { page, prefix in
            for common in page.commonPrefixes {
                guard common.hasSuffix("/"), let name = Self.childName(String(common.dropLast()), under: prefix)
                else { continue }
                names.append(name)
            }
        }
        return names.sorted()
    }

    /// The most pages one listing follows: 10,000 pages of 1,000 keys is ten million files,
    /// more than any aisync remote holds; a server that never ends its listing is hostile.
    static let maxPages = 10_000

    /// A query item of a listing request.
    typealias QueryItem = (name: String, value: String)

    /// Follows a listing page after page: `page` is given the query items that continue after
    /// the page before (none for the first) and returns those for the next, nil after the
    /// last. A continuation given twice, or more than ``maxPages`` pages, is a hostile
    /// server's listing of `what`.
    func followPages(_ what: String, _ page: ([QueryItem]) async throws(AISyncError) -> [QueryItem]?)
        async throws(AISyncError)
    {
        var after: [QueryItem] = []
        var seen: Set<String> = []
        for _ in 0..<Self.maxPages {
            guard let next = try await page(after) else { return }
            guard seen.insert(next.map { "\($0.name)=\($0.value)" }.joined(separator: "\u{0}")).inserted else {
                throw AISyncError(
                    .damagedData, "S3 repeated a continuation token while listing \(what)",
                    hint: "The server's listing loops; report it to its operator")
            }
            after = next
        }
        throw AISyncError(
            .damagedData, "S3 listed more than \(Self.maxPages) pages of \(what)",
            hint: "The server's listing does not end; report it to its operator")
    }

    /// Calls `body` with each ListObjectsV2 page of the keys directly under `directory`/, and
    /// the key prefix they share.
    func listPages(_ directory: String, _ body: (S3XML.ListPage, String) throws(AISyncError) -> Void)
        async throws(AISyncError)
    {
        if !directory.isEmpty { try RemotePath.validate(directory) }
        let prefix = location.key(directory.isEmpty ? "" : directory + "/")
        try await followPages("\(displayName)/\(directory)") { (after) async throws(AISyncError) -> [QueryItem]? in
            var query: [QueryItem] = [("list-type", "2"), ("prefix", prefix), ("delimiter", "/")]
            if let pageSize { query.append(("max-keys", String(pageSize))) }
            let response = try await send("GET", "", query: query + after, maxBytes: 16 << 20)
            guard response.status == 200 else { throw failure(response, "list \(directory.isEmpty ? "/" : directory)") }
            guard let page = S3XML.listPage(response.body) else {
                throw unreadable("listing", "\(displayName)/\(directory)")
            }
            try body(page, prefix)
            guard page.isTruncated, let next = page.nextContinuationToken else { return nil }
            return [("continuation-token", next)]
        }
    }

    /// The name of `key` if it is a file name aisync writes directly under `prefix`
    /// (letters, digits, `.`, `-`; not `.` or `..`); nil otherwise (keys are untrusted).
    static func childName(_ key: String, under prefix: String) -> String? {
        guard key.hasPrefix(prefix) else { return nil }
        let name = key.dropFirst(prefix.count)
        return RemotePath.isFileName(name) ? String(name) : nil
    }

    /// HeadObject: whether the key exists, and its size.
    public func presence(_ path: String) async throws(AISyncError) -> RemotePresence {
        let response = try await send("HEAD", path)
        switch response.status {
        case 200:
            return .present(
                size: response.headers["content-length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) })
        case 404: return .missing
        default: throw failure(response, "look for \(path)")
        }
    }

    /// HeadObject: whether the key exists.
    public func exists(_ path: String) async throws(AISyncError) -> Bool {
        try await presence(path) != .missing
    }

    /// HeadBucket: the bucket exists, the key may use it, and it is in the region requests are
    /// signed for. AWS names a bucket's region in `x-amz-bucket-region` on every HeadBucket
    /// answer, even a 200 (moto too); a store that names none is taken at its word.
    public func checkBucket() async throws(AISyncError) {
        let response = try await send("HEAD", "")
        if let actual = S3ErrorMapping.otherRegion(response.headers, than: location.region) {
            throw S3ErrorMapping.wrongRegion(
                bucket: location.bucket, actual: actual, region: location.region, cause: "HTTP \(response.status)")
        }
        switch response.status {
        case 200: return
        case 404: throw S3ErrorMapping.noSuchBucket(location.bucket, cause: "HTTP 404")
        default: throw failure(response, "open the bucket")
        }
    }

    /// Whether the store honours conditional writes, found by writing a probe under the
    /// prefix twice with `If-None-Match: *` (the second must be refused with 412), then
    /// deleting it. aisync stays correct where conditions are ignored (every file has a
    /// single writer), as on nginx; this tells the user which kind of store it is.
    public func honoursConditionalWrites() async throws(AISyncError) -> Bool {
        let probe = ".aisync-probe/\(environment.randomHex(bytes: 8))"
        guard case .written = try await write(probe, Array("probe".utf8), condition: .createOnly) else {
            throw AISyncError(
                .damagedData, "S3 refused to create a new probe file under \(displayName) (412 to a key never written)",
                hint: "Check the remote's endpoint: is it an S3-compatible server?")
        }
        let again: Result<WriteResult, AISyncError>
        do { again = .success(try await write(probe, Array("again".utf8), condition: .createOnly)) } catch {
            again = .failure(error)
        }
        try? await delete(probe)
        return try again.get() == .preconditionFailed
    }

    /// DeleteObject; a missing key is not an error (S3 answers 204 either way).
    public func delete(_ path: String) async throws(AISyncError) {
        let response = try await send("DELETE", path)
        switch response.status {
        case 200, 202, 204: return
        case 404 where !isMissingBucket(response): return
        default: throw failure(response, "delete \(path)")
        }
    }
}
