import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncExport

// A chat as HTML and XHTML (issue 26): instructions, reasoning, code, pictures where their
// references stand, other branches; every text escaped.

@Suite("Export: a chat as a page")
struct ChatPageTests {
    static let t = Timestamp(iso8601: "2026-01-02T03:04:05.678Z")!

    static func chat(_ text: String, reasoning: String? = nil) -> ChatBody {
        ChatBody(
            title: "Fox <b>", model: "o3", instructions: "Be <brief> & kind",
            messages: [
                .init(id: "m-1", role: .user, text: "Hi", time: t),
                .init(id: "m-2", role: .assistant, text: text, time: t, reasoning: reasoning),
            ],
            alternatives: [.init(id: "m-3", role: .assistant, text: "Other", time: t, branch: .init(after: "m-1"))],
            created: t, updated: t)
    }

    @Test func picturesStandWhereTheirReferencesAreAndMissingOnesStayText() {
        let chat = Self.chat("See [image: image-aaa] and [image: image-gone] here\n[image: image-aaa]")
        let page = ChatPage(chat: chat) { id in id.rawValue == "image-aaa" ? ("A <fox>", "images/a.png") : nil }
        #expect(
            page.blocks(chat.messages[1].text)
                == "<p>See </p>\n<figure><img src=\"images/a.png\" alt=\"A &lt;fox&gt;\"/></figure>\n"
                + "<p> and [image: image-gone] here</p>\n<figure><img src=\"images/a.png\" alt=\"A &lt;fox&gt;\"/></figure>\n"
        )
        #expect(page.referencedImages.map(\.rawValue) == ["image-aaa", "image-gone"])
    }

    @Test func codeIsCodeAndEverythingIsEscaped() {
        let chat = Self.chat("Like this:\n\n```swift\nprint(\"<hi>\")\n\nx & y\n```\nDone.", reasoning: "Think <hard>")
        let html = Export.chatPage(chat: chat, pictures: [:])
        #expect(html.contains("<pre><code>print(&quot;&lt;hi&gt;&quot;)\n\nx &amp; y</code></pre>"), "\(html)")
        #expect(html.contains("<p>Done.</p>"))
        #expect(html.contains("<title>Fox &lt;b&gt;</title>") && !html.contains("<b>"))
        #expect(html.contains("<p class=\"role\">Custom instructions</p>\n<p>Be &lt;brief&gt; &amp; kind</p>"))
        #expect(html.contains("<p class=\"role\">Reasoning</p>\n<p>Think &lt;hard&gt;</p>"))
        #expect(html.contains("Alternative 1: Assistant, after message 1"))
        // An unclosed fence still ends the code at the end of the message.
        #expect(ChatPage(chat: chat) { _ in nil }.blocks("```\nopen") == "<pre><code>open</code></pre>\n")
    }

    @Test func anEPUBHoldsTheChatAndOnlyTheCorePictureTypes() throws {
        let png = Export.Picture(digest: SHA256.hash([1]), bytes: [0x89, 0x50, 0x4E, 0x47], mediaType: "image/png")
        let heic = Export.Picture(digest: SHA256.hash([2]), bytes: [0, 0], mediaType: "image/heic")
        let chat = Self.chat("[image: image-png]\n[image: image-heic]")
        let bytes = try Export.epub(
            chat: chat,
            pictures: [
                RecordID("image-png")!: .init(picture: png, title: "png"),
                RecordID("image-heic")!: .init(picture: heic, title: "heic"),
            ], identifier: "urn:x", modified: Self.t)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("OEBPS/images/\(png.digest.hex).png") && !text.contains(heic.digest.hex))
        #expect(text.contains("OEBPS/chat.xhtml") && text.contains("OEBPS/branches.xhtml"))
        #expect(text.contains("[image: image-heic]"), "a picture EPUB readers need not show stays as text")
    }
}
