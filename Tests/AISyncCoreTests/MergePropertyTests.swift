import AISyncTestSupport
import Testing

import class Foundation.ProcessInfo  // only this: Foundation has its own `Operation`

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncTesting

// Property tests for records v2 (docs/DESIGN.md §3.5): a version carries operations and every field
// merges on its own (multi-value registers, an add-wins observed-remove set of elements, and
// the `deleted` register every version writes).
//
// Random histories: 3–5 devices with skewed wall clocks and their own HLCs edit one chat (and
// sometimes a story) and now and then pull random subsets of the other devices' versions, as
// sync would. What RecordState makes of them is checked against a brute-force reference model
// written straight from the definitions, which does not use RecordState nor VectorClock's
// order helpers.
//
// Every run uses a fresh base seed, so each run explores new histories; every failure message
// names the base seed and the history, and `AISYNC_MERGE_SEED=<seed>` replays the run exactly.

// MARK: - Seeds

/// The run's base seed: fresh on every run, or `AISYNC_MERGE_SEED` (decimal or 0x-hex) to
/// replay a failing run. Every history and every shuffle of the run is derived from it.
private enum MergeSeed {
    static let environment = ProcessInfo.processInfo.environment["AISYNC_MERGE_SEED"]
    static let base: UInt64 = environment.flatMap(parse) ?? UInt64.random(in: 1...UInt64.max)

    static func parse(_ text: String) -> UInt64? {
        let t = text.filter { !$0.isWhitespace }.lowercased()
        return t.hasPrefix("0x") ? UInt64(t.dropFirst(2), radix: 16) : UInt64(t)
    }

    static var replay: String { "replay: AISYNC_MERGE_SEED=\(base) swift test --filter MergeProperty" }

    /// The seed of history `index`: the base seed scrambled with the index (SplitMix64 output),
    /// so neighbouring histories are unrelated.
    static func history(_ index: Int) -> UInt64 {
        var g = SeededGenerator(seed: base ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        return g.next()
    }
}

/// Each property test checks its own histories, in `groups` groups: each group is one
/// parameterized test case (cores run groups in parallel), so a failing case names its group,
/// and every message names the history and the seeds.
///
/// Sizes are set by time: in a debug build a version costs ~0.25 ms to make (its id is the
/// SHA-256 of its canonical JSON, unoptimized), most of the cost of a history; 1,000 histories
/// of 20–26 versions take ~12.5 s of CPU, ~6.5 s on 2 idle cores (the debug runtime's metadata
/// locks keep two threads from quite doubling the speed).
private enum PropertyTest: Int, CaseIterable {
    case convergence, partialKnowledge, orderIndependence, concurrentEdits, resolution, vacuity, compaction

    var perGroup: Int {
        switch self {
        case .convergence: 20
        case .partialKnowledge, .orderIndependence, .concurrentEdits, .resolution, .compaction: 15
        case .vacuity: 20
        }
    }
    /// History indices are disjoint between tests.
    var firstIndex: Int { rawValue * 100_000 }
    var count: Int { perGroup * groups.count }
}

private let groups = Array(0..<10)
private let versionsPerHistory = 20...26
/// Histories a run checks, over all property tests.
private let historyCount = PropertyTest.allCases.map(\.count).reduce(0, +)

extension SeededGenerator {
    fileprivate mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }

    fileprivate mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &self)] }

    /// A random subset (each item kept with probability `p`), shuffled.
    fileprivate mutating func subset<T>(of items: [T], p: Double) -> [T] {
        var out = items.filter { _ in chance(p) }
        out.shuffle(using: &self)
        return out
    }

    fileprivate mutating func deviceID() -> DeviceID {
        let hex = Array("0123456789abcdef")
        return DeviceID(String((0..<32).map { _ in hex[Int.random(in: 0..<16, using: &self)] }))!
    }
}

// MARK: - Clock order, straight from the counters

/// `a ≤ b` component-wise. The tests compare clocks with these (and the reference model with
/// its own counter arrays), never with VectorClock's helpers, so a mistake there cannot hide
/// on both sides of a comparison.
private func clockLE(_ a: VectorClock, _ b: VectorClock) -> Bool {
    a.counters.allSatisfy { key, value in (b.counters[key] ?? 0) >= value }
}

private func clockConcurrent(_ a: VectorClock, _ b: VectorClock) -> Bool { !clockLE(a, b) && !clockLE(b, a) }

/// Last-writer-wins key: HLC, then device id, then version id (docs/DESIGN.md §3.5).
private func lwwKey(_ v: Version) -> (Int64, Int64, String, String) {
    (v.time.wall, v.time.counter, v.device.rawValue, v.id.hex)
}

private func collectionName(_ kind: RecordKind) -> String { kind == .chat ? "messages" : "pages" }

// MARK: - Random histories

private struct SimDevice {
    let id: DeviceID
    /// How wrong this device's wall clock is (ms).
    let skew: Int64
    var hlc = HybridLogicalTime.zero
    var states: [RecordID: RecordState] = [:]
    /// Whether it has version `i` of the history (a cheap mirror of `states`).
    var knows: [Bool] = []
}

/// Counts that show what a history exercised (see `historiesAreNotVacuous`).
private struct HistoryStats: Sendable {
    var deletes = 0, restores = 0, objectValues = 0, outOfOrderDeliveries = 0, duplicateDeliveries = 0
}

private struct MergeHistory: Sendable {
    let index: Int
    let seed: UInt64
    let devices: [DeviceID]
    /// Record ids in a fixed order, with their kinds.
    let records: [RecordID]
    let kinds: [RecordID: RecordKind]
    /// Every version ever written, in creation order.
    let versions: [Version]
    /// What each device knew at the end (partial: not everything was pulled).
    let deviceStates: [[RecordID: RecordState]]
    /// Values the versions keep as objects (large values), by digest.
    let objects: [SHA256Digest: JSONValue]
    /// Invariants the generator saw broken while it ran (must be empty).
    let issues: [String]
    let stats: HistoryStats

    var tag: String {
        "history #\(index) (seed \(String(seed, radix: 16))) of base seed \(MergeSeed.base); \(MergeSeed.replay)"
    }

    func versions(of record: RecordID) -> [Version] { versions.filter { $0.record == record } }

    /// `v7` for the 8th version written: short, stable names for failure messages.
    let names: [SHA256Digest: String]

    var namer: Namer {
        let names = self.names
        return { names[$0] ?? String($0.hex.prefix(8)) }
    }
}

private typealias Namer = @Sendable (SHA256Digest) -> String

private func resolver(_ objects: [SHA256Digest: JSONValue]) -> RecordState.Resolver {
    { (d: SHA256Digest) throws(AISyncError) -> JSONValue in
        guard let v = objects[d] else { throw .damaged("no object \(d.hex)") }
        return v
    }
}

/// Builds one history: every random choice comes from `rng`, and dictionaries are only ever
/// iterated sorted, so a seed gives the same history in every process.
private struct HistoryBuilder {
    var rng: SeededGenerator
    var devices: [SimDevice] = []
    var records: [RecordID] = []
    var kinds: [RecordID: RecordKind] = [:]
    var versions: [Version] = []
    /// Each version's clock as counters in `devices` order (for cheap order checks).
    var counters: [[Int64]] = []
    var objects: [SHA256Digest: JSONValue] = [:]
    var issues: [String] = []
    var stats = HistoryStats()
    var physical: Int64 = 1_764_417_600_000
    var nextElement = 1

    static let titles = ["Plans", "Trip to Lisbon", "Notes"]
    static let texts = ["hi", "hello", "see you", "ok"]
    static let models: [JSONValue] = [.string("gpt-4o"), .string("gpt-4o-mini"), .null]
    static let morals: [JSONValue] = [.string("Be kind"), .string("Share"), .null]
    static let prompts: [JSONValue] = [
        .array([.string("a fox")]), .array([.string("a fox"), .string("a moon")]), .array([]),
    ]

    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    /// Small values too, now and then, go to an object: the same content inline on one device
    /// and as an object on another must still count as one value.
    mutating func stored(_ json: JSONValue) -> FieldValue {
        guard rng.chance(0.15) else { return .inline(json) }
        let d = SHA256.hash(json.canonicalBytes)
        objects[d] = json
        stats.objectValues += 1
        return .object(d)
    }

    func content(_ v: FieldValue) -> JSONValue {
        switch v {
        case .inline(let j): j
        case .object(let d): objects[d]!
        }
    }

    mutating func freshElement(_ kind: RecordKind) -> String {
        defer { nextElement += 1 }
        return kind == .chat ? "m-\(nextElement)" : "p-\(nextElement)"
    }

    mutating func elementValue(_ kind: RecordKind, now: Int64) -> JSONValue {
        switch kind {
        case .chat:
            ChatBody.Message(
                id: "m", role: rng.pick(ChatBody.Role.allCases), text: rng.pick(Self.texts),
                time: Timestamp(milliseconds: now)
            ).elementJSON
        default:
            StoryBody.Page(id: "p", position: Int64.random(in: 1...4, using: &rng), text: rng.pick(Self.texts))
                .elementJSON
        }
    }

    /// An edit keeps the message's role and time (a page may move): only the text changes,
    /// to a value from a small pool, so concurrent edits often agree.
    mutating func edited(_ current: JSONValue, kind: RecordKind) -> JSONValue {
        guard case .object(var o) = current else { return current }
        o["text"] = .string(rng.pick(Self.texts))
        if kind == .story && rng.chance(0.3) { o["n"] = .int(Int64.random(in: 1...4, using: &rng)) }
        return .object(o)
    }

    mutating func creation(_ kind: RecordKind, now: Int64) -> [Operation] {
        let c = collectionName(kind)
        var ops: [Operation] = [.set(field: "title", value: stored(.string(rng.pick(Self.titles))))]
        if kind == .chat {
            ops.append(.set(field: "model", value: .inline(rng.pick(Self.models))))
        } else {
            ops.append(.set(field: "moral", value: .inline(rng.pick(Self.morals))))
            ops.append(.set(field: "prompts", value: .inline(rng.pick(Self.prompts))))
        }
        ops.append(.set(field: "favorite", value: .inline(.bool(rng.chance(0.5)))))
        ops.append(.set(field: "created", value: .inline(.string(Timestamp(milliseconds: now).iso8601))))
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let value = elementValue(kind, now: now)
            ops.append(.add(field: c, element: freshElement(kind), value: stored(value)))
        }
        return ops
    }

    /// A random edit of what `state` shows: 1–3 operations on distinct fields and elements,
    /// or a delete, or a restore. Only operations valid for the kind.
    mutating func localOps(_ state: RecordState, now: Int64) -> [Operation] {
        let kind = state.kind
        let c = collectionName(kind)
        if rng.chance(0.08) {
            stats.deletes += 1
            guard rng.chance(0.25) else { return [.delete] }
            let title = Operation.set(field: "title", value: stored(.string(rng.pick(Self.titles))))
            return rng.chance(0.5) ? [title, .delete] : [.delete, title]
        }
        var ops: [Operation] = []
        if state.isDeleted ? rng.chance(0.6) : rng.chance(0.02) {
            stats.restores += 1
            ops.append(.restore)
            if rng.chance(0.5) { return ops }
        }
        var visible = state.visibleElements.sorted()
        var touched = Set<String>()
        // mostly small edits: a version's bytes cost time (see PropertyTest)
        for _ in 0..<rng.pick([1, 1, 1, 1, 2, 2, 2, 3]) {
            switch Int.random(in: 0..<14, using: &rng) {
            case 0..<3 where !touched.contains("title"):
                touched.insert("title")
                ops.append(.set(field: "title", value: stored(.string(rng.pick(Self.titles)))))
            case 3..<5 where !touched.contains("favorite"):
                touched.insert("favorite")
                ops.append(.set(field: "favorite", value: .inline(.bool(rng.chance(0.5)))))
            case 5 where kind == .chat && !touched.contains("model"):
                touched.insert("model")
                ops.append(.set(field: "model", value: .inline(rng.pick(Self.models))))
            case 5 where kind == .story && !touched.contains("moral"):
                touched.insert("moral")
                ops.append(.set(field: "moral", value: .inline(rng.pick(Self.morals))))
            case 6 where kind == .story && !touched.contains("prompts"):
                touched.insert("prompts")
                ops.append(.set(field: "prompts", value: .inline(rng.pick(Self.prompts))))
            case 6..<9:
                let value = elementValue(kind, now: now)
                ops.append(.add(field: c, element: freshElement(kind), value: stored(value)))
            case 9..<12 where !visible.isEmpty:
                let e = visible.remove(at: Int.random(in: 0..<visible.count, using: &rng))
                let current = content(state.elements[e]!.entries[0].value)
                let changed = edited(current, kind: kind)
                ops.append(.edit(field: c, element: e, value: stored(changed)))
            case 12..<14 where !visible.isEmpty:
                let e = visible.remove(at: Int.random(in: 0..<visible.count, using: &rng))
                ops.append(.remove(field: c, element: e))
            default:
                break
            }
        }
        if ops.isEmpty || ops == [.restore] && rng.chance(0.5) {
            ops.append(.set(field: "favorite", value: .inline(.bool(rng.chance(0.5)))))
        }
        return ops
    }

    /// Device `d` writes a version of `record` on top of everything it knows.
    mutating func local(
        _ d: Int, record: RecordID, ops makeOps: (inout HistoryBuilder, RecordState, Int64) -> [Operation]
    ) {
        let now = physical + devices[d].skew
        let state = devices[d].states[record] ?? RecordState(kind: kinds[record]!)
        devices[d].hlc = devices[d].hlc.tick(now: now)
        let ops = makeOps(&self, state, now)
        let v = Version(
            record: record, kind: state.kind, clock: state.clock.incremented(for: devices[d].id),
            time: devices[d].hlc, device: devices[d].id, ops: ops)
        var next = state
        if !next.merge(v, ops: v.ops) { issues.append("local version v\(versions.count) was not merged") }
        // A local version has seen everything its device knew: what it touched is no longer in
        // conflict there, and shows exactly what it wrote.
        if next.registers[RecordSchema.deletedField]?.map(\.stamp.version) != [v.id] {
            issues.append("local version v\(versions.count) is not the only `deleted` writer on its device")
        }
        for op in ops {
            switch op {
            case .set(let f, let value):
                if next.registers[f]?.map(\.stamp.version) != [v.id] || next.value(f) != value {
                    issues.append("local set of \(f) in v\(versions.count) is not the field's only value on its device")
                }
            case .add(_, let e, _), .edit(_, let e, _):
                if next.elements[e]?.entries.map(\.stamp.version) != [v.id] {
                    issues.append(
                        "local add/edit of \(e) in v\(versions.count) is not the element's only value on its device")
                }
            case .remove(_, let e):
                if next.elements[e]?.isVisible != false {
                    issues.append("local remove of \(e) in v\(versions.count) left it visible")
                }
            case .delete, .restore:
                break
            }
        }
        devices[d].states[record] = next
        versions.append(v)
        counters.append(devices.map { v.clock[$0.id] })
        for e in devices.indices { devices[e].knows.append(e == d) }
    }

    /// Device `d` pulls a random subset of the versions other devices wrote (any order, so
    /// sometimes before what they depend on), and now and then one it already has.
    mutating func pull(_ d: Int) {
        let now = physical + devices[d].skew
        let me = devices[d].id
        let unknown = versions.indices.filter { versions[$0].device != me && !devices[d].knows[$0] }
        var batch = rng.subset(of: unknown, p: Double.random(in: 0.1...0.9, using: &rng))
        let known = versions.indices.filter { devices[d].knows[$0] }
        if !known.isEmpty && rng.chance(0.3) {
            batch.insert(rng.pick(known), at: Int.random(in: 0...batch.count, using: &rng))
        }
        for i in batch {
            let v = versions[i]
            let isNew = !devices[d].knows[i]
            if isNew
                && versions.indices.contains(where: { j in
                    !devices[d].knows[j] && versions[j].record == v.record && counters[j] != counters[i]
                        && counters[j].indices.allSatisfy { counters[j][$0] <= counters[i][$0] }
                })
            {
                stats.outOfOrderDeliveries += 1
            }
            if !isNew { stats.duplicateDeliveries += 1 }
            devices[d].hlc = devices[d].hlc.receiving(v.time, now: now)
            let merged = devices[d].states[v.record, default: RecordState(kind: v.kind)].merge(v, ops: v.ops)
            if merged != isNew { issues.append("merge of \(isNew ? "new" : "known") version v\(i) returned \(merged)") }
            devices[d].knows[i] = true
        }
    }

    static func generate(index: Int) -> MergeHistory {
        let seed = MergeSeed.history(index)
        var b = HistoryBuilder(seed: seed)
        let deviceCount = Int.random(in: 3...5, using: &b.rng)
        var rng = b.rng
        b.devices = (0..<deviceCount).map { _ in
            // Most clocks are a little off; some are days ahead or behind.
            let skew: Int64 =
                switch Int.random(in: 0..<6, using: &rng) {
                case 0: 0
                case 1: Int64.random(in: 86_400_000...(300 * 86_400_000), using: &rng)
                case 2: -Int64.random(in: 86_400_000...(300 * 86_400_000), using: &rng)
                default: Int64.random(in: -120_000...120_000, using: &rng)
                }
            return SimDevice(id: rng.deviceID(), skew: skew)
        }
        b.rng = rng
        b.records = [RecordID("chat-1")!]
        b.kinds[b.records[0]] = .chat
        if b.rng.chance(0.35) {
            b.records.append(RecordID("story-1")!)
            b.kinds[b.records[1]] = .story
        }
        // Device 0 creates every record once; the others learn of them by pulling.
        for record in b.records {
            b.local(0, record: record) { b, state, now in b.creation(state.kind, now: now) }
        }
        let target = Int.random(in: versionsPerHistory, using: &b.rng)
        var steps = 0
        while b.versions.count < target && steps < 1_000 {
            steps += 1
            // Real time only moves forward; sometimes several events share a millisecond.
            b.physical += Int64.random(in: 0...3_000, using: &b.rng)
            let d = Int.random(in: 0..<deviceCount, using: &b.rng)
            let knownRecords = b.records.filter { b.devices[d].states[$0] != nil }
            if !knownRecords.isEmpty && b.rng.chance(0.55) {
                let record = b.rng.pick(knownRecords)
                b.local(d, record: record) { b, state, now in b.localOps(state, now: now) }
            } else {
                b.pull(d)
            }
        }
        return MergeHistory(
            index: index, seed: seed, devices: b.devices.map(\.id), records: b.records, kinds: b.kinds,
            versions: b.versions, deviceStates: b.devices.map(\.states), objects: b.objects,
            issues: b.issues, stats: b.stats,
            names: Dictionary(uniqueKeysWithValues: b.versions.indices.map { (b.versions[$0].id, "v\($0)") }))
    }
}

/// The histories of one group of one property test. Every test gets its own histories (no
/// two tests share an index), so a run checks `historyCount` different histories in total.
private func histories(_ test: PropertyTest, group: Int) -> [MergeHistory] {
    (0..<test.perGroup).map { HistoryBuilder.generate(index: test.firstIndex + group * test.perGroup + $0) }
}

// MARK: - What a state shows, and the brute-force model

/// Everything observable about a record state, with versions named for readable messages.
/// Built from a RecordState or computed by `reference`, and compared with `==`.
private struct Observed: Equatable {
    struct Conflict: Equatable, CustomStringConvertible {
        var name: String
        var entries: [String]
        var removes: [String]
        var description: String { "\(name) \(entries)" + (removes.isEmpty ? "" : " removed by \(removes)") }
    }

    /// Per register, its maximal writers, winner first.
    var registers: [String: [String]] = [:]
    /// Per register, the visible value (canonical JSON, objects resolved).
    var values: [String: String] = [:]
    /// Per element touched, its maximal surviving writers, winner first (empty: removed).
    var elements: [String: [String]] = [:]
    /// Per element touched, its maximal removes, winner first.
    var removes: [String: [String]] = [:]
    /// Visible elements and their values.
    var visible: [String: String] = [:]
    var conflicts: [Conflict] = []
    var isConflict = false
    var isDeleted = false
    var body: String = ""
    var clock = VectorClock()
    var latestTime = HybridLogicalTime.zero
    var versions: Set<String> = []

    init() {}

    init(_ s: RecordState, objects: [SHA256Digest: JSONValue], names: Namer) {
        func text(_ v: FieldValue) -> String {
            switch v {
            case .inline(let j): j.canonicalString
            case .object(let d): objects[d]?.canonicalString ?? "<missing \(d.hex)>"
            }
        }
        registers = s.registers.mapValues { $0.map { names($0.stamp.version) } }
        values = s.registers.compactMapValues { $0.first.map { text($0.value) } }
        for f in s.registers.keys where s.value(f).map(text) != values[f] { values[f] = "<value(\(f)) disagrees>" }
        elements = s.elements.mapValues { $0.entries.map { names($0.stamp.version) } }
        removes = s.elements.mapValues { $0.removes.map { names($0.version) } }
        visible = s.elements.compactMapValues { $0.entries.first.map { text($0.value) } }
        if Set(s.visibleElements) != Set(visible.keys) {
            visible["<visibleElements>"] = s.visibleElements.sorted().description
        }
        conflicts = s.conflicts.map {
            Conflict(
                name: $0.name, entries: $0.entries.map { names($0.stamp.version) },
                removes: $0.removes.map { names($0.version) })
        }
        isConflict = s.isConflict
        isDeleted = s.isDeleted
        do { body = try s.body(resolver(objects)).json.canonicalString } catch { body = "<body throws: \(error)>" }
        clock = s.clock
        latestTime = s.latestTime
        versions = Set(s.versionIDs.map(names))
    }

    /// The fields that differ, each with both sides.
    func differences(from expected: Observed) -> [String] {
        var out: [String] = []
        func dict<V: Equatable>(_ label: String, _ a: [String: V], _ b: [String: V]) {
            for k in Set(a.keys).union(b.keys).sorted() where a[k] != b[k] {
                out.append(
                    "\(label)[\(k)]: got \(a[k].map { "\($0)" } ?? "nil"), expected \(b[k].map { "\($0)" } ?? "nil")")
            }
        }
        func one<V: Equatable>(_ label: String, _ a: V, _ b: V) {
            if a != b { out.append("\(label): got \(a), expected \(b)") }
        }
        dict("registers", registers, expected.registers)
        dict("values", values, expected.values)
        dict("elements", elements, expected.elements)
        dict("removes", removes, expected.removes)
        dict("visible", visible, expected.visible)
        one("conflicts", conflicts, expected.conflicts)
        one("isConflict", isConflict, expected.isConflict)
        one("isDeleted", isDeleted, expected.isDeleted)
        one("body", body, expected.body)
        one(
            "clock", clock.counters.map { "\($0.key.short):\($0.value)" }.sorted(),
            expected.clock.counters.map { "\($0.key.short):\($0.value)" }.sorted())
        one("latestTime", latestTime, expected.latestTime)
        one("versions", versions.sorted(), expected.versions.sorted())
        return out
    }
}

/// What docs/DESIGN.md §3.5 says a set of versions of a `kind` record shows, computed the slow, obvious
/// way from the definitions: no RecordState, no VectorClock order helpers.
private func reference(_ kind: RecordKind, _ input: [Version], objects: [SHA256Digest: JSONValue], names: Namer)
    -> Observed
{
    var seen = Set<SHA256Digest>()
    let versions = input.filter { $0.kind == kind && seen.insert($0.id).inserted }
    // Versions are referred to by index; each clock becomes its counters over all devices, so
    // the order is a plain component-wise comparison (the definition, and fast).
    let deviceOrder = Set(versions.flatMap(\.clock.counters.keys)).sorted()
    let vec = versions.map { v in deviceOrder.map { v.clock.counters[$0] ?? 0 } }
    func le(_ i: Int, _ j: Int) -> Bool {
        for k in deviceOrder.indices where vec[i][k] > vec[j][k] { return false }
        return true
    }
    func lt(_ i: Int, _ j: Int) -> Bool { le(i, j) && vec[i] != vec[j] }
    func concurrent(_ i: Int, _ j: Int) -> Bool { !le(i, j) && !le(j, i) }
    let key = versions.map(lwwKey)
    let name = versions.map { names($0.id) }

    struct Write {
        let v: Int
        let value: JSONValue
    }
    func content(_ v: FieldValue) -> JSONValue {
        switch v {
        case .inline(let j): j
        case .object(let d): objects[d]!
        }
    }
    func winnerFirst(_ ws: [Write]) -> [Write] { ws.sorted { key[$0.v] > key[$1.v] } }
    /// The writes no other write's version has seen.
    func maximal(_ ws: [Write]) -> [Write] { ws.filter { w in !ws.contains { lt(w.v, $0.v) } } }
    func distinct(_ ws: [Write]) -> Bool { Set(ws.map(\.value)).count > 1 }

    var out = Observed()
    // Registers: every `set`, and `deleted` from every version (its last delete/restore, else false).
    var writes: [String: [Write]] = [:]
    var adds: [String: [Write]] = [:]
    var removes: [String: [Int]] = [:]
    for (i, v) in versions.enumerated() {
        var deleted = false
        for op in v.ops {
            switch op {
            case .delete: deleted = true
            case .restore: deleted = false
            case .set(let f, let value): writes[f, default: []].append(Write(v: i, value: content(value)))
            case .add(_, let e, let value), .edit(_, let e, let value):
                adds[e, default: []].append(Write(v: i, value: content(value)))
            case .remove(_, let e): removes[e, default: []].append(i)
            }
        }
        writes[RecordSchema.deletedField, default: []].append(Write(v: i, value: .bool(deleted)))
    }
    var conflicts: [Observed.Conflict] = []
    var winners: [String: Write] = [:]
    for (field, ws) in writes.sorted(by: { $0.key < $1.key }) {
        let top = winnerFirst(maximal(ws))
        out.registers[field] = top.map { name[$0.v] }
        out.values[field] = top[0].value.canonicalString
        winners[field] = top[0]
        if distinct(top) { conflicts.append(.init(name: field, entries: top.map { name[$0.v] }, removes: [])) }
    }
    // Elements: an add/edit survives unless some remove's version had seen it (clock ≤). The
    // element conflicts when its maximal surviving values differ, or when a remove is
    // concurrent with one of them ("surviving" read as the maximal ones: a later edit that saw
    // both the remove and the old edit settles the element, as a register write would).
    var visibleWinners: [String: Write] = [:]
    for e in Set(adds.keys).union(removes.keys).sorted() {
        let rs = removes[e] ?? []
        let surviving = (adds[e] ?? []).filter { w in !rs.contains { le(w.v, $0) } }
        let top = winnerFirst(maximal(surviving))
        let maximalRemoves = rs.filter { r in !rs.contains { lt(r, $0) } }.sorted { key[$0] > key[$1] }
        let unseen = maximalRemoves.filter { r in top.contains { concurrent(r, $0.v) } }
        out.elements[e] = top.map { name[$0.v] }
        out.removes[e] = maximalRemoves.map { name[$0] }
        if let winner = top.first {
            out.visible[e] = winner.value.canonicalString
            visibleWinners[e] = winner
        }
        if distinct(top) || !unseen.isEmpty {
            conflicts.append(
                .init(
                    name: "\(collectionName(kind))/\(e)", entries: top.map { name[$0.v] },
                    removes: unseen.map { name[$0] }))
        }
    }
    out.conflicts = conflicts
    out.isConflict = !conflicts.isEmpty
    out.isDeleted = out.values[RecordSchema.deletedField] == "true"
    var counters: [DeviceID: Int64] = [:]
    for v in versions { for (d, n) in v.clock.counters { counters[d] = max(counters[d] ?? 0, n) } }
    out.clock = VectorClock(counters)
    out.latestTime = versions.map(\.time).max() ?? .zero
    out.versions = Set(versions.map { names($0.id) })

    // The materialized body, built by hand from the winners.
    func value(_ f: String) -> JSONValue? { winners[f]?.value }
    let title = value("title")?.stringValue ?? ""
    let favorite = value("favorite") == .bool(true)
    let updated = Timestamp(milliseconds: out.latestTime.wall)
    let created = value("created")?.stringValue.flatMap { Timestamp(iso8601: $0) } ?? updated
    switch kind {
    case .chat:
        let messages = visibleWinners.map { id, w in
            ChatBody.Message(
                id: id, role: ChatBody.Role(rawValue: w.value["role"]!.stringValue!)!,
                text: w.value["text"]!.stringValue!,
                time: Timestamp(iso8601: w.value["time"]!.stringValue!)!)
        }.sorted { a, b in
            let ha = versions[visibleWinners[a.id]!.v].time
            let hb = versions[visibleWinners[b.id]!.v].time
            return (a.time.milliseconds, ha.wall, ha.counter, a.id) < (b.time.milliseconds, hb.wall, hb.counter, b.id)
        }
        out.body =
            RecordBody.chat(
                ChatBody(
                    title: title, model: value("model")?.stringValue, messages: messages,
                    favorite: favorite, created: created, updated: updated)
            ).json.canonicalString
    case .story:
        let pages = visibleWinners.map { id, w in
            StoryBody.Page(id: id, position: w.value["n"]!.intValue!, text: w.value["text"]!.stringValue!)
        }.sorted { a, b in
            let ha = versions[visibleWinners[a.id]!.v].time
            let hb = versions[visibleWinners[b.id]!.v].time
            return (a.position, ha.wall, ha.counter, a.id) < (b.position, hb.wall, hb.counter, b.id)
        }
        let prompts = (value("prompts")?.arrayValue ?? []).compactMap(\.stringValue)
        out.body =
            RecordBody.story(
                StoryBody(
                    title: title, moral: value("moral")?.stringValue, pages: pages, prompts: prompts,
                    favorite: favorite, created: created, updated: updated)
            ).json.canonicalString
    case .image:
        out.body = "<image>"
    }
    return out
}

extension MergeHistory {
    fileprivate func observe(_ s: RecordState) -> Observed { Observed(s, objects: objects, names: namer) }
    fileprivate func expected(_ record: RecordID, _ versions: [Version]) -> Observed {
        reference(kinds[record]!, versions, objects: objects, names: namer)
    }
    /// Everything written, folded in creation order (the order does not matter: see (b)).
    fileprivate func fullState(_ record: RecordID) -> RecordState {
        RecordState(kind: kinds[record]!, versions(of: record).map { ($0, $0.ops) })
    }
}

/// Builds a version on top of `state` (a device that has seen all of it).
private func makeVersion(
    on state: RecordState, record: RecordID, by device: DeviceID, at time: HybridLogicalTime, _ ops: [Operation]
) -> Version {
    Version(
        record: record, kind: state.kind, clock: state.clock.incremented(for: device), time: time, device: device,
        ops: ops)
}

/// A version on the join of everything `state` has (docs/DESIGN.md §3.6, "resolve") that sets every
/// conflicting field and element to what is visible, and keeps the record deleted if it is.
private func resolution(of state: RecordState, record: RecordID, by device: DeviceID, at time: HybridLogicalTime)
    -> Version
{
    var ops: [Operation] = []
    for c in state.conflicts {
        if let e = c.element {
            ops.append(.edit(field: c.field, element: e, value: c.entries[0].value))
        } else if c.field != RecordSchema.deletedField {
            ops.append(.set(field: c.field, value: c.entries[0].value))
        }
    }
    // Every version writes `deleted`; a resolution of a deleted record must say so.
    if state.isDeleted { ops.append(.delete) }
    if ops.isEmpty { ops.append(.set(field: "favorite", value: .inline(.bool(state.favorite)))) }
    return makeVersion(on: state, record: record, by: device, at: time, ops)
}

// MARK: - Concurrent edits on top of a random history

/// Two devices that have both seen a whole random history each write one version, without
/// seeing each other's: what docs/DESIGN.md §3.6 says must (not) be a conflict.
private enum Fork: CaseIterable {
    case concurrentAdds, renameVersusFavorite, sameFieldDistinctValues, sameFieldSameValue, editVersusRemove,
        editVersusDelete

    struct Outcome {
        let left: Version, right: Version
        /// Conflict names that must disappear, and the ones that must then be there.
        let closes: Set<String>, opens: Set<String>
        /// Left's version wins LWW against right's.
        var leftWins: Bool { lwwKey(left) > lwwKey(right) }
    }

    /// nil when the case needs something the state lacks (a visible element).
    func make(on state: RecordState, record: RecordID, devices: [DeviceID], rng: inout SeededGenerator) -> Outcome? {
        let kind = state.kind
        let c = collectionName(kind)
        let pair = rng.subset(of: devices, p: 1)
        let (x, y) = (pair[0], pair[1])
        let wall = state.latestTime.wall
        let tx = HybridLogicalTime(wall: wall + Int64.random(in: 1...3, using: &rng))
        let ty = HybridLogicalTime(wall: wall + Int64.random(in: 1...3, using: &rng))
        func element(_ text: String) -> FieldValue {
            .inline(
                kind == .chat
                    ? ChatBody.Message(id: "m", role: .user, text: text, time: Timestamp(milliseconds: wall))
                        .elementJSON
                    : StoryBody.Page(id: "p", position: 1, text: text).elementJSON)
        }
        func title(_ t: String) -> Operation { .set(field: "title", value: .inline(.string(t))) }
        let leftOps: [Operation]
        let rightOps: [Operation]
        let closes: Set<String>
        let opens: Set<String>
        switch self {
        case .concurrentAdds:
            leftOps = [.add(field: c, element: "fork-x", value: element("from x"))]
            rightOps = [.add(field: c, element: "fork-y", value: element("from y"))]
            (closes, opens) = (["deleted"], [])
        case .renameVersusFavorite:
            leftOps = [title("Renamed on x")]
            rightOps = [.set(field: "favorite", value: .inline(.bool(!state.favorite)))]
            (closes, opens) = (["deleted", "title", "favorite"], [])
        case .sameFieldDistinctValues:
            (leftOps, rightOps) = ([title("Left")], [title("Right")])
            (closes, opens) = (["deleted", "title"], ["title"])
        case .sameFieldSameValue:
            (leftOps, rightOps) = ([title("Same")], [title("Same")])
            (closes, opens) = (["deleted", "title"], [])
        case .editVersusRemove:
            let visible = state.visibleElements.sorted()
            guard !visible.isEmpty else { return nil }
            let e = rng.pick(visible)
            leftOps = [.edit(field: c, element: e, value: element("edited on x"))]
            rightOps = [.remove(field: c, element: e)]
            (closes, opens) = (["deleted", "\(c)/\(e)"], ["\(c)/\(e)"])
        case .editVersusDelete:
            (leftOps, rightOps) = ([title("Edited on x")], [.delete])
            (closes, opens) = (["deleted", "title"], ["deleted"])
        }
        return Outcome(
            left: makeVersion(on: state, record: record, by: x, at: tx, leftOps),
            right: makeVersion(on: state, record: record, by: y, at: ty, rightOps), closes: closes, opens: opens)
    }
}

// MARK: - Properties

/// Collects the failures of one history: each is recorded as an issue that starts with the
/// history, its seed and how to replay it, and names what differs (never a whole state dump).
private struct HistoryCheck {
    let h: MergeHistory
    private(set) var failed = false

    init(_ h: MergeHistory) { self.h = h }

    mutating func expect(
        _ ok: Bool, _ what: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard !ok else { return }
        failed = true
        Issue.record(Comment(rawValue: "\(h.tag)\n\(what())"), sourceLocation: sourceLocation)
    }

    /// `observed` must be `expected`; the message lists the fields that differ.
    mutating func same(
        _ observed: Observed, _ expected: Observed, _ what: @autoclosure () -> String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard observed != expected else { return }
        expect(
            false, "\(what()):\n  " + observed.differences(from: expected).joined(separator: "\n  "),
            sourceLocation: sourceLocation)
    }
}

/// Sanity of a generated history: the generator saw no broken invariant (a local version wins
/// on its own device, merge reports news exactly), and within a record no two versions share
/// a clock (devices never reuse one), so clocks order versions.
private func checkGenerated(_ h: MergeHistory) -> Bool {
    var check = HistoryCheck(h)
    check.expect(h.issues.isEmpty, "the generator saw: \(h.issues.prefix(5))")
    check.expect(
        !h.records.contains { r in
            let vs = h.versions(of: r)
            return Set(vs.map(\.clock)).count != vs.count
        },
        "two versions of a record share a clock")
    check.expect(
        (3...5).contains(h.devices.count) && versionsPerHistory.contains(h.versions.count),
        "\(h.devices.count) devices, \(h.versions.count) versions")
    return !check.failed
}

/// What a set of histories exercised: how many have each kind of conflict (at the end or on
/// a device mid-sync), and how many deletes, restores, object values and odd deliveries.
private struct Tally: Sendable {
    var histories = 0, versions = 0, registerConflicts = 0, elementConflicts = 0, editRemoveConflicts = 0,
        deletedConflicts = 0
    var equalConcurrentValues = 0, deletedAtEnd = 0, deletes = 0, restores = 0, stories = 0, objects = 0,
        outOfOrder = 0, duplicates = 0

    init() {}

    init(_ histories: [MergeHistory]) {
        for h in histories {
            self.histories += 1
            versions += h.versions.count
            deletes += h.stats.deletes
            restores += h.stats.restores
            objects += h.stats.objectValues
            outOfOrder += h.stats.outOfOrderDeliveries
            duplicates += h.stats.duplicateDeliveries
            stories += h.records.count - 1
            var register = false
            var element = false
            var editRemove = false
            var deleted = false
            var equal = false
            let final = h.records.map(h.fullState)
            for s in final + h.deviceStates.flatMap(\.values) {
                for c in s.conflicts {
                    if c.element != nil {
                        element = true
                        if !c.removes.isEmpty { editRemove = true }
                    } else if c.field == RecordSchema.deletedField {
                        deleted = true
                    } else {
                        register = true
                    }
                }
                if s.registers.contains(where: { $0.value.count > 1 && !RecordState.distinct($0.value) }) {
                    equal = true
                }
            }
            if register { registerConflicts += 1 }
            if element { elementConflicts += 1 }
            if editRemove { editRemoveConflicts += 1 }
            if deleted { deletedConflicts += 1 }
            if equal { equalConcurrentValues += 1 }
            if final.contains(where: \.isDeleted) { deletedAtEnd += 1 }
        }
    }

    mutating func add(_ o: Tally) {
        histories += o.histories
        versions += o.versions
        registerConflicts += o.registerConflicts
        elementConflicts += o.elementConflicts
        editRemoveConflicts += o.editRemoveConflicts
        deletedConflicts += o.deletedConflicts
        equalConcurrentValues += o.equalConcurrentValues
        deletedAtEnd += o.deletedAtEnd
        deletes += o.deletes
        restores += o.restores
        stories += o.stories
        objects += o.objects
        outOfOrder += o.outOfOrder
        duplicates += o.duplicates
    }
}

@Suite("MergeProperty: random histories against a brute-force model")
struct MergePropertyTests {

    @Test("The base seed of this run (printed so any run can be replayed)")
    func baseSeed() {
        print("MergeProperty: \(historyCount) random histories, base seed \(MergeSeed.base) — \(MergeSeed.replay)")
        #expect(
            MergeSeed.environment == nil || MergeSeed.parse(MergeSeed.environment!) != nil,
            "AISYNC_MERGE_SEED=\(MergeSeed.environment ?? "") is not a number; this run used the fresh seed \(MergeSeed.base)"
        )
    }

    @Test(
        "(a) every device converges once it has everything, whatever the order, with duplicates, to the reference model",
        arguments: groups)
    func devicesConverge(group: Int) {
        for h in histories(.convergence, group: group) where checkGenerated(h) {
            var check = HistoryCheck(h)
            var rng = SeededGenerator(seed: h.seed ^ 0xA11C_0DE5)
            for record in h.records {
                let all = h.versions(of: record)
                let expected = h.expected(record, all)
                // Given each device's partial knowledge at the end of the history, and a fresh device
                var starts = h.deviceStates.map { $0[record] ?? RecordState(kind: h.kinds[record]!) }
                starts.append(RecordState(kind: h.kinds[record]!))
                var observed: [Observed] = []
                for (n, start) in starts.enumerated() {
                    // When it receives every version, shuffled, a third of them twice (a sync's
                    // batches are a split of this stream)
                    var state = start
                    var stream = all + rng.subset(of: all, p: 0.3)
                    stream.shuffle(using: &rng)
                    var news = 0
                    for v in stream where state.merge(v, ops: v.ops) { news += 1 }
                    // Then merge reported each version it did not have as news, once
                    check.expect(
                        news == all.count - start.versionIDs.count,
                        "\(record) device \(n): \(news) merges reported news, expected \(all.count - start.versionIDs.count)"
                    )
                    observed.append(h.observe(state))
                }
                // and every device shows the same record: registers, elements, conflicts and body
                for (n, o) in observed.enumerated().dropFirst() {
                    check.same(o, observed[0], "\(record): device \(n) differs from device 0")
                }
                // which is what the reference model says
                check.same(observed[0], expected, "\(record): the converged state differs from the reference model")
            }
            if check.failed { break }  // one history's worth of messages per group is enough
        }
    }

    @Test(
        "(a') what a device shows mid-sync (any subset, any order) is what the reference model says of that subset",
        arguments: groups)
    func partialKnowledgeMatchesReference(group: Int) {
        for h in histories(.partialKnowledge, group: group) where checkGenerated(h) {
            var check = HistoryCheck(h)
            var rng = SeededGenerator(seed: h.seed ^ 0x5AB5_E700)
            for record in h.records {
                let all = h.versions(of: record)
                // Given the devices' own states, built during the history with out-of-order pulls,
                var cases: [(String, RecordState)] = h.deviceStates.enumerated().compactMap { n, s in
                    s[record].map { ("device \(n)", $0) }
                }
                // and a random subset of the versions folded in random order
                let subset = rng.subset(of: all, p: Double.random(in: 0.2...0.8, using: &rng))
                cases.append(("a random subset", RecordState(kind: h.kinds[record]!, subset.map { ($0, $0.ops) })))
                for (label, state) in cases {
                    // Then each shows what the reference model computes from exactly the versions it has
                    let known = all.filter { state.versionIDs.contains($0.id) }
                    check.same(
                        h.observe(state), h.expected(record, known),
                        "\(record) \(label) (\(known.count) of \(all.count) versions)")
                }
            }
            if check.failed { break }
        }
    }

    @Test(
        "(c') compaction: the essential versions alone fold to the same state, and merging dropped ones again changes nothing",
        arguments: groups)
    func compactionKeepsTheState(group: Int) {
        var dropped = 0
        defer { #expect(dropped > 0, "no history had a version to drop: the test checked nothing") }
        for h in histories(.compaction, group: group) where checkGenerated(h) {
            var check = HistoryCheck(h)
            var rng = SeededGenerator(seed: h.seed ^ 0xC0_4AC7)
            for record in h.records {
                let kind = h.kinds[record]!
                let all = h.versions(of: record)
                // Given the full state and the versions it names
                let full = RecordState(kind: kind, all.map { ($0, $0.ops) })
                let kept = all.filter { full.essentialVersionIDs.contains($0.id) }
                // Then folding only those shows the same record (all but the list of versions
                // folded in: a compacted history is shorter), with the same clock and time
                func shown(_ s: RecordState) -> Observed {
                    var o = h.observe(s)
                    o.versions = []
                    return o
                }
                var compacted = RecordState(kind: kind, kept.shuffled(using: &rng).map { ($0, $0.ops) })
                check.same(shown(compacted), shown(full), "\(record): \(kept.count) of \(all.count) versions kept")
                check.expect(
                    compacted.clock == full.clock && compacted.latestTime == full.latestTime,
                    "\(record): clock or time changed")
                check.expect(
                    compacted.essentialVersionIDs == full.essentialVersionIDs,
                    "\(record): a second compaction would keep others")
                // When dropped versions arrive again (an old segment, a device that never saw the snapshot)
                for v in all.filter({ !kept.contains($0) }).shuffled(using: &rng) where rng.chance(0.7) {
                    compacted.merge(v, ops: v.ops)
                }
                // Then nothing visible changes
                check.same(shown(compacted), shown(full), "\(record): after merging dropped versions again")
                dropped += all.count - kept.count
            }
            if check.failed { break }
        }
    }

    @Test("(b) merge is order-independent and idempotent; other kinds are refused", arguments: groups)
    func mergeIsOrderIndependentAndIdempotent(group: Int) {
        for h in histories(.orderIndependence, group: group) where checkGenerated(h) {
            var check = HistoryCheck(h)
            var rng = SeededGenerator(seed: h.seed ^ 0x0B0B_0B0B)
            for record in h.records {
                let kind = h.kinds[record]!
                let all = h.versions(of: record)
                // Given the record's versions folded in creation order, reversed, shuffled, and in two shuffled halves
                let inOrder = RecordState(kind: kind, all.map { ($0, $0.ops) })
                let reversed = RecordState(kind: kind, all.reversed().map { ($0, $0.ops) })
                let shuffled = RecordState(kind: kind, all.shuffled(using: &rng).map { ($0, $0.ops) })
                let split = Int.random(in: 0...all.count, using: &rng)
                var halves = RecordState(kind: kind, all.suffix(from: split).shuffled(using: &rng).map { ($0, $0.ops) })
                for v in all.prefix(split).shuffled(using: &rng) { halves.merge(v, ops: v.ops) }
                // Then the states are equal (==, not just their output)
                for (label, state) in [("reversed", reversed), ("shuffled", shuffled), ("split at \(split)", halves)]
                where state != inOrder {
                    let diff = h.observe(state).differences(from: h.observe(inOrder))
                    check.expect(
                        false,
                        "\(record): folding \(label) gives another state than in creation order"
                            + (diff.isEmpty
                                ? " (same output, other internal lists)" : ":\n  " + diff.joined(separator: "\n  ")))
                }

                // When a version it already has is merged again (even with its ops lost in transit)
                for v in rng.subset(of: all, p: 0.3) {
                    var again = inOrder
                    let changed = again.merge(v, ops: rng.chance(0.8) ? v.ops : [])
                    // Then merge says nothing changed, and nothing did
                    check.expect(
                        !changed && again == inOrder,
                        "\(record): re-merging \(h.namer(v.id)) returned \(changed) or changed the state")
                }
                // When a version of another kind is merged, it is refused
                if let v = h.versions.first(where: { $0.kind != kind }) {
                    var other = inOrder
                    let changed = other.merge(v, ops: v.ops)
                    check.expect(
                        !changed && other == inOrder, "\(record): a \(v.kind) version was merged into a \(kind)")
                }
            }
            if check.failed { break }
        }
    }

    @Test(
        "(c) concurrent edits on top of a random history: only the same field or element set to distinct values conflicts",
        arguments: groups)
    func concurrentEditsConflictOnlyOnTheSameField(group: Int) {
        for h in histories(.concurrentEdits, group: group) where checkGenerated(h) {
            var check = HistoryCheck(h)
            var rng = SeededGenerator(seed: h.seed ^ 0xC0C0_C0C0)
            for record in h.records {
                let all = h.versions(of: record)
                let state = h.fullState(record)
                let before = Set(state.conflicts.map(\.name))
                let c = collectionName(state.kind)

                // In any history, a conflict only names a field or element that every competing
                // version wrote, and those versions are pairwise concurrent
                for conflict in state.conflicts {
                    let writers = conflict.entries.compactMap { e in all.first { $0.id == e.stamp.version } }
                    let wrote = writers.allSatisfy { v in
                        conflict.field == RecordSchema.deletedField
                            || v.ops.contains {
                                $0.field == conflict.field && $0.element == conflict.element && $0.value != nil
                            }
                    }
                    let concurrent = writers.indices.allSatisfy { i in
                        writers.indices.allSatisfy { j in i == j || clockConcurrent(writers[i].clock, writers[j].clock)
                        }
                    }
                    check.expect(
                        writers.count == conflict.entries.count && wrote && concurrent,
                        "\(record): conflict \(conflict.name) has a competitor that did not write it or is not concurrent"
                    )
                }
                // and an element only ever added (never edited or removed) is visible and not in conflict
                for (e, element) in state.elements.sorted(by: { $0.key < $1.key }) {
                    let touches = all.filter { $0.ops.contains { $0.element == e } }
                    guard touches.count == 1, case .add? = touches[0].ops.first(where: { $0.element == e }) else {
                        continue
                    }
                    check.expect(
                        element.isVisible && !before.contains("\(c)/\(e)"),
                        "\(record): \(e), only ever added, is hidden or in conflict")
                }

                // Given two devices that have seen everything, each writing without seeing the
                // other (some of the cases on each history, so every case runs on many histories)
                for fork in rng.subset(of: Fork.allCases, p: 0.4) {
                    guard let outcome = fork.make(on: state, record: record, devices: h.devices, rng: &rng) else {
                        continue
                    }
                    var forked = state
                    for v in rng.chance(0.5) ? [outcome.right, outcome.left] : [outcome.left, outcome.right] {
                        forked.merge(v, ops: v.ops)
                    }
                    let names = Set(forked.conflicts.map(\.name))
                    let what = "\(record) \(fork)"
                    // Then exactly the expected conflicts close and open
                    let expectedNames = before.subtracting(outcome.closes).union(outcome.opens)
                    check.expect(
                        names == expectedNames,
                        "\(what): conflicts \(names.sorted()), expected \(expectedNames.sorted())")
                    // and the output is what the reference model says
                    check.same(h.observe(forked), h.expected(record, all + [outcome.left, outcome.right]), what)
                    // and the case's own outcome holds
                    let (winner, loser) =
                        outcome.leftWins ? (outcome.left, outcome.right) : (outcome.right, outcome.left)
                    switch fork {
                    case .concurrentAdds:
                        check.expect(
                            forked.elements["fork-x"]?.isVisible == true
                                && forked.elements["fork-y"]?.isVisible == true,
                            "\(what): both added elements must be visible")
                    case .renameVersusFavorite:
                        check.expect(
                            forked.value("title") == outcome.left.ops[0].value
                                && forked.value("favorite") == outcome.right.ops[0].value,
                            "\(what): the rename and the favorite must both show")
                    case .sameFieldDistinctValues:
                        let titles = forked.conflicts.filter { $0.field == "title" }
                        check.expect(
                            titles.count == 1 && titles[0].entries.map(\.stamp.version) == [winner.id, loser.id]
                                && forked.value("title") == winner.ops[0].value,
                            "\(what): one title conflict, the later writer first and shown")
                    case .sameFieldSameValue:
                        check.expect(
                            forked.registers["title"]?.count == 2 && forked.value("title") == .inline(.string("Same")),
                            "\(what): both writers kept, one value shown")
                    case .editVersusRemove:
                        let e = outcome.left.ops[0].element!
                        let conflict = forked.conflicts.first { $0.element == e }
                        check.expect(
                            forked.elements[e]?.entries.first?.value == outcome.left.ops[0].value,
                            "\(what): the edited element must stay, with the edit")
                        check.expect(
                            conflict?.entries.map(\.stamp.version) == [outcome.left.id]
                                && conflict?.removes.map(\.version) == [outcome.right.id],
                            "\(what): the conflict must name the edit and the remove it had not seen: \(String(describing: conflict))"
                        )
                    case .editVersusDelete:
                        check.expect(
                            forked.isDeleted == !outcome.leftWins && forked.value("title") == outcome.left.ops[0].value,
                            "\(what): the later of edit and delete decides `deleted`; the edit's title shows")
                    }
                }
            }
            if check.failed { break }
        }
    }

    @Test(
        "(d) a version on the join of everything that sets the conflicting fields closes every conflict, and keeps what was shown",
        arguments: groups)
    func resolutionClosesConflicts(group: Int) {
        for h in histories(.resolution, group: group) where checkGenerated(h) {
            var check = HistoryCheck(h)
            var rng = SeededGenerator(seed: h.seed ^ 0xD0D0_D0D0)
            for record in h.records {
                let all = h.versions(of: record)
                // Given the whole history (when it ends in conflict), and the whole history plus
                // two concurrent edits that conflict (so there is always something to resolve)
                let full = h.fullState(record)
                var states = full.isConflict ? [(full, all)] : []
                let fork = rng.pick([Fork.sameFieldDistinctValues, .editVersusRemove, .editVersusDelete])
                if let outcome = fork.make(on: full, record: record, devices: h.devices, rng: &rng) {
                    var forked = full
                    forked.merge(outcome.left, ops: outcome.left.ops)
                    forked.merge(outcome.right, ops: outcome.right.ops)
                    check.expect(forked.isConflict, "\(record): \(fork) did not conflict")
                    states.append((forked, all + [outcome.left, outcome.right]))
                }
                for (state, versions) in states {
                    // When a device that has seen it all resolves
                    let device = rng.pick(h.devices)
                    let r = resolution(of: state, record: record, by: device, at: state.latestTime.tick(now: 0))
                    var resolved = state
                    resolved.merge(r, ops: r.ops)
                    let what = "\(record) (\(versions.count) versions, conflicts \(state.conflicts.map(\.name)))"
                    // Then no conflict is left
                    check.expect(
                        !resolved.isConflict && resolved.conflicts.isEmpty,
                        "\(what): left \(resolved.conflicts.map(\.name))")
                    // and people see what they saw before
                    let before = h.observe(state)
                    let after = h.observe(resolved)
                    check.expect(
                        after.values == before.values && after.visible == before.visible
                            && after.isDeleted == before.isDeleted,
                        "\(what): the resolution changed what is shown: \(after.differences(from: before))")
                    check.same(after, h.expected(record, versions + [r]), "\(what): resolved")
                    // and a device that gets the resolution before the old versions ends the same
                    var early = RecordState(kind: state.kind)
                    early.merge(r, ops: r.ops)
                    for v in versions.shuffled(using: &rng) { early.merge(v, ops: v.ops) }
                    check.expect(
                        early == resolved,
                        "\(what): old versions arriving after the resolution changed something: \(early.conflicts.map(\.name))"
                    )
                }
            }
            if check.failed { break }
        }
    }

    @Test(
        "The generated histories are not vacuous: they hold register, element and deleted conflicts, deletes and restores"
    )
    func historiesAreNotVacuous() async {
        // The groups are generated in parallel (this test would otherwise be the run's long tail)
        let t = await withTaskGroup(of: Tally.self) { tasks in
            for group in groups { tasks.addTask { Tally(histories(.vacuity, group: group).filter(checkGenerated)) } }
            return await tasks.reduce(into: Tally()) { $0.add($1) }
        }
        let n = t.histories
        print(
            """
            MergeProperty: \(n) histories of \(t.versions / max(n, 1)) versions on average, \(t.stories) with a story; histories with \
            a register conflict \(t.registerConflicts), an element conflict \(t.elementConflicts) (edit vs remove \(t.editRemoveConflicts)), \
            a conflict on deleted \(t.deletedConflicts), equal concurrent values \(t.equalConcurrentValues), deleted at the end \(t.deletedAtEnd); \
            \(t.deletes) deletes, \(t.restores) restores, \(t.objects) object values, \(t.outOfOrder) out-of-order and \(t.duplicates) \
            duplicate deliveries. Base seed \(MergeSeed.base)
            """)
        // The thresholds are far below what the generator gives (see the line above), so they
        // only fail when it stops producing a kind of history.
        let context = "base seed \(MergeSeed.base); \(MergeSeed.replay)"
        #expect(historyCount >= 1_000, "\(historyCount) histories a run; \(context)")
        #expect(
            t.registerConflicts >= n / 10,
            "only \(t.registerConflicts) of \(n) histories have a register conflict; \(context)")
        #expect(
            t.elementConflicts >= n / 20,
            "only \(t.elementConflicts) of \(n) histories have an element conflict; \(context)")
        #expect(
            t.editRemoveConflicts >= n / 50,
            "only \(t.editRemoveConflicts) of \(n) histories have an edit-vs-remove conflict; \(context)")
        #expect(
            t.deletedConflicts >= n / 20,
            "only \(t.deletedConflicts) of \(n) histories have a conflict on deleted; \(context)")
        #expect(
            t.equalConcurrentValues >= n / 20,
            "only \(t.equalConcurrentValues) of \(n) histories have equal concurrent values; \(context)")
        #expect(
            t.deletedAtEnd >= n / 50 && t.deletes >= n / 2 && t.restores >= n / 5,
            "deletes \(t.deletes), restores \(t.restores), deleted at the end \(t.deletedAtEnd) in \(n) histories; \(context)"
        )
        #expect(
            t.stories >= n / 5 && t.objects >= n && t.outOfOrder >= n / 5 && t.duplicates >= n / 5,
            "stories \(t.stories), object values \(t.objects), out of order \(t.outOfOrder), duplicates \(t.duplicates) in \(n) histories; \(context)"
        )
    }
}

// MARK: - Hand-written scenarios

@Suite("Merge scenarios (records v2)")
struct MergeScenarioTests {
    static let a = DeviceID(String(repeating: "a", count: 32))!
    static let b = DeviceID(String(repeating: "b", count: 32))!
    static let c = DeviceID(String(repeating: "c", count: 32))!
    static let chat = RecordID("chat-1")!
    /// These scenarios keep every value inline.
    static func resolve(_ d: SHA256Digest) throws(AISyncError) -> JSONValue {
        throw .damaged("no objects here: \(d.hex)")
    }

    static func version(
        _ device: DeviceID, _ clock: [DeviceID: Int64], at wall: Int64, counter: Int64 = 0, _ ops: [Operation]
    ) -> Version {
        Version(
            record: chat, kind: .chat, clock: VectorClock(clock), time: HybridLogicalTime(wall: wall, counter: counter),
            device: device, ops: ops)
    }

    static func message(_ text: String, at ms: Int64) -> FieldValue {
        .inline(ChatBody.Message(id: "m", role: .user, text: text, time: Timestamp(milliseconds: ms)).elementJSON)
    }

    static func title(_ t: String) -> Operation { .set(field: "title", value: .inline(.string(t))) }
    static func favorite(_ f: Bool) -> Operation { .set(field: "favorite", value: .inline(.bool(f))) }
    static func add(_ id: String, _ text: String, at ms: Int64) -> Operation {
        .add(field: "messages", element: id, value: message(text, at: ms))
    }
    static func edit(_ id: String, _ text: String, at ms: Int64) -> Operation {
        .edit(field: "messages", element: id, value: message(text, at: ms))
    }
    static func remove(_ id: String) -> Operation { .remove(field: "messages", element: id) }

    /// A's first version: the whole chat, two messages.
    static let creation = version(
        a, [a: 1], at: 1_000,
        [
            title("Plans"), .set(field: "model", value: .inline(.string("gpt-4o"))), favorite(false),
            .set(field: "created", value: .inline(.string(Timestamp(milliseconds: 1_000).iso8601))),
            add("m-1", "hi", at: 1_000), add("m-2", "hello", at: 1_001),
        ])

    static func state(_ versions: [Version]) -> RecordState { RecordState(kind: .chat, versions.map { ($0, $0.ops) }) }

    static func messages(_ s: RecordState) throws -> [String] {
        guard case .chat(let body) = try s.body(resolve) else { return [] }
        return body.messages.map { "\($0.id):\($0.text)" }
    }

    /// B and C both saw A's creation, then each wrote once without seeing the other; C writes later (HLC).
    struct Concurrent: Sendable, CustomTestStringConvertible {
        let name: String
        let onB: [Operation]
        let onC: [Operation]
        let conflicts: [String]
        let title: String
        let favorite: Bool
        let deleted: Bool
        /// Visible messages in body order, `id:text`.
        let messages: [String]
        var testDescription: String { name }
    }

    static let concurrentCases: [Concurrent] = [
        Concurrent(
            name: "concurrent adds both survive, no conflict", onB: [add("m-b", "from b", at: 2_000)],
            onC: [add("m-c", "from c", at: 3_000)],
            conflicts: [], title: "Plans", favorite: false, deleted: false,
            messages: ["m-1:hi", "m-2:hello", "m-b:from b", "m-c:from c"]),
        Concurrent(
            name: "rename on one device, favorite on another: no conflict", onB: [title("Trip")], onC: [favorite(true)],
            conflicts: [], title: "Trip", favorite: true, deleted: false, messages: ["m-1:hi", "m-2:hello"]),
        Concurrent(
            name: "same field, two values: one conflict on it, the later shown", onB: [title("Trip")],
            onC: [title("Notes")],
            conflicts: ["title"], title: "Notes", favorite: false, deleted: false, messages: ["m-1:hi", "m-2:hello"]),
        Concurrent(
            name: "same field, same value: no conflict", onB: [title("Trip"), favorite(true)], onC: [title("Trip")],
            conflicts: [], title: "Trip", favorite: true, deleted: false, messages: ["m-1:hi", "m-2:hello"]),
        Concurrent(
            name: "edit vs remove keeps the edited message, in conflict", onB: [edit("m-1", "edited", at: 1_000)],
            onC: [remove("m-1")],
            conflicts: ["messages/m-1"], title: "Plans", favorite: false, deleted: false,
            messages: ["m-1:edited", "m-2:hello"]),
        Concurrent(
            name: "remove vs later edit: same", onB: [remove("m-1")], onC: [edit("m-1", "edited", at: 1_000)],
            conflicts: ["messages/m-1"], title: "Plans", favorite: false, deleted: false,
            messages: ["m-1:edited", "m-2:hello"]),
        Concurrent(
            name: "remove vs remove: gone, no conflict", onB: [remove("m-1")], onC: [remove("m-1"), favorite(true)],
            conflicts: [], title: "Plans", favorite: true, deleted: false, messages: ["m-2:hello"]),
        Concurrent(
            name: "edit vs edit of one message: conflict on it", onB: [edit("m-2", "x", at: 1_001)],
            onC: [edit("m-2", "y", at: 1_001)],
            conflicts: ["messages/m-2"], title: "Plans", favorite: false, deleted: false, messages: ["m-1:hi", "m-2:y"]),
        Concurrent(
            name: "remove vs add of another message: no conflict", onB: [remove("m-2")],
            onC: [add("m-c", "new", at: 3_000)],
            conflicts: [], title: "Plans", favorite: false, deleted: false, messages: ["m-1:hi", "m-c:new"]),
        Concurrent(
            name: "edit vs later delete: conflict on deleted, deleted shown", onB: [title("Trip")], onC: [.delete],
            conflicts: ["deleted"], title: "Trip", favorite: false, deleted: true, messages: ["m-1:hi", "m-2:hello"]),
        Concurrent(
            name: "delete vs later edit: conflict on deleted, not deleted shown", onB: [.delete],
            onC: [edit("m-1", "still here", at: 1_000)],
            conflicts: ["deleted"], title: "Plans", favorite: false, deleted: false,
            messages: ["m-1:still here", "m-2:hello"]),
        Concurrent(
            name: "delete vs delete: deleted, no conflict", onB: [.delete], onC: [.delete],
            conflicts: [], title: "Plans", favorite: false, deleted: true, messages: ["m-1:hi", "m-2:hello"]),
    ]

    @Test("Concurrent versions of B and C after A's creation", arguments: concurrentCases)
    func concurrent(_ t: Concurrent) throws {
        // Given B and C's versions, written on A's creation without seeing each other
        let onB = Self.version(Self.b, [Self.a: 1, Self.b: 1], at: 2_000, t.onB)
        let onC = Self.version(Self.c, [Self.a: 1, Self.c: 1], at: 3_000, t.onC)
        let all = [Self.creation, onB, onC]
        // When they arrive in any order
        let states = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]].map {
            Self.state($0.map { all[$0] })
        }
        // Then every order gives the same state
        #expect(Set(states).count == 1)
        let s = states[0]
        // and exactly the expected conflicts, with what docs/DESIGN.md §3.6 shows
        #expect(s.conflicts.map(\.name) == t.conflicts)
        #expect(s.isConflict == !t.conflicts.isEmpty)
        #expect(try s.title(Self.resolve) == t.title)
        #expect(s.favorite == t.favorite)
        #expect(s.isDeleted == t.deleted)
        #expect(try Self.messages(s) == t.messages)
        // and an edit vs remove names the remove it had not seen
        if let conflict = s.conflicts.first(where: { $0.element != nil }), t.name.contains("remove") {
            #expect(conflict.removes.map(\.device) == [t.onB.contains(Self.remove("m-1")) ? Self.b : Self.c])
        }

        // When A, having seen both, sets the conflicting fields to what is shown
        var resolved = s
        let r = resolution(of: s, record: Self.chat, by: Self.a, at: HybridLogicalTime(wall: 4_000))
        #expect(r.clock == VectorClock([Self.a: 2, Self.b: 1, Self.c: 1]))
        resolved.merge(r, ops: r.ops)
        // Then nothing is in conflict and nothing shown changed
        #expect(resolved.conflicts.isEmpty)
        #expect(try Self.messages(resolved) == t.messages)
        #expect(try resolved.title(Self.resolve) == t.title)
        #expect(resolved.isDeleted == t.deleted)
    }

    /// Sequential versions: each saw the one before, so nothing is ever in conflict.
    struct Sequential: Sendable, CustomTestStringConvertible {
        let name: String
        let onB: [Operation]
        let onC: [Operation]
        let deleted: Bool
        let messages: [String]
        var testDescription: String { name }
    }

    static let sequentialCases: [Sequential] = [
        Sequential(
            name: "a remove after seeing an edit drops the message", onB: [edit("m-1", "edited", at: 1_000)],
            onC: [remove("m-1")],
            deleted: false, messages: ["m-2:hello"]),
        Sequential(
            name: "an edit after seeing a remove brings the message back", onB: [remove("m-1")],
            onC: [edit("m-1", "back", at: 1_000)],
            deleted: false, messages: ["m-1:back", "m-2:hello"]),
        Sequential(
            name: "an edit after seeing a delete undeletes", onB: [.delete], onC: [title("Trip")], deleted: false,
            messages: ["m-1:hi", "m-2:hello"]),
        Sequential(
            name: "a restore after a delete", onB: [.delete], onC: [.restore], deleted: false,
            messages: ["m-1:hi", "m-2:hello"]),
        Sequential(
            name: "a delete after an edit", onB: [title("Trip")], onC: [.delete], deleted: true,
            messages: ["m-1:hi", "m-2:hello"]),
        Sequential(
            name: "a version that renames and deletes is a delete", onB: [.restore], onC: [title("T"), .delete],
            deleted: true, messages: ["m-1:hi", "m-2:hello"]),
    ]

    @Test("Causally ordered versions never conflict", arguments: sequentialCases)
    func sequential(_ t: Sequential) throws {
        let onB = Self.version(Self.b, [Self.a: 1, Self.b: 1], at: 2_000, t.onB)
        // C saw B's version; its wall clock is behind, which must not matter
        let onC = Self.version(Self.c, [Self.a: 1, Self.b: 1, Self.c: 1], at: 500, t.onC)
        for order in [[Self.creation, onB, onC], [onC, onB, Self.creation], [onB, onC, Self.creation]] {
            let s = Self.state(order)
            #expect(s.conflicts.isEmpty, "\(s.conflicts.map(\.name))")
            #expect(s.isDeleted == t.deleted)
            #expect(try Self.messages(s) == t.messages)
        }
    }

    @Test(
        "HLC: a device whose wall clock is a year ahead loses to an edit made after seeing its edit, and its later edit of another field takes nothing else"
    )
    func skewedClockDoesNotWin() throws {
        let real: Int64 = 1_764_417_600_000
        let future = real + 365 * 86_400_000
        // Given A, a year ahead, renames the chat
        var hlcA = HybridLogicalTime.zero.tick(now: future)
        let renameA = Version(
            record: Self.chat, kind: .chat, clock: VectorClock([Self.a: 1]), time: hlcA, device: Self.a,
            ops: [Self.title("From A")])
        // When B, whose clock is right, receives it and renames again
        var hlcB = HybridLogicalTime.zero.tick(now: real)
        hlcB = hlcB.receiving(renameA.time, now: real + 100)
        hlcB = hlcB.tick(now: real + 200)
        let renameB = Version(
            record: Self.chat, kind: .chat, clock: VectorClock([Self.a: 1, Self.b: 1]), time: hlcB, device: Self.b,
            ops: [Self.title("From B")])
        // Then B's HLC is past A's although its wall clock is a year behind, and B's title shows, with no conflict
        #expect(renameB.time > renameA.time)
        for order in [[renameA, renameB], [renameB, renameA]] {
            let s = Self.state(order)
            #expect(try s.title(Self.resolve) == "From B" && s.conflicts.isEmpty)
        }
        // When A, not having seen B's rename, then sets favorite (later by any clock)
        hlcA = hlcA.tick(now: future + 1_000)
        let favoriteA = Version(
            record: Self.chat, kind: .chat, clock: VectorClock([Self.a: 2]), time: hlcA, device: Self.a,
            ops: [Self.favorite(true)])
        let s = Self.state([renameA, favoriteA, renameB])
        // Then B's title stays (fields merge on their own), A's favorite shows, and nothing is in conflict
        #expect(try s.title(Self.resolve) == "From B")
        #expect(s.favorite && s.conflicts.isEmpty)
        // And a concurrent rename from A is a conflict, which A's later HLC wins until someone resolves it
        hlcA = hlcA.tick(now: future + 2_000)
        let renameA2 = Version(
            record: Self.chat, kind: .chat, clock: VectorClock([Self.a: 3]), time: hlcA, device: Self.a,
            ops: [Self.title("A again")])
        var t = Self.state([renameA, favoriteA, renameB, renameA2])
        #expect(t.conflicts.map(\.name) == ["title"])
        #expect(try t.title(Self.resolve) == "A again")
        // C, with a right clock, resolves on the join: its HLC comes after everything it saw
        let hlcC = HybridLogicalTime.zero.tick(now: real + 300).receiving(t.latestTime, now: real + 400)
        let pickB = makeVersion(on: t, record: Self.chat, by: Self.c, at: hlcC, [Self.title("From B")])
        t.merge(pickB, ops: pickB.ops)
        #expect(try t.title(Self.resolve) == "From B" && t.conflicts.isEmpty)
    }

    @Test("An edit made after seeing both an edit and a concurrent remove settles the message: no conflict")
    func editAfterEditVersusRemove() throws {
        // Given B's edit and C's remove of m-1, concurrent: a conflict on the message
        let onB = Self.version(Self.b, [Self.a: 1, Self.b: 1], at: 2_000, [Self.edit("m-1", "edited", at: 1_000)])
        let onC = Self.version(Self.c, [Self.a: 1, Self.c: 1], at: 3_000, [Self.remove("m-1")])
        #expect(Self.state([Self.creation, onB, onC]).conflicts.map(\.name) == ["messages/m-1"])
        // When A, having seen both, edits it again, or removes it
        let keep = Self.version(
            Self.a, [Self.a: 2, Self.b: 1, Self.c: 1], at: 4_000, [Self.edit("m-1", "kept", at: 1_000)])
        let drop = Self.version(Self.a, [Self.a: 2, Self.b: 1, Self.c: 1], at: 4_000, [Self.remove("m-1")])
        for order in [[0, 1, 2, 3], [3, 2, 1, 0], [2, 3, 0, 1]] {
            // Then, in any order, nothing is in conflict: the message shows A's text, or is gone
            let kept = Self.state(order.map { [Self.creation, onB, onC, keep][$0] })
            #expect(kept.conflicts.isEmpty, "\(kept.conflicts.map(\.name))")
            #expect(try Self.messages(kept) == ["m-1:kept", "m-2:hello"])
            let dropped = Self.state(order.map { [Self.creation, onB, onC, drop][$0] })
            #expect(dropped.conflicts.isEmpty, "\(dropped.conflicts.map(\.name))")
            #expect(try Self.messages(dropped) == ["m-2:hello"])
        }
    }

    @Test("Messages show in (message time, HLC, id) order", arguments: [false, true])
    func messageOrder(reversed: Bool) throws {
        // Given messages with equal times written at different HLCs, and two in one version
        let v1 = Self.version(
            Self.a, [Self.a: 1], at: 1_000,
            [Self.title("T"), Self.add("m-9", "first by HLC", at: 5_000), Self.add("m-3", "early", at: 10)])
        let v2 = Self.version(Self.b, [Self.b: 1], at: 2_000, [Self.add("m-1", "second by HLC", at: 5_000)])
        let v3 = Self.version(
            Self.c, [Self.c: 1], at: 1_000, [Self.add("m-5", "same time and HLC as m-9, smaller id", at: 5_000)])
        let s = Self.state(reversed ? [v3, v2, v1] : [v1, v2, v3])
        // Then time first, then the HLC of the writing version, then the element id
        #expect(try Self.messages(s).map { String($0.prefix(3)) } == ["m-3", "m-5", "m-9", "m-1"])
    }

    @Test("merge reports news: a new version true, a known one or one of another kind false; clock and time join")
    func mergeReportsNews() {
        var s = RecordState(kind: .chat)
        #expect(s.clock == VectorClock() && s.latestTime == .zero && s.value("title") == nil && !s.isDeleted)
        let concurrent = Self.version(Self.b, [Self.b: 1], at: 900, [Self.favorite(true)])
        let first = s.merge(Self.creation, ops: Self.creation.ops)
        let again = s.merge(Self.creation, ops: Self.creation.ops)
        let other = s.merge(concurrent, ops: concurrent.ops)
        #expect(first && !again && other)
        let story = Version(
            record: RecordID("story-1")!, kind: .story, clock: VectorClock([Self.c: 1]),
            time: HybridLogicalTime(wall: 9_000),
            device: Self.c, ops: [Self.title("A story")])
        let before = s
        #expect(!s.merge(story, ops: story.ops) && s == before)
        #expect(s.clock == VectorClock([Self.a: 1, Self.b: 1]) && s.latestTime == HybridLogicalTime(wall: 1_000))
        #expect(s.versionIDs == [Self.creation.id, concurrent.id])
        // A's creation and B's version are concurrent: only favorite, which both set to distinct values, conflicts
        #expect(s.conflicts.map(\.name) == ["favorite"])
    }

    @Test("The same value inline on one device and as an object on another is one value, not a conflict")
    func inlineAndObjectAreOneValue() throws {
        let json = JSONValue.string("A long title")
        let digest = SHA256.hash(json.canonicalBytes)
        let onB = Self.version(Self.b, [Self.a: 1, Self.b: 1], at: 2_000, [.set(field: "title", value: .inline(json))])
        let onC = Self.version(
            Self.c, [Self.a: 1, Self.c: 1], at: 3_000, [.set(field: "title", value: .object(digest))])
        let s = Self.state([Self.creation, onB, onC])
        #expect(s.registers["title"]?.count == 2 && s.conflicts.isEmpty)
        let resolve: RecordState.Resolver = { (d: SHA256Digest) throws(AISyncError) -> JSONValue in
            guard d == digest else { throw .damaged("unknown object") }
            return json
        }
        #expect(try s.title(resolve) == "A long title")
    }
}
