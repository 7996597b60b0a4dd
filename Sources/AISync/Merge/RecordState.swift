/// The state of one record: its maximal versions under the vector-clock order.
///
/// A multi-value register (design §3). `merge` is a join: commutative, associative and
/// idempotent, so any delivery order of any batches converges. More than one sibling is a
/// conflict; the visible value is the last writer, and the losers are kept.
public struct RecordState: Hashable, Sendable {
    /// Maximal versions, sorted winner first.
    public private(set) var siblings: [Version]

    public init() { siblings = [] }

    public init<S: Sequence>(_ versions: S) where S.Element == Version {
        self.init()
        for v in versions { merge(v) }
    }

    public var winner: Version? { siblings.first }
    public var isConflict: Bool { siblings.count > 1 }
    public var isDeleted: Bool { winner?.isDeleted ?? true }

    /// The clock that dominates every sibling: the base for the next local version.
    public var joinedClock: VectorClock {
        siblings.reduce(VectorClock()) { $0.joined(with: $1.clock) }
    }

    /// The latest HLC among siblings; a new local version must be later.
    public var latestTime: HybridLogicalTime { siblings.map(\.time).max() ?? .zero }

    /// Adds one version. Returns true when the state changed.
    @discardableResult
    public mutating func merge(_ version: Version) -> Bool {
        if siblings.contains(where: { $0.id == version.id || version.clock.isDominated(by: $0.clock) || $0.clock == version.clock }) {
            // Already known, dominated, or an identical clock (same writer event): nothing new.
            // Equal clocks with different content cannot come from a correct device (a device
            // never reuses a counter); keeping the last-writer of the two keeps the join deterministic.
            guard let same = siblings.firstIndex(where: { $0.clock == version.clock && $0.id != version.id }),
                  version.winsOver(siblings[same]) else { return false }
            siblings[same] = version
            sort()
            return true
        }
        siblings.removeAll { $0.clock.isDominated(by: version.clock) }
        siblings.append(version)
        sort()
        return true
    }

    public mutating func merge(_ other: RecordState) {
        for v in other.siblings { merge(v) }
    }

    private mutating func sort() {
        siblings.sort { $0.winsOver($1) }
    }
}
