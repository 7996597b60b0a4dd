import AISyncTestSupport
import Foundation
import Testing

// Issue 26 end to end: a 2023 and a 2026 ChatGPT export, a Claude export with branches and a
// single saved conversation go in; `list`, `show` and the Markdown export read like the apps
// showed them — instructions, tool calls, pictures and prompts, the apps' dates and order —
// and nothing appears as raw JSON. The records and journal match their schemas.

@Suite("Import: what people really have, end to end", .tags(.python), .needsPython)
struct ImportModernCLITests {
    /// Text a person reads must never hold a JSON object or list dumped as is.
    func expectNoRawJSON(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for marker in ["{\"", "\":", "[{", "content_type", "asset_pointer"] {
            #expect(!text.contains(marker), "\(what) holds raw JSON (\(marker))", sourceLocation: sourceLocation)
        }
    }

    @Test func everyImportReadsLikeTheAppShowedIt() async throws {
        try SchemaValidator.requireAvailable()
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        for path in ["chatgpt", "chatgpt-2026", "claude-branches", "chatgpt-single/conversation.json"] {
            try await store.invokeOK(["import", ImportFixture.path(path), "--with-reasoning"])
        }
        let chats = try store.list(["--kind", "chat"])
        // The apps' order: newest activity first (2026, 2025, then 2023), not the import's.
        let titles = chats.compactMap { $0["title"] as? String }
        #expect(Array(titles.prefix(3)) == ["Voice, tools and a fox", "An older chat", "Branching"], "\(titles)")
        let listed = await store.invoke(["list", "--kind", "chat"])
        #expect(listed.stdout.contains("2023-11-14"), "\(listed)")
        #expect(!listed.stdout.contains("just now"), "\(listed)")

        var messagesChecked = 0
        for chat in chats {
            let id = try #require(chat["id"] as? String)
            let shown = await store.invoke(["show", id, "--json"])
            let valid = SchemaValidator.validate("chat", stdin: shown.stdoutData, canonical: true)
            #expect(valid.passed, "\(id): \(valid)")
            let body = try CLIJSON.object(shown)
            let text = await store.invoke(["show", id])
            let markdown = try await store.invokeOK(["export", id, "--format", "md", "-o", "-"])
            expectNoRawJSON(text.stdout, "show \(id)")
            expectNoRawJSON(markdown, "the Markdown of \(id)")
            if let instructions = body["instructions"] as? String {
                #expect(text.stdout.contains("custom instructions:\n\(instructions)"), "\(text)")
                let first = instructions.split(separator: "\n").first.map(String.init) ?? instructions
                #expect(markdown.contains("## Custom instructions\n\n> \(first)"), "\(markdown)")
            }
            let messages =
                (body["messages"] as? [[String: Any]] ?? []) + (body["alternatives"] as? [[String: Any]] ?? [])
            for message in messages {
                let full = try #require(message["text"] as? String)
                // A picture's link is rewritten by the export; every other line is there as written.
                for line in full.split(separator: "\n") where !line.hasPrefix("[image: ") {
                    #expect(text.stdout.contains(line), "\(id): \(line.prefix(60)) missing from show")
                    #expect(markdown.contains(line), "\(id): \(line.prefix(60)) missing from its Markdown")
                }
                if let reasoning = message["reasoning"] as? String {
                    #expect(markdown.contains("<summary>Reasoning</summary>"), "\(markdown)")
                    #expect(text.stdout.contains(reasoning), "\(text)")
                }
                messagesChecked += 1
            }
        }
        #expect(messagesChecked >= 40, "\(messagesChecked) messages checked")

        // The 2026 chat: voice, tools, canvas and the DALL·E picture with its prompt.
        let modern = try #require(chats.first { $0["title"] as? String == "Voice, tools and a fox" }?["id"] as? String)
        let shown = await store.invoke(["show", modern])
        for expected in [
            "How fast can a red fox run?", "[tool call: web.run]", "[canvas: fox_notes]", "[DALL·E request]",
            "prompt: a red fox running through snow, watercolor", "[reasoning before the next answer]",
            "Red foxes reach 50 km/h in short bursts.", "[content type future_widget]",
        ] {
            #expect(shown.stdout.contains(expected), "\(expected) missing: \(shown)")
        }
        let images = try store.list(["--kind", "image"])
        let fox = try #require(
            images.first { $0["title"] as? String == "A red fox running through deep snow, watercolor" })
        let picture = try store.show(try #require(fox["id"] as? String))
        #expect(picture["prompt"] as? String == "A red fox running through deep snow, watercolor")
        #expect(picture["model"] as? String == "dall-e-3")

        let journal = SchemaValidator.validate("journal-line", files: [store.journalPath], canonical: true, jsonl: true)
        #expect(journal.passed, "\(journal)")
    }

    @Test func reasoningIsLeftOutByDefaultAndTheSummarySaysHowToKeepIt() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let run = await store.invoke(["import", ImportFixture.path("chatgpt-2026")])
        #expect(run.exitCode == 0, "\(run)")
        #expect(
            run.stdout.contains("2 reasoning steps, left out (import with --with-reasoning to have them)"), "\(run)")
        #expect(run.stdout.contains("1 custom instructions, kept with the chat"), "\(run)")
        #expect(run.stdout.contains("2 voice recordings, not imported (their transcripts are)"), "\(run)")
        let id = try #require(try store.list(["--kind", "chat"]).first?["id"] as? String)
        let shown = await store.invoke(["show", id])
        #expect(!shown.stdout.contains("Red foxes reach 50 km/h in short bursts."), "\(shown)")
        #expect(!shown.stdout.contains("Thought for"), "\(shown)")
    }
}
