import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncHTTP
@testable import AISyncRemote
@testable import AISyncTesting

/// HTTPRemote (WebDAV and plain HTTP) over a scripted in-memory transport: no network.
/// Also credentials, backoff, URL and path validation.
///
/// Note (Swift 6.3.1 miscompile): no closures inside `#expect` nested in other closures; test
/// bodies stay at the top level, errors are caught with do/catch, values go into `let`s first.
@Suite("HTTPRemoteTests")
struct HTTPRemoteTests {
    // MARK: - Fakes

    /// The scripted transport and sleep recorder of AISyncTesting, under this suite's names.
    typealias FakeTransport = ScriptedTransport
    typealias SleepLog = SleepRecorder

    static let base = ScriptedRemote.base
    static let device = ScriptedRemote.device

    static func makeRemote(
        _ transport: FakeTransport, sleeps: SleepLog, url: String = base, plain: Bool = false,
        credentials: Credentials? = nil, maxAttempts: Int = 4
    ) throws -> HTTPRemote {
        try ScriptedRemote.make(
            transport, sleeps: sleeps, url: url, plain: plain, credentials: credentials, maxAttempts: maxAttempts)
    }

    static func status(_ code: Int, _ headers: [String: String] = [:], _ body: String = "") -> FakeTransport.Step {
        ScriptedRemote.status(code, headers, body)
    }

    // MARK: - Status mapping

    enum Operation: String, Sendable {
        case read, list, putCreate, putAlways, delete, exists
    }

    enum Outcome: Equatable, Sendable, CustomStringConvertible {
        case value
        case none
        case written
        case preconditionFailed
        case error(AISyncError.Code)

        var description: String {
            switch self {
            case .value: "value"
            case .none: "nil"
            case .written: "written"
            case .preconditionFailed: "preconditionFailed"
            case .error(let c): "error(\(c))"
            }
        }
    }

    struct StatusCase: Sendable, CustomTestStringConvertible {
        var status: Int
        var operation: Operation
        var expected: Outcome
        /// Requests made (retries included); maxAttempts is 4.
        var attempts: Int
        var messageContains: String? = nil
        var testDescription: String { "\(status) on \(operation.rawValue) → \(expected) after \(attempts) attempt(s)" }
    }

    static let statusCases: [StatusCase] = [
        StatusCase(status: 200, operation: .read, expected: .value, attempts: 1),
        StatusCase(status: 401, operation: .read, expected: .error(.permission), attempts: 1),
        StatusCase(status: 401, operation: .putCreate, expected: .error(.permission), attempts: 1),
        StatusCase(status: 403, operation: .read, expected: .error(.permission), attempts: 1),
        StatusCase(status: 403, operation: .putAlways, expected: .error(.permission), attempts: 1),
        StatusCase(status: 404, operation: .read, expected: .none, attempts: 1),
        StatusCase(status: 410, operation: .read, expected: .none, attempts: 1),
        StatusCase(status: 404, operation: .list, expected: .none, attempts: 1),
        StatusCase(status: 404, operation: .exists, expected: .none, attempts: 1),
        StatusCase(status: 404, operation: .delete, expected: .value, attempts: 1),
        StatusCase(
            status: 405, operation: .list, expected: .error(.configuration), attempts: 1,
            messageContains: "add the remote as plain HTTP"),
        StatusCase(status: 423, operation: .read, expected: .error(.temporary), attempts: 4),
        StatusCase(status: 423, operation: .putAlways, expected: .error(.temporary), attempts: 4),
        StatusCase(status: 429, operation: .read, expected: .error(.temporary), attempts: 4),
        StatusCase(status: 507, operation: .putCreate, expected: .error(.io), attempts: 1),
        StatusCase(status: 500, operation: .read, expected: .error(.unavailable), attempts: 4),
        StatusCase(status: 502, operation: .read, expected: .error(.unavailable), attempts: 4),
        StatusCase(status: 503, operation: .read, expected: .error(.unavailable), attempts: 4),
        StatusCase(status: 503, operation: .list, expected: .error(.unavailable), attempts: 4),
        StatusCase(status: 412, operation: .putCreate, expected: .preconditionFailed, attempts: 1),
        StatusCase(status: 201, operation: .putCreate, expected: .written, attempts: 1),
        StatusCase(status: 204, operation: .putAlways, expected: .written, attempts: 1),
    ]

    static func run(_ operation: Operation, on remote: HTTPRemote) async -> (Outcome, AISyncError?) {
        do {
            switch operation {
            case .read:
                let file = try await remote.read("heads/\(device).json")
                return (file == nil ? .none : .value, nil)
            case .list:
                let entries = try await remote.list("heads")
                return (entries == nil ? .none : .value, nil)
            case .putCreate, .putAlways:
                let result = try await remote.write(
                    "heads/\(device).json", Array("{}\n".utf8),
                    condition: operation == .putCreate ? .createOnly : .always)
                return (result == .preconditionFailed ? .preconditionFailed : .written, nil)
            case .delete:
                try await remote.delete("heads/\(device).json")
                return (.value, nil)
            case .exists:
                let exists = try await remote.exists("heads/\(device).json")
                return (exists ? .value : .none, nil)
            }
        } catch {
            return (.error(error.code), error)
        }
    }

    @Test(arguments: statusCases)
    func statusMapping(_ c: StatusCase) async throws {
        let body = c.operation == .list && c.status == 200 ? "" : "server says \(c.status)"
        let transport = FakeTransport(fallback: Self.status(c.status, [:], body))
        let sleeps = SleepLog()
        let remote = try Self.makeRemote(transport, sleeps: sleeps)
        let (outcome, error) = await Self.run(c.operation, on: remote)
        #expect(outcome == c.expected, "\(String(describing: error))")
        let requests = await transport.requests
        #expect(requests.count == c.attempts)
        let delays = await sleeps.delays
        #expect(delays.count == c.attempts - 1, "one backoff between attempts")
        if let needle = c.messageContains {
            let text = error?.description ?? ""
            #expect(text.contains(needle), "\(text)")
        }
    }

    @Test(arguments: [(409, 201), (409, 405), (404, 201)])
    func putIntoAMissingCollectionMakesItsParentsThenRetries(first: Int, mkcol: Int) async throws {
        let transport = FakeTransport(
            [Self.status(first), Self.status(mkcol), Self.status(mkcol), Self.status(201, ["etag": "\"e1\""])],
            fallback: Self.status(500))
        let sleeps = SleepLog()
        let remote = try Self.makeRemote(transport, sleeps: sleeps)
        let result = try await remote.write("segments/\(Self.device)/1.seg", Array("x\n".utf8), condition: .createOnly)
        #expect(result == .written(etag: "\"e1\""))
        let requests = await transport.requests
        let methods = requests.map(\.method)
        let urls = requests.map(\.url)
        #expect(methods == ["PUT", "MKCOL", "MKCOL", "PUT"])
        #expect(
            urls == [
                "\(Self.base)/segments/\(Self.device)/1.seg", "\(Self.base)/segments/",
                "\(Self.base)/segments/\(Self.device)/", "\(Self.base)/segments/\(Self.device)/1.seg",
            ])
        #expect(requests.last?.headers["If-None-Match"] == "*")
        #expect(requests.last?.body == .bytes(Array("x\n".utf8)))
    }

    /// A refused MKCOL is checked once with PROPFIND Depth 0 (a racing device may have just
    /// created the collection); when it really is missing, the 403 is reported.
    @Test func mkcolRefusedIsAClearError() async throws {
        let transport = FakeTransport(
            [Self.status(409), Self.status(403), Self.status(404)], fallback: Self.status(500))
        let remote = try Self.makeRemote(transport, sleeps: SleepLog())
        var caught: AISyncError?
        do { _ = try await remote.write("segments/\(Self.device)/1.seg", [10], condition: .createOnly) } catch {
            caught = error
        }
        #expect(caught?.code == .permission)
        let methods = await transport.requests.map(\.method)
        #expect(methods == ["PUT", "MKCOL", "PROPFIND"])
    }

    // MARK: - Retries

    @Test func a503ThenA200Succeeds() async throws {
        let transport = FakeTransport([Self.status(503), Self.status(200, ["etag": "\"v2\""], "hello")])
        let sleeps = SleepLog()
        let remote = try Self.makeRemote(transport, sleeps: sleeps)
        let file = try await remote.read("aisync.json")
        #expect(file == RemoteFile(bytes: Array("hello".utf8), etag: "\"v2\""))
        let delays = await sleeps.delays
        #expect(delays == [Backoff.delay(attempt: 0, unit: 0.5)])
        #expect(delays == [100])
    }

    @Test func backoffGrowsAndAttemptsAreBounded() async throws {
        let transport = FakeTransport(fallback: Self.status(502))
        let sleeps = SleepLog()
        let remote = try Self.makeRemote(transport, sleeps: sleeps, maxAttempts: 5)
        var caught: AISyncError?
        do { _ = try await remote.read("aisync.json") } catch { caught = error }
        #expect(caught?.code == .unavailable)
        let count = await transport.requests.count
        #expect(count == 5)
        let delays = await sleeps.delays
        #expect(delays == [100, 200, 400, 800])
    }

    @Test func retryAfterIsHonoured() async throws {
        let transport = FakeTransport([
            Self.status(503, ["retry-after": "7"]), Self.status(429, ["retry-after": " 2 "]), Self.status(200),
        ])
        let sleeps = SleepLog()
        let remote = try Self.makeRemote(transport, sleeps: sleeps)
        let file = try await remote.read("aisync.json")
        #expect(file != nil)
        let delays = await sleeps.delays
        #expect(delays == [7000, 2000])
    }

    @Test func insaneRetryAfterFallsBackToBackoff() async throws {
        let transport = FakeTransport([
            Self.status(503, ["retry-after": "999999"]), Self.status(503, ["retry-after": "soon"]), Self.status(200),
        ])
        let sleeps = SleepLog()
        let remote = try Self.makeRemote(transport, sleeps: sleeps)
        _ = try await remote.read("aisync.json")
        let delays = await sleeps.delays
        #expect(delays == [100, 200])
    }

    @Test func transportFailuresAreRetriedThenReported() async throws {
        let down = AISyncError(.unavailable, "cannot reach dav.example.com")
        let transport = FakeTransport([
            .fail(down), .fail(AISyncError(.temporary, "timed out")), Self.status(200, [:], "ok"),
        ])
        let sleeps = SleepLog()
        let remote = try Self.makeRemote(transport, sleeps: sleeps)
        let file = try await remote.read("aisync.json")
        #expect(file?.bytes == Array("ok".utf8))

        let always = FakeTransport(fallback: .fail(down))
        let sleeps2 = SleepLog()
        let remote2 = try Self.makeRemote(always, sleeps: sleeps2, maxAttempts: 3)
        var caught: AISyncError?
        do { _ = try await remote2.read("aisync.json") } catch { caught = error }
        #expect(caught == down)
        let count = await always.requests.count
        #expect(count == 3)

        // Errors that are not transient are not retried.
        let bad = FakeTransport(fallback: .fail(AISyncError(.configuration, "bad certificate")))
        let remote3 = try Self.makeRemote(bad, sleeps: SleepLog())
        var caught3: AISyncError?
        do { _ = try await remote3.read("aisync.json") } catch { caught3 = error }
        #expect(caught3?.code == .configuration)
        let count3 = await bad.requests.count
        #expect(count3 == 1)
    }

    // MARK: - Headers

    @Test func requestsCarryAuthorizationAndConditions() async throws {
        let transport = FakeTransport([
            Self.status(201), Self.status(204), Self.status(201), Self.status(200, [:], "{}"),
        ])
        let remote = try Self.makeRemote(
            transport, sleeps: SleepLog(), credentials: Credentials(user: "alice", password: "s3cret!"))
        _ = try await remote.write("heads/\(Self.device).json", [1], condition: .createOnly)
        _ = try await remote.write("heads/\(Self.device).json", [2], condition: .replacing(etag: "\"abc-123\""))
        _ = try await remote.write("devices.json", [3], condition: .always)
        _ = try await remote.read("aisync.json")
        let requests = await transport.requests
        #expect(requests.count == 4)
        for r in requests {
            #expect(r.headers["Authorization"] == "Basic YWxpY2U6czNjcmV0IQ==")
        }
        #expect(requests[0].method == "PUT")
        #expect(requests[0].url == "\(Self.base)/heads/\(Self.device).json")
        #expect(requests[0].headers["If-None-Match"] == "*")
        #expect(requests[0].headers["If-Match"] == nil)
        #expect(requests[1].headers["If-Match"] == "\"abc-123\"")
        #expect(requests[1].headers["If-None-Match"] == nil)
        #expect(requests[2].headers["If-Match"] == nil)
        #expect(requests[2].headers["If-None-Match"] == nil)
        #expect(requests[3].method == "GET")
        #expect(requests[3].url == "\(Self.base)/aisync.json")
    }

    @Test func noCredentialsNoAuthorization() async throws {
        let transport = FakeTransport()
        let remote = try Self.makeRemote(transport, sleeps: SleepLog())
        _ = try await remote.read("aisync.json")
        let requests = await transport.requests
        #expect(requests.first?.headers["Authorization"] == nil)
    }

    @Test func propfindAsksDepthOne() async throws {
        let transport = FakeTransport(fallback: Self.status(207, [:], Self.apacheMultistatus))
        let remote = try Self.makeRemote(transport, sleeps: SleepLog())
        _ = try await remote.list("heads")
        let requests = await transport.requests
        let r = try #require(requests.first)
        #expect(requests.count == 1)
        #expect(r.method == "PROPFIND")
        #expect(r.url == "\(Self.base)/heads/")
        #expect(r.headers["Depth"] == "1")
        if case .bytes(let body) = r.body {
            let text = String(decoding: body, as: UTF8.self)
            #expect(text.contains("getetag"))
        } else {
            Issue.record("PROPFIND without a body")
        }
    }

    /// WsgiDAV lists `<getetag>16376626-1796344835-4</getetag>` while its GET and PUT answer
    /// `ETag: "16376626-1796344835-4"`: the listing is read as the quoted entity-tag, or every
    /// pull would find every head changed. Tags already quoted, weak or not, stay as they are.
    @Test func listedETagsWithoutQuotesAreReadAsEntityTags() async throws {
        let multistatus = """
            <?xml version="1.0" encoding="utf-8" ?>
            <ns0:multistatus xmlns:ns0="DAV:">
            <ns0:response><ns0:href>/dav/aisync/heads/a.json</ns0:href><ns0:propstat><ns0:prop>
            <ns0:resourcetype /><ns0:getetag>16376626-1796344835-4</ns0:getetag>
            </ns0:prop><ns0:status>HTTP/1.1 200 OK</ns0:status></ns0:propstat></ns0:response>
            <ns0:response><ns0:href>/dav/aisync/heads/b.json</ns0:href><ns0:propstat><ns0:prop>
            <ns0:resourcetype /><ns0:getetag>"q-1"</ns0:getetag>
            </ns0:prop><ns0:status>HTTP/1.1 200 OK</ns0:status></ns0:propstat></ns0:response>
            <ns0:response><ns0:href>/dav/aisync/heads/c.json</ns0:href><ns0:propstat><ns0:prop>
            <ns0:resourcetype /><ns0:getetag>W/"w-1"</ns0:getetag>
            </ns0:prop><ns0:status>HTTP/1.1 200 OK</ns0:status></ns0:propstat></ns0:response>
            </ns0:multistatus>
            """
        let transport = FakeTransport([Self.status(207, [:], multistatus)])
        let remote = try Self.makeRemote(transport, sleeps: SleepLog())
        let entries = try await remote.list("heads")
        #expect(
            entries == [
                RemoteEntry(name: "a.json", etag: "\"16376626-1796344835-4\""),
                RemoteEntry(name: "b.json", etag: "\"q-1\""), RemoteEntry(name: "c.json", etag: "W/\"w-1\""),
            ])
    }

    /// A GET's ETag is unsettled when the file changed less than two seconds before the answer
    /// (`Last-Modified` against `Date`): a server with whole-second ETags may keep it through a
    /// rewrite in that second.
    @Test(
        arguments: [
            ("Fri, 04 Dec 2026 00:40:35 GMT", "Fri, 04 Dec 2026 00:40:35 GMT", false),
            ("Fri, 04 Dec 2026 00:40:35 GMT", "Fri, 04 Dec 2026 00:40:36 GMT", false),
            ("Fri, 04 Dec 2026 00:40:35 GMT", "Fri, 04 Dec 2026 00:40:37 GMT", true),
            ("Thu, 31 Dec 2026 23:59:59 GMT", "Fri, 01 Jan 2027 00:00:00 GMT", false),
            ("Fri, 04 Dec 2026 00:40:39 GMT", "Fri, 04 Dec 2026 00:40:35 GMT", false),
            ("Fri, 04 Dec 2026 00:40:35 GMT", nil, true), (nil, "Fri, 04 Dec 2026 00:40:35 GMT", true),
            ("yesterday", "Fri, 04 Dec 2026 00:40:35 GMT", true),
        ] as [(String?, String?, Bool)])
    func readETagIsUnsettledRightAfterAChange(lastModified: String?, date: String?, settled: Bool) async throws {
        var headers = ["etag": "\"1-2-3\""]
        headers["last-modified"] = lastModified
        headers["date"] = date
        let transport = FakeTransport([Self.status(200, headers, "{}")])
        let remote = try Self.makeRemote(transport, sleeps: SleepLog())
        let file = try #require(try await remote.read("heads/a.json"))
        #expect(file.etag == "\"1-2-3\"")
        #expect(file.etagSettled == settled)
    }

    @Test(
        "HTTP dates: the IMF-fixdate form only",
        arguments: [
            ("Thu, 01 Jan 1970 00:00:00 GMT", 0), ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777),
            ("Tue, 29 Feb 2000 12:00:00 GMT", 951_825_600), ("Fri, 04 Dec 2026 00:40:35 GMT", 1_796_344_835),
            ("Sunday, 06-Nov-94 08:49:37 GMT", nil), ("Sun Nov  6 08:49:37 1994", nil),
            ("Sun, 06 Nov 1994 08:49:37 UTC", nil), ("Sun, 06 Nov 1994 8:49:37 GMT", nil),
            ("Sun, 32 Nov 1994 08:49:37 GMT", nil), ("Sun, 06 Nov -994 08:49:37 GMT", nil), ("", nil),
        ] as [(String, Int64?)])
    func httpDates(text: String, seconds: Int64?) {
        #expect(HTTPDate.seconds(text) == seconds)
    }

    @Test func plainHTTPRemoteNeverLists() async throws {
        let transport = FakeTransport(fallback: Self.status(207, [:], Self.apacheMultistatus))
        let remote = try Self.makeRemote(transport, sleeps: SleepLog(), plain: true)
        #expect(remote.canList == false)
        let entries = try await remote.list("heads")
        #expect(entries == nil)
        let count = await transport.requests.count
        #expect(count == 0)
    }

    @Test(arguments: ["../x", "heads/../aisync.json", "heads//x", "/etc/passwd", "a b", "heads/x\\y"])
    func unsafePathsNeverReachTheServer(path: String) async throws {
        let transport = FakeTransport()
        let remote = try Self.makeRemote(transport, sleeps: SleepLog())
        var caught: AISyncError?
        do { _ = try await remote.read(path) } catch { caught = error }
        #expect(caught != nil)
        let count = await transport.requests.count
        #expect(count == 0)
    }

    // MARK: - PROPFIND parsing

    static let d1 = String(repeating: "a1", count: 16)
    static let d2 = String(repeating: "b2", count: 16)

    /// What Apache mod_dav answers (namespaced live properties, absolute-path hrefs).
    static let apacheMultistatus = """
        <?xml version="1.0" encoding="utf-8"?>
        <D:multistatus xmlns:D="DAV:" xmlns:ns0="DAV:">
        <D:response xmlns:lp1="DAV:" xmlns:lp2="http://apache.org/dav/props/">
        <D:href>/dav/aisync/heads/</D:href>
        <D:propstat>
        <D:prop>
        <lp1:resourcetype><D:collection/></lp1:resourcetype>
        <lp1:getetag>"1000-5f3a1b2c3d4e5"</lp1:getetag>
        </D:prop>
        <D:status>HTTP/1.1 200 OK</D:status>
        </D:propstat>
        </D:response>
        <D:response xmlns:lp1="DAV:" xmlns:lp2="http://apache.org/dav/props/">
        <D:href>/dav/aisync/heads/\(d1).json</D:href>
        <D:propstat>
        <D:prop>
        <lp1:resourcetype/>
        <lp1:getetag>"f5-61a2b3c4d5e6f"</lp1:getetag>
        </D:prop>
        <D:status>HTTP/1.1 200 OK</D:status>
        </D:propstat>
        </D:response>
        <D:response xmlns:lp1="DAV:" xmlns:lp2="http://apache.org/dav/props/">
        <D:href>/dav/aisync/heads/\(d2).json</D:href>
        <D:propstat>
        <D:prop>
        <lp1:resourcetype/>
        <lp1:getetag>"e3-61a2b3c4d5e70"</lp1:getetag>
        </D:prop>
        <D:status>HTTP/1.1 200 OK</D:status>
        </D:propstat>
        </D:response>
        </D:multistatus>
        """

    /// What Nextcloud (sabre/dav) answers: lowercase `d:` prefix, quoted etags as entities,
    /// a 404 propstat for properties it does not have; hrefs here are full URLs.
    static let nextcloudMultistatus = """
        <?xml version="1.0"?>
        <d:multistatus xmlns:d="DAV:" xmlns:s="http://sabredav.org/ns" xmlns:oc="http://owncloud.org/ns" xmlns:nc="http://nextcloud.org/ns">
          <d:response>
            <d:href>https://cloud.example.com/remote.php/dav/files/me/aisync/heads/</d:href>
            <d:propstat>
              <d:prop>
                <d:getetag>&quot;65f1c0a7b2e3d&quot;</d:getetag>
                <d:resourcetype><d:collection/></d:resourcetype>
              </d:prop>
              <d:status>HTTP/1.1 200 OK</d:status>
            </d:propstat>
          </d:response>
          <d:response>
            <d:href>https://cloud.example.com/remote.php/dav/files/me/aisync/heads/\(d1).json</d:href>
            <d:propstat>
              <d:prop>
                <d:getetag>&quot;0a9e8f7d6c5b4a39f2e1d0c9b8a7f6e5&quot;</d:getetag>
                <d:resourcetype/>
              </d:prop>
              <d:status>HTTP/1.1 200 OK</d:status>
            </d:propstat>
            <d:propstat>
              <d:prop>
                <oc:checksums/>
              </d:prop>
              <d:status>HTTP/1.1 404 Not Found</d:status>
            </d:propstat>
          </d:response>
          <d:response>
            <d:href>https://cloud.example.com/remote.php/dav/files/me/aisync/heads/\(d2).json</d:href>
            <d:propstat>
              <d:prop>
                <d:getetag>&quot;1b2c3d&quot;</d:getetag>
                <d:resourcetype/>
              </d:prop>
              <d:status>HTTP/1.1 200 OK</d:status>
            </d:propstat>
          </d:response>
        </d:multistatus>
        """

    @Test func apacheMultistatusBecomesEntries() async throws {
        let transport = FakeTransport(fallback: Self.status(207, ["content-type": "text/xml"], Self.apacheMultistatus))
        let remote = try Self.makeRemote(transport, sleeps: SleepLog())
        let entries = try await remote.list("heads")
        #expect(
            entries == [
                RemoteEntry(name: "\(Self.d1).json", etag: "\"f5-61a2b3c4d5e6f\""),
                RemoteEntry(name: "\(Self.d2).json", etag: "\"e3-61a2b3c4d5e70\""),
            ])
        let parsed = try #require(WebDAVMultistatus.parse(Array(Self.apacheMultistatus.utf8)))
        #expect(parsed.count == 3)
        #expect(parsed.first?.isCollection == true)
        #expect(parsed.first?.href == "/dav/aisync/heads/")
    }

    /// Inputs that crashed FoundationXML's parser (found by fuzzing: Tests/Fuzz/regressions/propfind)
    /// are refused before it sees them, as not a multistatus; a normal answer with a declaration still parses.
    @Test(arguments: [
        Array("<?xml version=\"1.0\"?><?x?><d:multistatus xmlns:d=\"DAV:\"/>".utf8),
        Array("<d:multistatus xmlns:d=\"DAV:\"><a".utf8) + [0xFF, 0xFF] + Array("b/></d:multistatus>".utf8),
    ])
    func xmlThatCrashedTheParserIsRefused(_ bytes: [UInt8]) {
        #expect(WebDAVMultistatus.parse(bytes) == nil)
    }

    @Test func aDeclarationAndABOMStillParse() throws {
        let body = [0xEF, 0xBB, 0xBF] + Array(Self.apacheMultistatus.utf8)
        #expect(try #require(WebDAVMultistatus.parse(body)).count == 3)
    }

    @Test func nextcloudMultistatusBecomesEntries() async throws {
        let transport = FakeTransport(fallback: Self.status(207, [:], Self.nextcloudMultistatus))
        let sleeps = SleepLog()
        let remote = try Self.makeRemote(
            transport, sleeps: sleeps, url: "https://cloud.example.com/remote.php/dav/files/me/aisync")
        let entries = try await remote.list("heads")
        #expect(
            entries == [
                RemoteEntry(name: "\(Self.d1).json", etag: "\"0a9e8f7d6c5b4a39f2e1d0c9b8a7f6e5\""),
                RemoteEntry(name: "\(Self.d2).json", etag: "\"1b2c3d\""),
            ])
    }

    static let hostileHrefs = [
        "../../etc/passwd",
        "/dav/aisync/heads/../x",
        "/dav/aisync/heads/..",
        "/dav/aisync/heads/%2e%2e",
        "/dav/aisync/heads/%2E%2E/%2e%2e/etc/passwd",
        "/dav/aisync/heads/..%2F..%2Fetc%2Fpasswd",
        "/dav/aisync/heads/a%2Fb.json",
        "/dav/aisync/heads/sub/x.json",
        "/dav/aisync/segments/x.json",
        "/dav/aisync/x.json",
        "/dav/aisync/heads/UPPER.json",
        "/dav/aisync/heads/a%20b.json",
        "/dav/aisync/heads/x%00.json",
        "/dav/aisync/heads/%zz.json",
        "/dav/aisync/heads/.",
        "x.json",
        "",
    ]

    @Test(arguments: hostileHrefs)
    func hostileHrefsAreIgnored(href: String) {
        let name = HTTPRemote.childName(href: href, directory: "heads", base: Self.base)
        #expect(name == nil)
    }

    @Test(arguments: [
        ("/dav/aisync/heads/\(String(repeating: "a1", count: 16)).json", "\(String(repeating: "a1", count: 16)).json"),
        ("https://dav.example.com/dav/aisync/heads/abc.json", "abc.json"),
        ("/dav/aisync/heads/1.seg", "1.seg"),
        ("/dav/aisync/heads/%61bc.json", "abc.json"),
    ])
    func safeHrefsGiveTheirName(href: String, expected: String) {
        let name = HTTPRemote.childName(href: href, directory: "heads", base: Self.base)
        #expect(name == expected)
    }

    /// `childName` takes the remote's base but only compares the last directory name, so a
    /// file in another folder that happens to be called `heads` is taken for one of ours.
    @Test(arguments: [
        "/dav/other/heads/x.json",
        "https://evil.example.net/heads/x.json",
        "/dav/aisync/heads/old/heads/x.json",
        "/heads/x.json",
    ])
    func hrefsOutsideTheRemotesDirectoryAreIgnored(href: String) {
        let name = HTTPRemote.childName(href: href, directory: "heads", base: Self.base)
        #expect(name == nil, "\(href) is not directly inside \(Self.base)/heads/")
    }

    @Test func hostileEntriesInAListingAreDropped() async throws {
        var body = "<?xml version=\"1.0\"?><D:multistatus xmlns:D=\"DAV:\">"
        for href in Self.hostileHrefs + ["/dav/aisync/heads/\(Self.d1).json"] {
            body +=
                "<D:response><D:href>\(href)</D:href><D:propstat><D:prop><D:getetag>\"e\"</D:getetag><D:resourcetype/></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"
        }
        body += "</D:multistatus>"
        let transport = FakeTransport(fallback: Self.status(207, [:], body))
        let remote = try Self.makeRemote(transport, sleeps: SleepLog())
        let entries = try await remote.list("heads")
        #expect(entries == [RemoteEntry(name: "\(Self.d1).json", etag: "\"e\"")])
    }

    /// Truncated or mismatched XML (a cut connection, a body truncated at maxBytes) must not be
    /// taken for a complete listing. On Linux, swift-corelibs-foundation's `XMLParser.parse()`
    /// returns true after some fatal errors (premature end of document), setting `parserError`.
    @Test(arguments: [
        "not xml at all",
        "<D:multistatus xmlns:D=\"DAV:\"><D:response></D:nope></D:multistatus>",
        "<D:multistatus xmlns:D=\"DAV:\"><D:response><D:href>/dav/aisync/heads/x.json</D:href>",
        "<html><body>Welcome to nginx!</body>",
        "<D:multistatus xmlns:D=\"DAV:\"><D:response></D:multistatus>",
    ])
    func malformedMultistatusIsDamagedData(body: String) async throws {
        let transport = FakeTransport(fallback: Self.status(207, [:], body))
        let remote = try Self.makeRemote(transport, sleeps: SleepLog())
        var caught: AISyncError?
        do { _ = try await remote.list("heads") } catch { caught = error }
        #expect(caught?.code == .damagedData, "\(String(describing: caught))")
    }

    @Test func externalEntitiesAreNotResolved() async throws {
        let body = """
            <?xml version="1.0"?>
            <!DOCTYPE m [<!ENTITY x SYSTEM "file:///etc/hostname">]>
            <D:multistatus xmlns:D="DAV:"><D:response><D:href>/dav/aisync/heads/&x;.json</D:href>
            <D:propstat><D:prop><D:resourcetype/></D:prop></D:propstat></D:response></D:multistatus>
            """
        let transport = FakeTransport(fallback: Self.status(207, [:], body))
        let remote = try Self.makeRemote(transport, sleeps: SleepLog())
        let hostname =
            (try? String(contentsOfFile: "/etc/hostname", encoding: .utf8))?.trimmingCharacters(
                in: .whitespacesAndNewlines) ?? "\u{0}"
        var names: [String] = []
        do { names = (try await remote.list("heads") ?? []).map(\.name) } catch { #expect(error.code == .damagedData) }
        let leaked = names.contains { !hostname.isEmpty && $0.contains(hostname) }
        #expect(!leaked, "\(names)")
    }

    // MARK: - Credentials

    @Test func a401NeverShowsThePassword() async throws {
        let password = "Sup3r-S3cret-pw"
        let transport = FakeTransport(
            fallback: Self.status(401, ["www-authenticate": "Basic realm=\"dav\""], "Unauthorized"))
        let credentials = Credentials(user: "alice", password: password)
        let remote = try Self.makeRemote(transport, sleeps: SleepLog(), credentials: credentials)
        var caught: AISyncError?
        do { _ = try await remote.read("aisync.json") } catch { caught = error }
        let error = try #require(caught)
        #expect(error.code == .permission)
        let texts = [
            error.description, "\(error)", String(reflecting: error), error.message, error.hint ?? "",
            error.cause ?? "",
        ]
        let encoded = Data("alice:\(password)".utf8).base64EncodedString()
        for text in texts {
            #expect(!text.contains(password))
            #expect(!text.contains(encoded))
        }
        #expect(!credentials.description.contains(password))
        #expect(!"\(credentials)".contains(password))
        // Also when the server answers 403 or 500.
        for status in [403, 500] {
            let t = FakeTransport(fallback: Self.status(status))
            let r = try Self.makeRemote(t, sleeps: SleepLog(), credentials: credentials, maxAttempts: 1)
            var e: AISyncError?
            do { _ = try await r.read("aisync.json") } catch { e = error }
            let text = e?.description ?? ""
            #expect(!text.isEmpty && !text.contains(password))
        }
    }

    struct NetrcCase: Sendable, CustomTestStringConvertible {
        var label: String
        var text: String
        var host: String
        var expected: Credentials?
        var testDescription: String { label }
    }

    static let netrcCases: [NetrcCase] = [
        NetrcCase(
            label: "machine match", text: "machine dav.example.com login alice password pw1\n",
            host: "dav.example.com", expected: Credentials(user: "alice", password: "pw1")),
        NetrcCase(
            label: "second machine",
            text:
                "machine other.example.com login bob password pb\nmachine dav.example.com\n\tlogin alice\n\tpassword pw1\n",
            host: "dav.example.com", expected: Credentials(user: "alice", password: "pw1")),
        NetrcCase(
            label: "default fallback",
            text: "machine other.example.com login bob password pb\ndefault login anon password guest\n",
            host: "dav.example.com", expected: Credentials(user: "anon", password: "guest")),
        NetrcCase(
            label: "machine beats default",
            text: "default login anon password guest\nmachine dav.example.com login alice password pw1\n",
            host: "dav.example.com", expected: Credentials(user: "alice", password: "pw1")),
        NetrcCase(
            label: "missing password", text: "machine dav.example.com login alice\n",
            host: "dav.example.com", expected: nil),
        NetrcCase(
            label: "no match, no default", text: "machine other.example.com login bob password pb\n",
            host: "dav.example.com", expected: nil),
        NetrcCase(
            label: "case-insensitive host", text: "machine DAV.Example.COM login alice password pw1\n",
            host: "dav.example.com", expected: Credentials(user: "alice", password: "pw1")),
        NetrcCase(
            label: "case-insensitive host (query upper)", text: "machine dav.example.com login alice password pw1\n",
            host: "DAV.EXAMPLE.COM", expected: Credentials(user: "alice", password: "pw1")),
        NetrcCase(
            label: "one line, account ignored", text: "machine dav.example.com login alice account x password pw1",
            host: "dav.example.com", expected: Credentials(user: "alice", password: "pw1")),
        NetrcCase(
            label: "tabs and blank lines", text: "\n\nmachine\tdav.example.com\n\tlogin\talice\n\n\tpassword  pw1\n",
            host: "dav.example.com", expected: Credentials(user: "alice", password: "pw1")),
        NetrcCase(
            label: "lone CR separators", text: "machine dav.example.com\rlogin alice\rpassword pw1\r",
            host: "dav.example.com", expected: Credentials(user: "alice", password: "pw1")),
        NetrcCase(label: "empty file", text: "", host: "dav.example.com", expected: nil),
    ]

    @Test(arguments: netrcCases)
    func netrcParsing(_ c: NetrcCase) {
        let parsed = Credentials.parseNetrc(c.text, host: c.host)
        #expect(parsed == c.expected)
    }

    /// A netrc saved with Windows line endings: Swift treats "\r\n" as one Character, which
    /// equals neither "\r" nor "\n", so the tokenizer glues tokens across lines.
    @Test func netrcWithWindowsLineEndings() {
        let text = "machine dav.example.com\r\nlogin alice\r\npassword pw1\r\n"
        let parsed = Credentials.parseNetrc(text, host: "dav.example.com")
        #expect(parsed == Credentials(user: "alice", password: "pw1"))
    }

    @Test func environmentWinsOverNetrc() throws {
        let dir = FileManager.default.temporaryDirectory.path + "/aisync-netrc-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let netrc = "\(dir)/netrc"
        FileManager.default.createFile(
            atPath: netrc, contents: Data("machine dav.example.com login fromnetrc password np\n".utf8))

        let both = Credentials.lookup(
            host: "dav.example.com", environment: ["AISYNC_USER": "envuser", "AISYNC_PASSWORD": "ep", "NETRC": netrc])
        #expect(both == Credentials(user: "envuser", password: "ep"))
        let netrcOnly = Credentials.lookup(host: "dav.example.com", environment: ["NETRC": netrc])
        #expect(netrcOnly == Credentials(user: "fromnetrc", password: "np"))
        let userOnly = Credentials.lookup(
            host: "dav.example.com", environment: ["AISYNC_USER": "envuser", "NETRC": netrc])
        #expect(userOnly == Credentials(user: "fromnetrc", password: "np"))
        let homeNetrc = "\(dir)/.netrc"
        FileManager.default.createFile(atPath: homeNetrc, contents: Data("default login h password hp\n".utf8))
        let viaHome = Credentials.lookup(host: "dav.example.com", environment: ["HOME": dir])
        #expect(viaHome == Credentials(user: "h", password: "hp"))
        let none = Credentials.lookup(host: "dav.example.com", environment: ["HOME": "\(dir)/nowhere"])
        #expect(none == nil)
    }

    // MARK: - Backoff

    @Test(arguments: [
        (0, 0.0, 0), (0, 0.5, 100), (0, 0.999, 199), (0, 1.0, 200),
        (1, 1.0, 400), (3, 1.0, 1600), (5, 1.0, 6400), (6, 1.0, 10_000),
        (10, 1.0, 10_000), (20, 1.0, 10_000), (63, 1.0, 10_000), (1000, 0.5, 5000),
        (2, -1.0, 0), (2, 5.0, 800),
    ])
    func backoffDelay(attempt: Int, unit: Double, expected: Int) {
        let d = Backoff.delay(attempt: attempt, unit: unit)
        #expect(d == expected)
    }

    @Test func backoffDelayStaysWithinBounds() {
        for attempt in 0...40 {
            let ceiling = min(10_000, 200 * (1 << min(attempt, 20)))
            for unit in stride(from: 0.0, to: 1.0, by: 0.0625) {
                let d = Backoff.delay(attempt: attempt, unit: unit)
                #expect(d >= 0 && d <= ceiling, "attempt \(attempt) unit \(unit) → \(d)")
            }
        }
    }

    @Test(arguments: [("7", 7000), (" 3 ", 3000), ("0", 0), ("3600", 3_600_000)])
    func retryAfterParsing(header: String, expected: Int) {
        #expect(Backoff.retryAfter(header) == expected)
    }

    @Test(arguments: ["-1", "3601", "Wed, 21 Oct 2015 07:28:00 GMT", "", "1.5", "99999999999999999999"])
    func retryAfterRejects(header: String) {
        #expect(Backoff.retryAfter(header) == nil)
    }

    // MARK: - RemoteLocation

    struct LocationCase: Sendable, CustomTestStringConvertible {
        var url: String
        var plain = false
        var insecure = false
        /// nil: rejected with `.usage`.
        var kind: RemoteLocation.Kind?
        var base: String? = nil
        var host: String? = nil
        /// Must not appear in the error.
        var secret: String? = nil
        var testDescription: String {
            "\(url)\(plain ? " --plain" : "")\(insecure ? " --insecure" : "") → \(kind?.rawValue ?? "rejected")"
        }
    }

    static let locationCases: [LocationCase] = [
        LocationCase(url: "file:///media/usb/aisync", kind: .folder, base: "/media/usb/aisync", host: ""),
        LocationCase(url: "file:///media/usb/aisync/", kind: .folder, base: "/media/usb/aisync", host: ""),
        LocationCase(url: "file:///", kind: .folder, base: "/", host: ""),
        LocationCase(url: "file://media/usb", kind: nil),
        LocationCase(url: "file://relative", kind: nil),
        LocationCase(url: "file:///a/../etc", kind: nil),
        LocationCase(url: "file:///media/usb", plain: true, kind: nil),
        LocationCase(
            url: "https://dav.example.com/dav/aisync", kind: .webdav, base: "https://dav.example.com/dav/aisync",
            host: "dav.example.com"),
        LocationCase(
            url: "https://Cloud.Example.com:8443/remote.php/dav/files/me/aisync/", kind: .webdav,
            base: "https://Cloud.Example.com:8443/remote.php/dav/files/me/aisync", host: "cloud.example.com"),
        LocationCase(
            url: "https://files.example.com/aisync", plain: true, kind: .http, base: "https://files.example.com/aisync",
            host: "files.example.com"),
        LocationCase(
            url: "http://127.0.0.1:8080/aisync", kind: .webdav, base: "http://127.0.0.1:8080/aisync", host: "127.0.0.1"),
        LocationCase(
            url: "http://localhost/aisync", plain: true, kind: .http, base: "http://localhost/aisync", host: "localhost"
        ),
        LocationCase(url: "http://[::1]:8080/aisync", kind: .webdav, base: "http://[::1]:8080/aisync", host: "::1"),
        LocationCase(url: "http://example.com/aisync", kind: nil),
        LocationCase(
            url: "http://example.com/aisync", insecure: true, kind: .webdav, base: "http://example.com/aisync",
            host: "example.com"),
        LocationCase(url: "http://192.168.1.5/aisync", kind: nil),
        LocationCase(url: "https://alice:Hunter2Secret@dav.example.com/aisync", kind: nil, secret: "Hunter2Secret"),
        LocationCase(url: "https://alice@dav.example.com/aisync", kind: nil),
        LocationCase(url: "http://bob:Pa55word@127.0.0.1/aisync", kind: nil, secret: "Pa55word"),
        LocationCase(url: "https://dav.example.com/aisync?token=abc", kind: nil, secret: "token=abc"),
        LocationCase(url: "https://dav.example.com/aisync#frag", kind: nil),
        LocationCase(url: "https://dav.example.com?x", kind: nil),
        LocationCase(url: "https://dav.example.com/my aisync", kind: nil),
        LocationCase(url: "ftp://dav.example.com/aisync", kind: nil),
        LocationCase(url: "dav.example.com/aisync", kind: nil),
        LocationCase(url: "https:///aisync", kind: nil),
        LocationCase(url: "", kind: nil),
    ]

    @Test(arguments: locationCases)
    func remoteLocationValidation(_ c: LocationCase) {
        var location: RemoteLocation?
        var caught: AISyncError?
        do { location = try RemoteLocation(url: c.url, plain: c.plain, insecure: c.insecure) } catch { caught = error }
        if let kind = c.kind {
            #expect(caught == nil, "\(String(describing: caught))")
            #expect(location?.kind == kind)
            if let base = c.base { #expect(location?.base == base) }
            if let host = c.host { #expect(location?.host == host) }
        } else {
            #expect(location == nil)
            #expect(caught?.code == .usage)
            if let secret = c.secret {
                let text = caught?.description ?? ""
                #expect(!text.contains(secret), "\(text)")
            }
        }
    }

    /// `isLoopback` treats any host starting with "127." as loopback, so a DNS name such as
    /// 127.0.0.1.nip.io (which can resolve anywhere) gets plain http without --insecure.
    @Test(arguments: ["http://127.0.0.1.evil.example/aisync", "http://127.attacker.example/aisync"])
    func dnsNamesThatLookLikeLoopbackNeedInsecure(url: String) {
        var caught: AISyncError?
        do { _ = try RemoteLocation(url: url, plain: false, insecure: false) } catch { caught = error }
        #expect(caught?.code == .usage, "\(url) is not a loopback address")
    }

    @Test(arguments: [
        ("origin", true), ("usb", true), ("a", true), ("0", true), ("nas-2", true), ("my_dav", true), ("9lives", true),
        (String(repeating: "a", count: 32), true), (String(repeating: "a", count: 33), false),
        ("", false), ("-x", false), ("_x", false), ("Origin", false), ("a b", false), ("a/b", false), ("..", false),
        ("../x", false), ("a.b", false), ("é", false), ("a\u{0}", false), ("x\n", false),
    ])
    func remoteNameValidation(name: String, valid: Bool) {
        var caught: AISyncError?
        do { try RemoteLocation.validateName(name) } catch { caught = error }
        #expect((caught == nil) == valid)
        if let caught { #expect(caught.code == .usage) }
    }

    // MARK: - RemotePath

    @Test(arguments: [
        "", "a//b", "../x", "a/../b", "..", ".", "a/./b", "./a", "/abs", "a/", "a\\b", "a b", "a\tb",
        "a\u{1}b", "a\u{7F}b", "a\nb", "héllo", "heads/x.json/",
    ])
    func remotePathRejects(path: String) {
        var caught: AISyncError?
        do { try RemotePath.validate(path) } catch { caught = error }
        #expect(caught != nil)
    }

    @Test(arguments: [
        "aisync.json", "devices.json", "heads/0123.json", "segments/abc/12.seg", "objects/ab/abcdef", "a..b", ".hidden",
    ])
    func remotePathAccepts(path: String) {
        var caught: AISyncError?
        do { try RemotePath.validate(path) } catch { caught = error }
        #expect(caught == nil)
    }
}
