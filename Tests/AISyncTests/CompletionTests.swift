import Foundation
import Testing

/// `aisync completion` (issue 13): the bash script, run by bash, completes commands,
/// subcommands, options and the store's record ids.
@Suite("Shell completion")
struct CompletionTests {
    @Test("bash completes commands, subcommands, options and record ids from the store")
    func bash() throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let chat = try store.ok(["chat", "new", "--title", "complete me"])
        let bin = (CLIHarness.executable as NSString).deletingLastPathComponent
        let cases: [(String, [String])] = [
            ("aisync sh", ["show"]), ("aisync chat n", ["new"]), ("aisync list --j", ["--json"]),
            ("aisync push --allow", ["--allow-mass-delete"]), ("aisync remote a", ["add"]),
            ("aisync show \(chat.prefix(8))", [chat]), ("aisync rename \(chat.prefix(8))", [chat]),
        ]
        for (line, expected) in cases {
            let script = "source <(aisync completion bash); COMP_WORDS=(\(line)); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _aisync; printf '%s\\n' \"${COMPREPLY[@]}\""
            var env = CLIHarness.baseEnvironment()
            env["PATH"] = bin + ":" + (env["PATH"] ?? "/usr/bin:/bin")
            env["AISYNC_HOME"] = store.path
            let r = CLIHarness.runProcess("/bin/bash", ["-c", script], environment: env)
            #expect(r.exitCode == 0 && r.stdoutLines == expected, "\(line): \(r)")
        }
    }

    @Test("zsh and fish scripts name every command; an unknown shell is a usage error")
    func otherShells() throws {
        let help = CLIHarness.run(["help"])
        let zsh = CLIHarness.run(["completion", "zsh"])
        let fish = CLIHarness.run(["completion", "fish"])
        #expect(zsh.exitCode == 0 && zsh.stdout.hasPrefix("#compdef aisync"), "\(zsh)")
        #expect(fish.exitCode == 0 && fish.stdout.contains("complete -c aisync -n __fish_use_subcommand -a push"), "\(fish)")
        for word in ["push", "pull", "conflicts", "encrypt", "passphrase"] {
            #expect(help.stdout.contains(word) && fish.stdout.contains("-a \(word)"), "\(word)")
        }
        CLIExpect.cleanError(CLIHarness.run(["completion", "tcsh"]), code: 64, mentioning: ["tcsh", "bash, zsh or fish"])
    }
}
