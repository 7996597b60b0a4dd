import AISyncCore
import AISyncHTTP
import AISyncRemote
import AISyncTesting
import Foundation
import Testing

/// `S3Remote` against scripted answers: what no test store can be made to do on demand
/// (`SlowDown`, a 409 `ConditionalRequestConflict`, a store that ignores conditions), and what
/// every request must carry.
@Suite("S3 remote, scripted")
struct S3RemoteScriptedTests {
    static let key = SigV4.Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret/with+signs")

    static func remote(_ transport: ScriptedTransport, clock: ManualClock = ManualClock()) throws(AISyncError)
        -> S3Remote
    {
        S3Remote(
            location: try S3Location(
                url: "s3://photos/aisync", endpoint: "http://127.0.0.1:9000", region: "eu-west-3", addressing: nil),
            transport: transport, credentials: AWSCredentials(key: key, source: "environment (AWS_ACCESS_KEY_ID)"),
            environment: .test(seed: 27, clock: clock))
    }

    static func error(_ status: Int, _ code: String, retryAfter: String? = nil) -> ScriptedTransport.Step {
        .respond(
            HTTPResponse(
                status: status, headers: retryAfter.map { ["retry-after": $0] } ?? [:],
                body: Array("<Error><Code>\(code)</Code><Message>m</Message></Error>".utf8)))
    }

    @Test("every request is signed for its own host, path and payload, and dated by the environment's clock")
    func signed() async throws {
        let transport = ScriptedTransport([.respond(HTTPResponse(status: 200, headers: ["etag": "\"e1\""]))])
        let remote = try Self.remote(transport)
        let result = try await remote.write("heads/d.json", Array("{}".utf8), condition: .createOnly)
        #expect(result == .written(etag: "\"e1\""))
        let sent = try #require(await transport.sent.first)
        #expect(sent.request.url == "http://127.0.0.1:9000/photos/aisync/heads/d.json")
        #expect(sent.request.headers["If-None-Match"] == "*")
        #expect(sent.request.headers["x-amz-content-sha256"] == SHA256.hash(Array("{}".utf8)).hex)
        #expect(sent.request.headers["x-amz-date"] == "20240101T000000Z")
        // The same signature, made independently from the pieces the request went out with.
        let expected = SigV4.sign(
            SigV4.Request(
                method: "PUT", path: "/photos/aisync/heads/d.json", headers: [("host", "127.0.0.1:9000")],
                payloadHash: SHA256.hash(Array("{}".utf8)).hex),
            credentials: Self.key, region: "eu-west-3", time: Timestamp(milliseconds: ManualClock.defaultStart))
        #expect(sent.request.headers["authorization"] == expected.first { $0.name == "authorization" }?.value)
        #expect(!"\(sent.request.headers)".contains("secret/with+signs"))
    }

    @Test("SlowDown and 5xx are retried after Retry-After, each attempt signed anew")
    func slowDownRetried() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport([
            Self.error(503, "SlowDown", retryAfter: "3"), Self.error(500, "InternalError"),
            .respond(HTTPResponse(status: 200, headers: ["etag": "\"x\""], body: Array("hello".utf8))),
        ])
        let remote = try Self.remote(transport, clock: clock)
        let file = try #require(try await remote.read("aisync.json", maxBytes: 1 << 20))
        #expect(file.bytes == Array("hello".utf8))
        let dates = await transport.requests.map { $0.headers["x-amz-date"] ?? "" }
        #expect(dates.count == 3)
        #expect(dates[0] != dates[1], "the retry after Retry-After: 3 carries a new date: \(dates)")
        #expect(clock.now() - ManualClock.defaultStart >= 3000, "Retry-After: 3 was waited")
    }

    @Test("a 409 ConditionalRequestConflict is retried; another 409 is not")
    func conflictRetried() async throws {
        let transport = ScriptedTransport([
            Self.error(409, "ConditionalRequestConflict"),
            .respond(HTTPResponse(status: 200, headers: ["etag": "\"new\""])),
        ])
        let remote = try Self.remote(transport)
        #expect(
            try await remote.write("heads/d.json", [1], condition: .replacing(etag: "\"old\""))
                == .written(etag: "\"new\""))
        #expect(await transport.requests.count == 2)

        let other = ScriptedTransport([Self.error(409, "BucketNotEmpty")])
        do {
            _ = try await Self.remote(other).write("heads/d.json", [1], condition: .always)
            Issue.record("a 409 BucketNotEmpty was taken as written")
        } catch {
            #expect(error.cause?.contains("BucketNotEmpty") == true, "\(error)")
        }
        #expect(await other.requests.count == 1)
    }

    @Test("the probe: a store that refuses the second create-only write honours conditions; one that takes it does not")
    func probe() async throws {
        let honouring = ScriptedTransport(
            [.respond(HTTPResponse(status: 200)), Self.error(412, "PreconditionFailed")],
            fallback: .respond(HTTPResponse(status: 204)))
        #expect(try await Self.remote(honouring).honoursConditionalWrites())
        let ignoring = ScriptedTransport([], fallback: .respond(HTTPResponse(status: 200)))
        #expect(try await !Self.remote(ignoring).honoursConditionalWrites())
        let puts = await ignoring.requests.filter { $0.method == "PUT" }
        #expect(puts.count == 2 && puts.allSatisfy { $0.headers["If-None-Match"] == "*" })
        #expect(puts[0].url == puts[1].url && puts[0].url.contains("/photos/aisync/.aisync-probe/"))
    }

    @Test("a listing whose continuation token repeats is refused, not followed forever")
    func loopingListing() async throws {
        let page = """
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><IsTruncated>true</IsTruncated>\
            <NextContinuationToken>same</NextContinuationToken><Contents><Key>aisync/heads/a.json</Key>\
            <ETag>"1"</ETag><Size>1</Size></Contents></ListBucketResult>
            """
        let transport = ScriptedTransport([], fallback: .respond(HTTPResponse(status: 200, body: Array(page.utf8))))
        do {
            _ = try await Self.remote(transport).list("heads")
            Issue.record("a looping listing was followed")
        } catch {
            #expect(error.code == .damagedData && error.message.contains("repeated a continuation token"), "\(error)")
        }
        #expect(await transport.requests.count == 2)
    }

    @Test("a bucket in another region is named by the header AWS sends, on HeadBucket (200 or 301) and on errors")
    func regionHeader() async throws {
        for (status, method) in [(200, "HEAD"), (301, "HEAD"), (400, "GET"), (403, "GET")] {
            let transport = ScriptedTransport([
                .respond(HTTPResponse(status: status, headers: ["x-amz-bucket-region": "ap-south-1"]))
            ])
            let remote = try Self.remote(transport)
            do {
                if method == "HEAD" {
                    try await remote.checkBucket()
                } else {
                    _ = try await remote.read("aisync.json", maxBytes: 1 << 20)
                }
                Issue.record("\(status) to \(method) with another region's header was accepted")
            } catch {
                #expect(error.code == .configuration, "\(status): \(error)")
                #expect(error.message == "the bucket photos is in region ap-south-1, not eu-west-3", "\(status)")
                #expect(error.hint == "Give the remote the region ap-south-1")
            }
            #expect(
                await transport.requests.map(\.url) == [
                    method == "HEAD"
                        ? "http://127.0.0.1:9000/photos/" : "http://127.0.0.1:9000/photos/aisync/aisync.json"
                ])
        }
        // The bucket's own region, or none named (SeaweedFS), passes; a 404 is a missing bucket.
        for headers in [["x-amz-bucket-region": "eu-west-3"], [:]] {
            let transport = ScriptedTransport([.respond(HTTPResponse(status: 200, headers: headers))])
            try await Self.remote(transport).checkBucket()
        }
        let missing = ScriptedTransport([.respond(HTTPResponse(status: 404))])
        do {
            try await Self.remote(missing).checkBucket()
            Issue.record("a 404 to HeadBucket was accepted")
        } catch {
            #expect(error.code == .notFound && error.message == "the bucket photos does not exist", "\(error)")
        }
    }
}
