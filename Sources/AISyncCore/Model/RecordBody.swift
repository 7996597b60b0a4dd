/// The content of one version of a record, of any kind.
public enum RecordBody: Hashable, Sendable {
    /// A saved chat.
    case chat(ChatBody)
    /// An illustrated story.
    case story(StoryBody)
    /// A picture's metadata (its bytes are in the store's objects).
    case image(ImageBody)

    /// Which kind of record this body is.
    public var kind: RecordKind {
        switch self {
        case .chat: .chat
        case .story: .story
        case .image: .image
        }
    }

    /// The title of whichever kind this is; setting it keeps the kind.
    public var title: String {
        get {
            switch self {
            case .chat(let b): b.title
            case .story(let b): b.title
            case .image(let b): b.title
            }
        }
        set {
            switch self {
            case .chat(var b):
                b.title = newValue
                self = .chat(b)
            case .story(var b):
                b.title = newValue
                self = .story(b)
            case .image(var b):
                b.title = newValue
                self = .image(b)
            }
        }
    }

    /// Whether the record is a favorite, whichever kind it is; setting it keeps the kind.
    public var favorite: Bool {
        get {
            switch self {
            case .chat(let b): b.favorite
            case .story(let b): b.favorite
            case .image(let b): b.favorite
            }
        }
        set {
            switch self {
            case .chat(var b):
                b.favorite = newValue
                self = .chat(b)
            case .story(var b):
                b.favorite = newValue
                self = .story(b)
            case .image(var b):
                b.favorite = newValue
                self = .image(b)
            }
        }
    }

    /// Image digests this record refers to (its own bytes, or its pages' illustrations).
    public var imageReferences: [SHA256Digest] {
        switch self {
        case .chat: []
        case .story(let b): b.pages.compactMap(\.image)
        case .image(let b): [b.sha256]
        }
    }

    /// The body as a JSON value (Schemas/<kind>.schema.json). It includes an image's Imgur
    /// deletehash, a secret: strip it before logging or showing it.
    public var json: JSONValue {
        switch self {
        case .chat(let b): b.json
        case .story(let b): b.json
        case .image(let b): b.json
        }
    }

    /// The canonical bytes that are hashed and stored in `objects/`.
    public var canonicalBytes: [UInt8] { json.canonicalBytes }

    /// Decodes and validates a body; `expected` guards against a body stored under the wrong kind.
    public init(json: JSONValue, expected: RecordKind? = nil) throws(AISyncError) {
        guard let kindText = json["kind"]?.stringValue, let kind = RecordKind(rawValue: kindText) else {
            throw .damaged("record body has no valid \"kind\"")
        }
        if let expected, expected != kind {
            throw .damaged("record body is a \(kind.rawValue), but its journal line says \(expected.rawValue)")
        }
        switch kind {
        case .chat: self = .chat(try ChatBody(json: json))
        case .story: self = .story(try StoryBody(json: json))
        case .image: self = .image(try ImageBody(json: json))
        }
    }

    /// Parses and validates a body from JSON bytes; throws a damaged-data error when they are
    /// not valid JSON, not a body, or (with `expected`) a body of another kind.
    public init(bytes: [UInt8], expected: RecordKind? = nil) throws(AISyncError) {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            throw .damaged("record body is not valid JSON", cause: error.description)
        }
        try self.init(json: value, expected: expected)
    }
}
