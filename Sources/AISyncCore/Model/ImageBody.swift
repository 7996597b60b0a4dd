/// Metadata of one picture; the bytes live in `objects/` under `sha256`.
public struct ImageBody: Hashable, Sendable {
    /// Where Imgur keeps a copy (design §5). `deletehash` is a secret.
    public struct ImgurLocation: Hashable, Sendable {
        public var id: String
        public var link: String
        public var deletehash: String?
        /// The sha256 of the bytes Imgur serves, which may differ from the original (re-encoding).
        public var servedSHA256: SHA256Digest?
        public var servedSize: Int64?

        public init(id: String, link: String, deletehash: String? = nil, servedSHA256: SHA256Digest? = nil, servedSize: Int64? = nil) {
            self.id = id; self.link = link; self.deletehash = deletehash; self.servedSHA256 = servedSHA256; self.servedSize = servedSize
        }

        package var json: JSONValue {
            var i: [String: JSONValue] = ["id": .string(id), "link": .string(link)]
            i.setIfPresent("deletehash", deletehash.map(JSONValue.string))
            i.setIfPresent("servedSHA256", servedSHA256.map { .string($0.hex) })
            i.setIfPresent("servedSize", servedSize.map(JSONValue.int))
            return .object(i)
        }

        package init(json: JSONValue) throws(AISyncError) {
            var i = try JSONObjectReader(json, context: "image imgur location")
            self.init(id: try i.string("id"), link: try i.string("link"), deletehash: try i.optionalString("deletehash"),
                      servedSHA256: try i.optionalDigest("servedSHA256"), servedSize: try i.optionalInt("servedSize"))
            try i.finish()
        }
    }

    public var title: String
    /// The sha256 of the original bytes.
    public var sha256: SHA256Digest
    public var size: Int64
    public var mediaType: String
    public var width: Int64?
    public var height: Int64?
    public var prompt: String?
    public var model: String?
    public var imgur: ImgurLocation?
    public var favorite: Bool
    public var created: Timestamp
    public var updated: Timestamp

    public init(title: String, sha256: SHA256Digest, size: Int64, mediaType: String, width: Int64? = nil, height: Int64? = nil,
                prompt: String? = nil, model: String? = nil, imgur: ImgurLocation? = nil, favorite: Bool = false,
                created: Timestamp, updated: Timestamp) {
        self.title = title; self.sha256 = sha256; self.size = size; self.mediaType = mediaType
        self.width = width; self.height = height; self.prompt = prompt; self.model = model; self.imgur = imgur
        self.favorite = favorite; self.created = created; self.updated = updated
    }

    var json: JSONValue {
        var o: [String: JSONValue] = [
            "kind": .string("image"), "title": .string(title), "favorite": .bool(favorite),
            "created": .string(created.iso8601), "updated": .string(updated.iso8601),
            "sha256": .string(sha256.hex), "size": .int(size), "mediaType": .string(mediaType),
        ]
        o.setIfPresent("width", width.map(JSONValue.int))
        o.setIfPresent("height", height.map(JSONValue.int))
        o.setIfPresent("prompt", prompt.map(JSONValue.string))
        o.setIfPresent("model", model.map(JSONValue.string))
        o.setIfPresent("imgur", imgur?.json)
        return .object(o)
    }

    init(json: JSONValue) throws(AISyncError) {
        var r = try JSONObjectReader(json, context: "image body")
        _ = try r.string("kind")
        title = try r.string("title")
        sha256 = try r.digest("sha256")
        size = try r.int("size")
        guard size >= 0 else { throw .damaged("image body: size is negative") }
        mediaType = try r.string("mediaType")
        width = try r.optionalInt("width")
        height = try r.optionalInt("height")
        prompt = try r.optionalString("prompt")
        model = try r.optionalString("model")
        favorite = try r.bool("favorite")
        created = try r.time("created")
        updated = try r.time("updated")
        imgur = try r.optionalValue("imgur").map { (v: JSONValue) throws(AISyncError) -> ImgurLocation in try ImgurLocation(json: v) }
        try r.finish()
    }
}
