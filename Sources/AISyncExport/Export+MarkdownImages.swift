import AISyncCore

extension Export {
    /// Where a Markdown export's pictures went, for one image record a chat refers to.
    public struct ImageLink: Hashable, Sendable {
        /// The picture's title (the alt text).
        public var title: String
        /// The picture file, relative to the Markdown file, `/`-separated and percent-encoded.
        public var path: String

        /// A link to `path` (already relative and encoded) titled `title`.
        public init(title: String, path: String) {
            self.title = title
            self.path = path
        }

        /// A link to image record `id` at `path`, titled by the image (by its id when untitled).
        init(_ id: RecordID, _ image: ImageBody, path: String) {
            self.init(title: image.title.isEmpty ? id.rawValue : image.title, path: path)
        }
    }

    /// What `Store.exportFile(_:format:to:force:)` wrote for one record.
    public struct FileReport: Hashable, Sendable {
        /// The file written.
        public var path: String
        /// The pictures written beside it (a Markdown chat's `[image: …]` pictures), as paths.
        public var pictures: [String]
        /// Images the record refers to that are not in this store (no such record, deleted, or
        /// bytes not downloaded yet): their references stay as text.
        public var missingImages: [RecordID]
    }

    /// How a chat message refers to a picture: `[image: image-…]` (what imports write).
    static let imageReference = "[image: "

    /// The image record ids a text refers to as `[image: image-…]`, in order, once each.
    public static func imageReferences(in text: String) -> [RecordID] {
        var ids: [RecordID] = []
        scanImageReferences(text) { id in
            if !ids.contains(id) { ids.append(id) }
            return nil
        }
        return ids
    }

    /// `text` with each `[image: image-…]` that `link` resolves written as a Markdown image,
    /// `![title](path)`; references `link` returns nil for stay as they are.
    static func linkingImages(_ text: String, _ link: (RecordID) -> ImageLink?) -> String {
        scanImageReferences(text) { id in link(id).map(markdownImage) }
    }

    /// Walks `text`'s `[image: <id>]` references whose id names an image record; each is
    /// replaced by what `replace` returns (kept when nil). Returns the text with the replacements.
    @discardableResult
    private static func scanImageReferences(_ text: String, _ replace: (RecordID) -> String?) -> String {
        guard text.contains(imageReference) else { return text }
        var out = ""
        var rest = text[...]
        while let (before, id, after) = firstImageReference(in: rest) {
            out += before
            out += replace(id) ?? String(rest[before.endIndex..<after.startIndex])
            rest = after
        }
        return out + rest
    }

    /// The first `[image: <id>]` in `text` whose id names an image record: the text before
    /// it, the id, and the text after it; nil when there is none.
    static func firstImageReference(in text: Substring) -> (before: Substring, id: RecordID, after: Substring)? {
        var search = text
        while let start = search.firstRange(of: imageReference) {
            guard let close = search[start.upperBound...].firstIndex(of: "]") else { return nil }
            if let id = RecordID(String(search[start.upperBound..<close])), id.rawValue.hasPrefix("image-") {
                return (text[..<start.lowerBound], id, text[text.index(after: close)...])
            }
            search = search[start.upperBound...]
        }
        return nil
    }

    /// `![title](path)`: the title on one line, its brackets and backslashes escaped.
    static func markdownImage(_ link: ImageLink) -> String {
        var alt = ""
        for c in oneLine(link.title) {
            if c == "[" || c == "]" || c == "\\" { alt.append("\\") }
            alt.append(c)
        }
        return "![\(alt)](\(link.path))"
    }

    /// A path segment percent-encoded for a Markdown link: letters, digits and `-._~` stay,
    /// every other byte of its UTF-8 (spaces, parentheses, `%`) becomes `%XX`.
    package static func percentEncoded(_ segment: String) -> String {
        var out = ""
        for byte in segment.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if byte < 0x80, c.isLetter || c.isNumber || "-._~".contains(c) {
                out.append(c)
            } else {
                out +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// The folder a Markdown file's pictures go into, beside it: its name without `.md`, and
    /// `-images` (`notes.md` → `notes-images`).
    public static func picturesFolder(forMarkdownFile name: String) -> String {
        let stem = name.lowercased().hasSuffix(".md") && name.count > 3 ? String(name.dropLast(3)) : name
        return stem + "-images"
    }
}
