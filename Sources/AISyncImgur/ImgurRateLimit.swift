import AISyncCore
import AISyncHTTP

/// The rate-limit figures Imgur sends with a response (https://apidocs.imgur.com/#rate-limits).
///
/// Imgur has three budgets, each reported in its own headers:
/// - the user budget (per IP and application): `X-RateLimit-UserLimit`, `-UserRemaining`, and
///   `-UserReset`, a unix timestamp;
/// - the application's daily budget: `X-RateLimit-ClientLimit`, `-ClientRemaining` (no reset
///   header; it is a daily allocation);
/// - the POST budget (per IP, 1,250 an hour; sent with POST responses): `X-Post-Rate-Limit-Limit`,
///   `-Remaining`, and `-Reset`, the number of *seconds* until it resets.
///
/// All resets are stored as absolute unix seconds. The values come from a server and are checked:
/// numbers that do not parse are ignored, negative counts count as zero, and reset times more
/// than 31 days away are ignored rather than believed (a hostile header must not stop uploads
/// for years).
public struct ImgurRateLimit: Sendable, Equatable, CustomStringConvertible {
    /// One budget: how many credits it has, how many are left, and when it refills.
    public struct Bucket: Sendable, Equatable {
        /// The budget's size in credits; nil when Imgur does not say.
        public var limit: Int64?
        /// Credits left (never negative); nil when Imgur does not say.
        public var remaining: Int64?
        /// Unix seconds; nil when Imgur does not say.
        public var resetAt: Int64?

        /// A budget with the given figures; `resetAt` is in unix seconds (not milliseconds).
        public init(limit: Int64? = nil, remaining: Int64? = nil, resetAt: Int64? = nil) {
            self.limit = limit
            self.remaining = remaining
            self.resetAt = resetAt
        }

        /// No credits left.
        public var isExhausted: Bool { (remaining ?? 1) <= 0 }
    }

    /// The user budget (per IP and application); nil when the response did not report it.
    public var user: Bucket?
    /// The application's daily budget; nil when the response did not report it.
    public var client: Bucket?
    /// The hourly POST (upload) budget per IP; nil when the response did not report it.
    public var post: Bucket?
    /// When these figures were seen (unix seconds).
    public var observedAt: Int64

    /// Figures for the given budgets, seen at `observedAt` (unix seconds).
    public init(user: Bucket? = nil, client: Bucket? = nil, post: Bucket? = nil, observedAt: Int64) {
        self.user = user
        self.client = client
        self.post = post
        self.observedAt = observedAt
    }

    /// The furthest a reset may lie in the future before it is treated as nonsense.
    static let maxResetHorizon: Int64 = 31 * 24 * 3600
    /// How long Imgur blocks a user who spent the user budget when it does not say (an hour).
    static let defaultUserPenalty: Int64 = 3600
    /// The application budget is daily and has no reset header.
    static let clientBudgetPeriod: Int64 = 24 * 3600

    /// Reads the rate-limit headers of a response (names lowercased, as `HTTPResponse` has
    /// them), or nil when there are none.
    public static func parse(headers: [String: String], now: Int64) -> ImgurRateLimit? {
        func number(_ name: String) -> Int64? {
            guard let raw = headers[name] else { return nil }
            var text = Substring(raw)
            while text.first == " " || text.first == "\t" { text = text.dropFirst() }
            while text.last == " " || text.last == "\t" { text = text.dropLast() }
            let negative = text.hasPrefix("-")
            if negative { text = text.dropFirst() }
            guard (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                let value = Int64(text)
            else { return nil }
            return negative ? -value : value
        }
        func count(_ name: String) -> Int64? { number(name).map { max(0, $0) } }
        /// Imgur documents `X-RateLimit-UserReset` as a unix timestamp and
        /// `X-Post-Rate-Limit-Reset` as seconds from now. Values are read by size, not by name
        /// (below 10^9, i.e. before 2001-09-09, a value is an interval), since proxies and old
        /// API versions mixed the two up. A past time means "already reset" (now).
        func reset(_ name: String) -> Int64? {
            guard let value = number(name), value >= 0 else { return nil }
            let at = value >= 1_000_000_000 ? value : now + value
            guard at <= now + maxResetHorizon else { return nil }
            return max(now, at)
        }

        var result = ImgurRateLimit(observedAt: now)
        let user = Bucket(
            limit: count("x-ratelimit-userlimit"), remaining: count("x-ratelimit-userremaining"),
            resetAt: reset("x-ratelimit-userreset"))
        if user != Bucket() { result.user = user }
        let client = Bucket(limit: count("x-ratelimit-clientlimit"), remaining: count("x-ratelimit-clientremaining"))
        if client != Bucket() { result.client = client }
        let post = Bucket(
            limit: count("x-post-rate-limit-limit"), remaining: count("x-post-rate-limit-remaining"),
            resetAt: reset("x-post-rate-limit-reset"))
        if post != Bucket() { result.post = post }
        return result.user == nil && result.client == nil && result.post == nil ? nil : result
    }

    /// The fewest credits left in any budget.
    public var remaining: Int64? { [user, client, post].compactMap { $0?.remaining }.min() }

    /// True when some budget is spent.
    public var isExhausted: Bool { [user, client, post].contains { $0?.isExhausted == true } }

    /// When uploading may resume (unix seconds): the latest reset among spent budgets; when none
    /// is spent (Imgur's spam protection answered 429 anyway), the POST reset, then the user
    /// reset; nil when the headers do not say.
    public func retryAt(now: Int64) -> Int64? {
        let spent = [user, post].compactMap { $0 }.filter(\.isExhausted)
        var times = spent.compactMap(\.resetAt)
        if client?.isExhausted == true { times.append(now + Self.clientBudgetPeriod) }
        if user?.isExhausted == true, user?.resetAt == nil { times.append(now + Self.defaultUserPenalty) }
        if let latest = times.max() { return latest }
        return post?.resetAt ?? user?.resetAt
    }

    /// The budgets reported, e.g. `user 11/12500 until 2026-11-29T13:00:00.000Z, post 1249/1250`
    /// (`?` for a figure Imgur did not send).
    public var description: String {
        func show(_ name: String, _ b: Bucket?) -> String? {
            guard let b else { return nil }
            var s = "\(name) \(b.remaining.map(String.init) ?? "?")/\(b.limit.map(String.init) ?? "?")"
            if let r = b.resetAt { s += " until \(Timestamp(milliseconds: r * 1000).iso8601)" }
            return s
        }
        return [show("user", user), show("client", client), show("post", post)].compactMap { $0 }.joined(
            separator: ", ")
    }

    /// For `aisync imgur status --json`.
    public var json: JSONValue {
        func bucket(_ b: Bucket?) -> JSONValue {
            guard let b else { return .null }
            var o: JSONObject = [:]
            o["limit"] = b.limit.map(JSONValue.int) ?? .null
            o["remaining"] = b.remaining.map(JSONValue.int) ?? .null
            o["resetAt"] = b.resetAt.map(JSONValue.int) ?? .null
            return .object(o)
        }
        return .object([
            "user": bucket(user), "client": bucket(client), "post": bucket(post), "observedAt": .int(observedAt),
        ])
    }
}
