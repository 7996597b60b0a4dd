import AISyncCore

/// When to sync, decided from what the scheduler has seen (docs/DESIGN.md §5.12): a value
/// updated by events (a local change, a sync that started or ended, "sync now", pause) and
/// asked for the next action at a given time. Pure, like the push and pull planners: the
/// `SyncScheduler` feeds it and carries its decisions out, and tests check it as tables with
/// a manual clock. Times are milliseconds on one clock.
public struct SyncSchedule: Sendable, Equatable {
    /// The knobs; every time in milliseconds.
    public struct Policy: Sendable, Equatable {
        /// A sync with nothing new this often (one request): how other devices' changes arrive.
        public var interval: Int64
        /// Quiet time after a local change before it is pushed: a burst of edits is one sync.
        public var debounce: Int64
        /// The longest a burst can hold a change back, counted from its first edit.
        public var maxDelay: Int64
        /// The wait after a first failure; it doubles with each failure in a row…
        public var backoffBase: Int64
        /// …up to this.
        public var backoffCap: Int64
        /// The poll interval while the remote cannot be reached (back to `interval` at the
        /// first success); retries back off up to it too.
        public var offlineInterval: Int64
        /// Each wait after a failure is drawn within ± this fraction of it, so devices that
        /// failed together do not retry together.
        public var jitter: Double

        /// The defaults: a poll a minute, 2 s of quiet, at most 30 s held, retries from 2 s
        /// doubling to 5 min, every 5 min while offline, ±20 % jitter.
        public init(
            interval: Int64 = 60_000, debounce: Int64 = 2_000, maxDelay: Int64 = 30_000, backoffBase: Int64 = 2_000,
            backoffCap: Int64 = 300_000, offlineInterval: Int64 = 300_000, jitter: Double = 0.2
        ) {
            self.interval = max(1, interval)
            self.debounce = max(0, debounce)
            self.maxDelay = max(self.debounce, maxDelay)
            self.backoffBase = max(1, backoffBase)
            self.backoffCap = max(self.backoffBase, backoffCap)
            self.offlineInterval = max(1, offlineInterval)
            self.jitter = min(max(jitter, 0), 0.9)
        }
    }

    /// Why a sync runs now.
    public enum Reason: String, Sendable, Equatable {
        /// Someone asked ("sync now", the app became active or is about to resign).
        case requested
        /// Local changes, once quiet for the debounce (or held for the longest delay).
        case change
        /// The regular poll.
        case timer
        /// A retry after a failure, once its backoff has passed.
        case retry
    }

    /// What to do next.
    public enum Action: Sendable, Equatable {
        /// Sync this remote now.
        case sync(remote: String, reason: Reason)
        /// Nothing before this time (or before the next event, when nil: paused, or a sync is running).
        case wait(until: Int64?)
    }

    /// How a sync ended, as the schedule needs to know it.
    public enum Outcome: Sendable, Equatable {
        /// It succeeded.
        case succeeded
        /// It failed; `offline` when the remote could not be reached at all, with the wait the
        /// server asked for, if any.
        case failed(offline: Bool, retryAfter: Int64?)
    }

    /// What the schedule knows of one remote.
    public struct RemoteState: Sendable, Equatable {
        /// When the last sync (any outcome) ended; nil before the first.
        public var lastEnded: Int64?
        /// Failed syncs in a row.
        public var failures = 0
        /// After a failure: not before this.
        public var retryAt: Int64?
        /// Whether the last failure was an unreachable remote.
        public var offline = false
        /// The first local change this remote has not received yet.
        public var firstChange: Int64?
        /// The last one.
        public var lastChange: Int64?
        /// Asked to sync as soon as possible.
        public var requested = false
        /// When the running sync started; nil when none runs.
        public var running: Int64?
    }

    /// The knobs.
    public var policy: Policy
    /// Each remote's state, by name.
    public private(set) var remotes: [String: RemoteState]
    /// The remotes, in the order they are synced when several are due at once.
    public let order: [String]
    /// Paused: nothing starts until resumed (a running sync finishes).
    public var paused = false

    /// A schedule for `remotes` (in that order), none synced yet: the first sync is due at once.
    public init(remotes: [String], policy: Policy = Policy()) {
        self.policy = policy
        var seen = Set<String>()
        order = remotes.filter { seen.insert($0).inserted }
        self.remotes = Dictionary(uniqueKeysWithValues: order.map { ($0, RemoteState()) })
    }

    /// A local change at `now` (an edit, or versions another remote brought, which this one
    /// has not got): every remote has it to receive.
    public mutating func noteChange(at now: Int64) { noteChange(at: now, remotes: order) }

    /// A change that only `remotes` have to receive (versions one remote brought, which the
    /// others have not got; an edit made while a sync ran).
    public mutating func noteChange(at now: Int64, remotes names: [String]) {
        for name in names {
            guard var state = remotes[name] else { continue }
            state.firstChange = state.firstChange ?? now
            state.lastChange = now
            remotes[name] = state
        }
    }

    /// "Sync now", for `remote` or every remote: due at once, backoff or not.
    public mutating func request(_ remote: String? = nil) {
        for name in order where remote == nil || remote == name { remotes[name]?.requested = true }
    }

    /// A sync of `remote` started at `now`.
    public mutating func started(_ remote: String, at now: Int64) {
        remotes[remote]?.running = now
        remotes[remote]?.requested = false
    }

    /// A sync of `remote` ended at `now`. `unit` is a random draw in [0, 1) for the jitter.
    /// Changes noted while it ran are still to send; those before it started went with it,
    /// when it succeeded.
    public mutating func ended(_ remote: String, at now: Int64, _ outcome: Outcome, unit: Double) {
        guard var state = remotes[remote] else { return }
        let started = state.running ?? now
        state.running = nil
        state.lastEnded = now
        switch outcome {
        case .succeeded:
            state.failures = 0
            state.retryAt = nil
            state.offline = false
            if let last = state.lastChange, last >= started {
                // Changed during the sync: those edits count from when the sync started.
                state.firstChange = started
            } else {
                state.firstChange = nil
                state.lastChange = nil
            }
        case .failed(let offline, let retryAfter):
            state.failures += 1
            state.offline = offline
            let wait = max(backoff(failures: state.failures, offline: offline, unit: unit), retryAfter ?? 0)
            state.retryAt = now + wait
        }
        remotes[remote] = state
    }

    /// The wait after `failures` failures in a row: `backoffBase`·2^(failures−1), capped at
    /// `backoffCap` (`offlineInterval` when offline), within ± `jitter` of that.
    public func backoff(failures: Int, offline: Bool, unit: Double) -> Int64 {
        let cap = Double(offline ? max(policy.offlineInterval, policy.backoffBase) : policy.backoffCap)
        let exponent = Double(min(max(failures - 1, 0), 40))
        let plain = min(cap, Double(policy.backoffBase) * pow2(exponent))
        let spread = 1 - policy.jitter + 2 * policy.jitter * min(max(unit, 0), 1)
        return Int64(plain * spread)
    }

    private func pow2(_ exponent: Double) -> Double {
        var result = 1.0
        for _ in 0..<Int(exponent) { result *= 2 }
        return result
    }

    /// When `remote` is next due, and why.
    public func due(_ remote: String) -> (at: Int64, reason: Reason)? {
        guard let state = remotes[remote] else { return nil }
        if state.requested { return (Int64.min, .requested) }
        if let retryAt = state.retryAt { return (retryAt, .retry) }
        let every = state.offline ? policy.offlineInterval : policy.interval
        let timer = (state.lastEnded.map { $0 + every } ?? Int64.min, Reason.timer)
        guard let first = state.firstChange, let last = state.lastChange else { return timer }
        let change = min(last + policy.debounce, first + policy.maxDelay)
        return change < timer.0 ? (change, .change) : timer
    }

    /// What to do at `now`: the remote due earliest (the first in `order` on a tie) when it
    /// is due, else wait until it is. One sync at a time, none while paused.
    public func next(at now: Int64) -> Action {
        if paused || order.contains(where: { remotes[$0]?.running != nil }) { return .wait(until: nil) }
        var best: (name: String, at: Int64, reason: Reason)?
        for name in order {
            guard let (at, reason) = due(name) else { continue }
            if best == nil || at < best!.at { best = (name, at, reason) }
        }
        guard let best else { return .wait(until: nil) }
        return best.at <= now ? .sync(remote: best.name, reason: best.reason) : .wait(until: best.at)
    }
}
