import AISyncCore

/// What listing needs to know about a record, derived from its state.
public struct RecordSummary: Hashable, Sendable, Identifiable, Codable {
    /// The record this summarizes; also its `Identifiable` identity, stable across edits and devices.
    public var id: RecordID
    /// Whether it is a chat, story or image.
    public var kind: RecordKind
    /// The visible title (kept through a deletion, so deleted records still have a name).
    public var title: String
    /// When the record was created.
    public var created: Timestamp
    /// The time of the latest change to its content, deletion included; marking it a
    /// favorite does not count (lists sort by this, and a star must not reorder them).
    public var updated: Timestamp
    /// Whether it is marked as a favorite; always false for a deleted record.
    public var favorite: Bool
    /// Whether the record is deleted (it can still be restored).
    public var deleted: Bool
    /// Whether some field has competing values from concurrent edits (see `Store.conflicts`).
    public var conflict: Bool
    /// Part of the record could not be read (an aisync 1 body object missing or damaged).
    public var damaged: Bool = false
}

extension RecordSummary {
    static func make(id: RecordID, state: RecordState, reader: VersionReader) -> RecordSummary {
        let title =
            (try? state.title { (d: SHA256Digest) throws(AISyncError) -> JSONValue in try reader.resolve(d) }) ?? ""
        return RecordSummary(
            id: id, kind: state.kind, title: title, created: state.created,
            updated: (state.contentTime == .zero ? state.latestTime : state.contentTime).timestamp,
            favorite: !state.isDeleted && state.favorite, deleted: state.isDeleted, conflict: state.isConflict,
            damaged: state.damaged)
    }

    /// The summary of a record with one version, read from its operations (the same as
    /// from the state folded from it, which would have no conflict and no damage).
    static func make(id: RecordID, single: RecordState.Single, reader: VersionReader) -> RecordSummary {
        let title =
            (try? single.title { (d: SHA256Digest) throws(AISyncError) -> JSONValue in try reader.resolve(d) }) ?? ""
        return RecordSummary(
            id: id, kind: single.version.kind, title: title, created: single.created, updated: single.updated,
            favorite: !single.isDeleted && single.favorite, deleted: single.isDeleted, conflict: false, damaged: false)
    }
}
