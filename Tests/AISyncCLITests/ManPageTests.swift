import AISyncTestSupport
import Foundation
import Testing

/// The man page comes from the command table (issue 13): groff renders it without a warning,
/// and it names every command `aisync help` lists and every exit code.
@Suite("Man page", .tags(.tools), .needsTools("groff"))
struct ManPageTests {
    @Test("aisync manpage renders cleanly with groff and covers every command and exit code")
    func rendersAndCovers() throws {
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        let page = CLIHarness.run(["manpage"])
        try #require(page.exitCode == 0, "\(page)")
        try page.stdoutData.write(to: URL(fileURLWithPath: "\(dir)/aisync.1"))
        let lint = CLIHarness.runProcess("/usr/bin/env", ["groff", "-man", "-Tutf8", "-ww", "-z", "\(dir)/aisync.1"])
        #expect(
            lint.exitCode == 0 && lint.stderr.isEmpty,
            "groff (Debian's groff-base; scripts/test.sh installs it) warned: \(lint)")
        var env = CLIHarness.baseEnvironment()
        env["MANWIDTH"] = "200"
        let rendered = CLIHarness.runProcess(
            "/usr/bin/env", ["groff", "-man", "-Tutf8", "-P", "-cbou", "\(dir)/aisync.1"], environment: env
        ).stdout
            .replacingOccurrences(of: "\u{2010}", with: "-").replacingOccurrences(of: "\u{2212}", with: "-")
            .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        let help = CLIHarness.run(["help"]).stdoutLines
        let listed = help.drop { !$0.hasPrefix("SUBCOMMANDS:") }.dropFirst().compactMap { line -> String? in
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            guard line.hasPrefix("  "), line.dropFirst(2).first != " ", let first = words.first,
                first.allSatisfy({ $0.isLowercase || $0 == "-" })
            else { return nil }
            return words.count > 1 && words[1].allSatisfy({ $0.isLowercase || $0 == "-" }) && !words[1].isEmpty
                ? "aisync \(first) \(words[1])" : "aisync \(first)"
        }
        #expect(listed.count > 20, "\(help)")
        for command in listed { #expect(rendered.contains(command), "the man page lacks \(command)") }
        for code in ["80", "81", "82", "83", "84", "130"] { #expect(rendered.contains(code), "exit \(code)") }
    }
}
