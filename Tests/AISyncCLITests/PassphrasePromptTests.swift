import AISyncTestSupport
import Foundation
import Testing

/// The passphrase prompt on a real terminal (Debian's tmux): it asks on the terminal, never
/// echoes what is typed, asks twice for a new passphrase, and a wrong one is exit 80.
@Suite("Passphrase prompt on a terminal", .tags(.tools), .needsTools("tmux"))
struct PassphrasePromptTests {
    static func shellQuoted(_ s: String) -> String { Terminal.quoted(s) }

    @Test("a new passphrase is asked twice without echo; a restore asks once; a wrong one is exit 80")
    func promptsWithoutEcho() throws {
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        let aisync = Self.shellQuoted(CLIHarness.executable)
        let remote = "\(dir)/remote"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        for store in ["laptop", "restored", "wrong"] {
            let setup = CLIHarness.runProcess(
                CLIHarness.executable, ["--store", "\(dir)/\(store)", "init", "--name", store])
            try #require(setup.succeeded, "\(setup)")
            let add = CLIHarness.runProcess(
                CLIHarness.executable,
                ["--store", "\(dir)/\(store)", "remote", "add", "origin", "file://\(remote)", "--encrypt"])
            try #require(add.succeeded, "\(add)")
        }
        let chat = CLIHarness.runProcess(
            CLIHarness.executable, ["--store", "\(dir)/laptop", "chat", "new", "--title", "typed on a terminal"])
        try #require(chat.succeeded)
        let secret = "tr0ub4dor-and-3-horses"

        let terminal = Terminal()
        defer { terminal.stop() }
        try terminal.start(
            "\(aisync) --store \(Self.shellQuoted("\(dir)/laptop")) push; echo EXIT=$?; \(aisync) --store \(Self.shellQuoted("\(dir)/restored")) pull; echo EXIT=$?; \(aisync) --store \(Self.shellQuoted("\(dir)/wrong")) pull; echo EXIT=$?; sleep 60"
        )
        _ = try terminal.waitFor("New passphrase for remote origin:")
        terminal.type(secret)
        _ = try terminal.waitFor("Type it again:")
        terminal.type(secret)
        _ = try terminal.waitFor("EXIT=0")
        _ = try terminal.waitFor("Passphrase for remote origin:")
        terminal.type(secret)
        _ = try terminal.waitFor("Pulled 1 version")
        // Typed only once the third command asks: typed earlier, the terminal itself would echo it.
        _ = try terminal.waitFor("Passphrase for remote origin:", times: 2)
        terminal.type("not-the-passphrase")
        let last = try terminal.waitFor("EXIT=80")
        #expect(!last.contains(secret) && !last.contains("not-the-passphrase"), "a passphrase was echoed:\n\(last)")
        #expect(last.contains("does not open"), "\(last)")
        let listed = CLIHarness.runProcess(CLIHarness.executable, ["--store", "\(dir)/restored", "list"])
        #expect(listed.stdout.contains("typed on a terminal"), "\(listed)")
        // The passphrase is in no file of the stores or the remote.
        for root in ["\(dir)/laptop", "\(dir)/restored", remote] {
            for file in FileManager.default.subpaths(atPath: root) ?? [] {
                let bytes = FileManager.default.contents(atPath: "\(root)/\(file)") ?? Data()
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(root)/\(file) holds the passphrase")
            }
        }
    }
}
