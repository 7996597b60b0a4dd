/// Everything the store knows, in memory: every record's state and summary, and how far into
/// the journal that knowledge reaches.
struct StoreSnapshot: Sendable {
    var states: [RecordID: RecordState] = [:]
    var summaries: [RecordID: RecordSummary] = [:]
    /// Bytes and lines of the journal reflected here.
    var journalOffset: Int64 = 0
    var journalLines: Int = 0
    /// The latest HLC of any version seen, so the next local time is later.
    var latestTime: HybridLogicalTime = .zero

    /// Merges versions (in journal order) and refreshes the summaries of records that changed.
    mutating func apply(_ versions: [Version], objects: ObjectStore) {
        var changed: Set<RecordID> = []
        for v in versions {
            if states[v.record, default: RecordState()].merge(v) { changed.insert(v.record) }
            if v.time > latestTime { latestTime = v.time }
        }
        for id in changed {
            summaries[id] = states[id].flatMap { RecordSummary.make(id: id, state: $0, objects: objects) }
        }
    }
}
