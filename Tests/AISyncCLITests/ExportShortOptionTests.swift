import AISyncTestSupport
import Foundation
import Testing

/// `-o FILE` is `--output FILE` for commands that write a file, and an unknown short option
/// elsewhere.
@Suite("Export -o")
struct ExportShortOptionTests {
    @Test func shortOutputOption() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let chat = try await store.invokeOK(["chat", "new", "--title", "Short option"]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let path = "\(store.directory)/chat.md"
        CLIExpect.success(await store.invoke(["export", chat, "-o", path]))
        let markdown = try String(contentsOfFile: path, encoding: .utf8)
        #expect(markdown.contains("Short option"))
        // A command without --output still refuses -o.
        CLIExpect.cleanError(await store.invoke(["list", "-o", path]), code: 64, mentioning: ["-o"])
    }
}
