/// Canonical serialization: keys sorted by code point, no whitespace, minimal escaping.
extension JSONValue {
    /// The canonical UTF-8 bytes of this value (see Schemas/README.md).
    public var canonicalBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        Self.write(self, into: &out)
        return out
    }

    /// The length of ``canonicalBytes`` without building them, counting no further than
    /// just past `limit` (a result over `limit` means "longer"). Deciding whether a value is
    /// small enough to stay inline must not cost a serialization it then throws away.
    package func canonicalLength(upTo limit: Int = .max) -> Int {
        switch self {
        case .null: return 4
        case .bool(let b): return b ? 4 : 5
        case .int(let i): return Self.digits(i)
        case .double: return canonicalBytes.count
        case .string(let s): return Self.stringLength(s)
        case .array(let items):
            var n = 1 + max(items.count - 1, 0) + 1
            for item in items where n <= limit { n += item.canonicalLength(upTo: limit - n) }
            return n
        case .object(let members):
            var n = 1 + max(members.count - 1, 0) + members.count + 1
            for (key, value) in members where n <= limit {
                n += Self.stringLength(key) + value.canonicalLength(upTo: limit - n)
            }
            return n
        }
    }

    /// At least ``canonicalLength(upTo:)``, found without reading any string's bytes (each
    /// counted as if every byte needed a six-byte escape), counting no further than just past
    /// `limit`. When this is within a limit, the exact length is too.
    package func canonicalLengthBound(upTo limit: Int = .max) -> Int {
        switch self {
        case .null, .bool: return 5
        case .int: return 20
        case .double: return canonicalBytes.count
        case .string(let s): return s.utf8.count * 6 + 2
        case .array(let items):
            var n = 2 + items.count
            for item in items where n <= limit { n += item.canonicalLengthBound(upTo: limit - n) }
            return n
        case .object(let members):
            var n = 2 + members.count * 2
            for (key, value) in members where n <= limit {
                n += key.utf8.count * 6 + 2 + value.canonicalLengthBound(upTo: limit - n)
            }
            return n
        }
    }

    /// Decimal digits of `i`, with its sign.
    static func digits(_ i: Int64) -> Int {
        var n = i < 0 ? 2 : 1
        var v = i.magnitude
        while v >= 10 {
            v /= 10
            n += 1
        }
        return n
    }

    /// The length of a string's canonical encoding: its UTF-8, the quotes, and escapes.
    static func stringLength(_ s: String) -> Int {
        var s = s
        return s.withUTF8 { bytes in
            var n = bytes.count + 2
            var p = JSONStringScan.nextSpecial(bytes, from: 0)
            while p < bytes.count {
                switch bytes[p] {
                case 0x22, 0x5C, 0x08, 0x0C, 0x0A, 0x0D, 0x09: n += 1
                default: n += 5
                }
                p = JSONStringScan.nextSpecial(bytes, from: p + 1)
            }
            return n
        }
    }

    /// The canonical encoding as a String.
    public var canonicalString: String { String(decoding: canonicalBytes, as: UTF8.self) }

    static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d):
            // Not used by aisync's own formats (integers only); kept readable for foreign input.
            if d.isFinite { out.append(contentsOf: "\(d)".utf8) } else { out.append(contentsOf: "null".utf8) }
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (n, item) in items.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            // A small object's members are kept in canonical order already.
            for (n, member) in members.canonicallyOrdered.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(member.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Escapes only what JSON requires: quote, backslash and C0 controls.
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        // Native strings are contiguous UTF-8; runs of bytes that need no escape are copied
        // whole, which is most of a chat's text.
        s.withUTF8 { bytes in
            var runStart = 0
            var i = JSONStringScan.nextSpecial(bytes, from: 0)
            while i < bytes.count {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
                escape(bytes[i], into: &out)
                runStart = i + 1
                i = JSONStringScan.nextSpecial(bytes, from: runStart)
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends the JSON escape of one byte that may not appear raw in a string (`"`, `\`,
    /// or a control byte), as ``writeString(_:into:)`` writes it.
    package static func escape(_ byte: UInt8, into out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): out.append(contentsOf: [92, 34])
        case UInt8(ascii: "\\"): out.append(contentsOf: [92, 92])
        case 0x08: out.append(contentsOf: [92, UInt8(ascii: "b")])
        case 0x0C: out.append(contentsOf: [92, UInt8(ascii: "f")])
        case 0x0A: out.append(contentsOf: [92, UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [92, UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [92, UInt8(ascii: "t")])
        default:
            let hex: StaticString = "0123456789abcdef"
            let digits = hex.utf8Start
            out.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, digits[Int(byte >> 4)], digits[Int(byte & 15)]])
        }
    }
}
