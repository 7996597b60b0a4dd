import AISyncTestSupport
import Foundation
import Testing

/// `aisync watch` (issue 28) as a user runs it, two processes on one folder remote: an edit
/// made on A by a separate `aisync` command shows up on B with nobody typing `sync`; a burst of
/// edits is a few pushes; SIGTERM and Ctrl-C end it cleanly (exit 0); `--json` lines follow
/// their schema; bad options are refused.
@Suite("Watch")
struct WatchCommandTests {
    /// Waits up to `seconds` for `condition`.
    /// Sleeps between tries without holding a thread of the cooperative pool (other tests
    /// in this process need it).
    static func eventually(_ seconds: Double = 60, _ condition: () throws -> Bool) async throws -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if try condition() { return true }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        return try condition()
    }

    @Test(.tags(.python), .needsPython) func twoWatchersKeepTwoStoresTheSame() async throws {
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        do {
            let remote = "\(dir)/usb"
            try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
            let a = CLIStore(directory: dir, path: "\(dir)/a")
            let b = CLIStore(directory: dir, path: "\(dir)/b")
            for s in [a, b] {
                try s.ok(["init"])
                try s.ok(["remote", "add", "usb", "file://\(remote)"])
            }
            let fast = ["--interval", "1s", "--debounce", "200ms"]
            let watchA = try CLIHarness.startAISync(["watch"] + fast, store: a.path)
            let watchB = try CLIHarness.startAISync(["watch", "--json"] + fast, store: b.path)
            defer {
                for w in [watchA, watchB] where w.isRunning { kill(w.pid, SIGKILL) }
            }
            let chat = try a.ok(["chat", "new", "--title", "made on a"]).trimmingCharacters(in: .whitespacesAndNewlines)
            try a.ok(["chat", "say", chat, "--role", "user", "hello from a"])
            #expect(
                try await Self.eventually { try b.list().contains { $0["id"] as? String == chat } },
                "b never got a's chat")
            let reply = try b.ok(["chat", "new", "--title", "made on b"]).trimmingCharacters(
                in: .whitespacesAndNewlines)
            #expect(
                try await Self.eventually { try a.list().contains { $0["id"] as? String == reply } }, "a never got b's")

            // A burst: 60 edits as fast as separate processes go; a few pushes, not 60.
            let before = watchA.currentStdout().components(separatedBy: "Pushed").count
            for n in 0..<60 { try a.ok(["chat", "say", chat, "--role", "user", "burst \(n)"]) }
            #expect(
                try await Self.eventually {
                    let shown = try b.ok(["show", chat, "--json"])
                    return shown.contains("burst 59")
                }, "the burst did not reach b")
            let pushes = watchA.currentStdout().components(separatedBy: "Pushed").count - before
            #expect((1...8).contains(pushes), "60 edits made \(pushes) pushes:\n\(watchA.currentStdout())")

            kill(watchA.pid, SIGTERM)
            kill(watchB.pid, SIGINT)
            let ra = await ProcessGate.run { watchA.wait(timeout: 60) }
            let rb = await ProcessGate.run { watchB.wait(timeout: 60) }
            #expect(ra.exitCode == 0 && !ra.signaled && rb.exitCode == 0 && !rb.signaled, "\(ra)\n\(rb)")
            #expect(rb.stderr.isEmpty, "--json prints nothing else: \(rb)")
            #expect(ra.stderr.hasPrefix("Watching usb: a sync 200 ms after changes and every 1 s."), "\(ra)")
            #expect(ra.stdout.contains(" usb: Pushed ") && ra.stdout.contains(" usb: Pulled 1 version"), "\(ra)")
            for line in ra.stdoutLines {
                #expect(
                    CLIExpect.matches(
                        line, "^[0-9]{2}:[0-9]{2}:[0-9]{2} usb: .+ \\[(timer|change|retry|requested)\\]$"), "\(line)")
            }
            let jsonLines = rb.stdoutLines
            #expect(jsonLines.count >= 2 && jsonLines.allSatisfy { $0.hasPrefix("{\"event\":\"synced\"") }, "\(rb)")
            let check = SchemaValidator.validate("watch-output", stdin: Data(rb.stdout.utf8), jsonl: true)
            #expect(check.passed, "\(check)")
            for s in [a, b] {
                let status = try s.ok(["status"])
                #expect(status.contains("sync       usb: in sync; last synced"), "\(status)")
                try s.ok(["fsck"])
            }
        }
    }

    @Test func badOptionsAreRefused() throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        CLIExpect.cleanError(store.run(["watch"]), code: 78, mentioning: ["no remote"])
        CLIExpect.cleanError(store.run(["watch", "--interval", "10ms"]), code: 64, mentioning: ["--interval"])
        CLIExpect.cleanError(store.run(["watch", "--debounce", "soon"]), code: 64, mentioning: ["--debounce"])
        CLIExpect.cleanError(store.run(["watch", "--remote", "nope"]), code: 66, mentioning: ["nope"])
    }
}
