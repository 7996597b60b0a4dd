/// Poly1305 (RFC 8439 §2.5), the one-time authenticator of ChaCha20-Poly1305, in pure Swift.
///
/// Arithmetic modulo 2^130 - 5 on three limbs of 44, 44 and 42 bits with 128-bit products
/// (the "donna-64" layout): no branch and no table depends on the key or the message, and
/// the final reduction selects with masks.
public struct Poly1305: Sendable {
    private let r0, r1, r2, s1, s2: UInt64
    private let pad0, pad1: UInt64
    private var h0: UInt64 = 0, h1: UInt64 = 0, h2: UInt64 = 0
    /// A partial block not yet absorbed.
    private var pending: [UInt8] = []

    /// Starts an authenticator with a 32-byte one-time key (r, then s).
    public init(key: [UInt8]) {
        precondition(key.count == 32, "Poly1305 needs a 32-byte one-time key")
        let t0 = Self.le64(key, 0)
        let t1 = Self.le64(key, 8)
        // r is clamped (RFC 8439 §2.5.1) while it is split into limbs.
        r0 = t0 & 0xffc_0fff_ffff
        r1 = ((t0 >> 44) | (t1 << 20)) & 0xfff_ffc0_ffff
        r2 = (t1 >> 24) & 0x00f_ffff_fc0f
        s1 = r1 &* (5 << 2)
        s2 = r2 &* (5 << 2)
        pad0 = Self.le64(key, 16)
        pad1 = Self.le64(key, 24)
    }

    static func le64(_ b: [UInt8], _ at: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(b[at + i]) << (8 * UInt64(i)) }
        return v
    }

    /// Absorbs `bytes`.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Absorbs raw bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var at = 0
        if !pending.isEmpty {
            let take = min(16 - pending.count, bytes.count)
            pending += bytes[0..<take]
            at = take
            guard pending.count == 16 else { return }
            pending.withUnsafeBytes { absorb($0.baseAddress!, hibit: 1 << 40) }
            pending.removeAll(keepingCapacity: true)
        }
        while bytes.count - at >= 16 {
            absorb(bytes.baseAddress! + at, hibit: 1 << 40)
            at += 16
        }
        if at < bytes.count { pending += bytes[at...] }
    }

    /// One 16-byte block: h = (h + block + hibit·2^128) · r mod 2^130 - 5.
    @inline(__always)
    private mutating func absorb(_ m: UnsafeRawPointer, hibit: UInt64) {
        let t0 = UInt64(littleEndian: m.loadUnaligned(as: UInt64.self))
        let t1 = UInt64(littleEndian: (m + 8).loadUnaligned(as: UInt64.self))
        h0 &+= t0 & 0xfff_ffff_ffff
        h1 &+= ((t0 >> 44) | (t1 << 20)) & 0xfff_ffff_ffff
        h2 &+= ((t1 >> 24) & 0x3ff_ffff_ffff) | hibit
        let d0 = mul(h0, r0) &+ mul(h1, s2) &+ mul(h2, s1)
        var d1 = mul(h0, r1) &+ mul(h1, r0) &+ mul(h2, s2)
        var d2 = mul(h0, r2) &+ mul(h1, r1) &+ mul(h2, r0)
        var c = UInt64(truncatingIfNeeded: d0 >> 44)
        h0 = UInt64(truncatingIfNeeded: d0) & 0xfff_ffff_ffff
        d1 &+= UInt128(c)
        c = UInt64(truncatingIfNeeded: d1 >> 44)
        h1 = UInt64(truncatingIfNeeded: d1) & 0xfff_ffff_ffff
        d2 &+= UInt128(c)
        c = UInt64(truncatingIfNeeded: d2 >> 42)
        h2 = UInt64(truncatingIfNeeded: d2) & 0x3ff_ffff_ffff
        h0 &+= c &* 5
        c = h0 >> 44
        h0 &= 0xfff_ffff_ffff
        h1 &+= c
    }

    @inline(__always)
    private func mul(_ a: UInt64, _ b: UInt64) -> UInt128 { UInt128(a) &* UInt128(b) }

    /// The 16-byte tag of everything absorbed.
    public consuming func finalize() -> [UInt8] {
        if !pending.isEmpty {
            // The last partial block: its bytes, a 1, then zeros; no 2^128 bit.
            var last = pending + [1]
            last += [UInt8](repeating: 0, count: 16 - last.count)
            last.withUnsafeBytes { absorb($0.baseAddress!, hibit: 0) }
        }
        var c = h1 >> 44
        h1 &= 0xfff_ffff_ffff
        h2 &+= c
        c = h2 >> 42
        h2 &= 0x3ff_ffff_ffff
        h0 &+= c &* 5
        c = h0 >> 44
        h0 &= 0xfff_ffff_ffff
        h1 &+= c
        c = h1 >> 44
        h1 &= 0xfff_ffff_ffff
        h2 &+= c
        c = h2 >> 42
        h2 &= 0x3ff_ffff_ffff
        h0 &+= c &* 5
        c = h0 >> 44
        h0 &= 0xfff_ffff_ffff
        h1 &+= c
        // g = h + 5 - 2^130; keep h when g is negative (h < p), else g; chosen by masks.
        var g0 = h0 &+ 5
        c = g0 >> 44
        g0 &= 0xfff_ffff_ffff
        var g1 = h1 &+ c
        c = g1 >> 44
        g1 &= 0xfff_ffff_ffff
        var g2 = h2 &+ c &- (1 << 42)
        let keepG = (g2 >> 63) &- 1
        g0 &= keepG
        g1 &= keepG
        g2 &= keepG
        h0 = (h0 & ~keepG) | g0
        h1 = (h1 & ~keepG) | g1
        h2 = (h2 & ~keepG) | g2
        // tag = (h + s) mod 2^128
        h0 &+= pad0 & 0xfff_ffff_ffff
        c = h0 >> 44
        h0 &= 0xfff_ffff_ffff
        h1 &+= (((pad0 >> 44) | (pad1 << 20)) & 0xfff_ffff_ffff) &+ c
        c = h1 >> 44
        h1 &= 0xfff_ffff_ffff
        h2 &+= ((pad1 >> 24) & 0x3ff_ffff_ffff) &+ c
        h2 &= 0x3ff_ffff_ffff
        let lo = h0 | (h1 << 44)
        let hi = (h1 >> 20) | (h2 << 24)
        var tag: [UInt8] = []
        tag.reserveCapacity(16)
        withUnsafeBytes(of: lo.littleEndian) { tag += $0 }
        withUnsafeBytes(of: hi.littleEndian) { tag += $0 }
        return tag
    }

    /// The tag of `message` under `key`, at once.
    public static func authenticate(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        var p = Poly1305(key: key)
        p.update(message)
        return p.finalize()
    }
}
