/// Finding, eight bytes at a time, where a JSON string's plain text stops: the bytes that a
/// string cannot hold raw (a quote, a backslash, a control character). Most of what aisync
/// reads and writes is message text, so the parser, the canonical writer and the length
/// counter all skip through it with this rather than byte by byte.
enum JSONStringScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Whether any of the eight bytes of `word` is below 0x20, `"` or `\`. The classic
    /// "has zero byte" and "has byte less than" tests: exact for the word as a whole.
    @inline(__always)
    static func hasSpecial(_ word: UInt64) -> Bool {
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        let control = (word &- ones &* 0x20) & ~word
        return (zeroQuote | zeroBackslash | control) & highs != 0
    }

    /// Whether `byte` may not appear raw in a JSON string.
    @inline(__always)
    static func isSpecial(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C }

    /// The index of the first byte at or after `start` that may not appear raw in a JSON
    /// string, or `bytes.count` when there is none.
    static func nextSpecial(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        plainRun(bytes, from: start).end
    }

    /// Where the run of plain bytes from `start` ends (as ``nextSpecial(_:from:)``), and
    /// whether the run is all ASCII: one pass for the parser, which needs both.
    static func plainRun(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, ascii: Bool) {
        guard let base = bytes.baseAddress else { return (start, true) }
        let end = bytes.count
        var p = start
        var high: UInt64 = 0
        // (Swift's SIMD16<UInt8> here made a whole import 2.5x slower than these words.)
        while p + 8 <= end {
            let word = UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self)
            if hasSpecial(word) { break }
            high |= word
            p += 8
        }
        while p < end, !isSpecial(base[p]) {
            high |= UInt64(base[p])
            p += 1
        }
        return (p, high & highs == 0)
    }
}
