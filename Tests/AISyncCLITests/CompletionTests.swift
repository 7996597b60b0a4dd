import AISyncTestSupport
import Foundation
import Testing

/// `aisync completion` (issue 13): the bash script, run by bash, completes commands,
/// subcommands, options and the store's record ids.
@Suite("Shell completion")
struct CompletionTests {
    /// What bash's completion offers for `line` (the word under the cursor last), with
    /// AISYNC_HOME set to `home`.
    static func complete(_ line: String, home: String) -> CLIResult {
        let script =
            "source <(aisync completion bash); COMP_WORDS=(\(line)); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _aisync; printf '%s\\n' \"${COMPREPLY[@]}\""
        var env = CLIHarness.baseEnvironment()
        env["PATH"] =
            (CLIHarness.executable as NSString).deletingLastPathComponent + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env["AISYNC_HOME"] = home
        return CLIHarness.runProcess("/bin/bash", ["-c", script], environment: env)
    }

    @Test("bash completes commands, subcommands, options and record ids from the store")
    func bash() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let chat = try await store.invokeOK(["chat", "new", "--title", "complete me"])
        let saved = "\(store.directory)/saved-here.png"
        FileManager.default.createFile(atPath: saved, contents: Data())
        let cases: [(String, [String])] = [
            ("aisync sh", ["show"]), ("aisync chat n", ["new"]), ("aisync list --j", ["--json"]),
            ("aisync push --allow", ["--allow-mass-delete"]), ("aisync remote a", ["add"]),
            ("aisync show \(chat.prefix(8))", [chat]), ("aisync rename \(chat.prefix(8))", [chat]),
            // Option values, the shells, a file after an id, and --store before the command.
            ("aisync list --kind s", ["story"]), ("aisync chat say \(chat) --role as", ["assistant"]),
            ("aisync completion f", ["fish"]),
            ("aisync image save \(chat) \(store.directory)/saved-h", [saved]),
            ("aisync --store \(store.path) sh", ["show"]),
            ("aisync --store \(store.path) list --json --kind ima", ["image"]),
        ]
        for (line, expected) in cases {
            let r = Self.complete(line, home: store.path)
            #expect(r.exitCode == 0 && r.stdoutLines == expected, "\(line): \(r)")
        }
        // Record ids come from the store named by --store, wherever it is on the line.
        let other = try CLIHarness.makeStore()
        defer { other.remove() }
        let theirs = try await other.invokeOK(["chat", "new", "--title", "in another store"])
        for line in [
            "aisync --store \(other.path) show \(theirs.prefix(8))",
            "aisync show --store \(other.path) \(theirs.prefix(8))",
            "aisync show --store=\(other.path) \(theirs.prefix(8))",
        ] {
            let r = Self.complete(line, home: store.path)
            #expect(r.exitCode == 0 && r.stdoutLines == [theirs], "\(line): \(r)")
        }
    }

    @Test("zsh and fish scripts name every command; an unknown shell is a usage error")
    func otherShells() async throws {
        let help = await CLIHarness.invoke(["help"])
        let zsh = await CLIHarness.invoke(["completion", "zsh"])
        let fish = await CLIHarness.invoke(["completion", "fish"])
        #expect(zsh.exitCode == 0 && zsh.stdout.hasPrefix("#compdef aisync"), "\(zsh)")
        #expect(
            fish.exitCode == 0 && fish.stdout.contains("complete -c aisync -n __fish_use_subcommand -a push"), "\(fish)"
        )
        for word in ["push", "pull", "conflicts", "encrypt", "passphrase"] {
            #expect(help.stdout.contains(word) && fish.stdout.contains("-a \(word)"), "\(word)")
        }
        CLIExpect.cleanError(
            await CLIHarness.invoke(["completion", "tcsh"]), code: 64, mentioning: ["tcsh", "bash, zsh or fish"])
    }
}
