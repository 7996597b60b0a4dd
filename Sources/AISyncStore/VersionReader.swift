import AISyncCore

/// Reads what folding a record needs from the journal and objects: its versions, the
/// operations of aisync 1 versions (from their body objects), and large values.
package struct VersionReader: Sendable {
    let journal: Journal
    let objects: ObjectStore

    /// The operations of a version; an aisync 1 version's are read from its body, and nil
    /// means that body is missing or damaged.
    package func operations(of v: Version) -> [Operation]? {
        switch v.payload {
        case .operations(let ops): return ops
        case .legacy(nil): return [.delete]
        case .legacy(let digest?):
            guard let bytes = try? objects.get(digest), let body = try? RecordBody(bytes: bytes, expected: v.kind)
            else { return nil }
            return LegacyOperations.operations(of: body)
        }
    }

    /// Folds one version into `state`; false when it was known already.
    @discardableResult
    package func merge(_ v: Version, into state: inout RecordState) -> Bool {
        let ops = operations(of: v)
        guard state.merge(v, ops: ops ?? []) else { return false }
        if ops == nil { state.damaged = true }
        return true
    }

    /// The state of a record from its journal lines.
    func state(kind: RecordKind, refs: [Journal.LineRef]) throws(AISyncError) -> RecordState {
        var state = RecordState(kind: kind)
        for v in try journal.versions(at: refs) { merge(v, into: &state) }
        return state
    }

    /// A value kept in an object (large values), parsed.
    package func resolve(_ digest: SHA256Digest) throws(AISyncError) -> JSONValue {
        let bytes = try objects.get(digest)
        do { return try JSONParser.parse(bytes) } catch {
            throw AISyncError(
                .damagedData, "object \(digest.hex) is not a JSON value", hint: "Check the store",
                cause: error.description, remedy: .checkStore)
        }
    }
}
