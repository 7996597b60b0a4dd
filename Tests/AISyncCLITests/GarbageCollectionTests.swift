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

    /// `gc --remote`: pulls, then a picture on the remote that no version names is noted on
    /// the first sweep and removed on the next (grace 0); the pictures versions name stay.
    @Test func remoteSweepNotesOrphansThenRemovesThem() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let remote = "\(store.directory)/usb"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        try await store.invokeOK(["remote", "add", "usb", "file://\(remote)"])
        let png = "\(store.directory)/red.png"
        try CLIFixtures.png.bytes.write(to: URL(fileURLWithPath: png))
        let picture = try CLIFixtures.sha256(ofFile: png)
        try await store.invokeOK(["image", "add", png, "--title", "red"])
        try await store.invokeOK(["push", "usb"])
        let orphanBytes = Data("a picture a killed push left".utf8)
        let orphanPath = "\(store.directory)/orphan"
        try orphanBytes.write(to: URL(fileURLWithPath: orphanPath))
        let orphan = try CLIFixtures.sha256(ofFile: orphanPath)
        let onRemote = "\(remote)/objects/\(orphan.prefix(2))/\(orphan)"
        try FileManager.default.createDirectory(
            atPath: (onRemote as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try orphanBytes.write(to: URL(fileURLWithPath: onRemote))
        let named = "\(remote)/objects/\(picture.prefix(2))/\(picture)"
        #expect(FileManager.default.fileExists(atPath: named), "the push did not upload the picture")

        let first = try CLIJSON.object(await store.invoke(["gc", "--remote", "usb", "--grace", "0", "--json"]))
        let sweep = first["remote"] as? [String: Any]
        #expect(
            sweep?["name"] as? String == "usb" && sweep?["sweptOrphans"] as? Bool == true
                && sweep?["waitingOrphans"] as? Int == 1 && sweep?["removedOrphans"] as? Int == 0, "\(first)")
        #expect(FileManager.default.fileExists(atPath: onRemote), "removed on first sight")
        let second = try await store.invokeOK(["gc", "--remote", "usb", "--grace", "0"])
        #expect(
            second.contains(
                "gc: 1 orphan picture removed from the remote usb, 0 kept until the grace period has passed"),
            "\(second)")
        #expect(!FileManager.default.fileExists(atPath: onRemote), "the orphan is still on the remote")
        #expect(FileManager.default.fileExists(atPath: named), "a named picture was removed")
        let third = try await store.invokeOK(["gc", "--remote", "usb"])
        #expect(third.contains("gc: no orphan pictures or unfinished uploads on the remote usb"), "\(third)")
    }

    /// `--grace` without `--remote`, and a dry run of a remote's sweep, are refused (exit 64)
    /// before anything is touched.
    @Test func remoteOptionsAreChecked() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        CLIExpect.cleanError(await store.invoke(["gc", "--grace", "3"]), code: 64, mentioning: ["--remote"])
        CLIExpect.cleanError(
            await store.invoke(["gc", "--remote", "usb", "--dry-run"]), code: 64, mentioning: ["--dry-run"])
        CLIExpect.cleanError(
            await store.invoke(["gc", "--remote", "nowhere"]), code: 66, mentioning: ["nowhere"])
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
