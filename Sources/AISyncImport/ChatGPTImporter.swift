import AISyncCore

/// ChatGPT's `conversations.json`: a list of conversations, each a tree of message nodes.
///
/// Each conversation becomes one chat (id from `chatgpt:` + its id); its main transcript
/// (see ``ChatGPTTranscript``) becomes the messages, with ids from the node ids. Messages on
/// other branches (regenerations, edits) are kept as ``ChatBody/alternatives``, each marked
/// with the message it follows, never mixed into the transcript.
/// Pictures the messages point to become image records (see ``ChatGPTImages``). A
/// conversation that is damaged is skipped whole, with why; the others are imported.
enum ChatGPTImporter {
    static let otherBranches = "on other branches (regenerations, edits), kept as alternatives"
    static let brokenTree = "broken tree (missing parent, cycle or unknown current node): the path found was kept"
    static let newestBranch = "no current node: the newest branch was taken"

    /// One conversation, read.
    struct Conversation {
        var key: String
        var id: RecordID
        var body: ChatBody
        var notes: [String: Int]
        var images: [ChatGPTImages.Found]
    }

    struct Damaged: Error { var reason: String }

    static func read(
        _ document: ImportInput.Document, assets: ChatGPTAssets?, withReasoning: Bool = false,
        into batch: inout ImportBatch
    ) throws(AISyncError) {
        var tape = JSONTape.Builder()
        switch document.value {
        case .array(let list): for conversation in list { tape.append(conversation) }
        // One saved conversation (an exporter extension, the app's own API) is a one-element export.
        case .object where document.value["mapping"] != nil: tape.append(document.value)
        default: throw Import.notAn("a ChatGPT export", document, expected: "a list of conversations")
        }
        tape.finish().withRoots { read($0, assets: assets, withReasoning: withReasoning, into: &batch) }
    }

    /// Reads conversations parsed into a tape (a big export's batch, ``Import/Slicer``),
    /// inside ``JSONTape/withRoots(_:)``.
    static func read(
        _ conversations: [JSONTape.Node], assets: ChatGPTAssets?, withReasoning: Bool = false,
        into batch: inout ImportBatch
    ) {
        var seen: Set<String> = []
        var images: Set<RecordID> = []
        for (n, conversation) in conversations.enumerated() {
            switch chat(conversation, assets: assets, withReasoning: withReasoning) {
            case .success(let c):
                guard seen.insert(c.key).inserted else {
                    batch.skip(c.key, "the same conversation twice in one export")
                    continue
                }
                for image in c.images where images.insert(image.id).inserted {
                    batch.add(
                        image.id, .image(image.body), imageBytes: image.bytes, imageFile: image.path,
                        activity: image.body.created)
                }
                batch.add(c.id, .chat(c.body), notes: c.notes, activity: c.body.updated)
            case .failure(let skip):
                batch.skip(
                    conversation["conversation_id"]?.stringValue ?? conversation["id"]?.stringValue ?? "#\(n + 1)",
                    skip.reason)
            }
        }
    }

    /// One conversation as a chat body and its pictures, or why it cannot be imported.
    static func chat(_ c: JSONTape.Node, assets: ChatGPTAssets?, withReasoning: Bool = false) -> Result<
        Conversation, Damaged
    > {
        guard c.isObject else { return .failure(Damaged(reason: "not an object")) }
        guard let sourceID = c["conversation_id"]?.stringValue ?? c["id"]?.stringValue, !sourceID.isEmpty else {
            return .failure(Damaged(reason: "it has no id"))
        }
        guard let mapping = c["mapping"]?.lookup() else {
            return .failure(Damaged(reason: "its mapping is missing or not an object"))
        }
        if let title = c["title"], !title.isNull, title.stringValue == nil {
            return .failure(Damaged(reason: "its title is not a string"))
        }
        let key = "chatgpt:\(sourceID)"
        let transcript = ChatGPTTranscript(mapping: mapping, currentNode: c["current_node"]?.stringValue)
        var notes: [String: Int] = [:]
        if transcript.broken { notes[brokenTree] = 1 }
        if transcript.guessed { notes[newestBranch] = 1 }
        let created =
            ImportIDs.time(seconds: c["create_time"]) ?? ImportIDs.time(seconds: c["update_time"])
            ?? Timestamp(milliseconds: 0)
        var reader = ChatGPTMessage(images: ChatGPTImages(assets: assets, created: created))
        let messages = self.messages(
            transcript.path, mapping: mapping, key: key, start: created, withReasoning: withReasoning, notes: &notes,
            reader: &reader)
        let alternatives = self.alternatives(
            mapping, onPath: messages.times, path: Set(transcript.path), key: key, start: created, reader: &reader)
        if !alternatives.isEmpty { notes[otherBranches] = alternatives.count }
        let model = c["default_model_slug"]?.stringValue ?? messages.model
        // The source's last activity: its update time, or its last message when that is later.
        let lastMessage = messages.list.last?.time ?? created
        let updated = max(ImportIDs.time(seconds: c["update_time"]) ?? created, lastMessage)
        let body = ChatBody(
            title: ImportIDs.title(c["title"]?.stringValue, fallback: "Untitled chat"), model: model,
            instructions: messages.instructions, messages: messages.list, alternatives: alternatives,
            created: created, updated: updated)
        return .success(
            Conversation(
                key: key, id: ImportIDs.record(.chat, key: key), body: body, notes: notes,
                images: reader.images.found))
    }

    /// The messages the app would show on other branches (regenerations, edits), each marked
    /// with the message it follows: its nearest ancestor that is shown (nil at the start).
    /// `onPath` maps the transcript's shown nodes to their times. Times come from the export
    /// (else 1 ms after the message followed); the list is ordered by time, then id, so an
    /// import is the same on every run.
    static func alternatives(
        _ mapping: JSONTape.Lookup, onPath: [String: Timestamp], path: Set<String>, key: String,
        start: Timestamp, reader: inout ChatGPTMessage
    ) -> [ChatBody.Message] {
        var shown: [String: (role: ChatBody.Role, text: String, time: Timestamp?)] = [:]
        // In id order (by bytes), so a DALL·E request and its pictures read the same on every
        // run and by either import path.
        for (id, node) in mapping.members.sorted(by: { JSONObject.precedes($0.key, $1.key) })
        where !path.contains(id) {
            if case .visible(let role, let text, let time, _) = reader.read(node["message"]) {
                shown[id] = (role, text, time)
            }
        }
        guard !shown.isEmpty else { return [] }
        var list: [ChatBody.Message] = []
        for (id, message) in shown {
            let parent = visibleAncestor(
                of: id, parent: { mapping[$0]?["parent"]?.stringValue },
                isShown: { shown[$0] != nil || onPath[$0] != nil })
            let parentTime = parent.flatMap { onPath[$0] ?? shown[$0]?.time } ?? start
            let time = message.time ?? Timestamp(milliseconds: parentTime.milliseconds + 1)
            list.append(
                ChatBody.Message(
                    id: ImportIDs.element("m", key: key, source: id), role: message.role, text: message.text,
                    time: time,
                    branch: ChatBody.Branch(after: parent.map { ImportIDs.element("m", key: key, source: $0) })))
        }
        return list.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
    }

    /// The nearest ancestor of `id` that `isShown`, following `parent` links (a cycle or a
    /// missing parent ends the walk).
    /// ChatGPT's nodes and Claude's messages both branch this way.
    static func visibleAncestor(of id: String, parent: (String) -> String?, isShown: (String) -> Bool) -> String? {
        var visited: Set<String> = [id]
        var cursor = parent(id)
        while let current = cursor, visited.insert(current).inserted {
            if isShown(current) { return current }
            cursor = parent(current)
        }
        return nil
    }

    /// What the path holds: the visible messages, the chat's custom instructions, the last
    /// model named, and the times given to the nodes shown.
    struct Path {
        var list: [ChatBody.Message] = []
        var instructions: String?
        var model: String?
        var times: [String: Timestamp] = [:]
    }

    static let reasoningLeftOut = "reasoning steps, left out (import keeping reasoning to have them)"
    static let reasoningKept = "reasoning steps, kept with the answers"
    static let instructionsNote = "custom instructions, kept with the chat"

    /// The visible messages of the path, with times that only go forward (a message without
    /// a time, or with an earlier one, goes 1 ms after the one before), so the order shown is
    /// the transcript's. Custom instructions go to the chat; reasoning goes to the answer
    /// after it when `withReasoning`, else is counted.
    static func messages(
        _ path: [String], mapping: JSONTape.Lookup, key: String, start: Timestamp, withReasoning: Bool,
        notes: inout [String: Int], reader: inout ChatGPTMessage
    ) -> Path {
        var result = Path()
        var last = start.milliseconds - 1
        var reasoning: [String] = []
        for nodeID in path {
            let message = mapping[nodeID]?["message"]
            switch reader.read(message) {
            case .hidden(let reason):
                if let message, !message.isNull { notes[reason, default: 0] += 1 }
            case .instructions(let text):
                if result.instructions == nil { notes[instructionsNote, default: 0] += 1 }
                result.instructions = result.instructions.map { $0 == text ? $0 : $0 + "\n\n" + text } ?? text
            case .reasoning(let text):
                notes[withReasoning ? reasoningKept : reasoningLeftOut, default: 0] += 1
                if withReasoning, !text.isBlank { reasoning.append(text) }
            case .visible(let role, let text, let time, let messageNotes):
                for note in messageNotes { notes[note, default: 0] += 1 }
                last = max(time?.milliseconds ?? last + 1, last + 1)
                let id = ImportIDs.element("m", key: key, source: nodeID)
                var kept: String?
                if role == .assistant, !reasoning.isEmpty {
                    kept = reasoning.joined(separator: "\n\n")
                    reasoning = []
                }
                result.list.append(
                    ChatBody.Message(
                        id: id, role: role, text: text, time: Timestamp(milliseconds: last), reasoning: kept))
                result.times[nodeID] = Timestamp(milliseconds: last)
                result.model = message?["metadata"]?["model_slug"]?.stringValue ?? result.model
            }
        }
        return result
    }
}
