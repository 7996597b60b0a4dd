/// Everything the store knows, in memory: every record's state and summary, and how far into
/// the journal that knowledge reaches.
///
/// States loaded from the index stay encoded until a command needs them: listing 100,000
/// records reads only their summaries.
struct StoreSnapshot: Sendable {
    private var decoded: [RecordID: RecordState] = [:]
    /// Sibling lists as the index stores them, decoded on first use.
    private var encoded: [RecordID: ArraySlice<UInt8>] = [:]
    var summaries: [RecordID: RecordSummary] = [:]
    /// Bytes and lines of the journal reflected here.
    var journalOffset: Int64 = 0
    var journalLines: Int = 0
    /// The latest HLC of any version seen, so the next local time is later.
    var latestTime: HybridLogicalTime = .zero

    init() {}

    /// A snapshot read from the index: summaries decoded, states still encoded.
    init(summaries: [RecordID: RecordSummary], encoded: [RecordID: ArraySlice<UInt8>]) {
        self.summaries = summaries
        self.encoded = encoded
    }

    var recordIDs: Dictionary<RecordID, RecordSummary>.Keys { summaries.keys }

    /// The state of one record (decoding it from the index form when needed).
    func state(_ id: RecordID) -> RecordState? {
        if let state = decoded[id] { return state }
        guard let raw = encoded[id], let kind = summaries[id]?.kind else { return nil }
        return IndexFile.decodeSiblings(raw, record: id, kind: kind)
    }

    /// The encoded sibling list when the state was never decoded (the index writes it as is).
    func encodedState(_ id: RecordID) -> ArraySlice<UInt8>? { decoded[id] == nil ? encoded[id] : nil }

    /// Summarizes again the records whose body could not be read last time: the object may
    /// have been restored since (a damaged summary must never stick in the index).
    mutating func retryDamaged(objects: ObjectStore) {
        for (id, summary) in summaries where summary.damaged {
            guard let state = state(id) else { continue }
            summaries[id] = RecordSummary.make(id: id, state: state, objects: objects)
        }
    }

    /// Merges versions (in journal order) and refreshes the summaries of records that changed.
    mutating func apply(_ versions: [Version], objects: ObjectStore) {
        var changed: Set<RecordID> = []
        for v in versions {
            var current = state(v.record) ?? RecordState()
            if current.merge(v) {
                decoded[v.record] = current
                encoded[v.record] = nil
                changed.insert(v.record)
            }
            if v.time > latestTime { latestTime = v.time }
        }
        for id in changed {
            summaries[id] = decoded[id].flatMap { RecordSummary.make(id: id, state: $0, objects: objects) }
        }
    }
}
