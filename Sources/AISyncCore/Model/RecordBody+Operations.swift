/// The operations that create a record, and the objects their large values go to.
extension RecordBody {
    /// Operations and the objects they refer to, collected as they are made.
    package struct OperationList {
        package var ops: [Operation] = []
        /// Large values, by sha256 of their canonical bytes.
        package var objects: [SHA256Digest: [UInt8]] = [:]
        /// Keeps every value inline (reading an aisync 1 body, whose object holds them all).
        package var inlineOnly = false
        package init(ops: [Operation] = [], inlineOnly: Bool = false) {
            self.ops = ops
            self.inlineOnly = inlineOnly
        }

        mutating func make(_ value: JSONValue) -> FieldValue {
            if inlineOnly { return .inline(value) }
            let (v, bytes) = FieldValue.make(value)
            if let bytes, let d = v.objectDigest { objects[d] = bytes }
            return v
        }
        package mutating func set(_ field: String, _ value: JSONValue) {
            ops.append(.set(field: field, value: make(value)))
        }
        package mutating func add(_ field: String, _ element: String, _ value: JSONValue) {
            ops.append(.add(field: field, element: element, value: make(value)))
        }
        package mutating func edit(_ field: String, _ element: String, _ value: JSONValue) {
            ops.append(.edit(field: field, element: element, value: make(value)))
        }
    }

    /// Every register and element of the body, as the first version of a new record.
    package func creationOperations(inlineOnly: Bool = false) -> OperationList {
        var list = OperationList(inlineOnly: inlineOnly)
        switch self {
        case .chat(let b):
            list.set("title", .string(b.title))
            list.set("model", b.model.map(JSONValue.string) ?? .null)
            // Only a chat that has instructions sets them, so every other chat's first
            // version stays what earlier versions of aisync write and read.
            if let instructions = b.instructions { list.set("instructions", .string(instructions)) }
            list.set("favorite", .bool(b.favorite))
            list.set("created", .string(b.created.iso8601))
            list.ops.reserveCapacity(list.ops.count + b.messages.count + b.alternatives.count)
            for m in b.messages { list.add("messages", m.id, m.elementJSON) }
            for m in b.alternatives { list.add("messages", m.id, m.elementJSON) }
        case .story(let b):
            list.set("title", .string(b.title))
            list.set("moral", b.moral.map(JSONValue.string) ?? .null)
            list.set("prompts", .array(b.prompts.map(JSONValue.string)))
            list.set("favorite", .bool(b.favorite))
            list.set("created", .string(b.created.iso8601))
            for p in b.pages { list.add("pages", p.id, p.elementJSON) }
        case .image(let b):
            for (field, value) in ImageBody.registerValues(b) { list.set(field, value) }
        }
        return list
    }
}
