/// ChaCha20 (RFC 8439 §2.3-2.4) and HChaCha20 (draft-irtf-cfrg-xchacha-03 §2.2), pure Swift.
///
/// Four blocks are computed at once, one SIMD lane per block: each of the 16 state words is
/// a `SIMD4<UInt32>` across the four blocks, so the rounds need no lane shuffles and map onto
/// the CPU's 128-bit vector unit; only the last, partial group runs one block at a time.
/// Key and nonce are secrets of the caller: nothing here branches on their values.
public enum ChaCha20 {
    /// "expand 32-byte k", the first four state words.
    static let constants: (UInt32, UInt32, UInt32, UInt32) = (0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574)

    /// XORs `bytes` with the key stream of `key` (32 bytes) and `nonce` (12 bytes), starting
    /// at block `counter`; encrypts and decrypts alike. Throws nothing: the caller checks
    /// the sizes (``ChaChaPoly`` does).
    public static func xor(_ bytes: inout [UInt8], key: [UInt8], nonce: [UInt8], counter: UInt32) {
        precondition(key.count == 32 && nonce.count == 12, "ChaCha20 needs a 32-byte key and a 12-byte nonce")
        let k = words(key, count: 8)
        let n = words(nonce, count: 3)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            var block = counter
            while buffer.count - offset >= 256 {
                fourBlocks(k, n, counter: block, into: buffer, at: offset)
                offset += 256
                block &+= 4
            }
            while offset < buffer.count {
                var stream = singleBlock(k, n, counter: block)
                let take = min(64, buffer.count - offset)
                withUnsafeBytes(of: &stream) { s in
                    for i in 0..<take { buffer[offset + i] ^= s[i] }
                }
                offset += take
                block &+= 1
            }
        }
    }

    /// The 64-byte block for `counter` (used for the Poly1305 one-time key, counter 0).
    public static func block(key: [UInt8], nonce: [UInt8], counter: UInt32) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 64)
        xor(&out, key: key, nonce: nonce, counter: counter)
        return out
    }

    /// HChaCha20: a 32-byte subkey from `key` and the first 16 bytes of an XChaCha20 nonce.
    public static func hchacha20(key: [UInt8], nonce16: [UInt8]) -> [UInt8] {
        precondition(key.count == 32 && nonce16.count == 16, "HChaCha20 needs a 32-byte key and a 16-byte nonce")
        let k = words(key, count: 8)
        let n = words(nonce16, count: 4)
        var x: [UInt32] = [constants.0, constants.1, constants.2, constants.3] + k + n
        for _ in 0..<10 {
            quarter(&x, 0, 4, 8, 12)
            quarter(&x, 1, 5, 9, 13)
            quarter(&x, 2, 6, 10, 14)
            quarter(&x, 3, 7, 11, 15)
            quarter(&x, 0, 5, 10, 15)
            quarter(&x, 1, 6, 11, 12)
            quarter(&x, 2, 7, 8, 13)
            quarter(&x, 3, 4, 9, 14)
        }
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for w in [x[0], x[1], x[2], x[3], x[12], x[13], x[14], x[15]] {
            withUnsafeBytes(of: w.littleEndian) { out += $0 }
        }
        return out
    }

    /// Little-endian words of `bytes`.
    static func words(_ bytes: [UInt8], count: Int) -> [UInt32] {
        (0..<count).map { i in
            UInt32(bytes[4 * i]) | UInt32(bytes[4 * i + 1]) << 8 | UInt32(bytes[4 * i + 2]) << 16 | UInt32(
                bytes[4 * i + 3]) << 24
        }
    }

    @inline(__always)
    private static func quarter(_ x: inout [UInt32], _ a: Int, _ b: Int, _ c: Int, _ d: Int) {
        x[a] &+= x[b]
        x[d] ^= x[a]
        x[d] = x[d].rotated(16)
        x[c] &+= x[d]
        x[b] ^= x[c]
        x[b] = x[b].rotated(12)
        x[a] &+= x[b]
        x[d] ^= x[a]
        x[d] = x[d].rotated(8)
        x[c] &+= x[d]
        x[b] ^= x[c]
        x[b] = x[b].rotated(7)
    }

    /// One block's key stream, as 16 little-endian words.
    private static func singleBlock(_ k: [UInt32], _ n: [UInt32], counter: UInt32) -> (SIMD16<UInt32>) {
        let initial = SIMD16<UInt32>(
            constants.0, constants.1, constants.2, constants.3, k[0], k[1], k[2], k[3],
            k[4], k[5], k[6], k[7], counter, n[0], n[1], n[2])
        var x = Array(initial.indices.map { initial[$0] })
        for _ in 0..<10 {
            quarter(&x, 0, 4, 8, 12)
            quarter(&x, 1, 5, 9, 13)
            quarter(&x, 2, 6, 10, 14)
            quarter(&x, 3, 7, 11, 15)
            quarter(&x, 0, 5, 10, 15)
            quarter(&x, 1, 6, 11, 12)
            quarter(&x, 2, 7, 8, 13)
            quarter(&x, 3, 4, 9, 14)
        }
        var out = SIMD16<UInt32>()
        for i in 0..<16 { out[i] = (x[i] &+ initial[i]).littleEndian }
        return out
    }

    /// Four consecutive blocks XORed into `buffer` at `offset` (256 bytes).
    @inline(__always)
    private static func fourBlocks(
        _ k: [UInt32], _ n: [UInt32], counter: UInt32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int
    ) {
        let c = SIMD4<UInt32>(counter, counter &+ 1, counter &+ 2, counter &+ 3)
        var s = FourBlockState(k: k, n: n, counter: c)
        let initial = s
        for _ in 0..<10 { s.doubleRound() }
        s.add(initial)
        s.xor(into: buffer, at: offset)
    }
}

extension UInt32 {
    @inline(__always)
    func rotated(_ n: UInt32) -> UInt32 { (self &<< n) | (self &>> (32 &- n)) }
}

extension SIMD4 where Scalar == UInt32 {
    @inline(__always)
    func rotated(_ n: UInt32) -> SIMD4<UInt32> { (self &<< n) | (self &>> (32 &- n)) }
}
