import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncTesting

/// FIPS 180-4 / NIST example vectors.
private let nistVectors: [(String, String)] = [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
        "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    (
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
    ),
]

/// Digests of `pattern(n)` computed with coreutils `sha256sum`, around block edges
/// (55/56 decide whether padding spills into a second block).
private let sha256sumVectors: [(Int, String)] = [
    (1, "ca358758f6d27e6cf45272937977a748fd88391db679ceda7dc7bf1f005ee879"),
    (55, "8aa994584139d128848eeebc4e815639ba5ab6e6e39574195a63ac4f14f7c43b"),
    (56, "ad574708f75c044c9b85de64cb568ee7711ff4f36448c6242f053ba8f6cc2b63"),
    (63, "280ed3e8ff1df845b2e7dfe6ac6cee817bef20e783cc65abc41b818b4d2fe076"),
    (64, "c6ab9724ade5b6a7a1edfffb12f3aa9181351355af8fd08c919952ad211339dd"),
    (65, "788367c73c7ddf4c53f65e68cc0d943e6227ab55b0e78ba63ace822b1c6301c0"),
    (119, "3d610547d68216dedf7435a4fb6260353911f6b3fd3f18805ddb8be285d726fe"),
    (120, "1f80156a804cb7862ad113e8200e9d74499723e7c7854d5f48776d3148e09656"),
    (127, "192409cd280e14b743642ad1343fbd3e82d9305de72c078117745a679210cc3d"),
    (128, "cc548ca2dec1f6fe4f58b2e27aa9c7521607df1130d140b55a4dad0665302356"),
    (129, "81e89a7b2911aaa7795f9e3d4910cb47d6cd2b00d83b8399481527261a1a7519"),
    (1000, "5097e7d587352f5097062ae679f37bda5802d9f875aba14c8cb4d1a188ada179"),
]

/// Deterministic test bytes: byte i is (31 i + 7) mod 256.
private func pattern(_ n: Int) -> [UInt8] {
    (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
}

/// Deliberately naive FIPS 180-4 SHA-256 (arrays, no unrolling, no SIMD), as an
/// independent second computation to check the optimised one against.
private func referenceSHA256(_ message: [UInt8]) -> String {
    let k: [UInt32] = (0..<64).map { SHA256Tests.kForReference[$0] }
    var h: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }
    var m = message + [0x80]
    while m.count % 64 != 56 { m.append(0) }
    m += (0..<8).reversed().map { UInt8(truncatingIfNeeded: (UInt64(message.count) * 8) >> (8 * UInt64($0))) }
    for chunk in stride(from: 0, to: m.count, by: 64) {
        var w = (0..<16).map { i in (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(m[chunk + 4 * i + $1]) } }
        for t in 16..<64 {
            let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
            let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
            w.append(w[t - 16] &+ s0 &+ w[t - 7] &+ s1)
        }
        var v = h
        for t in 0..<64 {
            let t1 =
                v[7] &+ (rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25))
                &+ ((v[4] & v[5]) ^ (~v[4] & v[6])) &+ k[t] &+ w[t]
            let t2 =
                (rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22))
                &+ ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]))
            v = [t1 &+ t2, v[0], v[1], v[2], v[3] &+ t1, v[4], v[5], v[6]]
        }
        h = zip(h, v).map { $0 &+ $1 }
    }
    return h.map { String($0, radix: 16).leftPadded(to: 8) }.joined()
}

extension String {
    fileprivate func leftPadded(to n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}

@Suite struct SHA256Tests {
    /// The system backend is what AISyncFiles installs (as the live environment does).
    init() { SystemCryptoLoader.install() }

    /// FIPS 180-4 §4.2.2 constants, typed out again so the reference shares no code.
    static let kForReference: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    @Test(arguments: nistVectors)
    func nistVector(message: String, expected: String) {
        #expect(SHA256.hash(Array(message.utf8)).hex == expected)
        #expect(SHA256.hash(Data(message.utf8)).hex == expected)
    }

    @Test func oneMillionA() {
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        #expect(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)).hex == expected)
        // Same input fed in odd-sized pieces that straddle block boundaries, on both backends.
        for backend in CryptoBackend.allCases {
            var hasher = SHA256(backend: backend)
            let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 997)
            var left = 1_000_000
            while left > 0 {
                let n = min(left, piece.count)
                hasher.update(piece[..<n])
                left -= n
            }
            #expect(hasher.finalize().hex == expected, "\(backend)")
        }
    }

    @Test(arguments: sha256sumVectors)
    func matchesCoreutils(length: Int, expected: String) {
        #expect(SHA256.hash(pattern(length)).hex == expected)
    }

    /// Every length 0...130 and 1000 against the naive reference, one-shot and split
    /// into two `update` calls at every possible offset.
    @Test(arguments: Array(0...130) + [1000])
    func lengthsAndSplits(length: Int) {
        let bytes = pattern(length)
        let expected = referenceSHA256(bytes)
        #expect(SHA256.hash(bytes).hex == expected)
        for split in 0...length {
            for backend in CryptoBackend.allCases {
                var hasher = SHA256(backend: backend)
                hasher.update(bytes[..<split])
                bytes[split...].withUnsafeBytes { hasher.update(bytes: $0) }
                #expect(hasher.finalize().hex == expected, "split at \(split), \(backend)")
            }
        }
    }

    @Test func byteAtATimeAndDataSlices() {
        let bytes = pattern(300)
        var hasher = SHA256()
        for b in bytes { hasher.update([b]) }
        let digest = hasher.finalize()
        #expect(digest == SHA256.hash(bytes))
        // A Data slice has a non-zero startIndex; only its own bytes count.
        let data = Data(pattern(310))[10...]
        #expect(SHA256.hash(data) == SHA256.hash(Array(pattern(310)[10...])))
    }

    @Test func finalizeLeavesVarUsable() {
        var hasher = SHA256()
        hasher.update(Array("ab".utf8))
        _ = hasher.finalize()
        hasher.update(Array("c".utf8))
        #expect(hasher.finalize().hex == nistVectors[1].1)
    }

    @Test func fileStreamingMatchesOneShot() throws {
        let size = 2 * SHA256.fileChunkSize + 12_345
        let bytes = pattern(size)
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("sha256-test-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let result = try SHA256.hash(fileAt: url.path)
        #expect(result.size == Int64(size))
        #expect(result.digest == SHA256.hash(bytes))
    }

    @Test func emptyFileAndMissingFile() throws {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("sha256-empty-\(UUID().uuidString)")
        try Data().write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let result = try SHA256.hash(fileAt: url.path)
        #expect(result.size == 0)
        #expect(result.digest.hex == nistVectors[0].1)
        #expect(throws: (any Error).self) { try SHA256.hash(fileAt: url.path + "-missing") }
    }

    @Test func digestHexRoundTrip() throws {
        let digest = SHA256.hash(Array("abc".utf8))
        #expect(digest.bytes.count == 32)
        #expect(digest.description == digest.hex)
        let parsed = try #require(SHA256Digest(hex: digest.hex))
        #expect(parsed == digest)
        #expect(Set([parsed, digest]).count == 1)
    }

    @Test(arguments: [
        "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD",  // uppercase
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015aD",  // one uppercase
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015a",  // 63 chars
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad0",  // 65 chars
        "ga7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",  // non-hex
        " a7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",  // space
        "",
    ])
    func digestHexRejects(hex: String) {
        #expect(SHA256Digest(hex: hex) == nil)
    }
}
