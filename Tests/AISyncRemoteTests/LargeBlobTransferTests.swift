import AISyncTestSupport
import AISyncTesting
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncHTTP
@testable import AISyncRemote

/// Large images on a real WebDAV server (issue 11): a new image's body is sent once, the
/// upload streams the file, and a download is hashed as it is written and still verified.
@Suite("Large blob transfers", .serialized, .tags(.servers, .python), .needsServers, .needsPython)
struct LargeBlobTransferTests {
    /// Apache's access log (one line per request), from the servers `scripts/servers.sh` started.
    static var accessLog: String {
        let dir =
            ProcessInfo.processInfo.environment["AISYNC_SERVERS_DIR"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "/tmp/aisync-servers"
        return "\(dir)/apache/logs/access.log"
    }

    /// The method, path (below the remote) and status of every request Apache logged for a path under `remote`, in order.
    static func requests(under remote: TestRemote) throws -> [(method: String, path: String, status: Int)] {
        let prefix = try #require(URL(string: remote.url)?.path)
        let log = try String(contentsOfFile: accessLog, encoding: .utf8)
        return log.split(separator: "\n").compactMap { line in
            // 127.0.0.1 user "PUT /dav/name/objects/ab/… HTTP/1.1" 201 230
            let parts = line.split(separator: "\"")
            guard parts.count >= 3 else { return nil }
            let request = parts[1].split(separator: " ")
            // The remote's own folder (made by the test) is not one of its requests.
            guard request.count >= 2, request[1].hasPrefix(prefix + "/"), request[1] != prefix + "/" else { return nil }
            let status = Int(parts[2].split(separator: " ").first ?? "") ?? 0
            return (String(request[0]), String(request[1].dropFirst(prefix.count + 1)), status)
        }
    }

    /// The requests under `remote`, once the log holds at least `count` of `method`: Apache
    /// writes a request's line after its answer is sent, so the client can get there first.
    /// Gives up after 5 s and returns what is there (the test's expectations then say what is missing).
    static func requests(under remote: TestRemote, awaiting count: Int, of method: String) async throws -> [(
        method: String, path: String, status: Int
    )] {
        let start = ContinuousClock.now
        while true {
            let log = try requests(under: remote)
            if log.filter({ $0.method == method }).count >= count || ContinuousClock.now - start > .seconds(5) {
                return log
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    static func makeRemote(_ remote: TestRemote, _ kind: TransportKind) throws -> HTTPRemote {
        let location = try RemoteLocation(url: remote.url, plain: false, insecure: false)
        return HTTPRemote(
            location: location, transport: kind.make(timeoutSeconds: 30),
            credentials: Credentials(user: remote.server.user, password: remote.server.password))
    }

    /// A file of `count` pseudo-random bytes in a fresh temp directory, and its digest.
    static func makeFile(_ count: Int, seed: UInt64) throws -> (path: String, digest: SHA256Digest, bytes: [UInt8]) {
        var rng = SplitMix64(seed: seed)
        let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let path = "\(CLIHarness.makeTemporaryDirectory())/blob"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, SHA256.hash(bytes), bytes)
    }

    @Test(
        "a new image's first upload to a fresh WebDAV remote sends its body once; the next one to that folder makes no collection",
        arguments: TransportKind.withTLS)
    func newImageBodySentOnce(_ kind: TransportKind) async throws {
        let server = try TestServer.require(kind == .socketTLS ? .apacheTLS : .apache)
        let remote = try await server.freshRemote("large-once-\(kind)")
        defer { Task { await remote.remove() } }
        let http = try Self.makeRemote(remote, kind)
        // Given two images whose objects share a folder that does not exist yet
        // (a few hundred KiB: the body-once logic does not depend on size, and debug builds hash slowly)
        let first = try Self.makeFile(600 << 10, seed: 1)
        let second = try Self.makeFile(300 << 10, seed: 2)
        let folder = "objects/\(first.digest.hex.prefix(2))"
        // When both are uploaded create-only
        let a = try await http.upload("\(folder)/\(first.digest.hex)", from: first.path, condition: .createOnly)
        let b = try await http.upload("\(folder)/\(second.digest.hex)", from: second.path, condition: .createOnly)
        // Then each body went out in exactly one PUT, and the folder was made before the first
        guard case .written = a, case .written = b else {
            Issue.record("not written: \(a), \(b)")
            return
        }
        let log = try await Self.requests(under: remote, awaiting: 2, of: "PUT")
        let puts = log.filter { $0.method == "PUT" }
        #expect(puts.map(\.path) == ["\(folder)/\(first.digest.hex)", "\(folder)/\(second.digest.hex)"], "\(log)")
        #expect(puts.allSatisfy { $0.status == 201 }, "\(log)")
        #expect(log.filter { $0.method == "MKCOL" }.map(\.path) == ["\(folder)/", "objects/", "\(folder)/"], "\(log)")
        // And the server holds every byte of both
        for file in [first, second] {
            let target = "\(CLIHarness.makeTemporaryDirectory())/down"
            let digest = try await http.downloadHashed("\(folder)/\(file.digest.hex)", to: target, maxBytes: 4 << 20)
            #expect(digest == file.digest)
            #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == Data(file.bytes))
        }
    }

    @Test(
        "a collection deleted after it was seen is made again, and the upload still lands",
        arguments: TransportKind.withTLS)
    func deletedCollectionIsMadeAgain(_ kind: TransportKind) async throws {
        let server = try TestServer.require(kind == .socketTLS ? .apacheTLS : .apache)
        let remote = try await server.freshRemote("large-gone-\(kind)")
        defer { Task { await remote.remove() } }
        let http = try Self.makeRemote(remote, kind)
        let file = try Self.makeFile(256 << 10, seed: 3)
        _ = try await http.upload("objects/aa/one", from: file.path, condition: .createOnly)
        // Given the folder this remote knows of is deleted by someone else
        let deleted = try await RemoteHTTP.send("DELETE", "\(remote.url)/objects/aa/", server: server)
        #expect(deleted.status == 204)
        // When another file is uploaded there, then it lands (the 409 path made the folder again)
        let result = try await http.upload("objects/aa/two", from: file.path, condition: .createOnly)
        guard case .written = result else {
            Issue.record("not written: \(result)")
            return
        }
        #expect(try await remote.fileExists("objects/aa/two"))
    }

    @Test(
        "a download is hashed as it is written; its digest is that of the bytes on disk, and a limit still stops it",
        arguments: TransportKind.withTLS)
    func downloadIsHashedOnTheWay(_ kind: TransportKind) async throws {
        let server = try TestServer.require(kind == .socketTLS ? .apacheTLS : .apache)
        let remote = try await server.freshRemote("large-down-\(kind)")
        defer { Task { await remote.remove() } }
        let http = try Self.makeRemote(remote, kind)
        let file = try Self.makeFile(1536 << 10, seed: 4)
        _ = try await http.upload("objects/bb/blob", from: file.path, condition: .always)
        let target = "\(CLIHarness.makeTemporaryDirectory())/down"
        // A blob stored under another blob's name hashes to what it is, not to its name.
        let digest = try await http.downloadHashed("objects/bb/blob", to: target, maxBytes: 4 << 20)
        #expect(digest == file.digest)
        #expect(try SHA256.hash(fileAt: target).digest == file.digest)
        #expect(try await http.downloadHashed("objects/bb/missing", to: target + "2", maxBytes: 4 << 20) == nil)
        #expect(!FileManager.default.fileExists(atPath: target + "2"), "a 404 must leave no file behind")
        // Over the limit: refused as damaged data, nothing left at the target.
        do {
            _ = try await http.downloadHashed("objects/bb/blob", to: target + "3", maxBytes: 1 << 20)
            Issue.record("a download over its limit was accepted")
        } catch {
            #expect(error.code == .damagedData, "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: target + "3"), "a refused download must leave no file behind")
    }
}

/// The same through the CLI: push an image, pull it on another device, and refuse a blob
/// whose bytes on the server no longer match its name.
@Suite("Large images through the CLI", .serialized, .tags(.servers, .python), .needsServers, .needsPython)
struct LargeImageCLITests {
    @Test("a pushed image is pulled whole; a blob swapped on the server is refused and not stored")
    func pulledImageIsVerified() async throws {
        let server = try TestServer.require(.apache)
        let remote = try await server.freshRemote("large-cli")
        defer { Task { await remote.remove() } }
        let laptop = try CLIHarness.makeStore(deviceName: "laptop")
        defer { laptop.remove() }
        let png = try LargePicture.make(in: laptop.directory, megabytes: 2)
        let digest = try SHA256.hash(fileAt: png).digest
        try laptop.ok(["image", "add", png])
        try laptop.ok(["remote", "add", "origin", remote.url])
        CLIExpect.success(laptop.run(["push"], environment: server.credentials))
        let objectPath = "objects/\(digest.hex.prefix(2))/\(digest.hex)"
        #expect(
            try await LargeBlobTransferTests.requests(under: remote, awaiting: 1, of: "PUT").filter {
                $0.method == "PUT" && $0.path == objectPath
            }.count == 1)

        // A second device pulls it whole.
        let phone = try CLIHarness.makeStore(deviceName: "phone")
        defer { phone.remove() }
        try phone.ok(["remote", "add", "origin", remote.url])
        CLIExpect.success(phone.run(["pull"], environment: server.credentials))
        let pulled = "\(phone.objectsPath)/\(digest.hex.prefix(2))/\(digest.hex)"
        #expect(try SHA256.hash(fileAt: pulled).digest == digest)

        // Given the object's bytes on the server are swapped for others of the same size
        var forged = try [UInt8](Data(contentsOf: URL(fileURLWithPath: png)))
        forged[forged.count / 2] ^= 0xFF
        let put = try await RemoteHTTP.send("PUT", "\(remote.url)/\(objectPath)", server: server, body: Data(forged))
        #expect((200..<300).contains(put.status))
        // When a third device pulls, then it refuses the blob and does not store it
        let tablet = try CLIHarness.makeStore(deviceName: "tablet")
        defer { tablet.remove() }
        try tablet.ok(["remote", "add", "origin", remote.url])
        let r = tablet.run(["pull"], environment: server.credentials)
        CLIExpect.cleanError(r, code: 65, mentioning: ["sha256"])
        #expect(!FileManager.default.fileExists(atPath: "\(tablet.objectsPath)/\(digest.hex.prefix(2))/\(digest.hex)"))
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: "\(tablet.path)/sync/tmp")) ?? []
        #expect(leftovers.isEmpty, "temp files left behind: \(leftovers)")
    }
}
