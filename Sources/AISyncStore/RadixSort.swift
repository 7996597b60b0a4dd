/// A stable sort of 64-bit keys by a range of their bits, a digit of 11 bits at a time (least
/// significant first): what a listing sorts (a million times, then each batch's line offsets),
/// in a few passes over the keys where the standard library's merge sort compared them about
/// twenty times each and took several times as long (docs/PERFORMANCE.md §3.17).
enum RadixSort {
    private static let digitBits = 11

    /// Sorts `keys` by `bits` of each key's bit pattern (`(key >> bits.lowerBound)` masked to
    /// the range's width, as unsigned), keeping keys with equal bits in the order given. Bits
    /// outside the range are carried along, not looked at.
    static func sort(_ keys: inout [Int64], by bits: Range<Int>) {
        precondition(bits.lowerBound >= 0 && bits.upperBound <= 64, "bits of a 64-bit key")
        let n = keys.count
        guard n > 1, !bits.isEmpty else { return }
        var scratch = [Int64](repeating: 0, count: n)
        var counts = [Int](repeating: 0, count: 1 << digitBits)
        var inScratch = false
        var shift = bits.lowerBound
        while shift < bits.upperBound {
            let width = min(digitBits, bits.upperBound - shift)
            let mask = UInt64(1) << width - 1
            let moved = keys.withUnsafeMutableBufferPointer { k in
                scratch.withUnsafeMutableBufferPointer { s in
                    counts.withUnsafeMutableBufferPointer { c in
                        inScratch
                            ? pass(from: s, to: k, shift: shift, mask: mask, counts: c)
                            : pass(from: k, to: s, shift: shift, mask: mask, counts: c)
                    }
                }
            }
            if moved { inScratch.toggle() }
            shift += width
        }
        if inScratch { swap(&keys, &scratch) }
    }

    /// One counting pass by the digit at `shift`; false, with nothing moved, when every key
    /// has the same digit (the high digits of times close together).
    private static func pass(
        from source: UnsafeMutableBufferPointer<Int64>, to target: UnsafeMutableBufferPointer<Int64>, shift: Int,
        mask: UInt64, counts: UnsafeMutableBufferPointer<Int>
    ) -> Bool {
        let buckets = Int(mask) + 1
        for d in 0..<buckets { counts[d] = 0 }
        for key in source { counts[Int((UInt64(bitPattern: key) >> UInt64(shift)) & mask)] += 1 }
        if counts[Int((UInt64(bitPattern: source[0]) >> UInt64(shift)) & mask)] == source.count { return false }
        var total = 0
        for d in 0..<buckets {
            let c = counts[d]
            counts[d] = total
            total += c
        }
        for key in source {
            let d = Int((UInt64(bitPattern: key) >> UInt64(shift)) & mask)
            target[counts[d]] = key
            counts[d] += 1
        }
        return true
    }
}
