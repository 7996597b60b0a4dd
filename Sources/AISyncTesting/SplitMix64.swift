import AISync

/// A small seedable random generator (SplitMix64, Steele, Lea & Flood 2014), so a random
/// scenario can be replayed from its seed.
///
/// Not cryptographically secure: for tests and previews only. Its whole state is one
/// `UInt64`, and any seed (zero included) gives a full-period, well-mixed sequence, which is
/// why it is preferred here over xoshiro (whose all-zero state is stuck).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 bits of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
