import AISyncTestSupport
import Testing

import class Foundation.FileManager

@testable import AISyncCore
@testable import AISyncStore

/// A record new to the store is listed from its one version without folding a state
/// (``RecordState/Single``); a second version of it in the same batch, or in a later one,
/// folds both. Whatever the mix, every summary must be the one the full fold of the record's
/// versions gives, in the store that took them in, read back from disk, and rebuilt from the
/// journal alone.
@Suite("Summaries of records new to the store")
struct SingleVersionSummaryTests {
    static let devices = ["1", "2"].map { DeviceID(String(repeating: $0, count: 32))! }

    /// Operations a chat's version may carry: renames, stars, dates, messages, deletion.
    static func ops(_ rng: inout SeededGenerator, first: Bool) -> [Operation] {
        var ops: [Operation] = []
        if first || Bool.random(using: &rng) {
            ops.append(.set(field: "title", value: .inline(.string("chat \(Int.random(in: 0..<99, using: &rng))"))))
        }
        if Int.random(in: 0..<3, using: &rng) == 0 {
            ops.append(.set(field: "favorite", value: .inline(.bool(Bool.random(using: &rng)))))
        }
        if first, Bool.random(using: &rng) {
            ops.append(.set(field: "created", value: .inline(.string("2023-11-14T09:30:00.000Z"))))
        }
        if Int.random(in: 0..<4, using: &rng) == 0 {
            ops.append(
                .set(
                    field: "activity",
                    value: .inline(.string("2024-02-0\(Int.random(in: 1...9, using: &rng))T10:00:00.000Z"))))
        }
        for m in (0..<4).shuffled(using: &rng).prefix(Int.random(in: 0...3, using: &rng)) {
            let message: JSONObject = [
                "role": .string("user"), "text": .string("hello \(Int.random(in: 0..<9, using: &rng))"),
                "time": .string("2024-01-01T00:00:00.000Z"),
            ]
            ops.append(.add(field: "messages", element: "m-\(m)", value: .inline(.object(message))))
        }
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: ops.append(.delete)
        case 1: ops.append(.restore)
        default: break
        }
        if ops.isEmpty { ops.append(.restore) }
        return ops
    }

    @Test("Pulled in pieces, read back and rebuilt, every summary is the full fold's")
    func everySummaryIsTheFullFolds() async throws {
        let dir = Scratch.makeDirectory("single-version-summary")
        defer { Scratch.removeDirectory(dir) }
        let store = try Scratch.makeStore(in: dir, "b")
        var rng = SeededGenerator(seed: 1431)
        var versions: [RecordID: [(Version, [Operation])]] = [:]
        var entries: [Segment.Entry] = []
        // 1,500 chats; most with one version, some with up to four from two devices (some
        // concurrent, so some conflicts), each one's versions spread over the batch.
        for n in 0..<1_500 {
            let id = try #require(RecordID("chat-single-\(n)"))
            let count = Int.random(in: 0..<3, using: &rng) == 0 ? Int.random(in: 2...4, using: &rng) : 1
            var clock = VectorClock()
            for k in 0..<count {
                let device = Self.devices[k > 0 && Bool.random(using: &rng) ? 1 : 0]
                let base = k > 1 && Bool.random(using: &rng) ? VectorClock() : clock  // concurrent with the rest
                let ops = Self.ops(&rng, first: k == 0)
                let v = Version(
                    record: id, kind: .chat, clock: base.incremented(for: device),
                    time: HybridLogicalTime(wall: 1_764_417_600_000 + Int64(n * 10 + k)), device: device, ops: ops)
                clock = clock.joined(with: v.clock)
                versions[id, default: []].append((v, ops))
                entries.append(Segment.Entry(version: v))
            }
        }
        entries.shuffle(using: &rng)
        // A duplicate of a version met in the same batch changes nothing.
        entries.insert(entries[7], at: 300)
        // Two batches, each taken in pieces of a thousand: a record's versions are met in the
        // same piece, in another piece, and in another batch.
        let half = entries.count / 2
        _ = try await store.integrate(Array(entries[..<half]), expectedEnd: nil, streaming: true)
        _ = try await store.integrate(Array(entries[half...]), expectedEnd: nil, streaming: true)
        try await store.flushIndex()

        let reader = await store.reader
        var expected: [RecordID: RecordSummary] = [:]
        for (id, list) in versions {
            expected[id] = RecordSummary.make(id: id, state: RecordState(kind: .chat, list), reader: reader)
        }
        let summaries = Array(expected.values)
        #expect(
            summaries.contains { $0.conflict } && summaries.contains { $0.deleted }
                && summaries.contains { $0.favorite })
        func check(_ store: Store, _ what: String) async throws {
            let listed = try await store.list(includeDeleted: true)
            #expect(listed.count == expected.count, "\(what)")
            for summary in listed { #expect(summary == expected[summary.id], "\(what): \(summary.id)") }
        }
        try await check(store, "as pulled")
        try await check(try Store.open(at: store.root), "read back")
        try FileManager.default.removeItem(atPath: "\(store.root)/index")
        try await check(try Store.open(at: store.root), "rebuilt from the journal")
    }
}
