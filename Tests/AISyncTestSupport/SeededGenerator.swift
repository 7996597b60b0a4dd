import AISyncTesting
import Foundation

/// The seedable generator of the randomized suites: AISyncTesting's `SplitMix64` (the same
/// algorithm `AISyncEnvironment.test(seed:)` draws from), so a failing random scenario can be
/// replayed from its seed.
package typealias SeededGenerator = SplitMix64

extension SplitMix64 {
    /// AISYNC_TEST_SEED when set (to replay a failure), else a fresh random seed.
    package static func seed() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["AISYNC_TEST_SEED"], let s = UInt64(text) { return s }
        return UInt64.random(in: 1...UInt64(Int64.max))
    }
}
