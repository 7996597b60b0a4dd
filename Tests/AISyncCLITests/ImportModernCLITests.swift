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
        try await Self.importEveryFixture(into: store)
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

    /// The 2023 and 2026 ChatGPT exports, the tools of 2023-2024, a Claude export with
    /// branches and two single saved conversations.
    static let fixtures = [
        "chatgpt", "chatgpt-2026", "chatgpt-tools", "claude-branches", "chatgpt-single/conversation.json",
        "claude-single/conversation.json",
    ]

    static func importEveryFixture(into store: CLIStore) async throws {
        for path in fixtures { try await store.invokeOK(["import", ImportFixture.path(path), "--with-reasoning"]) }
    }

    /// What a reader sees of exported pages: the text of each HTML page (parsed by html5lib,
    /// strictly) or of every XHTML file of an EPUB (parsed as XML), styles left out, and the
    /// `alt` of every picture, as one JSON object by path.
    static func visibleText(_ paths: [String]) throws -> [String: (text: String, alts: [String])] {
        let script = """
            import sys, json, zipfile, html5lib, xml.etree.ElementTree as ET
            def tag(el): return el.tag.split('}')[-1] if isinstance(el.tag, str) else ''
            out = {}
            for path in sys.argv[1:]:
                if path.endswith('.epub'):
                    z = zipfile.ZipFile(path)
                    roots = [ET.fromstring(z.read(n)) for n in sorted(z.namelist()) if n.endswith('.xhtml')]
                else:
                    with open(path, 'rb') as f:
                        roots = [html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(f.read())]
                text, alts = [], []
                for root in roots:
                    for parent in list(root.iter()):
                        for child in list(parent):
                            if tag(child) in ('style', 'script'): parent.remove(child)
                    text.append(''.join(root.itertext()))
                    alts += [el.get('alt') for el in root.iter() if tag(el) == 'img']
                out[path] = {'text': '\\n'.join(text), 'alts': alts}
            print(json.dumps(out))
            """
        let run = CLIHarness.runProcess("/usr/bin/env", ["python3", "-c", script] + paths)
        try #require(run.exitCode == 0, "\(run)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: run.stdoutData) as? [String: [String: Any]])
        return parsed.mapValues { ($0["text"] as? String ?? "", $0["alts"] as? [String] ?? []) }
    }

    /// Every chat exported as HTML and as EPUB shows what `show` shows: each line of every
    /// message and alternative, the custom instructions, the reasoning kept, every tool call
    /// and output, and every picture (by its title); and no raw JSON.
    @Test(.needsPythonModules("html5lib")) func everyImportReadsTheSameInHTMLAndEPUB() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        try await Self.importEveryFixture(into: store)
        // And a chat with an uploaded photo and two DALL·E pictures.
        try await store.invokeOK(["import", ImportFixture.path("chatgpt-images")])
        let chats = try store.list(["--kind", "chat"])
        #expect(chats.count == 10, "\(chats.count) chats")
        var files: [(chat: [String: Any], html: String, epub: String)] = []
        for (n, chat) in chats.enumerated() {
            let id = try #require(chat["id"] as? String)
            let html = "\(store.directory)/chat\(n).html"
            let epub = "\(store.directory)/chat\(n).epub"
            CLIExpect.success(await store.invoke(["export", id, "--format", "html", "--output", html]))
            CLIExpect.success(await store.invoke(["export", id, "--format", "epub", "--output", epub]))
            files.append((try store.show(id), html, epub))
        }
        let seen = try Self.visibleText(files.flatMap { [$0.html, $0.epub] })
        var lines = 0
        var pictures = 0
        var tools = 0
        for (body, html, epub) in files {
            let title = body["title"] as? String ?? "?"
            var expected: [String] = []
            var pictureTitles: [String] = []
            func add(_ text: String) {
                var fenced = false
                for line in text.split(separator: "\n") {
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    if trimmed.hasPrefix("```") {
                        fenced.toggle()
                        continue
                    }
                    guard !trimmed.isEmpty else { continue }
                    if trimmed.hasPrefix("[image: image-") {
                        let id = String(trimmed.dropFirst("[image: ".count).dropLast())
                        if let picture = try? store.show(id), let name = picture["title"] as? String {
                            pictureTitles.append(name)
                        }
                        continue
                    }
                    if trimmed.hasPrefix("[tool call:") || trimmed.hasPrefix("[code:") || trimmed.hasSuffix("output]") {
                        tools += 1
                    }
                    expected.append(fenced ? String(line) : trimmed)
                }
            }
            if let instructions = body["instructions"] as? String { add(instructions) }
            for message in (body["messages"] as? [[String: Any]] ?? [])
                + (body["alternatives"] as? [[String: Any]] ?? [])
            {
                add(message["text"] as? String ?? "")
                if let reasoning = message["reasoning"] as? String { add(reasoning) }
            }
            for path in [html, epub] {
                let page = try #require(seen[path], "\(path) not read")
                for line in expected {
                    #expect(page.text.contains(line), "\(title): \(line.prefix(60)) missing from \(path)")
                }
                for name in pictureTitles {
                    #expect(page.alts.contains(name), "\(title): picture \(name) not in \(path)")
                }
                expectNoRawJSON(page.text, "\(path) (\(title))")
                #expect(!page.text.contains("[image: image-"), "\(path): every picture is shown, not referred to")
            }
            lines += expected.count
            pictures += pictureTitles.count
        }
        #expect(
            lines >= 100 && pictures >= 4 && tools >= 10, "\(lines) lines, \(pictures) pictures, \(tools) tool lines")
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
