/// An AI-illustrated picture book: an LLM writes the pages, an image model draws them.
public struct StoryBody: Hashable, Sendable {
    public struct Page: Hashable, Sendable {
        public var text: String
        /// The sha256 of the illustration's original bytes; never a path or URL (design §1).
        public var image: SHA256Digest?
        public init(text: String, image: SHA256Digest? = nil) { self.text = text; self.image = image }
    }

    public var title: String
    public var moral: String?
    public var pages: [Page]
    /// The prompts the illustrations were drawn from.
    public var prompts: [String]
    public var favorite: Bool
    public var created: Timestamp
    public var updated: Timestamp

    public init(title: String, moral: String?, pages: [Page], prompts: [String] = [], favorite: Bool = false, created: Timestamp, updated: Timestamp) {
        self.title = title; self.moral = moral; self.pages = pages; self.prompts = prompts
        self.favorite = favorite; self.created = created; self.updated = updated
    }

    var json: JSONValue {
        var o: [String: JSONValue] = [
            "kind": .string("story"), "title": .string(title), "favorite": .bool(favorite),
            "created": .string(created.iso8601), "updated": .string(updated.iso8601),
            "prompts": .array(prompts.map(JSONValue.string)),
            "pages": .array(pages.map { p in
                var po: [String: JSONValue] = ["text": .string(p.text)]
                po.setIfPresent("image", p.image.map { .string($0.hex) })
                return .object(po)
            }),
        ]
        o.setIfPresent("moral", moral.map(JSONValue.string))
        return .object(o)
    }

    init(json: JSONValue) throws(AISyncError) {
        var r = try JSONObjectReader(json, context: "story body")
        _ = try r.string("kind")
        title = try r.string("title")
        moral = try r.optionalString("moral")
        favorite = try r.bool("favorite")
        created = try r.time("created")
        updated = try r.time("updated")
        var prompts: [String] = []
        for p in try r.array("prompts") {
            guard case .string(let s) = p else { throw .damaged("story body: prompts must be strings") }
            prompts.append(s)
        }
        self.prompts = prompts
        var pages: [Page] = []
        for item in try r.array("pages") {
            var p = try JSONObjectReader(item, context: "story page")
            pages.append(Page(text: try p.string("text"), image: try p.optionalDigest("image")))
            try p.finish()
        }
        self.pages = pages
        try r.finish()
    }
}
