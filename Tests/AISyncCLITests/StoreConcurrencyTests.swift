import AISyncTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Several `aisync` processes on one store at once, and processes killed mid-write: nothing
/// reported as saved may be lost, and the store must stay sound (docs/DESIGN.md §4.2).
@Suite("StoreConcurrencyTests", .tags(.python), .needsPython)
struct StoreConcurrencyTests {
    static let busy: Int32 = 75

    /// Runs one command, retrying (a few times) while it reports the store busy (75).
    static func runRetryingBusy(_ store: CLIStore, _ args: [String], first: CLIResult) -> CLIResult {
        var r = first
        var attempts = 0
        while r.exitCode == busy && attempts < 5 {
            #expect(r.stderr.hasPrefix("Error: ") && r.stderrLines.count == 1, "a busy store is a clean error: \(r)")
            attempts += 1
            usleep(100_000)
            r = store.run(args)
        }
        return r
    }

    /// Starts every command at once, waits for all, retries the busy ones.
    static func runConcurrently(_ store: CLIStore, _ commands: [[String]]) throws -> [CLIResult] {
        let started = try commands.map { try CLIHarness.startAISync($0, store: store.path) }
        let results = started.map { $0.wait() }
        return zip(commands, results).map { runRetryingBusy(store, $0, first: $1) }
    }

    static func checkSound(_ store: CLIStore, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let fsck = store.run(["fsck"])
        #expect(fsck.exitCode == 0, "fsck after concurrent writes: \(fsck)", sourceLocation: sourceLocation)
        try SchemaValidator.requireAvailable(sourceLocation: sourceLocation)
        let check = SchemaValidator.validate("journal-line", files: [store.journalPath], canonical: true)
        #expect(check.passed, "journal.jsonl after concurrent writes: \(check)", sourceLocation: sourceLocation)
        let bytes = store.journalBytes()
        #expect(
            bytes.isEmpty || bytes.last == 10, "the journal ends with a complete line", sourceLocation: sourceLocation)
    }

    @Test func concurrentCreatesAreAllSaved() throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        var created: [String] = []
        for round in 0..<3 {
            let commands = (0..<8).map {
                ["chat", "new", "--title", "round \(round) writer \($0)", "--model", "gpt-4o"]
            }
            let results = try Self.runConcurrently(store, commands)
            for r in results {
                CLIExpect.success(r)
                #expect(CLIExpect.matches(r.stdout, "^chat-[0-9a-f]{16}\n$"), "\(r)")
                if r.exitCode == 0 { created.append(r.trimmedStdout) }
            }
            let listed = Set(try store.list().compactMap { $0["id"] as? String })
            for id in created {
                #expect(listed.contains(id), "\(id) was printed by chat new but is missing from list (round \(round))")
            }
            #expect(listed.count == created.count)
        }
        #expect(Set(created).count == 24, "24 distinct ids: \(created)")
        #expect(store.journalLines().count == 24)
        let titles = Set(try store.list().compactMap { $0["title"] as? String })
        #expect(titles == Set((0..<3).flatMap { r in (0..<8).map { "round \(r) writer \($0)" } }))
        try Self.checkSound(store)
    }

    /// Concurrent edits of ONE record: every message must survive (no lost update), mixed with
    /// creates, renames and reads.
    @Test func concurrentEditsOfOneChatLoseNothing() throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let chat = try store.ok(["chat", "new", "--title", "shared"])
        var said: [String] = []
        var newChats: [String] = []
        for round in 0..<3 {
            var commands: [[String]] = (0..<5).map {
                ["chat", "say", chat, "--role", $0 % 2 == 0 ? "user" : "assistant", "round \(round) message \($0)"]
            }
            commands += (0..<2).map { ["chat", "new", "--title", "side \(round)-\($0)"] }
            commands.append(["list", "--json"])
            let results = try Self.runConcurrently(store, commands)
            for (args, r) in zip(commands, results) {
                CLIExpect.success(r)
                if args[1] == "say", r.exitCode == 0 { said.append(args[5]) }
                if args[1] == "new", r.exitCode == 0 { newChats.append(r.trimmedStdout) }
                if args[0] == "list" { _ = try? CLIJSON.array(r) }
            }
        }
        let messages = try #require(try store.show(chat)["messages"] as? [[String: Any]])
        let texts = messages.compactMap { $0["text"] as? String }
        #expect(
            Set(texts) == Set(said),
            "every acknowledged message must be in the chat (lost updates?): have \(texts.count), said \(said.count)")
        #expect(texts.count == 15)
        let ids = messages.compactMap { $0["id"] as? String }
        #expect(Set(ids).count == ids.count)
        let listed = Set(try store.list().compactMap { $0["id"] as? String })
        #expect(listed == Set(newChats + [chat]))
        #expect(try store.conflicts().isEmpty, "edits on one device never conflict")
        try Self.checkSound(store)
    }

    // MARK: SIGKILL

    /// Lines `created ID` and `said ID VERSION` printed by the writer loop before it died.
    struct Reported {
        var created: [String] = []
        var said: [(chat: String, version: String)] = []

        init(_ output: String) {
            for line in output.split(separator: "\n") {
                let f = line.split(separator: " ").map(String.init)
                if f.count == 2, f[0] == "created", CLIExpect.matches(f[1], "^chat-[0-9a-f]{16}$") {
                    created.append(f[1])
                }
                if f.count == 3, f[0] == "said", CLIExpect.matches(f[2], "^[0-9a-f]{12}$") { said.append((f[1], f[2])) }
            }
        }
    }

    /// A shell loop writing chats and messages; killed (with the aisync it is running) at a
    /// random moment. Everything it reported before the kill must be in the store.
    @Test func sigkillMidWriteLosesNothingReportedAsSaved() throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let script = """
            i=0
            while :; do
              id=$("$AISYNC" chat new --title "killed loop $ROUND-$i" --store "$STORE") || exit 3
              echo "created $id"
              v=$("$AISYNC" chat say "$id" --role user "message $ROUND-$i" --store "$STORE") || exit 4
              echo "said $id $v"
              i=$((i+1))
            done
            """
        var allCreated: [String] = []
        var allSaid: [(chat: String, version: String)] = []
        var generator = SystemRandomNumberGenerator()
        for round in 0..<5 {
            let loop = try CLIHarness.startShell(script, environment: ["STORE": store.path, "ROUND": "\(round)"])
            // Let it do some work, then kill it at a random moment: the shell and the
            // aisync it is running (its own process group) at once.
            usleep(UInt32.random(in: 150_000...900_000, using: &generator))
            #expect(loop.isRunning, "the writer loop died on its own: \(loop.currentStdout())")
            #expect(kill(-loop.pid, SIGKILL) == 0, "cannot kill the writer loop's process group")
            let r = loop.wait()
            #expect(r.signaled, "the loop should have been killed: \(r)")
            let reported = Reported(r.stdout)
            #expect(!reported.created.isEmpty, "the loop reported nothing before it was killed: \(r)")
            allCreated += reported.created
            allSaid += reported.said

            // fsck first: it must repair a torn tail (if any) and find the store sound.
            let fsck = store.run(["fsck"])
            #expect(fsck.exitCode == 0, "fsck after SIGKILL (round \(round)): \(fsck)")
            let listed = Set(try store.list().compactMap { $0["id"] as? String })
            for id in allCreated {
                #expect(listed.contains(id), "\(id) was reported as created before the kill but is lost")
            }
            let log = try CLIJSON.array(store.run(["log", "--json"]))
            let versions = log.compactMap { $0["version"] as? String }
            for (chat, version) in allSaid {
                #expect(
                    versions.contains { $0.hasPrefix(version) },
                    "version \(version) of \(chat) was reported before the kill but is lost")
                let texts =
                    (try store.show(chat)["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String } ?? []
                #expect(texts.count == 1, "\(chat): \(texts)")
            }
        }
        // The store still takes writes, and every file is valid.
        let after = try store.ok(["chat", "new", "--title", "after the kills"])
        #expect(try store.list().contains { $0["id"] as? String == after })
        try Self.checkSound(store)
    }

    /// Kills `aisync` processes themselves a few milliseconds into their run, over and over,
    /// so some die inside the write path (object written, journal line half-appended, ...).
    @Test func sigkillOfAISyncItselfAtRandomPoints() throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let chat = try store.ok(["chat", "new", "--title", "target"])
        var reportedIDs: [String] = []
        var reportedVersions: [String] = []
        var killed = 0
        var generator = SystemRandomNumberGenerator()
        for n in 0..<40 {
            let args =
                n % 2 == 0
                ? ["chat", "new", "--title", "victim \(n)"] : ["chat", "say", chat, "--role", "user", "victim \(n)"]
            let p = try CLIHarness.startAISync(args, store: store.path)
            usleep(UInt32.random(in: 0...40_000, using: &generator))
            kill(p.pid, SIGKILL)
            let r = p.wait()
            if r.signaled {
                killed += 1
                continue
            }
            // It finished before the kill: what it printed is saved.
            CLIExpect.success(r)
            if n % 2 == 0 { reportedIDs.append(r.trimmedStdout) } else { reportedVersions.append(r.trimmedStdout) }
        }
        let fsck = store.run(["fsck"])
        #expect(fsck.exitCode == 0, "\(fsck)")
        let listed = Set(try store.list().compactMap { $0["id"] as? String })
        for id in reportedIDs { #expect(listed.contains(id), "\(id) was printed, then lost") }
        let versions = try CLIJSON.array(store.run(["log", "--json"])).compactMap { $0["version"] as? String }
        for v in reportedVersions {
            #expect(versions.contains { $0.hasPrefix(v) }, "version \(v) was printed, then lost")
        }
        // The store keeps working after all that.
        let id = try store.ok(["chat", "new", "--title", "survivor"])
        try store.ok(["chat", "say", chat, "--role", "assistant", "still here"])
        #expect(try store.list().contains { $0["id"] as? String == id })
        try Self.checkSound(store)
        // Not an assertion about aisync, but the test is only meaningful if some were killed.
        #expect(killed > 0, "no process was killed; the timing window is too wide")
    }
}

extension CLIStore {
    /// `conflicts --json` decoded.
    func conflicts() throws -> [[String: Any]] {
        let r = run(["conflicts", "--json"])
        try #require(r.exitCode == 0, "conflicts failed: \(r)")
        return try CLIJSON.array(r)
    }
}
