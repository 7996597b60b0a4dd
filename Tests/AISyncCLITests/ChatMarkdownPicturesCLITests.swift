import AISync
import AISyncTestSupport
import Foundation
import Testing

// Issue 26: `aisync export CHAT -o out.md` of an imported ChatGPT chat writes its pictures
// into out-images/ and links them by relative path; standard output keeps the references.

@Suite("Export CLI: a chat's pictures")
struct ChatMarkdownPicturesCLITests {
    @Test func anImportedChatExportsWithItsPicturesBesideIt() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        CLIExpect.success(await store.invoke(["import", ImportFixture.path("chatgpt-images")]))
        let chats = try store.list(["--kind", "chat"])
        let chat = try #require(chats.first { $0["title"] as? String == "Pictures" }?["id"] as? String)
        let out = "\(store.directory)/out.md"
        let r = await store.invoke(["export", chat, "-o", out])
        CLIExpect.success(r)
        #expect(r.trimmedStdout == out && r.stderr.isEmpty, "\(r)")
        let markdown = try String(contentsOfFile: out, encoding: .utf8)
        let links = markdown.matches(of: /!\[[^\]]*\]\(([^)]+)\)/).map { String($0.1) }
        #expect(links.count >= 2 && !markdown.contains("[image: image-"), "\(markdown)")
        for link in links {
            #expect(link.hasPrefix("out-images/image-"), "relative to the Markdown: \(link)")
            let id = String(link.dropFirst("out-images/".count).split(separator: ".")[0])
            let image = try store.show(id)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(store.directory)/\(link)"))
            #expect(SHA256.hash(Array(bytes)).hex == image["sha256"] as? String, "\(link) holds the image's bytes")
        }
        let stdout = await store.invoke(["export", chat, "-o", "-"])
        #expect(stdout.stdout.contains("[image: image-") && !stdout.stdout.contains("]("), "\(stdout)")
    }

    @Test func aPictureNotInTheStoreIsAWarning() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let chat = try await store.invokeOK(["chat", "new", "--title", "Gone"])
        try await store.invokeOK(["chat", "say", chat, "--role", "user", "[image: image-0000000000000000] was here"])
        let out = "\(store.directory)/gone.md"
        let r = await store.invoke(["export", chat, "-o", out])
        #expect(r.exitCode == 0 && r.trimmedStdout == out, "\(r)")
        #expect(r.stderr.contains("warning: left out image-0000000000000000"), "\(r)")
        #expect(try String(contentsOfFile: out, encoding: .utf8).contains("[image: image-0000000000000000] was here"))
        #expect(!FileManager.default.fileExists(atPath: "\(store.directory)/gone-images"), "no empty folder")
    }
}
