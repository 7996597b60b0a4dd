extension Version {
    /// What a version did to its record, coarsely, for history views and logs.
    public enum Action: String, Hashable, Sendable {
        /// The record's first version (its clock has counted one change).
        case create
        /// A later change.
        case edit
        /// The record was deleted.
        case delete
    }

    /// `delete` for a deletion, `create` for a record's first version, `edit` otherwise. One
    /// rule, so every front end labels history the same way.
    public var action: Action {
        if isDeleted { return .delete }
        return clock.counters.values.reduce(0, +) == 1 ? .create : .edit
    }
}
