import AISyncCore
import AISyncHTTP
import AISyncTestSupport
import AISyncTesting
import Foundation
import Testing

@testable import AISyncRemote

/// Multipart uploads against scripted answers: the order of calls, what each part carries, a
/// part retried on its own, an upload ended when a part fails, and the sweep of uploads a
/// killed process left.
@Suite("S3 multipart uploads, scripted")
struct S3MultipartScriptedTests {
    /// A remote that sends files over 10 bytes in parts of 5.
    static func remote(_ transport: ScriptedTransport) throws(AISyncError) -> S3Remote {
        S3Remote(
            location: try S3Location(
                url: "s3://photos/aisync", endpoint: "http://127.0.0.1:9000", region: "eu-west-3", addressing: nil),
            transport: transport,
            credentials: AWSCredentials(key: S3RemoteScriptedTests.key, source: "environment (AWS_ACCESS_KEY_ID)"),
            parts: S3PartPolicy(threshold: 10, partSize: 5), environment: .test(seed: 27, clock: ManualClock()))
    }

    static func ok(_ xml: String = "", etag: String? = nil) -> ScriptedTransport.Step {
        .respond(HTTPResponse(status: 200, headers: etag.map { ["etag": $0] } ?? [:], body: Array(xml.utf8)))
    }

    static let initiated = ok(
        #"<InitiateMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>photos</Bucket>"#
            + "<Key>aisync/objects/ab/x</Key><UploadId>up-1</UploadId></InitiateMultipartUploadResult>")

    /// A 12-byte file.
    static func file() throws -> (path: String, bytes: [UInt8]) {
        let bytes = Array("abcdefghijkl".utf8)
        let path = "\(CLIHarness.makeTemporaryDirectory())/big"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, bytes)
    }

    @Test("a file over the threshold goes up in parts, each signed with its own hash, a failed part retried alone")
    func partsInOrder() async throws {
        let transport = ScriptedTransport([
            Self.initiated, Self.ok(etag: "\"p1\""), S3RemoteScriptedTests.error(500, "InternalError"),
            Self.ok(etag: "\"p2\""), Self.ok(etag: "\"p&3\""),
            Self.ok("<CompleteMultipartUploadResult><ETag>\"whole-3\"</ETag></CompleteMultipartUploadResult>"),
        ])
        let (path, bytes) = try Self.file()
        let result = try await Self.remote(transport).upload("objects/ab/x", from: path, condition: .createOnly)
        #expect(result == .written(etag: "\"whole-3\""))
        let sent = await transport.requests
        #expect(sent.map(\.method) == ["POST", "PUT", "PUT", "PUT", "PUT", "POST"])
        #expect(sent[0].url == "http://127.0.0.1:9000/photos/aisync/objects/ab/x?uploads=")
        #expect(sent[1].url.hasSuffix("/photos/aisync/objects/ab/x?partNumber=1&uploadId=up-1"))
        #expect(sent[2].url == sent[3].url && sent[3].url.hasSuffix("?partNumber=2&uploadId=up-1"), "part 2 again")
        let parts = [sent[1], sent[3], sent[4]]
        #expect(parts.map(\.body) == [.bytes(Array(bytes[0..<5])), .bytes(Array(bytes[5..<10])), .bytes([107, 108])])
        for part in parts {
            guard case .bytes(let body) = part.body else { continue }
            #expect(part.headers["x-amz-content-sha256"] == SHA256.hash(body).hex)
        }
        let complete = sent[5]
        #expect(complete.url.hasSuffix("/photos/aisync/objects/ab/x?uploadId=up-1"))
        #expect(complete.headers["If-None-Match"] == "*", "create-only, like a whole PutObject")
        guard case .bytes(let xml) = complete.body else { throw AISyncError(.other, "no completion body") }
        #expect(
            String(decoding: xml, as: UTF8.self).contains(
                #"<Part><PartNumber>1</PartNumber><ETag>"p1"</ETag></Part><Part><PartNumber>2</PartNumber><ETag>"p2"</ETag></Part><Part><PartNumber>3</PartNumber><ETag>"p&amp;3"</ETag></Part>"#
            ))
        #expect(complete.headers["x-amz-content-sha256"] == SHA256.hash(xml).hex)
    }

    @Test("a file at the threshold, and a head, go up whole")
    func smallWhole() async throws {
        let transport = ScriptedTransport([], fallback: Self.ok(etag: "\"e\""))
        let (path, _) = try Self.file()
        _ = try await Self.remote(transport).upload("heads/d.json", from: path, condition: .replacing(etag: "\"o\""))
        #expect(await transport.requests.map(\.method) == ["PUT"])
        #expect(await !transport.requests[0].url.contains("?"))
    }

    @Test("a part refused ends the upload: AbortMultipartUpload, then the part's error")
    func failedPartAborts() async throws {
        let transport = ScriptedTransport(
            [Self.initiated, Self.ok(etag: "\"p1\""), S3RemoteScriptedTests.error(403, "AccessDenied")],
            fallback: .respond(HTTPResponse(status: 204)))
        let (path, _) = try Self.file()
        do {
            _ = try await Self.remote(transport).upload("objects/ab/x", from: path, condition: .createOnly)
            Issue.record("a refused part was taken as uploaded")
        } catch {
            #expect(error.code == .permission, "\(error)")
        }
        let last = try #require(await transport.requests.last)
        #expect(last.method == "DELETE" && last.url.hasSuffix("/photos/aisync/objects/ab/x?uploadId=up-1"))
        #expect(await transport.requests.count == 4, "no part after the refused one")
    }

    @Test("a completion answered 200 with an error inside is a failure, and the upload is ended")
    func completionErrorInBody() async throws {
        let transport = ScriptedTransport(
            [
                Self.initiated, Self.ok(etag: "\"p1\""), Self.ok(etag: "\"p2\""), Self.ok(etag: "\"p3\""),
                Self.ok(
                    "<Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>"),
            ], fallback: .respond(HTTPResponse(status: 204)))
        let (path, _) = try Self.file()
        do {
            _ = try await Self.remote(transport).upload("objects/ab/x", from: path, condition: .always)
            Issue.record("an error inside a 200 was taken as a completed upload")
        } catch {
            #expect(error.code == .temporary && error.message.contains("InternalError"), "\(error)")
        }
        #expect(await transport.requests.last?.method == "DELETE")
    }

    @Test(
        "parts grow so no upload needs more than 10,000",
        arguments: [Int64(0), 1, 64 << 20, 160 << 30, 4 << 40, 5 << 40])
    func partCount(size: Int64) {
        let policy = S3PartPolicy.standard
        let part = policy.partSize(for: size)
        #expect(part >= policy.partSize && part % (1 << 20) == 0)
        #expect((size + part - 1) / part <= S3PartPolicy.maxParts, "\(size) bytes in parts of \(part)")
        if size <= policy.partSize * S3PartPolicy.maxParts { #expect(part == policy.partSize, "no larger than needed") }
        #expect(S3PartPolicy(threshold: 10, partSize: 5).partSize(for: 12) == 5, "small parts stay small")
    }

    @Test("unfinished uploads are listed page after page, only under the prefix and with names aisync writes")
    func listing() async throws {
        func upload(_ key: String, _ id: String) -> String {
            "<Upload><Key>\(key)</Key><UploadId>\(id)</UploadId><Initiated>2010-11-10T20:48:33.000Z</Initiated></Upload>"
        }
        let first = Self.ok(
            "<ListMultipartUploadsResult><IsTruncated>true</IsTruncated><NextKeyMarker>aisync/objects/cd/y</NextKeyMarker>"
                + "<NextUploadIdMarker>u2</NextUploadIdMarker>" + upload("aisync/objects/ab/x", "u1")
                + upload("aisync/objects/cd/y", "u2") + upload("other/objects/ab/x", "u0")
                + "</ListMultipartUploadsResult>")
        let second = Self.ok(
            #"<ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><IsTruncated>false</IsTruncated>"#
                + upload("aisync/segments/d/1.seg", "u3") + upload("aisync/../escape", "u4")
                + "</ListMultipartUploadsResult>")
        let transport = ScriptedTransport([first, second], fallback: .respond(HTTPResponse(status: 204)))
        let remote = try Self.remote(transport)
        #expect(
            try await remote.unfinishedUploads() == [
                UnfinishedUpload(path: "objects/ab/x", id: "u1"), UnfinishedUpload(path: "objects/cd/y", id: "u2"),
                UnfinishedUpload(path: "segments/d/1.seg", id: "u3"),
            ])
        let sent = await transport.requests
        #expect(sent.count == 2 && sent.allSatisfy { $0.method == "GET" })
        #expect(sent[0].url == "http://127.0.0.1:9000/photos/?uploads=&prefix=aisync%2F")
        #expect(sent[1].url.hasSuffix("&key-marker=aisync%2Fobjects%2Fcd%2Fy&upload-id-marker=u2"))
        try await remote.endUpload(UnfinishedUpload(path: "objects/ab/x", id: "u1"))
        let abort = try #require(await transport.requests.last)
        #expect(abort.method == "DELETE" && abort.url.hasSuffix("/photos/aisync/objects/ab/x?uploadId=u1"))
    }

    @Test("moto's completion answer (CompleteMultipartUploadResponse) is read as AWS's")
    func motoCompletion() {
        let moto =
            #"<?xml version="1.0" encoding="utf-8"?>"# + "\n"
            + #"<CompleteMultipartUploadResponse xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Location>http://b.s3.amazonaws.com/k</Location>"#
            + #"<Bucket>b</Bucket><Key>k</Key><ETag>"cb8d-1"</ETag></CompleteMultipartUploadResponse>"#
        #expect(S3XML.completed(Array(moto.utf8)) == S3XML.Completed(etag: "\"cb8d-1\""))
        #expect(S3XML.completed(Array("<Error><Code>InternalError</Code></Error>".utf8)) == nil)
    }

    @Test("a listing of uploads that is truncated without a marker is not followed")
    func truncatedWithoutMarker() async throws {
        let transport = ScriptedTransport([
            Self.ok("<ListMultipartUploadsResult><IsTruncated>true</IsTruncated></ListMultipartUploadsResult>")
        ])
        do {
            _ = try await Self.remote(transport).unfinishedUploads()
            Issue.record("a truncated listing without a marker was accepted")
        } catch {
            #expect(error.code == .damagedData, "\(error)")
        }
    }
}
