import AISync

/// Times for people: recent ones relative ("5 min ago"), older ones in the local
/// time zone (`TZ` honoured), to the minute. `--json` keeps exact UTC ISO 8601.
enum TimeText {
    /// The widest text ``when(_:now:)`` returns, for aligned columns.
    static let width = 16

    static func when(_ time: Timestamp, now: Int64 = CLIPlatform.nowMilliseconds()) -> String {
        let ago = now - time.milliseconds
        // A little in the future is another device's clock running ahead: still "just now".
        if ago > -60_000, ago < 60_000 { return "just now" }
        if ago > 0, ago < 3_600_000 { return "\(ago / 60_000) min ago" }
        if ago > 0, ago < 86_400_000 { return "\(ago / 3_600_000) h ago" }
        return local(time)
    }

    /// `2026-11-28 14:03` in the local time zone.
    static func local(_ time: Timestamp) -> String {
        let seconds = time.milliseconds >= 0 ? time.milliseconds / 1000 : (time.milliseconds - 999) / 1000
        let t = CLIPlatform.localTime(seconds)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(t.year)-\(two(t.month))-\(two(t.day)) \(two(t.hour)):\(two(t.minute))"
    }
}
