// TEMPORARY simple implementation; replaced by the optimized one.
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation

public struct SHA256Digest: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]
    public var hex: String { bytes.map { String(format: "%02x", $0) }.joined() }
    public var description: String { hex }
    init(bytes: [UInt8]) { self.bytes = bytes }
    public init?(hex: String) {
        let u = Array(hex.utf8)
        guard u.count == 64 else { return nil }
        var out: [UInt8] = []
        for i in stride(from: 0, to: 64, by: 2) {
            func v(_ c: UInt8) -> UInt8? { (48...57).contains(c) ? c - 48 : (97...102).contains(c) ? c - 87 : nil }
            guard let a = v(u[i]), let b = v(u[i + 1]) else { return nil }
            out.append(a << 4 | b)
        }
        bytes = out
    }
}

public struct SHA256: Sendable {
    private var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0
    static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]
    public init() {}
    public mutating func update<D: DataProtocol>(_ data: D) { for b in data { add(b) } }
    public mutating func update(bytes: UnsafeRawBufferPointer) { for b in bytes { add(b) } }
    private mutating func add(_ b: UInt8) {
        buffer.append(b); length += 1
        if buffer.count == 64 { block(); buffer.removeAll(keepingCapacity: true) }
    }
    private mutating func block() {
        var w = [UInt32](repeating: 0, count: 64)
        for i in 0..<16 { w[i] = UInt32(buffer[4*i]) << 24 | UInt32(buffer[4*i+1]) << 16 | UInt32(buffer[4*i+2]) << 8 | UInt32(buffer[4*i+3]) }
        func r(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }
        for i in 16..<64 { w[i] = w[i-16] &+ (r(w[i-15], 7) ^ r(w[i-15], 18) ^ (w[i-15] >> 3)) &+ w[i-7] &+ (r(w[i-2], 17) ^ r(w[i-2], 19) ^ (w[i-2] >> 10)) }
        var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
        for i in 0..<64 {
            let t1 = hh &+ (r(e, 6) ^ r(e, 11) ^ r(e, 25)) &+ ((e & f) ^ (~e & g)) &+ Self.k[i] &+ w[i]
            let t2 = (r(a, 2) ^ r(a, 13) ^ r(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
            hh = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
        }
        h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d; h[4] &+= e; h[5] &+= f; h[6] &+= g; h[7] &+= hh
    }
    public mutating func finalize() -> SHA256Digest {
        let bits = length * 8
        add(0x80)
        while buffer.count != 56 { add(0) }
        for i in (0..<8).reversed() { add(UInt8(truncatingIfNeeded: bits >> (UInt64(i) * 8))) }
        return SHA256Digest(bytes: h.flatMap { [UInt8($0 >> 24), UInt8(truncatingIfNeeded: $0 >> 16), UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] })
    }
    public static func hash<D: DataProtocol>(_ data: D) -> SHA256Digest { var s = SHA256(); s.update(data); return s.finalize() }
    public static func hash(fileAt path: String) throws -> (digest: SHA256Digest, size: Int64) {
        let d = try Data(contentsOf: URL(fileURLWithPath: path)); return (hash(d), Int64(d.count))
    }
}
