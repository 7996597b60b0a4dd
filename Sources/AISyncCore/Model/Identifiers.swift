/// A record's stable id: lowercase, `^[a-z0-9][a-z0-9-]{0,63}$`, never reused.
public struct RecordID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The id's text, e.g. `chat-…`; always valid (the way in is the failable ``init(_:)``).
    public let rawValue: String

    /// Validates untrusted text (argv, journal lines, remote files) as a record id.
    public init?(_ text: String) {
        guard Self.isValid(text) else { return nil }
        rawValue = text
    }

    /// An id whose bytes the caller has just checked with this same rule (the index's
    /// `IndexFile.isID`): a listing makes 100,000 of them and need not check each twice.
    package init(checked text: String) {
        assert(Self.isValid(text), "not a valid record id")
        rawValue = text
    }

    /// The id's text (``rawValue``), as the command line prints it.
    public var description: String { rawValue }
    /// Orders ids by their text, byte by byte (ids are ASCII, where String order is byte
    /// order, and String's < has an ASCII fast path).
    public static func < (a: RecordID, b: RecordID) -> Bool { a.rawValue < b.rawValue }

    /// Whether `text` is a valid id: 1 to 64 of `a-z0-9-`, not starting with `-` (the index
    /// checks its lines' bytes with a copy of this rule, `IndexFile.isID`).
    static func isValid(_ text: String) -> Bool {
        let u = text.utf8
        guard (1...64).contains(u.count), let first = u.first else { return false }
        func ok(_ b: UInt8) -> Bool { (b >= 97 && b <= 122) || (b >= 48 && b <= 57) }
        guard ok(first) else { return false }
        return u.dropFirst().allSatisfy { ok($0) || $0 == UInt8(ascii: "-") }
    }
}

/// A device id: 128 random bits as 32 lowercase hex characters.
public struct DeviceID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 32 lowercase hex characters.
    public let rawValue: String

    /// Validates untrusted text as a device id: exactly 32 lowercase hex characters, else nil.
    public init?(_ text: String) {
        guard text.utf8.count == 32, text.utf8.allSatisfy(isLowerHex) else { return nil }
        rawValue = text
    }

    /// The full 32-character id (``rawValue``); see ``short`` for display.
    public var description: String { rawValue }
    /// The first 8 characters, for human output.
    public var short: String { String(rawValue.prefix(8)) }
    /// Orders ids by their text; last-writer-wins uses it to break ties between equal times.
    public static func < (a: DeviceID, b: DeviceID) -> Bool { a.rawValue < b.rawValue }
}

/// The three kinds of record (docs/DESIGN.md §3.1).
public enum RecordKind: String, Sendable, CaseIterable, Codable, Comparable {
    /// A saved chat (``ChatBody``), a story (``StoryBody``) or a picture (``ImageBody``); the
    /// raw value is the name used in ids, journal lines and `--kind`.
    case chat, story, image
    /// Orders kinds by name (`chat` < `image` < `story`).
    public static func < (a: RecordKind, b: RecordKind) -> Bool { a.rawValue < b.rawValue }
    /// The kind with its article, for messages: "a chat", "a story", "an image".
    package var withArticle: String { self == .image ? "an image" : "a \(rawValue)" }
}

package func isLowerHex(_ b: UInt8) -> Bool { (b >= 48 && b <= 57) || (b >= 97 && b <= 102) }

extension SHA256Digest {
    /// Parses untrusted text as a sha256 hex digest, throwing a damaged-data error naming `what`.
    static func parse(_ text: String?, what: String) throws(AISyncError) -> SHA256Digest {
        guard let text, let d = SHA256Digest(hex: text) else {
            throw .damaged("\(what) is not a sha256 (64 lowercase hex characters)")
        }
        return d
    }
}
