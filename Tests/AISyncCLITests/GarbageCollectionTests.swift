import AISyncTestSupport
import Foundation
import Testing

/// `aisync gc` (issue 11): objects no version names and temp files of killed writes go, once
/// they are older than an hour; everything any version names stays (a deleted image's bytes
/// too: it can be restored); a damaged journal collects nothing.
@Suite("Garbage collection")
struct GarbageCollectionTests {
    /// Writes `bytes` into the store as an object (named by their sha256), `age` seconds old.
    private func plantObject(_ store: CLIStore, _ bytes: String, age seconds: TimeInterval) throws -> String {
        let scratch = "\(store.directory)/scratch-\(UUID().uuidString)"
        try Data(bytes.utf8).write(to: URL(fileURLWithPath: scratch))
        let sha = try CLIFixtures.sha256(ofFile: scratch)
        let path = store.objectPath(sha)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: scratch, toPath: path)
        try age(path, seconds)
        return sha
    }

    private func age(_ path: String, _ seconds: TimeInterval) throws {
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-seconds)], ofItemAtPath: path)
    }

    @Test func unusedObjectsAndLeftoversGoAndEverythingNamedStays() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let png = "\(store.directory)/red.png"
        try CLIFixtures.png.bytes.write(to: URL(fileURLWithPath: png))
        let picture = try CLIFixtures.sha256(ofFile: png)
        let image = try await store.invokeOK(["image", "add", png, "--title", "red"]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        try await store.invokeOK(["rm", image])  // deleted, still restorable: its bytes stay
        try age(store.objectPath(picture), 7200)
        let chat = try await store.invokeOK(["chat", "new", "--title", "a chat"]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        try await store.invokeOK([
            "chat", "say", chat, "--role", "user", String(repeating: "a large value ", count: 1000),
        ])

        let orphan = try plantObject(store, "bytes nothing names", age: 7200)
        let young = try plantObject(store, "bytes a pull is about to journal", age: 10)
        let leftovers = [
            "\(store.path)/objects/incoming-killed", "\(store.path)/objects/\(picture.prefix(2))/\(picture).tmp-killed",
            "\(store.path)/sync/tmp/killed-download",
        ]
        for path in leftovers {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data("partial".utf8).write(to: URL(fileURLWithPath: path))
            try age(path, 7200)
        }

        let dry = try CLIJSON.object(await store.invoke(["gc", "--dry-run", "--json"]))
        #expect(
            dry["objects"] as? [String] == [orphan] && Set(dry["leftovers"] as? [String] ?? []) == Set(leftovers),
            "\(dry)")
        #expect(FileManager.default.fileExists(atPath: store.objectPath(orphan)))

        let done = try CLIJSON.object(await store.invoke(["gc", "--json"]))
        #expect(
            done["objects"] as? [String] == [orphan] && done["bytes"] as? Int == "bytes nothing names".utf8.count,
            "\(done)")
        #expect(!FileManager.default.fileExists(atPath: store.objectPath(orphan)))
        #expect(FileManager.default.fileExists(atPath: store.objectPath(young)), "younger than an hour: kept")
        for path in leftovers { #expect(!FileManager.default.fileExists(atPath: path), "\(path)") }
        // Everything named is still there and readable: fsck is clean, the deleted image comes back whole.
        #expect(await store.invoke(["fsck"]).exitCode == 0)
        try await store.invokeOK(["restore", image])
        try await store.invokeOK(["image", "save", image, "\(store.directory)/out.png"])
        #expect(FileManager.default.contents(atPath: "\(store.directory)/out.png") == CLIFixtures.png.bytes)
        #expect(try CLIJSON.object(await store.invoke(["show", chat, "--json"]))["messages"] != nil)
        let again = try await store.invokeOK(["gc"])
        #expect(again.contains("removed 0 unused objects (0 B)"), "\(again)")
    }

    @Test func aDamagedJournalCollectsNothing() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        try await store.invokeOK(["chat", "new", "--title", "a chat"])
        let orphan = try plantObject(store, "unnamed", age: 7200)
        let journal = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(store.path)/journal.jsonl"))
        try journal.seekToEnd()
        try journal.write(contentsOf: Data("{\"not\":\"a version\"}\n".utf8))
        try journal.close()
        let r = await store.invoke(["gc"])
        #expect(
            r.exitCode == 65 && r.stderr.contains("the store is damaged") && r.stderr.contains("aisync fsck"), "\(r)")
        #expect(FileManager.default.fileExists(atPath: store.objectPath(orphan)))
    }

    /// A value over 4 KB lives in objects/; with it gone, what it named cannot be known.
    @Test func aMissingValueObjectCollectsNothing() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let chat = try await store.invokeOK(["chat", "new", "--title", "a chat"])
        let long = String(repeating: "a long answer ", count: 400)
        try await store.invokeOK(["chat", "say", chat, "--role", "assistant", long])
        let valuePath = try #require(
            FileManager.default.subpaths(atPath: "\(store.path)/objects")?.first { $0.count == 67 })
        let orphan = try plantObject(store, "unnamed", age: 7200)
        try FileManager.default.removeItem(atPath: "\(store.path)/objects/\(valuePath)")
        let r = await store.invoke(["gc"])
        #expect(r.exitCode == 65 && r.stderr.contains("is missing") && r.stderr.contains("aisync fsck"), "\(r)")
        #expect(FileManager.default.fileExists(atPath: store.objectPath(orphan)))
    }
}
