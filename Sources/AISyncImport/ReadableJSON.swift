import AISyncCore

/// Structured values from an export (a tool call's arguments, an unknown content type)
/// written as text a person reads: `key: value` lines, lists as `- item`, long or multi-line
/// strings as indented blocks. Never JSON: a transcript shows what a tool was asked, not
/// how the app serialized it.
enum ReadableJSON {
    /// `value` as readable lines (keys sorted, so the text is the same on every run).
    static func text(_ value: JSONValue) -> String {
        var lines: [String] = []
        write(value, indent: "", into: &lines)
        return lines.joined(separator: "\n")
    }

    /// A JSON object or array written in `text` (a tool call's arguments) as readable lines;
    /// `text` itself when it is not JSON or is a bare string or number.
    static func text(ofEncoded text: String) -> String {
        guard let first = text.utf8.first(where: { $0 != 32 && $0 != 10 && $0 != 13 && $0 != 9 }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
            let value = try? JSONParser.parse(Array(text.utf8))
        else { return text }
        return self.text(value)
    }

    /// Every string a value holds, in key order: the text of a content type not known yet.
    static func strings(_ value: JSONValue, skippingKeys skip: Set<String> = ["content_type"]) -> [String] {
        switch value {
        case .string(let s): return s.isBlank ? [] : [s]
        case .array(let items): return items.flatMap { strings($0, skippingKeys: skip) }
        case .object(let members):
            return members.keys.sorted().filter { !skip.contains($0) }.flatMap {
                strings(members[$0]!, skippingKeys: skip)
            }
        default: return []
        }
    }

    private static func write(_ value: JSONValue, indent: String, into lines: inout [String]) {
        switch value {
        case .object(let members):
            for key in members.keys.sorted() {
                let member = members[key]!
                if member == .null { continue }
                if let scalar = scalar(member), !scalar.contains("\n") {
                    lines.append("\(indent)\(key): \(scalar)")
                } else {
                    lines.append("\(indent)\(key):")
                    write(member, indent: indent + "  ", into: &lines)
                }
            }
        case .array(let items):
            for item in items {
                if let scalar = scalar(item), !scalar.contains("\n") {
                    lines.append("\(indent)- \(scalar)")
                } else {
                    lines.append("\(indent)-")
                    write(item, indent: indent + "  ", into: &lines)
                }
            }
        default:
            for line in (scalar(value) ?? "").split(separator: "\n", omittingEmptySubsequences: false) {
                lines.append(indent + line)
            }
        }
    }

    /// A string, number, boolean or null as text; nil for objects and arrays.
    private static func scalar(_ value: JSONValue) -> String? {
        switch value {
        case .string(let s): s
        case .object, .array: nil
        case .null: "none"
        default: value.canonicalString
        }
    }
}
