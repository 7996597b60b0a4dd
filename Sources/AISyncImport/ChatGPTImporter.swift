import AISyncCore

/// ChatGPT's `conversations.json`: a list of conversations, each a tree of message nodes.
///
/// Each conversation becomes one chat (id from `chatgpt:` + its id); its main transcript
/// (see ``ChatGPTTranscript``) becomes the messages, with ids from the node ids. Messages on
/// other branches (regenerations, edits) are not mixed in: they are counted in the summary.
/// Pictures the messages point to become image records (see ``ChatGPTImages``). A
/// conversation that is damaged is skipped whole, with why; the others are imported.
enum ChatGPTImporter {
    static let otherBranches = "on other branches (regenerations, edits), not imported"
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

    static func read(_ document: ImportInput.Document, assets: ChatGPTAssets?, into batch: inout ImportBatch) throws(AISyncError) {
        guard case .array(let conversations) = document.value else {
            throw Import.notAn("a ChatGPT export", document, expected: "a list of conversations")
        }
        var seen: Set<String> = []
        var images: Set<RecordID> = []
        for (n, conversation) in conversations.enumerated() {
            switch chat(conversation, assets: assets) {
            case .success(let c):
                guard seen.insert(c.key).inserted else { batch.skip(c.key, "the same conversation twice in one export"); continue }
                for image in c.images where images.insert(image.id).inserted {
                    batch.add(image.id, .image(image.body), imageBytes: image.bytes, imageFile: image.path)
                }
                batch.add(c.id, .chat(c.body), notes: c.notes)
            case .failure(let skip):
                batch.skip(conversation["conversation_id"]?.stringValue ?? conversation["id"]?.stringValue ?? "#\(n + 1)", skip.reason)
            }
        }
    }

    /// One conversation as a chat body and its pictures, or why it cannot be imported.
    static func chat(_ c: JSONValue, assets: ChatGPTAssets?) -> Result<Conversation, Damaged> {
        guard case .object = c else { return .failure(Damaged(reason: "not an object")) }
        guard let sourceID = c["conversation_id"]?.stringValue ?? c["id"]?.stringValue, !sourceID.isEmpty else {
            return .failure(Damaged(reason: "it has no id"))
        }
        guard case .object(let mapping)? = c["mapping"] else { return .failure(Damaged(reason: "its mapping is missing or not an object")) }
        if let title = c["title"], title != .null, title.stringValue == nil { return .failure(Damaged(reason: "its title is not a string")) }
        let key = "chatgpt:\(sourceID)"
        let transcript = ChatGPTTranscript(mapping: mapping, currentNode: c["current_node"]?.stringValue)
        var notes: [String: Int] = [:]
        if transcript.broken { notes[brokenTree] = 1 }
        if transcript.guessed { notes[newestBranch] = 1 }
        let created = ImportIDs.time(seconds: c["create_time"]) ?? ImportIDs.time(seconds: c["update_time"]) ?? Timestamp(milliseconds: 0)
        var images = ChatGPTImages(assets: assets, created: created)
        let messages = self.messages(transcript.path, mapping: mapping, key: key, start: created, notes: &notes, images: &images)
        let others = otherBranchMessages(mapping, besides: Set(transcript.path))
        if others > 0 { notes[otherBranches] = others }
        let model = c["default_model_slug"]?.stringValue ?? messages.model
        let body = ChatBody(title: ImportIDs.title(c["title"]?.stringValue, fallback: "Untitled chat"), model: model,
                            messages: messages.list, created: created, updated: created)
        return .success(Conversation(key: key, id: ImportIDs.record(.chat, key: key), body: body, notes: notes, images: images.found))
    }

    /// How many nodes off the main path hold a message the app would show.
    static func otherBranchMessages(_ mapping: [String: JSONValue], besides path: Set<String>) -> Int {
        var ignored = ChatGPTImages(assets: nil, created: Timestamp(milliseconds: 0))
        return mapping.filter { id, node in
            guard !path.contains(id), case .visible = ChatGPTMessage.read(node["message"], images: &ignored) else { return false }
            return true
        }.count
    }

    /// The visible messages of the path, with times that only go forward (a message without
    /// a time, or with an earlier one, goes 1 ms after the one before), so the order shown is
    /// the transcript's. Also the last `metadata.model_slug` seen.
    static func messages(_ path: [String], mapping: [String: JSONValue], key: String, start: Timestamp,
                         notes: inout [String: Int], images: inout ChatGPTImages) -> (list: [ChatBody.Message], model: String?) {
        var list: [ChatBody.Message] = []
        var model: String?
        var last = start.milliseconds - 1
        for nodeID in path {
            let message = mapping[nodeID]?["message"]
            switch ChatGPTMessage.read(message, images: &images) {
            case .hidden(let reason):
                if message != nil, message != .null { notes[reason, default: 0] += 1 }
            case .visible(let role, let text, let time, let messageNotes):
                for note in messageNotes { notes[note, default: 0] += 1 }
                last = max(time?.milliseconds ?? last + 1, last + 1)
                let id = ImportIDs.element("m", key: key, source: nodeID)
                list.append(ChatBody.Message(id: id, role: role, text: text, time: Timestamp(milliseconds: last)))
                model = message?["metadata"]?["model_slug"]?.stringValue ?? model
            }
        }
        return (list, model)
    }
}
