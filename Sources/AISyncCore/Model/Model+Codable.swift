import Foundation

// App-facing conformances: summaries an app can keep in SwiftUI state, encode into its own
// caches, and show with Foundation's date formatting.

extension Timestamp: Codable {
    /// The instant as a Foundation `Date` (for `Text(date, style: .relative)` and friends).
    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    /// The instant of `date`, to the millisecond.
    public init(_ date: Date) { self.init(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded(.down))) }

    /// Encoded as its ISO 8601 text, the form aisync writes everywhere.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(iso8601)
    }

    /// Decodes the ISO 8601 text ``Timestamp/iso8601`` writes; any other form throws
    /// `DecodingError.dataCorrupted`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        guard let t = Timestamp(iso8601: text) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a time like 2026-11-29T12:00:00.000Z")
        }
        self = t
    }
}

extension RecordID: Codable {
    /// Encoded as a plain string, its ``RecordID/rawValue``.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }

    /// Decoding validates like every other way in: an invalid id is an error, never a record.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        guard let id = RecordID(try c.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a record id")
        }
        self = id
    }
}
