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
            let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (n, key) in keys.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(members[key]!, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Escapes only what JSON requires: quote, backslash and C0 controls.
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [92, 34])
            case UInt8(ascii: "\\"): out.append(contentsOf: [92, 92])
            case 0x08: out.append(contentsOf: [92, UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [92, UInt8(ascii: "f")])
            case 0x0A: out.append(contentsOf: [92, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [92, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [92, UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
