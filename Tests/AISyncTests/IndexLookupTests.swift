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
}
