import AISyncTestSupport
import Foundation
import Testing

/// A distributed fault: a volume server of a SeaweedFS cluster (three of them, replication 001:
/// every file on two) is killed during a push of 10,000 chats, and another during a pull. The
/// sync completes, or fails with one line (exit 75) and the next one completes; nothing is lost;
/// `fsck` is clean. This cluster is the test's own (servers.sh's `seaweedfault`), so no other
/// test loses a server under it.
@Suite("S3 on a SeaweedFS cluster losing a volume server", .serialized, .tags(.servers), .needsServers)
struct SeaweedFaultTests {
    static let prefix = "AISYNC_TEST_SEAWEED_FAULT"

    /// Volume server `n`'s pid file and start script (servers.sh exports both lists).
    static func volume(_ n: Int) throws -> (pidFile: String, start: String) {
        let env = ProcessInfo.processInfo.environment
        let pids = try #require(env["\(prefix)_VOLUME_PIDFILES"], "run scripts/test.sh").split(separator: ":")
        let starts = try #require(env["\(prefix)_VOLUME_START_SCRIPTS"], "run scripts/test.sh").split(separator: ":")
        try #require(pids.count == 3 && starts.count == 3, "three volume servers: \(pids), \(starts)")
        return (String(pids[n - 1]), String(starts[n - 1]))
    }

    /// Kills volume server `n` at once (SIGKILL: no goodbye to the master).
    static func kill(volume n: Int) throws {
        let pidText = try String(contentsOfFile: try volume(n).pidFile, encoding: .utf8)
        let pid = try #require(Int32(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))
        try #require(Foundation.kill(pid, SIGKILL) == 0, "volume server \(n) (pid \(pid)) was not running")
    }

    /// Starts volume server `n` again and waits until the master lists it.
    static func start(volume n: Int) throws {
        let r = CLIHarness.runProcess(try volume(n).start, [])
        try #require(r.exitCode == 0, "volume server \(n) did not come back: \(r)")
    }

    /// A sync command that may fail once because of the fault: then with one line and exit 75,
    /// and the same command run again completes.
    static func expectCompletes(
        _ first: CLIResult, _ device: Device, _ verb: String, _ context: String
    ) async throws {
        if first.succeeded { return }
        #expect(first.exitCode == 75 && !first.signaled, "\(context): \(verb) failed other than with exit 75: \(first)")
        #expect(first.stderrLines.count == 1, "\(context): \(verb) failed with more than one line: \(first)")
        print("\(context): \(verb) failed once, as allowed: \(first.stderr)")
        let again = await device.run([verb, "--json"])
        try #require(again.succeeded, "\(context): \(verb) again, after the fault: \(again)")
    }

    @Test("a volume server killed during a push of 10,000 chats and another during the pull: nothing lost, fsck clean")
    func volumeServerKilled() async throws {
        let server = try TestServer.require(.seaweedfs, variables: Self.prefix)
        for n in 1...3 { try Self.start(volume: n) }  // all three up (a start script does nothing for one running)
        let remote = try await server.freshRemote("volumes")
        let source = try await Device.make("source", remote: remote)
        defer { source.remove() }
        try await source.generate(10_000)
        let expected = try await source.list().count

        // The push: volume server 1 goes as soon as the push's first file is on the store.
        let push = try source.start(["push", "--json"])
        while push.isRunning, try await server.s3Client.keys(under: remote.s3Prefix + "/").isEmpty {
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        let during = push.isRunning
        try Self.kill(volume: 1)
        let pushed = await ProcessGate.run { push.wait(timeout: 300) }
        print(
            "volume server 1 killed \(during ? "during" : "after") the push: \(pushed.succeeded ? "it completed" : "it failed")"
        )
        try await Self.expectCompletes(pushed, source, "push", "volume 1 down")
        #expect(try await source.sync("push", "volume 1 still down")["pushed"] as? Int == 0, "all of it went up")

        // The pull into a new store: volume 1 is back, volume 2 goes part-way.
        try Self.start(volume: 1)
        let fresh = try await Device.make("fresh", remote: remote)
        defer { fresh.remove() }
        let pull = try fresh.start(["pull", "--json"])
        try await Task.sleep(nanoseconds: UInt64.random(in: 20_000_000...200_000_000))
        let pullRunning = pull.isRunning
        try Self.kill(volume: 2)
        defer { try? Self.start(volume: 2) }
        let pulled = await ProcessGate.run { pull.wait(timeout: 300) }
        print(
            "volume server 2 killed \(pullRunning ? "during" : "after") the pull: \(pulled.succeeded ? "it completed" : "it failed")"
        )
        try await Self.expectCompletes(pulled, fresh, "pull", "volume 2 down")

        #expect(try await fresh.list().count == expected, "the new store has every record")
        let a = await source.run(["list", "--json", "--deleted"])
        let b = await fresh.run(["list", "--json", "--deleted"])
        #expect(a.succeeded && a.stdout == b.stdout, "the new store's records differ from the source's")
        try await fresh.ok(["fsck"])
        try await source.ok(["fsck"])
        try Self.start(volume: 2)
        await remote.remove()
    }
}
