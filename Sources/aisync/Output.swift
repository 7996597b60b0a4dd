import AISync

/// How results look: human text and JSON documents (presentation only, no logic).
enum Output {
    /// `list --json`, written directly: it must stay fast for 100,000 records.
    static func listJSON(_ records: [RecordSummary]) -> String {
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(records.count * 160 + 2)
        for (n, r) in records.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: "{\"conflict\":\(r.conflict),\"created\":\"\(r.created.iso8601)\",\"deleted\":\(r.deleted),\"favorite\":\(r.favorite),\"id\":\"\(r.id)\",\"kind\":\"\(r.kind.rawValue)\",\"title\":".utf8)
            out.append(contentsOf: JSONValue.string(r.title).canonicalBytes)
            out.append(contentsOf: ",\"updated\":\"\(r.updated.iso8601)\"}".utf8)
        }
        out.append(contentsOf: "]\n".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    static func listLine(_ r: RecordSummary) -> String {
        let marks = (r.favorite ? "★" : " ") + (r.conflict ? "!" : " ") + (r.deleted ? "D" : " ")
        return "\(r.id)\t\(marks)\t\(r.updated.iso8601)\t\(oneLine(r.title))\n"
    }

    static func oneLine(_ s: String) -> String {
        s.replacingAll("\n", with: " ").replacingAll("\t", with: " ")
    }

    static func show(id: RecordID, body: RecordBody, state: RecordState) -> String {
        var lines = ["\(body.kind.rawValue) \(id)\(body.favorite ? " ★" : ""): \(body.title)"]
        switch body {
        case .chat(let chat):
            if let model = chat.model { lines.append("model: \(model)") }
            lines.append("created \(chat.created), updated \(chat.updated), \(chat.messages.count) message(s)")
            for m in chat.messages { lines.append("\n[\(m.role.rawValue) \(m.time)]\n\(m.text)") }
        case .story(let story):
            if let moral = story.moral { lines.append("moral: \(moral)") }
            lines.append("created \(story.created), updated \(story.updated), \(story.pages.count) page(s)")
            for (n, page) in story.pages.enumerated() {
                lines.append("\n--- page \(n + 1)\(page.image.map { " (image \($0.hex.prefix(12)))" } ?? "") ---\n\(page.text)")
            }
            if !story.prompts.isEmpty { lines.append("\nprompts:\n" + story.prompts.map { "  \($0)" }.joined(separator: "\n")) }
        case .image(let image):
            let size = image.width.flatMap { w in image.height.map { h in ", \(w)x\(h)" } } ?? ""
            lines.append("\(image.mediaType), \(image.size) bytes\(size), sha256 \(image.sha256)")
            if let prompt = image.prompt { lines.append("prompt: \(prompt)") }
            if let model = image.model { lines.append("model: \(model)") }
            if let imgur = image.imgur { lines.append("imgur: \(imgur.link)") }
            lines.append("created \(image.created), updated \(image.updated)")
        }
        if state.isConflict { lines.append("\n! \(state.siblings.count) concurrent versions; see `aisync conflicts \(id)`") }
        return lines.joined(separator: "\n") + "\n"
    }

    static func action(_ v: Version) -> String {
        v.isDeleted ? "delete" : (v.clock.counters.values.reduce(0, +) == 1 ? "create" : "edit")
    }

    static func versionJSON(_ v: Version) -> JSONValue {
        .object(["version": .string(v.id.hex), "record": .string(v.record.rawValue), "kind": .string(v.kind.rawValue),
                 "device": .string(v.device.rawValue), "time": .string(v.time.timestamp.iso8601),
                 "deleted": .bool(v.isDeleted), "action": .string(action(v))])
    }

    static func logLine(_ v: Version) -> String {
        "\(v.shortID)  \(v.time.timestamp.iso8601)  \(v.device.short)  \(action(v).padding(6))  \(v.record)\n"
    }

    static func statusJSON(_ s: Store.Status) -> JSONValue {
        .object([
            "store": .string(s.root),
            "device": .object(["id": .string(s.device.rawValue), "name": .string(s.deviceName)]),
            "records": .object(Dictionary(uniqueKeysWithValues: s.records.map { ($0.key.rawValue, .int(Int64($0.value))) })),
            "deleted": .int(Int64(s.deleted)),
            "conflicts": .int(Int64(s.conflicts)),
            "objects": .int(Int64(s.objects)),
            "bytes": .int(s.bytes),
            "journal": .object(["lines": .int(Int64(s.journalLines)), "bytes": .int(s.journalBytes)]),
            "remotes": .array(s.remotes.map { .object(["name": .string($0.name), "url": .string($0.url), "type": .string($0.type)]) }),
        ])
    }

    static func status(_ s: Store.Status) -> String {
        let plural: [RecordKind: String] = [.chat: "chats", .story: "stories", .image: "images"]
        let counts = RecordKind.allCases.map { "\(s.records[$0] ?? 0) \(s.records[$0] == 1 ? $0.rawValue : plural[$0]!)" }.joined(separator: ", ")
        return """
            store      \(s.root)
            device     \(s.deviceName) (\(s.device))
            records    \(counts)\(s.deleted > 0 ? " (\(s.deleted) deleted)" : "")
            conflicts  \(s.conflicts)
            objects    \(s.objects) (\(s.bytes) bytes)
            journal    \(s.journalLines) lines
            remotes    \(s.remotes.isEmpty ? "none" : s.remotes.map { "\($0.name) \($0.url)" }.joined(separator: ", "))

            """
    }

    static func conflictJSON(_ c: Store.Conflict) -> JSONValue {
        .object([
            "id": .string(c.id.rawValue), "kind": .string(c.kind.rawValue), "title": .string(c.title),
            "versions": .array(c.versions.map { cv in
                .object(["version": .string(cv.version.id.hex), "device": .string(cv.version.device.rawValue),
                         "time": .string(cv.version.time.timestamp.iso8601), "deleted": .bool(cv.version.isDeleted),
                         "winner": .bool(cv.winner)])
            }),
        ])
    }

    static func conflict(_ c: Store.Conflict) -> String {
        var lines = ["\(c.id) (\(c.kind.rawValue)) \(oneLine(c.title))"]
        for cv in c.versions {
            let v = cv.version
            lines.append("  \(cv.winner ? "*" : " ") \(v.shortID)  \(v.time.timestamp.iso8601)  device \(v.device.short)  \(v.isDeleted ? "deleted" : "edited")\(cv.winner ? "  (shown)" : "")")
        }
        lines.append("  keep one with: aisync resolve \(c.id) --keep VERSION")
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for ch in self { if ch == target { out += replacement } else { out.append(ch) } }
        return out
    }

    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
