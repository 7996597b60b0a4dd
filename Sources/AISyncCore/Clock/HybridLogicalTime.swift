/// A hybrid logical clock reading: wall-clock milliseconds plus a logical counter.
///
/// HLC orders writers for last-writer-wins. Unlike the raw wall clock it never goes backwards
/// on a device and always moves past every time the device has seen, so a machine whose clock
/// is wrong cannot keep winning with stale edits once others have seen them (docs/DESIGN.md §3.4).
public struct HybridLogicalTime: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Physical time in milliseconds since 1970-01-01T00:00:00Z (not seconds).
    public var wall: Int64
    /// Logical counter that orders readings sharing the same ``wall`` millisecond.
    public var counter: Int64

    /// A reading at `wall` milliseconds since the epoch, with logical `counter` (0 for a fresh millisecond).
    public init(wall: Int64, counter: Int64 = 0) {
        self.wall = wall
        self.counter = counter
    }

    /// The least reading (wall 0, counter 0): no valid reading is earlier.
    public static let zero = HybridLogicalTime(wall: 0)

    /// Orders by ``wall`` time, then by ``counter``.
    public static func < (a: Self, b: Self) -> Bool { (a.wall, a.counter) < (b.wall, b.counter) }

    /// The next local reading after `self`, given the physical time `now` (milliseconds).
    public func tick(now: Int64) -> HybridLogicalTime {
        now > wall ? HybridLogicalTime(wall: now, counter: 0) : HybridLogicalTime(wall: wall, counter: counter + 1)
    }

    /// The reading after receiving `remote`: later than both.
    public func receiving(_ remote: HybridLogicalTime, now: Int64) -> HybridLogicalTime {
        max(self, remote).tick(now: now)
    }

    /// The ``wall`` part as a ``Timestamp``; the logical counter is dropped.
    public var timestamp: Timestamp { Timestamp(milliseconds: wall) }
    /// The wall time in ISO 8601 followed by `+counter`, e.g. `2026-11-29T12:00:00.000Z+1`.
    public var description: String { "\(timestamp.iso8601)+\(counter)" }

    var json: JSONValue { .object(["t": .int(wall), "c": .int(counter)]) }

    init(json: JSONValue) throws(AISyncError) {
        var r = try JSONObjectReader(json, context: "hlc")
        wall = try r.int("t")
        counter = try r.int("c")
        guard wall >= 0, counter >= 0 else { throw .damaged("hlc values must be ≥ 0") }
        try r.finish()
    }
}
