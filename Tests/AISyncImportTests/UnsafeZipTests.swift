import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncImport

// Issue 26: a zip entry named `../x` or `/x` was imported past silently; now the archive is
// refused whole, with one line naming it and the entry, before anything is read from it.

@Suite("Import: unsafe zip entries")
struct UnsafeZipTests {
    @Test(arguments: [
        ("../x", true), ("a/../../x", true), ("a/..", true), ("..\\x", true), ("a\\..\\x", true), ("/x", true),
        ("/", true), ("\\x", true), ("C:\\x", true), ("c:/x", true), ("C:x", true), ("a\u{0}.png", true),
        ("x", false), ("a/b.png", false), ("..x", false), ("a..b/c", false), ("x/...", false), ("dir/", false),
        ("1:x", false), ("", false),
    ])
    func unsafeNames(name: String, unsafe: Bool) {
        #expect(ZipArchive.isUnsafe(name) == unsafe, "\(name.debugDescription)")
    }

    @Test func theArchiveKnowsItsFirstUnsafeEntry() throws {
        let bytes = HostileZip.stored([
            (Array("ok.json".utf8), Array("{}".utf8)), (Array("../evil.png".utf8), Scratch.pngBytes),
            (Array("/etc/x".utf8), []),
        ])
        let zip = try ZipArchive(bytes: bytes)
        #expect(zip.unsafeName == "../evil.png")
        #expect(try ZipArchive(bytes: HostileZip.stored([(Array("a/b".utf8), [1])])).unsafeName == nil)
    }

    @Test(arguments: [
        (Import.Source?.none, "conversations.json"), (.chatgpt, "conversations.json"), (.claude, "conversations.json"),
        (.storybook, "story.json"),
    ])
    func everySourceRefusesTheArchive(source: Import.Source?, json: String) throws {
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        let good = try FileIO.read(
            ImportFixture.path(source == .storybook ? "storybook/story.json" : "chatgpt/conversations.json"))
        for evil in ["../x.png", "/x.png", "C:\\x.png", "a\\..\\..\\x.png", "x\u{0}.png"] {
            try HostileZip.write([(json, good), (evil, Scratch.pngBytes)], to: "\(dir)/export.zip")
            do {
                _ = try Import.parse(source, path: "\(dir)/export.zip", now: ImportFixture.now)
                Issue.record("\(evil.debugDescription) accepted")
            } catch {
                #expect(error.code == .damagedData, "\(error)")
                #expect(error.message.hasPrefix("\(dir)/export.zip holds an entry named \""), "\(error)")
                #expect(error.message.hasSuffix("that points outside the archive"), "\(error)")
                #expect(error.hint == "This archive is unsafe to unpack; get the export again from the app")
                #expect(!error.description.contains("\u{0}") && !error.description.contains("\n"))
            }
        }
    }

    @Test func aHostileNameCannotBreakTheLineOrDriveTheTerminal() {
        #expect(ZipArchive.shown("../\u{1B}[2Jx\ny\u{202E}\"\\") == #""../\x1b[2Jx\x0ay\u202e\"\\""#)
        #expect(
            ZipArchive.shown(String(repeating: "a", count: 100)) == "\"" + String(repeating: "a", count: 80) + "…\"")
    }
}
