import AISync
import Synchronization

extension AISyncEnvironment {
    /// A deterministic environment: the same seed gives the same ids, device ids, temp names,
    /// jitter and timestamps on every run and platform.
    ///
    /// - `random`: a `SplitMix64` seeded with `seed` (shared by every copy of this value, so
    ///   two stores built from one `.test` value never draw the same number).
    /// - `now`: `clock` (a fresh `ManualClock` at 2024-01-01, 1 ms per reading by default;
    ///   pass one clock to several environments to give devices a common time).
    /// - `sleep`: returns at once, after moving the clock on by the time slept and yielding,
    ///   so retry loops stay fast and still let other tasks run.
    /// - `hostName`: `"test-host"`; `lockTimeoutMilliseconds`: 10 s, as live.
    /// - `temporaryDirectory`: the system's unless given. Pass a directory of your own when
    ///   tests that share a seed run in parallel, since their temp names are the same.
    ///
    /// Use a different seed for each device in a test: two stores with one seed would get the
    /// same device id.
    public static func test(
        seed: UInt64, clock: ManualClock = ManualClock(),
        hostName: String? = "test-host",
        temporaryDirectory: String = AISyncEnvironment.live.temporaryDirectory
    ) -> AISyncEnvironment {
        let generator = SeededSource(seed: seed)
        return AISyncEnvironment(
            now: { clock.now() },
            random: { generator.next() },
            sleep: { milliseconds in
                clock.advance(by: Int64(milliseconds))
                await Task.yield()
            },
            hostName: { hostName },
            temporaryDirectory: temporaryDirectory,
            secureRandom: { count in (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) } }
        )
    }
}

/// A `SplitMix64` behind a lock, so `@Sendable` closures on any task can draw from it.
private final class SeededSource: Sendable {
    private let generator: Mutex<SplitMix64>

    init(seed: UInt64) { generator = Mutex(SplitMix64(seed: seed)) }

    func next() -> UInt64 { generator.withLock { $0.next() } }
}
