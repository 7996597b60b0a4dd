import AISyncCore

/// Reading a record to show it to someone: the rule that turns "deleted" into an error saying
/// what to do, so every front end says the same.
extension Store {
    /// A record as people see it, now or as of the version `asOf` (6+ hex characters).
    ///
    /// Unlike `record(_:)`, which returns a nil body for a deleted record, this throws
    /// `.notFound` with a remedy: restore it, close the conflict when the delete raced an edit,
    /// or, as of a version that deletes it, pick an earlier version.
    public func visibleRecord(_ id: RecordID, asOf prefix: String? = nil) throws(AISyncError)
        -> (state: RecordState, body: RecordBody, version: Version?)
    {
        guard let prefix else {
            let (state, body) = try record(id)
            guard let body else { throw AISyncError.recordDeleted(id, inConflict: state.isConflict) }
            return (state, body, nil)
        }
        let (version, state, body) = try record(id, asOf: prefix)
        guard let body else {
            throw AISyncError(
                .notFound, "record \(id) is deleted as of version \(version.shortID)",
                hint: "That version deletes it; pick an earlier one from the record's history",
                remedy: .listVersions(id))
        }
        return (state, body, version)
    }
}
