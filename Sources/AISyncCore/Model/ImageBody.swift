/// Metadata of one picture; the bytes live in `objects/` under `sha256`.
public struct ImageBody: Hashable, Sendable {
    /// Where Imgur keeps a copy (docs/DESIGN.md §7). `deletehash` is a secret.
    public struct ImgurLocation: Hashable, Sendable {
        /// Imgur's id of the uploaded image (e.g. `aB3dE5f`); deletes use it with an OAuth token.
        public var id: String
        /// The direct URL Imgur serves the picture at (e.g. `https://i.imgur.com/aB3dE5f.png`).
        public var link: String
        /// The secret that lets anyone delete the image with just a client id; nil when Imgur
        /// gave none. Never log or print it: it syncs only through the private remote, and
        /// `aisync show` hides it unless `--show-secrets` is given.
        public var deletehash: String?
        /// The sha256 of the bytes Imgur serves, which may differ from the original (re-encoding).
        public var servedSHA256: SHA256Digest?
        /// The size in bytes of what Imgur serves (after any re-encoding); nil when unknown.
        public var servedSize: Int64?

        /// A location as recorded after an upload. `deletehash` is a secret (see ``deletehash``).
        public init(
            id: String, link: String, deletehash: String? = nil, servedSHA256: SHA256Digest? = nil,
            servedSize: Int64? = nil
        ) {
            self.id = id
            self.link = link
            self.deletehash = deletehash
            self.servedSHA256 = servedSHA256
            self.servedSize = servedSize
        }

        package var json: JSONValue {
            var i: JSONObject = ["id": .string(id), "link": .string(link)]
            i.setIfPresent("deletehash", deletehash.map(JSONValue.string))
            i.setIfPresent("servedSHA256", servedSHA256.map { .string($0.hex) })
            i.setIfPresent("servedSize", servedSize.map(JSONValue.int))
            return .object(i)
        }

        package init(json: JSONValue) throws(AISyncError) {
            var i = try JSONObjectReader(json, context: "image imgur location")
            self.init(
                id: try i.string("id"), link: try i.string("link"), deletehash: try i.optionalString("deletehash"),
                servedSHA256: try i.optionalDigest("servedSHA256"), servedSize: try i.optionalInt("servedSize"))
            try i.finish()
        }
    }

    /// The picture's title as shown in lists (the file name when added from a file without one).
    public var title: String
    /// The sha256 of the original bytes.
    public var sha256: SHA256Digest
    /// The size of the original bytes, in bytes.
    public var size: Int64
    /// The IANA media type sniffed from the bytes, e.g. `image/png` (see ``ImageInfo/mediaType``).
    public var mediaType: String
    /// The width in pixels, nil when the file's header does not state a usable size (always for HEIC, AVIF).
    public var width: Int64?
    /// The height in pixels, nil under the same rules as ``width``.
    public var height: Int64?
    /// The prompt the picture was generated from, nil for a picture that was not generated.
    public var prompt: String?
    /// The image model that drew it (e.g. `dall-e-3`), nil when unknown.
    public var model: String?
    /// Where Imgur keeps a copy, nil when the picture was never uploaded there.
    public var imgur: ImgurLocation?
    /// Whether the user marked the picture as a favorite.
    public var favorite: Bool
    /// When the picture was added.
    public var created: Timestamp
    /// When any device last changed the record: the time of its latest version.
    public var updated: Timestamp

    /// An image body with the given metadata; the bytes themselves must already be in the
    /// store's objects under `sha256`. `updated` is not stored: read back, it is always the
    /// time of the record's latest version.
    public init(
        title: String, sha256: SHA256Digest, size: Int64, mediaType: String, width: Int64? = nil, height: Int64? = nil,
        prompt: String? = nil, model: String? = nil, imgur: ImgurLocation? = nil, favorite: Bool = false,
        created: Timestamp, updated: Timestamp
    ) {
        self.title = title
        self.sha256 = sha256
        self.size = size
        self.mediaType = mediaType
        self.width = width
        self.height = height
        self.prompt = prompt
        self.model = model
        self.imgur = imgur
        self.favorite = favorite
        self.created = created
        self.updated = updated
    }

    var json: JSONValue {
        var o: JSONObject = [
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
        imgur = try r.optionalValue("imgur").map { (v: JSONValue) throws(AISyncError) -> ImgurLocation in
            try ImgurLocation(json: v)
        }
        try r.finish()
    }
}
