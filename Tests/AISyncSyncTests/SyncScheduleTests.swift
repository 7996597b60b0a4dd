import Testing

@testable import AISyncSync

/// The scheduler's decisions (issue 28) as tables on a manual clock: debounce, the longest
/// delay of a burst, the regular poll, backoff bounds and jitter, Retry-After, offline,
/// "sync now", pause, one sync at a time across several remotes.
@Suite("Sync schedule")
struct SyncScheduleTests {
    static let policy = SyncSchedule.Policy(
        interval: 60_000, debounce: 2_000, maxDelay: 10_000, backoffBase: 2_000, backoffCap: 300_000,
        offlineInterval: 300_000, jitter: 0.2)

    /// A schedule whose one remote has just synced, at `t`.
    static func synced(at t: Int64, remotes: [String] = ["a"]) -> SyncSchedule {
        var s = SyncSchedule(remotes: remotes, policy: policy)
        for r in remotes {
            s.started(r, at: t)
            s.ended(r, at: t, .succeeded, unit: 0.5)
        }
        return s
    }

    @Test func theFirstSyncIsDueAtOnceThenThePollEveryInterval() {
        var s = SyncSchedule(remotes: ["a"], policy: Self.policy)
        #expect(s.next(at: 0) == .sync(remote: "a", reason: .timer))
        s.started("a", at: 0)
        #expect(s.next(at: 10) == .wait(until: nil), "nothing starts while a sync runs")
        s.ended("a", at: 500, .succeeded, unit: 0.5)
        #expect(s.next(at: 501) == .wait(until: 60_500))
        #expect(s.next(at: 60_500) == .sync(remote: "a", reason: .timer))
    }

    /// (changes at these times) → the decision at `ask`.
    @Test(
        "debounce: quiet time after the last change, never more than the longest delay after the first",
        arguments: [
            ([1_000], 1_500, SyncSchedule.Action.wait(until: 3_000)),
            ([1_000], 3_000, .sync(remote: "a", reason: .change)),
            ([1_000, 2_500], 3_000, .wait(until: 4_500)),
            // 50 edits in a second: one sync, 2 s after the last.
            (Array(stride(from: 1_000, to: 2_000, by: 20)), 2_000, .wait(until: 3_980)),
            // A change every second for a minute: held at most 10 s from the first.
            (Array(stride(from: 1_000, to: 61_000, by: 1_000)), 5_000, .wait(until: 7_000)),
            (Array(stride(from: 1_000, to: 61_000, by: 1_000)), 10_500, .wait(until: 11_000)),
            (Array(stride(from: 1_000, to: 61_000, by: 1_000)), 11_000, .sync(remote: "a", reason: .change)),
        ] as [([Int64], Int64, SyncSchedule.Action)])
    func debounce(changes: [Int64], ask: Int64, expected: SyncSchedule.Action) {
        var s = Self.synced(at: 0)
        for t in changes where t <= ask { s.noteChange(at: t) }
        #expect(s.next(at: ask) == expected, "\(s.remotes)")
    }

    @Test func changesDuringASyncAreSentByTheNextOne() {
        var s = Self.synced(at: 0)
        s.noteChange(at: 1_000)
        s.started("a", at: 3_000)
        s.noteChange(at: 3_500)
        s.ended("a", at: 4_000, .succeeded, unit: 0.5)
        #expect(s.next(at: 4_000) == .wait(until: 5_500), "the edit at 3.5 s is not sent yet")
        s.started("a", at: 5_500)
        s.ended("a", at: 6_000, .succeeded, unit: 0.5)
        #expect(s.next(at: 6_000) == .wait(until: 66_000), "nothing left: the poll")
        #expect(s.remotes["a"]?.firstChange == nil)
    }

    /// Failures in a row: 2 s doubling to the 5 min cap, each within ±20 %.
    @Test(
        "backoff doubles from the base to the cap, within the jitter",
        arguments: [(1, 2_000), (2, 4_000), (3, 8_000), (5, 32_000), (8, 256_000), (9, 300_000), (30, 300_000)])
    func backoffBounds(failures: Int, plain: Int64) {
        let s = SyncSchedule(remotes: ["a"], policy: Self.policy)
        #expect(s.backoff(failures: failures, offline: false, unit: 0.5) == plain)
        #expect(s.backoff(failures: failures, offline: false, unit: 0) == plain * 8 / 10)
        #expect(s.backoff(failures: failures, offline: false, unit: 0.999_999) <= plain * 12 / 10)
        #expect(s.backoff(failures: failures, offline: false, unit: 0.999_999) > plain * 119 / 100)
        // Draws spread over the whole band: two devices that failed together retry apart.
        let draws = (0..<100).map { s.backoff(failures: failures, offline: false, unit: Double($0) / 100) }
        #expect(Set(draws).count > 50 && draws.min()! >= plain * 8 / 10 && draws.max()! <= plain * 12 / 10)
    }

    @Test func aFailureRetriesAfterItsBackoffAndHonoursRetryAfter() {
        var s = Self.synced(at: 0)
        s.noteChange(at: 1_000)
        s.started("a", at: 3_000)
        s.ended("a", at: 3_100, .failed(offline: false, retryAfter: nil), unit: 0.5)
        #expect(s.next(at: 3_200) == .wait(until: 5_100), "2 s after the failure, not at the debounce")
        s.started("a", at: 5_100)
        s.ended("a", at: 5_200, .failed(offline: false, retryAfter: 30_000), unit: 0.5)
        #expect(s.next(at: 5_300) == .wait(until: 35_200), "the server's Retry-After, longer than 4 s")
        s.started("a", at: 35_200)
        s.ended("a", at: 35_300, .failed(offline: false, retryAfter: 1_000), unit: 0.5)
        #expect(s.next(at: 35_300) == .wait(until: 43_300), "8 s of backoff, longer than Retry-After")
        s.started("a", at: 43_300)
        s.ended("a", at: 43_400, .succeeded, unit: 0.5)
        #expect(s.remotes["a"]?.failures == 0 && s.remotes["a"]?.retryAt == nil)
        #expect(s.next(at: 43_400) == .wait(until: 103_400), "back to the poll once it succeeds")
    }

    @Test func anUnreachableRemoteIsPolledSlowlyUntilItAnswers() {
        var s = Self.synced(at: 0)
        var t: Int64 = 60_000
        var waits: [Int64] = []
        for _ in 0..<12 {
            s.started("a", at: t)
            s.ended("a", at: t, .failed(offline: true, retryAfter: nil), unit: 0.5)
            guard case .wait(let until?) = s.next(at: t) else {
                Issue.record("no wait after a failure")
                return
            }
            waits.append(until - t)
            t = until
        }
        #expect(s.remotes["a"]?.offline == true)
        #expect(waits.prefix(4) == [2_000, 4_000, 8_000, 16_000], "\(waits)")
        #expect(waits.suffix(3) == [300_000, 300_000, 300_000], "capped at the offline interval: \(waits)")
        // The first success ends it: the next poll is a minute away again.
        s.started("a", at: t)
        s.ended("a", at: t, .succeeded, unit: 0.5)
        #expect(s.remotes["a"]?.offline == false && s.next(at: t) == .wait(until: t + 60_000))
    }

    @Test func syncNowOverridesDebounceAndBackoffAndPauseHoldsEverything() {
        var s = Self.synced(at: 0)
        s.started("a", at: 1_000)
        s.ended("a", at: 1_000, .failed(offline: true, retryAfter: 60_000), unit: 0.5)
        s.request()
        #expect(s.next(at: 1_001) == .sync(remote: "a", reason: .requested))
        s.paused = true
        #expect(s.next(at: 1_002) == .wait(until: nil))
        s.noteChange(at: 1_003)
        #expect(s.next(at: 100_000) == .wait(until: nil))
        s.paused = false
        #expect(s.next(at: 100_000) == .sync(remote: "a", reason: .requested))
        s.started("a", at: 100_000)
        #expect(s.remotes["a"]?.requested == false)
    }

    @Test func severalRemotesOneAtATimeEarliestFirst() {
        var s = Self.synced(at: 0, remotes: ["nas", "cloud"])
        #expect(s.next(at: 1) == .wait(until: 60_000))
        #expect(s.next(at: 60_000) == .sync(remote: "nas", reason: .timer), "a tie goes to the first in order")
        s.started("nas", at: 60_000)
        #expect(s.next(at: 60_001) == .wait(until: nil), "never two syncs at once")
        s.ended("nas", at: 61_000, .failed(offline: true, retryAfter: nil), unit: 0.5)
        #expect(s.next(at: 61_000) == .sync(remote: "cloud", reason: .timer), "one remote's failure holds no other")
        s.started("cloud", at: 61_000)
        s.ended("cloud", at: 61_500, .succeeded, unit: 0.5)
        #expect(s.next(at: 61_500) == .wait(until: 63_000), "the failed one's retry comes first")
        s.noteChange(at: 62_000)
        #expect(s.next(at: 62_100) == .wait(until: 63_000))
        #expect(s.due("nas")?.reason == .retry && s.due("nas")?.at == 63_000)
        #expect(s.due("cloud")?.reason == .change && s.due("cloud")?.at == 64_000)
        #expect(s.next(at: 64_000) == .sync(remote: "nas", reason: .retry), "the earliest due goes first")
        s.started("nas", at: 64_000)
        s.ended("nas", at: 64_100, .failed(offline: true, retryAfter: nil), unit: 0.5)
        #expect(s.next(at: 64_100) == .sync(remote: "cloud", reason: .change))
    }
}
