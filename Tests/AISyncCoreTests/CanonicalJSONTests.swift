import AISyncTestSupport
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncTesting

// Canonical JSON (Schemas/README.md "Conventions"), the strict JSONParser, and record bodies.

private func utf8(_ s: String) -> [UInt8] { Array(s.utf8) }

private func parse(_ s: String) throws -> JSONValue { try JSONParser.parse(s) }

private func canonical(_ s: String) throws -> String { try JSONParser.parse(s).canonicalString }

private let t1 = Timestamp(iso8601: "2026-11-29T12:00:00.000Z")!
private let t2 = Timestamp(iso8601: "2026-11-29T12:05:30.250Z")!
private let digestA = SHA256Digest(hex: String(repeating: "ab", count: 32))!
private let digestB = SHA256Digest(hex: String(repeating: "0f", count: 32))!

// MARK: - Canonical encoding

@Suite("Canonical JSON encoding")
struct CanonicalEncodingTests {
    @Test("The canonical length is counted exactly, and past a limit it only says 'longer'", arguments: 0..<60)
    func canonicalLengthMatchesTheBytes(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed) &+ 99)
        func value(_ depth: Int) -> JSONValue {
            switch Int.random(in: 0...(depth > 3 ? 4 : 6), using: &rng) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &rng))
            case 2:
                return .int(
                    [Int64.min, Int64.max, 0, -7, 10, 99, 100, Int64.random(in: -1_000_000...1_000_000, using: &rng)]
                        .randomElement(using: &rng)!)
            case 3, 4:
                let parts = ["a", "é", "😀", "\"", "\\", "\n", "\u{1}", "\u{1F}", "\t", "/", "\u{7F}"]
                return .string(
                    (0..<Int.random(in: 0...20, using: &rng)).map { _ in parts.randomElement(using: &rng)! }.joined())
            case 5: return .array((0..<Int.random(in: 0...5, using: &rng)).map { _ in value(depth + 1) })
            default:
                var o: JSONObject = [:]
                for n in 0..<Int.random(in: 0...5, using: &rng) {
                    o["k\(n)\(["", "\"", "é"].randomElement(using: &rng)!)"] = value(depth + 1)
                }
                return .object(o)
            }
        }
        let v = value(0)
        let exact = v.canonicalBytes.count
        #expect(v.canonicalLength() == exact)
        for limit in [0, 1, exact / 2, exact - 1, exact, exact + 1, 4096] where limit >= 0 {
            #expect((v.canonicalLength(upTo: limit) <= limit) == (exact <= limit), "limit \(limit), exact \(exact)")
            // The bound that spares reading strings is never below the length.
            if v.canonicalLengthBound(upTo: limit) <= limit { #expect(exact <= limit, "bound within \(limit)") }
        }
        #expect(v.canonicalLengthBound() >= exact)
    }

    @Test(
        "A version encoded once (id spliced into the hashed content) is byte for byte its journal line",
        arguments: 0..<40)
    func encodedVersionLineIsItsCanonicalLine(seed: Int) throws {
        var rng = SplitMix64(seed: UInt64(seed))
        let devices = (0..<3).map { _ in
            DeviceID(String((0..<32).map { _ in "0123456789abcdef".randomElement(using: &rng)! }))!
        }
        var clock = VectorClock()
        for d in devices.prefix(Int.random(in: 1...3, using: &rng)) {
            for _ in 0..<Int.random(in: 1...5, using: &rng) { clock = clock.incremented(for: d) }
        }
        let texts = ["", "plain", "quote \" and \\ back", "line\nbreak\ttab", "kind\",\"kind\":", "é😀\u{1}"]
        var ops: [Operation] = [.set(field: "title", value: .inline(.string(texts.randomElement(using: &rng)!)))]
        for n in 0..<Int.random(in: 0...4, using: &rng) {
            ops.append(
                .add(
                    field: "messages", element: "m-\(n)",
                    value: .inline(
                        .object([
                            "role": .string("user"), "text": .string(texts.randomElement(using: &rng)!),
                            "time": .string("2026-01-01T00:00:00.000Z"),
                        ]))))
        }
        let time = HybridLogicalTime(
            wall: Int64.random(in: 0...2_000_000_000_000, using: &rng), counter: Int64.random(in: 0...3, using: &rng))
        let (version, line) = Version.encoded(
            record: RecordID("chat-\(seed)")!, kind: .chat, clock: clock, time: time, device: devices[0], ops: ops)
        #expect(line == version.json.canonicalBytes)
        #expect(
            version
                == Version(
                    record: RecordID("chat-\(seed)")!, kind: .chat, clock: clock, time: time, device: devices[0],
                    ops: ops))
        #expect(try Version(json: JSONParser.parse(line)) == version, "the line reads back, its id verified")
    }

    @Test(
        "The eight-bytes-at-a-time scan finds the first quote, backslash or control byte exactly where a byte loop does",
        arguments: 0..<40)
    func stringScanMatchesAByteLoop(seed: Int) throws {
        var rng = SplitMix64(seed: UInt64(seed) &+ 7)
        // Bytes next to the special ones (0x1F/0x20, 0x21/0x23, 0x5B/0x5D) and their high-bit twins.
        let alphabet: [UInt8] = [
            0x00, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x61, 0x7F, 0x80, 0x9F, 0xA0, 0xA2, 0xDC, 0xFF,
        ]
        for _ in 0..<200 {
            let count = Int.random(in: 0...70, using: &rng)
            let plain = Bool.random(using: &rng)
            let bytes: [UInt8] = (0..<count).map { _ in
                plain && Int.random(in: 0..<20, using: &rng) > 0
                    ? [0x61, 0x20, 0x7F, 0xA2, 0xDC, 0x9F].randomElement(using: &rng)!
                    : alphabet.randomElement(using: &rng)!
            }
            let start = Int.random(in: 0...count, using: &rng)
            let expected = bytes[start...].firstIndex { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C } ?? count
            bytes.withUnsafeBufferPointer { buffer in
                #expect(JSONStringScan.nextSpecial(buffer, from: start) == expected, "\(bytes) from \(start)")
                let run = JSONStringScan.plainRun(buffer, from: start)
                #expect(run.end == expected && run.ascii == bytes[start..<expected].allSatisfy { $0 < 0x80 })
            }
            // Valid UTF-8 text with those bytes' escapes: written, counted and read back alike.
            let text = String(decoding: bytes, as: UTF8.self)
            var out: [UInt8] = []
            JSONValue.writeString(text, into: &out)
            #expect(JSONValue.stringLength(text) == out.count)
            #expect(try JSONParser.parse(out) == .string(text))
        }
    }

    @Test("Object keys are sorted by code point, which is UTF-8 byte order")
    func keyOrder() throws {
        // Given keys whose code-point order differs from UTF-16 order ("ｚ" U+FF5A vs "😀" U+1F600)
        // and from case-insensitive or locale order
        let keys = ["😀", "é", "B", "ａ", "a", "ä", "", "aa", "Z", "ｚ", "a b", "\u{7F}", "\u{1}"]
        let value = JSONValue.object(
            JSONObject(uniqueKeysWithValues: keys.enumerated().map { ($1, JSONValue.int(Int64($0))) }))
        // When encoded
        let text = value.canonicalString
        // Then the keys appear in UTF-8 byte order
        #expect(
            text
                == "{\"\":6,\"\\u0001\":12,\"B\":2,\"Z\":8,\"a\":4,\"a b\":10,\"aa\":7,\"\u{7F}\":11,\"ä\":5,\"é\":1,\"ａ\":3,\"ｚ\":9,\"😀\":0}"
        )
        let sortedByBytes = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let sortedByScalars = keys.sorted {
            $0.unicodeScalars.map(\.value).lexicographicallyPrecedes($1.unicodeScalars.map(\.value))
        }
        #expect(sortedByBytes == sortedByScalars)
        let parsedBack = try #require(try JSONParser.parse(value.canonicalBytes).objectValue)
        #expect(parsedBack.count == keys.count)
    }

    @Test("Nested objects are sorted too, arrays keep their order, no whitespace")
    func nested() {
        let value = JSONValue.object([
            "z": .array([.int(3), .int(1), .object(["b": .null, "a": .bool(true)])]),
            "m": .object(["y": .bool(false), "x": .array([])]),
            "a": .object([:]),
        ])
        #expect(value.canonicalString == "{\"a\":{},\"m\":{\"x\":[],\"y\":false},\"z\":[3,1,{\"a\":true,\"b\":null}]}")
    }

    @Test(
        "Integers are written plainly",
        arguments: [
            (Int64(0), "0"), (-1, "-1"), (42, "42"), (Int64.max, "9223372036854775807"),
            (Int64.min, "-9223372036854775808"),
        ])
    func integers(value: Int64, text: String) throws {
        #expect(JSONValue.int(value).canonicalString == text)
        #expect(try parse(text) == .int(value))
    }

    @Test(
        "Strings escape only quote, backslash and C0 controls",
        arguments: [
            ("plain", "\"plain\""),
            ("\"", "\"\\\"\""),
            ("\\", "\"\\\\\""),
            ("a/b</script>", "\"a/b</script>\""),  // '/' is not escaped
            ("\u{8}\u{C}\n\r\t", "\"\\b\\f\\n\\r\\t\""),
            ("\u{0}", "\"\\u0000\""),
            ("\u{1}\u{B}\u{E}\u{1A}\u{1F}", "\"\\u0001\\u000b\\u000e\\u001a\\u001f\""),  // lowercase hex
            (" ~\u{7F}", "\" ~\u{7F}\""),  // DEL is not a C0 control
            ("é ü ß 中文 😀", "\"é ü ß 中文 😀\""),  // non-ASCII raw
            ("\u{2028}\u{2029}\u{FEFF}\u{FFFD}", "\"\u{2028}\u{2029}\u{FEFF}\u{FFFD}\""),
            ("", "\"\""),
        ])
    func escapes(raw: String, encoded: String) throws {
        #expect(JSONValue.string(raw).canonicalString == encoded)
        #expect(JSONValue.string(raw).canonicalBytes == utf8(encoded))
        // and the parser reads it back to the same scalars
        let back = try #require(try parse(encoded).stringValue)
        #expect(back.unicodeScalars.elementsEqual(raw.unicodeScalars))
    }

    @Test("Every C0 control character has exactly one canonical escape")
    func allControls() throws {
        let short: [UInt8: String] = [8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r"]
        for byte in UInt8(0)..<0x20 {
            let s = String(decoding: [byte], as: UTF8.self)
            let expected = short[byte] ?? "\\u00" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
            #expect(JSONValue.string(s).canonicalString == "\"\(expected)\"", "byte \(byte)")
            #expect(try parse("\"\(expected)\"") == .string(s))
        }
    }

    @Test("Canonical encoding never normalizes Unicode: NFC and NFD text keep their own bytes")
    func noNormalization() throws {
        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        #expect(JSONValue.string(nfc).canonicalBytes == utf8("\"caf\u{E9}\""))
        #expect(JSONValue.string(nfd).canonicalBytes == [0x22, 0x63, 0x61, 0x66, 0x65, 0xCC, 0x81, 0x22])
        #expect(JSONValue.string(nfc).canonicalBytes != JSONValue.string(nfd).canonicalBytes)
        // and a parsed NFD string is written back byte for byte
        #expect(try JSONParser.parse(utf8("\"cafe\u{301}\"")).canonicalBytes == utf8("\"cafe\u{301}\""))
    }

    @Test(
        "Parse then encode gives the canonical form",
        arguments: [
            (" { \"b\" : 1 ,\n\t\"a\" : [ true , false , null ] } ", "{\"a\":[true,false,null],\"b\":1}"),
            ("{\"k\":\"\\u00e9\\u00E9\"}", "{\"k\":\"éé\"}"),
            ("\"\\/\"", "\"/\""),
            ("\"\\ud83d\\ude00\\uD83D\\uDE00\"", "\"😀😀\""),
            ("\"\\u001F\\u0008\\u000A\"", "\"\\u001f\\b\\n\""),
            ("\"\\u007f\\u0020\"", "\"\u{7F} \""),
            ("[-0]", "[0]"),
            ("[ ]", "[]"),
            ("{ }", "{}"),
            ("{\"é\":1,\"e\":2,\"E\":3}", "{\"E\":3,\"e\":2,\"é\":1}"),
            ("[[[{\"x\":[{}]}]]]", "[[[{\"x\":[{}]}]]]"),
        ])
    func parseToCanonical(input: String, expected: String) throws {
        #expect(try canonical(input) == expected)
        // and the canonical form is a fixed point
        #expect(try canonical(expected) == expected)
    }

    @Test("The same body with its keys in different orders has the same bytes and sha256")
    func keyOrderDoesNotChangeHash() throws {
        let a = """
            {"kind":"chat","title":"Trip","favorite":false,"created":"2026-11-29T12:00:00.000Z","updated":"2026-11-29T12:00:00.000Z",\
            "model":"gpt-4o","messages":[{"id":"m-1","role":"user","text":"hi","time":"2026-11-29T12:00:00.000Z"}]}
            """
        let b = """
            {
              "messages": [ { "time": "2026-11-29T12:00:00.000Z", "text": "hi", "role": "user", "id": "m-1" } ],
              "updated": "2026-11-29T12:00:00.000Z", "model": "gpt-4o", "favorite": false,
              "created": "2026-11-29T12:00:00.000Z", "title": "Trip", "kind": "chat"
            }
            """
        let bodyA = try RecordBody(bytes: utf8(a))
        let bodyB = try RecordBody(bytes: utf8(b))
        #expect(bodyA == bodyB)
        #expect(bodyA.canonicalBytes == bodyB.canonicalBytes)
        #expect(SHA256.hash(bodyA.canonicalBytes) == SHA256.hash(bodyB.canonicalBytes))
        #expect(try parse(a).canonicalBytes == parse(b).canonicalBytes)
        #expect(
            bodyA.json.canonicalString == """
                {"created":"2026-11-29T12:00:00.000Z","favorite":false,"kind":"chat","messages":[{"id":"m-1","role":"user","text":"hi",\
                "time":"2026-11-29T12:00:00.000Z"}],"model":"gpt-4o","title":"Trip","updated":"2026-11-29T12:00:00.000Z"}
                """)
    }
}

// MARK: - Parser strictness

/// One parser input; `name` labels the test case.
struct CanonicalParserCase: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    init(_ name: String, _ text: String) {
        self.name = name
        bytes = Array(text.utf8)
    }
    init(_ name: String, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }
    var testDescription: String { name }
}

private func nested(_ depth: Int, open: String, close: String, inner: String = "") -> String {
    String(repeating: open, count: depth) + inner + String(repeating: close, count: depth)
}

@Suite("JSONParser strictness")
struct JSONParserTests {
    static let rejected: [CanonicalParserCase] = [
        // duplicates
        .init("duplicate key", "{\"a\":1,\"a\":2}"),
        .init("duplicate key, nested", "{\"x\":{\"a\":1,\"b\":2,\"a\":1}}"),
        .init("duplicate key via escape", "{\"a\":1,\"\\u0061\":2}"),
        // trailing bytes
        .init("trailing garbage", "{\"a\":1} x"),
        .init("two values", "1 2"),
        .init("two objects", "{}{}"),
        .init("trailing comma after document", "[1],"),
        .init("trailing NUL", "{}\u{0}"),
        // numbers
        .init("leading zero", "01"),
        .init("negative leading zero", "-01"),
        .init("double zero", "00"),
        .init("leading zero in array", "[1,02]"),
        .init("leading zero with fraction", "00.5"),
        .init("plus sign", "+1"),
        .init("bare minus", "-"),
        .init("no integer part", ".5"),
        .init("no fraction digits", "1."),
        .init("no exponent digits", "1e"),
        .init("exponent sign only", "1e+"),
        .init("hex", "0x10"),
        .init("NaN", "NaN"),
        .init("Infinity", "-Infinity"),
        .init("out of range", "1e400"),
        // strings and surrogates
        .init("lone high surrogate", "\"\\uD800\""),
        .init("lone low surrogate", "\"\\uDC00\""),
        .init("high surrogate then letter", "\"\\uD83Dx\""),
        .init("high surrogate then non-surrogate escape", "\"\\uD83D\\u0041\""),
        .init("two high surrogates", "\"\\uD83D\\uD83D\""),
        .init("reversed pair", "\"\\uDE00\\uD83D\""),
        .init("high surrogate at end of input", "\"\\uDBFF"),
        .init("raw newline in string", "\"a\nb\""),
        .init("raw tab in string", "\"a\tb\""),
        .init("raw NUL in string", "\"a\u{0}b\""),
        .init("raw 0x1F in string", "\"\u{1F}\""),
        .init("raw control in key", "{\"a\u{1}\":1}"),
        .init("invalid escape", "\"\\x\""),
        .init("uppercase U escape", "\"\\U0041\""),
        .init("short unicode escape", "\"\\u12\""),
        .init("non-hex unicode escape", "\"\\u12G4\""),
        .init("single quotes", "'a'"),
        .init("unterminated string", "\"abc"),
        // invalid UTF-8
        .init("0xFF in string", bytes: [0x22, 0xFF, 0x22]),
        .init("truncated 2-byte sequence", bytes: [0x22, 0xC3, 0x22]),
        .init("lone continuation byte", bytes: [0x22, 0x80, 0x22]),
        .init("overlong slash", bytes: [0x22, 0xC0, 0xAF, 0x22]),
        .init("overlong 3-byte", bytes: [0x22, 0xE0, 0x80, 0xAF, 0x22]),
        .init("UTF-8 encoded surrogate", bytes: [0x22, 0xED, 0xA0, 0x80, 0x22]),
        .init("beyond U+10FFFF", bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22]),
        .init("0xF5 lead byte", bytes: [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22]),
        .init("invalid UTF-8 in key", bytes: Array("{\"".utf8) + [0xC3] + Array("\":1}".utf8)),
        .init("invalid byte outside strings", bytes: [0x5B, 0xFF, 0x5D]),
        .init("byte order mark", bytes: [0xEF, 0xBB, 0xBF, 0x7B, 0x7D]),
        // structure
        .init("empty input", ""),
        .init("whitespace only", " \n\t"),
        .init("trailing comma in array", "[1,]"),
        .init("trailing comma in object", "{\"a\":1,}"),
        .init("leading comma", "[,1]"),
        .init("missing comma", "[1 2]"),
        .init("unquoted key", "{a:1}"),
        .init("number key", "{1:1}"),
        .init("missing colon", "{\"a\" 1}"),
        .init("missing value", "{\"a\":}"),
        .init("unclosed array", "[1,2"),
        .init("unclosed object", "{\"a\":1"),
        .init("mismatched brackets", "[1}"),
        .init("misspelled true", "tru"),
        .init("capitalized literal", "True"),
        .init("null prefix", "nul"),
        .init("literal with suffix", "nullx"),
        .init("vertical tab whitespace", "\u{B}1"),
        .init("form feed whitespace", "[1,\u{C}2]"),
        .init("comment", "{} // no"),
        // nesting
        .init("65 nested arrays", nested(65, open: "[", close: "]")),
        .init("65 nested objects", nested(65, open: "{\"a\":", close: "}", inner: "1")),
        .init("deep nesting, far beyond the limit", nested(100_000, open: "[", close: "]")),
    ]

    @Test("Rejects", arguments: rejected)
    func rejects(input: CanonicalParserCase) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(input.bytes) }
    }

    @Test("Failures carry an offset within the input and a reason", arguments: rejected)
    func failureOffsets(input: CanonicalParserCase) {
        do {
            _ = try JSONParser.parse(input.bytes)
        } catch {
            #expect((0...input.bytes.count).contains(error.offset), "offset \(error.offset) of \(input.bytes.count)")
            #expect(!error.reason.isEmpty)
            #expect(error.description.contains("at byte \(error.offset)"))
        }
    }

    @Test(
        "Accepts",
        arguments: [
            ("surrogate pair", "\"\\uD83D\\uDE00\"", JSONValue.string("😀")),
            ("lowercase surrogate pair", "\"\\ud83d\\ude00\"", .string("😀")),
            ("highest code point", "\"\\uDBFF\\uDFFF\"", .string("\u{10FFFF}")),
            ("raw 4-byte UTF-8", "\"😀\"", .string("😀")),
            ("escaped NUL", "\"\\u0000\"", .string("\u{0}")),
            ("BMP escape", "\"\\u20AC\"", .string("€")),
            ("all simple escapes", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", .string("\"\\/\u{8}\u{C}\n\r\t")),
            ("DEL raw", "\"\u{7F}\"", .string("\u{7F}")),
            ("zero", "0", .int(0)),
            ("negative zero", "-0", .int(0)),
            ("Int64.max", "9223372036854775807", .int(.max)),
            ("Int64.min", "-9223372036854775808", .int(.min)),
            ("beyond Int64 becomes double", "9223372036854775808", .double(9.223372036854775808e18)),
            ("fraction", "1.5", .double(1.5)),
            ("exponent", "-2.5E+3", .double(-2500)),
            ("zero with fraction", "0.25", .double(0.25)),
            ("literals", "[true,false,null]", .array([.bool(true), .bool(false), .null])),
            ("surrounding whitespace", " \r\n\t{}\n ", .object([:])),
            ("empty key", "{\"\":1}", .object(["": .int(1)])),
            ("keys differing in case", "{\"a\":1,\"A\":2}", .object(["a": .int(1), "A": .int(2)])),
            (
                "64 nested arrays (the limit)", nested(64, open: "[", close: "]"),
                (0..<63).reduce(JSONValue.array([])) { inner, _ in .array([inner]) }
            ),
        ] as [(String, String, JSONValue)])
    func accepts(name: String, text: String, expected: JSONValue) throws {
        #expect(try JSONParser.parse(text) == expected, "\(name)")
    }

    @Test("Nesting limit for objects: 64 nested objects parse, 65 do not")
    func objectDepthLimit() throws {
        #expect(JSONParser.maxDepth == 64)
        let ok = try JSONParser.parse(nested(63, open: "{\"a\":", close: "}", inner: "{}"))
        var depth = 1
        var cursor = ok
        while let next = cursor["a"] {
            depth += 1
            cursor = next
        }
        #expect(depth == 64)
        #expect(throws: JSONParser.Failure.self) {
            try JSONParser.parse(nested(64, open: "{\"a\":", close: "}", inner: "{}"))
        }
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(nested(65, open: "[", close: "]")) }
    }

    /// The limit is on container nesting ("nesting deeper than maxDepth"), so whether the innermost
    /// container is empty or holds a scalar must not matter.
    @Test(
        "The nesting limit does not depend on whether the innermost container is empty",
        arguments: [
            CanonicalParserCase("64 arrays around a number", nested(64, open: "[", close: "]", inner: "1")),
            CanonicalParserCase("64 arrays around a string", nested(64, open: "[", close: "]", inner: "\"x\"")),
            CanonicalParserCase("64 objects around a number", nested(64, open: "{\"a\":", close: "}", inner: "1")),
            CanonicalParserCase(
                "63 objects around an array of a number", nested(63, open: "{\"a\":", close: "}", inner: "[1]")),
        ])
    func depthLimitCountsContainers(input: CanonicalParserCase) throws {
        let sameDepthEmpty = try JSONParser.parse(nested(64, open: "[", close: "]"))
        #expect(sameDepthEmpty != .null)
        #expect(throws: Never.self, "\(input.name) has 64 levels of nesting, like 64 empty arrays which are accepted") {
            _ = try JSONParser.parse(input.bytes)
        }
    }

    @Test("Every truncation of a valid document fails cleanly")
    func truncations() throws {
        // Given a document that uses every construct, including multi-byte UTF-8 and escapes
        let doc = utf8(
            """
            {"a":[1,-2.5e3,0,true,false,null,"x\\"\\\\\\u00e9\\ud83d\\ude00é😀"],"b":{"c":"","d":{}},"e":[],"f":-0.5E-2,"g":1234567890}
            """)
        let full = try JSONParser.parse(doc)
        #expect(full["g"] == .int(1_234_567_890))
        // When parsing every proper prefix, then each one throws (and nothing crashes)
        for n in 0..<doc.count {
            #expect(throws: JSONParser.Failure.self, "prefix of \(n) bytes") { try JSONParser.parse(doc.prefix(n)) }
        }
    }

    @Test("Random corruptions of a valid document never crash, and anything accepted is stable")
    func corruptions() throws {
        var state: UInt64 = 0xC0DE_F00D
        func next() -> UInt64 {  // SplitMix64
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let doc = utf8("{\"a\":[1,-2,\"x\\u00e9\\ud83d\\ude00\"],\"b\":{\"c\":true,\"d\":null},\"e\":\"😀é\"}")
        let alphabet = utf8("{}[]\":,\\u0123456789abcdefDE-+.eE tn") + [0x00, 0x1F, 0x80, 0xC3, 0xED, 0xF0, 0xFF]
        var accepted = 0
        for _ in 0..<3_000 {
            var bytes = doc
            for _ in 0..<(1 + Int(next() % 3)) {
                let i = Int(next() % UInt64(bytes.count))
                switch next() % 3 {
                case 0: bytes[i] = alphabet[Int(next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: i)
                default: bytes.insert(alphabet[Int(next() % UInt64(alphabet.count))], at: i)
                }
                if bytes.isEmpty { break }
            }
            guard let value = try? JSONParser.parse(bytes) else { continue }
            accepted += 1
            // Then its canonical form parses to the same value and is a fixed point
            let canon = value.canonicalBytes
            let again = try JSONParser.parse(canon)
            #expect(again == value, "\(String(decoding: bytes, as: UTF8.self))")
            #expect(again.canonicalBytes == canon)
        }
        #expect(accepted > 0)
    }
}

// MARK: - Record bodies

@Suite("Record bodies")
struct RecordBodyTests {
    static let bodies: [(String, RecordBody)] = [
        (
            "chat with model and messages",
            .chat(
                ChatBody(
                    title: "Trip ideas \"Lisbon\" \\ é 😀", model: "gpt-4o",
                    messages: [
                        ChatBody.Message(id: "m-1", role: .user, text: "hi\nthere\t\u{1}", time: t1),
                        ChatBody.Message(id: "m-2", role: .assistant, text: "Hello! ¿Qué tal?", time: t2),
                        ChatBody.Message(id: "m-3", role: .system, text: "", time: t2),
                    ],
                    favorite: true, created: t1, updated: t2))
        ),
        ("chat without model or messages", .chat(ChatBody(title: "", model: nil, created: t1, updated: t1))),
        (
            "davinci chat",
            .chat(ChatBody(title: "old", model: "davinci", messages: [], favorite: false, created: t1, updated: t2))
        ),
        (
            "story with moral and pages",
            .story(
                StoryBody(
                    title: "The Fox", moral: "Be kind",
                    pages: [
                        StoryBody.Page(id: "page-1", position: 1, text: "Once upon a time", image: digestA),
                        StoryBody.Page(id: "page-2", position: 2, text: "The end"),
                    ],
                    prompts: ["a fox in a forest, watercolor", "a fox asleep"], favorite: true, created: t1, updated: t2
                ))
        ),
        (
            "story without moral, pages or prompts",
            .story(StoryBody(title: "Empty", moral: nil, pages: [], created: t1, updated: t1))
        ),
        (
            "image with everything",
            .image(
                ImageBody(
                    title: "fox.png", sha256: digestA, size: 12_345, mediaType: "image/png", width: 512, height: 256,
                    prompt: "a fox", model: "dall-e-3",
                    imgur: ImageBody.ImgurLocation(
                        id: "aBc12", link: "https://i.imgur.com/aBc12.png", deletehash: "secret",
                        servedSHA256: digestB, servedSize: 9_999),
                    favorite: true, created: t1, updated: t2))
        ),
        (
            "image with minimal imgur",
            .image(
                ImageBody(
                    title: "x", sha256: digestB, size: 0, mediaType: "image/jpeg",
                    imgur: ImageBody.ImgurLocation(
                        id: "i", link: "https://i.imgur.com/i.jpg", deletehash: nil, servedSHA256: nil, servedSize: nil),
                    created: t1, updated: t1))
        ),
        (
            "image minimal",
            .image(ImageBody(title: "y", sha256: digestB, size: 1, mediaType: "image/gif", created: t1, updated: t1))
        ),
    ]

    static let bodyNames = bodies.map(\.0)

    static func body(named name: String) -> RecordBody { bodies.first { $0.0 == name }!.1 }

    @Test("Round trip: json → init(json:) and canonical bytes → init(bytes:) give the same body", arguments: bodyNames)
    func roundTrip(name: String) throws {
        let body = Self.body(named: name)
        #expect(try RecordBody(json: body.json) == body)
        #expect(try RecordBody(json: body.json, expected: body.kind) == body)
        let bytes = body.canonicalBytes
        let back = try RecordBody(bytes: bytes)
        #expect(back == body)
        #expect(back.canonicalBytes == bytes)
        #expect(try JSONParser.parse(bytes).canonicalBytes == bytes, "bodies are stored in canonical form")
        #expect(body.json["kind"] == .string(body.kind.rawValue))
    }

    @Test("Optional fields are absent, not null")
    func optionalFieldsAbsent() {
        let chat = Self.body(named: "chat without model or messages").json
        #expect(chat["model"] == nil)
        let story = Self.body(named: "story without moral, pages or prompts").json
        #expect(story["moral"] == nil && story["pages"] == .array([]) && story["prompts"] == .array([]))
        let page = Self.body(named: "story with moral and pages").json["pages"]?.arrayValue?.last
        #expect(page == .object(["id": .string("page-2"), "text": .string("The end")]))
        let image = Self.body(named: "image minimal").json
        for key in ["width", "height", "prompt", "model", "imgur"] { #expect(image[key] == nil, "\(key)") }
        let imgur = Self.body(named: "image with minimal imgur").json["imgur"]
        #expect(imgur == .object(["id": .string("i"), "link": .string("https://i.imgur.com/i.jpg")]))
    }

    @Test(
        "The documented example bodies parse",
        arguments: [
            """
            {"created":"2026-11-29T12:00:00.000Z","favorite":false,"kind":"chat","messages":[{"id":"m-1","role":"user","text":"hi","time":"2026-11-29T12:00:00.000Z"}],"model":"gpt-4o","title":"Trip ideas","updated":"2026-11-29T12:00:00.000Z"}
            """,
            """
            {"created":"2026-11-29T12:00:00.000Z","favorite":false,"kind":"story","moral":"Be kind","pages":[{"id":"page-1","image":"\(String(repeating: "ab", count: 32))","text":"Once upon a time"}],"prompts":["a fox in a forest, watercolor"],"title":"The Fox","updated":"2026-11-29T12:00:00.000Z"}
            """,
            """
            {"created":"2026-11-29T12:00:00.000Z","favorite":false,"height":512,"kind":"image","mediaType":"image/png","model":"dall-e-3","prompt":"a fox","sha256":"\(String(repeating: "ab", count: 32))","size":12345,"title":"fox.png","updated":"2026-11-29T12:00:00.000Z","width":512}
            """,
        ])
    func documentedExamples(text: String) throws {
        // (aisync 1 stored pages without ids; they read as page-1, page-2, … by position.)
        let body = try RecordBody(bytes: utf8(text))
        #expect(body.canonicalBytes == utf8(text), "the documented examples are already canonical")
    }

    @Test("An unknown field is rejected, at the top level and nested", arguments: bodyNames)
    func unknownField(name: String) throws {
        let body = Self.body(named: name)
        var object = try #require(body.json.objectValue)
        object["color"] = .string("red")
        do {
            _ = try RecordBody(json: .object(object))
            Issue.record("accepted an unknown field")
        } catch {
            #expect(error.code == .damagedData)
            #expect(error.message.contains("unknown field \"color\""), "\(error.message)")
        }
    }

    @Test("Unknown fields inside messages, pages and imgur are rejected")
    func unknownNestedField() throws {
        let cases: [(String, String)] = [
            ("chat with model and messages", "messages"), ("story with moral and pages", "pages"),
        ]
        for (name, key) in cases {
            var object = try #require(Self.body(named: name).json.objectValue)
            var items = try #require(object[key]?.arrayValue)
            var first = try #require(items[0].objectValue)
            first["extra"] = .int(1)
            items[0] = .object(first)
            object[key] = .array(items)
            #expect(throws: AISyncError.self, "\(name)") { try RecordBody(json: .object(object)) }
        }
        var image = try #require(Self.body(named: "image with everything").json.objectValue)
        var imgur = try #require(image["imgur"]?.objectValue)
        imgur["album"] = .string("x")
        image["imgur"] = .object(imgur)
        #expect(throws: AISyncError.self) { try RecordBody(json: .object(image)) }
    }

    @Test("A body of the wrong kind is rejected when a kind is expected", arguments: bodyNames)
    func wrongKind(name: String) throws {
        let body = Self.body(named: name)
        for other in RecordKind.allCases where other != body.kind {
            do {
                _ = try RecordBody(json: body.json, expected: other)
                Issue.record("accepted a \(body.kind) as a \(other)")
            } catch {
                #expect(error.code == .damagedData)
                #expect(
                    error.message.contains("is a \(body.kind.rawValue)") && error.message.contains(other.rawValue),
                    "\(error.message)")
            }
            #expect(throws: AISyncError.self) { try RecordBody(bytes: body.canonicalBytes, expected: other) }
        }
    }

    @Test(
        "Bad bodies are rejected",
        arguments: [
            ("no kind", "{\"title\":\"x\"}"),
            ("unknown kind", "{\"kind\":\"video\",\"title\":\"x\"}"),
            ("kind not a string", "{\"kind\":1}"),
            ("not an object", "[]"),
            ("not JSON", "{"),
            (
                "bad time",
                "{\"created\":\"2026-11-29\",\"favorite\":false,\"kind\":\"chat\",\"messages\":[],\"title\":\"t\",\"updated\":\"2026-11-29T12:00:00.000Z\"}"
            ),
            (
                "favorite not a bool",
                "{\"created\":\"2026-11-29T12:00:00.000Z\",\"favorite\":0,\"kind\":\"chat\",\"messages\":[],\"title\":\"t\",\"updated\":\"2026-11-29T12:00:00.000Z\"}"
            ),
            (
                "missing title",
                "{\"created\":\"2026-11-29T12:00:00.000Z\",\"favorite\":false,\"kind\":\"chat\",\"messages\":[],\"updated\":\"2026-11-29T12:00:00.000Z\"}"
            ),
            (
                "bad role",
                "{\"created\":\"2026-11-29T12:00:00.000Z\",\"favorite\":false,\"kind\":\"chat\",\"messages\":[{\"id\":\"m\",\"role\":\"bot\",\"text\":\"\",\"time\":\"2026-11-29T12:00:00.000Z\"}],\"title\":\"t\",\"updated\":\"2026-11-29T12:00:00.000Z\"}"
            ),
            (
                "bad message id",
                "{\"created\":\"2026-11-29T12:00:00.000Z\",\"favorite\":false,\"kind\":\"chat\",\"messages\":[{\"id\":\"M_1\",\"role\":\"user\",\"text\":\"\",\"time\":\"2026-11-29T12:00:00.000Z\"}],\"title\":\"t\",\"updated\":\"2026-11-29T12:00:00.000Z\"}"
            ),
            (
                "page image not a sha256",
                "{\"created\":\"2026-11-29T12:00:00.000Z\",\"favorite\":false,\"kind\":\"story\",\"pages\":[{\"image\":\"pic.png\",\"text\":\"\"}],\"prompts\":[],\"title\":\"t\",\"updated\":\"2026-11-29T12:00:00.000Z\"}"
            ),
            (
                "prompt not a string",
                "{\"created\":\"2026-11-29T12:00:00.000Z\",\"favorite\":false,\"kind\":\"story\",\"pages\":[],\"prompts\":[1],\"title\":\"t\",\"updated\":\"2026-11-29T12:00:00.000Z\"}"
            ),
            (
                "negative image size",
                "{\"created\":\"2026-11-29T12:00:00.000Z\",\"favorite\":false,\"kind\":\"image\",\"mediaType\":\"image/png\",\"sha256\":\"\(String(repeating: "ab", count: 32))\",\"size\":-1,\"title\":\"t\",\"updated\":\"2026-11-29T12:00:00.000Z\"}"
            ),
            (
                "uppercase sha256",
                "{\"created\":\"2026-11-29T12:00:00.000Z\",\"favorite\":false,\"kind\":\"image\",\"mediaType\":\"image/png\",\"sha256\":\"\(String(repeating: "AB", count: 32))\",\"size\":1,\"title\":\"t\",\"updated\":\"2026-11-29T12:00:00.000Z\"}"
            ),
        ])
    func badBodies(name: String, text: String) {
        do {
            _ = try RecordBody(bytes: utf8(text))
            Issue.record("accepted: \(name)")
        } catch {
            #expect(error.code == .damagedData, "\(name)")
        }
    }

    @Test("Content changes (page order, title) change the hash; restoring the content restores it")
    func contentOrderMatters() {
        let story = Self.body(named: "story with moral and pages")
        guard case .story(var s) = story else {
            Issue.record("not a story")
            return
        }
        s.pages.reverse()
        #expect(RecordBody.story(s).canonicalBytes != story.canonicalBytes)
        var retitled = story
        retitled.title = "The Fox, again"
        #expect(SHA256.hash(retitled.canonicalBytes) != SHA256.hash(story.canonicalBytes))
        retitled.title = "The Fox"
        #expect(retitled == story && SHA256.hash(retitled.canonicalBytes) == SHA256.hash(story.canonicalBytes))
    }
}
