import AISyncCore
import AISyncTestSupport
import Foundation
import Testing

/// A 200 MB picture on S3-compatible stores: it goes up in parts; a push killed part-way
/// leaves an unfinished upload on the store, which `compact` or `gc --remote` ends once a
/// sweep has seen it for the grace period; nothing is lost.
@Suite("S3 multipart, end to end", .tags(.servers), .needsServers)
struct S3MultipartScenarioTests {
    /// A device on a fresh remote of `kind` whose store holds a picture of `megabytes` MB (its
    /// file removed after `image add`): the picture's digest and record id.
    static func deviceWithPicture(_ kind: RemoteKind, label: String, megabytes: Int) async throws -> (
        server: TestServer, remote: TestRemote, device: Device, digest: String, id: String
    ) {
        let server = try TestServer.require(kind)
        let remote = try await server.freshRemote(label)
        let a = try await Device.make("source", remote: remote)
        let picture = try LargePicture.make(in: a.store.directory, megabytes: megabytes)
        let digest = try CLIFixtures.sha256(ofFile: picture)
        let id = try await a.ok(["image", "add", picture])
        CLIHarness.removeTree(picture)
        return (server, remote, a, digest, id)
    }

    @Test(
        "a 200 MB picture: a push killed part-way leaves an upload that compact notes and gc --remote ends once seen for the grace period; a new store gets the picture whole",
        arguments: RemoteKind.s3)
    func killedMultipart(_ kind: RemoteKind) async throws {
        let (server, remote, a, digest, id) = try await Self.deviceWithPicture(kind, label: "multipart", megabytes: 200)
        defer { Task { await remote.remove() } }
        defer { a.remove() }

        // Killed once the store has an unfinished upload of it, a part or two in.
        let uploads = { () async throws -> [(key: String, id: String)] in
            try await server.s3Client.uploads(under: remote.s3Prefix + "/")
        }
        let push = try a.start(["push"])
        while push.isRunning, try await uploads().isEmpty { try await Task.sleep(nanoseconds: 10_000_000) }
        try await Task.sleep(nanoseconds: 150_000_000)
        if push.isRunning { kill(push.pid, SIGKILL) }
        let killed = await ProcessGate.run { push.wait(timeout: 300) }
        try #require(killed.signaled, "\(kind): the push of 200 MB finished before the kill: \(killed)")
        let left = try await uploads()
        #expect(
            left.count == 1 && left.first?.key.hasSuffix("/objects/\(digest.prefix(2))/\(digest)") == true,
            "\(kind): \(left)")
        #expect(
            try await !remote.fileExists("objects/\(digest.prefix(2))/\(digest)"),
            "\(kind): the object is not there yet")

        // compact syncs first (the picture goes up this time) and notes the upload: another
        // device may be running it. Once a sweep has seen it for the grace period (none
        // here), compact ends it.
        let kept = try CLIJSON.object(await a.run(["compact", "--grace", "0", "--json"]))
        #expect(kept["endedUploads"] as? Int == 0 && kept["waitingUploads"] as? Int == 1, "\(kind): \(kept)")
        #expect(try await uploads().map(\.id) == left.map(\.id), "\(kind): an upload was ended on first sight")
        #expect(try await remote.fileExists("objects/\(digest.prefix(2))/\(digest)"), "\(kind): compact pushed it")
        // `gc --remote` sweeps the same way, on what compact noted: the upload is ended.
        let ended = await a.run(["gc", "--remote", "origin", "--grace", "0"])
        CLIExpect.success(ended)
        #expect(
            ended.stdout.contains(
                "gc: 1 unfinished upload ended on the remote origin, 0 kept until the grace period has passed"),
            "\(kind): \(ended)")
        #expect(try await uploads().isEmpty, "\(kind): the upload is still there after gc --remote --grace 0")

        let fresh = try await Device.make("fresh", remote: remote)
        defer { fresh.remove() }
        try await fresh.sync("pull", "\(kind)")
        let saved = "\(fresh.store.directory)/saved.png"
        try await fresh.ok(["image", "save", id, saved])
        #expect(try CLIFixtures.sha256(ofFile: saved) == digest, "\(kind): the picture came back different")
        try await fresh.ok(["fsck"])
    }

    /// Ctrl-C during a push sending a picture in parts: the push stops with one line (exit
    /// 130), the upload is aborted on the way out (nothing left billed on the store), no head
    /// is published, the store is as it was; the next push sends it all.
    @Test(
        "Ctrl-C part-way through a multipart upload: exit 130, the upload aborted, nothing published; the next push completes",
        arguments: RemoteKind.s3)
    func interruptedMultipart(_ kind: RemoteKind) async throws {
        let (server, remote, a, digest, _) = try await Self.deviceWithPicture(
            kind, label: "multipart-int", megabytes: 120)
        defer { Task { await remote.remove() } }
        defer { a.remove() }
        let journal = a.store.journalBytes()
        let uploads = { () async throws -> [(key: String, id: String)] in
            try await server.s3Client.uploads(under: remote.s3Prefix + "/")
        }
        let push = try a.start(["push"])
        while push.isRunning, try await uploads().isEmpty { try await Task.sleep(nanoseconds: 10_000_000) }
        try #require(push.isRunning, "\(kind): the push of 120 MB ended before an upload was seen")
        kill(push.pid, SIGINT)
        let r = await ProcessGate.run { push.wait(timeout: 120) }
        CLIExpect.cleanError(r, code: 130, mentioning: ["cancelled"])
        #expect(try await uploads().isEmpty, "\(kind): the cancelled upload was left on the store")
        #expect(
            try await server.s3Client.keys(under: remote.s3Prefix + "/heads/").isEmpty, "\(kind): a head was published")
        #expect(a.store.journalBytes() == journal, "\(kind): the store changed")
        try await a.sync("push", "\(kind)")
        let object = try await server.s3Client.send("HEAD", "\(remote.s3Prefix)/objects/\(digest.prefix(2))/\(digest)")
        #expect(object.status == 200, "\(kind): the picture is not on the store after the second push")
        #expect(try await uploads().isEmpty, "\(kind)")
    }
}
