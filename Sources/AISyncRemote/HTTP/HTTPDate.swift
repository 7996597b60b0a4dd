import AISyncCore

/// HTTP dates (RFC 9110 §5.6.7) in the one form servers send today, the IMF-fixdate
/// `Sun, 06 Nov 1994 08:49:37 GMT`. The two obsolete forms, and anything else, read as nil:
/// a date aisync cannot read only makes it more careful (see ``HTTPRemote/etagSettled(_:)``).
enum HTTPDate {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Seconds since 1970-01-01 00:00:00 UTC of an IMF-fixdate; nil for anything else.
    static func seconds(_ text: String) -> Int64? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 6, parts[0].count == 4, parts[0].last == ",", parts[5] == "GMT",
            parts[1].count == 2, let day = number(parts[1]), (1...31).contains(day),
            let month = months.firstIndex(of: String(parts[2])),
            parts[3].count == 4, let year = number(parts[3]), year >= 1970
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
            let hour = number(clock[0]), let minute = number(clock[1]), let second = number(clock[2]),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        let days = Timestamp.days(fromCivil: year, Int64(month) + 1, day)
        return ((days * 24 + hour) * 60 + minute) * 60 + second
    }

    /// Digits only (no sign, no spaces), at most 4 of them.
    static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.count <= 4, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(text)
    }
}
