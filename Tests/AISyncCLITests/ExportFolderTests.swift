import AISync
import AISyncTestSupport
import Foundation
import Testing

// `aisync export --all`: a folder anyone can browse with no aisync, and a picture book whose
// pictures a real browser shows.

@Suite(
    "Export folder and browser", .tags(.python, .tools), .needsPython, .needsTools("chromium"),
    .needsPythonModules("html5lib"))
struct ExportFolderTests {
    @Test func allWritesAFolderWhoseIndexLinksResolve() async throws {
        let (store, story, chat) = try await ExportCLITests.storeWithStory()
        defer { store.remove() }
        let out = "\(store.directory)/export"
        let r = await store.invoke(["export", "--all", "--output", out])
        CLIExpect.success(r)
        let images = try store.list(["--kind", "image"]).compactMap { $0["id"] as? String }
        try #require(images.count == 3)
        let expected = ["chats/\(chat).md", "stories/\(story).html", "stories/\(story).epub", "index.html"]
        for file in expected {
            #expect(FileManager.default.fileExists(atPath: "\(out)/\(file)"), "\(file) missing: \(r)")
        }
        let imageFiles = try FileManager.default.contentsOfDirectory(atPath: "\(out)/images").sorted()
        #expect(Set(imageFiles.map { String($0.prefix { $0 != "." }) }) == Set(images), "\(imageFiles)")
        #expect(
            Set(imageFiles.map { String($0.split(separator: ".").last!) }) == ["png", "jpg", "gif"], "\(imageFiles)")
        try ExportCLITests.requireStrictHTML(["\(out)/index.html", "\(out)/stories/\(story).html"])
        // Every link and picture in index.html names a file in the folder.
        let script = """
            import sys, os, html5lib
            root = sys.argv[1]
            doc = html5lib.parse(open(os.path.join(root, 'index.html'), 'rb').read(), namespaceHTMLElements=False)
            for e in doc.iter():
                for attr in ('href', 'src'):
                    if e.get(attr): print(e.get(attr))
            """
        let links = ExportCLITests.python(script, [out])
        try #require(links.exitCode == 0, "\(links)")
        #expect(links.stdoutLines.count >= 7, "\(links)")
        for link in links.stdoutLines {
            #expect(!link.contains(":") && !link.hasPrefix("/"), "relative link: \(link)")
            #expect(
                FileManager.default.fileExists(atPath: "\(out)/\(link)"),
                "index.html links to \(link), which is not there")
        }
        let index = try String(contentsOfFile: "\(out)/index.html", encoding: .utf8)
        #expect(index.contains("Tom &amp; Jerry &lt;script&gt;") && !index.contains("<script"), "titles escaped")
    }

    @Test func allRefusesAFolderInUseWithoutForce() async throws {
        let (store, _, _) = try await ExportCLITests.storeWithStory()
        defer { store.remove() }
        let out = "\(store.directory)/export"
        CLIExpect.success(await store.invoke(["export", "--all", "--output", out]))
        CLIExpect.cleanError(
            await store.invoke(["export", "--all", "--output", out]), code: 64, mentioning: ["not empty", "--force"])
        CLIExpect.success(await store.invoke(["export", "--all", "--output", out, "--force"]))
        CLIExpect.cleanError(
            await store.invoke(["export", "--all", "--output", "-"]), code: 64, mentioning: ["folder"])
    }

    @Test func picturesNotDownloadedAreLeftOutWithAWarning() async throws {
        let (store, story, _) = try await ExportCLITests.storeWithStory()
        defer { store.remove() }
        let images = try store.list(["--kind", "image"]).compactMap { $0["id"] as? String }
        let gone = try #require(images.first)
        let sha = try #require(try store.show(gone)["sha256"] as? String)
        try FileManager.default.removeItem(atPath: store.objectPath(sha))
        let out = "\(store.directory)/export"
        let r = await store.invoke(["export", "--all", "--output", out])
        #expect(r.exitCode == 0 && r.stderrLines.count == 1 && r.stderr.contains("warning: left out \(gone)"), "\(r)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(out)/images").count == 2)
        let html = try String(contentsOfFile: "\(out)/stories/\(story).html", encoding: .utf8)
        #expect(
            html.contains("has not been downloaded yet") && html.components(separatedBy: "<img ").count == 3,
            "two pictures, one note")
        let jar = "/usr/share/java/epubcheck.jar"
        try #require(
            FileManager.default.fileExists(atPath: jar),
            "epubcheck is not installed (\(jar)): run scripts/test.sh, or `apt-get install epubcheck`")
        let check = CLIHarness.runProcess(
            "/usr/bin/env", ["java", "-jar", jar, "\(out)/stories/\(story).epub"], timeout: 300)
        #expect(check.exitCode == 0, "epubcheck rejected the EPUB without one picture: \(check)")
        // Exporting that image alone says what is wrong and what to do.
        CLIExpect.cleanError(
            await store.invoke(["export", gone, "--output", "\(store.directory)/x"]), code: 65,
            mentioning: ["not in this store yet", "pull"])
    }

    /// Headless Chromium opens the picture book (with a probe script added to a copy) and
    /// reports how many pictures decoded (naturalWidth > 0).
    @Test func everyPictureLoadsInChromium() async throws {
        let (store, story, _) = try await ExportCLITests.storeWithStory()
        defer { store.remove() }
        let chromium = CLIHarness.which("chromium") ?? CLIHarness.which("chromium-browser")
        let browser = try #require(
            chromium, "chromium is not installed: run scripts/test.sh, or `apt-get install chromium`")
        let book = await store.invoke(["export", story, "--output", "-"])
        CLIExpect.success(book)
        let probe = """
            <script>window.addEventListener('load', () => { const i = [...document.images]; \
            document.body.setAttribute('data-images', i.filter(x => x.complete && x.naturalWidth > 0).length + '/' + i.length) })</script></body>
            """
        let page = "\(store.directory)/probe.html"
        try book.stdout.replacingOccurrences(of: "</body>", with: probe).write(
            toFile: page, atomically: true, encoding: .utf8)
        let r = CLIHarness.runProcess(
            browser,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(store.directory)/chromium",
                "--virtual-time-budget=5000", "--dump-dom", "file://\(page)",
            ], timeout: 120)
        #expect(
            r.stdout.contains("data-images=\"3/3\""), "\(r.stdout.count) bytes of DOM; stderr: \(r.stderr.suffix(2000))"
        )
    }
}
