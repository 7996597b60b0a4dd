import Foundation

/// Incremental SHA-256 hasher (FIPS 180-4), pure Swift.
///
/// Pure Swift so the package has no dependencies and gives identical results on every
/// platform (no CryptoKit on Linux). Written for speed, since every synced file is
/// hashed: whole blocks are compressed straight from the caller's buffer, the working
/// state stays in registers, the message schedule runs on SIMD units alongside the
/// scalar rounds, and nothing is allocated per block. How it compares with coreutils
/// `sha256sum`: docs/PERFORMANCE.md.
public struct SHA256: Sendable {
    /// Chaining state H0...H7.
    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a,
        0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    /// Pending partial block (64 bytes, inline so the struct stays allocation-free).
    private var pending: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0)
    /// Number of valid bytes in `pending` (0..<64).
    private var pendingCount = 0
    /// Total message length in bytes.
    private var length: UInt64 = 0

    /// Whether the system's SHA-256 runs when present (``CryptoBackend``) rather than the
    /// portable code.
    private let system: Bool

    /// A hasher that has been fed nothing yet (the system's SHA-256 when there is one).
    public init() { system = true }

    /// A hasher on a chosen implementation (the tests compare them).
    package init(backend: CryptoBackend) { system = backend == .system }

    private func compress(
        _ h: inout (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32), _ data: UnsafeRawPointer,
        blocks: Int
    ) {
        if system, let transform = SystemCrypto.sha256Transform {
            SystemCrypto.sha256(transform, &h, data, blocks: blocks)
        } else {
            Self.compress(&h, data, blocks: blocks)
        }
    }

    /// Feeds `data` (e.g. `Data` or `[UInt8]`), region by region without copying.
    /// `@inlinable` so callers get it specialised for their concrete type.
    @inlinable
    public mutating func update<D: DataProtocol>(_ data: D) {
        for region in data.regions {
            region.withUnsafeBytes { update(bytes: $0) }
        }
    }

    /// Feeds raw bytes. Whole blocks are compressed directly from `bytes`.
    public mutating func update(bytes: UnsafeRawBufferPointer) {
        guard var src = bytes.baseAddress, bytes.count > 0 else { return }
        var remaining = bytes.count
        length &+= UInt64(remaining)
        if pendingCount > 0 {
            let take = min(64 - pendingCount, remaining)
            let filled = pendingCount
            withUnsafeMutableBytes(of: &pending) { buf in
                (buf.baseAddress! + filled).copyMemory(from: src, byteCount: take)
            }
            pendingCount += take
            src += take
            remaining -= take
            guard pendingCount == 64 else { return }
            let block = pending
            withUnsafeBytes(of: block) { compress(&h, $0.baseAddress!, blocks: 1) }
            pendingCount = 0
        }
        let blocks = remaining / 64
        if blocks > 0 {
            compress(&h, src, blocks: blocks)
            src += blocks * 64
            remaining -= blocks * 64
        }
        if remaining > 0 {
            withUnsafeMutableBytes(of: &pending) { buf in
                buf.baseAddress!.copyMemory(from: src, byteCount: remaining)
            }
            pendingCount = remaining
        }
    }

    /// Applies padding and returns the digest. `consuming` because the hasher is
    /// spent afterwards; it is still callable on a `var` (Copyable types copy).
    public consuming func finalize() -> SHA256Digest {
        // Padding: 0x80, zeros up to 56 mod 64, then the 64-bit big-endian bit length.
        let bitLength = length &* 8
        let padCount = (pendingCount < 56 ? 64 : 128) - pendingCount
        withUnsafeTemporaryAllocation(byteCount: 128, alignment: 8) { tail in
            tail.initializeMemory(as: UInt8.self, repeating: 0)
            tail[0] = 0x80
            tail.storeBytes(of: bitLength.bigEndian, toByteOffset: padCount - 8, as: UInt64.self)
            update(bytes: UnsafeRawBufferPointer(rebasing: tail[..<padCount]))
        }
        let state = h
        return SHA256Digest { out in
            withUnsafeBytes(of: state) { words in
                for i in 0..<8 {
                    let word = words.load(fromByteOffset: 4 * i, as: UInt32.self)
                    out.storeBytes(of: word.bigEndian, toByteOffset: 4 * i, as: UInt32.self)
                }
            }
        }
    }

    /// One-shot hash of an in-memory buffer.
    @inlinable
    public static func hash<D: DataProtocol>(_ data: D) -> SHA256Digest {
        var hasher = SHA256()
        hasher.update(data)
        return hasher.finalize()
    }

    // MARK: - Compression

    /// Round constants K0...K63 (first 32 bits of the fractional parts of the cube
    /// roots of the first 64 primes).
    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// Compresses `blocks` (at least 1) consecutive 64-byte blocks at `data` (any
    /// alignment) into `h`.
    ///
    /// The scalar rounds are the bottleneck, so the message schedule (W+K) is computed
    /// four words at a time with SIMD, which runs on otherwise idle vector units. It is
    /// software-pipelined: while the rounds of block i read W+K from `cur`, the schedule
    /// of block i+1 is computed into `next`, interleaved with those rounds so the two
    /// dependency chains overlap. That is ~15% faster than a scalar schedule, whereas
    /// running the same SIMD code up front, without overlap, is slower than scalar.
    private static func compress(
        _ h: inout (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32),
        _ data: UnsafeRawPointer, blocks: Int
    ) {
        kv.withUnsafeBufferPointer { kBuf in
            withUnsafeTemporaryAllocation(of: SIMD4<UInt32>.self, capacity: 32) { wBuf in
                let k = kBuf.baseAddress!
                var cur = wBuf.baseAddress!
                var next = cur + 16
                scheduleScalar(data, into: cur, k)
                var x = Schedule()
                var s = State(h)
                for i in 1..<blocks {
                    x = Schedule(data + 64 * i, into: next, k)
                    var r = s
                    r.rounds64(UnsafeRawPointer(cur), scheduling: &x, into: next, k, pipelined: true)
                    s.add(r)
                    swap(&cur, &next)
                }
                var r = s
                r.rounds64(UnsafeRawPointer(cur), scheduling: &x, into: next, k, pipelined: false)
                s.add(r)
                h = (s.a, s.b, s.c, s.d, s.e, s.f, s.g, s.h)
            }
        }
    }

    /// Scalar schedule for the first block of a call, which has no earlier block to
    /// hide behind: its dependency chain is much shorter than the vector version's.
    @inline(__always)
    private static func scheduleScalar(
        _ p: UnsafeRawPointer, into w: UnsafeMutablePointer<SIMD4<UInt32>>,
        _ k: UnsafePointer<SIMD4<UInt32>>
    ) {
        let raw = UnsafeMutableRawPointer(w)
        @inline(__always) func word(_ t: Int) -> UInt32 { raw.load(fromByteOffset: 4 * t, as: UInt32.self) }
        for t in 0..<16 {
            let v = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: 4 * t, as: UInt32.self))
            raw.storeBytes(of: v, toByteOffset: 4 * t, as: UInt32.self)
        }
        for t in 16..<64 {
            let x = word(t - 15)
            let y = word(t - 2)
            let s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3)
            let s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >> 10)
            raw.storeBytes(of: word(t - 16) &+ s0 &+ word(t - 7) &+ s1, toByteOffset: 4 * t, as: UInt32.self)
        }
        for i in 0..<16 { w[i] = w[i] &+ k[i] }
    }

    /// Sliding window of the last 16 schedule words (four vectors of four).
    private struct Schedule {
        var x0 = SIMD4<UInt32>(), x1 = SIMD4<UInt32>(), x2 = SIMD4<UInt32>(), x3 = SIMD4<UInt32>()

        init() {}

        /// Loads W[0..<16] of the block at `p` and writes W+K for them to `w[0..<4]`.
        @inline(__always)
        init(
            _ p: UnsafeRawPointer, into w: UnsafeMutablePointer<SIMD4<UInt32>>,
            _ k: UnsafePointer<SIMD4<UInt32>>
        ) {
            x0 = loadBE(p, 0)
            x1 = loadBE(p, 16)
            x2 = loadBE(p, 32)
            x3 = loadBE(p, 48)
            w[0] = x0 &+ k[0]
            w[1] = x1 &+ k[1]
            w[2] = x2 &+ k[2]
            w[3] = x3 &+ k[3]
        }

        /// Computes W[4i..<4i+4] and writes W+K for them to `w[i]`.
        @inline(__always)
        mutating func step(
            _ i: Int, into w: UnsafeMutablePointer<SIMD4<UInt32>>,
            _ k: UnsafePointer<SIMD4<UInt32>>
        ) {
            let n = schedule(x0, x1, x2, x3)
            w[i] = n &+ k[i]
            x0 = x1
            x1 = x2
            x2 = x3
            x3 = n
        }
    }

    /// `k` as vectors of four.
    private static let kv: [SIMD4<UInt32>] = stride(from: 0, to: 64, by: 4).map {
        SIMD4(k[$0], k[$0 + 1], k[$0 + 2], k[$0 + 3])
    }

    /// Four big-endian message words.
    @inline(__always)
    private static func loadBE(_ p: UnsafeRawPointer, _ offset: Int) -> SIMD4<UInt32> {
        let x = p.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt32>.self)
        #if _endian(little)
            let m = SIMD4<UInt32>(repeating: 0xff00)
            return (x &<< 24) | ((x & m) &<< 8) | ((x &>> 8) & m) | (x &>> 24)
        #else
            return x
        #endif
    }

    /// σ0 on four words. Rotates are spelled as separate shift terms grouped so that
    /// LLVM does not re-form funnel shifts, which it scalarises on SSE2.
    @inline(__always)
    private static func sigma0(_ x: SIMD4<UInt32>) -> SIMD4<UInt32> {
        ((x &>> 3) ^ (x &>> 7) ^ (x &>> 18)) ^ ((x &<< 14) ^ (x &<< 25))
    }

    /// σ1 on four words (see `sigma0`).
    @inline(__always)
    private static func sigma1(_ x: SIMD4<UInt32>) -> SIMD4<UInt32> {
        ((x &>> 10) ^ (x &>> 17) ^ (x &>> 19)) ^ ((x &<< 13) ^ (x &<< 15))
    }

    /// W[t..<t+4] from w16 = W[t-16..<t-12], w12, w8, w4 = W[t-4..<t].
    /// W[t+2], W[t+3] depend on W[t], W[t+1], so σ1 is applied in two halves.
    @inline(__always)
    private static func schedule(
        _ w16: SIMD4<UInt32>, _ w12: SIMD4<UInt32>, _ w8: SIMD4<UInt32>, _ w4: SIMD4<UInt32>
    ) -> SIMD4<UInt32> {
        let w15 = SIMD4(w16[1], w16[2], w16[3], w12[0])
        let w7 = SIMD4(w8[1], w8[2], w8[3], w4[0])
        let t = w16 &+ sigma0(w15) &+ w7
        let lo = SIMD4<UInt32>(UInt32.max, UInt32.max, 0, 0)
        let y = SIMD4(w4[2], w4[3], w4[2], w4[3])
        let r = t &+ (sigma1(y) & lo)
        let z = SIMD4(r[0], r[1], r[0], r[1])
        return r &+ (sigma1(z) & ~lo)
    }

    /// Working variables a...h; a struct so they can be passed around and stay in registers.
    private struct State {
        var a, b, c, d, e, f, g, h: UInt32

        @inline(__always)
        init(_ v: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)) {
            (a, b, c, d, e, f, g, h) = v
        }

        @inline(__always)
        mutating func add(_ o: State) {
            a &+= o.a
            b &+= o.b
            c &+= o.c
            d &+= o.d
            e &+= o.e
            f &+= o.f
            g &+= o.g
            h &+= o.h
        }

        /// All 64 rounds reading W+K from `wk`. With `pipelined`, each group of four
        /// rounds is followed by one step of the next block's schedule `x` into `next`
        /// (without it, `x` and `next` are untouched).
        @inline(__always)
        mutating func rounds64(
            _ wk: UnsafeRawPointer, scheduling x: inout Schedule,
            into next: UnsafeMutablePointer<SIMD4<UInt32>>, _ k: UnsafePointer<SIMD4<UInt32>>,
            pipelined: Bool
        ) {
            if pipelined {
                // A loop, not unrolled: the body stays small enough for the µop cache.
                for g in stride(from: 0, to: 12, by: 2) {
                    rounds4(wk, 4 * g, second: false)
                    x.step(g + 4, into: next, k)
                    rounds4(wk, 4 * g + 4, second: true)
                    x.step(g + 5, into: next, k)
                }
            } else {
                for g in stride(from: 0, to: 12, by: 2) {
                    rounds4(wk, 4 * g, second: false)
                    rounds4(wk, 4 * g + 4, second: true)
                }
            }
            rounds4(wk, 48, second: false)
            rounds4(wk, 52, second: true)
            rounds4(wk, 56, second: false)
            rounds4(wk, 60, second: true)
        }

        /// Four rounds reading W+K from `wk` words `base..<base+4`. The variables' roles
        /// rotate every round instead of being shuffled; `second` selects the second
        /// half of the 8-round rotation cycle.
        @inline(__always)
        mutating func rounds4(_ wk: UnsafeRawPointer, _ base: Int, second: Bool) {
            @inline(__always) func kw(_ i: Int) -> UInt32 {
                wk.load(fromByteOffset: (base + i) * 4, as: UInt32.self)
            }
            if !second {
                round(a, b, c, &d, e, f, g, &h, kw(0))
                round(h, a, b, &c, d, e, f, &g, kw(1))
                round(g, h, a, &b, c, d, e, &f, kw(2))
                round(f, g, h, &a, b, c, d, &e, kw(3))
            } else {
                round(e, f, g, &h, a, b, c, &d, kw(0))
                round(d, e, f, &g, h, a, b, &c, kw(1))
                round(c, d, e, &f, g, h, a, &b, kw(2))
                round(b, c, d, &e, f, g, h, &a, kw(3))
            }
        }
    }

    /// One SHA-256 round; `kw` is K[t] + W[t]. Updates `d` and `h` in place.
    @inline(__always)
    private static func round(
        _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
        _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ kw: UInt32
    ) {
        let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
        let ch = g ^ (e & (f ^ g))
        let t1 = (h &+ kw) &+ ch &+ s1
        let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
        let maj = ((a ^ b) & (b ^ c)) ^ b
        d &+= t1
        h = t1 &+ s0 &+ maj
    }

    /// Scalar rotate right; LLVM turns this into a single `ror`.
    @inline(__always)
    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 {
        (x >> n) | (x << (32 &- n))
    }
}

/// A 32-byte SHA-256 digest; compares, hashes and prints (lowercase hex) by value.
///
/// The bytes are held inline, not in an array: a pull decodes tens of thousands of version
/// ids and object references, and each array was an allocation (and a reference count to
/// keep on every copy of a version).
public struct SHA256Digest: Hashable, Sendable, CustomStringConvertible {
    /// The 32 bytes in order, as four words read from memory (not numbers: compared and
    /// hashed as they are).
    private let w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64

    /// The 32 digest bytes.
    public var bytes: [UInt8] { withUnsafeBytes(of: (w0, w1, w2, w3)) { Array($0) } }

    /// Fills the 32 bytes (`fill` writes all of them).
    init(filling fill: (UnsafeMutableRawBufferPointer) -> Void) {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { fill($0) }
        (w0, w1, w2, w3) = words
    }

    /// Wraps 32 digest bytes (internal: digests come from hashing or `init?(hex:)`).
    init(bytes: [UInt8]) {
        precondition(bytes.count == 32, "a SHA-256 digest is 32 bytes")
        self.init { out in bytes.withUnsafeBytes { out.copyMemory(from: $0) } }
    }

    /// Hashes the 32 bytes at once.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(w0)
        hasher.combine(w1)
        hasher.combine(w2)
        hasher.combine(w3)
    }

    /// Two digests are equal when their 32 bytes are.
    public static func == (a: SHA256Digest, b: SHA256Digest) -> Bool {
        a.w0 == b.w0 && a.w1 == b.w1 && a.w2 == b.w2 && a.w3 == b.w3
    }

    /// 64 lowercase hex characters, as printed by `sha256sum`.
    public var hex: String {
        String(unsafeUninitializedCapacity: 64) { out in
            writeHex(into: UnsafeMutableRawBufferPointer(out))
            return 64
        }
    }

    /// Writes the 64 lowercase hex characters to the start of `out` (at least 64 bytes).
    package func writeHex(into out: UnsafeMutableRawBufferPointer) {
        let digits: StaticString = "0123456789abcdef"
        digits.withUTF8Buffer { digits in
            withUnsafeBytes(of: (w0, w1, w2, w3)) { bytes in
                for (i, b) in bytes.enumerated() {
                    out[2 * i] = digits[Int(b >> 4)]
                    out[2 * i + 1] = digits[Int(b & 15)]
                }
            }
        }
    }

    /// The digest as 64 lowercase hex characters (the same as ``hex``).
    public var description: String { hex }

    /// Parses exactly 64 lowercase hex characters; anything else (uppercase, wrong
    /// length, non-hex) yields nil so one digest has exactly one spelling.
    public init?(hex: String) {
        var hex = hex
        guard let digest = hex.withUTF8({ Self(hexUTF8: $0) }) else { return nil }
        self = digest
    }

    /// The same, from the text's bytes.
    package init?(hexUTF8 utf8: UnsafeBufferPointer<UInt8>) {
        guard utf8.count == 64 else { return nil }
        var valid = true
        self.init { out in
            for i in 0..<32 {
                guard let hi = Self.nibble(utf8[2 * i]), let lo = Self.nibble(utf8[2 * i + 1]) else {
                    valid = false
                    return
                }
                out[i] = hi << 4 | lo
            }
        }
        guard valid else { return nil }
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
