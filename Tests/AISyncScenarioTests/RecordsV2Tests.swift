import AISyncTestSupport
import Foundation
import Testing

// Records v2 (docs/DESIGN.md §3) end to end, through the built `aisync`: message operations, conflicts
// that name their field, looking at any version, restoring deletes, migrating an aisync 1
// store and remote (a real fixture made by aisync 1, Tests/Fixtures/v1), and two devices
// editing one chat at once through every kind of remote.

/// The aisync 1 fixture (Tests/Fixtures/v1/make-v1-fixture.sh made it with the aisync 1 binary):
/// a laptop and a phone that edited the same records concurrently through a folder remote.
enum V1Fixture {
    static let lisbon = "chat-10eb65911867a759"  // 2 messages, then one more on each device, favorited on the laptop
    static let fox = "image-eb4ea9bb005a3187"
    static let owl = "image-55b0f592d77a76fc"
    // renamed on both devices: "Fox stories" (laptop) vs "Fox tales" (phone)
    static let story = "story-b4ae86d65c8268ed"
    static let groceries = "chat-8b2bcdca477198a1"  // deleted on the laptop while the phone renamed it
    static let old = "chat-6b42800d0d8a25f6"  // deleted
    static let lisbonMessages: Set<String> = [
        "Three things to see in Lisbon?", "Belém Tower, Alfama, and the LX Factory.",
        "Where should we eat?", "Add a day trip to Sintra?",
    ]
    static let source = "\(CLIHarness.packageRoot)/Tests/Fixtures/v1"

    /// Copies the fixture (laptop, phone, remote) into a fresh temp directory and points both
    /// stores' remote at the copy. Returns that directory.
    static func copy() throws -> String {
        let dir = CLIHarness.makeTemporaryDirectory()
        for name in ["laptop", "phone", "remote"] {
            try FileManager.default.copyItem(atPath: "\(source)/\(name)", toPath: "\(dir)/\(name)")
        }
        for name in ["laptop", "phone"] {
            let path = "\(dir)/\(name)/config.json"
            let text = try String(contentsOfFile: path, encoding: .utf8)
            try text.replacingOccurrences(of: "file:///tmp/fx/remote", with: "file://\(dir)/remote")
                .write(toFile: path, atomically: true, encoding: .utf8)
        }
        return dir
    }
}

@Suite("Records v2")
struct RecordsV2Tests {
    // MARK: - Migration of a real aisync 1 store

    @Test func aV1StoreMigratesOnFirstOpenWithNothingLost() throws {
        let dir = try V1Fixture.copy()
        defer { CLIHarness.removeTree(dir) }
        let laptop = CLIStore(directory: dir, path: "\(dir)/laptop")
        let journal = laptop.journalBytes()

        // Every record is there, deleted ones included, with its title.
        let list = try laptop.list(["--deleted"])
        let byID = Dictionary(uniqueKeysWithValues: list.map { ($0["id"] as? String ?? "", $0) })
        #expect(
            Set(byID.keys) == [
                V1Fixture.lisbon, V1Fixture.fox, V1Fixture.owl, V1Fixture.story, V1Fixture.groceries, V1Fixture.old,
            ])
        #expect(
            byID[V1Fixture.old]?["deleted"] as? Bool == true && byID[V1Fixture.old]?["title"] as? String == "Old chat")
        #expect(byID[V1Fixture.lisbon]?["favorite"] as? Bool == true)

        // The config says format 2; the journal is kept byte for byte.
        let config = try CLIJSON.parseObject(
            String(decoding: FileManager.default.contents(atPath: laptop.configPath)!, as: UTF8.self))
        #expect(config["format"] as? Int == 2)
        #expect(laptop.journalBytes() == journal, "migration must not rewrite the journal")

        // aisync 1 showed one of the concurrent messages; records v2 shows both.
        let lisbon = try laptop.show(V1Fixture.lisbon)
        let texts = Set((lisbon["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String })
        #expect(texts == V1Fixture.lisbonMessages)

        // The concurrent renames of the story are one conflict, on its title, both values kept.
        let conflicts = try CLIJSON.array(laptop.run(["conflicts", "--json"]))
        let story = try #require(conflicts.first { $0["id"] as? String == V1Fixture.story })
        let fields = story["fields"] as? [[String: Any]] ?? []
        #expect(fields.compactMap { $0["field"] as? String } == ["title"])
        let titles = Set((fields.first?["values"] as? [[String: Any]] ?? []).compactMap { $0["value"] as? String })
        #expect(titles == ["Fox stories", "Fox tales"])
        // Delete on one device, rename on the other: a conflict on `deleted`.
        let groceries = try #require(conflicts.first { $0["id"] as? String == V1Fixture.groceries })
        #expect((groceries["fields"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String } == ["deleted"])

        // Images keep their bytes; the store is sound.
        for image in [V1Fixture.fox, V1Fixture.owl] {
            let out = "\(dir)/\(image).out"
            try laptop.ok(["image", "save", image, out])
            let sha = try #require(try laptop.show(image)["sha256"] as? String)
            #expect(try CLIFixtures.sha256(try #require(FileManager.default.contents(atPath: out))) == sha)
        }
        // aisync 1 left its store to the umask (0755 under 022): fsck says so, and a repair
        // makes it private; the store is otherwise sound.
        chmod(laptop.path, 0o755)
        let check = laptop.run(["fsck"])
        #expect(
            check.exitCode == 65 && check.stdout.contains("\(laptop.path): mode 0755: can be read by other accounts"),
            "\(check)")
        let repaired = laptop.run(["fsck", "--repair"])
        #expect(repaired.exitCode == 0 && repaired.stderr.contains("in the store private"), "\(repaired)")
        CLIExpect.success(laptop.run(["fsck"]))

        // Nothing is lost: the deleted chat comes back, and the edit that lost to a delete can be kept.
        try laptop.ok(["restore", V1Fixture.old])
        #expect(try laptop.show(V1Fixture.old)["title"] as? String == "Old chat")
        let keep =
            try #require((groceries["fields"] as? [[String: Any]])?.first?["values"] as? [[String: Any]])
            .first { $0["value"] as? Bool == false }?["version"] as? String
        try laptop.ok(["resolve", V1Fixture.groceries, "--keep", String(try #require(keep).prefix(12))])
        #expect(try laptop.show(V1Fixture.groceries)["title"] as? String == "Groceries for Sunday")
        #expect(try CLIJSON.array(laptop.run(["conflicts", "--json", V1Fixture.groceries])).isEmpty)
    }

    @Test func aV1RemoteIsReadAndAPushRaisesItsFormat() throws {
        let dir = try V1Fixture.copy()
        defer { CLIHarness.removeTree(dir) }
        // A new device restores everything from the aisync 1 remote.
        let tablet = CLIStore(directory: dir, path: "\(dir)/tablet")
        try tablet.ok(["init", "--name", "tablet"])
        try tablet.ok(["remote", "add", "usb", "file://\(dir)/remote"])
        try tablet.ok(["pull"])
        let laptop = CLIStore(directory: dir, path: "\(dir)/laptop")
        #expect(tablet.listSnapshot() == laptop.listSnapshot())
        #expect(try tablet.show(V1Fixture.lisbon)["messages"] as? [[String: Any]] != nil)
        let texts = Set(
            (try tablet.show(V1Fixture.lisbon)["messages"] as? [[String: Any]] ?? []).compactMap {
                $0["text"] as? String
            })
        #expect(texts == V1Fixture.lisbonMessages)

        // The tablet writes v2: the manifest becomes format 2 (aisync 1 then refuses to push).
        try tablet.ok(["chat", "say", V1Fixture.lisbon, "--role", "user", "Written by records v2"])
        try tablet.ok(["push"])
        let manifest = try CLIJSON.parseObject(
            String(decoding: FileManager.default.contents(atPath: "\(dir)/remote/aisync.json")!, as: UTF8.self))
        #expect(manifest["format"] as? Int == 2)
        // The migrated laptop and phone pull it, and agree with the tablet.
        let phone = CLIStore(directory: dir, path: "\(dir)/phone")
        for store in [laptop, phone] { try store.ok(["sync"]) }
        try tablet.ok(["pull"])
        let shown = try tablet.show(V1Fixture.lisbon)
        for store in [laptop, phone] {
            #expect(NSDictionary(dictionary: try store.show(V1Fixture.lisbon)) == NSDictionary(dictionary: shown))
            #expect(store.listSnapshot() == tablet.listSnapshot())
        }
        #expect((shown["messages"] as? [[String: Any]] ?? []).count == 5)
    }

    // MARK: - Message operations, versions, restore

    @Test func messagesCanBeEditedAndRemovedAndEveryVersionShown() throws {
        let store = try CLIHarness.makeStore(deviceName: "desk")
        defer { store.remove() }
        let chat = try store.ok(["chat", "new", "--title", "Recipes", "--model", "gpt-4o"])
        try store.ok(["chat", "say", chat, "--role", "user", "How long to boil an egg?"])
        let answered = try store.ok(["chat", "say", chat, "--role", "assistant", "About 5 minutes."])
        let messages = try store.show(chat)["messages"] as? [[String: Any]] ?? []
        let answer = try #require(messages.last?["id"] as? String)

        // Edit by a unique prefix of the message id; the role and time stay.
        try store.ok(["chat", "edit", chat, String(answer.prefix(6)), "About 7 minutes for a firm yolk."])
        var now = try store.show(chat)["messages"] as? [[String: Any]] ?? []
        #expect(now.last?["text"] as? String == "About 7 minutes for a firm yolk.")
        #expect(
            now.last?["role"] as? String == "assistant"
                && now.last?["time"] as? String == messages.last?["time"] as? String)

        // Any older version can still be shown.
        let old = store.run(["show", chat, "--version", answered])
        CLIExpect.success(old)
        #expect(old.stdout.contains("About 5 minutes.") && old.stdout.contains("as of version \(answered)"), "\(old)")
        let oldJSON = try CLIJSON.object(store.run(["show", chat, "--version", answered, "--json"]))
        #expect((oldJSON["messages"] as? [[String: Any]])?.last?["text"] as? String == "About 5 minutes.")

        // Remove; then the log says what each version did.
        try store.ok(["chat", "rm", chat, answer])
        now = try store.show(chat)["messages"] as? [[String: Any]] ?? []
        #expect(now.compactMap { $0["text"] as? String } == ["How long to boil an egg?"])
        let log = store.run(["log", chat])
        CLIExpect.success(log)
        #expect(
            log.stdoutLines.map {
                $0.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init) ?? ""
            }
                == ["message", "message", "message", "message", "created"], "\(log)")
        #expect(
            log.stdout.contains("-1 message") && log.stdout.contains("edited 1 message")
                && log.stdout.contains("+1 message"))
        #expect(log.stdoutLines.allSatisfy { $0.contains("desk") }, "log names the device: \(log)")

        // Bad message ids: one clear line, documented codes, nothing written.
        let journal = store.journalBytes()
        CLIExpect.cleanError(store.run(["chat", "edit", chat, "m-nope", "x"]), code: 66, mentioning: ["no message"])
        CLIExpect.cleanError(store.run(["chat", "rm", chat, answer]), code: 66, mentioning: ["no message"])
        CLIExpect.cleanError(store.run(["show", chat, "--version", "zz"]), code: 64, mentioning: ["not a version id"])
        CLIExpect.cleanError(
            store.run(["show", chat, "--version", "abcdef0123"]), code: 66, mentioning: ["no version"])
        #expect(store.journalBytes() == journal)
    }

    @Test func aDeletedRecordCanBeRestoredWithEverythingItHeld() throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let chat = try store.ok(["chat", "new", "--title", "Keep me"])
        try store.ok(["chat", "say", chat, "--role", "user", "precious"])
        try store.ok(["rm", chat])
        CLIExpect.cleanError(store.run(["show", chat]), code: 66, mentioning: ["deleted", "restore"])
        try store.ok(["restore", chat])
        let shown = try store.show(chat)
        #expect(shown["title"] as? String == "Keep me")
        #expect((shown["messages"] as? [[String: Any]])?.first?["text"] as? String == "precious")
        CLIExpect.cleanError(store.run(["restore", chat]), code: 64, mentioning: ["not deleted"])
    }

    @Test func aLargeMessageGoesToAnObjectAndAddingOneMoreStaysSmall() throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let chat = try store.ok(["chat", "new", "--title", "Big"])
        let big = String(repeating: "0123456789", count: 100_000)  // 1 MB
        try store.ok(["chat", "say", chat, "--role", "user", "-"], stdin: Data(big.utf8))
        let before = store.journalBytes().count
        try store.ok(["chat", "say", chat, "--role", "assistant", "short"])
        let grown = store.journalBytes().count - before
        #expect(grown < 1_000, "one short message after a 1 MB one adds \(grown) journal bytes")
        #expect(store.journalBytes().count < 10_000, "the 1 MB value is in an object, not the journal")
        let messages = try store.show(chat)["messages"] as? [[String: Any]] ?? []
        #expect(messages.first?["text"] as? String == big)
        CLIExpect.success(store.run(["fsck"]))
    }
}

// MARK: - Two devices on one chat, through every kind of remote

@Suite("Records v2 on real servers", .tags(.servers), .needsServers)
struct RecordsV2ServerTests {
    @Test(
        "two devices add messages, rename and favorite one chat at once: every message everywhere, no conflict; then one field set two ways is one conflict naming it",
        arguments: RemoteKind.allCases)
    func concurrentWorkOnOneChat(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("v2")
        let a = try await Device.make("laptop", remote: remote)
        let b = try await Device.make("phone", remote: remote)
        defer {
            a.remove()
            b.remove()
        }

        let chat = try await a.ok(["chat", "new", "--title", "Lisbon trip", "--model", "gpt-4o"])
        try await a.ok(["chat", "say", chat, "--role", "user", "Three things to see in Lisbon?"])
        try await a.sync("push")
        try await b.sync("pull")

        // Concurrently: messages on both, a rename on A, a favorite on B.
        try await a.ok(["chat", "say", chat, "--role", "user", "Add a day trip to Sintra?"])
        try await a.ok(["rename", chat, "Lisbon & Sintra"])
        try await b.ok(["chat", "say", chat, "--role", "user", "Where should we eat?"])
        try await b.ok(["favorite", chat])
        try await a.sync()
        try await b.sync()
        try await a.sync()
        for d in [a, b] {
            #expect(try await d.conflicts().isEmpty, "\(kind): [\(d.label)] no conflict expected")
            let shown = try await Scenario.show(d, chat)
            let texts = (shown["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
            #expect(
                Set(texts) == ["Three things to see in Lisbon?", "Add a day trip to Sintra?", "Where should we eat?"],
                "\(kind): \(texts)")
            #expect(
                shown["title"] as? String == "Lisbon & Sintra" && shown["favorite"] as? Bool == true,
                "\(kind): \(shown)")
        }
        try await Converge.expectIdentical([a, b], "\(kind): merged")

        // The same field to two values, and a message edited on A while B removes it.
        let messageID = try #require(
            (try await Scenario.show(a, chat)["messages"] as? [[String: Any]])?.first?["id"] as? String)
        try await a.ok(["rename", chat, "Portugal"])
        try await a.ok(["chat", "edit", chat, messageID, "Four things to see in Lisbon?"])
        try await b.ok(["rename", chat, "Lisbon 2027"])
        try await b.ok(["chat", "rm", chat, messageID])
        try await a.sync()
        try await b.sync()
        try await a.sync()
        let conflicts = try await a.conflicts()
        try #require(conflicts.count == 1, "\(kind): \(conflicts)")
        let fields = (conflicts[0]["fields"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
        #expect(fields == ["title", "messages/\(messageID)"], "\(kind): \(fields)")
        try await Converge.expectIdentical([a, b], "\(kind): in conflict")
        // The edited message is kept (edit against remove is a conflict, never a loss).
        let texts = (try await Scenario.show(b, chat)["messages"] as? [[String: Any]] ?? []).compactMap {
            $0["text"] as? String
        }
        #expect(texts.contains("Four things to see in Lisbon?"), "\(kind): \(texts)")

        // Resolve the title with B's value and the message with B's removal; both close everywhere.
        let titleValues = (conflicts[0]["fields"] as? [[String: Any]])?.first?["values"] as? [[String: Any]] ?? []
        let fromB = try #require(titleValues.first { $0["value"] as? String == "Lisbon 2027" }?["version"] as? String)
        let messageValues = (conflicts[0]["fields"] as? [[String: Any]])?.last?["values"] as? [[String: Any]] ?? []
        let removal = try #require(
            messageValues.first { $0["removed"] as? Bool == true }?["version"] as? String, "\(kind): \(messageValues)")
        try await b.ok(["resolve", chat, "--field", "title", "--value-of", String(fromB.prefix(12))])
        try await b.ok(["resolve", chat, "--keep", String(removal.prefix(12))])
        try await b.sync()
        try await a.sync()
        for d in [a, b] {
            #expect(try await d.conflicts().isEmpty, "\(kind): [\(d.label)] conflicts left")
            let shown = try await Scenario.show(d, chat)
            #expect(shown["title"] as? String == "Lisbon 2027", "\(kind): \(shown)")
            let texts = (shown["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
            #expect(!texts.contains("Four things to see in Lisbon?"), "\(kind): B's removal was kept: \(texts)")
        }
        try await Converge.expectIdentical([a, b], "\(kind): resolved")
        await remote.remove()
    }
}
