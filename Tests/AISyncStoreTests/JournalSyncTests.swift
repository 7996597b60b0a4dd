import AISyncTestSupport
import Synchronization
import Testing

@testable import AISyncCore
@testable import AISyncStore

/// A pull appends a batch to the journal a piece at a time and makes it durable once, before
/// it returns (and so before the pull records the batch as merged), not once per piece.
@Suite("Journal durability of a pulled batch")
struct JournalSyncTests {
    final class Count: Sendable {
        let value = Atomic<Int>(0)
    }

    @Test("A batch merged in pieces is fsynced once, when it is all in; one with nothing new is fsynced too")
    func aBatchIsSyncedOnceAtItsEnd() async throws {
        let dir = Scratch.makeDirectory("journal-sync")
        defer { Scratch.removeDirectory(dir) }
        let syncs = Count()
        var environment = Scratch.environment()
        environment.journalSynced = { syncs.value.add(1, ordering: .relaxed) }
        let store = try Store.create(at: "\(dir)/s", deviceName: "s", environment: environment)
        let device = try #require(DeviceID(String(repeating: "7", count: 32)))
        let count = 2 * Store.integratePiece + 500  // three pieces
        var entries: [Segment.Entry] = []
        for n in 0..<count {
            let v = Version(
                record: try #require(RecordID("chat-sync-\(n)")), kind: .chat,
                clock: VectorClock().incremented(for: device),
                time: HybridLogicalTime(wall: 1_764_417_600_000 + Int64(n)), device: device,
                ops: [.set(field: "title", value: .inline(.string("chat \(n)")))])
            entries.append(Segment.Entry(version: v))
        }
        let before = syncs.value.load(ordering: .relaxed)
        let result = try await store.integrate(entries, expectedEnd: nil, streaming: true)
        #expect(result.applied == count)
        #expect(syncs.value.load(ordering: .relaxed) - before == 1)
        // Nothing new, and still a sync: those lines may have been appended by an earlier
        // call that failed before its own, and the caller is about to record them as merged.
        let again = try await store.integrate(entries, expectedEnd: nil, streaming: true)
        #expect(again.applied == 0)
        #expect(syncs.value.load(ordering: .relaxed) - before == 2)
        try await store.flushIndex()
        // Every line is in the journal, read back by a store opened afresh.
        let reopened = try Store.open(at: "\(dir)/s", environment: environment)
        #expect(try await reopened.list(includeDeleted: true).count == count)
    }
}
