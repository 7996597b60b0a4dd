import AISyncTestSupport
import AISyncTesting
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncExport

// The pieces of issue 9's exports that need no store: CRC-32, the stored zip, Markdown and escaping.

@Suite("Export formats", .tags(.python), .needsPython)
struct ExportFormatTests {
    @Test(arguments: [
        ("", UInt32(0)),
        ("a", UInt32(0xE8B7_BE43)),
        ("123456789", UInt32(0xCBF4_3926)),
        ("The quick brown fox jumps over the lazy dog", UInt32(0x414F_A339)),
    ])
    func crc32KnownVectors(text: String, expected: UInt32) {
        #expect(CRC32.checksum(Array(text.utf8)) == expected)
        // Fed in two pieces, it gives the same value.
        var crc = CRC32()
        let bytes = Array(text.utf8)
        crc.update(bytes.prefix(bytes.count / 2))
        crc.update(bytes.dropFirst(bytes.count / 2))
        #expect(crc.value == expected)
    }

    @Test func crc32MatchesPythonZlibOnRandomInputs() throws {
        let seed = SeededGenerator.seed()
        var random = SeededGenerator(seed: seed)
        let inputs: [[UInt8]] = (0..<200).map { n in
            (0..<(n < 10 ? n : Int.random(in: 0...5000, using: &random))).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
        }
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        for input in inputs {
            for b in input { hex += [digits[Int(b >> 4)], digits[Int(b & 15)]] }
            hex.append(10)
        }
        let script =
            "import sys, zlib\nfor line in sys.stdin.read().split('\\n')[:-1]:\n    print(zlib.crc32(bytes.fromhex(line)))"
        let r = CLIHarness.runProcess("/usr/bin/env", ["python3", "-c", script], stdin: Data(hex))
        try #require(r.exitCode == 0, "python3 is needed (scripts/test.sh installs it): \(r)")
        let expected = r.stdoutLines.compactMap { UInt32($0) }
        try #require(expected.count == inputs.count, "\(r)")
        for (n, input) in inputs.enumerated() {
            #expect(CRC32.checksum(input) == expected[n], "input \(n) (\(input.count) bytes), seed \(seed)")
        }
    }

    @Test func storedZipReadsBackWithPythonZipfile() throws {
        var zip = StoredZipWriter(modified: Timestamp(iso8601: "2026-03-04T05:06:08.000Z")!)
        try zip.add("mimetype", Array("application/epub+zip".utf8))
        try zip.add("dir/ünïcode.txt", Array("hello\n".utf8))
        try zip.add("empty", [])
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        let path = "\(dir)/t.zip"
        _ = FileManager.default.createFile(atPath: path, contents: Data(zip.finish()))
        let script = """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            for i in z.infolist():
                print(i.filename, i.compress_type, i.file_size, i.date_time, repr(z.read(i)))
            """
        let r = CLIHarness.runProcess("/usr/bin/env", ["python3", "-c", script, path])
        #expect(r.exitCode == 0, "\(r)")
        #expect(
            r.stdoutLines == [
                "mimetype 0 20 (2026, 3, 4, 5, 6, 8) b'application/epub+zip'",
                "dir/ünïcode.txt 0 6 (2026, 3, 4, 5, 6, 8) b'hello\\n'",
                "empty 0 0 (2026, 3, 4, 5, 6, 8) b''",
            ], "\(r)")
        // EPUB readers find `mimetype` by its fixed offset: name at 30, content at 38.
        let bytes = Array(zip.finish())
        #expect(String(decoding: bytes[30..<38], as: UTF8.self) == "mimetype")
        #expect(String(decoding: bytes[38..<58], as: UTF8.self) == "application/epub+zip")
    }

    static func chat() -> ChatBody {
        let t = Timestamp(iso8601: "2026-01-02T03:04:05.678Z")!
        return ChatBody(
            title: "Fences & <tags>", model: "gpt-4o",
            messages: [
                .init(id: "m-1", role: .system, text: "Be brief.", time: t),
                .init(id: "m-2", role: .user, text: "Show me *HTML* & a `<script>` tag", time: t),
                .init(
                    id: "m-3", role: .assistant,
                    text: "Here:\n\n```html\n<script>alert(\"&amp;\")</script>\n# not a heading\n```\n\nDone.", time: t),
                .init(id: "m-4", role: .assistant, text: "Unclosed:\n~~~~python\nprint('x')", time: t),
                .init(id: "m-5", role: .user, text: "Thanks", time: t),
            ], created: t, updated: Timestamp(iso8601: "2026-01-03T00:00:00.000Z")!)
    }

    @Test func markdownHasEveryMessageVerbatimUnderItsRole() {
        let chat = Self.chat()
        let md = Export.markdown(chat: chat)
        #expect(
            md.hasPrefix(
                "# Fences & <tags>\n\n- Model: gpt-4o\n- Created: 2026-01-02T03:04:05.678Z\n- Updated: 2026-01-03T00:00:00.000Z\n"
            ), "\(md)")
        for message in chat.messages { #expect(md.contains(message.text), "\(message.id) missing from:\n\(md)") }
        #expect(md.contains("## System\n\nBe brief.\n"))
        #expect(
            md.contains("```html\n<script>alert(\"&amp;\")</script>\n# not a heading\n```\n\nDone.\n"),
            "code block intact:\n\(md)")
        // The unclosed fence is closed, so the next message's heading is still a heading.
        #expect(md.contains("print('x')\n~~~~\n\n## User\n\nThanks\n"), "\(md)")
        #expect(md.components(separatedBy: "\n## ").count == chat.messages.count + 1)
    }

    @Test func alternativesFollowTheTranscriptAndSayWhereTheyBranch() throws {
        var chat = Self.chat()
        let t = chat.created
        chat.alternatives = [
            .init(
                id: "m-6", role: .assistant, text: "An older answer.", time: t, branch: ChatBody.Branch(after: "m-2")),
            .init(
                id: "m-7", role: .user, text: "An edited first question.", time: t, branch: ChatBody.Branch(after: nil)),
        ]
        let md = Export.markdown(chat: chat)
        let transcript = try #require(md.components(separatedBy: "# Other branches").first)
        #expect(!transcript.contains("An older answer."), "alternatives never mixed into the transcript:\n\(md)")
        #expect(md.contains("## Alternative 1: Assistant, after message 2\n\nAn older answer.\n"), "\(md)")
        #expect(md.contains("## Alternative 2: User, after the start\n\nAn edited first question.\n"), "\(md)")
        // The body's JSON keeps them apart and reads back the same.
        let json = RecordBody.chat(chat).json
        #expect(json["alternatives"]?.arrayValue?.count == 2 && json["messages"]?.arrayValue?.count == 5)
        #expect(try RecordBody(json: json) == .chat(chat))
        #expect(RecordBody.chat(Self.chat()).json["alternatives"] == nil)
    }

    @Test(arguments: [
        ("no fence", ""),
        ("```swift\nlet x = 1\n```", ""),
        ("```swift\nlet x = 1", "\n```"),
        ("````\n```\nstill code", "\n````"),
        ("~~~\n```\n", "\n~~~"),
        ("inline ```code``` only", ""),
        ("    ```indented code, not a fence", ""),
    ])
    func closingFence(text: String, expected: String) {
        #expect(Export.closingFence(for: text) == expected)
    }

    @Test func titlesAndTextAreEscapedInHTMLAndXHTML() {
        let t = Timestamp(iso8601: "2026-01-02T03:04:05.678Z")!
        let story = StoryBody(
            title: "<script>alert('x')</script> & \"friends\"", moral: "Be <b>kind</b> & brave",
            pages: [.init(id: "p1", position: 1, text: "Line one & <i>two</i>\nline three\n\nSecond paragraph")],
            created: t, updated: t)
        let html = Export.pictureBook(story: story, pictures: [:])
        let xhtml = EPUBBook(story: story, pictures: [:])
        for text in [html, xhtml.titlePage(), xhtml.page(0), xhtml.packageDocument(identifier: "urn:x:&", modified: t)]
        {
            #expect(!text.contains("<script>"), "\(text)")
            #expect(!text.contains("<b>") && !text.contains("<i>"), "\(text)")
        }
        #expect(
            html.contains("<title>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;friends&quot;</title>"),
            "\(html)")
        #expect(
            html.contains("<p>Line one &amp; &lt;i&gt;two&lt;/i&gt;<br/>line three</p>\n<p>Second paragraph</p>"),
            "\(html)")
        #expect(
            xhtml.packageDocument(identifier: "urn:x:&", modified: t).contains(
                "<dc:identifier id=\"book-id\">urn:x:&amp;</dc:identifier>"))
        #expect(
            xhtml.packageDocument(identifier: "u", modified: t).contains(
                "<meta property=\"dcterms:modified\">2026-01-02T03:04:05Z</meta>"))
    }

    @Test func controlCharactersAreDropped() {
        #expect(Markup.escape("a\u{0}b\u{1B}c\u{FFFE}d\te") == "abcd\te")
    }
}
