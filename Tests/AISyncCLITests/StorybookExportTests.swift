import AISync
import AISyncTestSupport
import Foundation
import Testing

// Issue 26 end to end: `aisync import storybook FOLDER` then `aisync export` as EPUB and HTML
// shows the page pictures (epubcheck and html5lib check the files), and a zip with an entry
// named `../x` is refused with one line, exit 65, and nothing written.

@Suite(
    "Storybook pictures CLI", .tags(.python, .tools), .needsPython,
    .needsTools("/usr/share/java/epubcheck.jar", "java"),
    .needsPythonModules("html5lib"))
struct StorybookExportTests {
    /// The sha256 (hex) of each picture of the storybook-pictures fixture, in page order.
    static func fixtureDigests() throws -> [String] {
        try ["a-forest.png", "b-rain.jpg", "c-stars.png"].map {
            SHA256.hash(
                Array(try Data(contentsOf: URL(fileURLWithPath: ImportFixture.path("storybook-pictures/\($0)"))))
            ).hex
        }
    }

    /// Imports the storybook-pictures folder; the story's id.
    static func importStory(_ store: CLIStore) async throws -> String {
        let r = await store.invoke(["import", "storybook", ImportFixture.path("storybook-pictures"), "--json"])
        CLIExpect.success(r)
        let summary = try CLIJSON.object(r)
        let records = summary["records"] as? [[String: Any]] ?? []
        #expect(records.map { $0["kind"] as? String } == ["image", "image", "image", "story"], "\(r)")
        #expect(summary["created"] as? Int == 4)
        return try #require(records.last?["id"] as? String)
    }

    @Test func anImportedStoryWithPicturesExportsThemToEPUB() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let story = try await Self.importStory(store)
        let shown = try store.show(story)
        let pages = shown["pages"] as? [[String: Any]] ?? []
        #expect(try pages.map { $0["image"] as? String } == Self.fixtureDigests(), "\(shown)")

        let epub = "\(store.directory)/owl.epub"
        CLIExpect.success(await store.invoke(["export", story, "--format", "epub", "--output", epub]))
        let check = CLIHarness.runProcess(
            "/usr/bin/env", ["java", "-jar", "/usr/share/java/epubcheck.jar", epub], timeout: 300)
        #expect(check.exitCode == 0 && check.stdout.contains("No errors or warnings detected"), "\(check)")
        // Each picture is in the book with its own bytes, and a page's XHTML shows it.
        let script = """
            import hashlib, re, sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            for n in sorted(z.namelist()):
                if n.startswith('OEBPS/images/'): print('image', hashlib.sha256(z.read(n)).hexdigest(), n[len('OEBPS/'):])
            for n in sorted(z.namelist()):
                if n.endswith('.xhtml'):
                    for src in re.findall(r'<img[^>]* src="([^"]+)"', z.read(n).decode()): print('img', n, src)
            """
        let listed = ExportCLITests.python(script, [epub])
        #expect(listed.exitCode == 0, "\(listed)")
        let images = listed.stdoutLines.filter { $0.hasPrefix("image ") }.map { $0.split(separator: " ") }
        #expect(Set(images.map { String($0[1]) }) == Set(try Self.fixtureDigests()), "\(listed)")
        let shownIn = listed.stdoutLines.filter { $0.hasPrefix("img ") }.map { $0.split(separator: " ") }
        #expect(shownIn.count == 3, "one picture on each of the three pages: \(listed)")
        for line in shownIn {
            // `images/x.png` from OEBPS/page-N.xhtml, or `../images/x.png` one folder down.
            let src = String(line[2]).replacingOccurrences(of: "../", with: "")
            #expect(images.contains { String($0[2]) == src }, "\(line) points at a picture in the book")
        }
    }

    @Test func anImportedStoryWithPicturesExportsThemToHTML() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let story = try await Self.importStory(store)
        let html = "\(store.directory)/owl.html"
        CLIExpect.success(await store.invoke(["export", story, "--output", html]))
        try ExportCLITests.requireStrictHTML([html])
        let text = try String(contentsOfFile: html, encoding: .utf8)
        let pictures = try ["a-forest.png", "b-rain.jpg", "c-stars.png"].map {
            try Data(contentsOf: URL(fileURLWithPath: ImportFixture.path("storybook-pictures/\($0)")))
                .base64EncodedString()
        }
        #expect(text.contains("src=\"data:image/png;base64,\(pictures[0])\""))
        #expect(text.contains("src=\"data:image/jpeg;base64,\(pictures[1])\""))
        #expect(text.contains("src=\"data:image/png;base64,\(pictures[2])\""))
    }
}

@Suite("Import CLI: a story's pictures")
struct StorybookPicturesCLITests {
    @Test func aStoryFileNamedWithoutAFolderFindsThePicturesBesideIt() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let dir = "\(store.directory)/owl"
        try FileManager.default.copyItem(atPath: ImportFixture.path("storybook-numbered"), toPath: dir)
        let r = CLIHarness.shell(
            "cd '\(dir)' && \"$AISYNC\" import storybook story.json --json --store '\(store.path)'")
        CLIExpect.success(r)
        let summary = try CLIJSON.object(r)
        #expect(summary["created"] as? Int == 4, "three pictures and the story: \(r)")
        #expect((summary["notes"] as? [String])?.count == 1, "only page-9.png is left over: \(r)")
    }
}

@Suite("Import CLI: unsafe zips")
struct UnsafeZipCLITests {
    @Test(arguments: [
        ("chatgpt", "conversations.json", "../../etc/x.png"), ("claude", "conversations.json", "/tmp/x"),
        ("storybook", "story.json", "C:\\Windows\\x.png"), ("storybook", "story.json", "pics/../../x\u{1B}[31m.png"),
    ])
    func anEntryOutsideTheArchiveRefusesItWhole(source: String, json: String, evil: String) async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let good = try Data(
            contentsOf: URL(
                fileURLWithPath: ImportFixture.path(
                    source == "storybook" ? "storybook/story.json" : "\(source)/\(json)")))
        let zip = "\(store.directory)/export.zip"
        try HostileZip.write(
            [(json, Array(good)), ("page-1.png", Scratch.pngBytes), (evil, Scratch.pngBytes)], to: zip)
        let before = store.journalBytes()
        for args in [["import", source, zip], ["import", zip]] {
            let r = await store.invoke(args)
            #expect(r.exitCode == 65 && r.stdout.isEmpty, "\(r)")
            #expect(r.stderrLines.count == 1, "one line: \(r)")
            #expect(r.stderr.hasPrefix("Error: \(zip) holds an entry named \""), "\(r)")
            #expect(r.stderr.contains("that points outside the archive"), "\(r)")
            #expect(r.stderr.contains("This archive is unsafe to unpack; get the export again from the app"), "\(r)")
            #expect(!r.stderr.contains("\u{1B}"), "the name cannot drive the terminal: \(r)")
        }
        #expect(store.journalBytes() == before)
        #expect(try store.list().isEmpty)
    }
}
