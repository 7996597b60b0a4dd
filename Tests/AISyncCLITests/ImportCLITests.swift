import AISyncTestSupport
import Foundation
import Testing

// `aisync import` end to end through the built binary: the summary in text and JSON, a
// re-import that adds nothing, a newer export, and bad input as one line with its exit code.

@Suite("Import: command line", .tags(.python), .needsPython)
struct ImportCLITests {
    @Test func importPrintsASummaryAndReimportAddsNothing() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let first = await store.invoke(["import", ImportFixture.path("chatgpt")])
        #expect(first.exitCode == 0 && first.stderr.isEmpty, "\(first)")
        #expect(
            first.stdoutLines.first
                == "Imported from chatgpt: 4 created, 0 extended, 0 unchanged, 0 left alone (deleted here), 1 skipped; 18 messages and pages added",
            "\(first)")
        #expect(first.stdout.contains("Lisbon trip (11 messages)"), "\(first)")
        #expect(first.stdout.contains("2 on other branches (regenerations, edits), kept as alternatives"), "\(first)")
        #expect(first.stdout.contains("skipped   damaged-1: its mapping is missing or not an object"), "\(first)")
        let journal = store.journalBytes()
        let again = try CLIJSON.object(
            await store.invoke(["import", "chatgpt", ImportFixture.path("chatgpt/conversations.json"), "--json"]))
        #expect(again["created"] as? Int == 0 && again["unchanged"] as? Int == 4 && again["elementsAdded"] as? Int == 0)
        #expect(store.journalBytes() == journal)
        #expect(try store.list().count == 4)
    }

    @Test func jsonOutputAndChatsWithAlternativesMatchTheirSchemas() async throws {
        try SchemaValidator.requireAvailable()
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let first = await store.invoke(["import", ImportFixture.path("chatgpt"), "--json"])
        let check = SchemaValidator.validate("import-output", stdin: first.stdoutData)
        #expect(first.exitCode == 0 && check.passed, "\(check)")
        let records = try #require(try CLIJSON.object(first)["records"] as? [[String: Any]])
        let lisbon = try #require(records.first { $0["title"] as? String == "Lisbon trip" }?["id"] as? String)
        let shown = await store.invoke(["show", lisbon, "--json"])
        #expect((try CLIJSON.object(shown)["alternatives"] as? [[String: Any]])?.count == 2)
        let chat = SchemaValidator.validate("chat", stdin: shown.stdoutData, canonical: true)
        #expect(chat.passed, "\(chat)")
        let journal = SchemaValidator.validate("journal-line", files: [store.journalPath], canonical: true, jsonl: true)
        #expect(journal.passed, "\(journal)")
        let text = await store.invoke(["show", lisbon])
        #expect(
            text.stdout.contains("2 alternatives on other branches")
                && text.stdout.contains("An old answer that was regenerated."), "\(text)")
        // The validator can fail: a record with an unknown outcome is refused.
        let bad = SchemaValidator.validate(
            "import-output",
            stdin: Data(
                String(decoding: first.stdoutData, as: UTF8.self)
                    .replacingOccurrences(of: "\"outcome\":\"created\"", with: "\"outcome\":\"made\"").utf8))
        #expect(!bad.passed)
    }

    @Test func roundTripEveryImportedMessageIsInItsMarkdownExport() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        for source in ["chatgpt", "claude"] { try await store.invokeOK(["import", ImportFixture.path(source)]) }
        let chats = try store.list(["--kind", "chat"])
        #expect(chats.count >= 5)
        var checked = 0
        for chat in chats {
            let id = try #require(chat["id"] as? String)
            let shown = try store.show(id)
            let messages =
                (shown["messages"] as? [[String: Any]] ?? []) + (shown["alternatives"] as? [[String: Any]] ?? [])
            let markdown = try await store.invokeOK(["export", id, "--format", "md", "-o", "-"])
            for message in messages {
                let text = try #require(message["text"] as? String).trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(markdown.contains(text), "\(id): \(text.prefix(60)) missing from its Markdown")
                checked += 1
            }
        }
        #expect(checked >= 20, "\(checked) messages checked")
    }

    @Test func dalleURLsAreFetchedOnlyWithFetch() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        // A loopback server with one picture; the response names it and one that is gone.
        let dir = "\(store.directory)/www"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: "\(dir)/img.png", contents: CLIFixtures.png.bytes)
        let server = try CLIHarness.startShell("cd '\(dir)' && exec python3 -u -m http.server --bind 127.0.0.1 0")
        defer { kill(server.pid, SIGKILL) }
        var port: Int?
        for _ in 0..<100 where port == nil {
            port = server.currentStdout().split(separator: " ").compactMap { Int($0) }.first { $0 > 1024 }
            if port == nil { usleep(50_000) }
        }
        let base =
            "http://127.0.0.1:\(try #require(port, "the picture server did not start: \(server.currentStdout())"))"
        let response = "\(store.directory)/response.json"
        try Data(
            #"{"created": 1700000000, "data": [{"url": "\#(base)/img.png", "revised_prompt": "a square"}, {"url": "\#(base)/gone.png"}]}"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: response))
        let without = await store.invoke(["import", "dalle", response])
        #expect(
            without.exitCode == 0 && without.stdout.contains("0 created")
                && without.stdout.contains("2 image URL(s) not fetched")
                && without.stdout.contains("--fetch"),
            "no picture without --fetch, and the summary says how: \(without)")
        let with = await store.invoke(["import", "dalle", response, "--fetch"])
        #expect(with.exitCode == 0 && with.stdout.contains("1 created"), "\(with)")
        #expect(with.stdout.contains("1 image URL(s) could not be fetched") && with.stdout.contains("404"), "\(with)")
        let images = try store.list(["--kind", "image"])
        let id = try #require(images.first?["id"] as? String)
        let saved = await store.invoke(["image", "save", id, "-"])
        #expect(saved.stdoutData == CLIFixtures.png.bytes)
    }

    @Test func aNewerExportExtendsTheChat() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        try await store.invokeOK(["import", "chatgpt", ImportFixture.path("chatgpt")])
        let newer = try CLIJSON.object(await store.invoke(["import", ImportFixture.path("chatgpt-newer"), "--json"]))
        #expect(newer["created"] as? Int == 1 && newer["extended"] as? Int == 1 && newer["elementsAdded"] as? Int == 4)
        let records = newer["records"] as? [[String: Any]] ?? []
        let lisbon = try #require(records.first { $0["title"] as? String == "Lisbon trip" })
        #expect(lisbon["outcome"] as? String == "extended" && lisbon["elements"] as? Int == 2)
        let shown = try store.show(lisbon["id"] as? String ?? "")
        #expect((shown["messages"] as? [[String: Any]])?.count == 11)
        #expect(await store.invoke(["conflicts", "--json"]).trimmedStdout == "[]")
    }

    @Test func dryRunAndOtherSources() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let dry = try CLIJSON.object(
            await store.invoke(["import", ImportFixture.path("storybook/story.json"), "--dry-run", "--json"]))
        #expect(dry["dryRun"] as? Bool == true && dry["created"] as? Int == 1)
        #expect(try store.list().isEmpty)
        let story = await store.invoke(["import", "storybook", ImportFixture.path("storybook/story.json")])
        #expect(story.stdout.contains("The Brave Little Fox (3 pages)"), "\(story)")
        let dalle = await store.invoke([
            "import", "dalle", ImportFixture.path("dalle/response.json"), "--prompt", "red", "--model", "dall-e-3",
        ])
        #expect(dalle.exitCode == 0 && dalle.stdout.contains("note      1 image URL(s) not fetched"), "\(dalle)")
        let claude = await store.invoke(["import", ImportFixture.path("claude")])
        #expect(claude.exitCode == 0 && claude.stdout.contains("Fox facts (3 messages)"), "\(claude)")
        #expect(try store.list().count == 4)
        #expect(await store.invoke(["fsck"]).exitCode == 0)
    }

    @Test(arguments: [
        (["import", "bad/not-an-export.json"], Int32(65), "is not an export this version knows"),
        (["import", "bad/truncated.json"], 65, "is not valid JSON"),
        (["import", "chatgpt", "bad/wrong-types.json"], 65, "nothing in"),
        (["import", "gpt", "chatgpt"], 64, "unknown source 'gpt'"),
        (["import", "chatgpt", "nowhere.json"], 66, "no such file or folder"),
        (["import"], 64, "missing argument PATH"),
    ])
    func badInputIsOneLineWithItsExitCode(arguments: [String], exitCode: Int32, message: String) async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let args = arguments.enumerated().map { n, a in n == arguments.count - 1 && n > 0 ? ImportFixture.path(a) : a }
        let r = await store.invoke(args)
        #expect(r.exitCode == exitCode && r.stdout.isEmpty, "\(r)")
        #expect(r.stderrLines.count == 1 && r.stderr.hasPrefix("Error: ") && r.stderr.contains(message), "\(r)")
        #expect(store.journalBytes().isEmpty)
    }

    @Test func aZippedExportWithPictures() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let r = await store.invoke(["import", ImportFixture.path("chatgpt-export.zip")])
        #expect(r.exitCode == 0 && r.stdoutLines.first?.hasPrefix("Imported from chatgpt: 3 created") == true, "\(r)")
        #expect(r.stdout.contains("3 image files missing from the export"), "\(r)")
        #expect(try store.list(["--kind", "image"]).count == 2)
        #expect(await store.invoke(["fsck"]).exitCode == 0)
        let bad = await store.invoke(["import", ImportFixture.path("bad/truncated.zip")])
        #expect(
            bad.exitCode == 65 && bad.stderrLines.count == 1
                && bad.stderr.contains("is not a zip archive this version can read"), "\(bad)")
    }

    @Test func helpDescribesTheCommand() async throws {
        let r = await CLIHarness.invoke(["import", "--help"])
        #expect(
            r.exitCode == 0 && r.stdout.contains("aisync import")
                && r.stdout.contains("chatgpt, claude, storybook or dalle"), "\(r)")
        #expect(await CLIHarness.invoke(["help"]).stdout.contains("import"))
    }
}
