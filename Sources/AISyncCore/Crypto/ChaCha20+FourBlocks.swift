/// The state of four ChaCha20 blocks side by side: word `i` of block `j` is `x.i[j]`.
struct FourBlockState {
    var x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15: SIMD4<UInt32>

    @inline(__always)
    init(k: [UInt32], n: [UInt32], counter: SIMD4<UInt32>) {
        x0 = SIMD4(repeating: ChaCha20.constants.0)
        x1 = SIMD4(repeating: ChaCha20.constants.1)
        x2 = SIMD4(repeating: ChaCha20.constants.2)
        x3 = SIMD4(repeating: ChaCha20.constants.3)
        x4 = SIMD4(repeating: k[0])
        x5 = SIMD4(repeating: k[1])
        x6 = SIMD4(repeating: k[2])
        x7 = SIMD4(repeating: k[3])
        x8 = SIMD4(repeating: k[4])
        x9 = SIMD4(repeating: k[5])
        x10 = SIMD4(repeating: k[6])
        x11 = SIMD4(repeating: k[7])
        x12 = counter
        x13 = SIMD4(repeating: n[0])
        x14 = SIMD4(repeating: n[1])
        x15 = SIMD4(repeating: n[2])
    }

    @inline(__always)
    static func quarter(
        _ a: inout SIMD4<UInt32>, _ b: inout SIMD4<UInt32>, _ c: inout SIMD4<UInt32>, _ d: inout SIMD4<UInt32>
    ) {
        // Rotations written as two shifts added (the bits do not overlap): written with `|`,
        // LLVM turned them into scalar `rol`s, lane by lane, at less than half the speed (docs/PERFORMANCE.md).
        a &+= b
        d ^= a
        d = (d &<< 16) &+ (d &>> 16)
        c &+= d
        b ^= c
        b = (b &<< 12) &+ (b &>> 20)
        a &+= b
        d ^= a
        d = (d &<< 8) &+ (d &>> 24)
        c &+= d
        b ^= c
        b = (b &<< 7) &+ (b &>> 25)
    }

    /// A column round then a diagonal round.
    @inline(__always)
    mutating func doubleRound() {
        Self.quarter(&x0, &x4, &x8, &x12)
        Self.quarter(&x1, &x5, &x9, &x13)
        Self.quarter(&x2, &x6, &x10, &x14)
        Self.quarter(&x3, &x7, &x11, &x15)
        Self.quarter(&x0, &x5, &x10, &x15)
        Self.quarter(&x1, &x6, &x11, &x12)
        Self.quarter(&x2, &x7, &x8, &x13)
        Self.quarter(&x3, &x4, &x9, &x14)
    }

    @inline(__always)
    mutating func add(_ o: FourBlockState) {
        x0 &+= o.x0
        x1 &+= o.x1
        x2 &+= o.x2
        x3 &+= o.x3
        x4 &+= o.x4
        x5 &+= o.x5
        x6 &+= o.x6
        x7 &+= o.x7
        x8 &+= o.x8
        x9 &+= o.x9
        x10 &+= o.x10
        x11 &+= o.x11
        x12 &+= o.x12
        x13 &+= o.x13
        x14 &+= o.x14
        x15 &+= o.x15
    }

    /// XORs the four blocks (block j is word 0..15 of lane j, little-endian) into `buffer`.
    @inline(__always)
    func xor(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        let base = buffer.baseAddress! + offset
        @inline(__always) func put(_ v: SIMD4<UInt32>, _ i: Int) {
            for j in 0..<4 {
                let at = base + 64 * j + 4 * i
                at.storeBytes(of: at.loadUnaligned(as: UInt32.self) ^ v[j].littleEndian, as: UInt32.self)
            }
        }
        put(x0, 0)
        put(x1, 1)
        put(x2, 2)
        put(x3, 3)
        put(x4, 4)
        put(x5, 5)
        put(x6, 6)
        put(x7, 7)
        put(x8, 8)
        put(x9, 9)
        put(x10, 10)
        put(x11, 11)
        put(x12, 12)
        put(x13, 13)
        put(x14, 14)
        put(x15, 15)
    }
}
