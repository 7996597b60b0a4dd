import AISyncCore

/// Closing conflicts and looking at any version: nothing is hidden (docs/DESIGN.md §3.6).
extension Store {
    /// Every version of one record, in journal order.
    package func versions(of id: RecordID, in snapshot: StoreSnapshot) throws(AISyncError) -> [Version] {
        guard let refs = try snapshot.lineRefs(id) else { throw AISyncError.noRecord(id) }
        return try journal.versions(at: refs)
    }

    /// The record as the author of one version saw it: the fold of that version and every
    /// version it had seen (its causal past). Shows the losing side of any conflict.
    func state(of id: RecordID, asOf version: Version, in snapshot: StoreSnapshot) throws(AISyncError) -> RecordState {
        var state = RecordState(kind: version.kind)
        for v in try versions(of: id, in: snapshot)
        where v.clock == version.clock || v.clock.isDominated(by: version.clock) {
            reader.merge(v, into: &state)
        }
        return state
    }

    /// One version of a record by id prefix (at least 6 hex characters).
    func version(_ prefix: String, of id: RecordID, in snapshot: StoreSnapshot) throws(AISyncError) -> Version {
        try Self.pick(prefix, among: versions(of: id, in: snapshot), record: id)
    }

    /// The record as of one of its versions (`show ID --version V`), with that version.
    public func record(_ id: RecordID, asOf prefix: String) throws(AISyncError) -> (
        version: Version, state: RecordState, body: RecordBody?
    ) {
        try locked(write: false) {
            (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> (Version, RecordState, RecordBody?) in
            let v = try version(prefix, of: id, in: snapshot)
            let state = try state(of: id, asOf: v, in: snapshot)
            return (v, state, state.isDeleted ? nil : try visibleBody(state))
        }
    }

    /// Closes the record's conflicts by keeping, for every field in conflict, what the chosen
    /// version's author saw (its value, its messages, its deletion). The new version follows
    /// every other, so the conflict closes everywhere once it syncs.
    @discardableResult
    public func resolve(_ id: RecordID, keep prefix: String) throws(AISyncError) -> Version {
        try resolve(id, prefix: prefix, only: nil)
    }

    /// Closes the conflict on one field (`title`, `deleted`, `messages/m-…`) with the value it
    /// has as of the chosen version.
    @discardableResult
    public func resolve(_ id: RecordID, field: String, valueOf prefix: String) throws(AISyncError) -> Version {
        try resolve(id, prefix: prefix, only: field)
    }

    private func resolve(_ id: RecordID, prefix: String, only field: String?) throws(AISyncError) -> Version {
        try locked(write: true) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> Version in
            guard let state = try stateOf(id, in: snapshot) else { throw AISyncError.noRecord(id) }
            let chosen = try version(prefix, of: id, in: snapshot)
            let past = try self.state(of: id, asOf: chosen, in: snapshot)
            var conflicts = state.conflicts
            if let field {
                conflicts = conflicts.filter { $0.name == field || ($0.element != nil && $0.element == field) }
                guard !conflicts.isEmpty else {
                    throw AISyncError(
                        .notFound, "\(id) has no conflict on \(field)",
                        hint: "See the record's conflicts for the fields in conflict",
                        remedy: .listConflicts(id))
                }
            }
            guard !conflicts.isEmpty else {
                throw AISyncError.notFound("\(id) has no conflict", hint: "Edit it directly instead")
            }
            var list = RecordBody.OperationList()
            for c in conflicts {
                if let element = c.element {
                    if let entry = past.elements[element]?.entries.first {
                        list.ops.append(.edit(field: c.field, element: element, value: entry.value))
                    } else {
                        list.ops.append(.remove(field: c.field, element: element))
                    }
                } else if c.field == RecordSchema.deletedField {
                    list.ops.append(past.isDeleted ? .delete : .restore)
                } else if let value = past.value(c.field) ?? state.value(c.field) {
                    list.ops.append(.set(field: c.field, value: value))
                }
            }
            return try commit(id, kind: state.kind, list, over: state, snapshot: &snapshot)
        }
    }

    static func pick(_ prefix: String, among versions: [Version], record: RecordID) throws(AISyncError) -> Version {
        let p = prefix.lowercased()
        guard p.count >= 6, p.utf8.allSatisfy(isLowerHex) else {
            throw AISyncError(
                .usage, "\"\(prefix)\" is not a version id",
                hint: "Give at least 6 hex characters of a version from the record's history",
                remedy: .listVersions(record))
        }
        let matches = versions.filter { $0.id.hex.hasPrefix(p) }
        guard let first = matches.first else {
            throw AISyncError(
                .notFound, "\(record) has no version \(prefix)", hint: "See the record's history for its versions",
                remedy: .listVersions(record))
        }
        guard matches.count == 1 else {
            throw AISyncError.usage("version prefix \(prefix) is ambiguous", hint: "Give more characters")
        }
        return first
    }
}
