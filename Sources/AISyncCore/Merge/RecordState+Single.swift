extension RecordState {
    /// What the state folded from one version alone shows, read from that version's
    /// operations without building the state: a pull or an import of records new to the
    /// store meets most of them once, and their summaries need only these few fields
    /// (docs/PERFORMANCE.md 3.14). It answers as `RecordState(kind: version.kind, [(version,
    /// ops)])` does (`RecordStateSingleTests` compares them).
    public struct Single: Sendable {
        /// The version, whose operations are ``ops``.
        public let version: Version
        /// Its operations.
        public let ops: [Operation]
        /// Whether the version deletes the record: its last `delete` or `restore`.
        public let isDeleted: Bool

        /// The view of `version` with its operations `ops`.
        public init(_ version: Version, ops: [Operation]) {
            self.version = version
            self.ops = ops
            isDeleted = ops.last { $0 == .delete || $0 == .restore } == .delete
        }

        /// The visible value of a register: the first `set` of it (an entry of the same
        /// version never wins over one already there), `deleted` from the delete operations.
        public func value(_ field: String) -> FieldValue? {
            if field == RecordSchema.deletedField { return .inline(.bool(isDeleted)) }
            // By index: `for case … in ops` copies every operation it looks at.
            for i in ops.indices {
                if case .set(let f, let value) = ops[i], f == field { return value }
            }
            return nil
        }

        /// As ``RecordState/title(_:)``.
        public func title(_ resolve: Resolver) throws(AISyncError) -> String {
            switch value("title") {
            case .inline(let v)?: v.stringValue ?? ""
            case .object(let d)?: try resolve(d).stringValue ?? ""
            case nil: ""
            }
        }

        /// As ``RecordState/favorite``.
        public var favorite: Bool { value("favorite") == .inline(.bool(true)) }

        /// As ``RecordState/created``: the `created` field, else the version's time.
        public var created: Timestamp {
            if case .inline(.string(let s))? = value("created"), let t = Timestamp(iso8601: s) { return t }
            return version.time.timestamp
        }

        /// The time lists sort by (``RecordState/contentTime``, else ``RecordState/latestTime``).
        public var updated: Timestamp {
            let activity = RecordState.activity(version.time, ops)
            let content = activity > .zero && !ops.allSatisfy(RecordState.marksFavorite) ? activity : .zero
            return (content == .zero ? version.time : content).timestamp
        }
    }
}
