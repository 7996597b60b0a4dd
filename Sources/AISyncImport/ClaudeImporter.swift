import AISyncCore

/// Claude's `conversations.json`: `[{uuid, name, created_at, updated_at, chat_messages:
/// [{uuid, sender, text, content: [{type, …}], created_at}]}]`.
///
/// Each conversation becomes a chat (id from `claude:` + its uuid), each message keeps its
/// uuid-derived id. A message's `content` blocks, when present, are its text: `text` as is,
/// `tool_use` and `tool_result` labelled, `thinking` left out (counted), anything else kept
/// as raw JSON; without blocks, its `text` is used.
enum ClaudeImporter {
    static let thinkingNote = "thinking blocks, not imported"
    static let rawNote = "kept as raw JSON (unknown content type)"

    static func read(_ document: ImportInput.Document, into batch: inout ImportBatch) throws(AISyncError) {
        guard case .array(let conversations) = document.value else {
            throw Import.notAn("a Claude export", document, expected: "a list of conversations")
        }
        var seen: Set<String> = []
        for (n, c) in conversations.enumerated() {
            guard case .object = c, let uuid = c["uuid"]?.stringValue, !uuid.isEmpty else {
                batch.skip("#\(n + 1)", "not a conversation with a uuid")
                continue
            }
            guard case .array(let messages)? = c["chat_messages"] else {
                batch.skip(uuid, "its chat_messages is missing or not a list")
                continue
            }
            guard seen.insert(uuid).inserted else {
                batch.skip(uuid, "the same conversation twice in one export")
                continue
            }
            let key = "claude:\(uuid)"
            let created = ImportTime.parse(c["created_at"]?.stringValue) ?? Timestamp(milliseconds: 0)
            var notes: [String: Int] = [:]
            var list: [ChatBody.Message] = []
            var last = created.milliseconds - 1
            for (m, message) in messages.enumerated() {
                guard let (role, text) = self.message(message, notes: &notes) else { continue }
                let time = ImportTime.parse(message["created_at"]?.stringValue)?.milliseconds ?? last + 1
                last = max(time, last + 1)
                let source = message["uuid"]?.stringValue ?? "#\(m)"
                list.append(
                    ChatBody.Message(
                        id: ImportIDs.element("m", key: key, source: source), role: role, text: text,
                        time: Timestamp(milliseconds: last)))
            }
            let body = ChatBody(
                title: ImportIDs.title(c["name"]?.stringValue, fallback: "Untitled chat"),
                model: c["model"]?.stringValue,
                messages: list, created: created, updated: created)
            batch.add(ImportIDs.record(.chat, key: key), .chat(body), notes: notes)
        }
    }

    /// A message's role and text; nil (counted) for one that is empty or not a message.
    static func message(_ message: JSONValue, notes: inout [String: Int]) -> (ChatBody.Role, String)? {
        let role: ChatBody.Role
        switch message["sender"]?.stringValue {
        case "human"?: role = .user
        case "assistant"?: role = .assistant
        default:
            notes["not a human or assistant message", default: 0] += 1
            return nil
        }
        var text = message["text"]?.stringValue ?? ""
        if case .array(let blocks)? = message["content"], !blocks.isEmpty {
            text = blocks.compactMap { block(Self.blockText($0), notes: &notes) }.joined(separator: "\n\n")
        }
        text += attachments(message, notes: &notes)
        guard !text.isBlank else {
            notes[ChatGPTMessage.emptyReason, default: 0] += 1
            return nil
        }
        return (role, text)
    }

    static let filesNote = "uploaded files (Claude's export does not hold them)"

    /// Attachments whose text the export holds (`extracted_content`), labelled with their
    /// file names; uploaded files (pictures, PDFs) are not in the export and are counted.
    static func attachments(_ message: JSONValue, notes: inout [String: Int]) -> String {
        var text = ""
        for attachment in message["attachments"]?.arrayValue ?? [] {
            guard let content = attachment["extracted_content"]?.stringValue, !content.isEmpty else { continue }
            text += "\n\n[attachment: \(attachment["file_name"]?.stringValue ?? "file")]\n\(content)"
        }
        if let files = message["files"]?.arrayValue, !files.isEmpty { notes[filesNote, default: 0] += files.count }
        return text
    }

    private static func block(_ reading: (String?, String?), notes: inout [String: Int]) -> String? {
        if let note = reading.1 { notes[note, default: 0] += 1 }
        return reading.0.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// One content block's text and the note it makes, if any.
    static func blockText(_ block: JSONValue) -> (String?, String?) {
        switch block["type"]?.stringValue {
        case "text"?: return (block["text"]?.stringValue, nil)
        case "thinking"?: return (nil, thinkingNote)
        case "tool_use"?:
            let input = block["input"].map { $0.canonicalString } ?? ""
            return ("[tool use: \(block["name"]?.stringValue ?? "tool")]\n\(input)", nil)
        case "tool_result"?:
            return ("[tool result]\n\(resultText(block["content"]))", nil)
        default: return (block.canonicalString, rawNote)
        }
    }

    /// A tool result's content: a string, or a list of text blocks (others as raw JSON).
    static func resultText(_ content: JSONValue?) -> String {
        switch content {
        case .string(let s)?: return s
        case .array(let items)?:
            return items.map {
                $0["type"]?.stringValue == "text" ? ($0["text"]?.stringValue ?? "") : $0.canonicalString
            }.joined(separator: "\n")
        case let other?: return other.canonicalString
        case nil: return ""
        }
    }
}
