import AISyncTestSupport
import Testing

@testable import AISyncCore

/// ``RecordState/Single`` reads what a summary needs from one version's operations, without
/// folding a state: for every version it must answer as the state folded from that version
/// alone does (the store lists records new to it from it, docs/PERFORMANCE.md 3.14).
@Suite("A record's summary from its one version")
struct RecordStateSingleTests {
    static let device = DeviceID(String(repeating: "7", count: 32))!
    static let fields = ["title", "favorite", "created", "activity", "model", "instructions", "deleted", "moral"]
    static let times = [
        "2023-11-14T09:30:00.000Z", "2023-11-14T09:30:00Z", "1970-01-01T00:00:00.000Z", "2099-01-01T00:00:00.000Z",
        "not a time", "",
    ]

    /// A random value for `field`: the usual kind of value, or another one.
    static func value(_ field: String, _ rng: inout SeededGenerator) -> FieldValue {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: return .object(SHA256.hash(Array("\(field) \(Int.random(in: 0..<4, using: &rng))".utf8)))
        case 1: return .inline(.null)
        case 2: return .inline(.int(Int64.random(in: -3...3, using: &rng)))
        case 3: return .inline(.bool(Bool.random(using: &rng)))
        default:
            switch field {
            case "favorite", "deleted": return .inline(.bool(Bool.random(using: &rng)))
            case "created", "activity": return .inline(.string(times.randomElement(using: &rng)!))
            default:
                return .inline(
                    .string(
                        ["a chat", "", "é 🐉", "title \(Int.random(in: 0..<9, using: &rng))"].randomElement(using: &rng)!
                    ))
            }
        }
    }

    /// Operations of every sort, fields set twice, delete and restore in any order, none at all.
    static func ops(_ rng: inout SeededGenerator) -> [Operation] {
        var ops: [Operation] = []
        for _ in 0..<Int.random(in: 0...7, using: &rng) {
            let field = fields.randomElement(using: &rng)!
            let element = "m-\(Int.random(in: 0..<3, using: &rng))"
            switch Int.random(in: 0..<9, using: &rng) {
            case 0...3: ops.append(.set(field: field, value: value(field, &rng)))
            case 4: ops.append(.add(field: "messages", element: element, value: value("text", &rng)))
            case 5: ops.append(.edit(field: "messages", element: element, value: value("text", &rng)))
            case 6: ops.append(.remove(field: "messages", element: element))
            case 7: ops.append(.delete)
            default: ops.append(.restore)
            }
        }
        if Int.random(in: 0..<8, using: &rng) == 0 {
            ops = (0..<Int.random(in: 1...2, using: &rng)).map { _ in
                .set(field: "favorite", value: .inline(.bool(true)))
            }
        }
        return ops
    }

    @Test("Every field, the title, favorite, created, updated and deleted read as from the folded state")
    func answersAsTheFoldedState() throws {
        var rng = SeededGenerator(seed: 2612)
        let resolved: [SHA256Digest: JSONValue] = Dictionary(
            uniqueKeysWithValues: (0..<4).map { n in
                (SHA256.hash(Array("title \(n)".utf8)), n == 3 ? JSONValue.int(5) : .string("a long title \(n)"))
            })
        let resolve: RecordState.Resolver = { (d: SHA256Digest) throws(AISyncError) -> JSONValue in
            guard let v = resolved[d] else { throw AISyncError(.damagedData, "no object \(d.hex)") }
            return v
        }
        var deleted = 0
        var favorites = 0
        var fromActivity = 0
        for n in 0..<5_000 {
            let ops = Self.ops(&rng)
            let wall = Int64.random(in: 1_600_000_000_000...1_800_000_000_000, using: &rng)
            let version = Version(
                record: RecordID("chat-\(n)")!, kind: .chat, clock: VectorClock([Self.device: 1]),
                time: HybridLogicalTime(wall: wall, counter: Int64.random(in: 0...2, using: &rng)),
                device: Self.device, ops: ops)
            let state = RecordState(kind: .chat, [(version, ops)])
            let single = RecordState.Single(version, ops: ops)
            let context = "\(ops)"
            for field in Self.fields + ["messages", "unknown"] {
                #expect(single.value(field) == state.value(field), "\(field): \(context)")
            }
            #expect(single.isDeleted == state.isDeleted, "\(context)")
            #expect(single.favorite == state.favorite, "\(context)")
            #expect(single.created == state.created, "\(context)")
            let updated = (state.contentTime == .zero ? state.latestTime : state.contentTime).timestamp
            #expect(single.updated == updated, "\(context)")
            #expect((try? single.title(resolve)) == (try? state.title(resolve)), "\(context)")
            #expect(!state.isConflict && !state.damaged, "one version alone is never a conflict: \(context)")
            if state.isDeleted { deleted += 1 }
            if state.favorite { favorites += 1 }
            if updated != version.time.timestamp { fromActivity += 1 }
        }
        // The cases that differ from the plain reading were all met.
        #expect(deleted > 300 && favorites > 300 && fromActivity > 20, "\(deleted) \(favorites) \(fromActivity)")
    }
}
