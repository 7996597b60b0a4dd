import AISyncCore

extension Store {
    /// The record a person means by `text`: a whole id, or a unique prefix of one (at least 4
    /// characters, with or without the `chat-` / `story-` / `image-` part), as versions take
    /// prefixes. Deleted records count, so `show` can say a record is deleted.
    ///
    /// - Throws: `.usage` for text that cannot be an id or a prefix of one, or a prefix that
    ///   several records share (naming a few); `.notFound` when nothing starts with it.
    public func resolveRecordID(_ text: String) throws(AISyncError) -> RecordID {
        let shape =
            !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
        guard shape else {
            throw AISyncError.usage(
                "'\(text.prefix(80))' is not a record id",
                hint: "Ids look like chat-3f9a1c2b4d5e6f70; see the list of records")
        }
        return try locked(write: false) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> RecordID in
            if let id = RecordID(text), try snapshot.summary(id) != nil { return id }
            guard text.utf8.count >= 4 else {
                if let id = RecordID(text) { return id }
                throw AISyncError.usage(
                    "'\(text)' is too short to name a record", hint: "Give at least 4 characters of its id")
            }
            let matches = try snapshot.ids { (s: RecordSummary) -> Bool in
                let raw = s.id.rawValue
                let hex = raw.firstIndex(of: "-").map { raw[raw.index(after: $0)...] } ?? Substring(raw)
                return raw.hasPrefix(text) || hex.hasPrefix(text)
            }
            switch matches.count {
            case 1: return matches[0]
            case 0:
                if let id = RecordID(text) { return id }  // a whole id: the caller says "no record"
                throw AISyncError(
                    .notFound, "no record id starts with \(text)",
                    hint: "See the list of records for the ids in this store", remedy: .listRecords)
            default:
                let shown = matches.sorted().prefix(3).map(\.rawValue).joined(separator: ", ")
                throw AISyncError.usage(
                    "'\(text)' matches \(matches.count) records (\(shown)\(matches.count > 3 ? ", …" : ""))",
                    hint: "Give more characters of the id")
            }
        }
    }
}
