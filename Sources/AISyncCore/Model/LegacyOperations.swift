/// How an aisync 1 version (a whole body) reads as records v2 operations.
///
/// A pure function of the body alone, so every device reads the same v1 version the same
/// way: it sets every register and adds every element it holds. Two concurrent v1 versions
/// that each appended a message therefore show both messages, where aisync 1 showed one.
/// Values stay inline (the body object already holds them); `FieldValue.sameContent`
/// compares them with v2 object values.
package enum LegacyOperations {
    package static func operations(of body: RecordBody?) -> [Operation] {
        guard let body else { return [.delete] }
        return body.creationOperations(inlineOnly: true).ops
    }
}

extension ImageBody {
    /// Every register of an image record with its value (the first version sets them all).
    static func registerValues(_ b: ImageBody) -> [(String, JSONValue)] {
        [
            ("title", .string(b.title)), ("sha256", .string(b.sha256.hex)), ("size", .int(b.size)),
            ("mediaType", .string(b.mediaType)), ("width", b.width.map(JSONValue.int) ?? .null),
            ("height", b.height.map(JSONValue.int) ?? .null), ("prompt", b.prompt.map(JSONValue.string) ?? .null),
            ("model", b.model.map(JSONValue.string) ?? .null), ("imgur", b.imgur?.json ?? .null),
            ("favorite", .bool(b.favorite)), ("created", .string(b.created.iso8601)),
        ]
    }
}
