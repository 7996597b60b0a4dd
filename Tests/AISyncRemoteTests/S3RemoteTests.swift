import AISyncCore
import AISyncHTTP
import AISyncRemote
import AISyncTestSupport
import Foundation
import Testing

/// `S3Remote` against real S3-compatible stores started by scripts/servers.sh: a SeaweedFS
/// cluster (master, three volume servers, filer and S3 gateway, every request signed) and
/// moto's server (authentication enforced). A missing server fails these tests.
@Suite("S3 remote on real stores", .tags(.servers), .needsServers)
struct S3RemoteTests {
    /// An `S3Remote` on a fresh prefix of the test bucket, and the raw client beside it.
    static func remote(
        _ kind: RemoteKind, secret: String? = nil, bucket: String? = nil, region: String? = nil, pageSize: Int? = nil,
        parts: S3PartPolicy = .standard
    ) throws -> (S3Remote, S3TestClient, prefix: String) {
        let server = try TestServer.require(kind)
        let prefix = "contract-\(UUID().uuidString.lowercased().prefix(13))"
        let location = try S3Location(
            url: "s3://\(bucket ?? server.bucket)/\(prefix)", endpoint: server.baseURL, region: region ?? server.region,
            addressing: nil)
        let credentials = AWSCredentials(
            key: SigV4.Credentials(accessKeyID: server.user, secretAccessKey: secret ?? server.password), region: nil,
            source: "environment (AWS_ACCESS_KEY_ID)")
        let remote = S3Remote(
            location: location, transport: LiveTransport.make(timeoutSeconds: 20), credentials: credentials,
            maxAttempts: 2, pageSize: pageSize, parts: parts)
        return (remote, server.s3Client, prefix)
    }

    @Test(
        "a file over the threshold goes up in parts and comes back whole; an upload left unfinished is listed and ended",
        arguments: RemoteKind.s3)
    func multipart(_ kind: RemoteKind) async throws {
        let (remote, raw, prefix) = try Self.remote(kind, parts: S3PartPolicy(threshold: 5 << 20, partSize: 5 << 20))
        defer { Task { try? await raw.removeAll(under: prefix) } }
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(11 << 20) + 5).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(bytes).write(to: URL(fileURLWithPath: "\(dir)/up"))
        let written = try await remote.upload("objects/ab/big", from: "\(dir)/up", condition: .createOnly)
        guard case .written = written else {
            Issue.record("\(kind): a multipart upload failed: \(written)")
            return
        }
        #expect(try await remote.presence("objects/ab/big") == .present(size: Int64(bytes.count)))
        #expect(
            try await remote.downloadHashed("objects/ab/big", to: "\(dir)/down", maxBytes: 1 << 30)
                == SHA256.hash(bytes))
        // Another upload to the same key, create-only: refused where conditions hold, and
        // either way nothing is left unfinished.
        var other = bytes
        other[0] ^= 1
        try Data(other).write(to: URL(fileURLWithPath: "\(dir)/other"))
        let again = try await remote.upload("objects/ab/big", from: "\(dir)/other", condition: .createOnly)
        if again == .preconditionFailed {
            #expect(
                try await remote.downloadHashed("objects/ab/big", to: "\(dir)/down", maxBytes: 1 << 30)
                    == SHA256.hash(bytes), "\(kind): a refused completion changed the object")
        }
        print("\(kind): a create-only multipart upload over an existing key: \(again)")
        #expect(try await raw.uploads(under: prefix + "/").isEmpty, "\(kind): an upload was left unfinished")

        // What a killed process leaves: an upload begun, one part sent, never completed.
        let id = try await raw.startUpload("\(prefix)/objects/cd/left", firstPart: Data(bytes[0..<(5 << 20)]))
        let unfinished = try await remote.unfinishedUploads()
        #expect(unfinished == [UnfinishedUpload(path: "objects/cd/left", id: id)], "\(kind)")
        for upload in unfinished { try await remote.endUpload(upload) }
        #expect(try await raw.uploads(under: prefix + "/").isEmpty, "\(kind): the upload is still there")
        #expect(try await remote.unfinishedUploads() == [])
        #expect(try await remote.presence("objects/cd/left") == .missing)
    }

    @Test("create-only writes, ETag-conditioned replaces, reads and deletes", arguments: RemoteKind.s3)
    func conditionalWrites(_ kind: RemoteKind) async throws {
        let (remote, raw, prefix) = try Self.remote(kind)
        defer { Task { try? await raw.removeAll(under: prefix) } }
        let first = try await remote.write("heads/a.json", Array("one".utf8), condition: .createOnly)
        guard case .written(let etag?) = first else {
            Issue.record("\(kind): a create-only write of a new key should succeed with an ETag: \(first)")
            return
        }
        #expect(
            try await remote.write("heads/a.json", Array("two".utf8), condition: .createOnly) == .preconditionFailed,
            "\(kind): a second create-only write must fail (If-None-Match: *)")
        let read = try #require(try await remote.read("heads/a.json", maxBytes: 1 << 20))
        #expect(read.bytes == Array("one".utf8) && read.etag == etag, "\(kind): \(read)")
        let replaced = try await remote.write("heads/a.json", Array("three".utf8), condition: .replacing(etag: etag))
        guard case .written(let newTag?) = replaced, newTag != etag else {
            Issue.record("\(kind): a replace with the current ETag should succeed with a new ETag: \(replaced)")
            return
        }
        #expect(
            try await remote.write("heads/a.json", Array("four".utf8), condition: .replacing(etag: etag))
                == .preconditionFailed, "\(kind): a replace with a stale ETag must fail (If-Match)")
        #expect(
            try await remote.write("heads/none.json", Array("x".utf8), condition: .replacing(etag: etag))
                == .preconditionFailed, "\(kind): replacing a key that does not exist must fail")
        #expect(try await remote.read("heads/a.json", maxBytes: 1 << 20)?.bytes == Array("three".utf8))
        #expect(try await remote.read("heads/missing.json", maxBytes: 1 << 20) == nil)
        // Read back by a client that is not aisync: the key is PREFIX/heads/a.json.
        let direct = try await raw.send("GET", "\(prefix)/heads/a.json")
        #expect(direct.status == 200 && direct.body == Data("three".utf8), "\(kind): \(direct.status)")
        #expect(try await remote.presence("heads/a.json") == .present(size: 5))
        try await remote.delete("heads/a.json")
        try await remote.delete("heads/a.json")  // a missing key is not an error
        #expect(try await remote.presence("heads/a.json") == .missing)
        #expect(try await !remote.exists("heads/a.json"))
    }

    @Test("listing follows continuation tokens over small pages, files and folders apart", arguments: RemoteKind.s3)
    func pagedListing(_ kind: RemoteKind) async throws {
        let (remote, raw, prefix) = try Self.remote(kind, pageSize: 2)
        defer { Task { try? await raw.removeAll(under: prefix) } }
        #expect(try await remote.list("segments") == nil, "\(kind): nothing under a prefix lists as no folder")
        #expect(try await remote.subfolders("objects") == [])
        let names = (0..<7).map { "\($0).seg" }
        for name in names {
            _ = try await remote.write("segments/d1/\(name)", Array(name.utf8), condition: .createOnly)
        }
        for folder in ["ab", "cd", "ef"] {
            _ = try await remote.write("objects/\(folder)/\(folder)00", [1], condition: .createOnly)
        }
        _ = try await remote.write("segments/d2/0.seg", [2], condition: .createOnly)
        let listed = try #require(try await remote.list("segments/d1"))
        #expect(listed.map(\.name) == names.sorted(), "\(kind): \(listed)")
        #expect(listed.allSatisfy { $0.etag != nil }, "\(kind): listings carry ETags")
        #expect(try await remote.subfolders("objects") == ["ab", "cd", "ef"])
        #expect(try await remote.subfolders("segments") == ["d1", "d2"])
        // A key aisync never writes (a space, upper case) is not listed as a file.
        let odd = try await raw.send("PUT", "\(prefix)/segments/d1/Odd Name", body: Data([1]))
        #expect(odd.status == 200)
        #expect(try await remote.list("segments/d1")?.map(\.name) == names.sorted())
    }

    @Test("files stream up and down, hashed on the way", arguments: RemoteKind.s3)
    func streamedFiles(_ kind: RemoteKind) async throws {
        let (remote, raw, prefix) = try Self.remote(kind)
        defer { Task { try? await raw.removeAll(under: prefix) } }
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(3 << 20) + 17).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(bytes).write(to: URL(fileURLWithPath: "\(dir)/up"))
        let written = try await remote.upload("objects/ff/big", from: "\(dir)/up", condition: .createOnly)
        guard case .written = written else {
            Issue.record("\(kind): upload failed: \(written)")
            return
        }
        #expect(try await remote.presence("objects/ff/big") == .present(size: Int64(bytes.count)))
        let digest = try await remote.downloadHashed("objects/ff/big", to: "\(dir)/down", maxBytes: 1 << 30)
        #expect(digest == SHA256.hash(bytes))
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(dir)/down")) == Data(bytes))
        #expect(try await remote.download("objects/ff/none", to: "\(dir)/none", maxBytes: 1 << 30) == false)
    }

    @Test(
        "a wrong secret is a permission error naming where the key came from, never the secret",
        arguments: RemoteKind.s3)
    func wrongSecret(_ kind: RemoteKind) async throws {
        let (remote, _, _) = try Self.remote(kind, secret: "wrong-secret-\(UUID().uuidString)")
        do {
            _ = try await remote.read("aisync.json", maxBytes: 1 << 20)
            Issue.record("\(kind): a wrong secret was accepted")
        } catch {
            #expect(error.code == .permission, "\(kind): \(error)")
            #expect(error.message.contains("environment (AWS_ACCESS_KEY_ID)"), "\(kind): \(error.message)")
            #expect(!"\(error.message) \(error.hint ?? "") \(error.cause ?? "")".contains("wrong-secret"))
        }
    }

    @Test("a bucket that does not exist is not-found, for reads, writes and listings", arguments: RemoteKind.s3)
    func missingBucket(_ kind: RemoteKind) async throws {
        let (remote, _, _) = try Self.remote(kind, bucket: "no-such-\(UUID().uuidString.lowercased().prefix(12))")
        for (name, operation) in [
            ("read", { () async throws(AISyncError) in _ = try await remote.read("aisync.json", maxBytes: 1 << 20) }),
            ("write", { () async throws(AISyncError) in _ = try await remote.write("a", [1], condition: .createOnly) }),
            ("list", { () async throws(AISyncError) in _ = try await remote.list("segments") }),
        ] as [(String, () async throws(AISyncError) -> Void)] {
            do {
                try await operation()
                Issue.record("\(kind): \(name) in a missing bucket succeeded")
            } catch {
                #expect(
                    error.code == .notFound && error.message.contains("does not exist"), "\(kind) \(name): \(error)")
            }
        }
    }

    @Test(
        "remote add checks conditional writes on the store and says so in one line; the probe leaves nothing",
        arguments: RemoteKind.s3)
    func probeAtRemoteAdd(_ kind: RemoteKind) async throws {
        let server = try TestServer.require(kind)
        let remote = try await server.freshRemote("probe")
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let r = await store.invoke(remote.addArguments(name: "cloud"), environment: server.credentials)
        CLIExpect.success(r)
        #expect(
            r.stdout == "cloud: \(remote.url) honours conditional writes (If-None-Match, If-Match).\n", "\(kind): \(r)")
        #expect(r.stderr.isEmpty, "\(kind): \(r)")
        let left = try await server.s3Client.keys(under: remote.s3Prefix + "/")
        #expect(left.isEmpty, "\(kind): the probe left \(left)")
    }

    /// moto keeps each bucket's region and names it on HeadBucket (`x-amz-bucket-region`), as
    /// AWS does; SeaweedFS has one region for everything, so this is moto's test.
    @Test("remote add on a bucket in another region names the region the server reports; nothing is recorded")
    func wrongRegion() async throws {
        let server = try TestServer.require(.moto)
        let bucket = "aisync-eu-\(UUID().uuidString.lowercased().prefix(12))"
        var client = server.s3Client
        client.bucket = bucket
        client.region = "eu-west-1"
        let made = try await client.send(
            "PUT", "",
            body: Data(
                "<CreateBucketConfiguration><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>"
                    .utf8))
        try #require(made.status == 200, "creating \(bucket) in eu-west-1: \(made.status)")
        #expect(server.region != "eu-west-1")
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let r = await store.invoke(
            ["remote", "add", "cloud", "s3://\(bucket)/x", "--endpoint", server.baseURL],
            environment: server.credentials)
        #expect(r.exitCode == 78, "\(r)")
        #expect(r.stderrLines.count == 1, "\(r)")
        #expect(
            r.stderr.hasPrefix("Error: the bucket \(bucket) is in region eu-west-1, not \(server.region)"), "\(r)")
        #expect(r.stderr.contains("--region eu-west-1"), "\(r)")
        let listed = await store.invoke(["remote", "list"])
        #expect(!listed.stdout.contains("cloud"), "\(listed)")
        // With the bucket's region, the same remote is added.
        let right = await store.invoke(
            ["remote", "add", "cloud", "s3://\(bucket)/x", "--endpoint", server.baseURL, "--region", "eu-west-1"],
            environment: server.credentials)
        CLIExpect.success(right)
    }
}
