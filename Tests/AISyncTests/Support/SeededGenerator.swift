import Foundation

/// A small, seedable generator (SplitMix64), so a failing random scenario can be replayed.
struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// AISYNC_TEST_SEED when set (to replay a failure), else a fresh random seed.
    static func seed() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["AISYNC_TEST_SEED"], let s = UInt64(text) { return s }
        return UInt64.random(in: 1...UInt64(Int64.max))
    }
}
