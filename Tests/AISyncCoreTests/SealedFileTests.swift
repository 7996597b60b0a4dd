import AISyncTestSupport
import AISyncTesting
import Foundation
import Testing

@testable import AISyncCore

/// The encrypted file format and key file (issue 12): round trips, every way a server can
/// damage a file, and agreement with an independent Python implementation, both ways.
@Suite("Sealed files and key files", .tags(.python), .needsPython)
struct SealedFileTests {
    static let key = (0..<32).map { UInt8($0 &* 7 &+ 1) }
    static let binding = SealedFile.Binding(
        remoteID: String(repeating: "ab", count: 16), path: "segments/0123456789abcdef0123456789abcdef/7.seg")
    static func salt(_ n: Int) -> [UInt8] { (0..<24).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) } }
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var g = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: g.next()) }
    }
    static let chunk = SealedFile.chunkBytes

    static func openError(_ sealed: [UInt8], binding: SealedFile.Binding = binding) -> AISyncError? {
        do {
            _ = try SealedFile.open(sealed, dataKey: key, binding: binding, shown: "remote/x")
            return nil
        } catch { return error }
    }

    @Test(
        "sealing then opening gives the bytes back, whole or fed in any piece sizes, at every chunk edge",
        arguments: [0, 1, 100, chunk - 80, chunk - 79, chunk, chunk + 1, 3 * chunk + 12_345])
    func roundTrip(_ size: Int) throws {
        let plain = Self.bytes(size, seed: UInt64(size))
        let sealed = SealedFile.seal(plain, dataKey: Self.key, salt: Self.salt(1), binding: Self.binding)
        #expect(Int64(sealed.count) == SealedFile.storedSize(plainSize: Int64(size), binding: Self.binding))
        #expect(try SealedFile.open(sealed, dataKey: Self.key, binding: Self.binding, shown: "x") == plain)
        // Fed in uneven pieces, the sealer writes the same bytes.
        var sealer = SealedFile.Sealer(
            dataKey: Self.key, salt: Self.salt(1), binding: Self.binding, plainSize: Int64(size))
        var pieces = sealer.header
        var at = 0
        var step = 1
        while at < size {
            let end = min(size, at + step)
            pieces += sealer.add(Array(plain[at..<end]))
            at = end
            step = step * 3 + 7
        }
        pieces += sealer.finish()
        #expect(pieces == sealed)
        // The plaintext appears nowhere in the output.
        if size >= 16 {
            let needle = Array(plain.prefix(16))
            let found = (0...(sealed.count - 16)).contains { Array(sealed[$0..<($0 + 16)]) == needle }
            #expect(!found)
        }
    }

    @Test("Padmé padding: sizes of one bucket look alike, at most 12 % is added, and it is idempotent")
    func padme() {
        for n in Int64(0)...5000 {
            let p = SealedFile.padme(n)
            #expect(p >= n && SealedFile.padme(p) == p)
            #expect(Double(p - n) <= Double(n) * 0.12 + 1)
        }
        #expect(SealedFile.padme(1_000_001) == SealedFile.padme(1_010_000))
        #expect(
            SealedFile.storedSize(plainSize: 100_000, binding: Self.binding)
                == SealedFile.storedSize(plainSize: 100_100, binding: Self.binding))
    }

    @Test("a file cut short is truncated, mid-chunk, at a chunk edge, or down to its header")
    func truncated() throws {
        let sealed = SealedFile.seal(
            Self.bytes(3 * Self.chunk, seed: 2), dataKey: Self.key, salt: Self.salt(2), binding: Self.binding)
        for cut in [1, 17, SealedFile.sealedChunkBytes, sealed.count - SealedFile.headerBytes - 1] {
            #expect(Self.openError(Array(sealed.dropLast(cut)))?.code == .truncated, "cut \(cut)")
        }
        #expect(Self.openError(Array(sealed.prefix(20)))?.code == .tampered, "not even a header")
    }

    @Test("any changed byte, an appended byte, a swapped chunk or another key fails authentication")
    func tampered() throws {
        let plain = Self.bytes(2 * Self.chunk + 500, seed: 3)
        let sealed = SealedFile.seal(plain, dataKey: Self.key, salt: Self.salt(3), binding: Self.binding)
        for offset in [0, 9, 33, 40, 41, 1000, Self.chunk + 40, sealed.count - 1] {
            var bad = sealed
            bad[offset] ^= 0x01
            #expect(Self.openError(bad)?.code == .tampered, "byte \(offset)")
        }
        #expect(Self.openError(sealed + [0])?.code == .tampered)
        var swapped = sealed
        let a = SealedFile.headerBytes
        let b = a + SealedFile.sealedChunkBytes
        swapped.replaceSubrange(a..<b, with: sealed[b..<(b + SealedFile.sealedChunkBytes)])
        swapped.replaceSubrange(b..<(b + SealedFile.sealedChunkBytes), with: sealed[a..<b])
        #expect(Self.openError(swapped)?.code == .tampered)
        let otherKey = (0..<32).map { UInt8($0) }
        var caught: AISyncError?
        do { _ = try SealedFile.open(sealed, dataKey: otherKey, binding: Self.binding, shown: "x") } catch {
            caught = error
        }
        #expect(caught?.code == .tampered)
        #expect(Self.openError(Array("{\"plain\":\"json\"}".utf8))?.code == .tampered)
    }

    @Test("an authentic file at another path, or of another remote, is misplaced and says where it belongs")
    func misplaced() throws {
        let sealed = SealedFile.seal(Array("head".utf8), dataKey: Self.key, salt: Self.salt(4), binding: Self.binding)
        let elsewhere = SealedFile.Binding(
            remoteID: Self.binding.remoteID, path: "segments/0123456789abcdef0123456789abcdef/8.seg")
        let error = try #require(Self.openError(sealed, binding: elsewhere))
        #expect(error.code == .misplaced)
        #expect(error.message.contains("7.seg"), "\(error)")
        let otherRemote = SealedFile.Binding(remoteID: String(repeating: "cd", count: 16), path: Self.binding.path)
        #expect(Self.openError(sealed, binding: otherRemote)?.message.contains("another remote") == true)
    }

    @Test("key files: the right passphrase opens, a wrong one or changed cost parameters do not, slots come and go")
    func keyFile() throws {
        let cheap = Scrypt.Parameters(n: 1024, r: 8, p: 1)
        var g = SplitMix64(seed: 5)
        let random: (Int) -> [UInt8] = { n in (0..<n).map { _ in UInt8(truncatingIfNeeded: g.next()) } }
        let remote = String(repeating: "12", count: 16)
        var (file, keys) = KeyFile.create(
            remoteID: remote, passphrase: "first passphrase", created: Timestamp(milliseconds: 0), parameters: cheap,
            random: random)
        let reread = try KeyFile(bytes: file.json.canonicalBytes, shown: "keys.json")
        #expect(reread == file)
        #expect(try reread.unlock(passphrase: "first passphrase").keys == keys)
        var caught: AISyncError?
        do { _ = try reread.unlock(passphrase: "first passphrasE") } catch { caught = error }
        #expect(caught?.code == .wrongPassphrase)
        // A server lowering the cost (to make guessing cheap) breaks the slot instead.
        var lowered = file
        lowered.slots[0].parameters = Scrypt.Parameters(n: 512, r: 8, p: 1)
        caught = nil
        do { _ = try lowered.unlock(passphrase: "first passphrase") } catch { caught = error }
        #expect(caught?.code == .wrongPassphrase)
        // Change: a second slot, then the first removed; the keys stay the same.
        let old = file.slots[0].id
        file.addSlot(
            for: keys, passphrase: "second passphrase", created: Timestamp(milliseconds: 1), parameters: cheap,
            random: random)
        file.slots.removeAll { $0.id == old }
        #expect(try file.unlock(passphrase: "second passphrase").keys == keys)
        caught = nil
        do { _ = try file.unlock(passphrase: "first passphrase") } catch { caught = error }
        #expect(caught?.code == .wrongPassphrase)
        // Remembered keys read back.
        #expect(RemoteKeys(remembered: keys.remembered) == keys)
        #expect(RemoteKeys(remembered: "not a key") == nil)
        keys = RemoteKeys(remoteID: remote, master: [UInt8](repeating: 9, count: 32))
        #expect(keys.objectName(SHA256.hash(Array("x".utf8))).count == 64)
    }

    @Test("hostile key files are refused before any scrypt runs: too costly, malformed, too many slots")
    func hostileKeyFiles() throws {
        let remote = String(repeating: "12", count: 16)
        func slot(n: Int, r: Int = 8, p: Int = 1, salt: String = String(repeating: "00", count: 32)) -> String {
            "{\"id\":\"00000000\",\"created\":\"2026-01-01T00:00:00.000Z\",\"kdf\":\"scrypt\",\"n\":\(n),\"r\":\(r),\"p\":\(p),\"salt\":\"\(salt)\",\"nonce\":\"\(String(repeating: "00", count: 24))\",\"wrapped\":\"\(String(repeating: "00", count: 48))\"}"
        }
        let cases = [
            "{\"format\":1,\"remote\":\"\(remote)\",\"slots\":[\(slot(n: 1 << 22))]}",
            "{\"format\":1,\"remote\":\"\(remote)\",\"slots\":[\(slot(n: 1000))]}",
            "{\"format\":1,\"remote\":\"\(remote)\",\"slots\":[\(slot(n: 1024, p: 16))]}",
            "{\"format\":1,\"remote\":\"\(remote)\",\"slots\":[\(slot(n: 1024, salt: "zz"))]}",
            "{\"format\":1,\"remote\":\"\(remote)\",\"slots\":[]}",
            "{\"format\":1,\"remote\":\"\(remote)\",\"slots\":[\(Array(repeating: slot(n: 1024), count: 17).joined(separator: ","))]}",
            "{\"format\":2,\"remote\":\"\(remote)\",\"slots\":[\(slot(n: 1024))]}",
            "{\"format\":1,\"remote\":\"../x\",\"slots\":[\(slot(n: 1024))]}",
            "[]",
        ]
        for text in cases {
            var caught: AISyncError?
            do { _ = try KeyFile(bytes: Array(text.utf8), shown: "keys.json") } catch { caught = error }
            #expect(caught?.code == .damagedData, "\(text.prefix(120))")
        }
    }

    /// Runs `scripts/sealed_reference.py` on JSON lines.
    static func reference(_ cases: [[String: Any]]) throws -> [[String: Any]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "\(CLIHarness.packageRoot)/scripts/sealed_reference.py"]
        process.currentDirectoryURL = URL(fileURLWithPath: "\(CLIHarness.packageRoot)/scripts")
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let lines =
            try cases.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }.joined(
                separator: "\n") + "\n"
        let writer = Thread {
            input.fileHandleForWriting.write(Data(lines.utf8))
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(
            process.terminationStatus == 0, "sealed_reference.py failed (is Python's cryptography package installed?)")
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test(
        "random files sealed here open in the Python implementation, and files it seals open here (a fresh seed each run)"
    )
    func crossCheck() throws {
        let seed = UInt64.random(in: 1...1_000_000)
        var g = SplitMix64(seed: seed)
        var cases: [[String: Any]] = []
        var expected: [[UInt8]] = []
        var bindings: [SealedFile.Binding] = []
        for n in 0..<60 {
            let size = [0, 1, 37, Self.chunk - 60, Self.chunk, Self.chunk + 9, Int(g.next() % 200_000)][n % 7]
            let plain = Self.bytes(size, seed: g.next())
            let master = Self.bytes(32, seed: g.next())
            let keys = RemoteKeys(remoteID: Hex.encode(Self.bytes(16, seed: g.next())), master: master)
            let binding = SealedFile.Binding(remoteID: keys.remoteID, path: "objects/\(n)/p\(g.next() % 1000)")
            let salt = Self.bytes(24, seed: g.next())
            let sealed = SealedFile.seal(plain, dataKey: keys.dataKey, salt: salt, binding: binding)
            cases.append([
                "op": "open", "key": Hex.encode(master), "remote": binding.remoteID, "path": binding.path,
                "sealed": Hex.encode(sealed),
            ])
            cases.append([
                "op": "seal", "key": Hex.encode(master), "remote": binding.remoteID, "path": binding.path,
                "salt": Hex.encode(salt), "plain": Hex.encode(plain),
            ])
            let digest = SHA256.hash(plain)
            cases.append(["op": "name", "master": Hex.encode(master), "digest": digest.hex])
            expected += [plain, sealed, Array(keys.objectName(digest).utf8)]
            bindings.append(binding)
        }
        let answers = try Self.reference(cases)
        try #require(answers.count == cases.count, "seed \(seed)")
        for (i, answer) in answers.enumerated() {
            switch i % 3 {
            case 0:
                #expect(
                    answer["plain"] as? String == Hex.encode(expected[i]),
                    "seed \(seed) case \(i): \(answer["error"] ?? "")")
            case 1: #expect(answer["sealed"] as? String == Hex.encode(expected[i]), "seed \(seed) case \(i)")
            default:
                #expect(
                    answer["name"] as? String == String(decoding: expected[i], as: UTF8.self), "seed \(seed) case \(i)")
            }
        }
    }

    @Test("a key file made here is opened by hashlib.scrypt and an independent XChaCha20-Poly1305 unwrap")
    func keyFileCrossCheck() throws {
        var g = SplitMix64(seed: UInt64.random(in: 1...1_000_000))
        let random: (Int) -> [UInt8] = { n in (0..<n).map { _ in UInt8(truncatingIfNeeded: g.next()) } }
        let (file, keys) = KeyFile.create(
            remoteID: String(repeating: "3f", count: 16), passphrase: "pässphrase ✓",
            created: Timestamp(milliseconds: 0),
            parameters: Scrypt.Parameters(n: 2048, r: 8, p: 2), random: random)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(file.json.canonicalBytes)) as? [String: Any])
        let answers = try Self.reference([
            ["op": "unwrap", "file": json, "passphrase": "pässphrase ✓"],
            ["op": "unwrap", "file": json, "passphrase": "passphrase ✓"],
        ])
        #expect(answers.first?["master"] as? String == Hex.encode(keys.master))
        #expect(answers.last?["error"] != nil)
    }
}
