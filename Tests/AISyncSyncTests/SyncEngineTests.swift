import AISync
import AISyncTestSupport
import Foundation
import Synchronization
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncImgur
@testable import AISyncRemote
@testable import AISyncStore
@testable import AISyncSync
@testable import AISyncTesting

/// Push, pull and sync between real temp stores through an `InMemoryRemote` (docs/DESIGN.md §3, §5).
///
/// Note (Swift 6.3.1 miscompile): no closures inside `#expect` nested in other closures; test
/// bodies stay at the top level, errors are caught with do/catch, values go into `let`s first.
@Suite("SyncEngineTests")
struct SyncEngineTests {
    // MARK: - Fixtures

    static let pngBytes = Scratch.pngBytes
    static func hexBytes(_ hex: String) -> [UInt8] { Scratch.hexBytes(hex) }
    static var clock: ManualClock { Scratch.clock }
    static func environment() -> AISyncEnvironment { Scratch.environment() }
    static func makeDirectory(_ label: String) -> String { Scratch.makeDirectory(label) }
    static func removeDirectory(_ path: String) { Scratch.removeDirectory(path) }
    static func makeStore(in directory: String, _ name: String) throws -> Store {
        try Scratch.makeStore(in: directory, name)
    }
    static func engine(_ store: Store, _ remote: any RemoteStorage) -> SyncEngine { Scratch.engine(store, remote) }

    static func journalBytes(_ store: Store) -> [UInt8] {
        Array(FileManager.default.contents(atPath: "\(store.root)/journal.jsonl") ?? Data())
    }

    static func fileBytes(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    /// Version ids of the journal, one per line.
    static func journalVersionIDs(_ store: Store) throws -> [String] {
        let bytes = journalBytes(store)
        var ids: [String] = []
        for line in bytes.split(separator: 10) {
            let value = try JSONParser.parse(Array(line))
            ids.append(try #require(value["id"]?.stringValue))
        }
        return ids
    }

    /// Everything a user can see of a store: the listing (with deleted records) and every
    /// record's state and winning body.
    struct Visible: Equatable {
        var list: [RecordSummary]
        var records: [RecordID: RecordState]
        var bodies: [RecordID: RecordBody]
    }

    static func visible(_ store: Store) async throws -> Visible {
        let list = try await store.list(includeDeleted: true)
        var records: [RecordID: RecordState] = [:]
        var bodies: [RecordID: RecordBody] = [:]
        for summary in list {
            let r = try await store.record(summary.id)
            records[summary.id] = r.state
            if let body = r.body { bodies[summary.id] = body }
        }
        return Visible(list: list, records: records, bodies: bodies)
    }

    /// List and journal bytes, to prove an operation left a store untouched.
    struct Untouched: Equatable {
        var list: [RecordSummary]
        var journal: [UInt8]
        var checkpoint: [UInt8]?
    }

    static func untouched(_ store: Store) async throws -> Untouched {
        Untouched(
            list: try await store.list(includeDeleted: true), journal: journalBytes(store),
            checkpoint: fileBytes("\(store.root)/sync/mem.json"))
    }

    static func chatBodies(_ count: Int, prefix: String) -> [RecordBody] {
        let t = Timestamp(milliseconds: 1_700_000_000_000)
        return (0..<count).map { .chat(ChatBody(title: "\(prefix) \($0)", model: "gpt-4o", created: t, updated: t)) }
    }

    static func putCount(_ requests: [InMemoryRemote.Request]) -> Int { requests.filter { $0.method == "PUT" }.count }

    // MARK: - Round trip

    @Test func pushThenPullCopiesRecordsBodiesAndImageBytes() async throws {
        let dir = Self.makeDirectory("roundtrip")
        defer { Self.removeDirectory(dir) }
        let a = try Self.makeStore(in: dir, "a")
        let b = try Self.makeStore(in: dir, "b")
        let remote = InMemoryRemote()

        let c1 = try await a.createChat(title: "Trip ideas 🌍", model: "gpt-4o")
        try await a.appendMessage(to: c1, role: .system, text: "You are a travel agent.")
        try await a.appendMessage(to: c1, role: .user, text: "Where in May?\nSomewhere \"warm\".")
        try await a.appendMessage(to: c1, role: .assistant, text: "Lisbon.")
        // Over `FieldValue.inlineLimit`: the value goes to objects/ and travels in its version's
        // segment entry (a push names each line's objects from its scan of the journal).
        let long = String(repeating: "Lisbon in May: warm, not hot. ", count: 200)
        try await a.appendMessage(to: c1, role: .assistant, text: long)
        let c2 = try await a.createChat(title: "Old completions", model: "davinci")
        try await a.appendMessage(to: c2, role: .user, text: "Once upon a time")
        try await a.rename(c2, to: "Old completions (renamed)")
        let c3 = try await a.createChat(title: "Scratch", model: nil)
        try await a.delete(c3)
        let pngPath = "\(dir)/red.png"
        FileManager.default.createFile(atPath: pngPath, contents: Data(Self.pngBytes))
        let image = try await a.addImage(fileAt: pngPath, title: "Red", prompt: "a red square", model: "dall-e-3")
        let story = try await a.createStory(
            title: "The Fox", moral: "Be kind", pages: ["Once", "The end"], images: [image])
        try await a.setFavorite(story, true)

        let pushed = try await Self.engine(a, remote).push()
        #expect(pushed.pushed == Self.journalBytes(a).split(separator: 10).count)
        #expect(pushed.blobs == 1)
        let pulled = try await Self.engine(b, remote).pull()
        #expect(pulled.pulled == pushed.pushed)
        #expect(pulled.blobs == 1)
        #expect(pulled.missingBlobs.isEmpty)

        let va = try await Self.visible(a)
        let vb = try await Self.visible(b)
        #expect(va.list.count == 5)
        #expect(va == vb)
        for id in [c1, c2, image, story] {
            let ca = try await a.canonicalBody(id)
            let cb = try await b.canonicalBody(id)
            #expect(ca == cb, "canonical body of \(id)")
        }
        let chatInB = try await b.record(c1).body
        guard case .chat(let chat)? = chatInB else {
            Issue.record("not a chat body: \(String(describing: chatInB))")
            return
        }
        #expect(chat.messages.last?.text == long)
        let deletedInB = try await b.list(includeDeleted: true).first { $0.id == c3 }
        #expect(deletedInB?.deleted == true)

        // The image's bytes arrived in B's objects, intact.
        let out = "\(dir)/out.png"
        try await b.saveImage(image, to: out)
        #expect(Self.fileBytes(out) == Self.pngBytes)
        let imageBody = try await b.record(image).body
        guard case .image(let ib)? = imageBody else {
            Issue.record("not an image body: \(String(describing: imageBody))")
            return
        }
        let remotePaths = await remote.paths
        #expect(remotePaths.contains(RemotePath.objectPath(ib.sha256)))
        let storyBody = try await b.record(story).body
        guard case .story(let sb)? = storyBody else {
            Issue.record("not a story body")
            return
        }
        #expect(sb.pages.first?.image == ib.sha256)
    }

    /// A push builds its segments from the lines its scan of the journal found, without
    /// parsing them again; a journal rewritten since (another process giving the store a new
    /// device id moves lines) is refused, not read at the old places.
    @Test func aSegmentIsNotBuiltFromAJournalReplacedSinceThePushScannedIt() async throws {
        let dir = Self.makeDirectory("replaced-journal")
        defer { Self.removeDirectory(dir) }
        let a = try Self.makeStore(in: dir, "a")
        let chat = try await a.createChat(title: "One", model: nil)
        try await a.appendMessage(to: chat, role: .user, text: "hello")
        let file = a.journalFile()
        let (lines, _) = try await a.journalWindow(from: 0, maxBytes: 1 << 20)
        let places = lines.map { (offset: $0.offset, length: $0.length, objects: [SHA256Digest]()) }
        let header = Array("header\n".utf8)
        let built = try await a.segment(header: header, lines: places, journal: file)
        let journal = Self.journalBytes(a)
        #expect(
            built.count == header.count + journal.count + places.count
                * Array("{\"objects\":{},\"version\":}".utf8).count)

        // The same bytes in a new file under the journal's name: what a rewrite leaves.
        let path = "\(a.root)/journal.jsonl"
        #expect(FileManager.default.createFile(atPath: path + ".new", contents: Data(journal)))
        #expect(rename(path + ".new", path) == 0)
        #expect(a.journalFile() != file)
        var caught: AISyncError?
        do { _ = try await a.segment(header: header, lines: places, journal: file) } catch { caught = error }
        let error = try #require(caught)
        #expect(error.code == .temporary)
        #expect(error.message.contains("rewritten"), "\(error)")
    }

    // MARK: - Request counts

    @Test func pushing10000ChatsTakesAHandfulOfRequests() async throws {
        let dir = Self.makeDirectory("bulk")
        defer { Self.removeDirectory(dir) }
        let a = try Self.makeStore(in: dir, "a")
        let remote = InMemoryRemote()
        let ids = try await a.createMany(Self.chatBodies(10_000, prefix: "Bulk chat"))
        #expect(ids.count == 10_000)

        let report = try await Self.engine(a, remote).push()
        let requests = await remote.requests
        #expect(report.pushed == 10_000)
        #expect(report.segments >= 1 && report.segments <= 5)
        #expect(requests.count < 20, "requests: \(requests.map { "\($0.method) \($0.path)" })")
        let segmentPuts = requests.filter { $0.method == "PUT" && $0.path.hasPrefix("segments/") }.count
        #expect(segmentPuts == report.segments)
        // Requests other than segment writes do not depend on the amount of data.
        #expect(requests.count - segmentPuts <= 12)

        // Pushing again with nothing new: no request at all.
        await remote.resetRequests()
        let again = try await Self.engine(a, remote).push()
        let againRequests = await remote.requests
        #expect(again.pushed == 0)
        #expect(againRequests.isEmpty)
    }

    @Test(arguments: [true, false])
    func syncWithNothingNewIsCheap(canList: Bool) async throws {
        let dir = Self.makeDirectory("noop")
        defer { Self.removeDirectory(dir) }
        let remote = InMemoryRemote(canList: canList)
        let stores = [
            try Self.makeStore(in: dir, "a"), try Self.makeStore(in: dir, "b"), try Self.makeStore(in: dir, "c"),
        ]
        for (n, s) in stores.enumerated() {
            _ = try await s.createMany(Self.chatBodies(50, prefix: "device \(n)"))
        }
        // Two rounds so every device has pushed and pulled everything (the first push creates
        // the remote: see syncToAnEmptyRemoteCreatesIt).
        _ = try await Self.engine(stores[0], remote).push()
        for _ in 0..<2 {
            for s in stores { _ = try await Self.engine(s, remote).sync() }
        }
        let lists = try await [stores[0].list(), stores[1].list(), stores[2].list()]
        #expect(lists[0].count == 150)
        #expect(lists[0] == lists[1])
        #expect(lists[1] == lists[2])

        for s in stores {
            await remote.resetRequests()
            let report = try await Self.engine(s, remote).sync()
            let requests = await remote.requests
            #expect(report.pushed == 0 && report.pulled == 0)
            #expect(Self.putCount(requests) == 0)
            if canList {
                // One PROPFIND of heads/.
                #expect(requests.count <= 1, "\(requests)")
            } else {
                // devices.json plus every device's head (its own too, to notice a restore
                // from a backup): O(devices), not O(records).
                #expect(requests.count <= stores.count + 1, "\(requests)")
            }
        }
    }

    /// README: "Point aisync at an (empty or aisync) folder … aisync sync". The first `sync`
    /// to an empty remote must create it, as `push` does, instead of failing in its pull step.
    @Test func syncToAnEmptyRemoteCreatesIt() async throws {
        let dir = Self.makeDirectory("first-sync")
        defer { Self.removeDirectory(dir) }
        let a = try Self.makeStore(in: dir, "a")
        let b = try Self.makeStore(in: dir, "b")
        let remote = InMemoryRemote()
        _ = try await a.createChat(title: "first", model: nil)
        var caught: AISyncError?
        var report = SyncReport()
        do { report = try await Self.engine(a, remote).sync() } catch { caught = error }
        #expect(caught == nil, "\(String(describing: caught))")
        #expect(report.pushed == 1)
        let paths = await remote.paths
        #expect(paths.contains(RemotePath.manifest))
        if caught == nil {
            let pulled = try await Self.engine(b, remote).pull()
            #expect(pulled.pulled == 1)
        }
    }

    // MARK: - Only this device's versions are pushed

    /// A sync with local edits used to re-publish every version it had just pulled (one phone
    /// re-sent a laptop's four 10 MB versions). Now a push sends only what the remote lacks.
    @Test func syncWithLocalEditsPushesOnlyThisDevicesVersions() async throws {
        let dir = Self.makeDirectory("relay")
        defer { Self.removeDirectory(dir) }
        let a = try Self.makeStore(in: dir, "a")
        let b = try Self.makeStore(in: dir, "b")
        let remote = InMemoryRemote()
        let ea = Self.engine(a, remote)
        let eb = Self.engine(b, remote)
        let big = String(repeating: "a long answer ", count: 20_000)  // 280 KB, in an object
        let chat = try await a.createChat(title: "From A", model: nil)
        for _ in 0..<4 { try await a.appendMessage(to: chat, role: .assistant, text: big) }
        _ = try await ea.push()
        _ = try await eb.sync()
        // B edits, then pulls more of A's work, then syncs: only B's one version goes out.
        let mine = try await b.createChat(title: "From B", model: nil)
        try await a.appendMessage(to: chat, role: .assistant, text: big + "!")
        _ = try await ea.push()
        let pulled = try await eb.pull()
        #expect(pulled.pulled == 1)
        let report = try await eb.push()
        #expect(report.pushed == 1, "B re-sent versions it pulled: \(report)")
        #expect(report.bytes < 10_000, "B pushed \(report.bytes) bytes for one small chat")
        #expect(try await eb.sync().pushed == 0)
        // And the remote has everything: a third device gets all of it.
        let c = try Self.makeStore(in: dir, "c")
        _ = try await Self.engine(c, remote).pull()
        #expect(Set(try await c.list().map(\.id)) == [chat, mine])
        guard case .chat(let body)? = try await c.record(chat).body else {
            Issue.record("not a chat")
            return
        }
        #expect(body.messages.count == 5)
    }

    // MARK: - Conflicts

    @Test func concurrentMessagesMergeAndConcurrentRenamesConflictOnTheTitleAndResolveEverywhere() async throws {
        let dir = Self.makeDirectory("conflict")
        defer { Self.removeDirectory(dir) }
        let a = try Self.makeStore(in: dir, "a")
        let b = try Self.makeStore(in: dir, "b")
        let remote = InMemoryRemote()
        let ea = Self.engine(a, remote)
        let eb = Self.engine(b, remote)

        let chat = try await a.createChat(title: "Shared", model: "gpt-4o")
        _ = try await ea.push()
        _ = try await eb.sync()
        // Concurrent messages and a favorite: all merge, no conflict (records v2).
        try await a.appendMessage(to: chat, role: .user, text: "edit on A")
        try await b.appendMessage(to: chat, role: .user, text: "edit on B")
        try await b.setFavorite(chat, true)
        _ = try await ea.sync()
        let rb0 = try await eb.sync()
        let ra0 = try await ea.sync()
        #expect(rb0.conflicts == 0 && ra0.conflicts == 0)
        for store in [a, b] {
            guard case .chat(let body)? = try await store.record(chat).body else {
                Issue.record("not a chat")
                return
            }
            #expect(Set(body.messages.map(\.text)) == ["edit on A", "edit on B"])
            #expect(body.favorite)
        }

        // Concurrent renames to different titles: one conflict, on the title.
        try await a.rename(chat, to: "Title from A")
        try await b.rename(chat, to: "Title from B")
        _ = try await ea.sync()
        let rb = try await eb.sync()
        let ra = try await ea.sync()
        #expect(rb.conflicts == 1)
        #expect(ra.conflicts == 1)

        let ca = try await a.conflicts()
        let cb = try await b.conflicts()
        #expect(ca.count == 1)
        #expect(ca == cb)
        let conflict = try #require(cb.first)
        #expect(conflict.id == chat)
        #expect(conflict.fields.map(\.field) == ["title"])
        #expect(
            Set(conflict.fields[0].values.compactMap { $0.value?.stringValue }) == ["Title from A", "Title from B"])
        #expect(conflict.versions.count == 2)
        #expect(conflict.versions.first?.winner == true)
        let devices = Set(conflict.versions.map(\.version.device))
        #expect(devices == [a.deviceID, b.deviceID])
        let winnerA = try await a.record(chat)
        let winnerB = try await b.record(chat)
        #expect(winnerA.body == winnerB.body)

        // Resolve on B, keeping the loser.
        let loser = try #require(conflict.versions.last?.version)
        let loserTitle = try await b.record(chat, asOf: loser.shortID).body?.title
        #expect(loserTitle != winnerA.body?.title)
        try await b.resolve(chat, keep: loser.shortID)
        _ = try await eb.sync()
        _ = try await ea.sync()
        let afterA = try await a.conflicts()
        let afterB = try await b.conflicts()
        #expect(afterA.isEmpty)
        #expect(afterB.isEmpty)
        let finalA = try await a.record(chat)
        let finalB = try await b.record(chat)
        #expect(finalA.state == finalB.state)
        #expect(!finalA.state.isConflict)
        #expect(finalA.body?.title == loserTitle)
        if case .chat(let kept)? = finalA.body {
            #expect(Set(kept.messages.map(\.text)) == ["edit on A", "edit on B"])
        } else {
            Issue.record("the resolved record is not a chat")
        }
    }

    @Test func editVersusDeleteIsAConflictOnBothAndKeepsTheEdit() async throws {
        let dir = Self.makeDirectory("editdelete")
        defer { Self.removeDirectory(dir) }
        let a = try Self.makeStore(in: dir, "a")
        let b = try Self.makeStore(in: dir, "b")
        let remote = InMemoryRemote()
        let ea = Self.engine(a, remote)
        let eb = Self.engine(b, remote)

        let chat = try await a.createChat(title: "Doomed?", model: nil)
        _ = try await ea.push()
        _ = try await eb.sync()
        let edit = try await a.rename(chat, to: "Edited on A")
        let tomb = try await b.delete(chat)
        _ = try await ea.sync()
        _ = try await eb.sync()
        _ = try await ea.sync()

        let ca = try await a.conflicts()
        let cb = try await b.conflicts()
        #expect(ca == cb)
        let conflict = try #require(ca.first)
        #expect(conflict.id == chat)
        #expect(conflict.fields.map(\.field) == ["deleted"])
        let ids = Set(conflict.versions.map(\.version.id))
        #expect(ids == [edit.id, tomb.id])
        let listA = try await a.list(includeDeleted: true)
        let listB = try await b.list(includeDeleted: true)
        #expect(listA == listB)
        let summary = try #require(listA.first { $0.id == chat })
        #expect(summary.conflict)
        // Whichever sibling wins, the edit is kept and can be chosen.
        #expect(summary.title == "Edited on A")
        let editBody = try await b.record(chat, asOf: edit.shortID).body
        #expect(editBody?.title == "Edited on A")
        try await b.resolve(chat, keep: edit.shortID)
        _ = try await eb.sync()
        _ = try await ea.sync()
        let restored = try await a.record(chat).body
        #expect(restored?.title == "Edited on A")
        let left = try await a.conflicts()
        #expect(left.isEmpty)
    }

    // MARK: - Damaged segments

    enum Tamper: String, Sendable, CaseIterable {
        case bodyByte, versionID, headerCount, missing, truncated, otherRemote
    }

    struct TamperCase: Sendable, CustomTestStringConvertible {
        var tamper: Tamper
        var seq: Int64
        var testDescription: String { "\(tamper.rawValue) in segment \(seq)" }
    }

    static let tamperCases: [TamperCase] = Tamper.allCases.flatMap { t in
        [TamperCase(tamper: t, seq: 1), TamperCase(tamper: t, seq: 2)]
    }

    static func tampered(_ bytes: [UInt8], _ tamper: Tamper) throws -> [UInt8]? {
        var text = String(decoding: bytes, as: UTF8.self)
        switch tamper {
        case .missing:
            return nil
        case .truncated:
            return Array(bytes.dropLast(5))
        case .bodyByte:
            // A content byte: the title in segment 1, the message text in segment 2.
            if let range = text.range(of: "Tamper me") {
                text.replaceSubrange(range, with: "Tamper mE")
            } else {
                let range = try #require(text.range(of: "second segment"))
                text.replaceSubrange(range, with: "second segmenT")
            }
            return Array(text.utf8)
        case .versionID:
            let version = try #require(text.range(of: "\"version\":{"))
            let idKey = try #require(text.range(of: "\"id\":\"", range: version.upperBound..<text.endIndex))
            let start = idKey.upperBound
            let end = text.index(start, offsetBy: 64)
            let old = text[start..<end]
            let replacement = old.first == "0" ? "1" + old.dropFirst() : "0" + old.dropFirst()
            text.replaceSubrange(start..<end, with: replacement)
            return Array(text.utf8)
        case .headerCount, .otherRemote:
            var lines = bytes.split(separator: 10, omittingEmptySubsequences: false).map(Array.init)
            guard case .object(var header) = try JSONParser.parse(lines[0]) else { throw AISyncError(.other, "header") }
            if tamper == .headerCount {
                header["count"] = .int((header["count"]?.intValue ?? 0) + 1)
            } else {
                header["remote"] = .string(String(repeating: "ab", count: 16))
            }
            lines[0] = JSONValue.object(header).canonicalBytes
            return Array(lines.joined(separator: [10]))
        }
    }

    @Test(arguments: tamperCases)
    func badSegmentIsRejectedWholeAndLeavesTheStoreUnchanged(_ c: TamperCase) async throws {
        let dir = Self.makeDirectory("tamper")
        defer { Self.removeDirectory(dir) }
        let a = try Self.makeStore(in: dir, "a")
        let b = try Self.makeStore(in: dir, "b")
        let remote = InMemoryRemote()
        let ea = Self.engine(a, remote)
        let eb = Self.engine(b, remote)

        // B already has data and has pushed once, so its checkpoint exists.
        let mine = try await b.createChat(title: "B's own chat", model: nil)
        try await b.appendMessage(to: mine, role: .user, text: "hello")
        _ = try await eb.push()

        let chat = try await a.createChat(title: "Tamper me", model: "gpt-4o")
        _ = try await a.createChat(title: "Another", model: nil)
        _ = try await ea.push()
        try await a.appendMessage(to: chat, role: .user, text: "second segment")
        _ = try await ea.push()
        let path = RemotePath.segmentPath(a.deviceID, c.seq)
        let original = try #require(await remote.contents(path))
        let bad = try Self.tampered(original, c.tamper)
        #expect(bad != original)
        await remote.setContents(path, bad)

        let before = try await Self.untouched(b)
        await remote.resetRequests()
        var caught: AISyncError?
        do { _ = try await eb.pull() } catch { caught = error }
        let error = try #require(caught)
        #expect(error.code == .damagedData)
        #expect(error.message.contains(path), "\(error)")
        // Read again once (an answer may have been cut short); the same bytes again are real
        // damage, not parsed a third and fourth time.
        let reads = await remote.requests.filter { $0.method == "GET" && $0.path == path }.count
        #expect((1...2).contains(reads), "\(reads) reads")
        let after = try await Self.untouched(b)
        #expect(before == after)

        // Once the writer's data is good again, the pull goes through.
        await remote.setContents(path, original)
        let report = try await eb.pull()
        #expect(report.pulled == 3)
        let listB = try await b.list()
        #expect(listB.count == 3)
    }

    // MARK: - Hostile remote data

    @Test func headWhoseDeviceDiffersFromItsFileNameIsRejected() async throws {
        let dir = Self.makeDirectory("hostile-head")
        defer { Self.removeDirectory(dir) }
        let a = try Self.makeStore(in: dir, "a")
        let b = try Self.makeStore(in: dir, "b")
        let remote = InMemoryRemote()
        _ = try await b.createChat(title: "B", model: nil)
        _ = try await Self.engine(b, remote).push()
        _ = try await a.createChat(title: "A", model: nil)
        _ = try await Self.engine(a, remote).push()

        let impostor = try #require(DeviceID(String(repeating: "f", count: 32)))
        let aHead = try #require(await remote.contents(RemotePath.headPath(a.deviceID)))
        await remote.setContents(RemotePath.headPath(impostor), aHead)

        let before = try await Self.untouched(b)
        var caught: AISyncError?
        do { _ = try await Self.engine(b, remote).pull() } catch { caught = error }
        let error = try #require(caught)
        #expect(error.code == .damagedData)
        #expect(error.message.contains(RemotePath.headPath(impostor)), "\(error)")
        let after = try await Self.untouched(b)
        #expect(before == after)
    }

    /// A head whose remote id does not match its device's segments: the segments are rejected
    /// (a head alone may differ from the manifest after a first-push race on nginx).
    @Test func headOfAnotherRemoteIsRejected() async throws {
        let dir = Self.makeDirectory("hostile-remote-id")
        defer { Self.removeDirectory(dir) }
        let a = try Self.makeStore(in: dir, "a")
        let b = try Self.makeStore(in: dir, "b")
        let remote = InMemoryRemote()
        _ = try await a.createChat(title: "A", model: nil)
        _ = try await Self.engine(a, remote).push()
        let headPath = RemotePath.headPath(a.deviceID)
        let head = try JSONParser.parse(try #require(await remote.contents(headPath)))
        guard case .object(var o) = head else {
            Issue.record("head is not an object")
            return
        }
        o["remote"] = .string(String(repeating: "0", count: 32))
        await remote.setContents(headPath, JSONValue.object(o).canonicalBytes + [10])

        let before = try await Self.untouched(b)
        var caught: AISyncError?
        do { _ = try await Self.engine(b, remote).pull() } catch { caught = error }
        let error = try #require(caught)
        #expect(error.code == .damagedData)
        let segmentPath = RemotePath.segmentPath(a.deviceID, 1)
        #expect(error.message.contains(segmentPath) && error.message.contains("another remote"), "\(error)")
        let after = try await Self.untouched(b)
        #expect(before == after)
    }

    @Test func manifestOfAFutureFormatIsAConfigurationError() async throws {
        let dir = Self.makeDirectory("hostile-manifest")
        defer { Self.removeDirectory(dir) }
        let b = try Self.makeStore(in: dir, "b")
        _ = try await b.createChat(title: "B", model: nil)
        let remote = InMemoryRemote()
        let manifest = JSONValue.object([
            "format": .int(99), "remote": .string(String(repeating: "1", count: 32)),
            "created": .string("2024-01-01T00:00:00.000Z"),
        ])
        await remote.setContents(RemotePath.manifest, manifest.canonicalBytes + [10])

        let before = try await Self.untouched(b)
        var pullError: AISyncError?
        do { _ = try await Self.engine(b, remote).pull() } catch { pullError = error }
        var pushError: AISyncError?
        do { _ = try await Self.engine(b, remote).push() } catch { pushError = error }
        #expect(pullError?.code == .configuration, "\(String(describing: pullError))")
        #expect(pushError?.code == .configuration, "\(String(describing: pushError))")
        let after = try await Self.untouched(b)
        #expect(before == after)
        let paths = await remote.paths
        #expect(paths == [RemotePath.manifest], "nothing was written next to a manifest we do not understand")
    }

    @Test(arguments: [false, true])
    func pullFromANonAisyncLocationIsNotFound(withStrayFiles: Bool) async throws {
        let dir = Self.makeDirectory("not-aisync")
        defer { Self.removeDirectory(dir) }
        let b = try Self.makeStore(in: dir, "b")
        _ = try await b.createChat(title: "B", model: nil)
        let remote = InMemoryRemote()
        if withStrayFiles {
            await remote.setContents("heads/\(String(repeating: "a", count: 32)).json", Array("{}".utf8))
            await remote.setContents("notes.txt", Array("hello".utf8))
        }
        let before = try await Self.untouched(b)
        var caught: AISyncError?
        do { _ = try await Self.engine(b, remote).pull() } catch { caught = error }
        #expect(caught?.code == .notFound, "\(String(describing: caught))")
        let after = try await Self.untouched(b)
        #expect(before == after)
        let puts = Self.putCount(await remote.requests)
        #expect(puts == 0)
    }

    // MARK: - Copied store

    /// A store directory copied and used in two places: the copy that finds out takes a new
    /// device id with its unsynced changes, the original's files are untouched, and both keep
    /// syncing with nothing lost.
    @Test(arguments: [false, true])
    func aCopiedStoreTakesANewDeviceIDAndBothKeepSyncing(pushedBeforeCopy: Bool) async throws {
        let dir = Self.makeDirectory("copied")
        defer { Self.removeDirectory(dir) }
        let a = try Self.makeStore(in: dir, "a")
        let remote = InMemoryRemote()
        let shared = try await a.createChat(title: "Before the copy", model: nil)
        if pushedBeforeCopy { _ = try await Self.engine(a, remote).push() }

        try FileManager.default.copyItem(atPath: a.root, toPath: "\(dir)/a2")
        let a2 = try Store.open(at: "\(dir)/a2", environment: Self.environment())
        #expect(a2.deviceID == a.deviceID)
        let onA = try await a.createChat(title: "Edit on A", model: nil)
        try await a.appendMessage(to: shared, role: .user, text: "said on A")
        let onA2 = try await a2.createChat(title: "Edit on A2", model: nil)
        try await a2.appendMessage(to: shared, role: .user, text: "said on A2")

        _ = try await Self.engine(a, remote).push()
        let segmentPaths = await remote.paths.filter { $0.hasPrefix("segments/") }
        var segmentsBefore: [String: [UInt8]] = [:]
        for p in segmentPaths { segmentsBefore[p] = await remote.contents(p) }
        let headBefore = await remote.contents(RemotePath.headPath(a.deviceID))

        let report = try await Self.engine(a2, remote).push()
        #expect(report.oldDeviceID == a.deviceID)
        #expect(report.newDeviceID == a2.deviceID && a2.deviceID != a.deviceID)
        let reopened = try Store.open(at: "\(dir)/a2", environment: Self.environment())
        #expect(reopened.deviceID == a2.deviceID, "the new id is saved")
        // The original's files are untouched.
        for p in segmentPaths { #expect(await remote.contents(p) == segmentsBefore[p], "\(p)") }
        #expect(await remote.contents(RemotePath.headPath(a.deviceID)) == headBefore)

        // Both keep syncing and end up the same, with every change.
        for _ in 0..<2 {
            _ = try await Self.engine(a, remote).sync()
            _ = try await Self.engine(a2, remote).sync()
        }
        let listA = try await a.list()
        #expect(listA == (try await a2.list()))
        #expect(Set(listA.map(\.id)) == [shared, onA, onA2])
        for store in [a, a2] {
            guard case .chat(let chat)? = try await store.record(shared).body else {
                Issue.record("not a chat")
                return
            }
            #expect(Set(chat.messages.map(\.text)) == ["said on A", "said on A2"])
            #expect(try await store.conflicts().isEmpty)
            #expect(try await store.fsck().isSound)
        }
    }

    // MARK: - Crash and resume

    struct CrashCase: Sendable, CustomTestStringConvertible {
        var method: String
        var path: String
        var editBetween: Bool
        var testDescription: String { "\(method) \(path) fails\(editBetween ? ", then a new edit" : "")" }
    }

    static let crashCases: [CrashCase] = [
        CrashCase(method: "PUT", path: "heads/", editBetween: false),
        CrashCase(method: "PUT", path: "heads/", editBetween: true),
        CrashCase(method: "PUT", path: "segments/", editBetween: false),
        CrashCase(method: "PUT", path: "objects/", editBetween: false),
    ]

    /// The push is interrupted at one request; after the failure clears, pushing again
    /// finishes the job and the other device receives every version exactly once.
    @Test(arguments: crashCases)
    func interruptedPushResumes(_ c: CrashCase) async throws {
        let dir = Self.makeDirectory("resume")
        defer { Self.removeDirectory(dir) }
        let a = try Self.makeStore(in: dir, "a")
        let b = try Self.makeStore(in: dir, "b")
        let remote = InMemoryRemote()
        let ea = Self.engine(a, remote)

        let chat = try await a.createChat(title: "Resumable", model: nil)
        try await a.appendMessage(to: chat, role: .user, text: "one")
        let pngPath = "\(dir)/red.png"
        FileManager.default.createFile(atPath: pngPath, contents: Data(Self.pngBytes))
        _ = try await a.addImage(fileAt: pngPath, title: nil, prompt: nil, model: nil)
        _ = try await a.createMany(Self.chatBodies(20, prefix: "bulk"))

        let method = c.method
        let prefix = c.path
        await remote.setFailure { r in
            r.method == method && r.path.hasPrefix(prefix) ? AISyncError(.unavailable, "simulated outage") : nil
        }
        var caught: AISyncError?
        do { _ = try await ea.push() } catch { caught = error }
        #expect(caught?.code == .unavailable)
        let headWritten = await remote.contents(RemotePath.headPath(a.deviceID))
        #expect(headWritten == nil, "a head never appears before its segments")
        await remote.setFailure(nil)

        if c.editBetween { try await a.appendMessage(to: chat, role: .assistant, text: "two") }
        let report = try await ea.push()
        #expect(report.pushed > 0)

        _ = try await Self.engine(b, remote).pull()
        let la = try await a.list()
        let lb = try await b.list()
        #expect(la == lb)
        let idsA = try Self.journalVersionIDs(a)
        let idsB = try Self.journalVersionIDs(b)
        #expect(Set(idsB).count == idsB.count, "no version is applied twice")
        #expect(Set(idsB) == Set(idsA))
    }

    /// A push that fails after the head was written (while registering in devices.json, or a
    /// lost reply to the head PUT) must also be resumable by pushing again (docs/DESIGN.md §5.3: "a
    /// crash or cancel anywhere leaves the remote valid, and the next push finishes").
    @Test func pushInterruptedAfterTheHeadWasWrittenResumes() async throws {
        let dir = Self.makeDirectory("resume-after-head")
        defer { Self.removeDirectory(dir) }
        let a = try Self.makeStore(in: dir, "a")
        let b = try Self.makeStore(in: dir, "b")
        let remote = InMemoryRemote()
        let ea = Self.engine(a, remote)
        _ = try await a.createMany(Self.chatBodies(5, prefix: "chat"))

        await remote.setFailure { r in
            r.method == "PUT" && r.path == RemotePath.devicesIndex ? AISyncError(.unavailable, "simulated outage") : nil
        }
        var caught: AISyncError?
        do { _ = try await ea.push() } catch { caught = error }
        #expect(caught?.code == .unavailable)
        await remote.setFailure(nil)

        var retryError: AISyncError?
        do { _ = try await ea.push() } catch { retryError = error }
        #expect(retryError == nil, "pushing again after an interrupted push failed: \(String(describing: retryError))")

        _ = try await Self.engine(b, remote).pull()
        let lb = try await b.list()
        #expect(lb.count == 5)
    }

    // MARK: - Plain HTTP (no listing, conditions ignored)

    /// Both first pushes run at once (async let). With `forced`, the schedule is pinned to the
    /// lost-update case on an nginx-like server: A creates aisync.json and B uses it, then
    /// both read devices.json (absent) before either writes it, so one registration is first
    /// overwritten and must be repaired by the re-read.
    @Test(arguments: [false, true])
    func firstPushesAtTheSameMomentOnAPlainServerFindEachOther(forced: Bool) async throws {
        let dir = Self.makeDirectory("plain")
        defer { Self.removeDirectory(dir) }
        let a = try Self.makeStore(in: dir, "a")
        let b = try Self.makeStore(in: dir, "b")
        let remote = InMemoryRemote(name: "http://nginx.local/aisync", canList: false, ignoresConditions: true)
        _ = try await a.createMany(Self.chatBodies(30, prefix: "from A"))
        _ = try await b.createMany(Self.chatBodies(20, prefix: "from B"))
        let ea = Self.engine(a, remote)
        let eb = Self.engine(b, remote)

        // B reads aisync.json only once A wrote it; neither writes devices.json before both read it.
        let manifestReady = Latch()
        let bothLookedAtIndex = Barrier(parties: 2)
        let aCount = Counter()
        let bCount = Counter()
        let ha = HookedRemote(
            inner: remote, before: { _, _ in },
            after: { method, path in
                if method == "PUT", path == RemotePath.manifest { await manifestReady.signal() }
                if method == "GET", path == RemotePath.devicesIndex, await aCount.next() == 1 {
                    await bothLookedAtIndex.arrive()
                }
            })
        let hb = HookedRemote(
            inner: remote,
            before: { method, path in
                if method == "GET", path == RemotePath.manifest { await manifestReady.wait() }
            },
            after: { method, path in
                if method == "GET", path == RemotePath.devicesIndex, await bCount.next() == 1 {
                    await bothLookedAtIndex.arrive()
                }
            })
        let pushA = forced ? Self.engine(a, ha) : ea
        let pushB = forced ? Self.engine(b, hb) : eb

        async let pa = pushA.push()
        async let pb = pushB.push()
        let (ra, rb) = try await (pa, pb)
        if forced {
            let puts = await remote.requests.filter { $0.method == "PUT" && $0.path == RemotePath.devicesIndex }.count
            #expect(puts >= 3, "the forced schedule lost one registration, which was then repaired")
        }
        #expect(ra.pushed == 30)
        #expect(rb.pushed == 20)

        let index = try DevicesIndex(
            bytes: try #require(await remote.contents(RemotePath.devicesIndex)), path: "devices.json")
        #expect(Set(index.devices.keys) == [a.deviceID, b.deviceID])

        let qa = try await ea.pull()
        let qb = try await eb.pull()
        #expect(qa.pulled == 20)
        #expect(qb.pulled == 30)
        let la = try await a.list()
        let lb = try await b.list()
        #expect(la.count == 50)
        #expect(la == lb)

        // After a push, each head names the devices it knows.
        _ = try await a.createChat(title: "later", model: nil)
        _ = try await ea.push()
        let head = try DeviceHead(
            bytes: try #require(await remote.contents(RemotePath.headPath(a.deviceID))), path: "head",
            expected: a.deviceID)
        #expect(Set(head.devices) == [a.deviceID, b.deviceID])
        let r2 = try await eb.pull()
        #expect(r2.pulled == 1)
    }

    /// Forces the worst legal schedule of two first pushes on an nginx-like server (which
    /// ignores If-None-Match): both see no aisync.json; A creates it and reads it back; only
    /// then B creates (overwrites) it. Both devices must still end up on one remote id.
    @Test func firstPushesRacingToCreateTheManifestAgreeOnOneRemote() async throws {
        let dir = Self.makeDirectory("manifest-race")
        defer { Self.removeDirectory(dir) }
        let a = try Self.makeStore(in: dir, "a")
        let b = try Self.makeStore(in: dir, "b")
        let shared = InMemoryRemote(name: "http://nginx.local/aisync", canList: false, ignoresConditions: true)
        _ = try await a.createChat(title: "from A", model: nil)
        _ = try await b.createChat(title: "from B", model: nil)

        // A: GET aisync.json (none) ........ PUT (waits for B's GET) . GET (reads its own back)
        // B: GET aisync.json (none) ...................................................... PUT . GET
        let bLooked = Latch()
        let aReadBack = Latch()
        let aCount = Counter()
        let bCount = Counter()
        let ra = HookedRemote(
            inner: shared,
            before: { method, path in
                guard path == RemotePath.manifest else { return }
                if method == "GET" { _ = await aCount.next() }
                if method == "PUT" { await bLooked.wait() }
            },
            after: { method, path in
                if method == "GET", path == RemotePath.manifest, await aCount.value == 2 { await aReadBack.signal() }
            })
        let rb = HookedRemote(
            inner: shared,
            before: { method, path in
                guard path == RemotePath.manifest else { return }
                if method == "GET" { _ = await bCount.next() }
                if method == "PUT" { await aReadBack.wait() }
            },
            after: { method, path in
                if method == "GET", path == RemotePath.manifest, await bCount.value == 1 { await bLooked.signal() }
            })
        let ea = Self.engine(a, ra)
        let eb = Self.engine(b, rb)

        async let pa = ea.push()
        async let pb = eb.push()
        var pushErrors: [AISyncError] = []
        do { _ = try await pa } catch let e as AISyncError { pushErrors.append(e) } catch {
            pushErrors.append(AISyncError(.other, "\(error)"))
        }
        do { _ = try await pb } catch let e as AISyncError { pushErrors.append(e) } catch {
            pushErrors.append(AISyncError(.other, "\(error)"))
        }
        #expect(pushErrors.isEmpty, "\(pushErrors)")

        var pullErrors: [AISyncError] = []
        do { _ = try await Self.engine(a, shared).sync() } catch { pullErrors.append(error) }
        do { _ = try await Self.engine(b, shared).sync() } catch { pullErrors.append(error) }
        #expect(pullErrors.isEmpty, "\(pullErrors)")
        let la = try await a.list()
        let lb = try await b.list()
        #expect(la.count == 2, "A sees \(la.map(\.title))")
        #expect(lb.count == 2, "B sees \(lb.map(\.title))")
    }

    /// WsgiDAV's ETag is inode, whole-second mtime and size: a head rewritten, same size, in the
    /// second another device read it keeps its ETag. A reader that remembered the ETag it read
    /// then would skip that head on every later pull and never get the push.
    @Test func aHeadRewrittenInTheSecondItWasReadIsStillPulled() async throws {
        let dir = Self.makeDirectory("whole-second")
        defer { Self.removeDirectory(dir) }
        let a = try Self.makeStore(in: dir, "a")
        let b = try Self.makeStore(in: dir, "b")
        let clock = ManualClock(step: 0)
        let remote = InMemoryRemote(name: "http://wsgidav.local/aisync", wholeSecondETags: { clock.current })
        let ea = Self.engine(a, remote)
        let eb = Self.engine(b, remote)
        let chat = try await a.createChat(title: "first", model: nil)
        _ = try await ea.push()
        let head = RemotePath.headPath(a.deviceID)
        let etag = try await remote.read(head)?.etag
        #expect(try await eb.pull().pulled == 1)

        // Within the same second: A renames and pushes; its head keeps its size, so its ETag.
        _ = try await a.rename(chat, to: "again")
        _ = try await ea.push()
        try #require(try await remote.read(head)?.etag == etag, "the head's ETag should not have changed")
        #expect(try await eb.pull().pulled == 1, "B skipped A's head, whose ETag it read in the same second")
        #expect(try await b.list().map(\.title) == ["again"])

        // Seconds later the head is read once more and its ETag kept: then a pull is one listing.
        clock.advance(by: 5000)
        #expect(try await eb.pull().pulled == 0)
        await remote.resetRequests()
        #expect(try await eb.pull().pulled == 0)
        #expect(await remote.requests.map(\.method) == ["PROPFIND"])
    }

    // MARK: - Dry run

    @Test func dryRunChangesNeitherRemoteNorStore() async throws {
        let dir = Self.makeDirectory("dryrun")
        defer { Self.removeDirectory(dir) }
        let a = try Self.makeStore(in: dir, "a")
        let b = try Self.makeStore(in: dir, "b")
        let remote = InMemoryRemote()
        let ea = Self.engine(a, remote)
        let eb = Self.engine(b, remote)
        _ = try await a.createMany(Self.chatBodies(10, prefix: "A"))
        _ = try await b.createMany(Self.chatBodies(4, prefix: "B"))

        // Push dry run to an empty remote: nothing written, nothing remembered.
        let aBefore = try await Self.untouched(a)
        let dryPush = try await ea.push(dryRun: true)
        #expect(dryPush.dryRun)
        #expect(dryPush.pushed == 10)
        let afterDryPush = await remote.paths
        #expect(afterDryPush.isEmpty)
        let putsAfterDryPush = Self.putCount(await remote.requests)
        #expect(putsAfterDryPush == 0)
        let aAfter = try await Self.untouched(a)
        #expect(aBefore == aAfter)

        _ = try await ea.push()
        let remoteBefore = await remote.paths
        await remote.resetRequests()

        // Pull and sync dry runs on B: B and the remote stay as they were.
        let bBefore = try await Self.untouched(b)
        let dryPull = try await eb.pull(dryRun: true)
        #expect(dryPull.pulled == 10)
        let drySync = try await eb.sync(dryRun: true)
        #expect(drySync.dryRun)
        #expect(drySync.pushed == 4)
        let requests = await remote.requests
        #expect(Self.putCount(requests) == 0)
        #expect(requests.allSatisfy { $0.method != "DELETE" })
        let remoteAfter = await remote.paths
        #expect(remoteAfter == remoteBefore)
        let bAfter = try await Self.untouched(b)
        #expect(bBefore == bAfter)

        // The real pull afterwards still receives everything.
        let real = try await eb.pull()
        #expect(real.pulled == 10)
    }
}

// MARK: - Scheduling helpers for forced interleavings

extension SyncEngineTests {
    /// A one-shot event.
    actor Latch {
        private var open = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func signal() {
            open = true
            let w = waiting
            waiting = []
            for c in w { c.resume() }
        }

        func wait() async {
            if open { return }
            await withCheckedContinuation { waiting.append($0) }
        }
    }

    /// Suspends callers until `parties` have arrived.
    actor Barrier {
        let parties: Int
        private var arrived = 0
        private var waiting: [CheckedContinuation<Void, Never>] = []
        init(parties: Int) { self.parties = parties }

        func arrive() async {
            arrived += 1
            if arrived >= parties {
                let w = waiting
                waiting = []
                for c in w { c.resume() }
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }
    }

    actor Counter {
        private(set) var value = 0
        func next() -> Int {
            value += 1
            return value
        }
    }

    /// Forwards to an `InMemoryRemote`, calling hooks before and after each request so a test can
    /// force an interleaving of two devices.
    struct HookedRemote: RemoteStorage {
        let inner: InMemoryRemote
        let before: @Sendable (String, String) async -> Void
        let after: @Sendable (String, String) async -> Void

        var displayName: String { inner.displayName }
        var canList: Bool { inner.canList }

        func read(_ path: String, maxBytes: Int) async throws(AISyncError) -> RemoteFile? {
            await before("GET", path)
            let r = try await inner.read(path, maxBytes: maxBytes)
            await after("GET", path)
            return r
        }

        func download(_ path: String, to localPath: String, maxBytes: Int64) async throws(AISyncError) -> Bool {
            await before("GET", path)
            let r = try await inner.download(path, to: localPath, maxBytes: maxBytes)
            await after("GET", path)
            return r
        }

        func write(_ path: String, _ bytes: [UInt8], condition: WriteCondition) async throws(AISyncError) -> WriteResult
        {
            await before("PUT", path)
            let r = try await inner.write(path, bytes, condition: condition)
            await after("PUT", path)
            return r
        }

        func upload(_ path: String, from localPath: String, condition: WriteCondition) async throws(AISyncError)
            -> WriteResult
        {
            await before("PUT", path)
            let r = try await inner.upload(path, from: localPath, condition: condition)
            await after("PUT", path)
            return r
        }

        func list(_ directory: String) async throws(AISyncError) -> [RemoteEntry]? {
            await before("PROPFIND", directory)
            let r = try await inner.list(directory)
            await after("PROPFIND", directory)
            return r
        }

        func exists(_ path: String) async throws(AISyncError) -> Bool {
            await before("HEAD", path)
            let r = try await inner.exists(path)
            await after("HEAD", path)
            return r
        }

        func delete(_ path: String) async throws(AISyncError) {
            await before("DELETE", path)
            try await inner.delete(path)
            await after("DELETE", path)
        }
    }
}
