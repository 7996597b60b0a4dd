import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncHTTP
@testable import AISyncImgur
@testable import AISyncTesting

/// ImgurClient, ImgurCredential, ImgurRateLimit over a scripted in-memory transport (no network):
/// request shapes, the documented response envelope, every error shape Imgur is known to send,
/// retries and rate limits, hostile answers, deletion, and removed-image detection.
///
/// Note (Swift 6.3.1 miscompile): no closures inside `#expect` nested in other closures; test
/// bodies stay at the top level, errors are caught with do/catch, values go into `let`s first.
@Suite("ImgurClientTests")
struct ImgurClientTests {
    // MARK: - Fakes

    /// The scripted transport and sleep recorder of AISyncTesting, under this suite's names.
    typealias FakeImgur = ScriptedTransport
    typealias SleepLog = SleepRecorder

    /// A scripted transport that fails once its script is spent (no request goes unplanned).
    static func fakeImgur(
        _ script: [FakeImgur.Step], fallback: FakeImgur.Step = .fail(AISyncError(.other, "script exhausted"))
    )
        -> FakeImgur
    { FakeImgur(script, fallback: fallback) }

    static let now: Int64 = 1_700_000_000
    static let clientSecret = "c0ffee1234abcd9"
    static let tokenSecret = "5c3118ebb73fbb275945ab340be60b610a3216d6"
    static let clientID = ImgurCredential.clientID(clientSecret)
    static let bearer = ImgurCredential.bearer(tokenSecret)

    static func respond(_ status: Int, _ body: String = "", headers: [String: String] = [:]) -> FakeImgur.Step {
        .respond(HTTPResponse(status: status, headers: headers, body: Array(body.utf8)), download: nil)
    }

    static func makeClient(
        _ transport: FakeImgur, sleeps: SleepLog, credential: ImgurCredential = clientID,
        apiBase: String = "https://api.imgur.com", tempDir: String, maxAttempts: Int = 4
    ) -> ImgurClient {
        ImgurClient(
            apiBase: apiBase, credential: credential, transport: transport,
            environment: environment(sleeps: sleeps, tempDir: tempDir), maxAttempts: maxAttempts)
    }

    /// A seeded environment whose clock is stopped at `now` (Unix seconds), whose sleeps are
    /// recorded, and whose random source always gives 2^63 (jitter unit 0.5), so backoff delays
    /// are exact. Boundaries and temp names then repeat, which is fine: a client in these tests
    /// uploads one file at a time, and each test has its own `tempDir`.
    static func environment(sleeps: SleepLog, tempDir: String) -> AISyncEnvironment {
        var environment = AISyncEnvironment.test(seed: 1, temporaryDirectory: tempDir)
        environment.now = { ImgurClientTests.now * 1000 }
        environment.sleep = { ms in await sleeps.record(ms) }
        environment.random = { 1 << 63 }
        return environment
    }

    static func makeTempDir() -> String {
        let dir = FileManager.default.temporaryDirectory.path + "/aisync-imgur-tests-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Bytes that exercise binary safety: every byte value, CR LF, and things that look like a boundary.
    static let imageBytes: [UInt8] =
        Array(0...255) + Array("\r\n--aisync-\r\n\r\n--\r\n".utf8) + Array(0...255).reversed()

    /// Writes `bytes` to a fresh file in `dir`.
    static func writeImage(_ dir: String, _ bytes: [UInt8] = imageBytes) -> String {
        let path = dir + "/picture.png"
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    /// Files left in the client's temporary directory other than the test's own image.
    static func leftovers(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter {
            $0 != "picture.png" && $0 != "download.bin"
        }.sorted()
    }

    /// A real upload answer (field set as Imgur sends it, slashes escaped as PHP does).
    static let successBody = #"""
        {"data":{"id":"MUkssj6","title":"A storybook page","description":"prompt: a fox reading","datetime":1668340126,"type":"image\/png","animated":false,"width":512,"height":384,"size":473831,"views":0,"bandwidth":0,"vote":null,"favorite":false,"nsfw":null,"section":null,"account_url":null,"account_id":0,"is_ad":false,"in_most_viral":false,"has_sound":false,"tags":[],"ad_type":0,"ad_url":"","edited":"0","in_gallery":false,"deletehash":"hdYnH1gKz9YTHfS","name":"","link":"https:\/\/i.imgur.com\/MUkssj6.png"},"success":true,"status":200}
        """#

    static let uploadHeaders = [
        "content-type": "application/json",
        "x-ratelimit-userlimit": "2000", "x-ratelimit-userremaining": "1990", "x-ratelimit-userreset": "1700003600",
        "x-ratelimit-clientlimit": "12500", "x-ratelimit-clientremaining": "12400",
        "x-post-rate-limit-limit": "1250", "x-post-rate-limit-remaining": "1249", "x-post-rate-limit-reset": "3528",
    ]

    /// `data` of an upload answer with some fields replaced (for hostile answers).
    static func uploadBody(replacing changes: [String: String]) -> String {
        var fields: [(String, String)] = [
            ("id", #""MUkssj6""#), ("type", #""image/png""#), ("width", "512"), ("height", "384"), ("size", "473831"),
            ("deletehash", #""hdYnH1gKz9YTHfS""#), ("link", #""https://i.imgur.com/MUkssj6.png""#),
        ]
        for (k, v) in changes {
            if let i = fields.firstIndex(where: { $0.0 == k }) { fields[i].1 = v } else { fields.append((k, v)) }
        }
        let data = fields.filter { $0.1 != "<absent>" }.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",")
        return #"{"data":{"# + data + #"},"success":true,"status":200}"#
    }

    /// Splits a multipart body into (header lines, content) parts; nil when it is malformed.
    static func multipartParts(_ body: [UInt8], boundary: String) -> [(headers: [String], content: [UInt8])]? {
        func find(_ needle: [UInt8], from start: Int) -> Int? {
            guard needle.count <= body.count else { return nil }
            var i = start
            while i + needle.count <= body.count {
                if body[i..<(i + needle.count)].elementsEqual(needle) { return i }
                i += 1
            }
            return nil
        }
        let opening = Array("--\(boundary)\r\n".utf8)
        guard body.starts(with: opening) else { return nil }
        let delimiter = Array("\r\n--\(boundary)".utf8)
        var parts: [(headers: [String], content: [UInt8])] = []
        var position = opening.count
        while true {
            guard let end = find(delimiter, from: position) else { return nil }
            let part = Array(body[position..<end])
            guard
                let split = (0..<max(0, part.count - 3)).first(where: {
                    part[$0] == 13 && part[$0 + 1] == 10 && part[$0 + 2] == 13 && part[$0 + 3] == 10
                })
            else {
                return nil
            }
            let headerText = String(decoding: part[0..<split], as: UTF8.self)
            parts.append((headerText.components(separatedBy: "\r\n"), Array(part[(split + 4)...])))
            position = end + delimiter.count
            let rest = Array(body[position...])
            if rest == Array("--\r\n".utf8) { return parts }
            guard rest.starts(with: Array("\r\n".utf8)) else { return nil }
            position += 2
        }
    }

    // MARK: - Credential

    @Test("Credentials: header values, environment preference, and no secret in any rendering")
    func credentials() {
        #expect(Self.clientID.authorizationHeader == "Client-ID \(Self.clientSecret)")
        #expect(Self.bearer.authorizationHeader == "Bearer \(Self.tokenSecret)")

        let both = ImgurCredential.fromEnvironment(["AISYNC_IMGUR_TOKEN": "tok123", "AISYNC_IMGUR_CLIENT_ID": "cid123"])
        #expect(both == .bearer("tok123"))
        let onlyID = ImgurCredential.fromEnvironment(["AISYNC_IMGUR_CLIENT_ID": "  cid123\n"])
        #expect(onlyID == .clientID("cid123"))
        let emptyToken = ImgurCredential.fromEnvironment([
            "AISYNC_IMGUR_TOKEN": " \n", "AISYNC_IMGUR_CLIENT_ID": "cid123",
        ])
        #expect(emptyToken == .clientID("cid123"))
        let none = ImgurCredential.fromEnvironment(["AISYNC_USER": "me"])
        #expect(none == nil)

        for credential in [Self.clientID, Self.bearer] {
            var dumped = ""
            dump(credential, to: &dumped)
            let renderings = [
                "\(credential)", String(reflecting: credential), credential.description, credential.debugDescription,
                dumped,
            ]
            for text in renderings {
                #expect(!text.contains(Self.clientSecret) && !text.contains(Self.tokenSecret), "\(text)")
            }
        }
        #expect("\(Self.bearer)".contains("AISYNC_IMGUR_TOKEN"))
        #expect("\(Self.clientID)".contains("AISYNC_IMGUR_CLIENT_ID"))
    }

    @Test("A credential that cannot travel in a header is refused before anything is sent")
    func malformedCredential() async {
        let dir = Self.makeTempDir()
        let image = Self.writeImage(dir)
        let transport = Self.fakeImgur([Self.respond(200, Self.successBody)])
        let sleeps = SleepLog()
        let client = Self.makeClient(transport, sleeps: sleeps, credential: .bearer("abc\r\nX-Evil: 1"), tempDir: dir)
        var caught: ImgurError?
        do {
            _ = try await client.upload(fileAt: image, mediaType: "image/png", title: nil, description: nil)
        } catch {
            caught = error
        }
        let sent = await transport.sent
        #expect(sent.isEmpty)
        #expect(caught?.kind == .auth)
        #expect(caught?.aisyncError.code == .configuration)
        #expect(caught.map { !$0.description.contains("X-Evil") } == true)
    }

    // MARK: - Upload request shape

    @Test("Upload sends POST /3/image as multipart: image (filename, type, exact bytes), type=file, title, description")
    func uploadRequestShape() async throws {
        let dir = Self.makeTempDir()
        let image = Self.writeImage(dir)
        let transport = Self.fakeImgur([Self.respond(200, Self.successBody, headers: Self.uploadHeaders)])
        let sleeps = SleepLog()
        let client = Self.makeClient(transport, sleeps: sleeps, tempDir: dir)
        let result = try await client.upload(
            fileAt: image, mediaType: "image/png", title: "A storybook page",
            description: "prompt: a fox reading\r\n--not a boundary")

        let sent = await transport.sent
        #expect(sent.count == 1)
        let request = try #require(sent.first).request
        #expect(request.method == "POST")
        #expect(request.url == "https://api.imgur.com/3/image")
        #expect(request.headers["Authorization"] == "Client-ID \(Self.clientSecret)")
        #expect(request.headers["Accept"] == "application/json")
        let contentType = try #require(request.headers["Content-Type"])
        #expect(contentType.hasPrefix("multipart/form-data; boundary="))
        let boundary = String(contentType.dropFirst("multipart/form-data; boundary=".count))
        #expect(boundary.count >= 30)
        guard case .file = request.body else {
            Issue.record("the body must be streamed from a file, not held in memory")
            return
        }
        let body = try #require(sent.first).body
        #expect(request.headers["Content-Length"] == String(body.count))

        let parts = try #require(Self.multipartParts(body, boundary: boundary))
        #expect(parts.count == 4)
        #expect(
            parts[0].headers == [
                "Content-Disposition: form-data; name=\"image\"; filename=\"image.png\"", "Content-Type: image/png",
            ])
        #expect(parts[0].content == Self.imageBytes)
        #expect(parts[1].headers == ["Content-Disposition: form-data; name=\"type\""])
        #expect(parts[1].content == Array("file".utf8))
        #expect(parts[2].headers == ["Content-Disposition: form-data; name=\"title\""])
        #expect(parts[2].content == Array("A storybook page".utf8))
        #expect(parts[3].headers == ["Content-Disposition: form-data; name=\"description\""])
        #expect(parts[3].content == Array("prompt: a fox reading\r\n--not a boundary".utf8))

        #expect(result.upload.id == "MUkssj6")
        #expect(Self.leftovers(dir).isEmpty, "the multipart temp file is removed")
    }

    @Test("Upload with a bearer token: Bearer header; no title or description parts when none are given")
    func uploadBearerMinimal() async throws {
        let dir = Self.makeTempDir()
        let image = Self.writeImage(dir, Array("GIF89a tiny".utf8))
        let transport = Self.fakeImgur([Self.respond(200, Self.successBody)])
        let sleeps = SleepLog()
        let client = Self.makeClient(transport, sleeps: sleeps, credential: Self.bearer, tempDir: dir)
        _ = try await client.upload(fileAt: image, mediaType: "image/gif", title: nil, description: nil)

        let sent = await transport.sent
        let request = try #require(sent.first).request
        #expect(request.headers["Authorization"] == "Bearer \(Self.tokenSecret)")
        let contentType = try #require(request.headers["Content-Type"])
        let boundary = String(contentType.dropFirst("multipart/form-data; boundary=".count))
        let firstBody = try #require(sent.first).body
        let parts = try #require(Self.multipartParts(firstBody, boundary: boundary))
        #expect(parts.count == 2)
        #expect(parts[0].headers.first == "Content-Disposition: form-data; name=\"image\"; filename=\"image.gif\"")
        #expect(parts[0].content == Array("GIF89a tiny".utf8))
        #expect(parts[1].content == Array("file".utf8))
    }

    @Test("A multi-megabyte image is streamed through the temp file byte for byte")
    func uploadLargeFile() async throws {
        let dir = Self.makeTempDir()
        let big = (0..<(3 << 20) + 17).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        let image = Self.writeImage(dir, big)
        let transport = Self.fakeImgur([Self.respond(200, Self.successBody)])
        let sleeps = SleepLog()
        let client = Self.makeClient(transport, sleeps: sleeps, tempDir: dir)
        _ = try await client.upload(fileAt: image, mediaType: "image/png", title: "t", description: nil)
        let sent = await transport.sent
        let first = try #require(sent.first)
        let contentType = try #require(first.request.headers["Content-Type"])
        let boundary = String(contentType.dropFirst("multipart/form-data; boundary=".count))
        let parts = try #require(Self.multipartParts(first.body, boundary: boundary))
        #expect(parts.first?.content == big)
        #expect(Self.leftovers(dir).isEmpty)
    }

    @Test("A missing local file is a local error and nothing is sent")
    func uploadMissingFile() async {
        let dir = Self.makeTempDir()
        let transport = Self.fakeImgur([])
        let sleeps = SleepLog()
        let client = Self.makeClient(transport, sleeps: sleeps, tempDir: dir)
        var caught: ImgurError?
        do {
            _ = try await client.upload(fileAt: dir + "/nope.png", mediaType: "image/png", title: nil, description: nil)
        } catch {
            caught = error
        }
        let sent = await transport.sent
        #expect(sent.isEmpty)
        #expect(caught?.kind == .other)
        #expect(caught?.aisyncError.code == .notFound)
        #expect(Self.leftovers(dir).isEmpty)
    }

    // MARK: - Success parsing

    @Test("A full Imgur upload answer is parsed, with every rate-limit header family")
    func uploadSuccessParsing() async throws {
        let dir = Self.makeTempDir()
        let image = Self.writeImage(dir)
        let transport = Self.fakeImgur([Self.respond(200, Self.successBody, headers: Self.uploadHeaders)])
        let sleeps = SleepLog()
        let client = Self.makeClient(transport, sleeps: sleeps, tempDir: dir)
        let result = try await client.upload(fileAt: image, mediaType: "image/png", title: nil, description: nil)
        let expected = ImgurUpload(
            id: "MUkssj6", link: "https://i.imgur.com/MUkssj6.png", deletehash: "hdYnH1gKz9YTHfS",
            size: 473831, width: 512, height: 384, type: "image/png")
        #expect(result.upload == expected)
        let rateLimit = try #require(result.rateLimit)
        #expect(rateLimit.user == ImgurRateLimit.Bucket(limit: 2000, remaining: 1990, resetAt: 1_700_003_600))
        #expect(rateLimit.client == ImgurRateLimit.Bucket(limit: 12500, remaining: 12400, resetAt: nil))
        #expect(rateLimit.post == ImgurRateLimit.Bucket(limit: 1250, remaining: 1249, resetAt: Self.now + 3528))
        #expect(rateLimit.remaining == 1249)
        #expect(!rateLimit.isExhausted)
        #expect(!"\(result.upload)".contains("hdYnH1gKz9YTHfS"), "the deletehash is a secret")
        let sleepsDone = await sleeps.delays
        #expect(sleepsDone.isEmpty)
    }

    @Test("An http://i.imgur.com link is accepted and recorded as https; null dimensions and no deletehash are fine")
    func uploadLinkNormalised() async throws {
        let dir = Self.makeTempDir()
        let image = Self.writeImage(dir)
        let body = Self.uploadBody(replacing: [
            "link": #""http:\/\/i.imgur.com\/MUkssj6.png""#, "width": "null", "height": "null",
            "deletehash": "<absent>",
        ])
        let transport = Self.fakeImgur([Self.respond(200, body)])
        let sleeps = SleepLog()
        let client = Self.makeClient(transport, sleeps: sleeps, credential: Self.bearer, tempDir: dir)
        let result = try await client.upload(fileAt: image, mediaType: "image/png", title: nil, description: nil)
        #expect(result.upload.link == "https://i.imgur.com/MUkssj6.png")
        #expect(result.upload.width == nil && result.upload.height == nil && result.upload.deletehash == nil)
    }

    @Test("Over capacity twice, then success: retried with backoff, then parsed")
    func uploadRecoversAfterRetries() async throws {
        let dir = Self.makeTempDir()
        let image = Self.writeImage(dir)
        let overCapacity =
            #"{"data":{"error":"Imgur is temporarily over capacity. Please try again later."},"success":false,"status":403}"#
        let transport = Self.fakeImgur([
            Self.respond(403, overCapacity), Self.respond(503), Self.respond(200, Self.successBody),
        ])
        let sleeps = SleepLog()
        let client = Self.makeClient(transport, sleeps: sleeps, tempDir: dir)
        let result = try await client.upload(fileAt: image, mediaType: "image/png", title: nil, description: nil)
        #expect(result.upload.id == "MUkssj6")
        let sent = await transport.sent
        #expect(sent.count == 3)
        #expect(sent.allSatisfy { $0.body == sent[0].body }, "each attempt sends the same body")
        let delays = await sleeps.delays
        #expect(delays == [Backoff.delay(attempt: 0, unit: 0.5), Backoff.delay(attempt: 1, unit: 0.5)])
        #expect(Self.leftovers(dir).isEmpty)
    }

    // MARK: - Error shapes

    enum Expected: Sendable, Equatable {
        case rateLimited(resetAt: Int64)
        case rejected
        case auth
        case unavailable
        case other
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var name: String
        var status: Int
        var headers: [String: String] = [:]
        var body: String = ""
        var expected: Expected
        /// How many requests the client makes (4 = retried to the limit).
        var requests: Int
        /// Imgur's own words that must reach the message.
        var says: String?
        /// The status the error reports when it differs from the HTTP one (Imgur's body `status`).
        var reportedStatus: Int?
        var testDescription: String { name }
    }

    static let errorCases: [ErrorCase] = [
        ErrorCase(
            name: "400 data.error string", status: 400,
            body:
                #"{"data":{"error":"Invalid URL (upload)","request":"\/3\/image","method":"POST"},"success":false,"status":400}"#,
            expected: .rejected, requests: 1, says: "Invalid URL (upload)"),
        ErrorCase(
            name: "400 data.error object: too big", status: 400,
            body:
                #"{"data":{"error":{"code":1002,"message":"File is over the size limit","type":"ImgurException","exception":[]},"request":"\/3\/image","method":"POST"},"success":false,"status":400}"#,
            expected: .rejected, requests: 1, says: "File is over the size limit"),
        ErrorCase(
            name: "400 data.error object: invalid type", status: 400,
            body:
                #"{"data":{"error":{"code":1003,"message":"File type invalid (1)","type":"ImgurException","exception":[]},"request":"\/3\/image","method":"POST"},"success":false,"status":400}"#,
            expected: .rejected, requests: 1, says: "File type invalid (1)"),
        ErrorCase(name: "413 from the CDN, no body", status: 413, expected: .rejected, requests: 1, says: "too large"),
        ErrorCase(
            name: "429 errors array, no data, no headers", status: 429,
            body:
                #"{"errors":[{"id":"legacy-api-78f9c8f745-s5j42/S6uT0TTUDU-25139224","code":"429","status":"Too Many Requests","detail":"Too Many Requests"}]}"#,
            expected: .rateLimited(resetAt: now + 3600), requests: 1, says: "Too Many Requests"),
        ErrorCase(
            name: "429 with the POST family (seconds until reset)", status: 429,
            headers: [
                "x-post-rate-limit-limit": "1250", "x-post-rate-limit-remaining": "0",
                "x-post-rate-limit-reset": "1800",
            ],
            body: #"{"errors":[{"code":"429","status":"Too Many Requests","detail":"Too Many Requests"}]}"#,
            expected: .rateLimited(resetAt: now + 1800), requests: 1, says: "Too Many Requests"),
        ErrorCase(
            name: "429 with the user family (unix reset)", status: 429,
            headers: [
                "x-ratelimit-userlimit": "2000", "x-ratelimit-userremaining": "0",
                "x-ratelimit-userreset": "1700002400",
                "x-ratelimit-clientlimit": "12500", "x-ratelimit-clientremaining": "9000",
            ],
            expected: .rateLimited(resetAt: 1_700_002_400), requests: 1),
        ErrorCase(
            name: "429 with both families: the spent budget decides", status: 429,
            headers: [
                "x-post-rate-limit-limit": "1250", "x-post-rate-limit-remaining": "17",
                "x-post-rate-limit-reset": "600",
                "x-ratelimit-userlimit": "2000", "x-ratelimit-userremaining": "0",
                "x-ratelimit-userreset": "1700005000",
            ],
            expected: .rateLimited(resetAt: 1_700_005_000), requests: 1),
        ErrorCase(
            name: "429 with both families spent: the later reset", status: 429,
            headers: [
                "x-post-rate-limit-remaining": "0", "x-post-rate-limit-reset": "7200",
                "x-ratelimit-userremaining": "0", "x-ratelimit-userreset": "1700005000",
            ],
            expected: .rateLimited(resetAt: now + 7200), requests: 1),
        ErrorCase(
            name: "400 uploading too fast is rate limiting", status: 400,
            body:
                #"{"data":{"error":"You are uploading too fast. Please wait 3 more minutes.","request":"\/3\/image","method":"POST"},"success":false,"status":400}"#,
            expected: .rateLimited(resetAt: now + 3600), requests: 1, says: "uploading too fast"),
        ErrorCase(
            name: "401 authentication required", status: 401,
            body:
                #"{"data":{"error":"Authentication required","request":"\/3\/image","method":"POST"},"success":false,"status":401}"#,
            expected: .auth, requests: 1, says: "Authentication required"),
        ErrorCase(
            name: "403 bad client id", status: 403,
            body:
                #"{"data":{"error":"Invalid client_id","request":"\/3\/image","method":"POST"},"success":false,"status":403}"#,
            expected: .auth, requests: 1, says: "Invalid client_id"),
        ErrorCase(
            name: "403 with a spent client budget is rate limiting", status: 403,
            headers: ["x-ratelimit-clientlimit": "12500", "x-ratelimit-clientremaining": "0"],
            body:
                #"{"data":{"error":"Forbidden","request":"\/3\/image","method":"POST"},"success":false,"status":403}"#,
            expected: .rateLimited(resetAt: now + 86400), requests: 1),
        ErrorCase(
            name: "403 over capacity (retried)", status: 403,
            body:
                #"{"data":{"error":"Imgur is temporarily over capacity. Please try again later."},"success":false,"status":403}"#,
            expected: .unavailable, requests: 4, says: "over capacity"),
        ErrorCase(
            name: "500 over capacity (retried)", status: 500,
            body:
                #"{"data":{"error":"Imgur is temporarily over capacity. Please try again later."},"success":false,"status":500}"#,
            expected: .unavailable, requests: 4, says: "over capacity"),
        ErrorCase(
            name: "500 errors array (retried)", status: 500,
            body:
                #"{"errors":[{"id":"legacy-api-x","code":"500","status":"Internal Server Error","detail":"Internal Server Error"}]}"#,
            expected: .unavailable, requests: 4, says: "Internal Server Error"),
        ErrorCase(
            name: "503 empty body (retried)", status: 503, expected: .unavailable, requests: 4, says: "empty answer"),
        ErrorCase(
            name: "503 HTML from the CDN (retried)", status: 503,
            body:
                "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\">\n<html><head><title>503 client read error</title></head><body><h1>Error 503 client read error</h1><p>Varnish cache server</p></body></html>",
            expected: .unavailable, requests: 4, says: "503 client read error"),
        ErrorCase(
            name: "200 with the HTML over-capacity page (retried)", status: 200,
            body:
                "<!doctype html>\n<html lang=\"en\"><head><title>Imgur overloaded. Hang in there with kittens</title></head><body><h1>Imgur is over capacity!</h1></body></html>",
            expected: .unavailable, requests: 4, says: "Imgur overloaded"),
        ErrorCase(
            name: "502 bad gateway (retried)", status: 502, body: "Bad Gateway", expected: .unavailable, requests: 4),
        ErrorCase(
            name: "200 with success false and data.error", status: 200,
            body:
                #"{"data":{"error":"No image data was sent to the upload api","request":"\/3\/image","method":"POST"},"success":false,"status":400}"#,
            expected: .rejected, requests: 1, says: "No image data was sent", reportedStatus: 400),
        ErrorCase(
            name: "404: not an Imgur API", status: 404, body: "<html><head><title>404 Not Found</title></head></html>",
            expected: .other, requests: 1, says: "404 Not Found"),
    ]

    @Test("Every error shape becomes one clear, classified error", arguments: errorCases)
    func uploadErrors(_ c: ErrorCase) async {
        let dir = Self.makeTempDir()
        let image = Self.writeImage(dir)
        let step = Self.respond(c.status, c.body, headers: c.headers)
        let transport = Self.fakeImgur([step, step, step, step, step, step])
        let sleeps = SleepLog()
        let client = Self.makeClient(transport, sleeps: sleeps, tempDir: dir)
        var caught: ImgurError?
        do {
            _ = try await client.upload(fileAt: image, mediaType: "image/png", title: "t", description: "d")
            Issue.record("\(c.name): expected a failure")
        } catch {
            caught = error
        }
        let sent = await transport.sent
        let delays = await sleeps.delays
        let error = caught
        #expect(sent.count == c.requests, "\(c.name)")
        #expect(delays.count == c.requests - 1, "\(c.name): one backoff between attempts, none for 429")
        let kind: Expected?
        switch error?.kind {
        case .rateLimited(let at)?: kind = .rateLimited(resetAt: at)
        case .rejected?: kind = .rejected
        case .auth?: kind = .auth
        case .unavailable?: kind = .unavailable
        case .other?: kind = .other
        case .damaged?, nil: kind = nil
        }
        #expect(kind == c.expected, "\(c.name): \(String(describing: error))")
        let text = error?.description ?? ""
        if let says = c.says { #expect(text.contains(says), "\(c.name): \(text)") }
        #expect(!text.contains(Self.clientSecret))
        let code = error?.aisyncError.code
        switch c.expected {
        case .rateLimited: #expect(code == .temporary)
        case .auth:
            #expect(code == .permission)
            #expect(text.contains("AISYNC_IMGUR_CLIENT_ID"))
        case .unavailable: #expect(code == .unavailable)
        case .rejected:
            if case .rejected(let message)? = error?.kind, let says = c.says { #expect(message.contains(says)) }
        case .other: break
        }
        #expect(error?.status == (c.reportedStatus ?? c.status))
        #expect(Self.leftovers(dir).isEmpty)
    }

    @Test("A rate-limited error carries the figures of the answer")
    func rateLimitedCarriesFigures() async {
        let dir = Self.makeTempDir()
        let image = Self.writeImage(dir)
        let transport = Self.fakeImgur([
            Self.respond(
                429, "",
                headers: [
                    "x-post-rate-limit-limit": "1250", "x-post-rate-limit-remaining": "0",
                    "x-post-rate-limit-reset": "90",
                ])
        ])
        let sleeps = SleepLog()
        let client = Self.makeClient(transport, sleeps: sleeps, tempDir: dir)
        var caught: ImgurError?
        do {
            _ = try await client.upload(fileAt: image, mediaType: "image/png", title: nil, description: nil)
        } catch {
            caught = error
        }
        #expect(caught?.retryAt == Self.now + 90)
        #expect(caught?.rateLimit?.post == ImgurRateLimit.Bucket(limit: 1250, remaining: 0, resetAt: Self.now + 90))
        #expect(
            caught?.aisyncError.hint?.contains("2023-11-14T22:14:50") == true,
            "\(String(describing: caught?.aisyncError.hint))")
    }

    @Test(
        "Transport failures: an upload is never re-sent in place (a dropped connection looks unreachable, and it may have been stored)"
    )
    func transportFailures() async {
        let dir = Self.makeTempDir()
        let image = Self.writeImage(dir)
        let down = Self.fakeImgur([], fallback: .fail(AISyncError(.unavailable, "cannot reach api.imgur.com")))
        let sleeps = SleepLog()
        let client = Self.makeClient(down, sleeps: sleeps, tempDir: dir)
        var unreachable: ImgurError?
        do {
            _ = try await client.upload(fileAt: image, mediaType: "image/png", title: nil, description: nil)
        } catch {
            unreachable = error
        }
        let downSent = await down.sent
        #expect(downSent.count == 1)
        #expect(unreachable?.kind == .unavailable)
        #expect(unreachable?.mayHaveUploaded == true)

        let slow = Self.fakeImgur([], fallback: .fail(AISyncError(.temporary, "api.imgur.com did not answer in time")))
        let client2 = Self.makeClient(slow, sleeps: sleeps, tempDir: dir)
        var timedOut: ImgurError?
        do {
            _ = try await client2.upload(fileAt: image, mediaType: "image/png", title: nil, description: nil)
        } catch {
            timedOut = error
        }
        let slowSent = await slow.sent
        #expect(slowSent.count == 1)
        #expect(timedOut?.kind == .unavailable)
        #expect(timedOut?.mayHaveUploaded == true)
        #expect(Self.leftovers(dir).isEmpty)
    }

    @Test("Retry-After: a short one is honoured, a long one fails at once instead of holding the push")
    func retryAfter() async throws {
        let dir = Self.makeTempDir()
        let image = Self.writeImage(dir)
        let sleeps = SleepLog()
        let short = Self.fakeImgur([
            Self.respond(503, "", headers: ["retry-after": "2"]), Self.respond(200, Self.successBody),
        ])
        _ = try await Self.makeClient(short, sleeps: sleeps, tempDir: dir).upload(
            fileAt: image, mediaType: "image/png", title: nil, description: nil)
        let delays = await sleeps.delays
        #expect(delays == [2000])

        let long = Self.fakeImgur([
            Self.respond(503, "", headers: ["retry-after": "600"]), Self.respond(200, Self.successBody),
        ])
        var caught: ImgurError?
        do {
            _ = try await Self.makeClient(long, sleeps: sleeps, tempDir: dir).upload(
                fileAt: image, mediaType: "image/png", title: nil, description: nil)
        } catch {
            caught = error
        }
        let longSent = await long.sent
        #expect(longSent.count == 1)
        #expect(caught?.kind == .unavailable)
        let delaysAfter = await sleeps.delays
        #expect(delaysAfter == [2000])
    }

    // MARK: - Hostile answers

    struct HostileCase: Sendable, CustomTestStringConvertible {
        var name: String
        var body: String
        var testDescription: String { name }
    }

    static let hostileCases: [HostileCase] = [
        HostileCase(
            name: "id with slashes",
            body: uploadBody(replacing: ["id": #""..\/..\/x1234""#, "link": #""https://i.imgur.com/x1234.png""#])),
        HostileCase(
            name: "id too long",
            body: uploadBody(replacing: ["id": #""abcdefghijk""#, "link": #""https://i.imgur.com/abcdefghijk.png""#])),
        HostileCase(name: "id not a string", body: uploadBody(replacing: ["id": "12345678"])),
        HostileCase(
            name: "link on another host", body: uploadBody(replacing: ["link": #""https://evil.example/MUkssj6.png""#])),
        HostileCase(
            name: "link with user info",
            body: uploadBody(replacing: ["link": #""https://i.imgur.com@evil.example/MUkssj6.png""#])),
        HostileCase(
            name: "link on another port",
            body: uploadBody(replacing: ["link": #""https://i.imgur.com:8443/MUkssj6.png""#])),
        HostileCase(
            name: "link for another id", body: uploadBody(replacing: ["link": #""https://i.imgur.com/Other12.png""#])),
        HostileCase(
            name: "link with a query", body: uploadBody(replacing: ["link": #""https://i.imgur.com/MUkssj6.png?x=1""#])),
        HostileCase(
            name: "link with a path", body: uploadBody(replacing: ["link": #""https://i.imgur.com/a/MUkssj6.png""#])),
        HostileCase(
            name: "link javascript", body: uploadBody(replacing: ["link": #""javascript:alert(1)//MUkssj6.png""#])),
        HostileCase(name: "huge size", body: uploadBody(replacing: ["size": "1000000000000"])),
        HostileCase(name: "negative size", body: uploadBody(replacing: ["size": "-1"])),
        HostileCase(name: "fractional size", body: uploadBody(replacing: ["size": "1.5"])),
        HostileCase(name: "size as a string", body: uploadBody(replacing: ["size": #""473831""#])),
        HostileCase(name: "missing size", body: uploadBody(replacing: ["size": "<absent>"])),
        HostileCase(name: "negative width", body: uploadBody(replacing: ["width": "-5"])),
        HostileCase(name: "deletehash with slashes", body: uploadBody(replacing: ["deletehash": #""abc\/..\/def""#])),
        HostileCase(
            name: "type with a header injection", body: uploadBody(replacing: ["type": #""text/html\r\nX-Evil: 1""#])),
        HostileCase(name: "missing data", body: #"{"success":true,"status":200}"#),
        HostileCase(name: "data null", body: #"{"data":null,"success":true,"status":200}"#),
        HostileCase(name: "data an array", body: #"{"data":[],"success":true,"status":200}"#),
        HostileCase(name: "not JSON", body: "OK"),
        HostileCase(name: "empty body", body: ""),
        HostileCase(
            name: "duplicate keys", body: #"{"data":{"id":"MUkssj6","id":"Other12"},"success":true,"status":200}"#),
        HostileCase(name: "trailing garbage", body: successBody + "<script>"),
    ]

    @Test("Hostile or broken upload answers are damaged data, never recorded", arguments: hostileCases)
    func hostileAnswers(_ c: HostileCase) async {
        let dir = Self.makeTempDir()
        let image = Self.writeImage(dir)
        let transport = Self.fakeImgur([Self.respond(200, c.body)])
        let sleeps = SleepLog()
        let client = Self.makeClient(transport, sleeps: sleeps, tempDir: dir)
        var caught: ImgurError?
        do {
            let result = try await client.upload(fileAt: image, mediaType: "image/png", title: nil, description: nil)
            Issue.record("\(c.name): accepted \(result.upload)")
        } catch {
            caught = error
        }
        let sent = await transport.sent
        #expect(sent.count == 1, "\(c.name): not retried")
        #expect(caught?.kind == .damaged, "\(c.name): \(String(describing: caught))")
        #expect(caught?.aisyncError.code == .damagedData)
        #expect(caught.map { !$0.description.contains("\r") && !$0.description.contains("\n") } == true)
    }

    // MARK: - API base

    @Test("A stand-in API base accepts links on its own origin or i.imgur.com, and no other")
    func nonOfficialAPIBase() async throws {
        let dir = Self.makeTempDir()
        let image = Self.writeImage(dir)
        let base = "http://127.0.0.1:8080/imgur"
        let own = Self.uploadBody(replacing: ["link": #""http://127.0.0.1:8080/i/MUkssj6.png""#])
        let official = Self.uploadBody(replacing: ["link": #""https://i.imgur.com/MUkssj6.png""#])
        let otherPort = Self.uploadBody(replacing: ["link": #""http://127.0.0.1:9090/MUkssj6.png""#])
        let transport = Self.fakeImgur([
            Self.respond(200, own), Self.respond(200, official), Self.respond(200, otherPort),
        ])
        let sleeps = SleepLog()
        let client = Self.makeClient(transport, sleeps: sleeps, apiBase: base + "/", tempDir: dir)
        #expect(!client.isOfficialAPI)
        let first = try await client.upload(fileAt: image, mediaType: "image/png", title: nil, description: nil)
        #expect(first.upload.link == "http://127.0.0.1:8080/i/MUkssj6.png")
        let second = try await client.upload(fileAt: image, mediaType: "image/png", title: nil, description: nil)
        #expect(second.upload.link == "https://i.imgur.com/MUkssj6.png")
        var caught: ImgurError?
        do {
            _ = try await client.upload(fileAt: image, mediaType: "image/png", title: nil, description: nil)
        } catch {
            caught = error
        }
        #expect(caught?.kind == .damaged)
        let sent = await transport.sent
        #expect(sent.first?.request.url == "http://127.0.0.1:8080/imgur/3/image")

        // The official API never vouches for a link elsewhere.
        let transport2 = Self.fakeImgur([Self.respond(200, own)])
        let officialClient = Self.makeClient(transport2, sleeps: sleeps, tempDir: dir)
        #expect(officialClient.isOfficialAPI)
        var refused: ImgurError?
        do {
            _ = try await officialClient.upload(fileAt: image, mediaType: "image/png", title: nil, description: nil)
        } catch {
            refused = error
        }
        #expect(refused?.kind == .damaged)
    }

    @Test("API bases: plain http only to localhost; no credentials or queries")
    func apiBaseValidation() async {
        var results: [String: Bool] = [:]
        for url in [
            "https://api.imgur.com", "https://api.imgur.com/", "https://proxy.example.com/imgur",
            "http://localhost:9000",
            "http://127.0.0.1:8080", "http://[::1]:8080", "http://imgur.example.com",
            "https://user:pw@proxy.example.com",
            "https://api.imgur.com/?x=1", "ftp://api.imgur.com", "https://api.imgur.com/../x",
        ] {
            var ok = true
            do { try ImgurClient.validateAPIBase(url) } catch { ok = false }
            results[url] = ok
        }
        #expect(
            results == [
                "https://api.imgur.com": true, "https://api.imgur.com/": true, "https://proxy.example.com/imgur": true,
                "http://localhost:9000": true, "http://127.0.0.1:8080": true, "http://[::1]:8080": true,
                "http://imgur.example.com": false, "https://user:pw@proxy.example.com": false,
                "https://api.imgur.com/?x=1": false,
                "ftp://api.imgur.com": false, "https://api.imgur.com/../x": false,
            ])

        let dir = Self.makeTempDir()
        let image = Self.writeImage(dir)
        let transport = Self.fakeImgur([Self.respond(200, Self.successBody)])
        let sleeps = SleepLog()
        let client = Self.makeClient(transport, sleeps: sleeps, apiBase: "http://imgur.example.com", tempDir: dir)
        var caught: ImgurError?
        do {
            _ = try await client.upload(fileAt: image, mediaType: "image/png", title: nil, description: nil)
        } catch {
            caught = error
        }
        let sent = await transport.sent
        #expect(sent.isEmpty, "the credential never goes over plain http to a remote host")
        #expect(caught?.aisyncError.code == .configuration)
    }

    // MARK: - Delete

    @Test("Delete with a client id goes by deletehash; with a bearer token by id")
    func deleteChoosesByCredential() async throws {
        let dir = Self.makeTempDir()
        let ok = #"{"data":true,"success":true,"status":200}"#
        let anonymous = Self.fakeImgur([
            Self.respond(200, ok, headers: ["x-ratelimit-userremaining": "1500", "x-ratelimit-userlimit": "2000"])
        ])
        let sleeps = SleepLog()
        let byHash = Self.makeClient(anonymous, sleeps: sleeps, tempDir: dir)
        let rateLimit = try await byHash.delete(id: "MUkssj6", deletehash: "hdYnH1gKz9YTHfS")
        #expect(rateLimit?.user?.remaining == 1500)
        let anonymousSent = await anonymous.sent
        #expect(anonymousSent.count == 1)
        #expect(anonymousSent.first?.request.method == "DELETE")
        #expect(anonymousSent.first?.request.url == "https://api.imgur.com/3/image/hdYnH1gKz9YTHfS")
        #expect(anonymousSent.first?.request.headers["Authorization"] == "Client-ID \(Self.clientSecret)")
        #expect(anonymousSent.first?.request.body == HTTPRequest.Body.none)

        let account = Self.fakeImgur([Self.respond(200, ok)])
        let byID = Self.makeClient(account, sleeps: sleeps, credential: Self.bearer, tempDir: dir)
        try await byID.delete(id: "MUkssj6", deletehash: "hdYnH1gKz9YTHfS")
        let accountSent = await account.sent
        #expect(accountSent.first?.request.url == "https://api.imgur.com/3/image/MUkssj6")
        #expect(accountSent.first?.request.headers["Authorization"] == "Bearer \(Self.tokenSecret)")
    }

    @Test("Delete: 404 means already gone; 5xx is retried; data false is an error that never shows the deletehash")
    func deleteOutcomes() async throws {
        let dir = Self.makeTempDir()
        let sleeps = SleepLog()
        let gone = Self.fakeImgur([
            Self.respond(
                404,
                #"{"data":{"error":"Unable to find an image with the id, hdYnH1gKz9YTHfS","request":"\/3\/image\/hdYnH1gKz9YTHfS","method":"DELETE"},"success":false,"status":404}"#
            )
        ])
        try await Self.makeClient(gone, sleeps: sleeps, tempDir: dir).delete(deletehash: "hdYnH1gKz9YTHfS")
        let goneHTML = Self.fakeImgur([Self.respond(404, "<html><title>404</title></html>")])
        try await Self.makeClient(goneHTML, sleeps: sleeps, credential: Self.bearer, tempDir: dir).delete(id: "MUkssj6")

        let empty = Self.fakeImgur([Self.respond(204)])
        try await Self.makeClient(empty, sleeps: sleeps, tempDir: dir).delete(deletehash: "hdYnH1gKz9YTHfS")

        let flaky = Self.fakeImgur([
            Self.respond(503), Self.respond(200, #"{"data":true,"success":true,"status":200}"#),
        ])
        try await Self.makeClient(flaky, sleeps: sleeps, tempDir: dir).delete(deletehash: "hdYnH1gKz9YTHfS")
        let flakySent = await flaky.sent
        #expect(flakySent.count == 2)

        let refused = Self.fakeImgur([Self.respond(200, #"{"data":false,"success":false,"status":200}"#)])
        var notDeleted: ImgurError?
        do {
            try await Self.makeClient(refused, sleeps: sleeps, tempDir: dir).delete(
                id: "MUkssj6", deletehash: "hdYnH1gKz9YTHfS")
        } catch {
            notDeleted = error
        }
        #expect(notDeleted?.kind == .other)
        #expect(notDeleted?.description.contains("MUkssj6") == true)

        let echoes = Self.fakeImgur([
            Self.respond(
                403,
                #"{"data":{"error":"You are not the owner of hdYnH1gKz9YTHfS","request":"\/3\/image\/hdYnH1gKz9YTHfS","method":"DELETE"},"success":false,"status":403}"#
            )
        ])
        var forbidden: ImgurError?
        do {
            try await Self.makeClient(echoes, sleeps: sleeps, tempDir: dir).delete(deletehash: "hdYnH1gKz9YTHfS")
        } catch {
            forbidden = error
        }
        #expect(forbidden?.kind == .auth)
        let text = forbidden?.description ?? ""
        #expect(!text.contains("hdYnH1gKz9YTHfS"), "\(text)")
        #expect(text.contains("not the owner"))
    }

    @Test("Delete refuses malformed ids and deletehashes, and anonymous deletes without a deletehash, before sending")
    func deleteRefusesBadInput() async {
        let dir = Self.makeTempDir()
        let sleeps = SleepLog()
        let transport = Self.fakeImgur([])
        let client = Self.makeClient(transport, sleeps: sleeps, tempDir: dir)
        var errors: [ImgurError] = []
        do { try await client.delete(deletehash: "../../3/account/me") } catch { errors.append(error) }
        do { try await client.delete(id: "MUk/sj6") } catch { errors.append(error) }
        do { try await client.delete(id: "MUkssj6", deletehash: nil) } catch { errors.append(error) }
        let sent = await transport.sent
        #expect(sent.isEmpty)
        #expect(errors.count == 3)
        #expect(errors.map(\.kind) == [.damaged, .damaged, .other])
        #expect(!errors[0].description.contains("account/me"), "a deletehash, even malformed, is never shown")
    }

    // MARK: - Download

    @Test("Download writes the bytes, returns their hash, and never sends the credential")
    func downloadBytes() async throws {
        let dir = Self.makeTempDir()
        let target = dir + "/download.bin"
        let bytes = Array("\u{89}PNG served bytes".utf8)
        let transport = Self.fakeImgur([
            .respond(HTTPResponse(status: 200, headers: ["content-type": "image/png"]), download: bytes)
        ])
        let sleeps = SleepLog()
        let client = Self.makeClient(transport, sleeps: sleeps, credential: Self.bearer, tempDir: dir)
        let outcome = try await client.download(link: "https://i.imgur.com/MUkssj6.png", to: target, maxBytes: 1 << 20)
        #expect(outcome == .downloaded(sha256: SHA256.hash(bytes), size: Int64(bytes.count)))
        let sent = await transport.sent
        #expect(sent.count == 1)
        #expect(sent.first?.request.method == "GET")
        #expect(sent.first?.request.url == "https://i.imgur.com/MUkssj6.png")
        #expect(sent.first?.request.headers["Authorization"] == nil)
        #expect(sent.first?.downloadTo == target)
        let written = FileManager.default.contents(atPath: target).map { Array($0) }
        #expect(written == bytes)
    }

    @Test("A redirect to removed.png (absolute or protocol-relative) means removed; 404 means missing; nothing is kept")
    func downloadRemovedAndMissing() async throws {
        let dir = Self.makeTempDir()
        let target = dir + "/download.bin"
        let sleeps = SleepLog()
        for location in ["https://i.imgur.com/removed.png", "//i.imgur.com/removed.png", "/removed.png"] {
            _ = FileManager.default.createFile(atPath: target, contents: Data("stale".utf8))
            let transport = Self.fakeImgur([Self.respond(302, "", headers: ["location": location])])
            let client = Self.makeClient(transport, sleeps: sleeps, tempDir: dir)
            let outcome = try await client.download(
                link: "https://i.imgur.com/MUkssj6.png", to: target, maxBytes: 1 << 20)
            #expect(outcome == .removed, "\(location)")
            let sent = await transport.sent
            #expect(sent.count == 1, "the placeholder is not downloaded")
            #expect(!FileManager.default.fileExists(atPath: target))
        }
        let missing = Self.fakeImgur([Self.respond(404, "<html>Not Found</html>")])
        let outcome = try await Self.makeClient(missing, sleeps: sleeps, tempDir: dir).download(
            link: "https://i.imgur.com/MUkssj6.png", to: target, maxBytes: 1 << 20)
        #expect(outcome == .missing)
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test("Download follows an Imgur redirect to another image link, retries 5xx, and refuses odd places")
    func downloadRedirectsAndRetries() async throws {
        let dir = Self.makeTempDir()
        let target = dir + "/download.bin"
        let sleeps = SleepLog()
        let bytes = Array("jpeg bytes".utf8)
        let moved = Self.fakeImgur([
            Self.respond(503), Self.respond(301, "", headers: ["location": "https://i.imgur.com/MUkssj6.jpeg"]),
            .respond(HTTPResponse(status: 200), download: bytes),
        ])
        let outcome = try await Self.makeClient(moved, sleeps: sleeps, tempDir: dir).download(
            link: "https://i.imgur.com/MUkssj6.png", to: target, maxBytes: 1 << 20)
        #expect(outcome == .downloaded(sha256: SHA256.hash(bytes), size: Int64(bytes.count)))
        let movedSent = await moved.sent
        #expect(
            movedSent.map(\.request.url) == [
                "https://i.imgur.com/MUkssj6.png", "https://i.imgur.com/MUkssj6.png",
                "https://i.imgur.com/MUkssj6.jpeg",
            ])

        var errors: [ImgurError] = []
        let elsewhere = Self.fakeImgur([
            Self.respond(302, "", headers: ["location": "https://evil.example/MUkssj6.png"])
        ])
        do {
            _ = try await Self.makeClient(elsewhere, sleeps: sleeps, tempDir: dir).download(
                link: "https://i.imgur.com/MUkssj6.png", to: target, maxBytes: 1 << 20)
        } catch { errors.append(error) }
        let page = Self.fakeImgur([
            .respond(
                HTTPResponse(status: 200, headers: ["content-type": "text/html; charset=utf-8"]),
                download: Array("<html>".utf8))
        ])
        do {
            _ = try await Self.makeClient(page, sleeps: sleeps, tempDir: dir).download(
                link: "https://i.imgur.com/MUkssj6.png", to: target, maxBytes: 1 << 20)
        } catch { errors.append(error) }
        let untouched = Self.fakeImgur([])
        do {
            _ = try await Self.makeClient(untouched, sleeps: sleeps, tempDir: dir).download(
                link: "https://evil.example/MUkssj6.png", to: target, maxBytes: 1 << 20)
        } catch { errors.append(error) }
        #expect(errors.map(\.kind) == [.damaged, .damaged, .damaged])
        let untouchedSent = await untouched.sent
        #expect(untouchedSent.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    // MARK: - Secrets

    @Test("No error ever shows the client id or token, even when Imgur echoes it")
    func credentialNeverInErrors() async {
        let dir = Self.makeTempDir()
        let image = Self.writeImage(dir)
        let sleeps = SleepLog()
        var bodies = Self.errorCases.map { Self.respond($0.status, $0.body, headers: $0.headers) }
        bodies.append(
            Self.respond(
                403,
                #"{"data":{"error":"Invalid client_id c0ffee1234abcd9 for Bearer 5c3118ebb73fbb275945ab340be60b610a3216d6"},"success":false,"status":403}"#
            ))
        bodies.append(
            Self.respond(
                400,
                #"{"errors":[{"detail":"token 5c3118ebb73fbb275945ab340be60b610a3216d6 / c0ffee1234abcd9 rejected"}]}"#)
        )
        bodies.append(Self.respond(200, Self.uploadBody(replacing: ["id": #""c0ffee1234abcd9""#])))
        bodies.append(
            .fail(
                AISyncError(.other, "transport said c0ffee1234abcd9", cause: "5c3118ebb73fbb275945ab340be60b610a3216d6")
            ))
        var checked = 0
        for credential in [Self.clientID, Self.bearer] {
            let secret = credential == Self.clientID ? Self.clientSecret : Self.tokenSecret
            for step in bodies {
                let transport = Self.fakeImgur([step, step, step, step])
                let client = Self.makeClient(transport, sleeps: sleeps, credential: credential, tempDir: dir)
                var caught: ImgurError?
                do {
                    _ = try await client.upload(fileAt: image, mediaType: "image/png", title: nil, description: nil)
                } catch {
                    caught = error
                }
                var dumped = ""
                dump(caught, to: &dumped)
                let texts = [caught?.description ?? "", String(reflecting: caught), dumped]
                for text in texts {
                    #expect(!text.contains(secret), "\(text)")
                }
                if case .rejected(let message)? = caught?.kind {
                    #expect(!message.contains(secret))
                }
                checked += 1
            }
        }
        #expect(checked == 2 * bodies.count)
    }

    // MARK: - Rate-limit headers

    @Test("Rate-limit headers: both families, epoch or seconds, and hostile values")
    func rateLimitParsing() {
        let t = Self.now
        let none = ImgurRateLimit.parse(headers: ["content-type": "application/json"], now: t)
        #expect(none == nil)

        let post = ImgurRateLimit.parse(
            headers: [
                "x-post-rate-limit-limit": "1250", "x-post-rate-limit-remaining": "3", "x-post-rate-limit-reset": "120",
            ], now: t)
        #expect(post?.post == ImgurRateLimit.Bucket(limit: 1250, remaining: 3, resetAt: t + 120))
        #expect(post?.user == nil && post?.client == nil)

        // An epoch where seconds are documented (and vice versa) is read by its size.
        let swapped = ImgurRateLimit.parse(
            headers: ["x-post-rate-limit-reset": "1700000600", "x-ratelimit-userreset": "900"], now: t)
        #expect(swapped?.post?.resetAt == 1_700_000_600)
        #expect(swapped?.user?.resetAt == t + 900)

        let hostile = ImgurRateLimit.parse(
            headers: [
                "x-ratelimit-userlimit": "lots", "x-ratelimit-userremaining": "-5",
                "x-ratelimit-userreset": "99999999999999",
                "x-post-rate-limit-remaining": " 7 ", "x-post-rate-limit-reset": "1000000000",
                "x-ratelimit-clientremaining": "1e9",
            ], now: t)
        #expect(hostile?.user == ImgurRateLimit.Bucket(limit: nil, remaining: 0, resetAt: nil))
        #expect(hostile?.post == ImgurRateLimit.Bucket(limit: nil, remaining: 7, resetAt: t))
        #expect(hostile?.client == nil)

        let spent = ImgurRateLimit(user: .init(limit: 2000, remaining: 0, resetAt: nil), observedAt: t)
        #expect(spent.retryAt(now: t) == t + 3600)
        let notSpent = ImgurRateLimit(
            user: .init(limit: 2000, remaining: 9, resetAt: t + 50),
            post: .init(limit: 1250, remaining: 5, resetAt: t + 20), observedAt: t)
        #expect(notSpent.retryAt(now: t) == t + 20)
        #expect(notSpent.remaining == 5)
        #expect(notSpent.json["post"]?["resetAt"] == .int(t + 20))
    }

    @Test("Imgur's messages are cleaned to one short line")
    func messageCleaning() {
        let long = String(repeating: "x", count: 500)
        let answer = ImgurAnswer(
            Array(#"{"data":{"error":"line one\nline\ttwo \#(long)"},"success":false,"status":400}"#.utf8), secrets: [])
        let message = answer.message ?? ""
        #expect(message.hasPrefix("line one line two xx"))
        #expect(message.count <= 201)
        #expect(!message.contains("\n") && !message.contains("\t"))
        let errorsShape = ImgurAnswer(
            Array(#"{"errors":[{"code":"429","status":"Too Many Requests"},{"detail":"Slow down"}]}"#.utf8), secrets: []
        )
        #expect(errorsShape.message == "Too Many Requests; Slow down")
        let title = ImgurAnswer(
            Array(
                "<!DOCTYPE html><HTML><head><TITLE lang=\"de\">Überlastet: Imgur is over capacity</TITLE></head></HTML>"
                    .utf8), secrets: [])
        #expect(title.message == "Überlastet: Imgur is over capacity")
        #expect(title.isHTML && title.isOverCapacity)
        let codeOnly = ImgurAnswer(
            Array(#"{"data":{"error":{"code":1001}},"success":false,"status":400}"#.utf8), secrets: [])
        #expect(codeOnly.message == "error code 1001")
    }
}
