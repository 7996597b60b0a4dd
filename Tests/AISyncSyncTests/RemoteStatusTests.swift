import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncStore
@testable import AISyncSync
@testable import AISyncTesting

/// Status you can trust (issue 28): every sync notes how it ended in the store, whoever ran
/// it, and `remoteStatuses()` says "in sync" only when nothing here is unpushed and the
/// newest sync, after a pull, ended well — read without touching the network.
@Suite("Remote status")
struct RemoteStatusTests {
    /// A store with a configured remote "mem" (its URL is never used: the engine is given
    /// the in-memory remote) and one chat.
    private static func setUp(_ label: String) async throws -> (String, Store, InMemoryRemote, SyncEngine) {
        let dir = Scratch.makeDirectory(label)
        let store = try Scratch.makeStore(in: dir, "a")
        _ = try await store.addRemote(name: "mem", url: "file://\(dir)/unused")
        _ = try await store.createChat(title: "first", model: nil)
        let remote = InMemoryRemote()
        return (dir, store, remote, Scratch.engine(store, remote))
    }

    private static func status(_ store: Store) async throws -> RemoteStatus {
        let all = try await store.remoteStatuses()
        try #require(all.count == 1 && all[0].name == "mem", "\(all)")
        return all[0]
    }

    @Test func neverSyncedThenSyncedThenEditedLocally() async throws {
        let (dir, store, remote, engine) = try await Self.setUp("status-basic")
        defer { Scratch.removeDirectory(dir) }
        var s = try await Self.status(store)
        #expect(
            !s.inSync && s.notInSyncBecause == "never synced, 1 version not pushed" && s.unpushedVersions == 1, "\(s)")
        #expect(s.history.lastAttempt == nil)

        _ = try await engine.sync()
        s = try await Self.status(store)
        #expect(s.inSync && s.notInSyncBecause == nil && s.unpushedVersions == 0, "\(s)")
        #expect(s.history.lastAttempt?.operation == "sync" && s.history.lastPull == s.history.lastAttempt)
        #expect(s.history.failuresInARow == 0)

        // A local edit is what the next push sends: not in sync until it is pushed.
        let id = try await store.createChat(title: "second", model: nil)
        _ = try await store.appendMessage(to: id, role: .user, text: "hello")
        s = try await Self.status(store)
        #expect(!s.inSync && s.unpushedVersions == 2 && s.notInSyncBecause == "2 versions not pushed", "\(s)")

        // A push alone sends them; the pull before it still stands.
        _ = try await engine.push()
        s = try await Self.status(store)
        #expect(s.inSync && s.history.lastAttempt?.operation == "push" && s.history.lastPull?.operation == "sync")
        #expect(await remote.requests.isEmpty == false)
    }

    @Test func aFailureIsKeptWithItsErrorUntilTheNextSuccess() async throws {
        let (dir, store, remote, engine) = try await Self.setUp("status-failure")
        defer { Scratch.removeDirectory(dir) }
        _ = try await engine.sync()
        let synced = try await Self.status(store).history.lastSuccess
        _ = try await store.createChat(title: "while offline", model: nil)
        await remote.setFailure { _ in
            AISyncError(
                .unavailable, "cannot reach memory://remote", hint: "Check the network", retryAfter: .seconds(7))
        }
        for _ in 0..<2 { await #expect(throws: AISyncError.self) { try await engine.sync() } }
        var s = try await Self.status(store)
        #expect(!s.inSync && s.notInSyncBecause == "the last sync failed, 1 version not pushed", "\(s)")
        #expect(s.history.failuresInARow == 2 && s.history.lastSuccess == synced, "\(s.history)")
        let error = try #require(s.history.lastAttempt?.error)
        #expect(error.code == "unavailable" && error.line == "cannot reach memory://remote. Check the network")
        #expect(error.retryAfterMilliseconds == 7000)

        await remote.setFailure(nil)
        _ = try await engine.sync()
        s = try await Self.status(store)
        #expect(s.inSync && s.history.failuresInARow == 0 && s.history.lastAttempt?.error == nil, "\(s)")
    }

    /// Another process (the CLI beside an app, `aisync watch`) reads what a sync wrote; a dry
    /// run notes nothing; a damaged note reads as no history and the next sync writes it anew.
    @Test func theNoteIsInTheStoreForEveryReader() async throws {
        let (dir, store, _, engine) = try await Self.setUp("status-reader")
        defer { Scratch.removeDirectory(dir) }
        _ = try await engine.sync()
        let synced = try await Self.status(store).history
        _ = try await store.createChat(title: "later", model: nil)
        _ = try await engine.sync(dryRun: true)
        #expect(try await Self.status(store).history == synced, "a dry run was noted")
        _ = try await engine.pull()
        let reopened = try Store.open(at: "\(dir)/a", environment: Scratch.environment())
        let s = try await Self.status(reopened)
        #expect(s.history.lastAttempt?.operation == "pull" && s.history.lastPull?.operation == "pull")
        #expect(!s.inSync && s.notInSyncBecause == "1 version not pushed", "\(s)")

        let path = "\(dir)/a/sync/status/mem.json"
        #expect(FileManager.default.fileExists(atPath: path))
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try await Self.status(store).history == SyncHistory())
        _ = try await engine.sync()
        #expect(try await Self.status(store).inSync)
        // Removing the remote forgets its note.
        try await store.removeRemote("mem")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// The status document carries every field the schema names.
    @Test func theDocumentCarriesItsFields() async throws {
        let (dir, store, remote, engine) = try await Self.setUp("status-json")
        defer { Scratch.removeDirectory(dir) }
        _ = try await engine.sync()
        _ = try await store.createChat(title: "to push", model: nil)
        await remote.setFailure { _ in AISyncError(.permission, "the server refused the password") }
        await #expect(throws: AISyncError.self) { try await engine.push() }
        let o = try #require(try await Self.status(store).json.objectValue)
        #expect(o["inSync"] == .bool(false) && o["failuresInARow"] == .int(1) && o["unpushedVersions"] == .int(1))
        #expect(o["lastAttempt"]?["error"]?["code"] == .string("permission"))
        #expect(o["lastAttempt"]?["operation"] == .string("push") && o["lastPull"]?["operation"] == .string("sync"))
        #expect(o["notInSyncBecause"] == .string("the last push failed, 1 version not pushed"))
    }
}
