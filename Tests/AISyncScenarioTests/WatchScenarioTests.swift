import AISyncTestSupport
import Foundation
import Testing

/// `aisync watch` on real servers (issue 28): two watchers on Apache converge with nobody
/// typing `sync`; a burst of edits is a few pushes; an Apache stopped for 30 s and started
/// again is reported, recovered from and converged on, nothing lost; SIGTERM during a push
/// leaves the remote valid and the next run finishes it; a watcher stopped for a minute
/// (SIGSTOP, a laptop asleep) carries on.
@Suite("Watch on servers", .tags(.servers), .needsServers)
struct WatchScenarioTests {
    static let fast = ["--interval", "1s", "--debounce", "200ms", "--offline-interval", "2s"]

    /// Waits up to `seconds` for `condition`.
    static func eventually(_ seconds: Double = 60, _ condition: () async throws -> Bool) async throws -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if try await condition() { return true }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        return try await condition()
    }

    /// Runs a servers.sh script (stop or start the outage Apache). Its output goes to files,
    /// not pipes: the Apache it starts keeps what it inherited open, and a reader waiting for
    /// the end of a pipe would wait for Apache to exit.
    static func runScript(_ path: String) async throws -> CLIResult {
        let process = try CLIHarness.startShell("exec '\(path)'")
        return await ProcessGate.run { process.wait(timeout: 60) }
    }

    /// Devices a and b on a fresh remote of `server`.
    static func twoDevices(on server: TestServer, _ label: String) async throws -> (TestRemote, Device, Device) {
        let remote = try await server.freshRemote(label)
        return (remote, try await Device.make("a", remote: remote), try await Device.make("b", remote: remote))
    }

    static func has(_ device: Device, _ id: String) async throws -> Bool {
        try await device.ids().contains(id)
    }

    static func messages(_ device: Device, _ chat: String) async throws -> [String] {
        let shown = try CLIJSON.object(await device.run(["show", chat, "--json"]))
        let messages = shown["messages"] as? [[String: Any]] ?? []
        return messages.compactMap { $0["text"] as? String }
    }

    /// Stops the watchers with SIGTERM and SIGINT; both must exit 0.
    static func stop(_ watchers: [CLIBackgroundProcess]) async -> [CLIResult] {
        for (n, w) in watchers.enumerated() { kill(w.pid, n % 2 == 0 ? SIGTERM : SIGINT) }
        var results: [CLIResult] = []
        for w in watchers { results.append(await ProcessGate.run { w.wait(timeout: 60) }) }
        for r in results {
            #expect(r.exitCode == 0 && !r.signaled && !r.timedOut, "the watcher did not end cleanly: \(r)")
        }
        return results
    }

    @Test func twoWatchersOnApacheAndABurstOfEdits() async throws {
        let (remote, a, b) = try await Self.twoDevices(on: try TestServer.require(.apache), "watch")
        defer {
            Task { await remote.remove() }
            a.remove()
            b.remove()
        }
        let chat = try await a.ok(["chat", "new", "--title", "watched"])
        let watchA = try a.start(["watch"] + Self.fast)
        let watchB = try b.start(["watch"] + Self.fast)
        defer { for w in [watchA, watchB] where w.isRunning { kill(w.pid, SIGKILL) } }
        #expect(try await Self.eventually { try await Self.has(b, chat) }, "b never got the chat")
        try await a.ok(["chat", "say", chat, "--role", "user", "said on a, by another process"])
        #expect(
            try await Self.eventually { try await Self.messages(b, chat).contains("said on a, by another process") },
            "b never got the message")
        _ = await Self.stop([watchA, watchB])

        // A burst with the default debounce (2 s) and poll (60 s): 200 edits, each its own
        // process, as fast as they go; a watcher pushes them in a few syncs, not 200.
        let watcher = try a.start(["watch"])
        defer { if watcher.isRunning { kill(watcher.pid, SIGKILL) } }
        #expect(try await Self.eventually { watcher.currentStdout().contains("[timer]") }, "no first sync")
        let burst = try CLIHarness.startShell(
            "for n in $(seq 200); do \"$AISYNC\" --store '\(a.store.path)' chat say \(chat) --role user \"burst $n\" || exit 1; done",
            environment: a.environment)
        let done = await ProcessGate.run { burst.wait(timeout: 300) }
        #expect(done.exitCode == 0, "\(done)")
        #expect(
            try await Self.eventually(90) {
                _ = try await b.sync("pull")
                return try await Self.messages(b, chat).contains("burst 200")
            }, "the burst never reached the remote")
        let lines = await Self.stop([watcher])[0].stdoutLines
        let pushes = lines.filter { $0.contains("Pushed") }
        #expect((1...4).contains(pushes.count), "200 edits made \(pushes.count) pushes: \(lines)")
        #expect(try await Self.messages(b, chat).filter { $0.hasPrefix("burst ") }.count == 200)
    }

    /// The outage Apache (a second instance this test may stop) is down for 30 s while both
    /// devices edit: both watchers say so, in their lines and in `status`, and converge once it
    /// is back, with every edit on both and `fsck` clean.
    @Test func anApacheOutageIsReportedAndRecoveredFrom() async throws {
        let env = ProcessInfo.processInfo.environment
        let url = try #require(env["AISYNC_TEST_APACHE_OUTAGE_URL"], "run scripts/test.sh (servers.sh starts it)")
        let stopScript = try #require(env["AISYNC_TEST_APACHE_OUTAGE_STOP"])
        let startScript = try #require(env["AISYNC_TEST_APACHE_OUTAGE_START"])
        var server = try TestServer.require(.apache)
        server.baseURL = url.hasSuffix("/") ? String(url.dropLast()) : url
        let (_, a, b) = try await Self.twoDevices(on: server, "outage")
        defer {
            a.remove()
            b.remove()
        }
        let before = try await a.ok(["chat", "new", "--title", "before the outage"])
        let watchA = try a.start(["watch"] + Self.fast)
        let watchB = try b.start(["watch"] + Self.fast)
        defer {
            for w in [watchA, watchB] where w.isRunning { kill(w.pid, SIGKILL) }
            _ = try? CLIHarness.startShell("exec '\(startScript)'").wait(timeout: 60)
        }
        #expect(try await Self.eventually { try await Self.has(b, before) }, "b never got the first chat")

        let down = try await Self.runScript(stopScript)
        try #require(down.exitCode == 0, "could not stop the outage Apache: \(down)")
        let stoppedAt = Date()
        let onA = try await a.ok(["chat", "new", "--title", "made on a while the server was down"])
        let onB = try await b.ok(["chat", "new", "--title", "made on b while the server was down"])
        #expect(
            try await Self.eventually(40) {
                watchA.currentStdout().contains(": offline: ") && watchB.currentStdout().contains(": offline: ")
            }, "the watchers did not report the outage:\n\(watchA.currentStdout())\n\(watchB.currentStdout())")
        for device in [a, b] {
            let status = try await device.ok(["status"])
            #expect(status.contains("not in sync (the last sync failed"), "[\(device.label)] \(status)")
            #expect(status.contains("cannot reach"), "[\(device.label)] \(status)")
        }
        let left = 30 - Date().timeIntervalSince(stoppedAt)
        if left > 0 { try await Task.sleep(nanoseconds: UInt64(left * 1e9)) }
        let up = try await Self.runScript(startScript)
        try #require(up.exitCode == 0, "could not start the outage Apache again: \(up)")

        #expect(
            try await Self.eventually(60) {
                let aHas = try await Self.has(a, onB)
                let bHas = try await Self.has(b, onA)
                return aHas && bHas
            },
            "the devices did not converge after the outage")
        #expect(
            try await Self.eventually(30) {
                let sa = try await a.ok(["status"])
                let sb = try await b.ok(["status"])
                return sa.contains("origin: in sync") && sb.contains("origin: in sync")
            }, "status never said in sync again")
        let results = await Self.stop([watchA, watchB])
        for r in results { #expect(r.stdout.contains(": offline: "), "\(r)") }
        for device in [a, b] {
            try await device.ok(["fsck"])
            #expect(Set(try await device.ids()).isSuperset(of: [before, onA, onB]), "[\(device.label)] lost a chat")
        }
    }

    /// SIGTERM while a watcher pushes 10,000 chats: exit 0, the remote valid (a new device
    /// pulls what is there), and the next run finishes the push. A watcher stopped for a minute
    /// (SIGSTOP) carries on after SIGCONT: it gets the other device's change and sends its own.
    @Test func sigtermDuringAPushAndAWatcherAsleepForAMinute() async throws {
        // Device a reaches the server through the fault proxy, which holds some of its PUTs
        // for 2 s (below): seeing the first segment on the server then leaves the push
        // seconds of work, not the few milliseconds two segments take on loopback (the push
        // could finish before the SIGTERM arrived).
        let server = try TestServer.require(.apache)
        let proxy = try FaultProxy.start(upstream: server, seed: 1, rate: 0, slowSeconds: 2)
        defer { proxy.stop() }
        let remote = try await server.freshRemote("watch-term")
        let a = try await Device.make(
            "a", remote: TestRemote(server: server, url: proxy.url(for: remote.url), folderPath: nil))
        let b = try await Device.make("b", remote: remote)
        defer {
            Task { await remote.remove() }
            a.remove()
            b.remove()
        }
        let storePath = a.store.path
        let generated = await ProcessGate.run { CLIHarness.generate(10_000, store: storePath) }
        try #require(generated.exitCode == 0, "\(generated)")
        let status = try CLIJSON.object(await a.run(["status", "--json"]))
        let device = try #require((status["device"] as? [String: Any])?["id"] as? String)
        // The push's first PUTs (the remote's manifest, the first segment, the second) each
        // wait 2 s at the proxy.
        for _ in 0..<5 { try await proxy.force("slow", method: "PUT") }
        let watchA = try a.start(["watch"] + Self.fast)
        defer { if watchA.isRunning { kill(watchA.pid, SIGKILL) } }
        // Stopped once the push is under way: its first segment is on the server.
        #expect(
            try await Self.eventually(60) { try await remote.fileExists("segments/\(device)/1.seg") },
            "the push never started")
        let term = await Self.stop([watchA])[0]
        #expect(!term.stdout.contains("Pushed 10000"), "the push finished before SIGTERM: \(term)")
        let fresh = try await Device.make("fresh", remote: remote)
        defer { fresh.remove() }
        _ = try await fresh.sync("pull", "after SIGTERM")
        try await fresh.ok(["fsck"])
        _ = try await a.sync("push", "the next run")
        _ = try await fresh.sync("pull", "after the next run")
        #expect(try await fresh.ids().count == 10_000, "the next run did not finish the push")

        // A watcher asleep for a minute.
        let watchB = try b.start(["watch"] + Self.fast)
        defer { if watchB.isRunning { kill(watchB.pid, SIGKILL) } }
        #expect(
            try await Self.eventually(120) { try await b.ids().count == 10_000 }, "b never pulled the 10,000 chats")
        kill(watchB.pid, SIGSTOP)
        let fromA = try await a.ok(["chat", "new", "--title", "made while b slept"])
        _ = try await a.sync("push")
        let fromB = try await b.ok(["chat", "new", "--title", "made on b while its watcher slept"])
        try await Task.sleep(nanoseconds: 60_000_000_000)
        kill(watchB.pid, SIGCONT)
        #expect(try await Self.eventually(60) { try await Self.has(b, fromA) }, "b's watcher did not carry on")
        #expect(
            try await Self.eventually(60) {
                _ = try await a.sync("pull")
                return try await Self.has(a, fromB)
            }, "b's own edit was never pushed")
        _ = await Self.stop([watchB])
    }
}
