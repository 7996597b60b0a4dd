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
        /// A message with the given element id, role, text and time (nothing is validated here).
        public init(id: String, role: Role, text: String, time: Timestamp) {
            self.id = id; self.role = role; self.text = text; self.time = time
        }

        /// The value of a message element in a version (its id is the element id).
        package var elementJSON: JSONValue {
            .object(["role": .string(role.rawValue), "text": .string(text), "time": .string(time.iso8601)])
        }

        init(elementID: String, json: JSONValue) throws(AISyncError) {
            var m = try JSONObjectReader(json, context: "chat message")
            let roleText = try m.string("role")
            guard let role = Role(rawValue: roleText) else { throw .damaged("chat message role \"\(roleText.prefix(40))\" is not user, assistant or system") }
            self.init(id: elementID, role: role, text: try m.string("text"), time: try m.time("time"))
            try m.finish()
        }
    }

    /// The chat's title as shown in lists (at most 1000 characters when set through the store).
    public var title: String
    /// The model or engine, e.g. `gpt-4o`, or the old `davinci`/`curie`/`babbage`/`ada`.
    public var model: String?
    /// The visible messages, oldest first (by message time).
    public var messages: [Message]
    /// Whether the user marked the chat as a favorite.
    public var favorite: Bool
    /// When the chat was created.
    public var created: Timestamp
    /// When any device last changed the chat: the time of its latest version.
    public var updated: Timestamp

    /// A chat body with the given fields. When it is stored (`Store.createMany`), `updated` is
    /// not written: read back, it is always the time of the record's latest version.
    public init(title: String, model: String?, messages: [Message] = [], favorite: Bool = false, created: Timestamp, updated: Timestamp) {
        self.title = title; self.model = model; self.messages = messages
        self.favorite = favorite; self.created = created; self.updated = updated
    }

    var json: JSONValue {
        var o: [String: JSONValue] = [
            "kind": .string("chat"), "title": .string(title), "favorite": .bool(favorite),
            "created": .string(created.iso8601), "updated": .string(updated.iso8601),
            "messages": .array(messages.map { m in
                .object(["id": .string(m.id), "role": .string(m.role.rawValue), "text": .string(m.text), "time": .string(m.time.iso8601)])
            }),
        ]
        o.setIfPresent("model", model.map(JSONValue.string))
        return .object(o)
    }

    init(json: JSONValue) throws(AISyncError) {
        var r = try JSONObjectReader(json, context: "chat body")
        _ = try r.string("kind")
        title = try r.string("title")
        model = try r.optionalString("model")
        favorite = try r.bool("favorite")
        created = try r.time("created")
        updated = try r.time("updated")
        var messages: [Message] = []
        for item in try r.array("messages") {
            var m = try JSONObjectReader(item, context: "chat message")
            let id = try m.string("id")
            guard RecordID.isValid(id) else { throw .damaged("chat message id \"\(id)\" is not a valid id") }
            let roleText = try m.string("role")
            guard let role = Role(rawValue: roleText) else { throw .damaged("chat message role \"\(roleText)\" is not user, assistant or system") }
            messages.append(Message(id: id, role: role, text: try m.string("text"), time: try m.time("time")))
            try m.finish()
        }
        self.messages = messages
        try r.finish()
    }
}
