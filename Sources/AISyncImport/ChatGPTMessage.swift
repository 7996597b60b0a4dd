import AISyncCore

/// One ChatGPT message node read into a chat message, or the reason it is not shown.
enum ChatGPTMessage {
    /// What a node holds.
    enum Reading {
        /// A message the app shows: its role, text, time (nil when the export has none) and
        /// notes (`image pointers noted`, `kept as raw JSON`).
        case visible(ChatBody.Role, String, Timestamp?, notes: [String])
        /// Not shown in the app, with why (`hidden by the app`, `empty`, `no message`).
        case hidden(String)
    }

    static let hiddenReason = "hidden by the app (system, hidden, weight 0)"
    static let emptyReason = "empty"

    /// Reads a node's `message` (which may be null or of the wrong type); its image pointers
    /// go through `images`.
    static func read(_ message: JSONValue?, images: inout ChatGPTImages) -> Reading {
        guard let message, case .object = message else { return .hidden("no message (tree root)") }
        let role = message["author"]?["role"]?.stringValue ?? "unknown"
        let metadata = message["metadata"]
        if role == "system" || metadata?["is_visually_hidden_from_conversation"]?.boolValue == true
            || message["weight"]?.numberValue == 0
        {
            return .hidden(
                metadata?["is_user_system_message"]?.boolValue == true ? "custom instructions" : hiddenReason)
        }
        var notes: [String] = []
        var text = content(message["content"], notes: &notes, images: &images)
        guard !text.isBlank else { return .hidden(emptyReason) }
        let chatRole: ChatBody.Role
        switch role {
        case "user": chatRole = .user
        case "assistant": chatRole = .assistant
        default:
            // Tool output (code interpreter, browsing) reads as the assistant's, labelled.
            chatRole = .assistant
            let name = message["author"]?["name"]?.stringValue ?? role
            text = "[\(name)]\n" + text
        }
        return .visible(chatRole, text, ImportIDs.time(seconds: message["create_time"]), notes: notes)
    }

    /// The text of a `content` object by its `content_type`; an unknown type is kept whole as
    /// canonical JSON (noted), never dropped.
    static func content(_ content: JSONValue?, notes: inout [String], images: inout ChatGPTImages) -> String {
        guard let content else { return "" }
        switch content["content_type"]?.stringValue {
        case "text"?, "multimodal_text"?:
            return parts(content["parts"]?.arrayValue ?? [], notes: &notes, images: &images)
        case "code"?:
            let text = content["text"]?.stringValue ?? ""
            let language = content["language"]?.stringValue.map { $0 == "unknown" ? "" : $0 } ?? ""
            return text.isEmpty ? "" : "```\(language)\n\(text)\n```"
        case "execution_output"?:
            return content["text"]?.stringValue ?? ""
        case "tether_browsing_display"?:
            return content["result"]?.stringValue ?? ""
        default:
            notes.append("kept as raw JSON (unknown content type)")
            return content.canonicalString
        }
    }

    /// Joins string parts with blank lines; image pointers become links to image records
    /// (see ``ChatGPTImages``); other objects are kept as raw JSON.
    static func parts(_ parts: [JSONValue], notes: inout [String], images: inout ChatGPTImages) -> String {
        var pieces: [String] = []
        for part in parts {
            switch part {
            case .string(let s): if !s.isEmpty { pieces.append(s) }
            case .object where part["content_type"]?.stringValue == "image_asset_pointer":
                pieces.append(images.text(for: part, notes: &notes))
            case .null: continue
            default:
                notes.append("kept as raw JSON (unknown content type)")
                pieces.append(part.canonicalString)
            }
        }
        return pieces.joined(separator: "\n\n")
    }
}
