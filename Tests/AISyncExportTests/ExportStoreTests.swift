import AISyncCore
import AISyncExport
import AISyncStore
import AISyncTestSupport
import Foundation
import Testing

// What an app gets from the library for exports: documents in memory, files written, errors
// with codes it can switch on.

@Suite("Export through the library")
struct ExportStoreTests {
    @Test func documentsFilesAndErrors() async throws {
        let dir = Scratch.makeDirectory("api-export")
        defer { Scratch.removeDirectory(dir) }
        let store = try Scratch.makeStore(in: dir, "a")
        let png = [UInt8](CLIFixtures.png.bytes)
        let image = try await store.addImage(data: png, title: "fox", prompt: "a fox", model: "dall-e-3")
        let story = try await store.createStory(title: "The fox", moral: nil, pages: ["One", "Two"], images: [image])
        let chat = try await store.createChat(title: "Hello", model: "gpt-4o")
        try await store.appendMessage(to: chat, role: .user, text: "Hi ```there```")

        let md = try await store.export(chat)
        #expect(md.format == .markdown && md.fileName == "\(chat).md")
        #expect(String(decoding: md.bytes, as: UTF8.self).contains("## User\n\nHi ```there```\n"))
        let epub = try await store.export(story, format: .epub)
        #expect(epub.fileName == "\(story).epub" && Array(epub.bytes.prefix(4)) == [0x50, 0x4B, 3, 4])
        #expect(try await store.export(story, format: .epub).bytes == epub.bytes, "the same story gives the same bytes")
        #expect(try await store.export(image).bytes == png)
        #expect(try await store.pictures(of: storyBody(store, story)).count == 1)
        await #expect(
            throws: AISyncError(
                .usage, "an image cannot be exported as epub", hint: "Export an image as its image file or json")
        ) {
            try await store.export(image, format: .epub)
        }
        // A chat is also an HTML page and an EPUB, with the pictures its messages show.
        try await store.appendMessage(to: chat, role: .assistant, text: "Here it is:\n\n[image: \(image)]")
        let page = String(decoding: try await store.export(chat, format: .html).bytes, as: UTF8.self)
        #expect(page.contains("<img src=\"data:image/png;base64,") && page.contains("alt=\"fox\""), "\(page)")
        #expect(!page.contains("[image: "), "\(page)")
        let book = try await store.export(chat, format: .epub)
        #expect(book.fileName == "\(chat).epub" && Array(book.bytes.prefix(4)) == [0x50, 0x4B, 3, 4])

        let report = try await store.exportAll(to: "\(dir)/out")
        #expect(
            Set(report.files) == [
                "chats/\(chat).md", "stories/\(story).html", "stories/\(story).epub", "images/\(image).png",
                "index.html",
            ])
        #expect(report.missingImages.isEmpty)
        do {
            try await store.exportAll(to: "\(dir)/out")
            Issue.record("a folder in use was overwritten without force")
        } catch {
            #expect(error.code == .usage && error.message.contains("not empty"))
        }
        #expect(try await store.exportAll(to: "\(dir)/out", force: true).files.count == 5)
    }

    private func storyBody(_ store: Store, _ id: RecordID) async throws -> StoryBody {
        guard case .story(let body)? = try await store.record(id).body else { throw AISyncError(.other, "not a story") }
        return body
    }
}
