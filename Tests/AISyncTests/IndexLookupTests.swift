import Foundation
import Testing
@testable import AISyncCore
@testable import AISyncStore
import AISync

/// The index is searched in place (design §2 keeps it a cache): by sampled ids in memory, then
/// within one run of lines. Every record must be found and no other, whether the index was
/// just written by this process (its layout handed over) or read back from disk by another
/// (its layout rebuilt by the checking pass), and across merges of changed records into it.
@Suite("Index lookups")
struct IndexLookupTests {
    @Test func everyRecordIsFoundAndNoOtherAcrossManyRuns() async throws {
        let dir = SyncEngineTests.makeDirectory("index-lookup")
        defer { SyncEngineTests.removeDirectory(dir) }
        let writer = try SyncEngineTests.makeStore(in: dir, "a")
        let base = Timestamp(milliseconds: 1_764_417_600_000)
        // 1,000 records: 16 runs of 64 lines, more than one merge of changed records.
        let ids = try await writer.createMany((0..<1_000).map { i in
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
        let header = try String(contentsOfFile: "\(writer.root)/index/records.v2", encoding: .utf8).prefix { $0 != "\n" }
        #expect(header.split(separator: "\t")[8] == "1000", "\(header)")
    }

    /// A listing reads the index's lines again in list order and mixes in the records
    /// changed since it was written: newest first, ties in id order, deleted ones only when
    /// asked, every title current.
    @Test func aListingMixesIndexLinesAndChangedRecordsNewestFirst() async throws {
        let dir = SyncEngineTests.makeDirectory("index-listing")
        defer { SyncEngineTests.removeDirectory(dir) }
        let store = try SyncEngineTests.makeStore(in: dir, "a")
        let base = Timestamp(milliseconds: 1_764_417_600_000)
        let ids = try await store.createMany((0..<300).map { i in
            .chat(ChatBody(title: "chat \(i)", model: nil, created: base, updated: Timestamp(milliseconds: base.milliseconds + Int64(i % 7))))
        })
        try await store.finishImport()
        // Changed since the index was written: renamed, deleted (kept in memory, not merged).
        _ = try await store.rename(ids[10], to: "renamed ten")
        _ = try await store.rename(ids[200], to: "renamed two hundred")
        _ = try await store.delete(ids[20])
        var titles = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, "chat \($0)") })
        titles[ids[10]] = "renamed ten"
        titles[ids[200]] = "renamed two hundred"
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
        }
        let images = try await store.listing(kind: .image)
        #expect(images.count == 0)
    }
}
