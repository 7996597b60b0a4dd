import Testing

@testable import AISyncCore
@testable import AISyncTesting

// JSONTape: JSON parsed into flat buffers (a big export's batches). It must accept exactly
// what JSONParser accepts, read every value as JSONParser reads it, and find keys by bytes.

/// A seeded generator (the same cases on every run) that draws below a bound.
private struct Draws {
    var generator: SplitMix64
    init(state: UInt64) { generator = SplitMix64(seed: state) }
    mutating func below(_ n: Int) -> Int { Int(generator.next() % UInt64(n)) }
}

/// A value's canonical bytes: compared byte for byte (`JSONValue ==` calls NFC and NFD text equal).
private func exact(_ value: (JSONValue, Int)?) -> ([UInt8], Int)? { value.map { ($0.0.canonicalBytes, $0.1) } }

/// The value at `start` as the tape reads it in place (its `value` and end), or nil when
/// the tape refuses it; the builder must then hold nothing new.
private func tapeRead(_ bytes: [UInt8], at start: Int = 0) -> (JSONValue, Int)? {
    var builder = JSONTape.Builder()
    let end = bytes.withUnsafeBufferPointer { builder.append(in: $0, at: start, depth: 0) }
    guard let end else {
        #expect(builder.count == 0 && builder.slots.isEmpty && builder.text.isEmpty, "a refused value leaves nothing")
        return nil
    }
    let tape = builder.finish()
    #expect(tape.count == 1)
    return (tape.values[0], end)
}

/// The value at `start` as JSONParser reads it, and its end.
private func parserRead(_ bytes: [UInt8], at start: Int = 0) -> (JSONValue, Int)? {
    bytes.withUnsafeBufferPointer { JSONParser.value(in: $0, at: start, depth: 0) }.map { ($0.0, $0.end) }
}

@Suite("JSONTape")
struct JSONTapeTests {
    @Test("Refuses in place every document JSONParser rejects", arguments: JSONParserTests.rejected)
    func refusesWhatTheParserRejects(input: CanonicalParserCase) {
        // Given a document JSONParser rejects (as a whole: some only for their trailing bytes)
        let parsed = parserRead(input.bytes)
        let taped = tapeRead(input.bytes)
        // Then the tape reads the same value to the same end, or refuses it as the parser does
        #expect(exact(parsed)?.0 == exact(taped)?.0 && parsed?.1 == taped?.1)
        // And as a document it is refused with JSONParser's own failure, nothing appended
        var builder = JSONTape.Builder()
        #expect(throws: JSONParser.Failure.self) { try builder.append(document: input.bytes) }
        #expect(builder.count == 0 && builder.slots.isEmpty && builder.text.isEmpty)
    }

    @Test("Random corruptions: the tape accepts exactly what JSONParser accepts, with the same values and ends")
    func corruptions() {
        var draws = Draws(state: 0x7A9E_0001)
        let doc = Array(
            #"{"a":[1,-2.5e3,0,true,false,null,"x\"\\\u00e9\ud83d\ude00é😀"],"b":{"c":"","d":{}},"e":[],"f":-0.5E-2,"g":1234567890,"h":"plain text, long enough to span words"}"#
                .utf8)
        let alphabet = Array(#"{}[]":,\u0123456789abcdefDE-+.eE tn"#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xED, 0xF0, 0xFF]
        var accepted = 0
        var refused = 0
        for _ in 0..<6_000 {
            var bytes = doc
            for _ in 0..<(1 + draws.below(3)) {
                let i = draws.below(bytes.count)
                switch draws.below(3) {
                case 0: bytes[i] = alphabet[draws.below(alphabet.count)]
                case 1: bytes.remove(at: i)
                default: bytes.insert(alphabet[draws.below(alphabet.count)], at: i)
                }
                if bytes.isEmpty { break }
            }
            let parsed = parserRead(bytes)
            let taped = tapeRead(bytes)
            #expect(
                exact(parsed)?.0 == exact(taped)?.0 && parsed?.1 == taped?.1,
                "\(String(decoding: bytes, as: UTF8.self))")
            if parsed == nil { refused += 1 } else { accepted += 1 }
        }
        #expect(accepted > 500 && refused > 500, "both sides exercised: \(accepted) accepted, \(refused) refused")
    }

    @Test("Random documents read back as JSONParser reads them: strings, numbers, keys, nesting")
    func randomDocuments() throws {
        var draws = Draws(state: 0x7A9E_0002)
        let pieces = ["a", "é", "😀", "\\n", "\\\"", "\\u00e9", "\\ud83d\\ude00", " ", "key", "\\u0000", "日本"]
        func string(_ d: inout Draws) -> String {
            "\"" + (0..<d.below(6)).map { _ in pieces[d.below(pieces.count)] }.joined() + "\""
        }
        func value(_ d: inout Draws, depth: Int) -> String {
            switch depth > 4 ? d.below(4) : d.below(7) {
            case 0: return string(&d)
            case 1:
                return ["0", "-1", "12.5", "1e3", "-0.25E-2", "9223372036854775807", "18446744073709551616"][d.below(7)]
            case 2: return ["true", "false", "null"][d.below(3)]
            case 3: return string(&d)
            case 4, 5:
                // Objects up to 40 members, so both the pairwise and the hashed key check run.
                var used: Set<String> = []
                let members = (0..<d.below(d.below(4) == 0 ? 40 : 6)).compactMap { n -> String? in
                    let key = "\"k\(n)\(pieces[d.below(3)])\""
                    guard used.insert(key).inserted else { return nil }
                    return key + " : " + value(&d, depth: depth + 1)
                }
                return "{" + members.joined(separator: ",") + "}"
            default:
                return "[ " + (0..<d.below(5)).map { _ in value(&d, depth: depth + 1) }.joined(separator: ", ") + "]"
            }
        }
        for _ in 0..<1_500 {
            let text = value(&draws, depth: 0)
            let bytes = Array(text.utf8)
            let parsed = try JSONParser.parse(bytes)
            var builder = JSONTape.Builder()
            try builder.append(document: bytes)
            let read = builder.finish().values
            #expect(read.map(\.canonicalBytes) == [parsed.canonicalBytes], "\(text)")
            // And the tape made from the value reads back as the value
            #expect(JSONTape(parsed).values.map(\.canonicalBytes) == [parsed.canonicalBytes])
        }
    }

    @Test("A repeated key is refused in small and large objects, also when written with an escape")
    func repeatedKeys() {
        let many = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        for text in [
            #"{"a":1,"b":2,"a":3}"#, #"{"a":1,"\u0061":2}"#, "{\(many),\"k7\":0}", "{\"k39\":0,\(many)}",
            "{\(many),\"k\\u0031\\u0037\":0}",
        ] {
            #expect(tapeRead(Array(text.utf8)) == nil, "\(text)")
            #expect(parserRead(Array(text.utf8)) == nil, "\(text)")
        }
        // Keys that differ only in Unicode normalization are two keys, as for JSONObject.
        #expect(tapeRead(Array("{\"\u{E9}\":1,\"e\u{301}\":2}".utf8)) != nil)
        #expect(tapeRead(Array("{\(many),\"\u{E9}\":1,\"e\u{301}\":2}".utf8)) != nil)
    }

    @Test("Nodes read members by their bytes, in small and hashed objects; other kinds give nil")
    func nodes() throws {
        let many = (0..<30).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let text =
            #"{"s":"text","n":null,"t":true,"i":-7,"d":2.5,"a":[1,"x",{"z":0}],"o":{"\#u{E9}":"nfc","e\#u{301}":"nfd"},"#
            + #""big":{\#(many)}}"#
        var builder = JSONTape.Builder()
        try builder.append(document: Array(text.utf8))
        builder.finish().withRoots { check($0[0]) }
    }

    private func check(_ root: JSONTape.Node) {
        #expect(root["s"]?.stringValue == "text" && root["s"]?.isString("text") == true)
        #expect(root["s"]?.isString("tex") == false && root["i"]?.isString("-7") == false)
        #expect(root["n"]?.isNull == true && root["s"]?.isNull == false)
        #expect(root["t"]?.boolValue == true && root["i"]?.boolValue == nil)
        #expect(root["i"]?.numberValue == -7 && root["d"]?.numberValue == 2.5 && root["s"]?.numberValue == nil)
        #expect(root["a"]?.elements?.map(\.value) == [.int(1), .string("x"), .object(["z": .int(0)])])
        #expect(root["a"]?.count == 3 && root["s"]?.elements == nil && root["a"]?["z"] == nil)
        #expect(root["missing"] == nil && root["s"]?["s"] == nil)
        // Found by bytes: the NFC and NFD keys are two members.
        guard let o = root["o"], let big = root["big"]?.lookup() else {
            Issue.record("members o and big not found")
            return
        }
        #expect(o["\u{E9}"]?.stringValue == "nfc" && o["e\u{301}"]?.stringValue == "nfd")
        #expect(o.lookup()?["\u{E9}"]?.stringValue == "nfc" && o.lookup()?["e\u{301}"]?.stringValue == "nfd")
        // A big object through its hashed lookup: every member, and nothing else.
        #expect(big.count == 30 && !big.isEmpty)
        for n in 0..<30 { #expect(big["k\(n)"]?.numberValue == Double(n)) }
        #expect(big["k30"] == nil && big["k"] == nil)
        #expect(big.members.map(\.key) == (0..<30).map { "k\($0)" }, "in the order written")
        #expect(root["s"]?.lookup() == nil)
        #expect(root.members?.map(\.key) == ["s", "n", "t", "i", "d", "a", "o", "big"])
    }

    @Test("removeLast takes the last value back; a reused tape's memory holds only the new values")
    func removeAndReuse() throws {
        var builder = JSONTape.Builder()
        try builder.append(document: Array(#"{"a":"first"}"#.utf8))
        try builder.append(document: Array(#"["second",{"b":"x"}]"#.utf8))
        builder.removeLast()
        try builder.append(document: Array(#""third""#.utf8))
        let tape = builder.finish()
        #expect(tape.values == [.object(["a": .string("first")]), .string("third")])
        #expect(tape.text == Array("afirstthird".utf8), "the removed value's text is gone")
        // Reused when nothing else holds it
        let capacity = tape.slots.capacity
        var reused = JSONTape.Builder(reusing: consume tape, bytes: 0)
        #expect(reused.slots.isEmpty && reused.text.isEmpty && reused.slots.capacity == capacity)
        try reused.append(document: Array("[1]".utf8))
        #expect(reused.finish().values == [.array([.int(1)])])
        // And copied, not written over, when something else holds it
        let held = JSONTape(.string("kept"))
        var other = JSONTape.Builder(reusing: held, bytes: 64)
        try other.append(document: Array(#""new""#.utf8))
        #expect(held.values == [.string("kept")] && other.finish().values == [.string("new")])
    }

    @Test("The UTF-8 check agrees with String(validating:) on random bytes")
    func utf8Check() {
        var draws = Draws(state: 0x7A9E_0003)
        let interesting: [UInt8] = [
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
            0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ]
        var valid = 0
        for _ in 0..<200_000 {
            // Runs of ASCII (the eight-byte path) around a few chosen bytes.
            var bytes = [UInt8](repeating: 0x61, count: draws.below(12))
            for _ in 0..<(1 + draws.below(4)) { bytes.append(interesting[draws.below(interesting.count)]) }
            bytes += [UInt8](repeating: 0x62, count: draws.below(10))
            let expected = String(validating: bytes, as: UTF8.self) != nil
            let checked = bytes.withUnsafeBufferPointer { UTF8Check.isValid($0) }
            #expect(checked == expected, "\(bytes)")
            if expected { valid += 1 }
        }
        #expect(valid > 5_000, "valid sequences drawn: \(valid)")
        // Every valid scalar's encoding passes.
        for scalar in [0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF] {
            let bytes = Array(String(Character(Unicode.Scalar(UInt32(scalar))!)).utf8)
            #expect(bytes.withUnsafeBufferPointer { UTF8Check.isValid($0) })
        }
    }
}
