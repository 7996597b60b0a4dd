import AISync
import Foundation

/// `aisync-bench`: what the benchmark scripts need beside `aisync` (scripts/bench-*.sh).
/// It is built next to the user's binary by scripts/build-release.sh and never shipped in it.
let usage = """
    usage: aisync-bench generate N --store DIR [--renames K] [--answer-bytes B]
           aisync-bench hash FILE
           aisync-bench seal-speed MB [--portable]
           aisync-bench scrypt PASSWORD SALT N R P

    """

/// A mistake in the command line: the usage on stderr, exit 64.
func usageError(_ message: String) -> Never {
    FileHandle.standardError.write(Data("aisync-bench: \(message)\n\(usage)".utf8))
    exit(64)
}

/// A failure of the library: its message on stderr, exit 1.
func failure(_ error: any Error) -> Never {
    FileHandle.standardError.write(Data("aisync-bench: \(error)\n".utf8))
    exit(1)
}

func say(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }

/// The value after `--name` in `args` (removed from it), or nil.
func option(_ name: String, in args: inout [String]) -> String? {
    guard let i = args.firstIndex(of: "--\(name)") else { return nil }
    guard i + 1 < args.count else { usageError("--\(name) needs a value") }
    defer { args.removeSubrange(i...(i + 1)) }
    return args[i + 1]
}

/// Fills a store with N generated chats in batches of 10,000, optionally renaming each K
/// times (a long history); prints N.
func generate(_ arguments: [String]) async {
    var args = arguments
    let storePath = option("store", in: &args) ?? ProcessInfo.processInfo.environment["AISYNC_HOME"]
    guard let storePath else { usageError("generate needs --store DIR") }
    guard let renames = Int(option("renames", in: &args) ?? "0"), renames >= 0 else {
        usageError("K must be a whole number")
    }
    guard let answerBytes = Int(option("answer-bytes", in: &args) ?? "0"), (0...1_000_000).contains(answerBytes) else {
        usageError("B must be a whole number up to 1000000")
    }
    guard args.count == 1, let n = Int(args[0]), n >= 0 else { usageError("generate takes one whole number N") }
    let padding = String(repeating: "lorem ipsum ", count: answerBytes / 12)
    let base = Timestamp(milliseconds: 1_764_417_600_000)
    do {
        let store = try Store.open(at: storePath)
        var made = 0
        while made < n {
            let batch = (made..<min(n, made + 10_000)).map { i in
                RecordBody.chat(
                    ChatBody(
                        title: "Generated chat \(i)", model: "gpt-4o",
                        messages: [
                            .init(id: "m-\(i)", role: .user, text: "Question number \(i)?", time: base),
                            .init(id: "m-\(i)-a", role: .assistant, text: "Answer number \(i).\(padding)", time: base),
                        ],
                        created: base, updated: base))
            }
            let ids = try await store.createMany(batch)
            made += batch.count
            for round in 0..<renames {
                let titles = ids.enumerated().map {
                    ($0.element, "Generated chat \(made - batch.count + $0.offset), title \(round + 1)")
                }
                try await store.renameMany(titles)
            }
        }
        say("\(made)\n")
    } catch {
        failure(error)
    }
}

/// Prints a file's SHA-256 as sha256sum does (scripts/bench-sha256.sh).
func hash(_ args: [String]) {
    guard args.count == 1 else { usageError("hash takes one FILE") }
    do {
        let result = try SHA256.hash(fileAt: args[0])
        say("\(result.digest.hex)  \(args[0])\n")
    } catch {
        failure(error)
    }
}

/// Seals MB mebibytes with XChaCha20-Poly1305 in 16 KiB messages (openssl speed's largest
/// block) and prints the rate in MB/s (10^6 bytes, as openssl reports).
func sealSpeed(_ arguments: [String]) {
    var args = arguments
    let portable = args.contains("--portable")
    args.removeAll { $0 == "--portable" }
    guard args.count == 1, let mb = Int(args[0]), mb > 0 else { usageError("MB must be a positive whole number") }
    let key = [UInt8](repeating: 7, count: 32)
    let nonce = [UInt8](repeating: 9, count: 24)
    let message = [UInt8](repeating: 1, count: 16384)
    var check: UInt8 = 0
    let backend: CryptoBackend = portable ? .portable : .system
    let start = ContinuousClock.now
    for _ in 0..<(mb * 64) { check ^= XChaChaPoly.seal(message, key: key, nonce: nonce, aad: [], backend: backend)[0] }
    let seconds = max(1e-9, (ContinuousClock.now - start) / .seconds(1))
    say(String(format: "%.1f MB/s (%d)\n", Double(mb << 20) / seconds / 1e6, Int(check)))
}

/// Derives 64 bytes with scrypt and prints them in hex and the seconds it took.
func scrypt(_ args: [String]) {
    guard args.count == 5 else { usageError("scrypt takes PASSWORD SALT N R P") }
    let numbers = args[2...].compactMap { Int($0) }
    guard numbers.count == 3 else { usageError("N, R and P must be whole numbers") }
    let start = ContinuousClock.now
    guard
        let key = Scrypt.derive(
            password: Array(args[0].utf8), salt: Array(args[1].utf8),
            parameters: .init(n: numbers[0], r: numbers[1], p: numbers[2]), length: 64)
    else { usageError("N must be a power of two above 1 and the memory at most 1 GiB") }
    let seconds = (ContinuousClock.now - start) / .seconds(1)
    say(key.map { String(format: "%02x", $0) }.joined() + String(format: " %.3f\n", seconds))
}

Platform.tuneAllocatorForBatchWork()
// seal-speed and scrypt open no store, which is what installs the system's libcrypto otherwise.
SystemCryptoLoader.install()
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "generate": await generate(Array(arguments.dropFirst()))
case "hash": hash(Array(arguments.dropFirst()))
case "seal-speed": sealSpeed(Array(arguments.dropFirst()))
case "scrypt": scrypt(Array(arguments.dropFirst()))
case "-h", "--help", "help": say(usage)
default: usageError(arguments.first.map { "no such command '\($0)'" } ?? "no command given")
}
