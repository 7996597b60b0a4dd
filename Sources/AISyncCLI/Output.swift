import AISync

/// How results look: human text and JSON documents (presentation only, no logic).
enum Output {
    /// The text list: a header, then one row per record, titles shortened to fit `columns`.
    static func list(_ records: [RecordSummary], columns: Int, now: Int64 = CLIPlatform.nowMilliseconds()) -> Styled {
        guard !records.isEmpty else { return "" }
        let idWidth = records.reduce(2) { max($0, $1.id.rawValue.count) }
        var out: Styled =
            "\("ID".padding(idWidth), .faint)  \("KIND ", .faint)  \("UPDATED".padding(TimeText.width), .faint)  \("TITLE", .faint)\n"
        let room = max(columns - idWidth - 2 - 5 - 2 - TimeText.width - 2, 12)
        for r in records {
            var tail: Styled = ""
            var left = room
            if r.favorite { left -= 2 }
            if r.conflict {
                tail += "  \("conflict", .red)"
                left -= 10
            }
            if r.deleted {
                tail += "  \("deleted", .faint)"
                left -= 9
            }
            let title = DisplayWidth.truncated(TerminalText.escaped(oneLine(r.title)), to: max(left, 8))
            out +=
                "\(r.id.rawValue.padding(idWidth))  \(r.kind.rawValue.padding(5))  \(TimeText.when(r.updated, now: now).padding(TimeText.width))  "
            if r.favorite { out += "\("★", .yellow) " }
            out += "\(title)\(tail)\n"
        }
        return out
    }

    static func oneLine(_ s: String) -> String {
        s.replacingAll("\n", with: " ").replacingAll("\t", with: " ")
    }

    static func show(id: RecordID, body: RecordBody, state: RecordState, asOf: Version? = nil) -> Styled {
        var lines: [Styled] = [
            "\(body.kind.rawValue) \(id)\(body.favorite ? " ★" : "", .yellow): \(oneLine(body.title), .bold)"
        ]
        if let asOf {
            lines.append(
                "as of version \(asOf.shortID, .yellow) (\(TimeText.when(asOf.time.timestamp)), device \(asOf.device.short))"
            )
        }
        switch body {
        case .chat(let chat): lines += showChat(chat)
        case .story(let story):
            if let moral = story.moral { lines.append("moral: \(moral)") }
            lines.append(
                "created \(TimeText.when(story.created)), updated \(TimeText.when(story.updated)), \(count(story.pages.count, "page"))"
            )
            for (n, page) in story.pages.enumerated() {
                lines.append(
                    "\n\("--- page \(n + 1)\(page.image.map { " (image \($0.hex.prefix(12)))" } ?? "") ---", .cyan)\n\(page.text)"
                )
            }
            if !story.prompts.isEmpty {
                lines.append("\nprompts:\n" + Styled(story.prompts.map { "  \($0)" }.joined(separator: "\n")))
            }
        case .image(let image):
            let size = image.width.flatMap { w in image.height.map { h in ", \(w)x\(h)" } } ?? ""
            lines.append("\(image.mediaType), \(bytes(image.size))\(size), sha256 \(image.sha256)")
            if let prompt = image.prompt { lines.append("prompt: \(prompt)") }
            if let model = image.model { lines.append("model: \(model)") }
            if let imgur = image.imgur { lines.append("imgur: \(imgur.link)") }
            lines.append("created \(TimeText.when(image.created)), updated \(TimeText.when(image.updated))")
        }
        let conflicts = state.conflicts
        if asOf == nil, !conflicts.isEmpty {
            lines.append(
                "\n\("! conflict on \(conflicts.map(\.name).joined(separator: ", "))", .red); see `aisync conflicts \(id)`"
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A chat's lines for `show`: model, dates, custom instructions, the transcript (with any
    /// reasoning kept before its answer) and the alternatives.
    static func showChat(_ chat: ChatBody) -> [Styled] {
        var lines: [Styled] = []
        if let model = chat.model { lines.append("model: \(model)") }
        lines.append(
            "created \(TimeText.when(chat.created)), updated \(TimeText.when(chat.updated)), \(count(chat.messages.count, "message"))"
        )
        if let instructions = chat.instructions {
            lines.append("\n\("custom instructions:", .magenta)\n\(instructions)")
        }
        for m in chat.messages {
            if let reasoning = m.reasoning {
                lines.append("\n\("[reasoning before the next answer]", .faint)\n\(reasoning, .faint)")
            }
            lines.append(
                "\n[\(m.role.rawValue, paint(m.role)) \(TimeText.when(m.time)) \(m.id, .faint)]\n\(m.text)")
        }
        if !chat.alternatives.isEmpty {
            lines.append(
                "\n\(count(chat.alternatives.count, "alternative")) on other branches (regenerations, edits):")
        }
        for m in chat.alternatives {
            lines.append(
                "\n[alternative \(m.role.rawValue, paint(m.role)) \(TimeText.when(m.time)) \(m.id, .faint), after \(m.branch?.after ?? "the start")]\n\(m.text)"
            )
        }
        return lines
    }

    /// Roles in colour: the person green, the assistant cyan, the system prompt magenta.
    static func paint(_ role: ChatBody.Role) -> Styled.Paint {
        switch role {
        case .user: .green
        case .assistant: .cyan
        case .system: .magenta
        }
    }

    static func logLine(_ v: Version, names: [DeviceID: String], now: Int64) -> Styled {
        let who = deviceName(v.device, names)
        return
            "\(v.shortID, .yellow)  \(TimeText.when(v.time.timestamp, now: now).padding(TimeText.width))  \(who.padding(10))  \(v.record)  \(oneLine(v.changeSummary))\n"
    }

    /// One line per remote: in sync or why not, the last success, a failed last attempt's
    /// error, and what is waiting to go up or come down.
    static func remoteStatus(_ r: RemoteStatus, now: Int64) -> String {
        var parts = [r.inSync ? "in sync" : "not in sync (\(r.notInSyncBecause ?? ""))"]
        if let success = r.history.lastSuccess {
            parts.append("last synced \(TimeText.when(success.finished, now: now)) (\(success.operation))")
        }
        if let last = r.history.lastAttempt, let error = last.error {
            let times = r.history.failuresInARow > 1 ? " (\(r.history.failuresInARow) times in a row)" : ""
            parts.append(
                "\(last.operation) failed \(TimeText.when(last.finished, now: now))\(times): \(oneLine(error.line))")
        }
        if r.picturesNotDownloaded > 0 { parts.append(count(r.picturesNotDownloaded, "picture") + " not downloaded") }
        return "\(r.name): " + parts.joined(separator: "; ")
    }

    static func status(_ s: Store.Status, remotes: [RemoteStatus] = []) -> String {
        let plural: [RecordKind: String] = [.chat: "chats", .story: "stories", .image: "images"]
        let now = CLIPlatform.nowMilliseconds()
        let syncLines = remotes.enumerated().map { n, r in
            (n == 0 ? "sync       " : "           ") + remoteStatus(r, now: now) + "\n"
        }.joined()
        let counts = RecordKind.allCases.map {
            "\(s.records[$0] ?? 0) \(s.records[$0] == 1 ? $0.rawValue : plural[$0]!)"
        }.joined(separator: ", ")
        return """
            store      \(s.root)\(s.exposure.map { "\nprivate    no: \(TerminalText.escaped(oneLine($0.description))); run `aisync fsck --repair`" } ?? "")
            device     \(s.deviceName) (\(s.device))
            records    \(counts)\(s.deleted > 0 ? "; \(s.deleted) more deleted (restorable)" : "")
            conflicts  \(s.conflicts)
            objects    \(count(s.objects, "file")), \(bytes(s.bytes))\(s.imagesNotDownloaded > 0 ? "; \(count(s.imagesNotDownloaded, "picture")) not downloaded yet" : "")
            journal    \(s.journalLines) lines
            remotes    \(s.remotes.isEmpty ? "none" : s.remotes.map { "\($0.name) \($0.url)\($0.encrypted ? " (encrypted)" : "")" }.joined(separator: ", "))
            \(syncLines)
            """
    }

    static func conflict(_ c: Store.Conflict, names: [DeviceID: String]) -> Styled {
        var lines: [Styled] = ["\(c.id) (\(c.kind.rawValue)) \(oneLine(c.title), .bold)"]
        let now = CLIPlatform.nowMilliseconds()
        for f in c.fields {
            lines.append("  \(f.field, .red):")
            let whoWidth = f.values.reduce(0) { max($0, deviceName($1.version.device, names).count) }
            for cv in f.values {
                let v = cv.version
                let who = deviceName(v.device, names)
                let what = cv.value.map { preview($0) } ?? "(removed)"
                lines.append(
                    "    \(cv.winner ? "*" : " ", .green) \(v.shortID, .yellow)  \(TimeText.when(v.time.timestamp, now: now).padding(TimeText.width))  \(who.padding(whoWidth))  \(what)\(cv.winner ? "  (shown)" : "", .green)"
                )
            }
        }
        lines.append(
            "  \("keep one side with: aisync resolve \(c.id) --keep VERSION   (or --field FIELD --value-of VERSION)", .faint)"
        )
        return lines.joined(separator: "\n") + "\n"
    }

    /// A device's name as shown in columns: escaped first, so padding counts what is shown.
    static func deviceName(_ device: DeviceID, _ names: [DeviceID: String]) -> String {
        names[device].map { TerminalText.escaped(oneLine(String($0.prefix(20)))) } ?? device.short
    }

    /// A value in one short line: text as text, anything else as JSON.
    static func preview(_ value: JSONValue) -> String {
        let text: String
        switch value {
        case .string(let s): text = "“\(s)”"
        case .object(let o) where o["text"]?.stringValue != nil: text = "“\(o["text"]!.stringValue!)”"
        default: text = String(decoding: value.canonicalBytes, as: UTF8.self)
        }
        let line = oneLine(text)
        return line.count > 70 ? String(line.prefix(69)) + "…" : line
    }

    /// `1 version`, `3 versions`.
    /// What a sweep of a remote did (`compact`, `gc --remote`): orphan pictures removed and
    /// noted, unfinished uploads ended and noted, or that the remote cannot list.
    static func sweep(_ r: SyncEngine.CompactReport, of remote: String?, command: String) -> String {
        let on = remote.map { "the remote \($0)" } ?? "the remote"
        var text = ""
        if r.sweptOrphans, r.removedOrphans + r.waitingOrphans > 0 {
            text +=
                "\(command): \(count(r.removedOrphans, "orphan picture")) removed from \(on), \(r.waitingOrphans) kept until the grace period has passed\n"
        }
        if r.endedUploads + r.waitingUploads > 0 {
            text +=
                "\(command): \(count(r.endedUploads, "unfinished upload")) ended on \(on), \(r.waitingUploads) kept until the grace period has passed\n"
        }
        if remote != nil, r.sweptOrphans, r.removedOrphans + r.waitingOrphans + r.endedUploads + r.waitingUploads == 0 {
            text += "\(command): no orphan pictures or unfinished uploads on \(on)\n"
        }
        if !r.sweptOrphans {
            text += "\(command): orphan pictures not swept: this remote cannot list its files (plain HTTP)\n"
        }
        return text
    }

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// Bytes for people: `823 B`, `35.2 KB`, `1.4 MB` (decimal units, as file managers show).
    static func bytes(_ n: Int64) -> String {
        if n < 1000 { return "\(n) B" }
        let units = ["KB", "MB", "GB", "TB"]
        var value = Double(n) / 1000
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return String(format: value < 10 ? "%.1f %@" : "%.0f %@", value, units[unit])
    }

    /// What a push, pull or sync did, in a sentence, and what to run next when it left
    /// conflicts: `Pushed 3 versions and 1 picture (1.2 MB).`
    static func syncSummary(_ r: SyncReport, verb: String) -> String {
        var moved: [String] = []
        if r.pulled > 0 { moved.append("\(r.dryRun ? "would pull" : "pulled") \(count(r.pulled, "version"))") }
        if r.pushed > 0 { moved.append("\(r.dryRun ? "would push" : "pushed") \(count(r.pushed, "version"))") }
        var line: String
        if moved.isEmpty && r.blobs == 0 {
            line = r.dryRun ? "Nothing would move." : (verb == "push" ? "Nothing to push." : "Already up to date.")
        } else {
            line = moved.joined(separator: " and ")
            if r.blobs > 0 {
                line += (moved.isEmpty ? "\(r.dryRun ? "would move" : "moved") " : " with ") + count(r.blobs, "picture")
            }
            line = line.prefix(1).uppercased() + line.dropFirst() + " (\(bytes(r.bytes)))."
        }
        var out = line + "\n"
        if r.conflicts > 0 {
            out +=
                "\(count(r.conflicts, "record")) \(r.conflicts == 1 ? "has" : "have") conflicting changes: see them with `aisync conflicts`, "
                + "then keep one side with `aisync resolve ID --keep VERSION`.\n"
        }
        return out
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
