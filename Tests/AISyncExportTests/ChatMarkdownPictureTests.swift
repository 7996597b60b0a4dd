import AISyncCore
import AISyncExport
import AISyncFiles
import AISyncStore
import AISyncTestSupport
import Foundation
import Testing

// Issue 26: a chat's Markdown links its pictures (`[image: image-…]`, as imports write them)
// by relative path to files written beside it, so it opens with its pictures anywhere.

@Suite("Export: a chat's pictures in Markdown")
struct ChatMarkdownPictureTests {
    /// The `![alt](path)` links of a Markdown text, paths percent-decoded.
    static func links(_ markdown: String) -> [(alt: String, path: String)] {
        markdown.matches(of: /!\[((?:\\.|[^\]\\])*)\]\(([^)\s]+)\)/).map {
            (String($0.1), String($0.2).removingPercentEncoding ?? String($0.2))
        }
    }

    /// A store with two pictures and a chat showing them (one twice) and a missing one.
    static func storeWithChat(_ dir: String) async throws -> (Store, chat: RecordID, png: RecordID, jpeg: RecordID) {
        let store = try Scratch.makeStore(in: dir, "a")
        let png = try await store.addImage(
            data: [UInt8](CLIFixtures.png.bytes), title: "Fox [red] \\ one", prompt: nil, model: nil)
        let jpeg = try await store.addImage(
            data: [UInt8](CLIFixtures.jpeg.bytes), title: "Blue (sky)", prompt: nil, model: nil)
        let chat = try await store.createChat(title: "Pictures", model: nil)
        try await store.appendMessage(to: chat, role: .user, text: "[image: \(png)]\n\nWhat is this?")
        try await store.appendMessage(
            to: chat, role: .assistant,
            text: "Here: [image: \(jpeg)], [image: image-0000000000000000] and [image: \(png)] again.")
        return (store, chat, png, jpeg)
    }

    @Test func referencesBecomeLinksOnlyWhereAPictureWasWritten() throws {
        let id = try #require(RecordID("image-0123456789abcdef"))
        let chat = ChatBody(
            title: "t", model: nil,
            messages: [
                ChatBody.Message(
                    id: "m-1", role: .user,
                    text:
                        "[image: image-0123456789abcdef] [image: image-ffffffffffffffff] [image: file-service://file-x] [image: chat-0123456789abcdef] [image: image-0123456789abcdef",
                    time: Timestamp(milliseconds: 0))
            ], created: Timestamp(milliseconds: 0), updated: Timestamp(milliseconds: 0))
        let markdown = Export.markdown(chat: chat) { ref in
            ref == id ? Export.ImageLink(title: "A [b]\nc", path: "x-images/\(ref).png") : nil
        }
        #expect(
            markdown.contains(
                "![A \\[b\\] c](x-images/image-0123456789abcdef.png) [image: image-ffffffffffffffff] [image: file-service://file-x] [image: chat-0123456789abcdef] [image: image-0123456789abcdef\n"
            ), "\(markdown)")
        #expect(Export.markdown(chat: chat) == Export.markdown(chat: chat) { _ in nil }, "no links by default")
        #expect(
            Export.imageReferences(in: chat.messages[0].text).map(\.rawValue) == [
                id.rawValue, "image-ffffffffffffffff",
            ])
        #expect(Export.percentEncoded("my notes (1)%.md") == "my%20notes%20%281%29%25.md")
        #expect(Export.picturesFolder(forMarkdownFile: "chat.MD") == "chat-images")
    }

    @Test func aChatMarkdownFileGetsItsPicturesBesideIt() async throws {
        let dir = Scratch.makeDirectory("chat-pictures")
        defer { Scratch.removeDirectory(dir) }
        let (store, chat, png, jpeg) = try await Self.storeWithChat(dir)
        let target = "\(dir)/out/my notes (1).md"
        try FileIO.makeDirectories("\(dir)/out")
        let report = try await store.exportFile(chat, to: target)
        #expect(report.path == target)
        #expect(Set(report.pictures) == ["my notes (1)-images/\(jpeg).jpg", "my notes (1)-images/\(png).png"])
        #expect(report.missingImages.map(\.rawValue) == ["image-0000000000000000"])
        let markdown = try String(contentsOfFile: target, encoding: .utf8)
        let links = Self.links(markdown)
        #expect(links.map(\.alt) == ["Fox \\[red\\] \\\\ one", "Blue (sky)", "Fox \\[red\\] \\\\ one"], "\(markdown)")
        #expect(
            links.map(\.path) == [
                "my notes (1)-images/\(png).png", "my notes (1)-images/\(jpeg).jpg", "my notes (1)-images/\(png).png",
            ])
        #expect(markdown.contains("%20%281%29-images/"), "the link is percent-encoded: \(markdown)")
        for (link, original) in zip(links, [CLIFixtures.png, CLIFixtures.jpeg, CLIFixtures.png]) {
            // The relative path resolves beside the Markdown to the image's very bytes.
            let bytes = try FileIO.read("\(dir)/out/\(link.path)")
            #expect(SHA256.hash(bytes) == SHA256.hash([UInt8](original.bytes)))
        }
        #expect(markdown.contains("[image: image-0000000000000000]"), "a missing picture stays readable text")
        // In memory (what standard output gets) the references stay as they are.
        let document = String(decoding: try await store.export(chat).bytes, as: UTF8.self)
        #expect(document.contains("[image: \(png)]") && Self.links(document).isEmpty)
        // Nothing is replaced without force; with it, all is written again.
        await #expect(throws: AISyncError.self) { try await store.exportFile(chat, to: target) }
        try FileManager.default.removeItem(atPath: target)
        await #expect(throws: AISyncError.self) { try await store.exportFile(chat, to: target) }
        #expect(!FileManager.default.fileExists(atPath: target), "a picture in the way: nothing written")
        #expect(try await store.exportFile(chat, to: target, force: true).pictures.count == 2)
    }

    @Test func aStoryMarkdownFileGetsItsPagePicturesBesideItToo() async throws {
        let dir = Scratch.makeDirectory("story-pictures")
        defer { Scratch.removeDirectory(dir) }
        let (store, _, png, jpeg) = try await Self.storeWithChat(dir)
        let story = try await store.createStory(
            title: "Two", moral: nil, pages: ["One", "Two", "Three"], images: [jpeg, png])
        let report = try await store.exportFile(story, format: .markdown, to: "\(dir)/two.md")
        #expect(report.pictures.count == 2 && report.pictures.allSatisfy { $0.hasPrefix("two-images/") })
        let markdown = try String(contentsOfFile: "\(dir)/two.md", encoding: .utf8)
        let links = Self.links(markdown)
        #expect(links.map(\.alt) == ["Illustration for page 1", "Illustration for page 2"], "\(markdown)")
        for (link, original) in zip(links, [CLIFixtures.jpeg, CLIFixtures.png]) {
            #expect(SHA256.hash(try FileIO.read("\(dir)/\(link.path)")) == SHA256.hash([UInt8](original.bytes)))
        }
    }

    @Test func aFolderExportLinksChatsToTheImagesFolder() async throws {
        let dir = Scratch.makeDirectory("chat-pictures-folder")
        defer { Scratch.removeDirectory(dir) }
        let (store, chat, png, jpeg) = try await Self.storeWithChat(dir)
        try await store.delete(jpeg)
        let report = try await store.exportAll(to: "\(dir)/all")
        #expect(report.missingImages.map(\.rawValue) == [jpeg.rawValue, "image-0000000000000000"])
        let markdown = try String(contentsOfFile: "\(dir)/all/chats/\(chat).md", encoding: .utf8)
        let links = Self.links(markdown)
        #expect(links.map(\.path) == ["../images/\(png).png", "../images/\(png).png"], "\(markdown)")
        let bytes = try FileIO.read("\(dir)/all/chats/../images/\(png).png")
        #expect(SHA256.hash(bytes) == SHA256.hash([UInt8](CLIFixtures.png.bytes)))
        #expect(markdown.contains("Here: [image: \(jpeg)], [image: image-0000000000000000] and ![Fox"))
    }
}
