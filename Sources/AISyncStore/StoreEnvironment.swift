#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AISyncCore
import AISyncFiles

/// The store's clock, id source and patience, injected so tests control time and identity.
public struct StoreEnvironment: Sendable {
    /// Physical time in milliseconds since the Unix epoch.
    public var now: @Sendable () -> Int64
    /// 64 random bits as 16 lowercase hex characters, for record and message ids.
    public var makeID: @Sendable () -> String
    /// 128 random bits as a device id.
    public var makeDeviceID: @Sendable () -> DeviceID
    /// How long to wait for another process's lock on the store before giving up.
    public var lockTimeoutMilliseconds: Int
    /// Waits (backoff between retries); tests pass one that returns at once.
    public var sleep: @Sendable (_ milliseconds: Int) async -> Void
    /// This machine's name, the default device name (`$HOSTNAME` is a shell variable that
    /// programs do not see, so the live value asks the system).
    public var hostName: @Sendable () -> String?

    public init(now: @escaping @Sendable () -> Int64, makeID: @escaping @Sendable () -> String,
                makeDeviceID: @escaping @Sendable () -> DeviceID, lockTimeoutMilliseconds: Int = 10_000,
                sleep: @escaping @Sendable (_ milliseconds: Int) async -> Void = { ms in try? await Task.sleep(nanoseconds: UInt64(ms) * 1_000_000) },
                hostName: @escaping @Sendable () -> String? = { StoreEnvironment.systemHostName() }) {
        self.now = now; self.makeID = makeID; self.makeDeviceID = makeDeviceID; self.lockTimeoutMilliseconds = lockTimeoutMilliseconds
        self.sleep = sleep
        self.hostName = hostName
    }

    public static let live = StoreEnvironment(
        now: {
            var ts = timespec()
            clock_gettime(CLOCK_REALTIME, &ts)
            return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
        },
        makeID: { randomHex(bytes: 8) },
        makeDeviceID: { DeviceID(randomHex(bytes: 16))! }
    )

    /// The system's host name (without a domain), the live `hostName`.
    public static func systemHostName() -> String? { Platform.hostName() }

    /// Random lowercase hex from the system's secure generator.
    public static func randomHex(bytes: Int) -> String {
        var g = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return String((0..<bytes * 2).map { _ in digits[Int(g.next() % 16)] })
    }
}
