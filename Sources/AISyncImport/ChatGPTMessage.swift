import AISyncCore

/// Reads ChatGPT message nodes into chat messages, as the app shows them: text, pictures,
/// voice transcripts, tool calls and their outputs, canvas documents; custom instructions
/// and the model's reasoning apart from the transcript. One reader serves one conversation
/// (it remembers the last DALL·E request, whose prompt the pictures after it carry).
///
/// No content is ever shown as JSON: a tool's arguments are written as `key: value` lines
/// (``ReadableJSON``), and a content type not known yet reads as `[content type X]` plus
/// any text it holds.
struct ChatGPTMessage {
    /// What a node holds.
    enum Reading {
        /// A message the app shows: its role, text, time (nil when the export has none) and
        /// notes (`image files missing`, `voice recordings`…).
        case visible(ChatBody.Role, String, Timestamp?, notes: [String])
        /// Custom instructions (`is_user_system_message`, `user_editable_context`): kept
        /// with the chat, not in its transcript.
        case instructions(String)
        /// The model's reasoning (`thoughts`, `reasoning_recap`): its text, for the answer
        /// that follows when reasoning is kept.
        case reasoning(String)
        /// Not shown in the app, with why (`hidden by the app`, `empty`, `no message`).
        case hidden(String)
    }

    static let hiddenReason = "hidden by the app (system, hidden, weight 0)"
    static let emptyReason = "empty"
    static let audioNote = "voice recordings, not imported (their transcripts are)"
    static let unknownNote = "content of a type this version does not know, shown as its text"

    /// The pictures of the conversation, imported as they are met.
    var images: ChatGPTImages
    /// The prompt of the latest DALL·E request, for the pictures that answer it.
    private var dallePrompt: String?

    init(images: ChatGPTImages) { self.images = images }

    /// Reads a node's `message` (which may be null or of the wrong type).
    mutating func read(_ message: JSONTape.Node?) -> Reading {
        guard let message, message.isObject else { return .hidden("no message (tree root)") }
        let role = message["author"]?["role"]?.stringValue ?? "unknown"
        let metadata = message["metadata"]
        let content = message["content"]
        let type = content?["content_type"]?.stringValue
        if metadata?["is_user_system_message"]?.boolValue == true || type == "user_editable_context" {
            let text = Self.instructions(message)
            return text.isBlank ? .hidden(Self.emptyReason) : .instructions(text)
        }
        if type == "thoughts" || type == "reasoning_recap" { return .reasoning(Self.reasoning(content)) }
        if role == "system" || metadata?["is_visually_hidden_from_conversation"]?.boolValue == true
            || message["weight"]?.numberValue == 0
        {
            return .hidden(Self.hiddenReason)
        }
        let time = ImportIDs.time(seconds: message["create_time"])
        var notes: [String] = []
        let recipient = message["recipient"]?.stringValue ?? "all"
        var text: String
        if role == "assistant", type == "code", recipient != "all" {
            text = call(recipient, content?["text"]?.stringValue ?? "", language: content?["language"]?.stringValue)
        } else {
            // DALL·E's answer: its pictures get the request's prompt.
            let answersRequest = role == "tool" && message["author"]?["name"]?.stringValue?.hasPrefix("dalle.") == true
            text = self.content(content, request: answersRequest ? dallePrompt : nil, time: time, notes: &notes)
        }
        guard !text.isBlank else { return .hidden(Self.emptyReason) }
        let chatRole: ChatBody.Role
        switch role {
        case "user": chatRole = .user
        case "assistant": chatRole = .assistant
        default:
            // A tool's output (code interpreter, browsing, DALL·E) reads as the assistant's, labelled.
            chatRole = .assistant
            let name = message["author"]?["name"]?.stringValue ?? role
            if !Self.labelsItself(type) { text = "[\(Self.label(name)) output]\n" + text }
        }
        return .visible(chatRole, text, time, notes: notes)
    }

    /// Whether a content type's text starts with its own label (`[quote]`, `[tool error]`…).
    static func labelsItself(_ type: String?) -> Bool {
        !["text", "multimodal_text", "code", "execution_output", "tether_browsing_display"].contains(type ?? "unknown")
    }

    /// A readable name for a tool (`dalle.text2im` → `DALL·E`, `canmore.create_textdoc` → `canvas`).
    static func label(_ tool: String) -> String {
        if tool.hasPrefix("dalle.") { return "DALL·E" }
        if tool.hasPrefix("canmore.") { return "canvas" }
        if tool == "browser" || tool.hasPrefix("browser.") || tool == "web" || tool.hasPrefix("web.") {
            return "web browsing"
        }
        return tool
    }

    /// A tool call (`code` content sent to `recipient`) as what it is: a DALL·E request with
    /// its prompt, a canvas document's text, code to run, or a call with its arguments.
    mutating func call(_ recipient: String, _ text: String, language: String?) -> String {
        let arguments = text.utf8.first == UInt8(ascii: "{") ? try? JSONParser.parse(Array(text.utf8)) : nil
        switch recipient {
        case "dalle.text2im":
            dallePrompt = arguments?["prompt"]?.stringValue ?? dallePrompt
            return "[DALL·E request]\n" + (arguments.map(ReadableJSON.text) ?? text)
        case "canmore.create_textdoc":
            let name = arguments?["name"]?.stringValue ?? "document"
            let body = arguments?["content"]?.stringValue ?? ReadableJSON.text(ofEncoded: text)
            let type = arguments?["type"]?.stringValue ?? ""
            let fenced = type.hasPrefix("code/") ? Self.fence(body, language: String(type.dropFirst(5))) : body
            return "[canvas: \(name)]\n" + fenced
        case "canmore.update_textdoc":
            let updates = arguments?["updates"]?.arrayValue?.compactMap { $0["replacement"]?.stringValue } ?? []
            return "[canvas update]\n"
                + (updates.isEmpty ? ReadableJSON.text(ofEncoded: text) : updates.joined(separator: "\n\n"))
        case "canmore.comment_textdoc":
            let comments = arguments?["comments"]?.arrayValue?.compactMap { $0["comment"]?.stringValue } ?? []
            return "[canvas comments]\n"
                + (comments.isEmpty
                    ? ReadableJSON.text(ofEncoded: text) : comments.map { "- " + $0 }.joined(separator: "\n"))
        case "python":
            return "[code: python]\n" + Self.fence(text, language: "python")
        default:
            return "[tool call: \(recipient)]\n" + ReadableJSON.text(ofEncoded: text)
        }
    }

    /// The text of a `content` object by its `content_type`.
    /// `request` is the prompt of the DALL·E request the content's pictures answer, if any.
    mutating func content(_ content: JSONTape.Node?, request: String?, time: Timestamp?, notes: inout [String])
        -> String
    {
        guard let content else { return "" }
        let type = content["content_type"]?.stringValue ?? "unknown"
        switch type {
        case "text", "multimodal_text":
            return parts(content["parts"]?.elements ?? [], request: request, time: time, notes: &notes)
        case "code":
            let language = content["language"]?.stringValue
            return Self.fence(content["text"]?.stringValue ?? "", language: language)
        case "execution_output":
            return Self.fence(content["text"]?.stringValue ?? "", language: nil)
        case "tether_browsing_display":
            return content["result"]?.stringValue ?? content["summary"]?.stringValue ?? ""
        case "tether_quote":
            let quote = (content["text"]?.stringValue ?? "").split(separator: "\n", omittingEmptySubsequences: false)
                .map { "> " + $0 }.joined(separator: "\n")
            let source = [content["title"]?.stringValue, content["url"]?.stringValue].compactMap { $0 }
                .filter { !$0.isEmpty }.joined(separator: ", ")
            return "[quote]\n" + quote + (source.isEmpty ? "" : "\n— " + source)
        case "system_error":
            let name = content["name"]?.stringValue.map { " (\($0))" } ?? ""
            return "[tool error\(name)]\n" + (content["text"]?.stringValue ?? "")
        case "sonic_webpage":
            let head = [content["title"]?.stringValue, content["url"]?.stringValue].compactMap { $0 }
                .joined(separator: ", ")
            return "[web page: \(head)]\n" + (content["text"]?.stringValue ?? content["snippet"]?.stringValue ?? "")
        case "model_editable_context":
            return "[memory]\n" + (content["model_set_context"]?.stringValue ?? "")
        default:
            notes.append(Self.unknownNote)
            return Self.unknown(type, content.value)
        }
    }

    /// Joins the parts with blank lines: strings as they are, picture pointers as links to
    /// image records (see ``ChatGPTImages``), voice transcripts as text, recordings noted.
    mutating func parts(_ parts: [JSONTape.Node], request: String?, time: Timestamp?, notes: inout [String]) -> String {
        var pieces: [String] = []
        for part in parts {
            if let s = part.stringValue {
                if !s.isEmpty { pieces.append(s) }
            } else if part.isNull {
                continue
            } else if part.isObject {
                switch part["content_type"]?.stringValue ?? "unknown" {
                case "image_asset_pointer":
                    pieces.append(
                        images.text(for: part, request: request, time: time, notes: &notes))
                case "audio_transcription":
                    if let text = part["text"]?.stringValue, !text.isEmpty { pieces.append(text) }
                case "audio_asset_pointer", "real_time_user_audio_video_asset_pointer", "video_container_asset_pointer":
                    notes.append(Self.audioNote)
                case let type:
                    notes.append(Self.unknownNote)
                    pieces.append(Self.unknown(type, part.value))
                }
            } else {
                notes.append(Self.unknownNote)
                pieces.append(Self.unknown("value", part.value))
            }
        }
        return pieces.joined(separator: "\n\n")
    }

    /// A content type not known yet: its name, then every text it holds.
    static func unknown(_ type: String, _ value: JSONValue) -> String {
        let texts = ReadableJSON.strings(value, skippingKeys: ["content_type", "type", "asset_pointer", "id"])
        return (["[content type \(type)]"] + texts).joined(separator: "\n")
    }

    /// The text of custom instructions: what ChatGPT should know about the user and how it
    /// should respond, from `user_editable_context` (2024 on), `metadata.user_context_message_data`
    /// (2023), or the parts of the hidden message that carries them.
    static func instructions(_ message: JSONTape.Node) -> String {
        let content = message["content"]
        let pairs: [(String?, String?)] = [
            (content?["user_profile"]?.stringValue, content?["user_instructions"]?.stringValue),
            (
                message["metadata"]?["user_context_message_data"]?["about_user_message"]?.stringValue,
                message["metadata"]?["user_context_message_data"]?["about_model_message"]?.stringValue
            ),
        ]
        for (about, how) in pairs {
            let text = [about, how].compactMap { $0?.trimmingSpaces }.filter { !$0.isEmpty }
            if !text.isEmpty { return text.joined(separator: "\n\n") }
        }
        return (content?["parts"]?.elements ?? []).compactMap(\.stringValue).filter { !$0.isBlank }
            .joined(separator: "\n\n")
    }

    /// The text of a reasoning node: each thought's summary and content, or a recap
    /// ("Thought for 12 seconds").
    static func reasoning(_ content: JSONTape.Node?) -> String {
        guard let content else { return "" }
        if let recap = content["content"]?.stringValue { return recap }
        return (content["thoughts"]?.elements ?? []).map { thought in
            [thought["summary"]?.stringValue, thought["content"]?.stringValue].compactMap { $0 }
                .filter { !$0.isBlank }.joined(separator: "\n")
        }.filter { !$0.isEmpty }.joined(separator: "\n\n")
    }

    /// Code in a Markdown fence (empty text stays empty).
    static func fence(_ text: String, language: String?) -> String {
        guard !text.isBlank else { return "" }
        let language = language.map { $0 == "unknown" ? "" : $0 } ?? ""
        return "```\(language)\n\(text)\n```"
    }
}
