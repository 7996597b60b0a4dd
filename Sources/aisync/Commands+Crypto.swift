import Foundation
import AISync

/// Hidden commands that time aisync's cryptography in a release build (scripts/bench-crypto.sh).
enum CryptoCommands {
    static let all: [CommandSpec] = [sealSpeed, scrypt]

    /// Seals MB mebibytes with XChaCha20-Poly1305 in 16 KiB messages (openssl speed's largest
    /// block) and prints the rate in MB/s (10^6 bytes, as openssl reports).
    static let sealSpeed = CommandSpec(
        path: ["debug-seal-speed"], abstract: "Time XChaCha20-Poly1305 sealing.",
        arguments: [ArgumentSpec(name: "MB", help: "How many MiB to seal.")],
        options: [OptionSpec(name: "portable", help: "Time aisync's own Swift code, not the system's libcrypto.")], hidden: true
    ) { inv throws(CLIError) in
        guard let mb = Int(inv.positionals[0]), mb > 0 else { throw CLIError(usage: "MB must be a positive whole number", command: inv.command) }
        let key = [UInt8](repeating: 7, count: 32)
        let nonce = [UInt8](repeating: 9, count: 24)
        let message = [UInt8](repeating: 1, count: 16384)
        var check: UInt8 = 0
        let backend: CryptoBackend = inv.flag("portable") ? .portable : .system
        SystemCryptoLoader.install()  // nothing else here opens a store, which would install it
        let start = ContinuousClock.now
        for _ in 0..<(mb * 64) { check ^= XChaChaPoly.seal(message, key: key, nonce: nonce, aad: [], backend: backend)[0] }
        let seconds = max(1e-9, (ContinuousClock.now - start) / .seconds(1))
        CLIPlatform.out(String(format: "%.1f MB/s (%d)\n", Double(mb << 20) / seconds / 1e6, Int(check)))
        return ExitCode.success
    }

    /// Derives 64 bytes with scrypt and prints them in hex and the seconds it took.
    static let scrypt = CommandSpec(
        path: ["debug-scrypt"], abstract: "Time scrypt.",
        arguments: [ArgumentSpec(name: "PASSWORD", help: "The password (a test value, never a secret)."),
                    ArgumentSpec(name: "SALT", help: "The salt."), ArgumentSpec(name: "N", help: "Cost."),
                    ArgumentSpec(name: "R", help: "Block size."), ArgumentSpec(name: "P", help: "Parallelism.")], hidden: true
    ) { inv throws(CLIError) in
        let numbers = inv.positionals[2...].compactMap { Int($0) }
        guard numbers.count == 3 else { throw CLIError(usage: "N, R and P must be whole numbers", command: inv.command) }
        let start = ContinuousClock.now
        guard let key = Scrypt.derive(password: Array(inv.positionals[0].utf8), salt: Array(inv.positionals[1].utf8),
                                      parameters: .init(n: numbers[0], r: numbers[1], p: numbers[2]), length: 64) else {
            throw CLIError(usage: "N must be a power of two above 1 and the memory at most 1 GiB", command: inv.command)
        }
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        CLIPlatform.out(key.map { String(format: "%02x", $0) }.joined() + String(format: " %.3f\n", seconds))
        return ExitCode.success
    }
}
