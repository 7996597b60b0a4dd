/// What a version did, in words (`aisync log`): "renamed to “Trip”", "+1 message", "deleted".
extension Version {
    /// A short English description of what this version did, e.g. `renamed to “Trip”, +1 message`
    /// or `created`; for display only, its wording may change.
    public var changeSummary: String {
        guard case .operations(let ops) = payload else {
            if isDeleted { return "deleted" }
            return clock.counters.values.reduce(0, +) == 1 ? "created" : "edited (aisync 1)"
        }
        if clock.counters.values.reduce(0, +) == 1 { return "created" }
        var parts: [String] = []
        var added: [String: Int] = [:]
        var edited: [String: Int] = [:]
        var removed: [String: Int] = [:]
        for op in ops {
            switch op {
            case .set("title", .inline(.string(let t))): parts.append("renamed to “\(t.prefix(60))”")
            case .set("favorite", .inline(.bool(let f))): parts.append(f ? "favorited" : "unfavorited")
            case .set("imgur", .inline(let v)): parts.append(v == .null ? "removed from Imgur" : "uploaded to Imgur")
            // The source's activity time rides along with an import's messages: not a change of its own.
            case .set(RecordSchema.activityField, _): continue
            case .set(let field, _): parts.append("set \(field)")
            case .add(let field, _, _): added[field, default: 0] += 1
            case .edit(let field, _, _): edited[field, default: 0] += 1
            case .remove(let field, _): removed[field, default: 0] += 1
            case .delete: parts.append("deleted")
            case .restore: parts.append("restored")
            }
        }
        func noun(_ field: String, _ n: Int) -> String {
            let singular = field == "messages" ? "message" : field == "pages" ? "page" : field
            return n == 1 ? singular : (field == "messages" || field == "pages" ? field : singular)
        }
        for (field, n) in added.sorted(by: { $0.key < $1.key }) { parts.append("+\(n) \(noun(field, n))") }
        for (field, n) in edited.sorted(by: { $0.key < $1.key }) { parts.append("edited \(n) \(noun(field, n))") }
        for (field, n) in removed.sorted(by: { $0.key < $1.key }) { parts.append("-\(n) \(noun(field, n))") }
        return parts.joined(separator: ", ")
    }
}
