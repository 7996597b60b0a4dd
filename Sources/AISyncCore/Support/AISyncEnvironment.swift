/// The one bag of outside-world dependencies: the clock, randomness, waiting, and a few facts
/// about the machine.
///
/// Everything in the library that would otherwise read the clock, draw random numbers, sleep
/// or ask the system goes through one of these, so a test can replay a whole scenario (the
/// same seed gives the same ids, device ids, temp names and timestamps) and nothing in the
/// engine depends on when or where it runs. Ids, backoff jitter and temp-file names all come
/// from `random`, so there is exactly one source of randomness to control.
///
/// This type is declared in the pure core and holds only closures and values; it performs no
/// I/O itself. The live value (`AISyncEnvironment.live`, system clock, secure random,
/// `gethostname`) is defined in AISyncFiles, next to the other system calls, so the core
/// stays free of syscalls. Seeded test values (`.test(seed:)`) live in AISyncTesting.
public struct AISyncEnvironment: Sendable {
    /// Physical time in milliseconds since the Unix epoch; feeds hybrid logical clocks and
    /// every timestamp aisync writes.
    public var now: @Sendable () -> Int64
    /// 64 random bits per call. Live: the system's cryptographically secure generator, since
    /// device ids and remote ids must not collide across machines.
    public var random: @Sendable () -> UInt64
    /// `count` bytes for keys, salts and nonces. Live: `getrandom(2)` / `SecRandomCopyBytes`
    /// (never a seeded generator); tests may pass a seeded one to replay a scenario.
    public var secureRandom: @Sendable (_ count: Int) -> [UInt8]
    /// Waits `milliseconds` (backoff between retries); tests pass one that returns at once.
    public var sleep: @Sendable (_ milliseconds: Int) async -> Void
    /// This machine's name, the default device name (`$HOSTNAME` is a shell variable that
    /// programs do not see, so the live value asks the system).
    public var hostName: @Sendable () -> String?
    /// Where scratch files that belong to no store go (an Imgur upload's multipart body).
    public var temporaryDirectory: String
    /// How long to wait for another process's lock on the store before giving up.
    public var lockTimeoutMilliseconds: Int
    /// Told each time the journal's appended lines are made durable (fsynced): tests count
    /// them. Nil (nothing told) unless a test sets it.
    package var journalSynced: (@Sendable () -> Void)? = nil

    /// Builds an environment from its parts; most code wants `.live` or `.test(seed:)`.
    public init(
        now: @escaping @Sendable () -> Int64, random: @escaping @Sendable () -> UInt64,
        sleep: @escaping @Sendable (_ milliseconds: Int) async -> Void,
        hostName: @escaping @Sendable () -> String?, temporaryDirectory: String,
        lockTimeoutMilliseconds: Int = 10_000, secureRandom: @escaping @Sendable (_ count: Int) -> [UInt8]
    ) {
        self.now = now
        self.random = random
        self.secureRandom = secureRandom
        self.sleep = sleep
        self.hostName = hostName
        self.temporaryDirectory = temporaryDirectory
        self.lockTimeoutMilliseconds = lockTimeoutMilliseconds
    }

    // MARK: - Derived from `random`

    /// 64 random bits as 16 lowercase hex characters, for record, message and page ids.
    public func makeID() -> String { randomHex(bytes: 8) }

    /// 128 random bits as a device id.
    public func makeDeviceID() -> DeviceID {
        // 32 lowercase hex characters always make a valid device id.
        DeviceID(randomHex(bytes: 16))!
    }

    /// A suffix that makes a temp file name unique (16 hex characters). Random rather than a
    /// process id, so two processes, or two tasks in one, never pick the same name.
    public func temporarySuffix() -> String { randomHex(bytes: 8) }

    /// A uniformly drawn number in [0, 1), the `unit` of `Backoff.delay` (jitter).
    public func randomUnit() -> Double {
        // The top 53 bits fill a Double's mantissa exactly, so every value is equally likely.
        Double(random() >> 11) * 0x1p-53
    }

    /// `bytes` random bytes as lowercase hex (two characters per byte).
    public func randomHex(bytes: Int) -> String {
        let digits = Array("0123456789abcdef")
        var out = ""
        out.reserveCapacity(bytes * 2)
        var word: UInt64 = 0
        for n in 0..<max(0, bytes) {
            if n % 8 == 0 { word = random() }
            let byte = Int(word & 0xFF)
            word >>= 8
            out.append(digits[byte >> 4])
            out.append(digits[byte & 0x0F])
        }
        return out
    }
}
