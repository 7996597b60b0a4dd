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
    /// bytes as the canonical JSON of an array of ``RecordSummary/json``, handed to `emit`
    /// every 256 KB, so 1,000,000 records stream in little memory. A record read from the
    /// index is written straight from its line's bytes (no id or title strings made: half the
    /// time of a listing of 1,000,000, docs/PERFORMANCE.md). `damaged` sees each record whose
    /// body could not be read when it was summarized (to warn about it), as it is written.
    public func writeJSON(emit: ([UInt8]) -> Void, damaged: (RecordSummary) -> Void = { _ in }) throws(AISyncError) {
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(1 << 18 + 4096)
        var first = true
        // Each index line's summary part is copied in file order (IndexBase.copySummaries),
        // then written as JSON in list order straight into the document.
        var times = (created: ISO8601Writer(), updated: ISO8601Writer())
        try forEachEntry { (entry: Entry) throws(AISyncError) in
            if out.count >= 1 << 18 {
                emit(out)
                out.removeAll(keepingCapacity: true)
            }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            switch entry {
            case .line(let summary, let tabs):
                guard let isDamaged = IndexFile.writeListJSON(summary, tabs: tabs, times: &times, into: &out) else {
                    throw IndexBase.damaged
                }
                if isDamaged, let (record, _) = IndexFile.parseSummary(summary) { damaged(record) }
            case .changed(let r):
                if r.damaged { damaged(r) }
                Self.write(r, into: &out)
            }
        }
        out.append(contentsOf: "]\n".utf8)
        emit(out)
    }

    /// One record of the document from its summary (a record changed since the index was written).
    private static func write(_ r: RecordSummary, into out: inout [UInt8]) {
        func put(_ text: StaticString) {
            text.withUTF8Buffer { out.append(contentsOf: $0) }
        }
        put(r.conflict ? "{\"conflict\":true,\"created\":\"" : "{\"conflict\":false,\"created\":\"")
        r.created.writeISO8601(into: &out)
        put(r.deleted ? "\",\"deleted\":true" : "\",\"deleted\":false")
        put(r.favorite ? ",\"favorite\":true,\"id\":\"" : ",\"favorite\":false,\"id\":\"")
        out += r.id.rawValue.utf8
        put("\",\"kind\":\"")
        out += r.kind.rawValue.utf8
        put("\",\"title\":")
        JSONValue.writeString(r.title, into: &out)
        put(",\"updated\":\"")
        r.updated.writeISO8601(into: &out)
        put("\"}")
    }

    /// The whole list document as bytes, final newline included (``writeJSON(emit:damaged:)``
    /// streams it instead).
    public func jsonBytes() throws(AISyncError) -> [UInt8] {
        var all: [UInt8] = []
        try writeJSON(emit: { all += $0 })
        return all
    }
}
