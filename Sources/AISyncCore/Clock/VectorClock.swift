/// A per-record vector clock: device → number of versions that device has written.
///
/// It gives the partial order "happened before" between versions; concurrent versions are
/// the siblings of a conflict (docs/DESIGN.md §3.4).
public struct VectorClock: Hashable, Sendable {
    /// How many versions of this record each device has written; devices at 0 are left out.
    public private(set) var counters: [DeviceID: Int64]

    /// A clock with the given counters; entries of 0 or less are dropped.
    public init(_ counters: [DeviceID: Int64] = [:]) { self.counters = counters.filter { $0.value > 0 } }

    /// A clock whose counters are all known to be ≥ 1 (a parsed line's).
    init(positive counters: [DeviceID: Int64]) { self.counters = counters }

    /// The counter for `device`, 0 when it has not written this record.
    public subscript(device: DeviceID) -> Int64 { counters[device] ?? 0 }

    /// The least clock that is ≥ both (component-wise max).
    public func joined(with other: VectorClock) -> VectorClock {
        VectorClock(counters.merging(other.counters, uniquingKeysWith: max))
    }

    /// This clock with `device`'s counter increased by one.
    public func incremented(for device: DeviceID) -> VectorClock {
        var c = counters
        c[device, default: 0] += 1
        return VectorClock(c)
    }

    /// `self ≥ other` component-wise: self has seen everything other has.
    public func isDescendant(of other: VectorClock) -> Bool {
        other.counters.allSatisfy { self[$0.key] >= $0.value }
    }

    /// `self < other`: other has seen everything self has, and more.
    public func isDominated(by other: VectorClock) -> Bool {
        self != other && other.isDescendant(of: self)
    }

    /// Neither clock has seen everything the other has: the two versions were written
    /// independently, so their differing fields are a conflict.
    public func isConcurrent(with other: VectorClock) -> Bool {
        !isDescendant(of: other) && !other.isDescendant(of: self)
    }

    var json: JSONValue {
        .object(JSONObject(uniqueKeysWithValues: counters.map { ($0.key.rawValue, .int($0.value)) }))
    }

    init(json: JSONValue) throws(AISyncError) {
        guard case .object(let members) = json, !members.isEmpty else {
            throw .damaged("vector clock must be a non-empty object")
        }
        var counters: [DeviceID: Int64] = [:]
        for (key, value) in members {
            guard let device = DeviceID(key) else { throw .damaged("vector clock key \"\(key)\" is not a device id") }
            guard case .int(let n) = value, n >= 1 else {
                throw .damaged("vector clock counter for \(key) must be an integer ≥ 1")
            }
            counters[device] = n
        }
        self.counters = counters
    }
}
