import AISyncTestSupport
import Foundation
import Testing

/// What aisync writes on a real terminal (Debian's tmux, recorded byte for byte with
/// pipe-pane): one progress line redrawn in place, colours for roles and errors, and neither
/// when the output is piped, `NO_COLOR` is set or `TERM=dumb` (issue 13).
@Suite("Terminal output", .tags(.tools), .needsTools("tmux"))
struct TerminalOutputTests {
    static let escape = "\u{1B}["

    /// The recording split at the `printf 'MARK\n'` lines a script prints between commands.
    static func parts(_ raw: String) -> [String] { raw.components(separatedBy: "MARK\r\n") }

    @Test(
        "a push of 2,000 chats on a terminal redraws one progress line in place and ends clean; piped, it shows no progress and no colour"
    )
    func progressLine() throws {
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        for name in ["tty", "piped"] {
            let store = "\(dir)/\(name)"
            for r in [
                CLIHarness.run(["init"], store: store),
                CLIHarness.generate(2000, store: store, ["--answer-bytes", "6000"]),
                CLIHarness.run(["remote", "add", "origin", "file://\(dir)/remote-\(name)"], store: store),
            ] {
                try #require(r.succeeded, "\(r)")
            }
            try FileManager.default.createDirectory(atPath: "\(dir)/remote-\(name)", withIntermediateDirectories: true)
        }
        let aisync = Terminal.quoted(CLIHarness.executable)
        let raw = "\(dir)/raw"
        let terminal = Terminal()
        defer { terminal.stop() }
        try terminal.record(
            "unset NO_COLOR; \(aisync) --store \(Terminal.quoted("\(dir)/tty")) push; printf 'MARK\\n'; "
                + "\(aisync) --store \(Terminal.quoted("\(dir)/piped")) push | cat", into: raw)
        let screen = terminal.screen()
        let recorded = String(decoding: try #require(FileManager.default.contents(atPath: raw)), as: UTF8.self)
        let parts = Self.parts(recorded)
        try #require(parts.count == 2, "\(recorded.debugDescription)")

        // On the terminal: drawn at least at the start and at the end, each draw after a
        // carriage return and erase-line, never a new line, and erased before the result.
        let draw = "\r\(Self.escape)KPushing versions ["
        let draws = parts[0].components(separatedBy: draw).dropFirst().map { $0.prefix { $0 != "\r" } }
        #expect(draws.count >= 2, "\(parts[0].debugDescription)")
        for text in draws {
            #expect(!text.contains("\n"), "a progress draw started a new line: \(text.debugDescription)")
        }
        #expect(
            draws.first?.contains("0/2000") == true && draws.last?.contains("====================] 2000/2000") == true,
            "\(parts[0].debugDescription)")
        #expect(draws.last?.contains(" MB") == true, "the line shows bytes: \(parts[0].debugDescription)")
        #expect(
            parts[0].contains("\r\(Self.escape)KPushed 2000 versions ("),
            "the line is erased before the result: \(parts[0].suffix(300).debugDescription)")
        #expect(
            screen.contains("Pushed 2000 versions") && !screen.contains("Pushing versions"),
            "the progress line was left behind:\n\(screen)")

        // Piped: the same result, no progress, no escape sequence at all.
        #expect(parts[1].contains("Pushed 2000 versions"), "\(parts[1].debugDescription)")
        #expect(!parts[1].contains("Pushing") && !parts[1].contains(Self.escape), "\(parts[1].debugDescription)")
    }

    @Test(
        "roles and errors are coloured on a terminal, never a title's own escapes; NO_COLOR, TERM=dumb and a pipe turn colour off"
    )
    func colours() throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let chat = try #require(store.run(["chat", "new", "--title", "\u{1B}[31mEVIL"]).stdoutLines.first)
        CLIExpect.success(store.run(["chat", "say", chat, "--role", "user", "hello"]))
        CLIExpect.success(store.run(["chat", "say", chat, "--role", "assistant", "hi there"]))
        let show = "\(Terminal.quoted(CLIHarness.executable)) --store \(Terminal.quoted(store.path)) show"
        let raw = "\(store.directory)/raw"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        let terminal = Terminal()
        defer { terminal.stop() }
        try terminal.record(
            [
                "unset NO_COLOR; \(show) \(chat)", "NO_COLOR=1 \(show) \(chat)", "TERM=dumb \(show) \(chat)",
                "\(show) \(chat) | cat",
                "\(show) chat-nosuchrecord0", "NO_COLOR=1 \(show) chat-nosuchrecord0",
            ].joined(separator: "; printf 'MARK\\n'; "), into: raw)
        let parts = Self.parts(String(decoding: try #require(FileManager.default.contents(atPath: raw)), as: UTF8.self))
        try #require(parts.count == 6, "\(parts)")
        #expect(
            parts[0].contains("\(Self.escape)32muser\(Self.escape)0m")
                && parts[0].contains("\(Self.escape)36massistant\(Self.escape)0m"),
            "roles are coloured: \(parts[0].debugDescription)")
        #expect(
            parts[0].contains("\\x1b[31mEVIL") && !parts[0].contains("\u{1B}[31mEVIL"),
            "the title's escape is shown, not obeyed: \(parts[0].debugDescription)")
        for (n, what) in [(1, "NO_COLOR=1"), (2, "TERM=dumb"), (3, "a pipe")] {
            #expect(
                parts[n].contains("hi there") && !parts[n].contains(Self.escape),
                "\(what) must turn colour off: \(parts[n].debugDescription)")
        }
        #expect(
            parts[4].contains("\(Self.escape)1;31mError:\(Self.escape)0m"),
            "errors are red: \(parts[4].debugDescription)")
        #expect(parts[5].contains("Error:") && !parts[5].contains(Self.escape), "\(parts[5].debugDescription)")
    }
}
