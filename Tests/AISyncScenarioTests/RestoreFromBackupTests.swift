import AISyncTestSupport
import Foundation
import Testing

// A store restored from a backup (Time Machine, a phone restore) is behind its own history on
// the remote. It must take its own segments back and carry on syncing, with nothing lost; a
// copy that diverged from the remote must still be refused (issue 8).

@Suite("Restore from a backup", .tags(.servers), .needsServers)
struct RestoreFromBackupTests {
    enum Backup: String, CaseIterable, Sendable {
        /// The whole store directory, checkpoints included.
        case whole
        /// Without `sync/` (a backup tool that skipped it, or a hand-made copy).
        case withoutCheckpoints
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var kind: RemoteKind
        var backup: Backup
        var testDescription: String { "\(kind) \(backup.rawValue)" }
    }

    static let cases = RemoteKind.allCases.flatMap { k in Backup.allCases.map { Case(kind: k, backup: $0) } }

    @Test(
        "a store restored from a backup takes its own newer segments back and syncs on, nothing lost", arguments: cases)
    func restoredStoreSyncsAgain(_ c: Case) async throws {
        let remote = try await TestServer.require(c.kind).freshRemote("restore")
        let laptop = try await Device.make("laptop", remote: remote)
        let phone = try await Device.make("phone", remote: remote)
        defer {
            laptop.remove()
            phone.remove()
        }

        let chat = try await laptop.ok(["chat", "new", "--title", "Before the backup"])
        try await laptop.sync("push")
        // The backup is taken here.
        let backup = "\(laptop.store.directory)/backup"
        try FileManager.default.copyItem(atPath: laptop.store.path, toPath: backup)
        if c.backup == .withoutCheckpoints { try FileManager.default.removeItem(atPath: "\(backup)/sync") }
        // Work after the backup, pushed, then the disk dies.
        try await laptop.ok(["chat", "say", chat, "--role", "user", "written after the backup"])
        let later = try await laptop.ok(["chat", "new", "--title", "After the backup"])
        try await laptop.sync("push")
        let expected = try await laptop.list()
        try FileManager.default.removeItem(atPath: laptop.store.path)
        try FileManager.default.moveItem(atPath: backup, toPath: laptop.store.path)

        // The restored store syncs: it gets its own lost work back, then pushes new work.
        try await laptop.sync()
        let restored = try await laptop.list()
        #expect(
            restored.count == expected.count && Set(restored.compactMap { $0["id"] as? String }) == [chat, later],
            "\(c): \(restored)")
        let texts = (try await Scenario.show(laptop, chat)["messages"] as? [[String: Any]] ?? []).compactMap {
            $0["text"] as? String
        }
        #expect(texts == ["written after the backup"], "\(c): \(texts)")
        try await laptop.ok(["rename", later, "Renamed after the restore"])
        try await laptop.sync()
        try await phone.sync()
        try await laptop.sync()
        try await Converge.expectIdentical([laptop, phone], "\(c): after the restore")
        #expect(try await Scenario.show(phone, later)["title"] as? String == "Renamed after the restore")
        for d in [laptop, phone] { try await d.ok(["fsck"]) }
        await remote.remove()
    }

    @Test(
        "a copy that diverged from the remote takes a new device id; both copies keep syncing, nothing lost",
        arguments: RemoteKind.allCases)
    func divergedCopyTakesANewDeviceID(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("diverged")
        let laptop = try await Device.make("laptop", remote: remote)
        defer { laptop.remove() }
        try await laptop.ok(["chat", "new", "--title", "Shared start"])
        try await laptop.sync("push")
        let copyDir = "\(laptop.store.directory)/copy"
        try FileManager.default.copyItem(atPath: laptop.store.path, toPath: copyDir)
        let copy = Device(
            label: "copy", store: CLIStore(directory: laptop.store.directory, path: copyDir),
            environment: laptop.environment)
        try await laptop.ok(["chat", "new", "--title", "Only on the laptop"])
        try await laptop.sync("push")
        try await copy.ok(["chat", "new", "--title", "Only on the copy"])
        let r = await copy.run(["push"])
        #expect(r.succeeded, "\(kind): \(r)")
        #expect(r.stderr.contains("note: this store is a copy") && r.stderrLines.count == 1, "\(kind): \(r)")
        for d in [laptop, copy, laptop, copy] { try await d.sync() }
        try await Converge.expectIdentical([laptop, copy], "\(kind): both copies")
        let titles = Set(try await laptop.list().compactMap { $0["title"] as? String })
        #expect(titles == ["Shared start", "Only on the laptop", "Only on the copy"], "\(kind): \(titles)")
        for d in [laptop, copy] { try await d.ok(["fsck"]) }
        await remote.remove()
    }
}
