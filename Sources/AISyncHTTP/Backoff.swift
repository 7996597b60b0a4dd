import AISyncCore

/// Exponential backoff with full jitter, as a pure function so tests can check it.
public enum Backoff {
    /// The wait before retry number `attempt` (0-based): a random point in
    /// [0, min(cap, base·2^attempt)], given `unit` uniformly drawn from [0, 1).
    public static func delay(attempt: Int, baseMilliseconds: Int = 200, capMilliseconds: Int = 10_000, unit: Double)
        -> Int
    {
        let ceiling = min(Double(capMilliseconds), Double(baseMilliseconds) * Double(1 << min(attempt, 20)))
        return Int(ceiling * max(0, min(unit, 1)))
    }

    /// Honours a server's `Retry-After` (seconds) when it is sane.
    public static func retryAfter(_ header: String?) -> Int? {
        guard let header, let seconds = Int(header.trimmingCharacters(in: .whitespaces)), (0...3600).contains(seconds)
        else { return nil }
        return seconds * 1000
    }

    /// A server's `Retry-After` in seconds (RFC 9110 §10.2.3) as a duration, for an error's
    /// `retryAfter`: unlike `retryAfter(_:)`, which accepts only waits worth making in place,
    /// any value up to 31 days (a hostile header must not tell an app to wait for years). The
    /// HTTP-date form is not read: the servers aisync meets send seconds.
    public static func retryAfterDuration(_ header: String?) -> Duration? {
        guard let header, let seconds = Int64(header.trimmingCharacters(in: .whitespaces)),
            (0...31 * 24 * 3600).contains(seconds)
        else {
            return nil
        }
        return .seconds(seconds)
    }
}
