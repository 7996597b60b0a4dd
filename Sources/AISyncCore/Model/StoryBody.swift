/// An AI-illustrated picture book: an LLM writes the pages, an image model draws them.
public struct StoryBody: Hashable, Sendable {
    /// One page of a story: its text and, optionally, its illustration.
    public struct Page: Hashable, Sendable {
        /// The page's element id (records v2), stable across edits.
        public var id: String
        /// Where the page sits in the book: pages are shown in (position, time, id) order.
        public var position: Int64
        /// The page's text, as the LLM (or the user) wrote it.
        public var text: String
        /// The sha256 of the illustration's original bytes; never a path or URL (docs/DESIGN.md §3.1).
        public var image: SHA256Digest?
        /// A page with element id `id` at 1-based `position`; `image` is the illustration's
        /// sha256, nil for a page without a picture.
        public init(id: String, position: Int64, text: String, image: SHA256Digest? = nil) {
            self.id = id
            self.position = position
            self.text = text
            self.image = image
        }

        /// The value of a page element in a version.
        var elementJSON: JSONValue {
            var o: JSONObject = ["n": .int(position), "text": .string(text)]
            o.setIfPresent("image", image.map { .string($0.hex) })
            return .object(o)
        }

        init(json: JSONValue, id: String = "p") throws(AISyncError) {
            var p = try JSONObjectReader(json, context: "story page")
            self.init(
                id: id, position: try p.int("n"), text: try p.string("text"), image: try p.optionalDigest("image"))
            try p.finish()
        }
    }

    /// The story's title as shown in lists.
    public var title: String
    /// The lesson the story ends on; nil when it has none.
    public var moral: String?
    /// The visible pages, in reading order.
    public var pages: [Page]
    /// The prompts the illustrations were drawn from.
    public var prompts: [String]
    /// Whether the user marked the story as a favorite.
    public var favorite: Bool
    /// When the story was created.
    public var created: Timestamp
    /// When any device last changed the story: the time of its latest version.
    public var updated: Timestamp

    /// A story body with the given fields. When it is stored (`Store.createMany`), `updated`
    /// is not written: read back, it is always the time of the record's latest version.
    public init(
        title: String, moral: String?, pages: [Page], prompts: [String] = [], favorite: Bool = false,
        created: Timestamp, updated: Timestamp
    ) {
        self.title = title
        self.moral = moral
        self.pages = pages
        self.prompts = prompts
        self.favorite = favorite
        self.created = created
        self.updated = updated
    }

    var json: JSONValue {
        var o: JSONObject = [
            "kind": .string("story"), "title": .string(title), "favorite": .bool(favorite),
            "created": .string(created.iso8601), "updated": .string(updated.iso8601),
            "prompts": .array(prompts.map(JSONValue.string)),
            "pages": .array(
                pages.map { p in
                    var po: JSONObject = ["id": .string(p.id), "text": .string(p.text)]
                    po.setIfPresent("image", p.image.map { .string($0.hex) })
                    return .object(po)
                }),
        ]
        o.setIfPresent("moral", moral.map(JSONValue.string))
        return .object(o)
    }

    /// Decodes a body; v1 bodies have pages without ids, which get `page-N` by position.
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
        for (n, item) in try r.array("pages").enumerated() {
            var p = try JSONObjectReader(item, context: "story page")
            let id = try p.optionalString("id") ?? "page-\(n + 1)"
            guard RecordID.isValid(id) else { throw .damaged("story page id \"\(id.prefix(80))\" is not a valid id") }
            pages.append(
                Page(id: id, position: Int64(n + 1), text: try p.string("text"), image: try p.optionalDigest("image")))
            try p.finish()
        }
        self.pages = pages
        try r.finish()
    }
}
