import AISyncTestSupport
import AISyncTesting
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncStore
@testable import AISyncSync

/// The JSON documents the schemas promise are built by the library next to their types (the
/// CLI only prints them): each is validated here against its schema without the CLI.
@Suite struct JSONDocumentTests {
    /// Two devices renamed the same chat at once: `b` holds a conflict, a deleted record and
    /// an image, and knows `a`'s name.
    static func storeWithConflict(in dir: String) async throws -> Store {
        let a = try Scratch.makeStore(in: dir, "a")
        let b = try Scratch.makeStore(in: dir, "b")
        let remote = InMemoryRemote()
        let chat = try await a.createChat(title: "Trip \"plans\" ✈︎", model: "gpt")
        _ = try await a.addImage(
            data: [UInt8](CLIFixtures.allImages[0].bytes), title: "picture", prompt: nil, model: nil)
        let gone = try await a.createChat(title: "gone", model: nil)
        _ = try await a.delete(gone)
        _ = try await Scratch.engine(a, remote).push()
        _ = try await Scratch.engine(b, remote).pull()
        _ = try await a.rename(chat, to: "Trip A")
        _ = try await b.rename(chat, to: "Trip B")
        _ = try await Scratch.engine(a, remote).push()
        _ = try await Scratch.engine(b, remote).pull()
        return b
    }

    static func expectValid(
        _ schema: String, _ bytes: [UInt8], in dir: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let path = "\(dir)/\(schema).json"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let check = SchemaValidator.validate(schema, files: [path], canonical: true)
        #expect(check.passed, "\(check)", sourceLocation: sourceLocation)
    }

    @Test(.tags(.python), .needsPython) func listStatusLogAndConflictsMatchTheirSchemas() async throws {
        try SchemaValidator.requireAvailable()
        let dir = Scratch.makeDirectory("json-documents")
        defer { Scratch.removeDirectory(dir) }
        let store = try await Self.storeWithConflict(in: dir)
        let names = store.deviceNames()
        let conflicts = try await store.conflicts()
        #expect(conflicts.count == 1)
        let listing = try await store.listing(includeDeleted: true)
        try Self.expectValid("list-output", try listing.jsonBytes(), in: dir)
        // The store pulled from "mem"; named in the config, its history shows in `sync`, a
        // failed attempt's error included.
        _ = try await store.addRemote(name: "mem", url: "file://\(dir)/unused")
        _ = try await store.addRemote(name: "never", url: "file://\(dir)/never")
        let failing = InMemoryRemote()
        await failing.setFailure { _ in AISyncError(.unavailable, "cannot reach it", retryAfter: .seconds(3)) }
        await #expect(throws: AISyncError.self) {
            try await SyncEngine(store: store, remote: failing, name: "mem").push()
        }
        let remotes = try await store.remoteStatuses()
        #expect(remotes.map(\.name) == ["mem", "never"] && remotes[0].history.lastPull != nil, "\(remotes)")
        #expect(remotes[0].history.lastAttempt?.error?.retryAfterMilliseconds == 3000, "\(remotes)")
        try Self.expectValid(
            "status-output", try await store.status().json(remotes: remotes).canonicalBytes + [10], in: dir)
        try Self.expectValid(
            "log-output",
            Version.logJSON(try await store.history().reversed(), deviceNames: names).canonicalBytes + [10], in: dir)
        try Self.expectValid(
            "conflicts-output", Store.Conflict.listJSON(conflicts, deviceNames: names).canonicalBytes + [10], in: dir)
    }

    @Test(.tags(.python), .needsPython) func syncGCRemoteListCompactAndImgurStatusMatchTheirSchemas() async throws {
        try SchemaValidator.requireAvailable()
        let dir = Scratch.makeDirectory("json-reports")
        defer { Scratch.removeDirectory(dir) }
        let store = try Scratch.makeStore(in: dir, "a")
        _ = try await store.createChat(title: "Trip", model: "gpt")
        _ = try await store.addImage(
            data: [UInt8](CLIFixtures.allImages[0].bytes), title: "picture", prompt: nil, model: nil)
        let engine = Scratch.engine(store, InMemoryRemote())
        let pushed = try await engine.push()
        #expect(pushed.pushed == 2 && pushed.blobs == 1, "\(pushed)")
        try Self.expectValid("sync-output", pushed.json.canonicalBytes + [10], in: dir)
        try Self.expectValid("sync-output", try await engine.sync(dryRun: true).json.canonicalBytes + [10], in: dir)
        try Self.expectValid("compact-output", try await engine.compact().json.canonicalBytes + [10], in: dir)
        try Self.expectValid(
            "gc-output", try await store.collectGarbage(dryRun: true).json.canonicalBytes + [10], in: dir)
        _ = try await store.addRemote(name: "usb", url: "file://\(dir)/usb", encrypted: true)
        let remotes = try await store.currentConfig().remotesJSON
        #expect(remotes.canonicalString.contains(#""encrypted":true"#), "\(remotes.canonicalString)")
        try Self.expectValid("remote-list-output", remotes.canonicalBytes + [10], in: dir)
        try Self.expectValid("imgur-status-output", try await store.imgurStatus().json.canonicalBytes + [10], in: dir)
    }

    /// The streamed list is the canonical encoder's bytes for the same summaries, whether it
    /// is emitted at once or in pieces.
    @Test func theStreamedListIsTheCanonicalDocument() async throws {
        let dir = Scratch.makeDirectory("json-list")
        defer { Scratch.removeDirectory(dir) }
        let store = try await Self.storeWithConflict(in: dir)
        _ = try await store.createMany(
            (0..<3_000).map { i in
                .chat(
                    ChatBody(
                        title: "chat \(i) “quoted” \\ \u{1}" + Self.awkward[i % Self.awkward.count], model: nil,
                        messages: [],
                        created: Timestamp(milliseconds: 1_764_417_600_000 + Int64(i)),
                        updated: Timestamp(milliseconds: 1_764_417_600_000 + Int64(i * 7919 % 3_000))))
            })
        // Written from the index's lines (the 3,000 saved in it) and from summaries (records
        // changed since): the same bytes as the canonical JSON either way.
        try await store.finishImport()
        _ = try await store.createChat(title: "after the index \t\"" + Self.awkward.joined(), model: nil)
        let listing = try await store.listing(includeDeleted: true)
        var pieces = 0
        var damaged = 0
        var streamed: [UInt8] = []
        try listing.writeJSON(
            emit: {
                streamed += $0
                pieces += 1
            }, damaged: { _ in damaged += 1 })
        let canonical = JSONValue.array(try listing.all.map(\.json)).canonicalBytes + [10]
        let whole = try listing.jsonBytes()
        #expect(streamed == canonical && streamed == whole)
        #expect(damaged == 0 && pieces >= 2 && listing.count == 3_004, "\(listing.count) records in \(pieces) pieces")
    }

    /// Titles that need escaping in the index, in JSON, or both.
    static let awkward = [
        "", "\t", "\n", "\r\n", "\"", "\\", "\\t", "\u{7}\u{8}\u{c}\u{1f}", "\u{7f}", "é", "日本語", "🎨", "\u{2028}",
        "a/b", "</script>",
    ]

    /// The sync, gc and remote list documents hold what their reports say.
    @Test func reportDocumentsCarryTheirFields() async throws {
        let dir = Scratch.makeDirectory("json-reports")
        defer { Scratch.removeDirectory(dir) }
        let store = try Scratch.makeStore(in: dir, "a")
        _ = try await store.createChat(title: "chat", model: nil)
        let report = try await Scratch.engine(store, InMemoryRemote()).push()
        guard case .object(let sync) = report.json else {
            Issue.record("\(report.json)")
            return
        }
        #expect(
            sync["pushed"] == .int(Int64(report.pushed)) && sync["dryRun"] == .bool(false) && sync["imgur"] != nil,
            "\(sync)")
        let gc = try await store.collectGarbage(dryRun: true)
        #expect(
            gc.json
                == .object(["objects": .array([]), "bytes": .int(0), "leftovers": .array([]), "dryRun": .bool(true)]))
        let config = try await store.currentConfig()
        #expect(config.remotesJSON == .array([]))
    }

    /// Foundation's cache and cookie folders go into the store on Linux, for an app as for
    /// the command line.
    @Test func foundationFilesStayInTheStore() async throws {
        let dir = Scratch.makeDirectory("json-foundation")
        defer { Scratch.removeDirectory(dir) }
        let store = try Scratch.makeStore(in: dir, "a")
        #if canImport(Darwin)
            #expect(FoundationFiles.variables(in: store.foundationFilesDirectory).isEmpty)
        #else
            let inside = "\(store.root)/sync/foundation"
            #expect(
                FoundationFiles.variables(in: store.foundationFilesDirectory) == [
                    "XDG_CACHE_HOME": "\(inside)/cache", "XDG_DATA_HOME": "\(inside)/data",
                ])
            let before = ["XDG_CACHE_HOME", "XDG_DATA_HOME"].map { ($0, Platform.environment($0)) }
            store.keepFoundationFiles()
            #expect(
                Platform.environment("XDG_CACHE_HOME") == "\(inside)/cache"
                    && Platform.environment("XDG_DATA_HOME") == "\(inside)/data")
            for (name, value) in before {
                if let value { Platform.setEnvironment(name, value) } else { unsetenv(name) }
            }
        #endif
    }
}
