import AISyncCore

extension AISyncEnvironment {
    /// The real world: the system clock, the system's secure random generator, `Task.sleep`,
    /// `gethostname`, and `$TMPDIR`.
    ///
    /// Defined here rather than beside the type because these are system calls, and AISyncCore
    /// stays free of them (the same split as swift-nio's NIOCore and NIOPosix). Randomness is
    /// `SystemRandomNumberGenerator` (getrandom/arc4random): device and remote ids must never
    /// collide across machines, and temp names must not be guessable. Its first use also hands
    /// Core the system's libcrypto (``SystemCryptoLoader/install()``).
    public static let live: AISyncEnvironment = {
        SystemCryptoLoader.install()
        return AISyncEnvironment(
            now: { Platform.currentTimeMilliseconds() },
            random: {
                var generator = SystemRandomNumberGenerator()
                return generator.next()
            },
            sleep: { milliseconds in try? await Task.sleep(nanoseconds: UInt64(max(0, milliseconds)) * 1_000_000) },
            hostName: { Platform.hostName() },
            temporaryDirectory: Platform.temporaryDirectory(),
            secureRandom: { Platform.secureRandomBytes($0) }
        )
    }()

    /// The system's host name (without a domain), the live `hostName`.
    public static func systemHostName() -> String? { Platform.hostName() }

    /// Random lowercase hex from the live generator, for code that has no environment at hand.
    @available(*, deprecated, message: "Draw from the environment in use instead: store.environment.randomHex(bytes:)")
    public static func randomHex(bytes: Int) -> String { live.randomHex(bytes: bytes) }
}
