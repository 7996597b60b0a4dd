/// A strict JSON parser for bytes that may be hostile (journal lines, server responses).
///
/// Strict on purpose: duplicate keys, invalid UTF-8, trailing bytes and nesting deeper than
/// `maxDepth` are errors, so two machines can never read one document two ways.
public struct JSONParser {
    /// Why a document was rejected, and where.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The 0-based byte offset in the input where parsing stopped.
        public let offset: Int
        /// What was wrong there, e.g. `unexpected trailing bytes`.
        public let reason: String
        /// `"<reason> at byte <offset>"`.
        public var description: String { "\(reason) at byte \(offset)" }
    }

    /// The deepest nesting of arrays and objects accepted; deeper input is rejected rather
    /// than risking a stack overflow on hostile bytes.
    public static let maxDepth = 64

    /// The input, valid only inside ``parse(_:)``: reading through a buffer pointer skips
    /// the array's retain and bounds checks on every byte; every read here checks `index`
    /// against `bytes.count` itself.
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    /// Room made for an object's members before the first is read.
    private var objectCapacity = 8

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Parses one complete JSON document. Contiguous input (an array or a slice of one) is
    /// read where it is, never copied: a segment line of 60 MB costs no second 60 MB.
    public static func parse<C: Collection>(_ input: C) throws(Failure) -> JSONValue where C.Element == UInt8 {
        let inPlace = input.withContiguousStorageIfAvailable { buffer in
            Result { () throws(Failure) -> JSONValue in try parse(buffer: buffer) }
        }
        if let inPlace { return try inPlace.get() }
        return try Array(input).withUnsafeBufferPointer { (buffer) throws(Failure) -> JSONValue in
            try parse(buffer: buffer)
        }
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSONValue {
        var parser = JSONParser(buffer)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.fail("unexpected trailing bytes") }
        return value
    }

    /// Parses the one value starting at `start`, nested `depth` deep in its document (no
    /// whitespace around it), and where it ends; nil when it is not valid JSON. For a reader
    /// of a document whose shape it knows (``Version``'s canonical line reader, which parses
    /// with this only the values whose shape is open, and for ``JSONArrayReader``, which
    /// parses a big export's elements where they lie in its chunk). `objectCapacity`: the
    /// members each object makes room for at first (a reader that knows its objects are
    /// small keeps less memory per object; more members only grow it).
    public static func value(
        in buffer: UnsafeBufferPointer<UInt8>, at start: Int, depth: Int, objectCapacity: Int = 8
    ) -> (JSONValue, end: Int)? {
        var parser = JSONParser(buffer)
        parser.index = start
        parser.objectCapacity = objectCapacity
        guard let value = try? parser.parseValue(depth: depth) else { return nil }
        return (value, parser.index)
    }

    /// Parses one complete JSON document from the UTF-8 of `text`; throws ``Failure`` like the byte form.
    public static func parse(_ text: String) throws(Failure) -> JSONValue { try parse(Array(text.utf8)) }

    func fail(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

    /// Whether `byte` is JSON whitespace.
    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    mutating func skipWhitespace() {
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
    }

    private mutating func parseValue(depth: Int) throws(Failure) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        if bytes[index] == UInt8(ascii: "{") || bytes[index] == UInt8(ascii: "[") {
            guard depth < Self.maxDepth else { throw fail("nesting too deep") }
        }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectWord("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectWord("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectWord("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    mutating func expectWord(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("unexpected end of input") }
        let ok = word.withUTF8Buffer { buffer in
            (0..<count).allSatisfy { bytes[index + $0] == buffer[$0] }
        }
        guard ok else { throw fail("invalid literal") }
        index += count
    }

    private mutating func parseObject(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(JSONObject())
        }
        var members = JSONObject.Builder(capacity: objectCapacity)
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth + 1)
            guard members.add(key, value) else { throw fail("duplicate key \"\(key)\"") }
            if try closes(UInt8(ascii: "}")) { return .object(members.object) }
        }
    }

    private mutating func parseArray(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue(depth: depth + 1))
            if try closes(UInt8(ascii: "]")) { return .array(items) }
        }
    }

    /// After a member or an element: whitespace, then `,` (false: another follows) or
    /// `close` (true: the object or array ends there).
    @inline(__always)
    mutating func closes(_ close: UInt8) throws(Failure) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw fail("unexpected end of input") }
        if bytes[index] == UInt8(ascii: ",") {
            index += 1
            return false
        }
        if bytes[index] == close {
            index += 1
            return true
        }
        throw fail(close == UInt8(ascii: "}") ? "expected ',' or '}'" : "expected ',' or ']'")
    }

    mutating func parseNumber() throws(Failure) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        var isInteger = true
        func digits(_ p: inout JSONParser) -> Int {
            let s = p.index
            while p.index < p.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(p.bytes[p.index]) {
                p.index += 1
            }
            return p.index - s
        }
        let intStart = index
        guard digits(&self) > 0 else { throw fail("invalid number") }
        if bytes[intStart] == UInt8(ascii: "0"), index - intStart > 1 { throw fail("leading zero in number") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard digits(&self) > 0 else { throw fail("invalid number") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits(&self) > 0 else { throw fail("invalid number") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let i = Int64(text) { return .int(i) }
        guard let d = Double(text), d.isFinite else { throw fail("number out of range") }
        return .double(d)
    }

    /// Where the run of bytes from `start` that need no unescaping ends (at a quote, a
    /// backslash, a control character or the end), and whether it is all ASCII.
    private func plainRun(from start: Int) -> (end: Int, ascii: Bool) {
        JSONStringScan.plainRun(bytes, from: start)
    }

    private mutating func parseString() throws(Failure) -> String {
        index += 1
        // Fast path: a run of plain bytes up to the closing quote (most strings) is decoded
        // in one go; an escape or a control character falls through to the byte loop.
        let (end, ascii) = plainRun(from: index)
        if end < bytes.count, bytes[end] == 34 {
            let run = UnsafeBufferPointer(rebasing: bytes[index..<end])
            // ASCII is valid UTF-8 as it is: `String(decoding:)` takes it without the generic
            // `String(validating:)` (which cost a tenth of an index rebuild's time).
            guard let s = ascii ? String(decoding: run, as: UTF8.self) : String(validating: run, as: UTF8.self) else {
                throw fail("invalid UTF-8 in string")
            }
            index = end + 1
            return s
        }
        var out: [UInt8] = Array(bytes[index..<end])
        index = end
        try unescapeRest(into: &out)
        guard let s = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8 in string") }
        return s
    }

    /// The rest of a string from the cursor (after its plain start), unescaped into `out`,
    /// up to and past its closing quote. Not checked as UTF-8: the caller checks what it wrote.
    mutating func unescapeRest(into out: inout [UInt8]) throws(Failure) {
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw fail("unterminated escape") }
                let esc = bytes[index]
                index += 1
                switch esc {
                case UInt8(ascii: "\""): out.append(34)
                case UInt8(ascii: "\\"): out.append(92)
                case UInt8(ascii: "/"): out.append(47)
                case UInt8(ascii: "b"): out.append(8)
                case UInt8(ascii: "f"): out.append(12)
                case UInt8(ascii: "n"): out.append(10)
                case UInt8(ascii: "r"): out.append(13)
                case UInt8(ascii: "t"): out.append(9)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == 92, bytes[index + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired surrogate")
                        }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw fail("unpaired surrogate")
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw fail("invalid escape") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default: throw fail("invalid escape")
                }
            case 0..<0x20: throw fail("control character in string")
            default: out.append(byte)
            }
        }
    }

    private mutating func parseHex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            index += 1
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - 55)
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | digit
        }
        return value
    }
}
