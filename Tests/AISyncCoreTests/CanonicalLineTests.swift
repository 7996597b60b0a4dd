import AISyncTestSupport
import Testing

@testable import AISyncCore

// The journal's direct reader of canonical lines (`CanonicalLineReader`) against the general
// path (JSON parser, then `Version(json:)`): on every line the direct reader accepts, both
// must make the same version; what it does not accept goes to the general path.

/// Random valid v2 versions of every kind, with every operation and awkward text.
private struct LineMaker {
    var rng: SeededGenerator
    static let devices = (0..<4).map { n in
        DeviceID(String(repeating: "0123456789abcdef".map(String.init)[n * 3 + 1], count: 32))!
    }
    static let texts = [
        "Hello", "", "say \"hi\"", "back\\slash", "tab\tnew\nline", "ctrl \u{01}\u{1f}", "é ünïcødé", "🐉 dragons 🐉",
        "</script>", "\u{2028}sep", String(repeating: "long ", count: 60),
    ]

    mutating func text() -> String { Self.texts[Int.random(in: 0..<Self.texts.count, using: &rng)] }
    mutating func chance() -> Bool { Bool.random(using: &rng) }
    mutating func time() -> String {
        Timestamp(milliseconds: Int64.random(in: 0...4_000_000_000_000, using: &rng)).iso8601
    }
    mutating func digest() -> SHA256Digest {
        SHA256.hash(Array(text().utf8) + [UInt8.random(in: 0...255, using: &rng)])
    }
    mutating func element() -> String {
        ["m-0", "m-1-a", "p1", "x", "0-z"][Int.random(in: 0..<5, using: &rng)] + "\(Int.random(in: 0..<9, using: &rng))"
    }

    mutating func value(_ field: String, kind: RecordKind) -> FieldValue {
        if chance() && chance() && field != "favorite" { return .object(digest()) }
        switch field {
        case "title": return .inline(.string(text()))
        case "favorite": return .inline(.bool(chance()))
        case "created", "activity": return .inline(.string(time()))
        case "model", "moral", "prompt", "instructions": return .inline(chance() ? .string(text()) : .null)
        case "prompts": return .inline(.array((0..<Int.random(in: 0...3, using: &rng)).map { _ in .string(text()) }))
        case "sha256": return .inline(.string(digest().hex))
        case "size", "width": return .inline(.int(Int64.random(in: 0...Int64.max, using: &rng)))
        case "height", "imgur": return .inline(.null)
        case "mediaType": return .inline(.string("image/png"))
        case "messages":
            var message: JSONObject = [
                "role": .string(chance() ? "user" : "assistant"), "text": .string(text()), "time": .string(time()),
            ]
            if chance() { message["reasoning"] = .string(text()) }
            return .inline(.object(message))
        default:  // pages
            var page: JSONObject = ["n": .int(Int64.random(in: 0...40, using: &rng)), "text": .string(text())]
            if chance() { page["image"] = .string(digest().hex) }
            return .inline(.object(page))
        }
    }

    mutating func version() -> Version {
        let kind = RecordKind.allCases[Int.random(in: 0..<3, using: &rng)]
        var ops: [Operation] = []
        for f in RecordSchema.registers(kind) where chance() { ops.append(.set(field: f, value: value(f, kind: kind))) }
        if let c = RecordSchema.collection(kind) {
            var used = Set<String>()
            for _ in 0..<Int.random(in: 0...4, using: &rng) {
                let e = element()
                guard used.insert(e).inserted else { continue }
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: ops.append(.add(field: c, element: e, value: value(c, kind: kind)))
                case 1: ops.append(.edit(field: c, element: e, value: value(c, kind: kind)))
                default: ops.append(.remove(field: c, element: e))
                }
            }
        }
        if ops.isEmpty || chance() && chance() { ops.append(chance() ? .delete : .restore) }
        var counters: [DeviceID: Int64] = [:]
        for d in Self.devices where chance() { counters[d] = Int64.random(in: 1...Int64.max, using: &rng) }
        let device = Self.devices[Int.random(in: 0..<4, using: &rng)]
        counters[device] = Int64.random(in: 1...9, using: &rng)
        return Version(
            record: RecordID("\(kind.rawValue)-\(Int.random(in: 0..<1_000_000, using: &rng))")!, kind: kind,
            clock: VectorClock(counters),
            time: HybridLogicalTime(
                wall: Int64.random(in: 0...Int64.max, using: &rng), counter: Int64.random(in: 0...3, using: &rng)),
            device: device, ops: ops)
    }
}

/// The direct reader's answer for `line`.
private func direct(_ line: [UInt8]) -> Version? { line.withUnsafeBufferPointer(CanonicalLineReader.version) }

/// The general path's answer for `line` (its id not checked, as the direct reader does not).
private func general(_ line: [UInt8]) -> Version? { try? Version(json: JSONParser.parse(line), verifyingID: false) }

@Suite("Canonical journal lines")
struct CanonicalLineTests {
    @Test("Every line aisync writes is read directly, as the same version the general path makes of it")
    func canonicalLinesReadDirectly() throws {
        var maker = LineMaker(rng: SeededGenerator(seed: 11))
        for _ in 0..<2_000 {
            let v = maker.version()
            let line = v.json.canonicalBytes
            // Written directly (every kind of operation, refs and inline values), the same line.
            let (encoded, written) = Version.encoded(
                record: v.record, kind: v.kind, clock: v.clock, time: v.time, device: v.device, ops: v.ops)
            #expect(written == line && encoded == v)
            let read = try #require(direct(line), "not read directly: \(String(decoding: line, as: UTF8.self))")
            #expect(read == v)
            #expect(read.json.canonicalBytes == line)
            #expect(general(line) == v)
            #expect(try Version(journalLine: line[...], verifyingID: true) == v)
        }
    }

    /// What a push reads of its journal without decoding operations (`VersionOutline`) must be
    /// what the whole version says, and a line whose bytes changed must not be outlined.
    @Test("A line's outline is its version's, and a damaged line has none")
    func outlines() throws {
        var maker = LineMaker(rng: SeededGenerator(seed: 14))
        var rng = SeededGenerator(seed: 15)
        var withObjects = 0
        var deleted = 0
        for _ in 0..<2_000 {
            let v = maker.version()
            let line = v.json.canonicalBytes
            let outline = try #require(
                Version.outline(journalLine: line[...]), "\(String(decoding: line, as: UTF8.self))")
            #expect(outline == VersionOutline(v))
            if !outline.objectReferences.isEmpty { withObjects += 1 }
            if outline.isDeleted { deleted += 1 }
            // One byte changed, added or taken away anywhere: no outline (the hash differs),
            // unless the line still reads as the same version (never, for a change of bytes).
            var bad = line
            let at = Int.random(in: 0..<bad.count, using: &rng)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: bad[at] = bad[at] == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
            case 1: bad.insert(UInt8(ascii: " "), at: at)
            default: bad.remove(at: at)
            }
            #expect(Version.outline(journalLine: bad[...]) == nil, "\(String(decoding: bad, as: UTF8.self))")
        }
        #expect(withObjects > 200 && deleted > 100, "\(withObjects) with objects, \(deleted) deleted")
        // A line in another form (a space after a comma) is not outlined: the journal parses it whole.
        var spaced = maker.version().json.canonicalBytes
        spaced.insert(UInt8(ascii: " "), at: try #require(spaced.firstIndex(of: UInt8(ascii: ","))) + 1)
        #expect(Version.outline(journalLine: spaced[...]) == nil)
    }

    @Test("A damaged line is never read as something the general path would not make of it")
    func mutatedLinesAgree() throws {
        var maker = LineMaker(rng: SeededGenerator(seed: 12))
        var rng = SeededGenerator(seed: 13)
        var accepted = 0
        var refused = 0
        for _ in 0..<400 {
            let line = maker.version().json.canonicalBytes
            for _ in 0..<40 {
                var bad = line
                for _ in 0..<Int.random(in: 1...2, using: &rng) {
                    let at = Int.random(in: 0..<bad.count, using: &rng)
                    // Bytes that matter to JSON, digits and letters of ids and keys.
                    let byte = Array(#"{}[]:,"\ 0123456789-.eEabcdefzvn"#.utf8).randomElement(using: &rng)!
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: bad[at] = byte
                    case 1: bad.insert(byte, at: at)
                    default: bad.remove(at: at)
                    }
                }
                guard let read = direct(bad) else {
                    refused += 1
                    continue
                }
                accepted += 1
                let reference = try #require(
                    general(bad), "read directly, refused by the general path: \(String(decoding: bad, as: UTF8.self))")
                #expect(read == reference, "\(String(decoding: bad, as: UTF8.self))")
            }
        }
        // Both kinds of outcome were exercised (a change of a digit in a title or a counter
        // still reads; most damage does not).
        #expect(accepted > 100 && refused > 1_000, "accepted \(accepted), refused \(refused)")
    }

    @Test(
        "Lines in another valid form go to the general path and read the same",
        arguments: [
            ("a space after a separator", #"","#, #"", "#),
            ("another key order in an operation", #"{"field":"title","op":"set""#, #"{"op":"set","field":"title""#),
            ("an escape in a name", #""field":"title""#, #""field":"ti\u0074le""#),
            ("an exponent", #""c":0"#, #""c":0e0"#),
        ])
    func otherFormsFallBack(_ what: String, _ from: String, _ to: String) throws {
        let v = Version(
            record: RecordID("chat-1")!, kind: .chat, clock: VectorClock([LineMaker.devices[0]: 2]),
            time: HybridLogicalTime(wall: 5),
            device: LineMaker.devices[0], ops: [.set(field: "title", value: .inline(.string("Hi")))])
        let canonical = String(decoding: v.json.canonicalBytes, as: UTF8.self)
        #expect(canonical.contains(from), "\(canonical)")
        let other = Array(canonical.replacingOccurrences(of: from, with: to).utf8)
        #expect(direct(other) == nil, "\(what) was read directly")
        if what == "an exponent" {
            // 0e0 is a number but not an integer: the general path refuses it as well.
            #expect(general(other) == nil)
        } else {
            #expect(general(other) == v, "\(what)")
            // The journal's reader takes it too (its id checked by encoding it again).
            #expect(try Version(journalLine: other[...], verifyingID: true) == v)
        }
    }

    @Test("A canonical line whose content does not match its id is refused when verified, and only then")
    func alteredContentRefused() throws {
        let v = Version(
            record: RecordID("chat-1")!, kind: .chat, clock: VectorClock([LineMaker.devices[0]: 2]),
            time: HybridLogicalTime(wall: 5),
            device: LineMaker.devices[0], ops: [.set(field: "title", value: .inline(.string("Hi")))])
        let altered = Array(
            String(decoding: v.json.canonicalBytes, as: UTF8.self).replacingOccurrences(of: "\"Hi\"", with: "\"Ho\"")
                .utf8)
        #expect(direct(altered) != nil)
        #expect(throws: AISyncError.self) { try Version(journalLine: altered[...], verifyingID: true) }
        #expect(try Version(journalLine: altered[...], verifyingID: false).id == v.id)
    }

    @Test("Leading zeros, duplicate or unsorted clock entries and format 1 lines are not read directly")
    func strictForms() throws {
        let a = LineMaker.devices[0].rawValue
        let b = LineMaker.devices[1].rawValue
        let v = Version(
            record: RecordID("chat-1")!, kind: .chat,
            clock: VectorClock([LineMaker.devices[0]: 2, LineMaker.devices[1]: 3]),
            time: HybridLogicalTime(wall: 5), device: LineMaker.devices[0], ops: [.delete])
        let canonical = String(decoding: v.json.canonicalBytes, as: UTF8.self)
        #expect(direct(Array(canonical.utf8)) == v)
        for (from, to) in [
            ("\"\(a)\":2", "\"\(a)\":02"), ("\"\(b)\":3", "\"\(a)\":3"),
            ("{\"\(a)\":2,\"\(b)\":3}", "{\"\(b)\":3,\"\(a)\":2}"), ("\"v\":2", "\"v\":1"), ("\"c\":0", "\"c\":-0"),
        ] {
            let other = Array(canonical.replacingOccurrences(of: from, with: to).utf8)
            #expect(direct(other) == nil, "\(to)")
        }
        let legacy = Version(
            record: RecordID("chat-1")!, kind: .chat, clock: VectorClock([LineMaker.devices[0]: 1]),
            time: HybridLogicalTime(wall: 5),
            device: LineMaker.devices[0], payload: .legacy(body: nil))
        #expect(direct(legacy.json.canonicalBytes) == nil)
        #expect(try Version(journalLine: legacy.json.canonicalBytes[...], verifyingID: true) == legacy)
    }
    @Test("A null member is read as before the readers shared their checks: absent only as a ref where a ref may be")
    func nullMembers() throws {
        func op(_ text: String) -> Operation? { try? Operation(json: JSONParser.parse(text), kind: .chat) }
        #expect(op(#"{"op":"delete"}"#) == .delete)
        #expect(op(#"{"op":"delete","ref":null}"#) == nil)
        #expect(op(#"{"op":"restore","ref":null}"#) == nil)
        #expect(op(#"{"op":"remove","field":"messages","elem":"m1"}"#) == .remove(field: "messages", element: "m1"))
        #expect(op(#"{"op":"remove","field":"messages","elem":"m1","ref":null}"#) == nil)
        #expect(op(#"{"op":"remove","field":"messages","elem":"m1","value":null}"#) == nil)
        #expect(op(#"{"op":"delete","field":null}"#) == nil)
        #expect(op(#"{"op":"set","field":"title","elem":null,"value":"x"}"#) == nil)
        #expect(
            op(#"{"op":"set","field":"title","value":"x","ref":null}"#)
                == .set(field: "title", value: .inline(.string("x"))))
        #expect(op(#"{"op":"set","field":"model","value":null}"#) == .set(field: "model", value: .inline(.null)))
    }

    /// `{"objects":{},"version":LINE}`, a segment entry of a version that refers to no object.
    private static func plainEntryLine(_ line: [UInt8]) -> [UInt8] {
        Array(#"{"objects":{},"version":"#.utf8) + line + Array("}".utf8)
    }

    @Test("A segment entry read without a JSON tree is the one the general path makes, and keeps its canonical line")
    func segmentEntriesReadDirectly() throws {
        var maker = LineMaker(rng: SeededGenerator(seed: 14))
        var direct = 0
        for _ in 0..<2_000 {
            let v = maker.version()
            let line = v.json.canonicalBytes
            let entryLine = Self.plainEntryLine(line)
            guard let fast = Segment.plainEntry(entryLine[...]) else {
                // Only a version that refers to an object needs its objects member filled.
                #expect(!v.objectReferences.isEmpty, "not read directly: \(String(decoding: line, as: UTF8.self))")
                continue
            }
            let general = try Segment.entry(JSONParser.parse(entryLine))
            direct += 1
            #expect(fast.version == general.version && fast.version == v)
            #expect(fast.line == line)
            #expect(fast.objects.isEmpty)
        }
        #expect(direct > 500, "\(direct) of 2,000 read directly")
    }

    @Test(
        "A segment entry whose value is not in canonical form is never read directly, even with its id made to match its bytes",
        arguments: [
            ("a space in a value", #""text":"Hi""#, #""text": "Hi""#),
            ("an escape in a value's string", #""text":"Hi""#, #""text":"H\u0069""#),
            ("another key order in a value", #"{"role":"user","text":"Hi""#, #"{"text":"Hi","role":"user""#),
        ])
    func strictSegmentValues(_ what: String, _ from: String, _ to: String) throws {
        let device = LineMaker.devices[0]
        let message = ChatBody.Message(id: "m-1", role: .user, text: "Hi", time: Timestamp(milliseconds: 5))
            .elementJSON
        let v = Version(
            record: RecordID("chat-1")!, kind: .chat, clock: VectorClock([device: 2]), time: HybridLogicalTime(wall: 5),
            device: device, ops: [.add(field: "messages", element: "m-1", value: .inline(message))])
        let canonical = String(decoding: v.json.canonicalBytes, as: UTF8.self)
        #expect(canonical.contains(from), "\(canonical)")
        var other = Array(canonical.replacingOccurrences(of: from, with: to).utf8)
        // The id the forger gives it: the hash of these very bytes without the id.
        let forged = try #require(Version.hashWithoutID(other[...], id: v.id))
        other = Array(String(decoding: other, as: UTF8.self).replacingOccurrences(of: v.id.hex, with: forged.hex).utf8)
        #expect(Version.hashWithoutID(other[...], id: forged) == forged)
        // The journal's lenient reader would take it; a segment entry is not read directly,
        // and the general path refuses it (its canonical form hashes to another id).
        #expect(other.withUnsafeBufferPointer(CanonicalLineReader.version) != nil, "\(what)")
        #expect(Segment.plainEntry(Self.plainEntryLine(other)[...]) == nil, "\(what) was read directly")
        #expect(throws: AISyncError.self) { try Segment.entry(JSONParser.parse(Self.plainEntryLine(other))) }
    }
}
