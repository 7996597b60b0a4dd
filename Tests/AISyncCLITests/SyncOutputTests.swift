import AISyncTestSupport
import Foundation
import Testing

/// What push, pull and sync say (issue 13): a sentence with counts and readable sizes, and
/// the next command to run when a sync leaves conflicts.
@Suite("Sync output")
struct SyncOutputTests {
    @Test("push and pull say what moved; a sync that leaves a conflict says how to see and settle it")
    func sentences() async throws {
        let remote = try await TestServer.require(.folder).freshRemote("sync-output")
        let a = try await Device.make("a", remote: remote)
        let b = try await Device.make("b", remote: remote)
        defer {
            a.remove()
            b.remove()
        }
        let chat = try await a.ok(["chat", "new", "--title", "one"])
        let pushed = try await a.ok(["push"])
        #expect(CLIExpect.matches(pushed, "^Pushed 1 version \\([0-9]+ B\\)\\.$"), "\(pushed)")
        #expect(try await a.ok(["push"]) == "Nothing to push.")
        let pulled = try await b.ok(["pull"])
        #expect(CLIExpect.matches(pulled, "^Pulled 1 version \\([0-9]+ B\\)\\.$"), "\(pulled)")
        #expect(try await b.ok(["sync"]) == "Already up to date.")
        try await a.ok(["rename", chat, "renamed on a"])
        try await b.ok(["rename", chat, "renamed on b"])
        try await a.ok(["push"])
        let synced = await b.run(["sync"])
        #expect(synced.exitCode == 0, "\(synced)")
        #expect(synced.stdoutLines.first?.hasPrefix("Pulled 1 version and pushed 1 version (") == true, "\(synced)")
        #expect(
            synced.stdoutLines.last
                == "1 record has conflicting changes: see them with `aisync conflicts`, then keep one side with `aisync resolve ID --keep VERSION`.",
            "\(synced)")
        await remote.remove()
    }
}
