import Testing
@testable import AISync

// Property tests for the multi-value register of design §3 (RecordState).
//
// Every test is driven by seeded, deterministic random histories: 3–5 devices with skewed wall
// clocks edit and delete a handful of records and now and then pull random subsets of the other
// devices' versions, as sync would. The properties are then checked against a brute-force model
// that does not use RecordState (nor VectorClock's order helpers), and every failure message
// names the seed, so `MergeHistory.generate(seed:)` reproduces it exactly.

// MARK: - Deterministic randomness

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and the same sequence on every platform.
private typealias SplitMix64 = SeededGenerator

extension SeededGenerator {

    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }

    mutating func digest() -> SHA256Digest {
        SHA256Digest(bytes: (0..<4).flatMap { _ in withUnsafeBytes(of: next()) { Array($0) } })
    }

    mutating func deviceID() -> DeviceID {
        let hex = Array("0123456789abcdef")
        return DeviceID(String((0..<32).map { _ in hex[Int.random(in: 0..<16, using: &self)] }))!
    }

    /// A random subset (each element kept with probability `p`), shuffled.
    mutating func subset<T>(of items: [T], p: Double) -> [T] {
        var out = items.filter { _ in chance(p) }
        out.shuffle(using: &self)
        return out
    }
}

/// 200 seeds in 25 groups of 8: each group is one parameterized test case, so a failing case
/// names its group, and every message inside names the exact seed.
private let seedGroups = Array(0..<25)
private func seeds(ofGroup group: Int) -> [UInt64] {
    (0..<8).map { 0x5EED_0000 + UInt64(group * 8 + $0) }
}

/// The histories are generated once (lazily, thread-safely) and shared by all property tests.
private let cachedHistories: [UInt64: MergeHistory] = Dictionary(
    uniqueKeysWithValues: seedGroups.flatMap(seeds(ofGroup:)).map { ($0, MergeHistory.generate(seed: $0)) })

private func history(seed: UInt64) -> MergeHistory { cachedHistories[seed] ?? MergeHistory.generate(seed: seed) }

// MARK: - Random histories

/// One simulated device: its id, how wrong its wall clock is, its HLC and what it knows.
private struct SimDevice {
    let id: DeviceID
    let skew: Int64
    var hlc = HybridLogicalTime.zero
    var states: [RecordID: RecordState] = [:]
}

private struct MergeHistory {
    let seed: UInt64
    let devices: [DeviceID]
    let records: [RecordID]
    let kinds: [RecordID: RecordKind]
    /// Every version ever written, in creation order.
    let versions: [Version]
    /// What each device knew at the end of the history.
    let deviceStates: [[RecordID: RecordState]]
    /// The devices' HLCs at the end.
    let deviceTimes: [HybridLogicalTime]
    /// Local edits that did not replace every sibling the device knew (must be empty: design §3).
    let issues: [String]

    func versions(of record: RecordID) -> [Version] { versions.filter { $0.record == record } }

    static func generate(seed: UInt64) -> MergeHistory {
        var rng = SplitMix64(seed: seed)
        let deviceCount = Int.random(in: 3...5, using: &rng)
        var devices: [SimDevice] = (0..<deviceCount).map { _ in
            // Most clocks are a little off; some are far in the future or the past.
            let skew: Int64 = switch Int.random(in: 0..<6, using: &rng) {
            case 0: 0
            case 1: Int64.random(in: 86_400_000...(400 * 86_400_000), using: &rng)      // days ahead
            case 2: -Int64.random(in: 86_400_000...(400 * 86_400_000), using: &rng)     // days behind
            default: Int64.random(in: -120_000...120_000, using: &rng)                  // minutes off
            }
            return SimDevice(id: rng.deviceID(), skew: skew)
        }
        let records = (0..<Int.random(in: 2...4, using: &rng)).map { RecordID("rec-\($0)")! }
        let kinds = Dictionary(uniqueKeysWithValues: records.map { ($0, RecordKind.allCases.randomElement(using: &rng)!) })

        var physical: Int64 = 1_764_417_600_000
        var all: [Version] = []
        var issues: [String] = []
        for _ in 0..<Int.random(in: 16...48, using: &rng) {
            // Real time only moves forward; sometimes several events share a millisecond.
            physical += Int64.random(in: 0...3_000, using: &rng)
            let d = Int.random(in: 0..<deviceCount, using: &rng)
            let now = physical + devices[d].skew
            let others = all.filter { $0.device != devices[d].id }
            if all.isEmpty || others.isEmpty || rng.chance(0.65) {
                // A local edit or delete: the clock is the join of the device's siblings plus one
                // on itself, and the HLC is later than everything the device has seen.
                let record = records.randomElement(using: &rng)!
                let state = devices[d].states[record] ?? RecordState()
                devices[d].hlc = max(devices[d].hlc, state.latestTime).tick(now: now)
                let body: SHA256Digest? = !state.siblings.isEmpty && rng.chance(0.25) ? nil : rng.digest()
                let v = Version(record: record, kind: kinds[record]!, clock: state.joinedClock.incremented(for: devices[d].id),
                                time: devices[d].hlc, device: devices[d].id, body: body)
                var next = state
                let changed = next.merge(v)
                if !changed || next.siblings != [v] {
                    issues.append("local edit \(v.shortID) on \(record) left \(describe(next)) (before: \(describe(state)))")
                }
                devices[d].states[record] = next
                all.append(v)
            } else {
                // A pull: some versions written by other devices, in any order, maybe out of causal order.
                for v in rng.subset(of: others, p: Double.random(in: 0.1...0.9, using: &rng)) {
                    devices[d].hlc = devices[d].hlc.receiving(v.time, now: now)
                    devices[d].states[v.record, default: RecordState()].merge(v)
                }
            }
        }
        return MergeHistory(seed: seed, devices: devices.map(\.id), records: records, kinds: kinds, versions: all,
                            deviceStates: devices.map(\.states), deviceTimes: devices.map(\.hlc), issues: issues)
    }
}

// MARK: - Brute-force model (independent of the code under test)

/// `a ≤ b` component-wise, straight from the counters.
private func clockLE(_ a: VectorClock, _ b: VectorClock) -> Bool {
    a.counters.allSatisfy { key, value in (b.counters[key] ?? 0) >= value }
}

private func clockLT(_ a: VectorClock, _ b: VectorClock) -> Bool { clockLE(a, b) && a.counters != b.counters }

/// The versions not dominated by any other version of the set.
private func maximalIDs(_ versions: [Version]) -> Set<SHA256Digest> {
    Set(versions.filter { v in !versions.contains { clockLT(v.clock, $0.clock) } }.map(\.id))
}

/// Last-writer-wins key: greater HLC wins, then greater device id.
private func lwwKey(_ v: Version) -> (Int64, Int64, String) { (v.time.wall, v.time.counter, v.device.rawValue) }

private func bruteWinner(_ versions: [Version]) -> Version? {
    versions.max { lwwKey($0) < lwwKey($1) }
}

private func joined(_ a: RecordState, _ b: RecordState) -> RecordState {
    var x = a
    x.merge(b)
    return x
}

/// Delivers `versions` to a fresh replica: shuffled, with duplicates, in random batches, each
/// batch applied either version by version or as a pre-merged RecordState (as a pulled segment would be).
private func deliver(_ versions: [Version], startingFrom start: [RecordID: RecordState] = [:],
                     using rng: inout SplitMix64) -> [RecordID: RecordState] {
    var pool = versions + rng.subset(of: versions, p: 0.3)
    pool.shuffle(using: &rng)
    var replica = start
    var i = 0
    while i < pool.count {
        let batch = pool[i..<min(pool.count, i + Int.random(in: 1...8, using: &rng))]
        i += batch.count
        if rng.chance(0.5) {
            for v in batch { replica[v.record, default: RecordState()].merge(v) }
        } else {
            for (record, group) in Dictionary(grouping: batch, by: \.record) {
                replica[record, default: RecordState()].merge(RecordState(group))
            }
        }
    }
    return replica
}

private func describe(_ state: RecordState?) -> String {
    guard let state else { return "<none>" }
    return "[" + state.siblings.map { "\($0.shortID)@\($0.time)/\($0.device.short)\($0.isDeleted ? " (deleted)" : "")" }
        .joined(separator: ", ") + "]"
}

// MARK: - Tests

@Suite("Merge properties (random histories)")
struct MergePropertyTests {

    @Test("(a) every replica converges, whatever the delivery order, batching and duplicates", arguments: seedGroups)
    func replicasConverge(group: Int) {
        for seed in seeds(ofGroup: group) {
            // Given a random history
            let history = history(seed: seed)
            var rng = SplitMix64(seed: seed ^ 0xDE11_7E12)

            // When every version is delivered to several fresh replicas, and to each original
            // device on top of what it already knew
            var replicas = (0..<4).map { _ in deliver(history.versions, using: &rng) }
            for states in history.deviceStates { replicas.append(deliver(history.versions, startingFrom: states, using: &rng)) }

            // Then all of them hold the same state for every record: same siblings, same order, same winner
            for record in history.records {
                let expected = history.versions(of: record).isEmpty ? nil : RecordState(history.versions(of: record))
                for (n, replica) in replicas.enumerated() {
                    #expect(replica[record] == expected,
                            "seed \(seed) record \(record) replica \(n): \(describe(replica[record])) != \(describe(expected))")
                    #expect(replica[record]?.winner == expected?.winner, "seed \(seed) record \(record) replica \(n): winner differs")
                }
            }
        }
    }

    @Test("(b) merge is commutative, associative and idempotent", arguments: seedGroups)
    func joinIsASemilattice(group: Int) {
        for seed in seeds(ofGroup: group) {
            let history = history(seed: seed)
            var rng = SplitMix64(seed: seed ^ 0x1A77_1CE5)
            for record in history.records {
                let versions = history.versions(of: record)
                func randomState() -> RecordState { RecordState(rng.subset(of: versions, p: Double.random(in: 0...1, using: &rng))) }
                for trial in 0..<12 {
                    // Given three states built from random subsets of the record's versions
                    let a = randomState(), b = randomState(), c = randomState()
                    let where_ = "seed \(seed) record \(record) trial \(trial)"

                    // Then
                    #expect(joined(a, b) == joined(b, a), "\(where_): merge(a,b) != merge(b,a): \(describe(joined(a, b))) vs \(describe(joined(b, a)))")
                    #expect(joined(joined(a, b), c) == joined(a, joined(b, c)), "\(where_): merge is not associative")
                    #expect(joined(a, a) == a, "\(where_): merge(a,a) != a: \(describe(joined(a, a))) vs \(describe(a))")
                    #expect(joined(a, RecordState()) == a && joined(RecordState(), a) == a, "\(where_): the empty state is not the identity")
                    // and merging a state into one that already includes it changes nothing
                    let ab = joined(a, b)
                    #expect(joined(ab, b) == ab, "\(where_): re-merging b changed merge(a,b)")
                    // and each state is exactly the maximal versions of what built it (checked in (c) for the whole set)
                    #expect(Set(a.siblings.map(\.id)).count == a.siblings.count, "\(where_): duplicate siblings \(describe(a))")
                }
            }
        }
    }

    @Test("(c) no undominated version is ever lost: siblings are exactly the maximal versions", arguments: seedGroups)
    func siblingsAreTheMaximalVersions(group: Int) {
        for seed in seeds(ofGroup: group) {
            let history = history(seed: seed)
            var rng = SplitMix64(seed: seed ^ 0xC0FF_EE00)
            let replica = deliver(history.versions, using: &rng)
            for record in history.records {
                let versions = history.versions(of: record)
                guard !versions.isEmpty else { continue }
                let state = replica[record] ?? RecordState()
                // Then the siblings are exactly the brute-force maximal set
                let expected = maximalIDs(versions)
                #expect(Set(state.siblings.map(\.id)) == expected && state.siblings.count == expected.count,
                        "seed \(seed) record \(record): siblings \(describe(state)) but \(expected.count) maximal versions")
                // and every version written is either a sibling or dominated by one
                for v in versions {
                    #expect(state.siblings.contains { $0.id == v.id || clockLT(v.clock, $0.clock) },
                            "seed \(seed) record \(record): version \(v.shortID) was lost")
                }
                // and what each device knows mid-sync is an antichain (no sibling dominates another)
                for (n, states) in history.deviceStates.enumerated() {
                    guard let known = states[record] else { continue }
                    for s in known.siblings {
                        #expect(!known.siblings.contains { clockLT(s.clock, $0.clock) },
                                "seed \(seed) device \(n): sibling \(s.shortID) is dominated by another sibling")
                    }
                }
            }
        }
    }

    @Test("(d) the winner is the sibling with the greatest (HLC, device id), siblings sorted winner first", arguments: seedGroups)
    func winnerIsLastWriter(group: Int) {
        for seed in seeds(ofGroup: group) {
            let history = history(seed: seed)
            var rng = SplitMix64(seed: seed ^ 0x0000_3141)
            let replica = deliver(history.versions, using: &rng)
            for record in history.records {
                guard let state = replica[record] else { continue }
                let maximal = maximalIDs(history.versions(of: record))
                let candidates = history.versions(of: record).filter { maximal.contains($0.id) }
                #expect(state.winner?.id == bruteWinner(candidates)?.id,
                        "seed \(seed) record \(record): winner \(state.winner?.shortID ?? "-") in \(describe(state))")
                #expect(state.isDeleted == (bruteWinner(candidates)?.isDeleted ?? true), "seed \(seed) record \(record): isDeleted")
                #expect(state.isConflict == (candidates.count > 1), "seed \(seed) record \(record): isConflict")
                let keys = state.siblings.map(lwwKey)
                #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 > $1 },
                        "seed \(seed) record \(record): siblings not in strictly decreasing (HLC, device) order: \(describe(state))")
            }
        }
    }

    @Test("(e) a version on the join of all siblings plus one dominates them and closes the conflict", arguments: seedGroups)
    func resolvingVersionClosesConflict(group: Int) {
        for seed in seeds(ofGroup: group) {
            let history = history(seed: seed)
            var rng = SplitMix64(seed: seed ^ 0x0E50_17ED)
            // Every local edit during the history already closed the siblings its device knew
            #expect(history.issues.isEmpty, "seed \(seed): \(history.issues.prefix(3))")
            let replica = deliver(history.versions, using: &rng)
            for record in history.records {
                guard let state = replica[record] else { continue }
                for (n, device) in history.devices.enumerated() {
                    // Given the final state and a resolving version written by any device
                    let time = max(history.deviceTimes[n], state.latestTime).tick(now: 0)
                    let resolution = Version(record: record, kind: history.kinds[record]!, clock: state.joinedClock.incremented(for: device),
                                             time: time, device: device, body: rng.chance(0.2) ? nil : rng.digest())
                    // Then it dominates every sibling
                    for s in state.siblings {
                        #expect(s.clock.isDominated(by: resolution.clock) && clockLT(s.clock, resolution.clock),
                                "seed \(seed) record \(record): resolution does not dominate \(s.shortID)")
                        #expect(!s.clock.isConcurrent(with: resolution.clock), "seed \(seed): resolution concurrent with \(s.shortID)")
                    }
                    // When it is merged
                    var closed = state
                    let changed = closed.merge(resolution)
                    #expect(changed, "seed \(seed) record \(record): merging the resolution changed nothing")
                    // Then one sibling is left: the resolution
                    #expect(closed.siblings == [resolution] && !closed.isConflict,
                            "seed \(seed) record \(record) device \(n): \(describe(closed))")
                    // and that holds on a replica that sees the resolution before everything else
                    var early = RecordState([resolution])
                    for v in rng.subset(of: history.versions(of: record), p: 1) { early.merge(v) }
                    #expect(early.siblings == [resolution], "seed \(seed) record \(record): late old versions reopened the conflict: \(describe(early))")
                }
            }
        }
    }

    @Test("(e') a version on the join of only some siblings leaves exactly the brute-force maximal set", arguments: seedGroups)
    func partialResolutionKeepsOthers(group: Int) {
        for seed in seeds(ofGroup: group) {
            let history = history(seed: seed)
            var rng = SplitMix64(seed: seed ^ 0x9A27_1A10)
            let replica = deliver(history.versions, using: &rng)
            for record in history.records {
                guard let state = replica[record], state.isConflict else { continue }
                let seen = Array(state.siblings.dropLast())   // a device that missed the last sibling
                let device = history.devices.randomElement(using: &rng)!
                let v = Version(record: record, kind: history.kinds[record]!,
                                clock: RecordState(seen).joinedClock.incremented(for: device),
                                time: state.latestTime.tick(now: 0), device: device, body: rng.digest())
                var merged = state
                merged.merge(v)
                #expect(Set(merged.siblings.map(\.id)) == maximalIDs(state.siblings + [v]),
                        "seed \(seed) record \(record): \(describe(merged))")
                #expect(merged.siblings.contains(v), "seed \(seed) record \(record): the new version was dropped")
            }
        }
    }

    @Test("The generated histories are not vacuous: they contain conflicts, deletions and edit-vs-delete conflicts")
    func historiesExerciseConflicts() {
        var conflicts = 0, deleteConflicts = 0, deletions = 0, records = 0
        for group in seedGroups {
            for seed in seeds(ofGroup: group) {
                let history = history(seed: seed)
                #expect((3...5).contains(history.devices.count), "seed \(seed)")
                for record in history.records {
                    let versions = history.versions(of: record)
                    guard !versions.isEmpty else { continue }
                    records += 1
                    let maximalSet = maximalIDs(versions)
                    let maximal = versions.filter { maximalSet.contains($0.id) }
                    if maximal.count > 1 { conflicts += 1 }
                    if maximal.contains(where: \.isDeleted) && maximal.contains(where: { !$0.isDeleted }) { deleteConflicts += 1 }
                    deletions += versions.filter(\.isDeleted).count
                }
            }
        }
        print("merge histories: \(records) records, \(conflicts) end in conflict, \(deleteConflicts) edit-vs-delete, \(deletions) deletions")
        #expect(records >= 400)
        #expect(conflicts >= records / 5, "only \(conflicts) of \(records) records end in a conflict")
        #expect(deleteConflicts >= 10, "only \(deleteConflicts) edit-vs-delete conflicts")
        #expect(deletions >= 100)
    }
}

// MARK: - Hand-written scenarios

@Suite("Merge scenarios")
struct MergeScenarioTests {
    private static let a = DeviceID(String(repeating: "a", count: 32))!
    private static let b = DeviceID(String(repeating: "b", count: 32))!
    private static let c = DeviceID(String(repeating: "c", count: 32))!
    private static let record = RecordID("chat-1")!

    private static func version(_ device: DeviceID, _ clock: [DeviceID: Int64], at wall: Int64, counter: Int64 = 0,
                                body: UInt8? = 1) -> Version {
        Version(record: record, kind: .chat, clock: VectorClock(clock), time: HybridLogicalTime(wall: wall, counter: counter),
                device: device, body: body.map { SHA256Digest(bytes: Array(repeating: $0, count: 32)) })
    }

    @Test("(f) concurrent edit vs delete is a conflict kept as two siblings", arguments: [true, false])
    func editVersusDelete(deleteIsLater: Bool) {
        // Given a version from A that B and C both received
        let base = Self.version(Self.a, [Self.a: 1], at: 1_000)
        // When B edits it and C deletes it without seeing each other
        let edit = Self.version(Self.b, [Self.a: 1, Self.b: 1], at: deleteIsLater ? 2_000 : 3_000, body: 2)
        let delete = Self.version(Self.c, [Self.a: 1, Self.c: 1], at: deleteIsLater ? 3_000 : 2_000, body: nil)
        #expect(edit.clock.isConcurrent(with: delete.clock))

        for order in [[base, edit, delete], [delete, base, edit], [edit, delete, base], [delete, edit]] {
            let state = RecordState(order)
            // Then both survive, the later one is visible, and the record is deleted only if the delete won
            #expect(state.siblings.count == 2 && state.isConflict, "\(describe(state))")
            #expect(Set(state.siblings.map(\.id)) == [edit.id, delete.id])
            #expect(state.winner == (deleteIsLater ? delete : edit))
            #expect(state.isDeleted == deleteIsLater)
        }

        // And a resolution by A on the joined clock closes it
        var state = RecordState([edit, delete])
        let resolution = Self.version(Self.a, state.joinedClock.incremented(for: Self.a).counters, at: 4_000, body: 3)
        #expect(state.joinedClock == VectorClock([Self.a: 1, Self.b: 1, Self.c: 1]))
        state.merge(resolution)
        #expect(state.siblings == [resolution])
        #expect(!state.isDeleted)
    }

    @Test("An edit after seeing a delete replaces it (undelete), a stale edit does not come back")
    func deleteThenEdit() {
        let v1 = Self.version(Self.a, [Self.a: 1], at: 1_000)
        let del = Self.version(Self.b, [Self.a: 1, Self.b: 1], at: 2_000, body: nil)
        let undelete = Self.version(Self.a, [Self.a: 2, Self.b: 1], at: 3_000, body: 5)
        var s = RecordState([v1, del])
        #expect(s.isDeleted && s.siblings == [del])
        s.merge(undelete)
        #expect(s.siblings == [undelete] && !s.isDeleted)
        let changedByV1 = s.merge(v1), changedByDel = s.merge(del)
        #expect(!changedByV1 && !changedByDel, "dominated versions must not change the state")
        #expect(s.siblings == [undelete])
    }

    @Test("HLC, not the wall clock, orders writers: a skewed-ahead device's stale edit loses to one made after seeing it")
    func skewedClockDoesNotWinForever() {
        // Given A whose wall clock is a year ahead writes first
        let future: Int64 = 1_764_417_600_000 + 365 * 86_400_000
        var hlcA = HybridLogicalTime.zero.tick(now: future)
        let fromA = Version(record: Self.record, kind: .chat, clock: VectorClock([Self.a: 1]), time: hlcA, device: Self.a,
                            body: SHA256Digest(bytes: Array(repeating: 1, count: 32)))
        // When B (correct clock) receives it and edits
        var hlcB = HybridLogicalTime.zero.tick(now: 1_764_417_600_000)
        hlcB = hlcB.receiving(fromA.time, now: 1_764_417_600_100)
        hlcB = hlcB.tick(now: 1_764_417_600_200)
        let fromB = Version(record: Self.record, kind: .chat, clock: VectorClock([Self.a: 1, Self.b: 1]), time: hlcB, device: Self.b,
                            body: SHA256Digest(bytes: Array(repeating: 2, count: 32)))
        // Then B's edit is later in HLC and dominates
        #expect(fromB.time > fromA.time)
        #expect(RecordState([fromB, fromA]).siblings == [fromB])
        // And if A then writes concurrently with B's edit, the LWW order is still by HLC, then device
        hlcA = hlcA.tick(now: future - 5)   // A's clock even stepped back
        let concurrentA = Version(record: Self.record, kind: .chat, clock: VectorClock([Self.a: 2]), time: hlcA, device: Self.a,
                                  body: SHA256Digest(bytes: Array(repeating: 3, count: 32)))
        let state = RecordState([fromA, fromB, concurrentA])
        #expect(state.siblings.count == 2)
        #expect(state.winner == (concurrentA.time > fromB.time ? concurrentA : fromB))
    }

    @Test("Equal HLC: the greater device id wins", arguments: [false, true])
    func deviceIDBreaksTies(swap: Bool) {
        let x = Self.version(Self.a, [Self.a: 1], at: 5_000, counter: 2, body: 1)
        let y = Self.version(Self.c, [Self.c: 1], at: 5_000, counter: 2, body: 2)
        let state = RecordState(swap ? [y, x] : [x, y])
        #expect(state.winner == y)
        #expect(state.siblings == [y, x])
    }

    @Test("A misbehaving device reusing a clock with other content still gives an order-independent result")
    func equalClocksDifferentContent() {
        let x = Self.version(Self.a, [Self.a: 1], at: 1_000, body: 1)
        let y = Self.version(Self.a, [Self.a: 1], at: 1_001, body: 2)
        let z = Self.version(Self.b, [Self.b: 1], at: 900, body: 3)
        let orders: [[Version]] = [[x, y, z], [y, x, z], [z, y, x], [z, x, y], [x, z, y], [y, z, x]]
        let states = orders.map { RecordState($0) }
        #expect(Set(states).count == 1, "\(states.map(describe))")
        #expect(states[0].siblings == [y, z])
    }

    @Test("Merging an already-known version reports no change; a new concurrent one reports a change")
    func mergeReportsChange() {
        let v1 = Self.version(Self.a, [Self.a: 1], at: 1_000)
        let v2 = Self.version(Self.b, [Self.b: 1], at: 1_000)
        var s = RecordState()
        #expect(s.isDeleted && s.winner == nil && s.joinedClock == VectorClock() && s.latestTime == .zero)
        let first = s.merge(v1), again = s.merge(v1), concurrent = s.merge(v2)
        #expect(first)
        #expect(!again)
        #expect(concurrent)
        #expect(s.latestTime == HybridLogicalTime(wall: 1_000))
        #expect(s.joinedClock == VectorClock([Self.a: 1, Self.b: 1]))
    }
}
