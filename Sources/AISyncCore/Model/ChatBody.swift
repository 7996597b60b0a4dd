/// A saved conversation with a ChatGPT-style assistant.
public struct ChatBody: Hashable, Sendable {
    /// Who said a message; the raw value (`user`, `assistant`, `system`) is what is stored and synced.
    public enum Role: String, Sendable, CaseIterable {
        /// The person using the app.
        case user
        /// The AI model's reply.
        case assistant
        /// Instructions given to the model (a system prompt).
        case system
    }

    /// One message of a chat.
    public struct Message: Hashable, Sendable {
        /// The message's element id within its chat (`m-…`), stable across edits and devices;
        /// `editMessage` and `removeMessage` take it or a unique prefix of it.
        public var id: String
        /// Who said it.
        public var role: Role
        /// The message text, as plain text.
        public var text: String
        /// When the message was added; messages are shown in this order. Editing keeps it.
        public var time: Timestamp
        /// Set on a message that is not part of the transcript: a regenerated answer or an
        /// edited question the conversation branched away from (ChatGPT keeps them, so an
        /// import does too). Nil for the transcript's messages.
        public var branch: Branch?
        /// The model's reasoning before it answered (ChatGPT's `thoughts`, Claude's
        /// `thinking`), kept only when an import was asked to (`--with-reasoning`); never
        /// part of ``text``.
        public var reasoning: String?

        /// A message with the given element id, role, text and time (nothing is validated here).
        public init(
            id: String, role: Role, text: String, time: Timestamp, branch: Branch? = nil, reasoning: String? = nil
        ) {
            self.id = id
            self.role = role
            self.text = text
            self.time = time
            self.branch = branch
            self.reasoning = reasoning
        }

        /// The value of a message element in a version (its id is the element id).
        package var elementJSON: JSONValue {
            // Made for every message of every import: its members given in canonical order.
            var members: [JSONObject.Element] = []
            members.reserveCapacity(5)
            if let branch { members.append(("branch", branch.json)) }
            if let reasoning { members.append(("reasoning", .string(reasoning))) }
            members += [("role", .string(role.rawValue)), ("text", .string(text)), ("time", .string(time.iso8601))]
            return .object(JSONObject(canonicallyOrdered: members))
        }

        /// Whether `json` is a message of a role, a text, a time and maybe reasoning, each
        /// valid: accepted by ``init(elementID:json:)``, checked without making the message
        /// (a pull checks every message it reads). Anything else goes through the initializer,
        /// which says what is wrong.
        static func isPlain(_ json: JSONValue) -> Bool {
            guard case .object(let o) = json, o.count == 3 || o.count == 4,
                case .string(let role)? = o["role"], Role(rawValue: role) != nil, case .string? = o["text"],
                case .string(let time)? = o["time"], Timestamp(iso8601: time) != nil
            else { return false }
            if o.count == 4, case .string? = o["reasoning"] { return true }
            return o.count == 3
        }

        init(elementID: String, json: JSONValue) throws(AISyncError) {
            var m = try JSONObjectReader(json, context: "chat message")
            let roleText = try m.string("role")
            guard let role = Role(rawValue: roleText) else {
                throw .damaged("chat message role \"\(roleText.prefix(40))\" is not user, assistant or system")
            }
            let branch = try m.optionalValue("branch").map { (v: JSONValue) throws(AISyncError) in try Branch(json: v) }
            self.init(
                id: elementID, role: role, text: try m.string("text"), time: try m.time("time"), branch: branch,
                reasoning: try m.optionalString("reasoning"))
            try m.finish()
        }
    }

    /// Where an alternative message (one off the transcript) branches from.
    public struct Branch: Hashable, Sendable {
        /// The element id of the message it follows — on the transcript or on its own
        /// branch; nil when it starts the conversation (an edited first question).
        public var after: String?

        /// A branch after the message `after` (nil: at the start).
        public init(after: String?) { self.after = after }

        var json: JSONValue {
            var o: JSONObject = [:]
            o.setIfPresent("after", after.map(JSONValue.string))
            return .object(o)
        }

        init(json: JSONValue) throws(AISyncError) {
            var r = try JSONObjectReader(json, context: "chat message branch")
            after = try r.optionalString("after")
            if let after, !RecordID.isValid(after) { throw .damaged("chat message branch names an invalid message id") }
            try r.finish()
        }
    }

    /// The chat's title as shown in lists (at most 1000 characters when set through the store).
    public var title: String
    /// The model or engine, e.g. `gpt-4o`, or the old `davinci`/`curie`/`babbage`/`ada`.
    public var model: String?
    /// Standing instructions the user gave the assistant for this chat (ChatGPT's custom
    /// instructions: what it should know about them, how it should answer); nil when none.
    /// Shown with the chat, never as one of its messages.
    public var instructions: String?
    /// The transcript: the visible messages, oldest first (by message time).
    public var messages: [Message]
    /// Messages off the transcript (each with a ``Message/branch``), oldest first: regenerated
    /// answers and edited questions an import kept. Never mixed into `messages`.
    public var alternatives: [Message]
    /// Whether the user marked the chat as a favorite.
    public var favorite: Bool
    /// When the chat was created.
    public var created: Timestamp
    /// When any device last changed the chat: the time of its latest version.
    public var updated: Timestamp

    /// A chat body with the given fields. When it is stored (`Store.createMany`), `updated` is
    /// not written: read back, it is always the time of the record's latest version.
    public init(
        title: String, model: String?, instructions: String? = nil, messages: [Message] = [],
        alternatives: [Message] = [], favorite: Bool = false, created: Timestamp, updated: Timestamp
    ) {
        self.title = title
        self.model = model
        self.instructions = instructions
        self.messages = messages
        self.alternatives = alternatives
        self.favorite = favorite
        self.created = created
        self.updated = updated
    }

    var json: JSONValue {
        var o: JSONObject = [
            "kind": .string("chat"), "title": .string(title), "favorite": .bool(favorite),
            "created": .string(created.iso8601), "updated": .string(updated.iso8601),
            "messages": .array(messages.map(Self.messageJSON)),
        ]
        o.setIfPresent("model", model.map(JSONValue.string))
        o.setIfPresent("instructions", instructions.map(JSONValue.string))
        if !alternatives.isEmpty { o["alternatives"] = .array(alternatives.map(Self.messageJSON)) }
        return .object(o)
    }

    init(json: JSONValue) throws(AISyncError) {
        var r = try JSONObjectReader(json, context: "chat body")
        _ = try r.string("kind")
        title = try r.string("title")
        model = try r.optionalString("model")
        instructions = try r.optionalString("instructions")
        favorite = try r.bool("favorite")
        created = try r.time("created")
        updated = try r.time("updated")
        messages = try r.array("messages").map(Self.message)
        alternatives = try (r.optionalValue("alternatives")?.arrayValue ?? []).map(Self.message)
        try r.finish()
    }

    /// A message as a body lists it: its element value plus its id.
    static func messageJSON(_ m: Message) -> JSONValue {
        guard case .object(var o) = m.elementJSON else { return .null }
        o["id"] = .string(m.id)
        return .object(o)
    }

    /// Reads one message of a body's list (`id` beside the element value).
    static func message(_ item: JSONValue) throws(AISyncError) -> Message {
        guard case .object(var o) = item, case .string(let id)? = o.removeValue(forKey: "id") else {
            throw .damaged("chat message has no id")
        }
        guard RecordID.isValid(id) else { throw .damaged("chat message id \"\(id.prefix(80))\" is not a valid id") }
        return try Message(elementID: id, json: .object(o))
    }
}
