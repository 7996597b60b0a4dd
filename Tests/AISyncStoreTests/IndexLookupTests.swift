import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncStore

/// The index is searched in place (docs/DESIGN.md §4.4 keeps it a cache): by sampled ids in memory, then
/// within one run of lines. Every record must be found and no other, whether the index was
/// just written by this process (its layout handed over) or read back from disk by another
/// (its layout rebuilt by the checking pass), and across merges of changed records into it.
@Suite("Index lookups")
struct IndexLookupTests {
    @Test func everyRecordIsFoundAndNoOtherAcrossManyRuns() async throws {
        let dir = Scratch.makeDirectory("index-lookup")
        defer { Scratch.removeDirectory(dir) }
        let writer = try Scratch.makeStore(in: dir, "a")
        let base = Timestamp(milliseconds: 1_764_417_600_000)
        // 1,000 records: 16 runs of 64 lines, more than one merge of changed records.
        let ids = try await writer.createMany(
            (0..<1_000).map { i in
                .chat(ChatBody(title: "chat \(i)", model: nil, created: base, updated: base))
            })
        let titles = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, "chat \($0)") })
        // Renaming every third one changes records already in the index (a merge copies the rest).
        let renamed = ids.enumerated().filter { $0.offset % 3 == 0 }.map { ($0.element, "renamed \($0.offset)") }
        try await writer.renameMany(renamed)
        let expected = titles.merging(renamed, uniquingKeysWith: { _, new in new })
        try await writer.finishImport()
        let reader = try Store.open(at: writer.root)
        for store in [writer, reader] {
            for id in ids {
                let (_, body) = try await store.record(id)
                #expect(body?.title == expected[id], "\(id)")
            }
            // Ids that sort before, between and after the stored ones are not there.
            let sorted = ids.sorted()
            var absent = ["chat-0", "chat-zzzzzzzzzzzzzzzz", "image-0000000000000000"]
            for id in sorted.prefix(200) { absent.append(id.rawValue + "0") }
            for text in absent {
                let id = try #require(RecordID(text))
                await #expect(throws: AISyncError.self, "\(text) is not a record") { _ = try await store.record(id) }
            }
            #expect(try await store.list().count == ids.count)
        }
        let header = try String(contentsOfFile: "\(writer.root)/index/records.v2", encoding: .utf8).prefix {
            $0 != "\n"
        }
        #expect(header.split(separator: "\t")[8] == "1000", "\(header)")
    }

    /// The first index of a new store with thousands of records is encoded in two parts on
    /// two cores (`StoreSnapshot.changedLinesInParts`): the file must be what the one-thread
    /// pass checks (every line whole, ids in order, as many as the header says), each record
    /// found both with the layout the writer handed over and with the one read from disk.
    @Test("An index encoded in parts is whole, in order, and finds every record")
    func anIndexEncodedInParts() async throws {
        let dir = Scratch.makeDirectory("index-parts-write")
        defer { Scratch.removeDirectory(dir) }
        let writer = try Scratch.makeStore(in: dir, "a")
        let count = IndexFile.encodeInPartsFrom + 777
        let ids = try await writer.createMany(Self.chats(count, timesModulo: 97))
        try await writer.finishImport()
        let path = "\(writer.root)/index/records.v2"
        let index = try #require(IndexBase(path: path), "the checking pass refused the index")
        #expect(index.header.records == count)
        let reader = try Store.open(at: writer.root)
        for store in [writer, reader] {
            for (n, id) in ids.enumerated() where n % 7 == 0 || n > count - 80 {
                #expect(try await store.record(id).1?.title == "chat \(n)", "\(id)")
            }
            #expect(try await store.list().count == count)
        }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst()
        #expect(lines.map { $0.prefix { $0 != "\t" } } == ids.map(\.rawValue).sorted().map { Substring($0) })
    }

    /// The filter that spares a search of the index for records it lacks never says "no" to
    /// an id it holds, and seldom "maybe" to one it does not.
    @Test func theIDFilterHoldsWhatWasAddedAndLittleElse() throws {
        var filter = IDFilter()
        let held = try (0..<20_000).map { try #require(RecordID("chat-held-\($0)")) }
        let other = try (0..<20_000).map { try #require(RecordID("chat-other-\($0)")) }
        #expect(!held.contains { filter.mayContain($0) }, "an empty filter holds nothing")
        for id in held { filter.insert(id) }
        #expect(held.allSatisfy { filter.mayContain($0) })
        // About 1 in 3,000,000 at 20,000 ids: more than 2 means the bits are not spread.
        #expect(other.count { filter.mayContain($0) } <= 2)
    }

    /// A rebuild keeps the decoded states of records with a long history from one window of
    /// the journal to the next, across the index writes in between: a version of such a
    /// record after 6,000 others must join its earlier lines, not replace them.
    @Test func aRebuildKeepsEveryLineOfARecordWhoseStateOutlivesAnIndexWrite() async throws {
        let dir = Scratch.makeDirectory("index-rebuild-history")
        defer { Scratch.removeDirectory(dir) }
        let store = try Scratch.makeStore(in: dir, "a")
        let chat = try await store.createChat(title: "a long chat", model: nil)
        for n in 0..<8 { _ = try await store.appendMessage(to: chat, role: .user, text: "early \(n)") }
        let base = Timestamp(milliseconds: 1_764_417_600_000)
        _ = try await store.createMany(
            (0..<6_000).map { i in
                .chat(
                    ChatBody(
                        title: "filler \(i) " + String(repeating: "x", count: 980), model: nil, created: base,
                        updated: base))
            })
        _ = try await store.appendMessage(to: chat, role: .assistant, text: "late")
        try await store.finishImport()
        try FileManager.default.removeItem(atPath: "\(store.root)/index/records.v2")
        let fresh = try Store.open(at: store.root)
        guard case .chat(let body)? = try await fresh.record(chat).body else {
            Issue.record("not a chat")
            return
        }
        #expect(body.messages.map(\.text) == (0..<8).map { "early \($0)" } + ["late"])
        #expect(try await fresh.list().count == 6_001)
        // The rebuilt index lists all ten lines of the chat (created, 8 messages, 1 more). A
        // read would mend an index that lost some (by rebuilding it again), hiding the loss.
        let index = try String(contentsOfFile: "\(store.root)/index/records.v2", encoding: .utf8)
        let line = try #require(index.split(separator: "\n").first { $0.hasPrefix("\(chat.rawValue)\t") })
        #expect(line.split(separator: "\t").last?.split(separator: ",").count == 10, "\(line)")
    }

    /// A listing reads the index's lines again in list order and mixes in the records
    /// changed since it was written: newest first, ties in id order, deleted ones only when
    /// asked, every title current.
    @Test func aListingMixesIndexLinesAndChangedRecordsNewestFirst() async throws {
        let dir = Scratch.makeDirectory("index-listing")
        defer { Scratch.removeDirectory(dir) }
        let store = try Scratch.makeStore(in: dir, "a")
        let ids = try await store.createMany(Self.chats(300, timesModulo: 7))
        // One record with a long journal line list: its index line is read in growing steps.
        for round in 0..<150 { _ = try await store.rename(ids[5], to: "chat 5 (\(round))") }
        try await store.finishImport()
        let index = try String(contentsOfFile: "\(store.root)/index/records.v2", encoding: .utf8)
        let longest = index.split(separator: "\n").first { $0.hasPrefix(ids[5].rawValue) }?.utf8.count ?? 0
        #expect(longest > 1024, "longer than the first read of a line: \(longest) bytes")
        // Changed since the index was written: renamed, deleted (kept in memory, not merged).
        _ = try await store.rename(ids[10], to: "renamed ten")
        _ = try await store.rename(ids[200], to: "renamed two hundred")
        _ = try await store.delete(ids[20])
        var titles = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, "chat \($0)") })
        titles[ids[10]] = "renamed ten"
        titles[ids[200]] = "renamed two hundred"
        titles[ids[5]] = "chat 5 (149)"
        for includeDeleted in [false, true] {
            let listing = try await store.listing(includeDeleted: includeDeleted)
            let listed = try listing.all
            #expect(listed.count == (includeDeleted ? 300 : 299) && listing.count == listed.count)
            #expect(Set(listed.map(\.id)).count == listed.count, "no record twice")
            #expect(listed.contains { $0.id == ids[20] } == includeDeleted)
            for (a, b) in zip(listed, listed.dropFirst()) {
                #expect(a.updated > b.updated || (a.updated == b.updated && a.id < b.id), "\(a.id) before \(b.id)")
            }
            for s in listed { #expect(s.title == titles[s.id], "\(s.id)") }
            let changed: Set<RecordID> = includeDeleted ? [ids[10], ids[200], ids[20]] : [ids[10], ids[200]]
            #expect(Set(listed.prefix(changed.count).map(\.id)) == changed, "the records changed last come first")
            #expect(throws: AISyncError.self) { _ = try listing.summary(at: listing.count) }
            // One at a time, as an app pages through a listing: the same summaries.
            for n in 0..<listing.count { #expect(try listing.summary(at: n) == listed[n], "record \(n)") }
        }
        let images = try await store.listing(kind: .image)
        #expect(images.count == 0)
    }

    /// A listing read in many batches, the next copied on another thread while one is handed
    /// over (`RecordListing.forEachEntry`), with summaries longer than a first read of the
    /// index reaches (`IndexBase.copySummaries`): the same records, the same JSON bytes.
    @Test("A listing read in batches gives what it gives in one, long summaries included")
    func aListingInBatches() async throws {
        let dir = Scratch.makeDirectory("index-batches")
        defer { Scratch.removeDirectory(dir) }
        let store = try Scratch.makeStore(in: dir, "a")
        var bodies = Self.chats(500, timesModulo: 11)
        // Titles of up to 1,000 characters, 1,776 bytes in the index (tabs, backslashes and
        // newlines escaped there; quotes and non-ASCII not), longer than what is read past a
        // line's start at first, among short ones.
        for n in [3, 250, 251, 499] {
            let title = String(repeating: "t\u{9}\"q\\é\n🙂 ", count: 111 - n % 4 * 10)
            let updated = Timestamp(milliseconds: 1_764_417_600_000 + Int64(n))
            bodies[n] = .chat(
                ChatBody(title: title, model: nil, created: Timestamp(milliseconds: Int64(n)), updated: updated))
        }
        let ids = try await store.createMany(bodies)
        try await store.finishImport()
        _ = try await store.rename(ids[7], to: "changed since the index was written")
        for includeDeleted in [false, true] {
            let listing = try await store.listing(includeDeleted: includeDeleted)
            let whole = try listing.all
            let json = try listing.jsonBytes()
            #expect(whole.count == 500)
            #expect(json == JSONValue.array(whole.map(\.json)).canonicalBytes + [10])
            for size in [1, 2, 7, 64, 499, 500, 501] {
                let batched = listing.reading(batchesOf: size)
                #expect(try batched.all == whole, "batches of \(size)")
                #expect(try batched.jsonBytes() == json, "batches of \(size)")
            }
        }
    }

    @Test("The radix sort orders by the bits asked for, equal keys as given")
    func radixSort() {
        var rng = SeededGenerator(seed: 64)
        for round in 0..<300 {
            let count = Int.random(in: 0...3_000, using: &rng)
            let low = Int.random(in: 0...63, using: &rng)
            let high = Int.random(in: low...64, using: &rng)
            // Keys whose bits in the range are few (many ties) or anything (the sign bit too).
            let narrow = Bool.random(using: &rng)
            let keys = (0..<count).map { _ in
                narrow
                    ? Int64.random(in: 0...5, using: &rng) << low | Int64.random(in: 0...255, using: &rng)
                    : Int64.random(in: .min ... .max, using: &rng)
            }
            func field(_ k: Int64) -> UInt64 {
                let width = high - low
                let shifted = UInt64(bitPattern: k) >> UInt64(low)
                return width == 64 ? shifted : shifted & (UInt64(1) << UInt64(width) - 1)
            }
            let expected = keys.indices.sorted {
                field(keys[$0]) != field(keys[$1]) ? field(keys[$0]) < field(keys[$1]) : $0 < $1
            }.map { keys[$0] }
            var sorted = keys
            RadixSort.sort(&sorted, by: low..<high)
            #expect(sorted == expected, "round \(round): \(count) keys by bits \(low)..<\(high)")
        }
    }
    /// `count` chats titled "chat N", changed at `timesModulo` different times (ties in list order).
    static func chats(_ count: Int, timesModulo: Int) -> [RecordBody] {
        let base = Timestamp(milliseconds: 1_764_417_600_000)
        return (0..<count).map { i in
            .chat(
                ChatBody(
                    title: "chat \(i)", model: nil, created: base,
                    updated: Timestamp(milliseconds: base.milliseconds + Int64(i % timesModulo))))
        }
    }

    /// A large listing reads the index on every core (`IndexBase.listKeys`): what it finds
    /// must be what the one-thread pass finds, however the file is cut.
    @Test("The listing pass in parts finds what the one-thread pass finds")
    func listKeysInParts() async throws {
        let dir = Scratch.makeDirectory("index-parts")
        defer { Scratch.removeDirectory(dir) }
        let store = try Scratch.makeStore(in: dir, "a")
        let ids = try await store.createMany(Self.chats(700, timesModulo: 13))
        for id in ids.prefix(40) { _ = try await store.delete(id) }
        try await store.finishImport()
        let index = try #require(IndexBase(path: "\(store.root)/index/records.v2"))
        let filters: [(RecordKind?, Bool)] = [(nil, false), (nil, true), (.chat, false), (.image, true)]
        for (kind, withDeleted) in filters {
            var expected: (times: [Int64], offsets: [UInt32]) = ([], [])
            try StoreSnapshot(base: index).forEachListed {
                (k: RecordKind, updated: Int64, deleted: Bool, at: StoreSnapshot.Listed) throws(AISyncError) in
                guard (withDeleted || !deleted) && (kind == nil || k == kind), case .line(let offset) = at else {
                    return
                }
                expected.times.append(updated)
                expected.offsets.append(UInt32(offset))
            }
            #expect(expected.times.count == (kind == .image ? 0 : withDeleted ? 700 : 660))
            for parts in 1...5 {
                let found = try index.listKeys(parts: parts) { (k: RecordKind, deleted: Bool) in
                    (withDeleted || !deleted) && (kind == nil || k == kind)
                }
                #expect(found.times == expected.times && found.offsets == expected.offsets, "\(parts) parts")
            }
        }
    }

    @Test("List order is newest first, ties in the order given, whether times fit sort keys or not")
    func listOrder() {
        var rng = SeededGenerator(seed: 21)
        for round in 0..<200 {
            let count = Int.random(in: 0...300, using: &rng)
            // Narrow spans (keys), some ties, and spans too wide for a key (compared instead).
            let spread: ClosedRange<Int64> =
                switch round % 4 {
                case 0: 0...5
                case 1: 1_700_000_000_000...1_800_000_000_000
                case 2: Int64.min...Int64.max
                default: -1...Int64.max / 2
                }
            var times = (0..<count).map { _ in Int64.random(in: spread, using: &rng) }
            let positions = (0..<count).map { _ in UInt32.random(in: 0...UInt32.max, using: &rng) }
            let expected = times.indices.sorted { times[$0] != times[$1] ? times[$0] > times[$1] : $0 < $1 }.map {
                positions[$0]
            }
            #expect(RecordListing.newestFirst(&times, positions: positions) == expected, "round \(round)")
        }
    }
    @Test("A listing's times are Timestamp's ISO 8601 bytes, the day kept from one to the next or not")
    func listTimes() {
        var rng = SeededGenerator(seed: 8601)
        var times = ISO8601Writer()
        let edges: [Int64] = [
            0, -1, 86_399_999, 86_400_000, 253_402_300_799_999, 253_402_300_800_000, -62_135_596_800_000,
            1_764_417_600_000, .max / 2, .min / 2,
        ]
        var values = edges
        for _ in 0..<5_000 {
            // Runs within a day (kept), jumps (not kept), and anything at all.
            let last = values[values.count - 1]
            values.append(
                [
                    last &+ Int64.random(in: 0...5_000, using: &rng),
                    Int64.random(in: 0...253_402_300_799_999, using: &rng),
                    Int64.random(in: -10_000_000_000_000...10_000_000_000_000, using: &rng),
                ][Int.random(in: 0...2, using: &rng)])
        }
        for ms in values {
            var expected: [UInt8] = []
            Timestamp(milliseconds: ms).writeISO8601(into: &expected)
            var written: [UInt8] = [1, 2]
            times.write(ms, into: &written)
            #expect(written == [1, 2] + expected, "\(ms)")
        }
    }
    @Test(
        "Index numbers are written as Swift prints them",
        arguments: [Int64(0), 7, 10, -1, -10, 1_764_417_600_000, .max, .min])
    func decimals(_ value: Int64) {
        var out: [UInt8] = [9]
        IndexFile.decimal(value, into: &out)
        #expect(out == [9] + Array(String(value).utf8))
    }

    /// How many changed records a bulk write holds before it writes the index (each write
    /// copies the whole index): 12,500 into an empty one (a pull of 10,000 chats into a new
    /// store writes it once), then half the records indexed, never under 5,000 nor over the cap.
    @Test func aBulkWriteHoldsMoreRecordsBeforeItsFirstIndexWrite() {
        #expect(Store.overlayLimit(indexed: 0, upTo: Store.bulkOverlayCap) == 12_500)
        #expect(Store.overlayLimit(indexed: 0, upTo: Store.rebuildOverlayCap) == 12_500)
        #expect(Store.overlayLimit(indexed: 1, upTo: Store.bulkOverlayCap) == 5_000)
        #expect(Store.overlayLimit(indexed: 12_500, upTo: Store.bulkOverlayCap) == 6_250)
        #expect(Store.overlayLimit(indexed: 1_000_000, upTo: Store.bulkOverlayCap) == 8_000)
        #expect(Store.overlayLimit(indexed: 1_000_000, upTo: Store.rebuildOverlayCap) == 12_500)
    }
}
