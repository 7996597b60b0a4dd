/// A record's stable id: lowercase, `^[a-z0-9][a-z0-9-]{0,63}$`, never reused.
public struct RecordID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// Validates untrusted text (argv, journal lines, remote files) as a record id.
    public init?(_ text: String) {
        guard Self.isValid(text) else { return nil }
        rawValue = text
    }

    public var description: String { rawValue }
        // Ids are ASCII, where String order is byte order; String's < has an ASCII fast path.
    public static func < (a: RecordID, b: RecordID) -> Bool { a.rawValue < b.rawValue }

    static func isValid(_ text: String) -> Bool {
        let u = Array(text.utf8)
        guard (1...64).contains(u.count) else { return false }
        func ok(_ b: UInt8) -> Bool { (b >= 97 && b <= 122) || (b >= 48 && b <= 57) }
        guard ok(u[0]) else { return false }
        return u.dropFirst().allSatisfy { ok($0) || $0 == UInt8(ascii: "-") }
    }
}

/// A device id: 128 random bits as 32 lowercase hex characters.
public struct DeviceID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String

    public init?(_ text: String) {
        guard text.utf8.count == 32, text.utf8.allSatisfy(isLowerHex) else { return nil }
        rawValue = text
    }

    public var description: String { rawValue }
    /// The first 8 characters, for human output.
    public var short: String { String(rawValue.prefix(8)) }
    public static func < (a: DeviceID, b: DeviceID) -> Bool { a.rawValue < b.rawValue }
}

/// The three kinds of record (design §1).
public enum RecordKind: String, Sendable, CaseIterable, Codable, Comparable {
    case chat, story, image
    public static func < (a: RecordKind, b: RecordKind) -> Bool { a.rawValue < b.rawValue }
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
