import AISyncCore
import Dispatch
import Synchronization

/// Everything the store knows: the index as last written (``IndexBase``, read in place), the
/// records changed since (summary and journal lines, in memory), the states decoded so far,
/// and how far into the journal that reaches.
///
/// States are a fold of a record's versions (docs/DESIGN.md §3.5) and are made only when a command
/// needs them: listing 100,000 records reads only their summaries. The changed records are
/// written into a new index once they are many (``Store/overlayLimit``), so what is held in
/// memory is bounded by a batch, not by the store.
package struct StoreSnapshot: Sendable {
    private var base: IndexBase?
    /// A record changed since `base`: its summary and journal lines, and what `base` said
    /// (to keep the counts right without reading `base` again).
    struct Changed: Sendable {
        var summary: RecordSummary
        var refs: [Journal.LineRef]
        var inBase = false, wasConflict = false, wasDamaged = false
    }
    private var changed: [RecordID: Changed] = [:]
    private var decoded: [RecordID: RecordState] = [:]
    /// Bytes and lines of the journal reflected here.
    var journalOffset: Int64 = 0
    var journalLines: Int = 0
    /// The latest HLC of any version seen, so the next local time is later.
    var latestTime: HybridLogicalTime = .zero

    /// The ids in `base` when this process wrote all of it (from an empty store or a
    /// rebuild) or it was empty when read; nil for an index read from disk with records,
    /// whose ids are not known. (A new store has an empty index: without this, a restore
    /// into it searches that index three times per record; docs/PERFORMANCE.md.)
    private var baseIDs: IDFilter? = IDFilter()

    init() {}

    /// A snapshot of the index on disk, nothing changed yet.
    init(base: IndexBase) {
        self.base = base
        baseIDs = base.header.records == 0 ? IDFilter() : nil
        journalOffset = base.header.journalOffset
        journalLines = base.header.journalLines
        latestTime = HybridLogicalTime(wall: base.header.wall, counter: base.header.counter)
    }

    /// How many records changed since the index was written (what ``Store`` bounds).
    var changedCount: Int { changed.count }
    /// Journal lines a record may have for its state to be dropped between batches (decoding
    /// it again is cheap).
    static let shortHistory = 4
    /// The footprint (``RecordState/footprint``, about 200 bytes a unit) of the states kept
    /// between batches: about 8 MB.
    static let keptStates = 40_000
    /// How many records the index on disk holds.
    var baseCount: Int { base?.header.records ?? 0 }

    /// Takes a freshly written index as the base: the changed records are in it now.
    mutating func rebase(_ written: IndexBase) {
        base = written
        if baseIDs != nil { for id in changed.keys { baseIDs!.insert(id) } }
        changed.removeAll()
    }

    /// The record's entry in `base`, without searching it for a record it surely lacks.
    private func findInBase(_ id: RecordID) throws(AISyncError) -> IndexBase.Entry? {
        if let baseIDs, !baseIDs.mayContain(id) { return nil }
        return try base?.find(id)
    }

    /// Records, records in conflict, and records partly unreadable.
    var counts: (records: Int, conflicts: Int, damaged: Int) {
        var records = base?.header.records ?? 0
        var conflicts = base?.header.conflicts ?? 0
        var damaged = base?.header.damaged ?? 0
        for c in changed.values {
            if !c.inBase { records += 1 }
            conflicts += (c.summary.conflict ? 1 : 0) - (c.wasConflict ? 1 : 0)
            damaged += (c.summary.damaged ? 1 : 0) - (c.wasDamaged ? 1 : 0)
        }
        return (records, conflicts, damaged)
    }

    /// One record's summary; nil when there is no such record.
    func summary(_ id: RecordID) throws(AISyncError) -> RecordSummary? {
        if let c = changed[id] { return c.summary }
        return try findInBase(id)?.summary
    }

    /// Every record's summary, in id order.
    func forEachSummary(_ body: (RecordSummary) throws(AISyncError) -> Void) throws(AISyncError) {
        try forEachLine(
            unchanged: { (line: UnsafeRawBufferPointer, _: Int) throws(AISyncError) in
                guard let (summary, _) = IndexFile.parseSummary(line) else { throw IndexBase.damaged }
                try body(summary)
            },
            changed: { (s: RecordSummary, _: [Journal.LineRef]) throws(AISyncError) in try body(s) })
    }

    /// Where a listed record is: a line of the base, by where it starts in the file (read
    /// again by ``IndexBase/summary(atOffset:)``), or a record changed since, with its summary.
    enum Listed {
        case line(offset: Int)
        case changed(RecordSummary)
    }

    /// Every record in id order with what a listing filters and sorts by, and where it is:
    /// lines of the base are not made into summaries (no id or title strings).
    func forEachListed(
        _ body: (_ kind: RecordKind, _ updated: Int64, _ deleted: Bool, Listed) throws(AISyncError) -> Void
    ) throws(AISyncError) {
        try forEachLine(
            unchanged: { (line: UnsafeRawBufferPointer, offset: Int) throws(AISyncError) in
                guard let key = IndexFile.parseListKey(line) else { throw IndexBase.damaged }
                try body(key.kind, key.updated, key.deleted, .line(offset: offset))
            },
            changed: { (s: RecordSummary, _: [Journal.LineRef]) throws(AISyncError) in
                try body(s.kind, s.updated.milliseconds, s.deleted, .changed(s))
            })
    }

    /// The index this snapshot reads in place (what a ``RecordListing`` reads from).
    var indexBase: IndexBase? { base }

    /// The ids of the records whose summary passes `include`, in id order.
    package func ids(where include: (RecordSummary) -> Bool) throws(AISyncError) -> [RecordID] {
        var result: [RecordID] = []
        try forEachSummary { (s: RecordSummary) throws(AISyncError) in if include(s) { result.append(s.id) } }
        return result
    }

    /// The ids of the records of `kind` whose summary passes `include`, in id order: a line
    /// of the base of another kind is passed over without making its summary.
    package func ids(of kind: RecordKind, where include: (RecordSummary) -> Bool) throws(AISyncError) -> [RecordID] {
        var result: [RecordID] = []
        try forEachLine(
            unchanged: { (line: UnsafeRawBufferPointer, _: Int) throws(AISyncError) in
                guard let key = IndexFile.parseListKey(line) else { throw IndexBase.damaged }
                guard key.kind == kind else { return }
                guard let (summary, _) = IndexFile.parseSummary(line) else { throw IndexBase.damaged }
                if include(summary) { result.append(summary.id) }
            },
            changed: { (s: RecordSummary, _: [Journal.LineRef]) throws(AISyncError) in
                if s.kind == kind, include(s) { result.append(s.id) }
            })
        return result
    }

    /// Every record in id order: the index's own line when it did not change (`unchanged`,
    /// with where it starts in the index file), else its summary and journal lines (`changed`).
    func forEachLine(
        unchanged: (UnsafeRawBufferPointer, Int) throws(AISyncError) -> Void,
        changed onChanged: (RecordSummary, [Journal.LineRef]) throws(AISyncError) -> Void
    ) throws(AISyncError) {
        // The ids alone are sorted (sorting the entries moved and retained all they hold).
        let extra = changed.keys.sorted()
        var next = 0
        func emitChanged(before key: UnsafeRawBufferPointer?) throws(AISyncError) -> Bool {
            while next < extra.count {
                let id = extra[next]
                let order = key.map { Self.compare(id, $0) } ?? -1
                if order > 0 { return false }
                if let entry = changed[id] { try onChanged(entry.summary, entry.refs) }
                next += 1
                if order == 0 { return true }
            }
            return false
        }
        try base?.forEachLine { (bytes: UnsafeRawBufferPointer, idLength: Int, offset: Int) throws(AISyncError) in
            if try emitChanged(before: UnsafeRawBufferPointer(rebasing: bytes[..<idLength])) { return }
            try unchanged(bytes, offset)
        }
        _ = try emitChanged(before: nil)
    }

    /// The lines of the changed records in id order, encoded on up to `parts` cores, when
    /// there is no index on disk to merge them with (a first pull or import into a new store)
    /// and there are enough of them to split; nil otherwise (``forEachLine`` then streams
    /// them). Each part is its lines' bytes and where each line starts in them.
    func changedLinesInParts(_ parts: Int, from: Int, upTo: Int) -> [(bytes: [UInt8], starts: [Int])]? {
        guard (base?.header.records ?? 0) == 0, parts > 1, (from...upTo).contains(changed.count) else { return nil }
        let ids = changed.keys.sorted()
        let changed = changed
        let made = Mutex<[(bytes: [UInt8], starts: [Int])?]>(Array(repeating: nil, count: parts))
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(ids.count / parts * 128)
            var starts: [Int] = []
            for id in ids[(ids.count * part / parts)..<(ids.count * (part + 1) / parts)] {
                guard let entry = changed[id] else { continue }
                starts.append(bytes.count)
                IndexFile.encode(entry.summary, refs: entry.refs, into: &bytes)
            }
            made.withLock { $0[part] = (bytes, starts) }
        }
        return made.withLock { $0 }.compactMap { $0 }
    }

    /// Compares an id with the id bytes of an index line, byte by byte.
    private static func compare(_ id: RecordID, _ key: UnsafeRawBufferPointer) -> Int {
        var id = id.rawValue
        return id.withUTF8 { a in
            for n in 0..<min(a.count, key.count) where a[n] != key[n] { return a[n] < key[n] ? -1 : 1 }
            return a.count == key.count ? 0 : (a.count < key.count ? -1 : 1)
        }
    }

    /// The journal lines of one record; nil when there is no such record.
    func lineRefs(_ id: RecordID) throws(AISyncError) -> [Journal.LineRef]? {
        if let c = changed[id] { return c.refs }
        guard let entry = try findInBase(id) else { return nil }
        guard let refs = IndexFile.decodeRefs(entry.encodedRefs) else { throw IndexBase.damaged }
        return refs
    }

    /// The state of one record, folded from its journal lines when not decoded yet.
    func state(_ id: RecordID, reader: VersionReader) throws(AISyncError) -> RecordState? {
        if let state = decoded[id] { return state }
        return try folded(id, reader: reader)?.state
    }

    /// The state of a record not decoded yet, folded from its journal lines as changed or as
    /// the index on disk has them, with the index's entry when it came from there.
    private func folded(_ id: RecordID, reader: VersionReader) throws(AISyncError) -> (
        state: RecordState, base: Changed?
    )? {
        if let c = changed[id] { return (try reader.state(kind: c.summary.kind, refs: c.refs), nil) }
        guard let entry = try baseEntry(id) else { return nil }
        return (try reader.state(kind: entry.summary.kind, refs: entry.refs), entry)
    }

    /// Summarizes again the records whose body could not be read last time: the object may
    /// have been restored since (a damaged summary must never stick in the index).
    mutating func retryDamaged(reader: VersionReader) throws(AISyncError) {
        guard let base, (base.header.damaged ?? 0) > 0 else { return }
        var damaged: [RecordID] = []
        try forEachSummary { (s: RecordSummary) throws(AISyncError) in if s.damaged { damaged.append(s.id) } }
        for id in damaged {
            guard let state = try? state(id, reader: reader), var c = try changedEntry(id) else { continue }
            c.summary = RecordSummary.make(id: id, state: state, reader: reader)
            changed[id] = c
        }
    }

    /// A record's entry to change: as changed already, or as the index has it.
    private func changedEntry(_ id: RecordID) throws(AISyncError) -> Changed? {
        if let c = changed[id] { return c }
        return try baseEntry(id)
    }

    /// What the index on disk says of a record, as a change to make to it.
    private func baseEntry(_ id: RecordID) throws(AISyncError) -> Changed? {
        guard let entry = try findInBase(id) else { return nil }
        guard let refs = IndexFile.decodeRefs(entry.encodedRefs) else { throw IndexBase.damaged }
        return Changed(
            summary: entry.summary, refs: refs, inBase: true, wasConflict: entry.summary.conflict,
            wasDamaged: entry.summary.damaged)
    }

    /// Folds versions (in journal order, each with its line) and refreshes the summaries of
    /// records that changed. A version of another kind than its record's first is ignored:
    /// a record's kind is fixed when it is created.
    ///
    /// A record new to the store is not folded when it comes once: its summary is read from
    /// its one version (``RecordState/Single``), and a state is made only if another version
    /// of it follows (most records of a pull or an import of new records have one version
    /// there; docs/PERFORMANCE.md 3.14). A later command that needs the state folds it from
    /// the journal, as after ``dropDecodedStates()``.
    mutating func apply(_ versions: some Collection<(version: Version, ref: Journal.LineRef)>, reader: VersionReader)
        throws(AISyncError)
    {
        try apply(versions.map(\.version), refs: versions.map(\.ref), reader: reader)
    }

    /// The same, the versions and their lines side by side (read in place: a copy of each
    /// version would retain all it holds).
    mutating func apply(_ versions: [Version], refs: [Journal.LineRef], reader: VersionReader) throws(AISyncError) {
        var touched: Set<RecordID> = []
        touched.reserveCapacity(versions.count)
        var singles: [RecordID: RecordState.Single] = [:]
        singles.reserveCapacity(versions.count)
        for i in versions.indices {
            let ref = refs[i]
            let record = versions[i].record
            if versions[i].time > latestTime { latestTime = versions[i].time }
            // The index on disk is searched once per record (most records of a rebuild are
            // new, and a miss costs a binary search), and a decoded state is taken out, not
            // copied: merging into a copy would copy its dictionaries.
            var fromBase: Changed?
            var current: RecordState
            let wasDecoded: Bool
            var keep = false
            if let known = decoded.removeValue(forKey: record) {
                current = known
                wasDecoded = true
            } else if let single = singles.removeValue(forKey: record) {
                // A second version of a record first met in these versions: both are folded.
                wasDecoded = false
                keep = true
                current = RecordState(kind: single.version.kind)
                current.merge(single.version, ops: single.ops)
            } else {
                wasDecoded = false
                if let (state, base) = try folded(record, reader: reader) {
                    (current, fromBase) = (state, base)
                } else if case .operations(let ops) = versions[i].payload {
                    singles[record] = RecordState.Single(versions[i], ops: ops)
                    changed[record] = Changed(summary: Self.placeholder(record, versions[i].kind), refs: [ref])
                    touched.insert(record)
                    continue
                } else {
                    current = RecordState(kind: versions[i].kind)
                }
            }
            let merged = reader.merge(versions[i], into: &current)
            if merged {
                // A state decoded before the index was last written has no change entry.
                if fromBase == nil, wasDecoded, changed[record] == nil { fromBase = try baseEntry(record) }
                // One lookup, the entry made only when missing; its lines appended in place
                // (taken out of `fromBase`, so a long history is not copied per version).
                changed[
                    record,
                    default: fromBase.take() ?? Changed(summary: Self.placeholder(record, versions[i].kind), refs: [])
                ]
                .refs.append(ref)
                touched.insert(record)
            }
            if merged || wasDecoded || keep { decoded[record] = current }
        }
        refreshSummaries(touched, singles: singles, reader: reader)
    }

    /// The summaries of the records `apply` changed, from their decoded states or their one
    /// version.
    private mutating func refreshSummaries(
        _ touched: Set<RecordID>, singles: [RecordID: RecordState.Single], reader: VersionReader
    ) {
        for id in touched {
            let summary: RecordSummary
            if let state = decoded[id] {
                summary = RecordSummary.make(id: id, state: state, reader: reader)
            } else if let single = singles[id] {
                summary = RecordSummary.make(id: id, single: single, reader: reader)
            } else {
                continue
            }
            // Taken out and put back: changed in place through `changed[id]?` it allocated.
            guard var entry = changed.removeValue(forKey: id) else { continue }
            entry.summary = summary
            changed[id] = entry
        }
    }

    /// A change entry's summary until the record's versions are folded.
    private static func placeholder(_ id: RecordID, _ kind: RecordKind) -> RecordSummary {
        RecordSummary(
            id: id, kind: kind, title: "", created: .init(milliseconds: 0), updated: .init(milliseconds: 0),
            favorite: false, deleted: false, conflict: false)
    }

    /// Forgets decoded states between the batches of a long catch-up, pull or import, so
    /// memory stays about a batch: a state is rebuilt from the journal when a later batch
    /// needs it. States of records with a long history are kept, the longest first, up to
    /// ``keptStates``: rebuilding one reads every line of it, in every window that touches
    /// it (docs/PERFORMANCE.md). The index's pages the lookups brought in are handed back too.
    mutating func dropDecodedStates() {
        var long: [(id: RecordID, lines: Int, footprint: Int)] = []
        for (id, state) in decoded where state.versionIDs.count > Self.shortHistory {
            long.append((id, state.versionIDs.count, state.footprint))
        }
        var kept: [RecordID: RecordState] = [:]
        if !long.isEmpty {
            long.sort { $0.lines > $1.lines }
            var spent = 0
            for record in long {
                spent += record.footprint
                guard spent <= Self.keptStates else { break }
                kept[record.id] = decoded[record.id]
            }
        }
        // Freed here, not on another thread: a pull trims the heap right after this, and
        // frees still queued then raise the peak for no time gained (docs/PERFORMANCE.md).
        decoded = kept
        base?.releasePages()
    }
}
