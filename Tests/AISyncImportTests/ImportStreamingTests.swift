import AISyncTestSupport
import AISyncTesting
import Foundation
import Synchronization
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncImport

// Big exports are read element by element (JSONArrayReader) and written in slices: the
// elements found must be exactly the parser's, across any chunk boundary, and a sliced
// import must give the same result as a whole one.

@Suite("Import: streaming")
struct ImportStreamingTests {
    static func elements(_ text: String, chunkSize: Int) throws(AISyncError) -> [JSONValue]? {
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        let path = "\(dir)/a.json"
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        guard var reader = try JSONArrayReader(path: path, chunkSize: chunkSize) else { return nil }
        var out: [JSONValue] = []
        while let element = try reader.next() { out.append(try ImportInput.parse(Array(element), path: path)) }
        // Parsed where they lie in the chunk (falling back to the scan above across a chunk's
        // end): the same elements, and the same byte counts.
        guard var inPlace = try JSONArrayReader(path: path, chunkSize: chunkSize) else { return nil }
        let (values, _) = try inPlace.nextValues(upTo: .max) { (bytes) throws(AISyncError) in
            try ImportInput.parse(bytes, path: path)
        }
        #expect(values == out, "in place, chunk \(chunkSize)")
        // And parsed into a tape (ChatGPT's batches): the same values again.
        guard var taped = try JSONArrayReader(path: path, chunkSize: chunkSize) else { return nil }
        var tape = JSONTape.Builder()
        _ = try taped.nextValues(upTo: .max, into: &tape) { (bytes, tape) throws(AISyncError) in
            try ImportInput.parse(bytes, path: path, into: &tape)
        }
        #expect(
            tape.finish().values.map(\.canonicalBytes) == out.map(\.canonicalBytes), "into a tape, chunk \(chunkSize)")
        return out
    }

    /// What is wrong in a list is reported alike by the reader that parses in place.
    @Test(arguments: [
        #"[1 2]"#, #"[{"a":1}}]"#, #"[{"a":1},]"#, #"[{"a":1},{"b":"#, #"[1,,2]"#, #"[1]x"#, #"[{"a":1 "b":2}]"#,
    ])
    func damagedListsFailAlikeInPlace(text: String) throws {
        for chunkSize in [1, 4, 64] {
            let dir = CLIHarness.makeTemporaryDirectory()
            defer { CLIHarness.removeTree(dir) }
            let path = "\(dir)/a.json"
            _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
            func failure(_ read: (inout JSONArrayReader) throws(AISyncError) -> Void) -> String? {
                do {
                    guard var reader = try JSONArrayReader(path: path, chunkSize: chunkSize) else {
                        return "not a list"
                    }
                    try read(&reader)
                    return nil
                } catch { return "\(error.message): \(error.cause ?? "")" }
            }
            let scanned = failure { (r) throws(AISyncError) in
                while let e = try r.next() { _ = try ImportInput.parse(Array(e), path: path) }
            }
            let inPlace = failure { (r) throws(AISyncError) in
                _ = try r.nextValues(upTo: .max) { (b) throws(AISyncError) in try ImportInput.parse(b, path: path) }
            }
            let taped = failure { (r) throws(AISyncError) in
                var tape = JSONTape.Builder()
                _ = try r.nextValues(upTo: .max, into: &tape) { (b, tape) throws(AISyncError) in
                    try ImportInput.parse(b, path: path, into: &tape)
                }
            }
            #expect(scanned != nil, "\(text) accepted")
            #expect(inPlace == scanned, "\(text), chunk \(chunkSize)")
            #expect(taped == scanned, "into a tape: \(text), chunk \(chunkSize)")
        }
    }

    static let tricky = #" [ {"a": "x,]}\"[{", "b": [1, [2, {"c": "\\"}]]}, "s\"t]", 3.5 , null, [], {} , "é,ü" ]  "#

    @Test(arguments: [1, 2, 3, 7, 64, 1 << 20])
    func elementsAreThoseOfTheWholeDocument(chunkSize: Int) throws {
        let whole = try JSONParser.parse(Self.tricky)
        #expect(try Self.elements(Self.tricky, chunkSize: chunkSize) == whole.arrayValue)
        #expect(try Self.elements(" []\n", chunkSize: chunkSize) == [])
    }

    /// Strings are skipped eight bytes at a time: quotes, escaped quotes and backslashes at
    /// every offset within a word, across chunk boundaries, must end elements where the parser does.
    @Test(arguments: 0..<24)
    func wordAtATimeStringSkippingAgreesWithTheParser(seed: Int) throws {
        var rng = SplitMix64(seed: UInt64(seed) &* 7919 &+ 1)
        let pieces = ["a", "bcdefgh", "\\\"", "\\\\", "]", "}", ",", "[", "{", "é", "\\n", " "]
        var items: [String] = []
        for _ in 0..<Int.random(in: 1...12, using: &rng) {
            let text = (0..<Int.random(in: 0...30, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }
                .joined()
            items.append(Bool.random(using: &rng) ? "\"\(text)\"" : "{\"k\": [\"\(text)\", {\"x\": \"\(text)\"}]}")
        }
        let document = "[" + items.joined(separator: ", ") + "]"
        let whole = try JSONParser.parse(document)
        for chunk in [1, 3, 8, 9, 17, 64] {
            #expect(try Self.elements(document, chunkSize: chunk) == whole.arrayValue, "chunk \(chunk): \(document)")
        }
    }

    @Test func aDocumentThatIsNotAListIsReadWhole() throws {
        #expect(try Self.elements(#"{"story": []}"#, chunkSize: 4) == nil)
    }

    @Test(arguments: ["[1,,2]", "[1,]", "[1] x", "[", "[1, 2", "[1 2]", "[{\"a\": 1]"])
    func badListsAreErrors(text: String) {
        #expect(throws: AISyncError.self) { _ = try Self.elements(text, chunkSize: 3) }
    }

    @Test func aSlicedImportEqualsAWholeOne() async throws {
        let (sliced, dir) = try ImportFixture.store()
        defer { CLIHarness.removeTree(dir) }
        let s = try #require(
            try await Import.runStreaming(
                nil, path: ImportFixture.path("chatgpt"), into: sliced, options: Import.Options(),
                batchBytes: 1, chunkSize: 5))
        #expect(s.source == .chatgpt && s.created == 4 && s.elementsAdded == 18 && s.skipped.count == 1)
        let whole = try Import.parse(nil, path: ImportFixture.path("chatgpt"), now: ImportFixture.now).1
        #expect(s.records.map(\.id) == whole.items.map(\.item.id))
        for item in whole.items {
            #expect(
                try await sliced.record(item.item.id).body
                    == item.item.body.with(updated: try await sliced.record(item.item.id).body))
        }
        let again = try #require(
            try await Import.runStreaming(
                nil, path: ImportFixture.path("chatgpt-newer"), into: sliced,
                options: Import.Options(), batchBytes: 1, chunkSize: 3))
        #expect(again.created == 1 && again.extended == 1 && again.elementsAdded == 4)
    }

    /// A ChatGPT conversation numbered `n`: a question and an answer, or (every fifth) 400
    /// turns, so batches take unequal times to convert and finish out of order.
    static func conversation(_ n: Int) -> String {
        let t = 1_700_000_000 + n * 60
        let turns = n % 5 == 0 ? 400 : 2
        var nodes = [#""root": {"id": "root", "message": null, "parent": null, "children": ["m0"]}"#]
        for k in 0..<turns {
            let role = k % 2 == 0 ? "user" : "assistant"
            let parent = k == 0 ? "root" : "m\(k - 1)"
            let children = k == turns - 1 ? "" : #""m\#(k + 1)""#
            nodes.append(
                #""m\#(k)": {"id": "m\#(k)", "message": {"id": "m\#(k)", "author": {"role": "\#(role)"}, "create_time": \#(t + k), "content": {"content_type": "text", "parts": ["turn \#(k) of \#(n)"]}}, "parent": "\#(parent)", "children": [\#(children)]}"#
            )
        }
        return
            #"{"id": "conv-\#(n)", "title": "chat \#(n)", "create_time": \#(t), "update_time": \#(t + 30), "current_node": "m\#(turns - 1)", "mapping": {\#(nodes.joined(separator: ", "))}}"#
    }

    /// Batches convert on several tasks at once and are written in the order they were read:
    /// 400 conversations one batch each come out in file order, and a damaged one in the
    /// middle stops the import right there, every conversation before it imported and none
    /// after.
    @Test func batchesConvertedAtOnceAreWrittenInFileOrderAndStopAtTheFirstError() async throws {
        let (store, dir) = try ImportFixture.store()
        defer { CLIHarness.removeTree(dir) }
        let path = "\(dir)/many.json"
        let all = (0..<400).map(Self.conversation)
        try Data(("[" + all.joined(separator: ",\n") + "]").utf8).write(to: URL(fileURLWithPath: path))
        let summary = try #require(
            try await Import.runStreaming(nil, path: path, into: store, options: Import.Options(), batchBytes: 1))
        #expect(summary.records.map(\.title) == (0..<400).map { "chat \($0)" })
        #expect(summary.created == 400)

        let (other, otherDir) = try ImportFixture.store()
        defer { CLIHarness.removeTree(otherDir) }
        var damaged = all
        damaged[250] = #"{"id": "conv-250", "title": "chat 250", "mapping": {"root": }"#
        try Data(("[" + damaged.joined(separator: ",\n") + "]").utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try await Import.runStreaming(nil, path: path, into: other, options: Import.Options(), batchBytes: 1)
            Issue.record("a damaged conversation was accepted")
        } catch {
            #expect(error.message.contains("the 250 records before it were imported"), "\(error)")
        }
        let titles = try await other.list().map(\.title)
        #expect(Set(titles) == Set((0..<250).map { "chat \($0)" }), "\(titles.count) imported")
    }

    /// An import cancelled part-way says so: it never returns as if the whole file were in.
    @Test func aCancelledImportIsAnErrorNotASummary() async throws {
        let (store, dir) = try ImportFixture.store()
        defer { CLIHarness.removeTree(dir) }
        let path = "\(dir)/many.json"
        try Data(("[" + (0..<400).map(Self.conversation).joined(separator: ",\n") + "]").utf8)
            .write(to: URL(fileURLWithPath: path))
        let task = Task {
            try await Import.runStreaming(nil, path: path, into: store, options: Import.Options(), batchBytes: 1)
        }
        task.cancel()
        await #expect(throws: AISyncError.self) { _ = try await task.value }
        #expect(try await store.list().count < 400)
    }

    @Test func progressGoesForwardToTheWholeFileAndTheIndexIsSavedAtTheEnd() async throws {
        let (store, dir) = try ImportFixture.store()
        defer { CLIHarness.removeTree(dir) }
        let seen = Mutex<[ImportProgress]>([])
        let options = Import.Options(progress: { p in seen.withLock { $0.append(p) } })
        let path = ImportFixture.path("chatgpt/conversations.json")
        let summary = try #require(
            try await Import.runStreaming(nil, path: path, into: store, options: options, batchBytes: 1, chunkSize: 7))
        let reports = seen.withLock { $0 }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(
            reports.count == 6, "one report per batch of one conversation, and one at the end of the file: \(reports)")
        #expect(
            zip(reports, reports.dropFirst()).allSatisfy { $0.bytesDone <= $1.bytesDone && $0.records <= $1.records })
        #expect(reports.allSatisfy { $0.totalBytes == Int64(size) })
        #expect(
            reports.last?.bytesDone == Int64(size) && reports.last?.fraction == 1
                && reports.last?.records == summary.records.count)
        // The index was deferred during the batches and written once at the end: it covers the whole journal.
        let index = try #require(
            FileManager.default.contents(atPath: "\(dir)/store/index/records.v2").map {
                String(decoding: $0, as: UTF8.self)
            })
        let journalSize = try #require(
            try FileManager.default.attributesOfItem(atPath: "\(dir)/store/journal.jsonl")[.size] as? Int)
        #expect(
            index.split(separator: "\n").first?.split(separator: "\t").dropFirst(2).first
                == Substring(String(journalSize)), "\(index.prefix(200))")
    }

    @Test func aFileCutOffLaterKeepsTheWholeConversationsBeforeTheCutAndSaysSo() async throws {
        let (store, dir) = try ImportFixture.store()
        defer { CLIHarness.removeTree(dir) }
        let bytes = try FileIO.read(ImportFixture.path("chatgpt/conversations.json"))
        let cut = "\(dir)/cut.json"
        _ = FileManager.default.createFile(atPath: cut, contents: Data(bytes.prefix(bytes.count * 9 / 10)))
        do {
            _ = try await Import.runStreaming(nil, path: cut, into: store, options: Import.Options(), batchBytes: 1)
            Issue.record("a cut-off file was accepted")
        } catch {
            #expect(error.code == .damagedData && error.message.contains("records before it were imported"), "\(error)")
        }
        let kept = try await store.list()
        #expect(!kept.isEmpty && kept.count < 4)
        #expect(try await store.conflictCount() == 0)
    }
}

extension RecordBody {
    /// This body with `updated` taken from `other` (the store sets it to the latest version's time).
    fileprivate func with(updated other: RecordBody?) -> RecordBody {
        guard case .chat(var mine) = self, case .chat(let theirs)? = other else { return self }
        mine.updated = theirs.updated
        return .chat(mine)
    }
}
