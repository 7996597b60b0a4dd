import AISyncTestSupport
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncTesting

// Timestamps, vector clocks, hybrid logical clocks, versions and ids (docs/DESIGN.md §3.4, Schemas/README.md).

/// Seeded, so the random round-trips are the same on every run and platform.
private typealias ClockRNG = SeededGenerator

private let deviceA = DeviceID(String(repeating: "a", count: 32))!
private let deviceB = DeviceID(String(repeating: "b", count: 32))!
private let deviceC = DeviceID(String(repeating: "c", count: 32))!

private func digest(_ byte: UInt8) -> SHA256Digest { SHA256Digest(bytes: Array(repeating: byte, count: 32)) }

private func clock(_ counters: [DeviceID: Int64]) -> VectorClock { VectorClock(counters) }

/// A valid version to start from; tests alter one thing at a time.
private func makeVersion(
    record: String = "chat-1", clock: [DeviceID: Int64] = [deviceA: 3], wall: Int64 = 1_764_417_600_000,
    counter: Int64 = 0, device: DeviceID = deviceA,
    body: SHA256Digest? = SHA256Digest(hex: String(repeating: "b", count: 64))!
) -> Version {
    Version(
        record: RecordID(record)!, kind: .chat, clock: VectorClock(clock),
        time: HybridLogicalTime(wall: wall, counter: counter),
        device: device, payload: .legacy(body: body))
}

/// A version's journal line as a mutable dictionary, as read back from disk.
private func lineObject(_ v: Version) throws -> JSONObject {
    try #require(try JSONParser.parse(v.json.canonicalBytes).objectValue)
}

private func expectDamaged(
    _ object: JSONObject, containing text: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        let v = try Version(json: .object(object))
        Issue.record(
            "accepted a bad line as \(v.shortID); expected an error containing \"\(text)\"",
            sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == .damagedData, sourceLocation: sourceLocation)
        #expect(error.message.contains(text), "message was: \(error.message)", sourceLocation: sourceLocation)
    }
    // The same line read from its bytes (the journal's fast check) is refused the same way.
    let bytes = JSONValue.object(object).canonicalBytes
    do {
        let v = try Version(json: .object(object), line: bytes[...])
        Issue.record("accepted a bad line from its bytes as \(v.shortID)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.message.contains(text), "message was: \(error.message)", sourceLocation: sourceLocation)
    }
}

// MARK: - Timestamp

@Suite("Timestamp")
struct TimestampTests {
    @Test(
        "Formats and parses known instants",
        arguments: [
            (Int64(0), "1970-01-01T00:00:00.000Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (1_709_164_800_000, "2024-02-29T00:00:00.000Z"),
            (1_709_251_199_999, "2024-02-29T23:59:59.999Z"),
            (951_868_800_000, "2000-03-01T00:00:00.000Z"),
            (-2_203_891_200_000, "1900-03-01T00:00:00.000Z"),
            (1_795_953_600_000, "2026-11-29T12:00:00.000Z"),
            (1_795_953_600_007, "2026-11-29T12:00:00.007Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
            (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
            (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
        ])
    func knownInstants(milliseconds: Int64, text: String) throws {
        #expect(Timestamp(milliseconds: milliseconds).iso8601 == text)
        #expect(Timestamp(milliseconds: milliseconds).description == text)
        // The byte writer a listing uses appends the same text after what is there.
        var out: [UInt8] = [1, 2]
        Timestamp(milliseconds: milliseconds).writeISO8601(into: &out)
        #expect(out == [1, 2] + Array(text.utf8))
        let parsed = try #require(Timestamp(iso8601: text))
        #expect(parsed.milliseconds == milliseconds)
    }

    @Test(
        "Rejects anything but exactly YYYY-MM-DDTHH:MM:SS.mmmZ of a real date",
        arguments: [
            "2026-02-30T00:00:00.000Z",  // no such day
            "2025-02-29T00:00:00.000Z",  // not a leap year
            "1900-02-29T00:00:00.000Z",  // century, not a leap year
            "2026-04-31T00:00:00.000Z",
            "2026-11-29T24:00:00.000Z",  // 24:00 is not allowed
            "2026-11-29T12:60:00.000Z",
            "2026-11-29T12:00:60.000Z",  // no leap seconds
            "2026-13-01T00:00:00.000Z",
            "2026-00-10T00:00:00.000Z",
            "2026-11-00T00:00:00.000Z",
            "2026-11-29T12:00:00.000",  // missing Z
            "2026-11-29T12:00:00.000z",
            "2026-11-29T12:00:00.000+00:00",
            "2026-11-29T12:00:00Z",  // no milliseconds
            "2026-11-29T12:00:00.0000Z",  // too long
            "2026-11-29T12:00:00.00Z",
            "2026-11-29 12:00:00.000Z",
            "2026-11-29t12:00:00.000Z",
            "2026/11/29T12:00:00.000Z",
            "2026-11-29T12:00:00,000Z",
            "+026-11-29T12:00:00.000Z",
            "-026-11-29T12:00:00.000Z",
            "2026-1a-29T12:00:00.000Z",
            " 2026-11-29T12:00:00.000Z",
            "2026-11-29T12:00:00.000Z ",
            "２026-11-29T12:00:00.000Z",  // full-width digit
            "",
        ])
    func rejects(text: String) {
        #expect(Timestamp(iso8601: text) == nil, "accepted \(text)")
    }

    @Test("Round-trips random instants from year 0000 to 9999")
    func randomRoundTrip() throws {
        var rng = ClockRNG(seed: 0x7153_7A3F)
        for _ in 0..<3_000 {
            let ms = Int64.random(in: -62_167_219_200_000...253_402_300_799_999, using: &rng)
            let text = Timestamp(milliseconds: ms).iso8601
            #expect(text.utf8.count == 24, "ms \(ms) → \(text)")
            var out: [UInt8] = []
            Timestamp(milliseconds: ms).writeISO8601(into: &out)
            #expect(out == Array(text.utf8))
            let back = try #require(Timestamp(iso8601: text), "ms \(ms) → \(text) does not parse")
            #expect(back.milliseconds == ms, "ms \(ms) → \(text) → \(back.milliseconds)")
        }
    }

    @Test("Orders by instant")
    func ordering() {
        #expect(Timestamp(milliseconds: -1) < Timestamp(milliseconds: 0))
        #expect(!(Timestamp(milliseconds: 5) < Timestamp(milliseconds: 5)))
        #expect(Timestamp(iso8601: "2024-02-29T00:00:00.000Z")! < Timestamp(iso8601: "2024-03-01T00:00:00.000Z")!)
    }
}

// MARK: - VectorClock

@Suite("VectorClock")
struct VectorClockTests {
    enum Order: String, Sendable { case equal, before, after, concurrent }

    @Test(
        "Partial order table",
        arguments: [
            ([:], [:], Order.equal),
            ([deviceA: 1], [deviceA: 1], .equal),
            ([deviceA: 2, deviceB: 1], [deviceB: 1, deviceA: 2], .equal),
            ([:], [deviceA: 1], .before),
            ([deviceA: 1], [:], .after),
            ([deviceA: 1], [deviceA: 2], .before),
            ([deviceA: 1], [deviceA: 1, deviceB: 1], .before),
            ([deviceA: 2, deviceB: 3], [deviceA: 2, deviceB: 4, deviceC: 1], .before),
            ([deviceA: 3], [deviceA: 2], .after),
            ([deviceA: 1, deviceB: 1], [deviceA: 1], .after),
            ([deviceA: 1], [deviceB: 1], .concurrent),
            ([deviceA: 2, deviceB: 1], [deviceA: 1, deviceB: 2], .concurrent),
            ([deviceA: 2], [deviceA: 1, deviceB: 1], .concurrent),
            ([deviceA: 1, deviceC: 5], [deviceA: 1, deviceB: 5], .concurrent),
        ] as [([DeviceID: Int64], [DeviceID: Int64], Order)])
    func order(lhs: [DeviceID: Int64], rhs: [DeviceID: Int64], expected: Order) {
        let x = clock(lhs)
        let y = clock(rhs)
        // `isDescendant(of:)` means "has seen everything the other has" (x ≥ y).
        #expect(x.isDescendant(of: y) == (expected == .equal || expected == .after))
        #expect(y.isDescendant(of: x) == (expected == .equal || expected == .before))
        #expect(x.isDominated(by: y) == (expected == .before))
        #expect(y.isDominated(by: x) == (expected == .after))
        #expect(x.isConcurrent(with: y) == (expected == .concurrent))
        #expect(y.isConcurrent(with: x) == (expected == .concurrent))
        #expect((x == y) == (expected == .equal))
        // The join is the least upper bound of both.
        let j = x.joined(with: y)
        #expect(j == y.joined(with: x))
        #expect(j.isDescendant(of: x) && j.isDescendant(of: y))
        for device in [deviceA, deviceB, deviceC] {
            #expect(j[device] == max(x[device], y[device]))
        }
        if expected == .before { #expect(j == y) }
        if expected == .after || expected == .equal { #expect(j == x) }
        if expected == .concurrent { #expect(x.isDominated(by: j) && y.isDominated(by: j)) }
    }

    @Test("Join is component-wise max; empty is its identity")
    func join() {
        let x = clock([deviceA: 3, deviceB: 1])
        let y = clock([deviceB: 4, deviceC: 2])
        #expect(x.joined(with: y) == clock([deviceA: 3, deviceB: 4, deviceC: 2]))
        #expect(x.joined(with: VectorClock()) == x)
        #expect(VectorClock().joined(with: VectorClock()) == VectorClock())
        #expect(x.joined(with: x) == x)
    }

    @Test("Increment adds one for one device only, and the result dominates the original")
    func increment() {
        let empty = VectorClock()
        #expect(empty.incremented(for: deviceA) == clock([deviceA: 1]))
        let x = clock([deviceA: 3, deviceB: 1])
        let y = x.incremented(for: deviceB)
        #expect(y.counters == [deviceA: 3, deviceB: 2])
        #expect(x.isDominated(by: y) && !y.isDominated(by: x))
        let z = x.incremented(for: deviceC)
        #expect(z[deviceC] == 1 && z[deviceA] == 3 && z[deviceB] == 1)
        #expect(x.isDominated(by: z))
        #expect(y.isConcurrent(with: z))
    }

    @Test("Missing entries read as 0 and zero counters are dropped")
    func zeros() {
        #expect(VectorClock()[deviceA] == 0)
        #expect(clock([deviceA: 0]) == VectorClock())
        #expect(clock([deviceA: 0, deviceB: 2]).counters == [deviceB: 2])
        #expect(!VectorClock().isDominated(by: VectorClock()))
        #expect(!VectorClock().isConcurrent(with: VectorClock()))
    }

    @Test("JSON form round-trips; empty, zero and non-device keys are rejected")
    func json() throws {
        let x = clock([deviceA: 3, deviceB: 1])
        #expect(try VectorClock(json: x.json) == x)
        #expect(x.json.canonicalString == "{\"\(deviceA)\":3,\"\(deviceB)\":1}")
        for bad: JSONValue in [
            .object([:]), .null, .array([]), .object([deviceA.rawValue: .int(0)]),
            .object([deviceA.rawValue: .int(-1)]), .object([deviceA.rawValue: .string("1")]),
            .object(["A" + String(repeating: "a", count: 31): .int(1)]), .object(["laptop": .int(1)]),
        ] {
            #expect(throws: AISyncError.self, "\(bad.canonicalString)") { try VectorClock(json: bad) }
        }
    }
}

// MARK: - HybridLogicalTime

@Suite("HybridLogicalTime")
struct HybridLogicalTimeTests {
    @Test("Tick follows the wall clock when it moves forward")
    func tickForward() {
        let t = HybridLogicalTime(wall: 1_000, counter: 7).tick(now: 2_000)
        #expect(t == HybridLogicalTime(wall: 2_000, counter: 0))
    }

    @Test("Tick stays monotonic when the wall clock stalls or goes backwards")
    func tickBackwards() {
        var t = HybridLogicalTime.zero
        var seen: [HybridLogicalTime] = []
        for now: Int64 in [1_000, 1_000, 900, 500, 0, 1_001, 1_001, -5, 2_000, 1_999] {
            let next = t.tick(now: now)
            #expect(next > t, "tick(now: \(now)) from \(t) gave \(next)")
            #expect(next.wall >= now)
            t = next
            seen.append(t)
        }
        #expect(seen[1] == HybridLogicalTime(wall: 1_000, counter: 1))
        #expect(seen[4] == HybridLogicalTime(wall: 1_000, counter: 4))
        #expect(seen[5] == HybridLogicalTime(wall: 1_001, counter: 0))
        #expect(seen.last == HybridLogicalTime(wall: 2_000, counter: 1))
    }

    @Test("Random walks of the wall clock give strictly increasing readings")
    func randomMonotonic() {
        var rng = ClockRNG(seed: 0x4C0C_0001)
        var t = HybridLogicalTime.zero
        var now: Int64 = 1_000_000
        var maxNow = Int64.min
        for _ in 0..<2_000 {
            now += Int64.random(in: -500...300, using: &rng)
            maxNow = max(maxNow, now)
            let next = t.tick(now: now)
            #expect(next > t)
            #expect(next.wall == maxNow, "the wall part is the latest physical time seen")
            t = next
        }
    }

    @Test("Receiving a far-future remote time makes every later local tick exceed it")
    func receiveFuture() {
        // Given a local clock and a remote reading from a machine a year ahead
        let local = HybridLogicalTime(wall: 1_000, counter: 2)
        let remote = HybridLogicalTime(wall: 1_000 + 365 * 86_400_000, counter: 5)
        // When it is received
        var t = local.receiving(remote, now: 1_100)
        // Then the reading is after both
        #expect(t > remote && t > local)
        #expect(t == HybridLogicalTime(wall: remote.wall, counter: 6))
        // and later local ticks, with the local wall clock far behind, stay after it
        for now: Int64 in [1_200, 1_300, 900] {
            let next = t.tick(now: now)
            #expect(next > t && next > remote)
            t = next
        }
        // until the wall clock catches up
        #expect(t.tick(now: remote.wall + 1) == HybridLogicalTime(wall: remote.wall + 1, counter: 0))
    }

    @Test("Receiving an older remote time still moves forward")
    func receivePast() {
        let local = HybridLogicalTime(wall: 5_000, counter: 0)
        #expect(
            local.receiving(HybridLogicalTime(wall: 10, counter: 99), now: 4_000)
                == HybridLogicalTime(wall: 5_000, counter: 1))
        #expect(
            local.receiving(HybridLogicalTime(wall: 10, counter: 99), now: 6_000)
                == HybridLogicalTime(wall: 6_000, counter: 0))
        let sameWall = HybridLogicalTime(wall: 5_000, counter: 9)
        #expect(local.receiving(sameWall, now: 4_000) == HybridLogicalTime(wall: 5_000, counter: 10))
    }

    @Test("Order is by wall, then counter; JSON round-trips and negatives are rejected")
    func orderAndJSON() throws {
        #expect(HybridLogicalTime(wall: 1, counter: 9) < HybridLogicalTime(wall: 2, counter: 0))
        #expect(HybridLogicalTime(wall: 2, counter: 0) < HybridLogicalTime(wall: 2, counter: 1))
        let t = HybridLogicalTime(wall: 1_795_953_600_000, counter: 3)
        #expect(t.json.canonicalString == "{\"c\":3,\"t\":1795953600000}")
        #expect(try HybridLogicalTime(json: t.json) == t)
        #expect(t.description == "2026-11-29T12:00:00.000Z+3")
        for bad: JSONValue in [
            .object(["t": .int(-1), "c": .int(0)]), .object(["t": .int(1), "c": .int(-1)]),
            .object(["t": .int(1)]), .object(["t": .int(1), "c": .int(0), "x": .int(0)]),
            .object(["t": .string("1"), "c": .int(0)]),
        ] {
            #expect(throws: AISyncError.self, "\(bad.canonicalString)") { try HybridLogicalTime(json: bad) }
        }
    }
}

// MARK: - Version

@Suite("Version")
struct VersionTests {
    @Test("The id is the sha256 of the canonical line without the id (known answer)")
    func knownAnswerID() throws {
        let a = String(repeating: "a", count: 32)
        let b = String(repeating: "b", count: 64)
        let live = makeVersion()
        #expect(live.id.hex == "e3832edf1e60b1676ab006d4a59fbc885ff1b83c67c16b430aa870500a903199")
        #expect(live.shortID == "e3832edf1e60")
        var object = try lineObject(live)
        #expect(object.removeValue(forKey: "id") == .string(live.id.hex))
        #expect(
            JSONValue.object(object).canonicalString
                == "{\"body\":\"\(b)\",\"clock\":{\"\(a)\":3},\"deleted\":false,\"device\":\"\(a)\",\"hlc\":{\"c\":0,\"t\":1764417600000},\"kind\":\"chat\",\"record\":\"chat-1\",\"v\":1}"
        )
        #expect(SHA256.hash(JSONValue.object(object).canonicalBytes) == live.id)

        let tomb = makeVersion(body: nil)
        #expect(tomb.id.hex == "4f4ab4bfd3d64855c07b5c8992c80d45293ed3991945c0a90758b7489c4cda3a")
        #expect(tomb.isDeleted && !live.isDeleted)
        #expect(tomb.json["body"] == .null && tomb.json["deleted"] == .bool(true))
    }

    @Test("Any change of content changes the id; the same content gives the same id")
    func idCoversEveryField() {
        let base = makeVersion()
        #expect(makeVersion().id == base.id)
        let variants = [
            makeVersion(record: "chat-2"), makeVersion(clock: [deviceA: 4]),
            makeVersion(clock: [deviceA: 3, deviceB: 1]),
            makeVersion(wall: 1_764_417_600_001), makeVersion(counter: 1),
            makeVersion(clock: [deviceB: 3], device: deviceB),
            makeVersion(body: digest(1)), makeVersion(body: nil),
            Version(
                record: base.record, kind: .story, clock: base.clock, time: base.time, device: base.device,
                payload: base.payload),
        ]
        #expect(Set(variants.map(\.id)).count == variants.count)
        #expect(!variants.map(\.id).contains(base.id))
    }

    @Test("Journal lines round-trip through canonical bytes", arguments: [false, true])
    func roundTrip(deleted: Bool) throws {
        var rng = ClockRNG(seed: deleted ? 1 : 2)
        for n in 0..<50 {
            let devices = [deviceA, deviceB, deviceC]
            var counters: [DeviceID: Int64] = [:]
            for d in devices where Bool.random(using: &rng) {
                counters[d] = Int64.random(in: 1...1_000_000, using: &rng)
            }
            let device = devices.randomElement(using: &rng)!
            counters[device] = Int64.random(in: 1...50, using: &rng)
            let kind = RecordKind.allCases.randomElement(using: &rng)!
            let v = Version(
                record: RecordID("\(kind.rawValue)-\(n)")!, kind: kind, clock: VectorClock(counters),
                time: HybridLogicalTime(
                    wall: Int64.random(in: 0...Int64.max / 2, using: &rng),
                    counter: Int64.random(in: 0...9, using: &rng)),
                device: device, payload: .legacy(body: deleted ? nil : digest(UInt8(n))))
            let bytes = v.json.canonicalBytes
            let back = try Version(json: JSONParser.parse(bytes))
            #expect(back == v)
            #expect(back.json.canonicalBytes == bytes)
        }
    }

    @Test(
        "A version whose kind is not its id's kind is refused, even with a valid id (a forged story of a chat)",
        arguments: RecordKind.allCases)
    func kindMustMatchID(kind: RecordKind) throws {
        for other in RecordKind.allCases where other != kind {
            let forged = Version(
                record: RecordID("\(kind.rawValue)-1")!, kind: other, clock: VectorClock([deviceA: 1]),
                time: HybridLogicalTime(wall: 1), device: deviceA, payload: .legacy(body: nil))
            expectDamaged(try lineObject(forged), containing: "is not a \(other.rawValue) id")
        }
    }

    @Test("An altered line is detected by its id")
    func alteredLine() throws {
        let v = makeVersion()
        for (key, value) in [
            ("hlc", JSONValue.object(["t": .int(1_764_417_600_000), "c": .int(1)])),
            ("clock", .object([deviceA.rawValue: .int(4)])),
            ("body", .string(digest(7).hex)),
            ("kind", .string("story")),
            ("record", .string("chat-2")),
            ("id", .string(digest(9).hex)),
        ] {
            var line = try lineObject(v)
            line[key] = value
            // Another kind is refused before the id is even checked: ids carry their kind.
            expectDamaged(line, containing: key == "kind" ? "is not a story id" : "altered")
        }
        // and a tombstone turned into a live version (with a made-up body) too
        var line = try lineObject(makeVersion(body: nil))
        line["deleted"] = .bool(false)
        line["body"] = .string(digest(3).hex)
        expectDamaged(line, containing: "altered")
    }

    @Test(
        "A line is verified from its bytes: a canonical one by hashing it without its id, any other by encoding it again"
    )
    func verifiedFromBytes() throws {
        let v = Version(
            record: RecordID("chat-1")!, kind: .chat, clock: VectorClock([deviceA: 2]),
            time: HybridLogicalTime(wall: 5),
            device: deviceA, ops: [.set(field: "title", value: .inline(.string("Hi \"there\"")))])
        let canonical = v.json.canonicalBytes
        #expect(Version.hashWithoutID(canonical[...], id: v.id) == v.id)
        #expect(try Version(json: JSONParser.parse(canonical), line: canonical[...]) == v)
        // Not canonical (spaces after the separators): the fast hash misses, the full check passes it.
        let spaced = Array(
            String(decoding: canonical, as: UTF8.self).replacingOccurrences(of: "\",\"", with: "\", \"").utf8)
        #expect(Version.hashWithoutID(spaced[...], id: v.id) != v.id)
        #expect(try Version(json: JSONParser.parse(spaced), line: spaced[...]) == v)
        // One byte of the title changed: refused by both checks.
        let altered = Array(String(decoding: canonical, as: UTF8.self).replacingOccurrences(of: "Hi", with: "Ho").utf8)
        #expect(throws: AISyncError.self) { try Version(json: JSONParser.parse(altered), line: altered[...]) }
    }

    @Test("deleted and body must agree")
    func deletedAndBody() throws {
        // deleted with a body
        var line = try lineObject(makeVersion())
        line["deleted"] = .bool(true)
        expectDamaged(line, containing: "must have a body unless it is deleted")
        // a live version without a body (null, or absent)
        line = try lineObject(makeVersion())
        line["body"] = .null
        expectDamaged(line, containing: "must have a body unless it is deleted")
        line.removeValue(forKey: "body")
        expectDamaged(line, containing: "must have a body unless it is deleted")
        // deleted missing or not a bool
        line = try lineObject(makeVersion())
        line["deleted"] = .string("false")
        expectDamaged(line, containing: "deleted")
    }

    @Test("The clock must have an entry for the author device")
    func missingSelfEntry() throws {
        // A line whose id matches, but whose clock does not count its own author
        let v = makeVersion(clock: [deviceB: 2], device: deviceA)
        expectDamaged(try lineObject(v), containing: "no entry for its own device")
    }

    @Test(
        "Malformed fields are rejected",
        arguments: [
            ("device", JSONValue.string("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), "device id"),
            ("device", .string(String(repeating: "a", count: 31)), "device id"),
            ("device", .string(String(repeating: "g", count: 32)), "device id"),
            ("record", .string("Chat-1"), "invalid record id"),
            ("record", .string("-chat"), "invalid record id"),
            ("kind", .string("video"), "unknown kind"),
            ("v", .int(3), "format 3 is unknown"),
            ("clock", .object([:]), "non-empty"),
            ("clock", .object([String(repeating: "a", count: 32): .int(0)]), "≥ 1"),
            ("hlc", .object(["t": .int(-5), "c": .int(0)]), "≥ 0"),
            ("body", .string("BB"), "sha256"),
            ("extra", .int(1), "unknown field \"extra\""),
        ] as [(String, JSONValue, String)])
    func malformed(key: String, value: JSONValue, message: String) throws {
        var line = try lineObject(makeVersion())
        line[key] = value
        expectDamaged(line, containing: message)
    }

    @Test(
        "A line missing a required field is rejected",
        arguments: ["v", "record", "kind", "clock", "hlc", "device", "deleted", "id"])
    func missingField(key: String) throws {
        var line = try lineObject(makeVersion())
        line.removeValue(forKey: key)
        #expect(throws: AISyncError.self) { try Version(json: .object(line)) }
    }

    @Test("Last-writer order: HLC, then device id, then id")
    func winsOver() {
        let early = makeVersion(wall: 10, counter: 5, device: deviceC, body: digest(1))
        let late = makeVersion(wall: 11, counter: 0, device: deviceA, body: digest(1))
        #expect(late.winsOver(early) && !early.winsOver(late))
        let tieA = makeVersion(clock: [deviceA: 1], wall: 10, device: deviceA)
        let tieB = makeVersion(clock: [deviceB: 1], wall: 10, device: deviceB)
        #expect(tieB.winsOver(tieA) && !tieA.winsOver(tieB))
        let x = makeVersion(body: digest(1))
        let y = makeVersion(body: digest(2))
        #expect(x.winsOver(y) != y.winsOver(x))
        #expect(!x.winsOver(x))
    }
}

// MARK: - Identifiers

@Suite("Identifiers")
struct IdentifierTests {
    @Test(
        "Valid record ids",
        arguments: [
            "a", "0", "chat-1", "chat-3f9a1c2b4d5e6f70", "a-", "a--b", "9-z",
            String(repeating: "a", count: 64), "z" + String(repeating: "-", count: 63),
        ])
    func validRecordIDs(text: String) throws {
        let id = try #require(RecordID(text))
        #expect(id.rawValue == text && id.description == text)
    }

    @Test(
        "Invalid record ids",
        arguments: [
            "", "-a", "A", "Chat-1", "a_b", "a b", "a.b", "a/b", "é", "chat-é",
            String(repeating: "a", count: 65), " a", "a\n", "a\u{0}", "ａ",
        ])
    func invalidRecordIDs(text: String) {
        #expect(RecordID(text) == nil, "accepted \(text.debugDescription)")
    }

    @Test("Record ids order by bytes")
    func recordOrder() {
        #expect(RecordID("a")! < RecordID("b")!)
        #expect(RecordID("a-1")! < RecordID("a1")!)
        #expect(RecordID("a")! < RecordID("a-")!)
    }

    @Test(
        "Device ids are 32 lowercase hex characters",
        arguments: [
            (String(repeating: "0", count: 32), true),
            ("0123456789abcdef0123456789abcdef", true),
            (String(repeating: "a", count: 31), false),
            (String(repeating: "a", count: 33), false),
            ("0123456789ABCDEF0123456789abcdef", false),
            (String(repeating: "g", count: 32), false),
            ("", false),
            ("0123456789abcdef-123456789abcdef", false),
        ])
    func deviceIDs(text: String, valid: Bool) {
        #expect((DeviceID(text) != nil) == valid)
        if valid { #expect(DeviceID(text)?.short == String(text.prefix(8))) }
    }
}
