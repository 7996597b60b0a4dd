import AISyncCore

/// Ids and times derived from a source's own values, so a re-import lands on the same records.
///
/// A record id is `<kind>-` and 16 hex digits of sha256("<source>:<source id>"); an element
/// id (message, page) is `m-`/`page-` and 20 hex digits of sha256 of the record's key and the
/// element's source id. Hashing keeps any source id (upper case, slashes, 200 characters)
/// inside the `[a-z0-9-]{1,64}` id alphabet.
enum ImportIDs {
    /// The sha256 of `text`'s UTF-8, as lowercase hex (the first `digits` of it).
    static func hex(_ text: String, digits: Int = 64) -> String {
        var hasher = SHA256()
        var text = text
        text.withUTF8 { hasher.update(bytes: UnsafeRawBufferPointer($0)) }
        let bytes = hasher.finalize().bytes
        let alphabet: StaticString = "0123456789abcdef"
        let table = alphabet.utf8Start
        // Only the digits used are written: an import derives an id for every message.
        return String(unsafeUninitializedCapacity: digits) { out in
            for i in 0..<digits {
                let byte = bytes[i / 2]
                out[i] = table[Int(i % 2 == 0 ? byte >> 4 : byte & 15)]
            }
            return digits
        }
    }

    /// The record id for `key` (e.g. `chatgpt:<conversation id>`).
    static func record(_ kind: RecordKind, key: String) -> RecordID {
        // 16 hex digits after a kind name always form a valid id.
        RecordID("\(kind.rawValue)-\(hex(key, digits: 16))")!
    }

    /// An element id within the record keyed `key`.
    static func element(_ prefix: String, key: String, source: String) -> String {
        "\(prefix)-\(hex(key + "\u{0}" + source, digits: 20))"
    }

    /// Float epoch seconds (ChatGPT's `create_time`) as a timestamp; nil for null, strings,
    /// or values beyond year 9999.
    static func time(seconds value: JSONValue?) -> Timestamp? { time(epochSeconds: value?.numberValue) }

    /// ``time(seconds:)`` of a value read from a tape.
    static func time(seconds value: JSONTape.Node?) -> Timestamp? { time(epochSeconds: value?.numberValue) }

    private static func time(epochSeconds seconds: Double?) -> Timestamp? {
        guard let seconds, seconds.isFinite, seconds >= 0, seconds < 253_402_300_800 else { return nil }
        return Timestamp(milliseconds: Int64((seconds * 1000).rounded()))
    }

    /// Titles are bounded (1000 characters); an empty or missing one becomes `fallback`.
    static func title(_ text: String?, fallback: String) -> String {
        let trimmed = (text ?? "").trimmingSpaces
        guard !trimmed.isEmpty else { return fallback }
        return String(String.UnicodeScalarView(trimmed.unicodeScalars.prefix(1000)))
    }
}

extension String {
    /// Whether the text is empty or only spaces, tabs and newlines (checked without copying it).
    var isBlank: Bool { utf8.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D } }

    /// The text without leading and trailing spaces, tabs and newlines.
    var trimmingSpaces: String {
        let space: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !space($0) }), let last = lastIndex(where: { !space($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

extension JSONValue {
    /// The number as a double, for `.int` and `.double`; nil otherwise.
    var numberValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
}
