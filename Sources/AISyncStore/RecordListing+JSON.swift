import AISyncCore

extension RecordSummary {
    /// One record of the list document (Schemas/list-output.schema.json): `{conflict, created,
    /// deleted, favorite, id, kind, title, updated}`.
    public var json: JSONValue {
        .object([
            "conflict": .bool(conflict), "created": .string(created.iso8601), "deleted": .bool(deleted),
            "favorite": .bool(favorite), "id": .string(id.rawValue), "kind": .string(kind.rawValue),
            "title": .string(title), "updated": .string(updated.iso8601),
        ])
    }
}

extension RecordListing {
    /// The list document (Schemas/list-output.schema.json) with its final newline: the same
    /// bytes as the canonical JSON of an array of ``RecordSummary/json``, written directly and
    /// handed to `emit` every 256 KB, so 100,000 records stream fast in little memory. `each`
    /// sees every record as it is written (to warn about a damaged one, say).
    public func writeJSON(emit: ([UInt8]) -> Void, each: (RecordSummary) -> Void = { _ in }) throws(AISyncError) {
        let conflict = Array("{\"conflict\":".utf8)
        let created = Array(",\"created\":\"".utf8)
        let deleted = Array("\",\"deleted\":".utf8)
        let favorite = Array(",\"favorite\":".utf8)
        let id = Array(",\"id\":\"".utf8)
        let kind = Array("\",\"kind\":\"".utf8)
        let title = Array("\",\"title\":".utf8)
        let updated = Array(",\"updated\":\"".utf8)
        let end = Array("\"}".utf8)
        let yes = Array("true".utf8)
        let no = Array("false".utf8)
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(1 << 18 + 4096)
        var first = true
        try forEach { (r: RecordSummary) throws(AISyncError) in
            each(r)
            if out.count >= 1 << 18 {
                emit(out)
                out.removeAll(keepingCapacity: true)
            }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out += conflict
            out += r.conflict ? yes : no
            out += created
            r.created.writeISO8601(into: &out)
            out += deleted
            out += r.deleted ? yes : no
            out += favorite
            out += r.favorite ? yes : no
            out += id
            out += r.id.rawValue.utf8
            out += kind
            out += r.kind.rawValue.utf8
            out += title
            JSONValue.writeString(r.title, into: &out)
            out += updated
            r.updated.writeISO8601(into: &out)
            out += end
        }
        out.append(contentsOf: "]\n".utf8)
        emit(out)
    }

    /// The whole list document as bytes, final newline included (``writeJSON(emit:each:)``
    /// streams it instead).
    public func jsonBytes() throws(AISyncError) -> [UInt8] {
        var all: [UInt8] = []
        try writeJSON(emit: { all += $0 })
        return all
    }
}
