import AISyncTestSupport
import Foundation
import Testing

/// The hostile-remote promise on S3 (issue 27): the writer's objects in a SeaweedFS bucket are
/// replaced by someone else with each spoil of ``HostileRemoteTests`` that a bucket can hold (a
/// bucket has no symbolic links or directories). A victim's pull ends with one clear line and
/// its documented exit code, leaves the store as it was, stays within 64 MB and 10 s, and
/// works again once the objects are put right.
@Suite("Hostile S3 remote", .tags(.servers), .needsServers)
struct HostileS3RemoteTests {
    static let cases = HostileRemoteTests.cases.filter {
        !$0.name.contains("symbolic link") && !$0.name.contains("directory")
    }

    @Test(arguments: cases)
    func aSpoiledBucketIsOneClearLineAndLeavesTheStoreAsItWas(_ c: HostileRemoteTests.Case) async throws {
        let server = try TestServer.require(.seaweedfs)
        let remote = try await server.freshRemote("hostile")
        defer { Task { await remote.remove() } }
        let writer = try await Device.make("writer", remote: remote)
        defer { writer.remove() }
        let chat = try await writer.ok(["chat", "new", "--title", "Kept safe"])
        try await writer.ok(["chat", "say", chat, "--role", "user", "hello"])
        try await writer.sync("push")
        let client = server.s3Client
        let segments = try await client.keys(under: remote.s3Prefix + "/segments/")
        let device = try #require(segments.first?.split(separator: "/").dropLast().last.map(String.init))
        let key = "\(remote.s3Prefix)/\(c.file.replacingOccurrences(of: "DEV", with: device))"
        let original = try await client.send("GET", key)
        try #require(original.status == 200, "\(key): \(original.status)")
        // Spoiled as a file, then put back in the bucket in its place.
        let scratch = "\(writer.store.directory)/spoiled"
        try original.body.write(to: URL(fileURLWithPath: scratch))
        try c.spoil(scratch)
        let put = try await client.send("PUT", key, body: try Data(contentsOf: URL(fileURLWithPath: scratch)))
        try #require(put.status == 200, "PUT \(key): \(put.status)")
        try? FileManager.default.removeItem(atPath: scratch)

        let victim = try await Device.make("victim", remote: remote)
        defer { victim.remove() }
        try await victim.ok(["chat", "new", "--title", "Mine"])
        let before = (victim.store.listSnapshot(), victim.store.journalBytes())
        let (r, rss, seconds) = HostileRemoteTests.measured(victim.store, ["pull"], environment: victim.environment)
        #expect(rss <= 64, "peak RSS \(rss) MB")
        #expect(seconds <= 10, "took \(seconds) s")
        #expect(await victim.run(["fsck"]).exitCode == 0)
        guard c.code != 0 else {
            CLIExpect.success(r)
            #expect(try await victim.list().count == (c.file.hasPrefix("heads/") ? 1 : 2), "\(r)")
            return
        }
        CLIExpect.cleanError(
            r, code: c.code, mentioning: c.mentioning.map { $0.replacingOccurrences(of: "DEV", with: device) })
        #expect(
            victim.store.listSnapshot() == before.0 && victim.store.journalBytes() == before.1,
            "the store must be left as it was")

        // Put right, the same bucket pulls cleanly.
        let restored = try await client.send("PUT", key, body: original.body)
        try #require(restored.status == 200)
        try await victim.ok(["pull"])
        #expect(try await victim.list().count == 2)
    }
}
