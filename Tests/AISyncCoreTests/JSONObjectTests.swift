import AISyncTestSupport
import Testing

@testable import AISyncCore
@testable import AISyncTesting

// JSONObject: an object's members, kept sorted while small and as a dictionary past
// `sortedLimit`. Whatever the form, it must behave exactly like a dictionary.

@Suite("JSON objects")
struct JSONObjectTests {
    /// Keys that sort differently by UTF-8 bytes than by `String <`, or that share prefixes.
    static let keys =
        ["a", "b", "ab", "", "A", "é", "e\u{301}", "z", "😀", "k10", "k9", "\u{7F}", "~", "id", "ID"]
        + (0..<30).map { "key\($0)" }

    @Test("Random sets, updates and removals leave it equal to a dictionary keyed by bytes", arguments: 0..<30)
    func behavesLikeADictionary(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed) &+ 3)
        var object = JSONObject()
        // The model: keys are their UTF-8 bytes ("é" and "e\u{301}" are two keys, as in JSON).
        var model: [[UInt8]: JSONValue] = [:]
        for step in 0..<400 {
            let key = Self.keys.randomElement(using: &rng)!
            let bytes = Array(key.utf8)
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<5:
                let value = JSONValue.int(Int64(step))
                #expect(object.updateValue(value, forKey: key) == model.updateValue(value, forKey: bytes))
            case 5..<7:
                #expect(object.removeValue(forKey: key) == model.removeValue(forKey: bytes))
            case 7:
                object[key] = nil
                model[bytes] = nil
            default:
                object[key] = .string("s\(step)")
                model[bytes] = .string("s\(step)")
            }
            #expect(object.count == model.count)
            for key in Self.keys { #expect(object[key] == model[Array(key.utf8)]) }
            // Canonical order is UTF-8 byte order, whatever the form.
            let order = object.canonicallyOrdered.map { Array($0.key.utf8) }
            #expect(order == model.keys.sorted { $0.lexicographicallyPrecedes($1) })
            #expect(Set(object.map { Array($0.key.utf8) }) == Set(model.keys))
            // Equal to the same members built at once, and hashed alike (one form or the other).
            let rebuilt = JSONObject(
                uniqueKeysWithValues: model.map { (String(decoding: $0.key, as: UTF8.self), $0.value) })
            #expect(object == rebuilt)
            #expect(object.hashValue == rebuilt.hashValue)
        }
    }

    @Test("Keys with the same text in two Unicode normalizations are two keys, and parse as two")
    func keysAreBytes() throws {
        let parsed = try JSONParser.parse(#"{"\#u{E9}":1,"e\#u{301}":2}"#)
        #expect(parsed.objectValue?.count == 2)
        #expect(parsed["\u{E9}"] == .int(1) && parsed["e\u{301}"] == .int(2))
        #expect(parsed.canonicalString == "{\"e\u{301}\":2,\"\u{E9}\":1}")
    }

    @Test("Small and large objects compare and hash by their members, not by how they are kept")
    func formsCompareByMembers() {
        var grown = JSONObject()
        for n in 0..<40 { grown["k\(n)"] = .int(Int64(n)) }
        // Shrunk back under the limit after being a dictionary.
        for n in 10..<40 { grown["k\(n)"] = nil }
        let small = JSONObject(uniqueKeysWithValues: (0..<10).map { ("k\($0)", JSONValue.int(Int64($0))) })
        #expect(grown == small)
        #expect(grown.hashValue == small.hashValue)
        #expect(Set([JSONValue.object(grown), .object(small)]).count == 1)
        var other = small
        other["k3"] = .int(99)
        #expect(other != small)
        #expect(JSONValue.object(small).canonicalString == JSONValue.object(grown).canonicalString)
    }

    @Test("The parser refuses a repeated key at its place, in a small object and in a large one")
    func duplicatesAreFoundWhereTheyAre() throws {
        for count in [2, 5, JSONObject.sortedLimit, JSONObject.sortedLimit + 1, 40] {
            let members = (0..<count).map { "\"k\($0)\":\($0)" }
            let text = "{" + members.joined(separator: ",") + ",\"k1\":7}"
            let offset = text.utf8.count - 1  // after the repeated member's value, where the parser stops
            #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(text) }
            do {
                _ = try JSONParser.parse(text)
            } catch {
                #expect(error.reason == "duplicate key \"k1\"")
                #expect(error.offset == offset, "\(count) members")
            }
            let fine = try JSONParser.parse("{" + members.joined(separator: ",") + "}")
            #expect(fine.objectValue?.count == count)
            #expect(fine["k0"] == .int(0) && fine["k\(count - 1)"] == .int(Int64(count - 1)))
        }
    }
}
