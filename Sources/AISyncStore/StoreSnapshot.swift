import AISyncCore
/// Everything the store knows, in memory: every record's summary and where its versions sit
/// in the journal, the states decoded so far, and how far into the journal that reaches.
///
/// States are a fold of a record's versions (design §3) and are made only when a command
/// needs them: listing 100,000 records reads only their summaries.
package struct StoreSnapshot: Sendable {
    private var decoded: [RecordID: RecordState] = [:]
    /// Journal lines of each record; from the index they stay encoded until used.
    private var refs: [RecordID: [Journal.LineRef]] = [:]
    private var encodedRefs: [RecordID: ArraySlice<UInt8>] = [:]
    package var summaries: [RecordID: RecordSummary] = [:]
    /// Bytes and lines of the journal reflected here.
    var journalOffset: Int64 = 0
    var journalLines: Int = 0
    /// The latest HLC of any version seen, so the next local time is later.
    var latestTime: HybridLogicalTime = .zero

    init() {}

    /// A snapshot read from the index: summaries decoded, line lists still encoded.
    init(summaries: [RecordID: RecordSummary], encoded: [RecordID: ArraySlice<UInt8>]) {
        self.summaries = summaries
        encodedRefs = encoded
    }

    var recordIDs: Dictionary<RecordID, RecordSummary>.Keys { summaries.keys }

    /// The journal lines of one record; nil when the index's list is malformed.
    func lineRefs(_ id: RecordID) -> [Journal.LineRef]? {
        if let r = refs[id] { return r }
        guard let raw = encodedRefs[id] else { return nil }
        return IndexFile.decodeRefs(raw)
    }

    /// The encoded line list when it was never decoded (the index writes it as is).
    func encodedLineRefs(_ id: RecordID) -> ArraySlice<UInt8>? { refs[id] == nil ? encodedRefs[id] : nil }

    /// The state of one record, folded from its journal lines when not decoded yet.
    func state(_ id: RecordID, reader: VersionReader) throws(AISyncError) -> RecordState? {
        if let state = decoded[id] { return state }
        guard let kind = summaries[id]?.kind else { return nil }
        guard let lines = lineRefs(id) else {
            throw AISyncError(.temporary, "the store's index is damaged (the lines of \(id))", hint: "Run the command again; the index is rebuilt from the journal")
        }
        return try reader.state(kind: kind, refs: lines)
    }

    /// Summarizes again the records whose body could not be read last time: the object may
    /// have been restored since (a damaged summary must never stick in the index).
    mutating func retryDamaged(reader: VersionReader) {
        for (id, summary) in summaries where summary.damaged {
            guard let state = try? state(id, reader: reader) else { continue }
            summaries[id] = RecordSummary.make(id: id, state: state, reader: reader)
        }
    }

    /// Folds versions (in journal order, each with its line) and refreshes the summaries of
    /// records that changed. A version of another kind than its record's first is ignored:
    /// a record's kind is fixed when it is created.
    mutating func apply(_ versions: [(version: Version, ref: Journal.LineRef)], reader: VersionReader) throws(AISyncError) {
        var changed: Set<RecordID> = []
        for (v, ref) in versions {
            var current = try state(v.record, reader: reader) ?? RecordState(kind: v.kind)
            if reader.merge(v, into: &current) {
                if refs[v.record] == nil { refs[v.record] = lineRefs(v.record) ?? [] }
                refs[v.record]?.append(ref)
                encodedRefs[v.record] = nil
                decoded[v.record] = current
                changed.insert(v.record)
            }
            if v.time > latestTime { latestTime = v.time }
        }
        for id in changed {
            summaries[id] = decoded[id].map { RecordSummary.make(id: id, state: $0, reader: reader) }
        }
    }

    /// Forgets decoded states (they are rebuilt from the journal on demand), keeping memory
    /// bounded after a large pull.
    mutating func dropDecodedStates() { decoded.removeAll(keepingCapacity: false) }
}
