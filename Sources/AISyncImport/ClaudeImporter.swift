import AISyncCore

/// Claude's `conversations.json`: `[{uuid, name, created_at, updated_at,
/// current_leaf_message_uuid, chat_messages: [{uuid, parent_message_uuid, sender, text,
/// content: [{type, …}], created_at}]}]`, or one such conversation alone.
///
/// Each conversation becomes a chat (id from `claude:` + its uuid), each message keeps its
/// uuid-derived id. The main path is the transcript; messages of other branches (retries,
/// edits) are kept as alternatives. A message's `content` blocks, when present, are its
/// text: `text` as is, tool calls and results labelled with readable arguments, artifacts
/// as their documents, `thinking` left out (counted) or kept as the message's reasoning,
/// a type not known yet as its name and text; without blocks, its `text` is used.
enum ClaudeImporter {
    static let rawNote = ChatGPTMessage.unknownNote
    static let rootParent = "00000000-0000-4000-8000-000000000000"

    static func read(_ document: ImportInput.Document, withReasoning: Bool = false, into batch: inout ImportBatch)
        throws(AISyncError)
    {
        let conversations: [JSONValue]
        switch document.value {
        case .array(let list): conversations = list
        // One saved conversation (an exporter extension, the app's own API) is a one-element export.
        case .object where document.value["chat_messages"] != nil: conversations = [document.value]
        default: throw Import.notAn("a Claude export", document, expected: "a list of conversations")
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
            let body = chat(c, messages: messages, key: "claude:\(uuid)", withReasoning: withReasoning)
            batch.add(
                ImportIDs.record(.chat, key: "claude:\(uuid)"), .chat(body.chat), notes: body.notes,
                activity: body.chat.updated)
        }
    }

    /// One conversation as a chat: its main path (from `current_leaf_message_uuid` up through
    /// `parent_message_uuid`, or every message in order when the export has no parents) as
    /// the transcript, the messages of other branches as alternatives.
    static func chat(_ c: JSONValue, messages: [JSONValue], key: String, withReasoning: Bool) -> (
        chat: ChatBody, notes: [String: Int]
    ) {
        let created = ImportTime.parse(c["created_at"]?.stringValue) ?? Timestamp(milliseconds: 0)
        var notes: [String: Int] = [:]
        let sources = messages.enumerated().map { m, message in message["uuid"]?.stringValue ?? "#\(m)" }
        let path = mainPath(messages, sources: sources, leaf: c["current_leaf_message_uuid"]?.stringValue)
        var list: [ChatBody.Message] = []
        var times: [String: Timestamp] = [:]
        var shown: [Int] = []
        var last = created.milliseconds - 1
        for m in path {
            guard let (role, text, reasoning) = self.message(messages[m], withReasoning: withReasoning, notes: &notes)
            else { continue }
            let time = ImportTime.parse(messages[m]["created_at"]?.stringValue)?.milliseconds ?? last + 1
            last = max(time, last + 1)
            times[sources[m]] = Timestamp(milliseconds: last)
            shown.append(m)
            list.append(
                ChatBody.Message(
                    id: ImportIDs.element("m", key: key, source: sources[m]), role: role, text: text,
                    time: Timestamp(milliseconds: last), reasoning: reasoning))
        }
        let onPath = Set(path)
        var alternatives: [ChatBody.Message] = []
        var others: [String: (ChatBody.Role, String, Timestamp?)] = [:]
        var branchNotes: [String: Int] = [:]
        for (m, message) in messages.enumerated() where !onPath.contains(m) {
            if let (role, text, _) = self.message(message, withReasoning: false, notes: &branchNotes) {
                others[sources[m]] = (role, text, ImportTime.parse(message["created_at"]?.stringValue))
            }
        }
        let parents = Dictionary(
            messages.enumerated().map { (sources[$0.offset], $0.element["parent_message_uuid"]?.stringValue) },
            uniquingKeysWith: { first, _ in first })
        for (source, (role, text, time)) in others {
            let after = ChatGPTImporter.visibleAncestor(
                of: source, parent: { parents[$0] ?? nil }, isShown: { times[$0] != nil || others[$0] != nil })
            let parentTime = after.flatMap { times[$0] ?? others[$0]?.2 } ?? created
            alternatives.append(
                ChatBody.Message(
                    id: ImportIDs.element("m", key: key, source: source), role: role, text: text,
                    time: time ?? Timestamp(milliseconds: parentTime.milliseconds + 1),
                    branch: ChatBody.Branch(after: after.map { ImportIDs.element("m", key: key, source: $0) })))
        }
        alternatives.sort { ($0.time, $0.id) < ($1.time, $1.id) }
        if !alternatives.isEmpty { notes[ChatGPTImporter.otherBranches] = alternatives.count }
        let lastMessage = list.last?.time ?? created
        let updated = max(ImportTime.parse(c["updated_at"]?.stringValue) ?? created, lastMessage)
        let chat = ChatBody(
            title: ImportIDs.title(c["name"]?.stringValue, fallback: "Untitled chat"), model: c["model"]?.stringValue,
            messages: list, alternatives: alternatives, created: created, updated: updated)
        return (chat, notes)
    }

    /// The indexes of the messages on the main path, oldest first. Without parent links
    /// every message is on it, in the export's order. With them, the path runs up from
    /// `leaf` (else the last message that no other names as its parent).
    static func mainPath(_ messages: [JSONValue], sources: [String], leaf: String?) -> [Int] {
        let parents = messages.map { $0["parent_message_uuid"]?.stringValue }
        guard parents.contains(where: { $0 != nil && $0 != rootParent }) else { return Array(messages.indices) }
        var index: [String: Int] = [:]
        for (m, source) in sources.enumerated() where index[source] == nil { index[source] = m }
        let named = Set(parents.compactMap { $0 })
        guard let start = leaf.flatMap({ index[$0] }) ?? sources.indices.last(where: { !named.contains(sources[$0]) })
        else { return Array(messages.indices) }
        var path: [Int] = []
        var visited: Set<Int> = []
        var cursor: Int? = start
        while let m = cursor, visited.insert(m).inserted {
            path.append(m)
            cursor = parents[m].flatMap { index[$0] }
        }
        return path.reversed()
    }

    /// A message's role and text; nil (counted) for one that is empty or not a message.
    static func message(_ message: JSONValue, withReasoning: Bool, notes: inout [String: Int]) -> (
        ChatBody.Role, String, String?
    )? {
        let role: ChatBody.Role
        switch message["sender"]?.stringValue {
        case "human"?: role = .user
        case "assistant"?: role = .assistant
        default:
            notes["not a human or assistant message", default: 0] += 1
            return nil
        }
        var text = message["text"]?.stringValue ?? ""
        var reasoning: [String] = []
        if case .array(let blocks)? = message["content"], !blocks.isEmpty {
            var pieces: [String] = []
            for block in blocks {
                if block["type"]?.stringValue == "thinking" {
                    notes[
                        withReasoning ? ChatGPTImporter.reasoningKept : ChatGPTImporter.reasoningLeftOut, default: 0] +=
                        1
                    if withReasoning, let thought = block["thinking"]?.stringValue, !thought.isBlank {
                        reasoning.append(thought)
                    }
                    continue
                }
                let (piece, note) = Self.blockText(block)
                if let note { notes[note, default: 0] += 1 }
                if let piece, !piece.isBlank { pieces.append(piece) }
            }
            text = pieces.joined(separator: "\n\n")
        }
        text += attachments(message, notes: &notes)
        guard !text.isBlank else {
            notes[ChatGPTMessage.emptyReason, default: 0] += 1
            return nil
        }
        return (role, text, reasoning.isEmpty ? nil : reasoning.joined(separator: "\n\n"))
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

    /// One content block's text and the note it makes, if any: text as it is, a tool call
    /// with its arguments as readable lines (an artifact as its document), a tool result as
    /// its text, and a block of a type not known yet as its name and text.
    static func blockText(_ block: JSONValue) -> (String?, String?) {
        let type = block["type"]?.stringValue ?? "unknown"
        switch type {
        case "text": return (block["text"]?.stringValue, nil)
        case "tool_use":
            let name = block["name"]?.stringValue ?? "tool"
            let input = block["input"] ?? .null
            if name == "artifacts", case .object = input { return (artifact(input), nil) }
            let arguments = input == .null ? "" : ReadableJSON.text(input)
            return ("[tool call: \(name)]\n\(arguments)", nil)
        case "tool_result":
            let name = block["name"]?.stringValue.map { ": \($0)" } ?? ""
            let error = block["is_error"]?.boolValue == true ? "tool error" : "tool output"
            return ("[\(error)\(name)]\n\(resultText(block["content"]))", nil)
        case "voice_note":
            return (block["text"]?.stringValue, nil)
        default:
            return (ChatGPTMessage.unknown(type, block), rawNote)
        }
    }

    /// An artifact Claude wrote (`artifacts` tool): its title and document, or the edit.
    static func artifact(_ input: JSONValue) -> String {
        let title = input["title"]?.stringValue ?? input["id"]?.stringValue ?? "artifact"
        if let content = input["content"]?.stringValue {
            let type = input["type"]?.stringValue ?? ""
            let language = input["language"]?.stringValue
            let body =
                type.hasSuffix(".code") || language != nil ? ChatGPTMessage.fence(content, language: language) : content
            return "[artifact: \(title)]\n" + body
        }
        if let replacement = input["new_str"]?.stringValue {
            return "[artifact update: \(title)]\n" + replacement
        }
        return "[artifact: \(title)]\n" + ReadableJSON.text(input)
    }

    /// A tool result's content: a string, or a list of text blocks (others as raw JSON).
    static func resultText(_ content: JSONValue?) -> String {
        switch content {
        case .string(let s)?: return s
        case .array(let items)?:
            return items.map {
                $0["type"]?.stringValue == "text"
                    ? ($0["text"]?.stringValue ?? "") : ChatGPTMessage.unknown($0["type"]?.stringValue ?? "value", $0)
            }.joined(separator: "\n")
        case let other?: return ReadableJSON.text(other)
        case nil: return ""
        }
    }
}
