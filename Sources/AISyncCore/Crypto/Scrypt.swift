/// scrypt (RFC 7914): the passphrase-to-key function that makes guessing a passphrase cost
/// memory as well as time. The parameters are stored with the wrapped key, so every device
/// derives the same key; new slots use `KeyFile.defaultParameters` (N = 2^16, r = 8, p = 3:
/// 64 MiB, well under a second; timed in docs/PERFORMANCE.md).
public enum Scrypt {
    /// The cost parameters: `n` a power of two above 1, `r` and `p` at least 1.
    public struct Parameters: Hashable, Sendable {
        /// CPU/memory cost, a power of two (e.g. 131072 = 2^17).
        public var n: Int
        /// Block size factor (8 in every common setting).
        public var r: Int
        /// Parallelism factor.
        public var p: Int

        /// Parameters as given; see ``isValid``.
        public init(n: Int, r: Int, p: Int) {
            self.n = n
            self.r = r
            self.p = p
        }

        /// True for parameters RFC 7914 allows and a device can afford (at most 1 GiB of memory).
        public var isValid: Bool {
            n > 1 && n & (n - 1) == 0 && r >= 1 && p >= 1 && r <= 64 && p <= 16 && n <= 1 << 22
                && 128 * r * n <= 1 << 30
        }
    }

    /// `length` bytes of key from `password` and `salt`; nil for parameters that are not valid.
    public static func derive(password: [UInt8], salt: [UInt8], parameters: Parameters, length: Int) -> [UInt8]? {
        guard parameters.isValid, length >= 1 else { return nil }
        let (n, r, p) = (parameters.n, parameters.r, parameters.p)
        var b = PBKDF2.derive(password: password, salt: salt, iterations: 1, length: p * 128 * r)
        var v = [UInt32](repeating: 0, count: 32 * r * n)
        for i in 0..<p {
            var x = (0..<(32 * r)).map { w in
                let at = i * 128 * r + 4 * w
                return UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
            }
            roMix(&x, r: r, n: n, v: &v)
            for w in 0..<(32 * r) {
                let at = i * 128 * r + 4 * w
                b[at] = UInt8(truncatingIfNeeded: x[w])
                b[at + 1] = UInt8(truncatingIfNeeded: x[w] >> 8)
                b[at + 2] = UInt8(truncatingIfNeeded: x[w] >> 16)
                b[at + 3] = UInt8(truncatingIfNeeded: x[w] >> 24)
            }
        }
        return PBKDF2.derive(password: password, salt: b, iterations: 1, length: length)
    }

    /// scryptROMix (RFC 7914 §5) on one block of 32·r words, with `v` as its scratch table.
    static func roMix(_ x: inout [UInt32], r: Int, n: Int, v: inout [UInt32]) {
        let words = 32 * r
        var y = [UInt32](repeating: 0, count: words)
        v.withUnsafeMutableBufferPointer { table in
            x.withUnsafeMutableBufferPointer { xs in
                y.withUnsafeMutableBufferPointer { ys in
                    for i in 0..<n {
                        UnsafeMutableBufferPointer(rebasing: table[(i * words)..<((i + 1) * words)]).update(
                            fromContentsOf: xs)
                        blockMix(xs, into: ys, r: r)
                        xs.update(fromContentsOf: ys)
                    }
                    for _ in 0..<n {
                        // Integerify: the first word of the last 64-byte block, mod n (a power of two).
                        let j = Int(xs[(2 * r - 1) * 16]) & (n - 1)
                        for w in 0..<words { xs[w] ^= table[j * words + w] }
                        blockMix(xs, into: ys, r: r)
                        xs.update(fromContentsOf: ys)
                    }
                }
            }
        }
    }

    /// scryptBlockMix (RFC 7914 §4): Salsa20/8 over the 2r 64-byte blocks of `b`, even
    /// results first, then odd.
    static func blockMix(_ b: UnsafeMutableBufferPointer<UInt32>, into out: UnsafeMutableBufferPointer<UInt32>, r: Int)
    {
        var x = SIMD16<UInt32>()
        for w in 0..<16 { x[w] = b[(2 * r - 1) * 16 + w] }
        for i in 0..<(2 * r) {
            var t = SIMD16<UInt32>()
            for w in 0..<16 { t[w] = b[i * 16 + w] }
            x = salsa20Eight(x ^ t)
            let at = (i % 2 == 0 ? i / 2 : r + i / 2) * 16
            for w in 0..<16 { out[at + w] = x[w] }
        }
    }

    /// The Salsa20/8 core (RFC 7914 §3): 8 rounds, then the input added.
    static func salsa20Eight(_ input: SIMD16<UInt32>) -> SIMD16<UInt32> {
        var x = input
        @inline(__always) func r(_ v: UInt32, _ n: UInt32) -> UInt32 { (v &<< n) | (v &>> (32 - n)) }
        for _ in 0..<4 {
            x[4] ^= r(x[0] &+ x[12], 7)
            x[8] ^= r(x[4] &+ x[0], 9)
            x[12] ^= r(x[8] &+ x[4], 13)
            x[0] ^= r(x[12] &+ x[8], 18)
            x[9] ^= r(x[5] &+ x[1], 7)
            x[13] ^= r(x[9] &+ x[5], 9)
            x[1] ^= r(x[13] &+ x[9], 13)
            x[5] ^= r(x[1] &+ x[13], 18)
            x[14] ^= r(x[10] &+ x[6], 7)
            x[2] ^= r(x[14] &+ x[10], 9)
            x[6] ^= r(x[2] &+ x[14], 13)
            x[10] ^= r(x[6] &+ x[2], 18)
            x[3] ^= r(x[15] &+ x[11], 7)
            x[7] ^= r(x[3] &+ x[15], 9)
            x[11] ^= r(x[7] &+ x[3], 13)
            x[15] ^= r(x[11] &+ x[7], 18)
            x[1] ^= r(x[0] &+ x[3], 7)
            x[2] ^= r(x[1] &+ x[0], 9)
            x[3] ^= r(x[2] &+ x[1], 13)
            x[0] ^= r(x[3] &+ x[2], 18)
            x[6] ^= r(x[5] &+ x[4], 7)
            x[7] ^= r(x[6] &+ x[5], 9)
            x[4] ^= r(x[7] &+ x[6], 13)
            x[5] ^= r(x[4] &+ x[7], 18)
            x[11] ^= r(x[10] &+ x[9], 7)
            x[8] ^= r(x[11] &+ x[10], 9)
            x[9] ^= r(x[8] &+ x[11], 13)
            x[10] ^= r(x[9] &+ x[8], 18)
            x[12] ^= r(x[15] &+ x[14], 7)
            x[13] ^= r(x[12] &+ x[15], 9)
            x[14] ^= r(x[13] &+ x[12], 13)
            x[15] ^= r(x[14] &+ x[13], 18)
        }
        return x &+ input
    }
}
