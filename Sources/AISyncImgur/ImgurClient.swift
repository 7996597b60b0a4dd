import AISyncCore
import AISyncFiles
import AISyncHTTP
import Foundation

/// Talks to the Imgur API v3 (https://apidocs.imgur.com): uploads an image, deletes one, and
/// downloads what a link serves (docs/DESIGN.md §7).
///
/// - Upload: `POST {api}/3/image`, `multipart/form-data` with the parts `image` (the file's bytes,
///   with a filename and media type), `type=file`, and `title` / `description` when given. The
///   body is written to a temporary file and sent from there, so a big image is streamed, not
///   held in memory twice; it has a `Content-Length` (no chunked upload).
/// - Delete: `DELETE {api}/3/image/{deletehash}` with a client id (anonymous uploads), or
///   `DELETE {api}/3/image/{id}` with a bearer token (the account owns the image). `data: true`
///   and 404 (already gone) both count as deleted.
/// - Download: `GET` of the image link, without the credential (it goes to the CDN, not the
///   API). A redirect to `removed.png` means Imgur removed the image; 404/410 means it is missing.
///
/// Failures are thrown as `ImgurError`, whose `kind` tells the sync engine what to do
/// (see `ImgurError`). Over capacity (403/500 with Imgur's "over capacity" message, the HTML
/// over-capacity page), other 5xx, and unreachable servers are retried `maxAttempts` times with
/// exponential backoff (`Backoff.delay`, or a short `Retry-After`); 429 is never retried in place
/// (a retry storm would only extend the penalty): it is thrown at once as `.rateLimited` with the
/// time uploads may resume. An upload that timed out is not retried either, since Imgur may have
/// stored it (`ImgurError.mayHaveUploaded`).
///
/// Every response's rate-limit headers are parsed (`ImgurRateLimit`); successful calls return
/// them, failures carry them in `ImgurError.rateLimit`.
///
/// Messages include Imgur's own text and never the credential or a deletehash: both are
/// redacted from anything the server echoes.
public struct ImgurClient: Sendable {
    /// What downloading an image link found.
    public enum DownloadOutcome: Sendable, Equatable {
        /// The bytes were written to the destination: their hash and size.
        case downloaded(sha256: SHA256Digest, size: Int64)
        /// Imgur removed the image (the link redirects to `removed.png`); nothing was written.
        case removed
        /// The link answers 404/410; nothing was written.
        case missing
    }

    /// The API's base URL, `https://api.imgur.com` unless replaced (`--api`,
    /// `AISYNC_IMGUR_API`); an invalid one makes every request fail with a configuration error.
    public let apiBase: String
    /// How requests authenticate; sent only to ``apiBase``, never to image links.
    public let credential: ImgurCredential
    let transport: any HTTPTransport
    /// Clock, backoff sleep and jitter, boundaries and temp names (tests pass a seeded one).
    let environment: AISyncEnvironment
    let maxAttempts: Int
    let temporaryDirectory: String
    private let endpoint: Result<ImgurEndpoint, AISyncError>

    /// The largest API answer read (upload and delete answers are a few KB).
    static let maxAnswerBytes: Int64 = 1 << 20
    /// Redirects followed while downloading a link.
    static let maxRedirects = 3
    /// A `Retry-After` longer than this is not waited for in place: the operation fails as
    /// unavailable and is retried on the next push.
    static let maxInPlaceWaitMilliseconds = 30_000

    /// A client for `apiBase`. The multipart body of an upload is written to
    /// `environment.temporaryDirectory`.
    public init(
        apiBase: String = "https://api.imgur.com", credential: ImgurCredential, transport: any HTTPTransport,
        environment: AISyncEnvironment = .live, maxAttempts: Int = 4
    ) {
        self.apiBase = apiBase
        self.credential = credential
        self.transport = transport
        self.environment = environment
        self.maxAttempts = max(1, maxAttempts)
        var dir = environment.temporaryDirectory
        while dir.count > 1 && dir.hasSuffix("/") { dir.removeLast() }
        self.temporaryDirectory = dir.isEmpty ? "." : dir
        self.endpoint = Result { () throws(AISyncError) -> ImgurEndpoint in try ImgurEndpoint(apiBase) }
    }

    /// Checks an API base given by the user (`aisync imgur enable --api URL`, `AISYNC_IMGUR_API`):
    /// https, or plain http to localhost only; no credentials, query or fragment.
    public static func validateAPIBase(_ url: String) throws(AISyncError) {
        _ = try ImgurEndpoint(url)
    }

    /// True when talking to api.imgur.com itself (links must then be on i.imgur.com).
    public var isOfficialAPI: Bool { (try? endpoint.get())?.isOfficial ?? false }

    // MARK: - Upload

    /// Uploads the file at `path` and returns what Imgur stored, with the rate-limit figures of
    /// the answer. `mediaType` is the file's type (`image/png`); `title` and `description` are
    /// sent when given.
    /// `fileStem`, when given, names the upload (`<stem>.<ext>`; Imgur keeps it as the image's
    /// `name`), so an upload whose answer was lost can be found among an account's images.
    public func upload(
        fileAt path: String, mediaType: String, title: String?, description: String?, fileStem: String? = nil
    )
        async throws(ImgurError) -> (upload: ImgurUpload, rateLimit: ImgurRateLimit?)
    {
        let endpoint = try resolvedEndpoint()
        try checkCredential()
        guard ImgurEndpoint.isMediaType(mediaType) else {
            throw fail(
                .other,
                AISyncError(.usage, "'\(ImgurEndpoint.printable(mediaType))' is not a media type Imgur can be told"))
        }
        var boundary = makeBoundary()
        while [title, description].contains(where: { $0?.contains(boundary) == true }) { boundary = makeBoundary() }
        let temp = "\(temporaryDirectory)/aisync-imgur-upload-\(environment.temporarySuffix()).tmp"
        defer { _ = Platform.unlink(temp) }
        let length: Int64
        do {
            let filename = Self.filename(for: mediaType)
            let named =
                fileStem.map { stem in stem + "." + (filename.split(separator: ".").last.map(String.init) ?? "bin") }
                ?? filename
            length = try Self.writeMultipart(
                to: temp, boundary: boundary, file: path, filename: named,
                mediaType: mediaType, title: title, description: description)
        } catch {
            throw fail(.other, error)
        }
        let request = HTTPRequest(
            method: "POST", url: endpoint.url("3/image"),
            headers: [
                "Authorization": credential.authorizationHeader,
                "Content-Type": "multipart/form-data; boundary=\(boundary)",
                "Content-Length": String(length),
                "Accept": "application/json",
            ], body: .file(temp))
        let response = try await send(
            request, what: "the upload", isUpload: true, downloadTo: nil, maxBytes: Self.maxAnswerBytes)
        return try uploaded(response, endpoint: endpoint)
    }

    /// What Imgur stored, read from the answer to an upload, with the answer's rate-limit figures.
    private func uploaded(_ response: HTTPResponse, endpoint: ImgurEndpoint) throws(ImgurError)
        -> (upload: ImgurUpload, rateLimit: ImgurRateLimit?)
    {
        let rateLimit = ImgurRateLimit.parse(headers: response.headers, now: now())
        let answer = ImgurAnswer(response.body, secrets: secrets())
        guard (200..<300).contains(response.status) else {
            throw failure(response, answer: answer, operation: .upload)
        }
        guard let json = answer.json else {
            throw fail(
                .damaged,
                AISyncError(
                    .damagedData, "Imgur's upload answer is not JSON (\(response.status))",
                    hint: "Nothing was recorded; the upload stays pending and is retried on the next push"),
                response: response)
        }
        if json["success"]?.boolValue == false {
            var effective = response
            if let status = json["status"]?.intValue, (400...599).contains(status) { effective.status = Int(status) }
            throw failure(effective, answer: answer, operation: .upload)
        }
        guard let data = json["data"] else {
            throw fail(
                .damaged,
                AISyncError(
                    .damagedData, "Imgur's upload answer has no data" + (answer.message.map { " (\($0))" } ?? ""),
                    hint: "Nothing was recorded; the upload stays pending and is retried on the next push"),
                response: response)
        }
        do {
            let upload = try ImgurUpload.parse(data, endpoint: endpoint)
            return (upload, rateLimit)
        } catch {
            throw fail(.damaged, error, response: response)
        }
    }

    // MARK: - Account images

    /// One page (50) of the account's images with their `name`s, newest first
    /// (`GET /3/account/me/images/{page}`, Bearer only): how an upload whose answer was lost is
    /// found again. A Client-ID cannot list anything; it gets an empty list.
    public func accountImages(page: Int) async throws(ImgurError) -> [(upload: ImgurUpload, name: String?)] {
        guard case .bearer = credential else { return [] }
        let endpoint = try resolvedEndpoint()
        try checkCredential()
        let request = HTTPRequest(
            method: "GET", url: endpoint.url("3/account/me/images/\(max(0, page))"),
            headers: [
                "Authorization": credential.authorizationHeader, "Accept": "application/json",
            ])
        let response = try await send(
            request, what: "listing the account's images", isUpload: false, downloadTo: nil, maxBytes: 8 << 20)
        let answer = ImgurAnswer(response.body, secrets: secrets())
        guard (200..<300).contains(response.status) else {
            throw failure(response, answer: answer, operation: .download("the account's image list"))
        }
        guard let items = answer.json?["data"]?.arrayValue else {
            throw fail(
                .damaged, AISyncError(.damagedData, "Imgur's list of account images is not what the API sends"),
                response: response)
        }
        var result: [(upload: ImgurUpload, name: String?)] = []
        for item in items {
            guard let upload = try? ImgurUpload.parse(item, endpoint: endpoint) else { continue }
            result.append((upload, item["name"]?.stringValue))
        }
        return result
    }

    // MARK: - Delete

    /// Deletes an image the way the credential allows: by `deletehash` with a client id
    /// (anonymous uploads), by `id` with a bearer token (the account's own images). Returns
    /// normally when Imgur deleted it or it was already gone (404).
    @discardableResult
    public func delete(id: String, deletehash: String?) async throws(ImgurError) -> ImgurRateLimit? {
        switch credential {
        case .clientID:
            guard let deletehash else {
                throw fail(
                    .other,
                    AISyncError(
                        .configuration,
                        "cannot delete Imgur image \(ImgurEndpoint.printable(id)) with a client id: no deletehash was recorded",
                        hint: "Delete it on imgur.com, or set AISYNC_IMGUR_TOKEN for the account that owns it"))
            }
            return try await delete(deletehash: deletehash, label: id)
        case .bearer:
            return try await delete(id: id)
        }
    }

    /// `DELETE /3/image/{deletehash}` (works for anonymous uploads with a client id).
    @discardableResult
    public func delete(deletehash: String) async throws(ImgurError) -> ImgurRateLimit? {
        try await delete(deletehash: deletehash, label: nil)
    }

    /// `DELETE /3/image/{id}` (needs the bearer token of the account that owns the image).
    @discardableResult
    public func delete(id: String) async throws(ImgurError) -> ImgurRateLimit? {
        guard ImgurEndpoint.isImageID(id) else {
            throw fail(
                .damaged,
                AISyncError(
                    .damagedData, "the recorded Imgur image id '\(ImgurEndpoint.printable(id))' is malformed",
                    hint: "Check the store for damage", remedy: .checkStore))
        }
        return try await performDelete(target: id, label: "image \(id)")
    }

    private func delete(deletehash: String, label id: String?) async throws(ImgurError) -> ImgurRateLimit? {
        guard ImgurEndpoint.isDeletehash(deletehash) else {
            // Never echo it: a deletehash is a secret, even a malformed one.
            throw fail(
                .damaged,
                AISyncError(
                    .damagedData,
                    "the recorded Imgur deletehash\(id.map { " of image \(ImgurEndpoint.printable($0))" } ?? "") is malformed",
                    hint: "Check the store for damage", remedy: .checkStore))
        }
        return try await performDelete(
            target: deletehash,
            label: id.map { "image \(ImgurEndpoint.printable($0))" } ?? "an image by its deletehash",
            extraSecrets: [deletehash])
    }

    private func performDelete(target: String, label: String, extraSecrets: [String] = []) async throws(ImgurError)
        -> ImgurRateLimit?
    {
        let endpoint = try resolvedEndpoint()
        try checkCredential()
        let request = HTTPRequest(
            method: "DELETE", url: endpoint.url("3/image/\(target)"),
            headers: [
                "Authorization": credential.authorizationHeader,
                "Accept": "application/json",
            ])
        let response = try await send(
            request, what: "deleting \(label)", isUpload: false, downloadTo: nil,
            maxBytes: Self.maxAnswerBytes, extraSecrets: extraSecrets)
        let rateLimit = ImgurRateLimit.parse(headers: response.headers, now: now())
        let answer = ImgurAnswer(response.body, secrets: secrets() + extraSecrets)
        switch response.status {
        case 404, 410:
            return rateLimit
        case 200..<300:
            if response.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return rateLimit }
            guard let json = answer.json else {
                throw fail(
                    .damaged,
                    AISyncError(.damagedData, "Imgur's answer to deleting \(label) is not JSON (\(response.status))"),
                    response: response)
            }
            if json["success"]?.boolValue == false || json["data"]?.boolValue == false {
                if let status = json["status"]?.intValue, status == 404 { return rateLimit }
                throw fail(
                    .other,
                    AISyncError(
                        .other, "Imgur did not delete \(label)" + (answer.message.map { ": \($0)" } ?? ""),
                        hint: "Try again later, or delete it on imgur.com"),
                    response: response)
            }
            return rateLimit
        default:
            throw failure(response, answer: answer, operation: .delete(label))
        }
    }

    // MARK: - Download

    /// Downloads what `link` serves to `path` (at most `maxBytes`), without sending the
    /// credential. `.removed` when Imgur redirects to its `removed.png` placeholder, `.missing`
    /// on 404/410; in both cases nothing is left at `path`.
    ///
    /// Give the client a transport that hands that hop back (`LiveTransport.make(redirects:
    /// .imgur)`); one that follows it anyway hides it, and the caller's check of the bytes
    /// against the recorded hash still refuses the placeholder.
    public func download(link: String, to path: String, maxBytes: Int64) async throws(ImgurError) -> DownloadOutcome {
        let endpoint = try resolvedEndpoint()
        guard let checked = endpoint.imageLink(link) else {
            throw fail(
                .damaged,
                AISyncError(
                    .damagedData,
                    "the recorded Imgur link '\(ImgurEndpoint.printable(link))' is not an Imgur image link",
                    hint: "Check the store for damage", remedy: .checkStore))
        }
        var url = checked.link
        var hops = 0
        while true {
            let request = HTTPRequest(method: "GET", url: url, headers: ["Accept": "image/*,video/*;q=0.9,*/*;q=0.5"])
            let response = try await send(
                request, what: "downloading Imgur image \(checked.id)", isUpload: false,
                downloadTo: path, maxBytes: maxBytes)
            switch response.status {
            case 200..<300:
                return try downloaded(response, from: url, to: path)
            case 404, 410:
                _ = Platform.unlink(path)
                return .missing
            case 301, 302, 303, 307, 308:
                _ = Platform.unlink(path)
                guard let location = response.headers["location"], let current = ImgurURL.parse(url),
                    let target = Self.resolve(location, against: current)
                else {
                    throw fail(
                        .damaged,
                        AISyncError(.damagedData, "\(url) redirects (\(response.status)) without a usable Location"),
                        response: response)
                }
                if ImgurEndpoint.isRemovedPlaceholder(target) { return .removed }
                guard hops < Self.maxRedirects, let next = endpoint.imageLink(target.string) else {
                    throw fail(
                        .damaged,
                        AISyncError(
                            .damagedData,
                            "\(url) redirects to an unexpected place (\(ImgurEndpoint.printable(target.string)))"),
                        response: response)
                }
                hops += 1
                url = next.link
            default:
                _ = Platform.unlink(path)
                throw failure(
                    response, answer: ImgurAnswer(response.body, secrets: secrets()), operation: .download(checked.id))
            }
        }
    }

    /// The image a 2xx answer wrote to `path`, hashed; a web page in its place is refused.
    private func downloaded(_ response: HTTPResponse, from url: String, to path: String) throws(ImgurError)
        -> DownloadOutcome
    {
        if let type = response.headers["content-type"]?.lowercased(), type.hasPrefix("text/html") {
            _ = Platform.unlink(path)
            throw fail(
                .damaged, AISyncError(.damagedData, "\(url) served a web page instead of the image"), response: response
            )
        }
        do {
            let (digest, size) = try SHA256.hash(fileAt: path)
            return .downloaded(sha256: digest, size: size)
        } catch {
            throw fail(.other, AISyncError(.io, "cannot read the downloaded file \(path)", cause: "\(error)"))
        }
    }

    /// Resolves a `Location` value (absolute, protocol-relative or absolute-path) against the
    /// URL that answered with it; query and fragment are dropped.
    static func resolve(_ location: String, against current: ImgurURL) -> ImgurURL? {
        let value = location.trimmingCharacters(in: .whitespaces)
        if value.hasPrefix("//") { return ImgurURL.parse(current.scheme + ":" + value, dropQuery: true) }
        if value.hasPrefix("/") { return ImgurURL.parse(current.origin + value, dropQuery: true) }
        return ImgurURL.parse(value, dropQuery: true)
    }

    // MARK: - Sending with retries

    /// Sends `request`, retrying over-capacity answers, 5xx and unreachable servers with
    /// backoff; returns the first answer that is not one of those (any status).
    private func send(
        _ request: HTTPRequest, what: String, isUpload: Bool, downloadTo: String?, maxBytes: Int64,
        extraSecrets: [String] = []
    ) async throws(ImgurError) -> HTTPResponse {
        let host = ImgurURL.parse(request.url, dropQuery: true)?.host ?? "Imgur"
        var attempt = 0
        while true {
            attempt += 1
            let response: HTTPResponse
            do {
                response = try await transport.send(request, downloadTo: downloadTo, maxBytes: maxBytes)
            } catch {
                if error.code == .damagedData { throw fail(.damaged, error, extraSecrets: extraSecrets) }
                guard error.code == .unavailable || error.code == .temporary else {
                    throw fail(.other, error, extraSecrets: extraSecrets)
                }
                // An upload is never re-sent in place after a transport failure: the request may
                // have reached Imgur (a dropped connection looks like an unreachable server), and
                // a second POST would leave a copy behind. It stays pending for the next push.
                if isUpload {
                    throw fail(
                        .unavailable,
                        AISyncError(
                            .unavailable, "\(host) did not answer \(what); Imgur may have stored the image anyway",
                            hint: "The upload stays pending and is retried on the next push", cause: error.message),
                        mayHaveUploaded: true, extraSecrets: extraSecrets)
                }
                guard attempt < maxAttempts else {
                    throw fail(
                        .unavailable,
                        AISyncError(
                            .unavailable,
                            "cannot reach \(host) for \(what) after \(attempt) attempt\(attempt == 1 ? "" : "s")",
                            hint: "Check the network; pending work is retried on the next push", cause: error.message),
                        extraSecrets: extraSecrets)
                }
                await sleep(Backoff.delay(attempt: attempt - 1, unit: random()))
                continue
            }
            let answer = ImgurAnswer(response.body, secrets: secrets() + extraSecrets)
            guard Self.isTransient(response, answer) else { return response }
            let retryAfter = Backoff.retryAfter(response.headers["retry-after"])
            guard attempt < maxAttempts, (retryAfter ?? 0) <= Self.maxInPlaceWaitMilliseconds else {
                let detail = answer.message.map { ": \($0)" } ?? (response.body.isEmpty ? ", empty answer" : "")
                let state = answer.isOverCapacity ? "is over capacity" : "is failing"
                throw fail(
                    .unavailable,
                    AISyncError(
                        .unavailable,
                        "Imgur \(state) (\(response.status)\(detail)) for \(what), \(attempt) attempt\(attempt == 1 ? "" : "s")",
                        hint: "Try again later; pending work stays queued for the next push"),
                    response: response, extraSecrets: extraSecrets)
            }
            await sleep(retryAfter ?? Backoff.delay(attempt: attempt - 1, unit: random()))
        }
    }

    /// Over capacity (any status, JSON message or HTML page) and 5xx other than 501/505 are
    /// worth retrying; 429 never is.
    static func isTransient(_ response: HTTPResponse, _ answer: ImgurAnswer) -> Bool {
        if response.status == 429 { return false }
        if (200..<300).contains(response.status) { return answer.isHTML && answer.isOverCapacity }
        if (300..<400).contains(response.status) { return false }
        if answer.isOverCapacity { return true }
        return (500...599).contains(response.status) && response.status != 501 && response.status != 505
    }

    enum Operation {
        case upload
        case delete(String)
        case download(String)
    }

    /// The one error for a final answer that is not a success.
    func failure(_ response: HTTPResponse, answer: ImgurAnswer, operation: Operation) -> ImgurError {
        let status = response.status
        let rateLimit = ImgurRateLimit.parse(headers: response.headers, now: now())
        let said = answer.message.map { ": \($0)" } ?? ""
        let what: String
        switch operation {
        case .upload: what = "the upload"
        case .delete(let label): what = "deleting \(label)"
        case .download(let id): what = "downloading Imgur image \(id)"
        }
        let tooFast = answer.message?.lowercased().contains("too fast") == true
        if status == 429 || (status == 400 && tooFast) || (status == 403 && rateLimit?.isExhausted == true) {
            return rateLimited(response, rateLimit: rateLimit, what: what, said: said)
        }
        switch status {
        case 401, 403:
            let hint: String
            switch credential {
            case .clientID:
                hint =
                    "Check AISYNC_IMGUR_CLIENT_ID (or set AISYNC_IMGUR_TOKEN); a client id comes from registering an application at https://api.imgur.com/oauth2/addclient"
            case .bearer:
                hint =
                    "Check AISYNC_IMGUR_TOKEN (access tokens expire after a month; get a new one), or use AISYNC_IMGUR_CLIENT_ID"
            }
            return fail(
                .auth,
                AISyncError(
                    .permission, "Imgur refused the \(credential.kindName) for \(what) (\(status)\(said))", hint: hint,
                    remedy: .provideImgurCredential),
                response: response)
        case let s where [400, 413, 415, 422].contains(s) && isUploadOperation(operation):
            let message = answer.message ?? (status == 413 ? "the file is too large" : "the file was refused")
            return fail(
                .rejected(message: message),
                AISyncError(
                    .other, "Imgur refused the image (\(status): \(message))",
                    hint:
                        "This image is marked failed (Imgur accepts JPEG, PNG, GIF, APNG, TIFF and common videos, up to its size limits); the others go on"
                ),
                response: response)
        case 404 where isUploadOperation(operation):
            return fail(
                .other,
                AISyncError(
                    .configuration, "\(apiBase) has no Imgur upload endpoint (404 for /3/image\(said))",
                    hint: "Check the Imgur API URL (the store's Imgur settings, or AISYNC_IMGUR_API)"),
                response: response)
        case 500...599:
            return fail(
                .unavailable,
                AISyncError(.unavailable, "Imgur failed (\(status)\(said)) for \(what)", hint: "Try again later"),
                response: response)
        default:
            return fail(.other, AISyncError(.other, "Imgur answered \(status) to \(what)\(said)"), response: response)
        }
    }

    /// The error for an answer that says the rate limit is reached: when to try again, from the
    /// server's figures or Retry-After, else Imgur's documented penalty.
    private func rateLimited(_ response: HTTPResponse, rateLimit: ImgurRateLimit?, what: String, said: String)
        -> ImgurError
    {
        let status = response.status
        let t = now()
        // What the server said (rate-limit headers, else Retry-After); nil when it said nothing.
        let serverReset =
            rateLimit?.retryAt(now: t)
            ?? Backoff.retryAfter(response.headers["retry-after"]).map { t + Int64($0 / 1000) }
        let resetAt = serverReset ?? t + ImgurRateLimit.defaultUserPenalty
        let minutes = max(1, (resetAt - t + 59) / 60)
        return fail(
            .rateLimited(resetAt: resetAt),
            AISyncError(
                .temporary, "Imgur is rate limiting \(what) (\(status)\(said))",
                hint:
                    "Try again after \(Timestamp(milliseconds: resetAt * 1000).iso8601) (in about \(minutes) minute\(minutes == 1 ? "" : "s")); pending uploads stay queued",
                remedy: .retryLater, retryAfter: serverReset.map { .seconds(max(0, $0 - t)) }),
            response: response)
    }

    private func isUploadOperation(_ operation: Operation) -> Bool {
        if case .upload = operation { return true }
        return false
    }

    // MARK: - Errors

    /// Builds an `ImgurError`, scrubbing the credential (and any extra secret) from every text.
    func fail(
        _ kind: ImgurError.Kind, _ error: AISyncError, response: HTTPResponse? = nil, mayHaveUploaded: Bool = false,
        extraSecrets: [String] = []
    ) -> ImgurError {
        let secrets = secrets() + extraSecrets
        func scrub(_ s: String?) -> String? {
            guard var s else { return nil }
            for secret in secrets where secret.count >= 4 { s = s.replacingOccurrences(of: secret, with: "•••") }
            return s
        }
        var clean = error
        clean.message = scrub(error.message) ?? ""
        clean.hint = scrub(error.hint)
        clean.cause = scrub(error.cause)
        var kind = kind
        if case .rejected(let message) = kind { kind = .rejected(message: scrub(message) ?? "") }
        return ImgurError(
            kind, clean, rateLimit: response.flatMap { ImgurRateLimit.parse(headers: $0.headers, now: now()) },
            status: response?.status, mayHaveUploaded: mayHaveUploaded)
    }

    private func secrets() -> [String] { [credential.secret] }

    private func resolvedEndpoint() throws(ImgurError) -> ImgurEndpoint {
        switch endpoint {
        case .success(let e): return e
        case .failure(let error): throw fail(.other, error)
        }
    }

    private func checkCredential() throws(ImgurError) {
        guard credential.isWellFormed else {
            throw fail(
                .auth,
                AISyncError(
                    .configuration, "\(credential.variableName) is not a valid Imgur \(credential.kindName)",
                    hint: "It must be 1-512 visible ASCII characters without spaces", remedy: .provideImgurCredential))
        }
    }

    // MARK: - Multipart body

    /// A fresh multipart boundary: 128 random bits, so no image's bytes are likely to hold it.
    func makeBoundary() -> String { "aisync-" + environment.randomHex(bytes: 16) }

    // MARK: - Environment

    /// Unix seconds (Imgur's rate-limit headers and `ImgurState` count in seconds).
    func now() -> Int64 { environment.now() / 1000 }

    /// Backoff wait, through the environment.
    func sleep(_ milliseconds: Int) async { await environment.sleep(milliseconds) }

    /// Jitter in [0, 1) for `Backoff.delay`.
    func random() -> Double { environment.randomUnit() }

    /// A neutral file name for the `image` part (never the local path, which may say more than
    /// the user wants to publish).
    static func filename(for mediaType: String) -> String {
        let ext: String
        switch mediaType.lowercased() {
        case "image/png", "image/apng": ext = "png"
        case "image/jpeg", "image/jpg": ext = "jpg"
        case "image/gif": ext = "gif"
        case "image/webp": ext = "webp"
        case "image/tiff": ext = "tiff"
        case "image/heic": ext = "heic"
        case "image/bmp": ext = "bmp"
        case "video/mp4": ext = "mp4"
        case "video/webm": ext = "webm"
        case "video/quicktime": ext = "mov"
        default: ext = "bin"
        }
        return "image.\(ext)"
    }

    /// Writes the multipart body (image, type=file, title, description) to `temp`, copying the
    /// file in 1 MiB chunks; returns the body's length.
    static func writeMultipart(
        to temp: String, boundary: String, file: String, filename: String, mediaType: String,
        title: String?, description: String?
    ) throws(AISyncError) -> Int64 {
        guard let info = Platform.stat(file) else {
            throw FileIO.ioError("read", file, errno: Platform.errno == 0 ? ENOENT : Platform.errno)
        }
        guard info.isRegular else {
            throw AISyncError(.io, "\(file) is not a regular file", hint: "Imgur uploads take a file")
        }
        let input = Platform.open(file, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw FileIO.ioError("read", file, errno: Platform.errno) }
        defer { Platform.close(input) }
        let output = Platform.open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw FileIO.ioError("write", temp, errno: Platform.errno) }
        defer { Platform.close(output) }
        var written: Int64 = 0
        func put(_ bytes: [UInt8]) throws(AISyncError) {
            let ok = bytes.withUnsafeBytes { Platform.writeAll(output, $0) }
            guard ok else { throw FileIO.ioError("write", temp, errno: Platform.errno) }
            written += Int64(bytes.count)
        }
        func field(_ name: String, _ value: String) throws(AISyncError) {
            try put(
                Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n".utf8)
                    + Array(value.utf8) + Array("\r\n".utf8))
        }
        try put(
            Array(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"\(filename)\"\r\nContent-Type: \(mediaType)\r\n\r\n"
                    .utf8))
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { Platform.read(input, into: $0) }
            guard let n else { throw FileIO.ioError("read", file, errno: Platform.errno) }
            if n == 0 { break }
            let ok = buffer.withUnsafeBytes { Platform.writeAll(output, UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            guard ok else { throw FileIO.ioError("write", temp, errno: Platform.errno) }
            written += Int64(n)
        }
        try put(Array("\r\n".utf8))
        try field("type", "file")
        if let title { try field("title", title) }
        if let description { try field("description", description) }
        try put(Array("--\(boundary)--\r\n".utf8))
        return written
    }
}
