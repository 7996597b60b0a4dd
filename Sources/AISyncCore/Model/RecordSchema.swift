/// Which fields each kind of record has, and what their values may be (records v2).
///
/// Registers merge on their own (a multi-value register per field); the one collection of a
/// kind is an add-wins observed-remove set of elements keyed by element id. Values are
/// checked here whenever they arrive from outside, so a forged operation cannot put a
/// number where a title belongs.
public enum RecordSchema {
    /// The register deletion writes (`delete` / `restore`).
    public static let deletedField = "deleted"
    /// The register an import writes with the source app's last activity (an ISO 8601
    /// time): the record's "updated" time and list order then follow the source, not the
    /// moment of import (see ``RecordState/contentTime``).
    public static let activityField = "activity"

    /// The register fields a `set` may write for `kind` (``deletedField`` is written only by
    /// `delete`/`restore`, so it is not listed).
    public static func registers(_ kind: RecordKind) -> [String] {
        switch kind {
        case .chat: ["title", "model", "instructions", "favorite", "created", activityField]
        case .story: ["title", "moral", "prompts", "favorite", "created", activityField]
        case .image:
            [
                "title", "sha256", "size", "mediaType", "width", "height", "prompt", "model", "imgur", "favorite",
                "created", activityField,
            ]
        }
    }

    /// The collection field of a kind, if it has one.
    public static func collection(_ kind: RecordKind) -> String? {
        switch kind {
        case .chat: "messages"
        case .story: "pages"
        case .image: nil
        }
    }

    static func validate(_ value: JSONValue, field: String, element: Bool, kind: RecordKind) throws(AISyncError) {
        func bad(_ expected: String) -> AISyncError {
            .damaged("\(kind.rawValue) field \"\(field)\" must be \(expected)")
        }
        if element {
            switch kind {
            case .chat: if !ChatBody.Message.isPlain(value) { _ = try ChatBody.Message(elementID: "m", json: value) }
            case .story: _ = try StoryBody.Page(json: value)
            case .image: throw bad("a register")
            }
            return
        }
        switch (field, value) {
        case ("title", .string(let s)): if s.unicodeScalars.count > 1000 { throw bad("at most 1000 characters") }
        case ("favorite", .bool): break
        case ("created", .string(let s)), (activityField, .string(let s)):
            if Timestamp(iso8601: s) == nil { throw bad("a time") }
        case ("model", .string), ("model", .null), ("moral", .string), ("moral", .null),
            ("prompt", .string), ("prompt", .null), ("mediaType", .string), ("instructions", .string),
            ("instructions", .null):
            break
        case ("prompts", .array(let items)):
            if !items.allSatisfy({ $0.stringValue != nil }) { throw bad("an array of strings") }
        case ("sha256", .string(let s)): if SHA256Digest(hex: s) == nil { throw bad("a sha256") }
        case ("size", .int(let n)): if n < 0 { throw bad("a size ≥ 0") }
        case ("width", .int(let n)), ("height", .int(let n)): if n < 0 { throw bad("a number ≥ 0") }
        case ("width", .null), ("height", .null), ("imgur", .null): break
        case ("imgur", .object): _ = try ImageBody.ImgurLocation(json: value)
        default: throw bad("of another type")
        }
    }
}
