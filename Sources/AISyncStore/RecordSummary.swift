import AISyncCore
/// What listing needs to know about a record, derived from its state.
public struct RecordSummary: Hashable, Sendable, Identifiable, Codable {
    public var id: RecordID
    public var kind: RecordKind
    /// The visible title (kept through a deletion, so deleted records still have a name).
    public var title: String
    public var created: Timestamp
    /// The time of the latest version.
    public var updated: Timestamp
    public var favorite: Bool
    public var deleted: Bool
    public var conflict: Bool
    /// Part of the record could not be read (an aisync 1 body object missing or damaged).
    public var damaged: Bool = false
}

extension RecordSummary {
    static func make(id: RecordID, state: RecordState, reader: VersionReader) -> RecordSummary {
        let title = (try? state.title { (d: SHA256Digest) throws(AISyncError) -> JSONValue in try reader.resolve(d) }) ?? ""
        return RecordSummary(id: id, kind: state.kind, title: title, created: state.created, updated: state.latestTime.timestamp,
                             favorite: !state.isDeleted && state.favorite, deleted: state.isDeleted, conflict: state.isConflict,
                             damaged: state.damaged)
    }
}
