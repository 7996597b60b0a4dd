/// The state of one record: a pure, deterministic fold over the set of its versions
/// (records v2, docs/DESIGN.md §3.5).
///
/// - Registers (title, favorite, …, and `deleted`): per field, the versions that set it and
///   are maximal under the vector-clock order (a multi-value register). The visible value is
///   the greatest (HLC, device); more than one distinct maximal value is a conflict.
/// - The collection (messages, pages): an add-wins observed-remove set keyed by element id. A
///   `remove` drops the adds and edits its version had seen; an edit it had not seen survives,
///   and the element is then in conflict (edit against remove), never lost.
/// - Every version also writes `deleted`: `delete`/`restore` explicitly, any other edit as
///   "not deleted", so an edit concurrent with a delete is a conflict on `deleted`.
///
/// `merge` is a join (commutative, associative, idempotent): any delivery order of any
/// batches gives the same state. `MergePropertyTests` checks it against a brute-force model.
public struct RecordState: Hashable, Sendable {
    /// Who wrote something, and when.
    public struct Stamp: Hashable, Sendable {
        /// The id (content hash) of the version that wrote it.
        public var version: SHA256Digest
        /// That version's vector clock: what its device had seen when writing.
        public var clock: VectorClock
        /// That version's hybrid logical time, which decides last-writer-wins.
        public var time: HybridLogicalTime
        /// The device that wrote that version.
        public var device: DeviceID

        init(_ v: Version) {
            version = v.id
            clock = v.clock
            time = v.time
            device = v.device
        }

        /// Last-writer-wins order: greater HLC, then greater device id, then version id.
        public func winsOver(_ other: Stamp) -> Bool {
            if time != other.time { return time > other.time }
            if device != other.device { return device > other.device }
            return version.hex > other.version.hex
        }

        /// `self ≤ other` in the vector-clock order: other's version had seen this one.
        func isCovered(by other: Stamp) -> Bool { clock == other.clock || clock.isDominated(by: other.clock) }
    }

    /// One value of a field, as one version wrote it.
    public struct Entry: Hashable, Sendable {
        /// The version that wrote ``value``.
        public var stamp: Stamp
        /// What that version set the field (or element) to.
        public var value: FieldValue
    }

    /// One element of the collection.
    public struct Element: Hashable, Sendable {
        /// Maximal surviving adds and edits, winner first; empty when the element was removed.
        public internal(set) var entries: [Entry] = []
        /// Maximal removes of it.
        public internal(set) var removes: [Stamp] = []

        /// Whether the element is shown: some add or edit of it survives every remove.
        public var isVisible: Bool { !entries.isEmpty }

        /// A remove this element's surviving content had not seen: edit against remove.
        public var removedConcurrently: Bool {
            removes.contains { r in entries.contains { r.clock.isConcurrent(with: $0.stamp.clock) } }
        }
    }

    /// Whether this is a chat, story or image; versions of another kind are not merged in.
    public let kind: RecordKind
    /// Per register, its maximal entries, winner first.
    public private(set) var registers: [String: [Entry]] = [:]
    /// The collection's elements by element id (visible or not).
    public private(set) var elements: [String: Element] = [:]
    /// Every version folded in.
    public private(set) var versionIDs: Set<SHA256Digest> = []
    /// The join of every version's clock: a new local version increments it.
    public private(set) var clock = VectorClock()
    /// The greatest hybrid logical time of any version folded in (``HybridLogicalTime/zero`` when none);
    /// the record's "updated" time.
    public private(set) var latestTime: HybridLogicalTime = .zero
    /// The greatest time of a version that changed more than the `favorite` mark: the time
    /// lists sort by, so starring an old chat does not move it to the top. A version that
    /// sets `activity` (an import) counts at that time when it is earlier than its own, so
    /// years of imported history keep the order and dates the source app showed.
    public private(set) var contentTime: HybridLogicalTime = .zero
    /// ``latestTime`` with the same `activity` rule: the record's "updated" time.
    public private(set) var activityTime: HybridLogicalTime = .zero
    /// Set when an aisync 1 body could not be read, so some fields may be missing.
    public package(set) var damaged = false

    /// An empty state of `kind`, with no versions: fold versions in with ``merge(_:ops:)``.
    public init(kind: RecordKind) { self.kind = kind }

    /// Folds `versions` (each with its operations) in any order.
    public init(kind: RecordKind, _ versions: [(Version, [Operation])]) {
        self.init(kind: kind)
        for (v, ops) in versions { merge(v, ops: ops) }
    }

    /// Adds one version with its operations (for an aisync 1 version, `LegacyOperations`).
    /// Returns false when the version was already known or is of another kind.
    @discardableResult
    public mutating func merge(_ version: Version, ops: [Operation]) -> Bool {
        guard version.kind == kind, versionIDs.insert(version.id).inserted else { return false }
        // Most versions descend from the state's clock (every version of a record written on
        // one device): take theirs rather than build a joined copy.
        clock = version.clock.isDescendant(of: clock) ? version.clock : clock.joined(with: version.clock)
        // Room for every register and the elements at once (a record's first version sets
        // them all): growing the tables one insert at a time was a tenth of a merge.
        if registers.isEmpty { registers.reserveCapacity(RecordSchema.registers(kind).count + 1) }
        if elements.isEmpty, ops.count > 1 { elements.reserveCapacity(ops.count) }
        if version.time > latestTime { latestTime = version.time }
        let activity = Self.activity(version.time, ops)
        if activity > activityTime { activityTime = activity }
        if activity > contentTime, !ops.allSatisfy(Self.marksFavorite) { contentTime = activity }
        let stamp = Stamp(version)
        let deleted = ops.last { $0 == .delete || $0 == .restore } == .delete
        Self.insert(
            Entry(stamp: stamp, value: .inline(.bool(deleted))),
            into: &registers[RecordSchema.deletedField, default: []])
        for op in ops {
            switch op {
            case .set(let field, let value):
                Self.insert(Entry(stamp: stamp, value: value), into: &registers[field, default: []])
            case .add(_, let element, let value), .edit(_, let element, let value):
                var e = elements[element] ?? Element()
                if !e.removes.contains(where: { stamp.isCovered(by: $0) }) {
                    Self.insert(Entry(stamp: stamp, value: value), into: &e.entries)
                }
                elements[element] = e
            case .remove(_, let element):
                var e = elements[element] ?? Element()
                Self.insert(stamp, into: &e.removes)
                e.entries.removeAll { $0.stamp.isCovered(by: stamp) }
                elements[element] = e
            case .delete, .restore:
                break
            }
        }
        return true
    }

    /// When a version's change happened: its time, or the `activity` it sets (the source
    /// app's last activity, written by an import) when that is earlier.
    static func activity(_ time: HybridLogicalTime, _ ops: [Operation]) -> HybridLogicalTime {
        for op in ops {
            guard case .set(RecordSchema.activityField, .inline(.string(let text))) = op,
                let at = Timestamp(iso8601: text), at.milliseconds < time.wall
            else { continue }
            return HybridLogicalTime(wall: at.milliseconds, counter: 0)
        }
        return time
    }

    static func marksFavorite(_ op: Operation) -> Bool {
        if case .set("favorite", _) = op { return true }
        return false
    }

    /// Keeps `list` the maximal entries (winner first) after adding `entry`. Two entries with
    /// the same clock can only come from a faulty device; the last writer of them is kept, so
    /// the result is still the same in any order.
    static func insert(_ entry: Entry, into list: inout [Entry]) {
        if let same = list.firstIndex(where: { $0.stamp.clock == entry.stamp.clock }) {
            guard entry.stamp.winsOver(list[same].stamp) else { return }
            list[same] = entry
        } else {
            if list.contains(where: { entry.stamp.clock.isDominated(by: $0.stamp.clock) }) { return }
            list.removeAll { $0.stamp.clock.isDominated(by: entry.stamp.clock) }
            list.append(entry)
        }
        list.sort { $0.stamp.winsOver($1.stamp) }
    }

    static func insert(_ stamp: Stamp, into list: inout [Stamp]) {
        var entries = list.map { Entry(stamp: $0, value: .inline(.null)) }
        insert(Entry(stamp: stamp, value: .inline(.null)), into: &entries)
        list = entries.map(\.stamp)
    }

    // MARK: - Reading

    /// The visible value of a register (nil when no version set it).
    public func value(_ field: String) -> FieldValue? { registers[field]?.first?.value }

    /// Whether the visible value of the `deleted` register is true (the record was deleted
    /// and not restored since); its versions are all kept.
    public var isDeleted: Bool { value(RecordSchema.deletedField) == .inline(.bool(true)) }

    /// A rough measure of the memory this state holds, in units of about 200 bytes (an
    /// element or a field; four version ids), for a cache of states to stay within a budget.
    package var footprint: Int { 4 + elements.count + registers.count + versionIDs.count / 4 }

    /// Element ids that are visible (not removed), unordered.
    public var visibleElements: [String] { elements.filter(\.value.isVisible).map(\.key) }

    /// The version that wrote the visible value of `field` (for `created`, the creator).
    public func writer(of field: String) -> Stamp? { registers[field]?.first?.stamp }
}
