/// Canonical serialization: keys sorted by code point, no whitespace, minimal escaping.
extension JSONValue {
    /// The canonical UTF-8 bytes of this value (see Schemas/README.md).
    public var canonicalBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        Self.write(self, into: &out)
        return out
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
            // Sorting the pairs (not the keys, then looking each up) hashes nothing again.
            let sorted = members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (n, member) in sorted.enumerated() {
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
            for (i, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
                escape(byte, into: &out)
                runStart = i + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends the JSON escape of one byte that may not appear raw in a string.
    private static func escape(_ byte: UInt8, into out: inout [UInt8]) {
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
