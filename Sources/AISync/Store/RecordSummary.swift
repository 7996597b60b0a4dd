/// What listing needs to know about a record, derived from its state and winning body.
public struct RecordSummary: Hashable, Sendable {
    public var id: RecordID
    public var kind: RecordKind
    /// The winner's title, or for a deleted winner the title of the best surviving sibling.
    public var title: String
    public var created: Timestamp
    public var updated: Timestamp
    public var favorite: Bool
    public var deleted: Bool
    public var conflict: Bool
    /// The body could not be read (missing or damaged object): title and times are unknown.
    public var damaged: Bool = false
}

extension RecordSummary {
    /// Summarizes a state, reading sibling bodies from `objects` as needed.
    static func make(id: RecordID, state: RecordState, objects: ObjectStore) -> RecordSummary? {
        guard let winner = state.winner else { return nil }
        let live = state.siblings.first { !$0.isDeleted }
        var body: RecordBody?
        if let digest = live?.body, let bytes = try? objects.get(digest) {
            body = try? RecordBody(bytes: bytes, expected: winner.kind)
        }
        let damaged = live != nil && body == nil
        return RecordSummary(
            id: id, kind: winner.kind,
            title: body?.title ?? "",
            created: body.map(Self.created) ?? winner.time.timestamp,
            updated: winner.isDeleted ? winner.time.timestamp : (body?.updated ?? winner.time.timestamp),
            favorite: winner.isDeleted ? false : (body?.favorite ?? false),
            deleted: winner.isDeleted, conflict: state.isConflict, damaged: damaged)
    }

    private static func created(_ body: RecordBody) -> Timestamp {
        switch body {
        case .chat(let b): b.created
        case .story(let b): b.created
        case .image(let b): b.created
        }
    }
}
