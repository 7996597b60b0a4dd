import AISyncCore

/// The ISO 8601 times other apps write (Claude's `2024-03-01T12:00:00.123456Z`,
/// `…+02:00`, no fraction), read leniently into a millisecond timestamp.
enum ImportTime {
    /// `YYYY-MM-DDTHH:MM:SS`, an optional fraction of any length, then `Z` or `±HH:MM`
    /// (or nothing, read as UTC); nil for anything else.
    static func parse(_ text: String?) -> Timestamp? {
        guard let text else { return nil }
        let u = Array(text.utf8)
        guard u.count >= 19 else { return nil }
        var base = Array("0000-00-00T00:00:00.000Z".utf8)
        for i in 0..<19 { base[i] = u[i] == 32 && i == 10 ? 84 : u[i] }
        var i = 19
        var fraction: [UInt8] = []
        if i < u.count, u[i] == 46 {
            i += 1
            while i < u.count, u[i] >= 48, u[i] <= 57 {
                fraction.append(u[i])
                i += 1
            }
        }
        for (n, digit) in fraction.prefix(3).enumerated() { base[20 + n] = digit }
        guard let utc = Timestamp(iso8601: String(decoding: base, as: UTF8.self)) else { return nil }
        let zone = Array(u[i...])
        if zone.isEmpty || zone == [90] || zone == [122] { return utc }
        guard zone.count == 6, zone[0] == 43 || zone[0] == 45, zone[3] == 58,
            let h = Int64(String(decoding: zone[1..<3], as: UTF8.self)),
            let m = Int64(String(decoding: zone[4..<6], as: UTF8.self))
        else { return nil }
        let offset = (h * 60 + m) * 60_000
        return Timestamp(milliseconds: utc.milliseconds - (zone[0] == 43 ? offset : -offset))
    }
}
