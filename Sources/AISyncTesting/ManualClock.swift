import AISync
import Synchronization

/// A clock for tests: starts at a fixed instant and moves only when read, slept on, or told.
///
/// Each `now()` returns the current time and then moves it on by `step` (1 ms by default),
/// so consecutive readings differ the way a real clock's do, yet every run sees the same
/// times. Several environments can share one clock, like devices sharing the world's time.
public final class ManualClock: Sendable {
    /// 2024-01-01T00:00:00Z, in milliseconds since the Unix epoch.
    public static let defaultStart: Int64 = 1_704_067_200_000

    private let state: Mutex<Int64>
    private let step: Int64

    /// A clock reading `start` first, then moving `step` milliseconds per reading.
    public init(start: Int64 = ManualClock.defaultStart, step: Int64 = 1) {
        state = Mutex(start)
        self.step = max(0, step)
    }

    /// The current time in milliseconds, after which the clock moves on by `step`.
    public func now() -> Int64 {
        state.withLock { time in
            defer { time += step }
            return time
        }
    }

    /// The current time without moving the clock.
    public var current: Int64 { state.withLock { $0 } }

    /// Moves the clock forward (what a test sleep does, or a test saying "an hour later").
    public func advance(by milliseconds: Int64) {
        state.withLock { $0 += max(0, milliseconds) }
    }

    /// Sets the clock, backwards too (to test a clock that jumps).
    public func set(_ milliseconds: Int64) {
        state.withLock { $0 = milliseconds }
    }
}
