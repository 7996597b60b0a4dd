/// A UTC instant with millisecond precision, written as `2026-11-29T12:00:00.000Z`.
///
/// Our own formatter because record bodies are hashed: the text must be identical on every
/// platform, which `ISO8601DateFormatter` does not promise.
public struct Timestamp: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public let milliseconds: Int64

    /// The instant `milliseconds` after 1970-01-01T00:00:00Z (milliseconds, not seconds).
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// Earlier instants order first.
    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.milliseconds < b.milliseconds }

    /// The ``iso8601`` text.
    public var description: String { iso8601 }

    /// The instant as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC, always three fraction digits), the form
    /// aisync writes in every file; the same bytes on every platform.
    public var iso8601: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        writeISO8601(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the ISO 8601 form's bytes without making a String or an array: a listing of
    /// 100,000 records writes 200,000 of these.
    public func writeISO8601(into out: inout [UInt8]) {
        let ms = milliseconds
        let days = ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000
        let (y, m, d) = Self.civil(fromDays: days)
        let msOfDay = ms - days * 86_400_000
        let fits = (0...9999).contains(y)
        let at = out.count
        out += Self.template
        out.withUnsafeMutableBufferPointer { b in
            func put(_ v: Int64, _ from: Int, _ width: Int) {
                var v = v
                for i in stride(from: at + from + width - 1, through: at + from, by: -1) {
                    b[i] = UInt8(48 + v % 10)
                    v /= 10
                }
            }
            put(m, 5, 2)
            put(d, 8, 2)
            put(msOfDay / 3_600_000, 11, 2)
            put(msOfDay / 60_000 % 60, 14, 2)
            put(msOfDay / 1000 % 60, 17, 2)
            put(msOfDay % 1000, 20, 3)
            if fits { put(y, 0, 4) }
        }
        // A year outside 0000…9999 does not fit four digits: it replaces them, as printed.
        if !fits { out.replaceSubrange(at..<(at + 4), with: String(format4: y).utf8) }
    }

    private static let template: [UInt8] = Array("0000-00-00T00:00:00.000Z".utf8)

    /// Parses exactly `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    public init?(iso8601 text: String) {
        var text = text
        guard let t = text.withUTF8({ Self(iso8601UTF8: $0) }) else { return nil }
        self = t
    }

    /// The same, from the text's bytes (no copy of them).
    private init?(iso8601UTF8 u: UnsafeBufferPointer<UInt8>) {
        guard u.count == 24, u[4] == 45, u[7] == 45, u[10] == 84, u[13] == 58, u[16] == 58, u[19] == 46, u[23] == 90
        else { return nil }
        func num(_ r: Range<Int>) -> Int64? {
            var v: Int64 = 0
            for i in r {
                guard u[i] >= 48, u[i] <= 57 else { return nil }
                v = v * 10 + Int64(u[i] - 48)
            }
            return v
        }
        guard let y = num(0..<4), let mo = num(5..<7), let d = num(8..<10), let h = num(11..<13),
            let mi = num(14..<16), let s = num(17..<19), let f = num(20..<23),
            (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 60
        else { return nil }
        let days = Self.days(fromCivil: y, mo, d)
        guard Self.civil(fromDays: days) == (y, mo, d) else { return nil }
        milliseconds = days * 86_400_000 + h * 3_600_000 + mi * 60_000 + s * 1000 + f
    }

    // Howard Hinnant's civil-from-days algorithms (proleptic Gregorian calendar).
    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// Days from 1970-01-01 to year `y0`, month `m` (1-12), day `d` of the proleptic Gregorian
    /// calendar (Howard Hinnant's days_from_civil); also HTTP dates' (AISyncRemote).
    package static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

extension String {
    /// A year outside 0...9999 (only from hostile input): written plainly, never trapping.
    fileprivate init(format4 year: Int64) { self = String(year) }
}

/// Times as ``Timestamp/writeISO8601(into:)`` writes them, for many in a row (a listing): the date of the
/// last day written is kept, since a listing's records mostly share their days (two times
/// a record, 2,000,000 for a listing of 1,000,000).
package struct ISO8601Writer {
    private var day: Int64 = .min
    /// `day`'s year, month and day of the month.
    private var date: (Int, Int, Int) = (0, 0, 0)

    package init() {}

    /// Appends the time `ms` milliseconds after 1970-01-01T00:00:00Z: 24 bytes written on the
    /// stack and appended once (the date was kept as bytes in an array, made again at every
    /// change of day, which a listing's creation times in update order mostly are).
    package mutating func write(_ ms: Int64, into out: inout [UInt8]) {
        let days = ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000
        // 1970-01-01 to 9999-12-31; other years are written whole.
        guard (0..<2_932_897).contains(days) else { return Timestamp(milliseconds: ms).writeISO8601(into: &out) }
        if days != day {
            let (y, m, d) = Timestamp.civil(fromDays: days)
            date = (Int(y), Int(m), Int(d))
            day = days
        }
        let t = Int(ms - days * 86_400_000)
        let (h, m, s, f) = (t / 3_600_000, t / 60_000 % 60, t / 1000 % 60, t % 1000)
        let (year, month, dayOfMonth) = date
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { b in
            func two(_ at: Int, _ v: Int) {
                b[at] = UInt8(truncatingIfNeeded: 48 + v / 10)
                b[at + 1] = UInt8(truncatingIfNeeded: 48 + v % 10)
            }
            two(0, year / 100)
            two(2, year % 100)
            b[4] = UInt8(ascii: "-")
            two(5, month)
            b[7] = UInt8(ascii: "-")
            two(8, dayOfMonth)
            b[10] = UInt8(ascii: "T")
            two(11, h)
            b[13] = UInt8(ascii: ":")
            two(14, m)
            b[16] = UInt8(ascii: ":")
            two(17, s)
            b[19] = UInt8(ascii: ".")
            b[20] = UInt8(truncatingIfNeeded: 48 + f / 100)
            two(21, f % 100)
            b[23] = UInt8(ascii: "Z")
            out.append(contentsOf: b)
        }
    }
}
