import AISync
import AISyncTestSupport
import Foundation
import Testing

// `aisync export` end to end (issue 9): the built binary writes the files, and tools that
// know nothing of aisync check them: epubcheck, Python's html5lib, Chromium. scripts/test.sh
// installs those; a missing one fails the test with a message saying so.

@Suite(
    "Export CLI", .tags(.python, .tools), .needsPython,
    .needsTools("/usr/share/java/epubcheck.jar", "java", "chromium"), .needsPythonModules("html5lib"))
struct ExportCLITests {
    static let nastyTitle = "Tom & Jerry <script>alert('x')</script>"

    /// A store with a three-page story (PNG, JPEG and GIF pictures; one page without) and a chat.
    static func storeWithStory() async throws -> (store: CLIStore, story: String, chat: String) {
        let store = try CLIHarness.makeStore()
        var images: [String] = []
        for image in CLIFixtures.allImages {
            let path = CLIFixtures.write(image, in: store.directory)
            images.append(try await store.invokeOK(["image", "add", path, "--title", "Picture <\(image.name)>"]))
        }
        let story = try await store.invokeOK([
            "story", "new", "--title", nastyTitle, "--moral", "Share & be kind",
            "--page", "Once upon a time & <b>far</b> away.", "--page", "Page two\nwith a line break.",
            "--page", "The end.", "--page", "No picture here.",
            "--image", images[0], "--image", images[1], "--image", images[2],
        ])
        let chat = try await store.invokeOK(["chat", "new", "--title", "Code & <tags>", "--model", "gpt-4o"])
        try await store.invokeOK(["chat", "say", chat, "--role", "user", "How do I print in Swift?"])
        try await store.invokeOK([
            "chat", "say", chat, "--role", "assistant", "Like this:\n\n```swift\nprint(\"<hi> & bye\")\n```\n",
        ])
        return (store, story, chat)
    }

    /// Runs `python3 -c script args…`.
    static func python(_ script: String, _ args: [String]) -> CLIResult {
        CLIHarness.runProcess("/usr/bin/env", ["python3", "-c", script] + args)
    }

    /// Parses each file with html5lib in strict mode: any parse error fails.
    static func requireStrictHTML(_ paths: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let probe = python("import html5lib", [])
        try #require(
            probe.exitCode == 0,
            "Python's html5lib is not installed: run scripts/test.sh, or `pip install html5lib` (\(probe.stderr))",
            sourceLocation: sourceLocation)
        let script = """
            import sys, html5lib
            for path in sys.argv[1:]:
                with open(path, 'rb') as f:
                    html5lib.HTMLParser(strict=True).parse(f.read())
            """
        let r = python(script, paths)
        #expect(r.exitCode == 0, "html5lib found errors: \(r)", sourceLocation: sourceLocation)
    }

    @Test func storyEPUBPassesEpubcheck() async throws {
        let (store, story, _) = try await Self.storeWithStory()
        defer { store.remove() }
        let epub = "\(store.directory)/book.epub"
        let r = await store.invoke(["export", story, "--format", "epub", "--output", epub])
        CLIExpect.success(r)
        #expect(r.trimmedStdout == epub)
        let jar = "/usr/share/java/epubcheck.jar"
        try #require(
            FileManager.default.fileExists(atPath: jar),
            "epubcheck is not installed (\(jar)): run scripts/test.sh, or `apt-get install epubcheck`")
        let check = CLIHarness.runProcess("/usr/bin/env", ["java", "-jar", jar, epub], timeout: 300)
        #expect(check.exitCode == 0, "epubcheck rejected the EPUB: \(check)")
        #expect(check.stdout.contains("No errors or warnings detected"), "\(check)")
        // The pictures are inside, and the title is escaped in the XHTML.
        let list = Self.python(
            "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nfor n in z.namelist(): print(n)\nprint(z.read('OEBPS/title.xhtml').decode())",
            [epub])
        #expect(list.stdoutLines.first == "mimetype", "\(list)")
        #expect(list.stdoutLines.filter { $0.hasPrefix("OEBPS/images/") }.count == 3, "\(list)")
        #expect(list.stdout.contains("Tom &amp; Jerry &lt;script&gt;") && !list.stdout.contains("<script>"), "\(list)")
    }

    @Test func storyHTMLIsSelfContainedAndParsesStrictly() async throws {
        let (store, story, _) = try await Self.storeWithStory()
        defer { store.remove() }
        let path = "\(store.directory)/book.html"
        CLIExpect.success(await store.invoke(["export", story, "--output", path]))
        try Self.requireStrictHTML([path])
        let html = try String(contentsOfFile: path, encoding: .utf8)
        for type in ["png", "jpeg", "gif"] {
            #expect(html.contains("src=\"data:image/\(type);base64,"), "\(type) inlined")
        }
        #expect(html.contains("<meta name=\"viewport\""))
        #expect(html.contains("break-after: page"))
        #expect(html.contains("<title>Tom &amp; Jerry &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;</title>"))
        #expect(!html.contains("<script") && !html.contains("<b>far"), "text is escaped")
        #expect(!html.contains("src=\"http") && !html.contains("src=\"file"), "nothing is loaded from elsewhere")
    }

    @Test func chatMarkdownToStandardOutput() async throws {
        let (store, _, chat) = try await Self.storeWithStory()
        defer { store.remove() }
        let r = await store.invoke(["export", chat, "--output", "-"])
        CLIExpect.success(r)
        #expect(r.stdout.hasPrefix("# Code & <tags>\n\n- Model: gpt-4o\n"), "\(r)")
        #expect(r.stdout.contains("## User\n\nHow do I print in Swift?\n"), "\(r)")
        #expect(r.stdout.contains("## Assistant\n\nLike this:\n\n```swift\nprint(\"<hi> & bye\")\n```\n"), "\(r)")
        // JSON of any record is its canonical body.
        let json = await store.invoke(["export", chat, "--format", "json", "--output", "-"])
        CLIExpect.success(json)
        let shown = await store.invoke(["show", chat, "--json"])
        #expect(json.stdout == shown.stdout)
    }

    @Test func overwriteIsRefusedWithoutForce() async throws {
        let (store, _, chat) = try await Self.storeWithStory()
        defer { store.remove() }
        // Without --output: ID.md in the current directory.
        let cwd = CLIHarness.shell("cd '\(store.directory)' && \"$AISYNC\" export \(chat) --store '\(store.path)'")
        CLIExpect.success(cwd)
        #expect(
            cwd.trimmedStdout == "./\(chat).md"
                && FileManager.default.fileExists(atPath: "\(store.directory)/\(chat).md"), "\(cwd)")
        let path = "\(store.directory)/chat.md"
        CLIExpect.success(await store.invoke(["export", chat, "--output", path]))
        let again = await store.invoke(["export", chat, "--output", path])
        CLIExpect.cleanError(again, code: 64, mentioning: ["already exists", "--force"])
        #expect(!again.stderr.contains(".tmp-"), "no temp file names in errors")
        try "old".write(toFile: path, atomically: true, encoding: .utf8)
        CLIExpect.success(await store.invoke(["export", chat, "--output", path, "--force"]))
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("# Code & <tags>"))
        // Into a directory: ID.EXT inside it; then refused there too.
        let dir = "\(store.directory)/out"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let into = await store.invoke(["export", chat, "--output", dir])
        CLIExpect.success(into)
        #expect(into.trimmedStdout == "\(dir)/\(chat).md")
        CLIExpect.cleanError(
            await store.invoke(["export", chat, "--output", dir]), code: 64, mentioning: ["already exists"])
    }

    @Test func anImageIsItsOriginalFile() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let id = try await store.invokeOK(["image", "add", CLIFixtures.write(CLIFixtures.jpeg, in: store.directory)])
        let r = await store.invoke(["export", id, "--output", store.directory])
        CLIExpect.success(r)
        #expect(r.trimmedStdout == "\(store.directory)/\(id).jpg")
        #expect(FileManager.default.contents(atPath: "\(store.directory)/\(id).jpg") == CLIFixtures.jpeg.bytes)
        let out = await store.invoke(["export", id, "--output", "-"])
        #expect(out.exitCode == 0 && out.stdoutData == CLIFixtures.jpeg.bytes, "\(out)")
        CLIExpect.cleanError(
            await store.invoke(["export", id, "--output", store.directory]), code: 64, mentioning: ["already exists"])
        // A folder that does not exist: the error names the file asked for, not a temp file.
        let missing = await store.invoke(["export", id, "--output", "\(store.directory)/no/such/x.jpg"])
        CLIExpect.cleanError(missing, code: 66, mentioning: ["\(store.directory)/no/such/x.jpg"])
        #expect(!missing.stderr.contains(".tmp-"), "\(missing)")
    }

    @Test(arguments: [
        (["export"], "give a record ID or --all"),
        (["export", "--all", "--format", "md"], "--format cannot be used with --all"),
        (["export", "chat-0000000000000000", "--format", "pdf"], "unknown format"),
        (["export", "chat-0000000000000000"], "chat-0000000000000000"),
    ])
    func usageErrors(arguments: [String], needle: String) async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let r = await store.invoke(arguments)
        CLIExpect.cleanError(r, code: arguments.count == 2 ? 66 : 64, mentioning: [needle])
    }

    @Test func anImageCannotBeAnEPUB() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let image = try await store.invokeOK(["image", "add", CLIFixtures.write(CLIFixtures.png, in: store.directory)])
        CLIExpect.cleanError(
            await store.invoke(["export", image, "--format", "epub", "--output", "-"]), code: 64,
            mentioning: ["an image cannot be exported as epub", "json"])
    }

    /// A chat as the app showed it, as an EPUB (epubcheck) and an HTML page (strict html5lib),
    /// with its instructions, reasoning, tool calls and picture.
    @Test func aChatIsAnEPUBAndAnHTMLPageWithItsPicture() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        try await store.invokeOK(["import", ImportFixture.path("chatgpt-2026"), "--with-reasoning"])
        let chats = try store.list(["--kind", "chat"])
        let chat = try #require(chats.first { $0["title"] as? String == "Voice, tools and a fox" }?["id"] as? String)
        let epub = "\(store.directory)/chat.epub"
        CLIExpect.success(await store.invoke(["export", chat, "--format", "epub", "--output", epub]))
        let jar = "/usr/share/java/epubcheck.jar"
        let check = CLIHarness.runProcess("/usr/bin/env", ["java", "-jar", jar, epub], timeout: 300)
        #expect(check.exitCode == 0 && check.stdout.contains("No errors or warnings detected"), "\(check)")
        let inside = Self.python(
            "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nfor n in z.namelist(): print(n)\nfor n in ('OEBPS/title.xhtml', 'OEBPS/chat.xhtml'): print(z.read(n).decode())",
            [epub])
        #expect(inside.stdoutLines.filter { $0.hasPrefix("OEBPS/images/") }.count == 1, "\(inside)")
        #expect(inside.stdout.contains("<img src=\"images/"), "\(inside)")
        let html = "\(store.directory)/chat.html"
        CLIExpect.success(await store.invoke(["export", chat, "--format", "html", "--output", html]))
        try Self.requireStrictHTML([html])
        let page = try String(contentsOfFile: html, encoding: .utf8)
        for text in [inside.stdout, page] {
            for expected in [
                "I am a biologist in Porto.", "How fast can a red fox run?", "[DALL·E request]",
                "Red foxes reach 50 km/h in short bursts.", "[canvas: fox_notes]", "Here is your fox.",
                "alt=\"A red fox running through deep snow, watercolor\"",
            ] {
                #expect(text.contains(expected), "\(expected) missing")
            }
            #expect(!text.contains("[image: image-"), "every picture is shown, not referred to")
            #expect(!text.contains("{&quot;") && !text.contains("content_type"), "no raw JSON")
        }
        #expect(page.contains("<img src=\"data:image/png;base64,"), "the picture is inlined")
    }
}
