import AISyncCore

/// Turns a conversation's image pointers into image records while it is read: the file the
/// pointer names in the export becomes an image record (its id from its sha256, so a picture
/// is imported once however often it appears), and the message text links to it as
/// `[image: image-…]`. A pointer whose file is missing, or is not an image, stays as
/// `[image: <pointer>]` and is counted in the summary; it never fails the import.
struct ChatGPTImages {
    /// A picture found for a pointer, to import before the chat: a file, or bytes from a zip.
    struct Found {
        var id: RecordID
        var body: ImageBody
        var path: String?
        var bytes: [UInt8]?
    }

    static let missingNote = "image files missing from the export"
    static let notImageNote = "attached files that are not images, not imported"

    /// The export's files; nil when pointers should only be noted (other branches).
    let assets: ChatGPTAssets?
    /// The time given to pictures (the conversation's creation).
    let created: Timestamp
    /// Pictures found so far, in order of first appearance.
    private(set) var found: [Found] = []
    private var byPointer: [String: RecordID] = [:]

    init(assets: ChatGPTAssets?, created: Timestamp) {
        self.assets = assets
        self.created = created
    }

    /// The model ChatGPT draws with when a picture carries `metadata.dalle`.
    static let dalleModel = "dall-e-3"

    /// The text standing for an `image_asset_pointer` part. `request` is the prompt of the
    /// DALL·E call the picture answers (nil for an upload); the pointer's own
    /// `metadata.dalle.prompt` wins over it. `time` is the message's, when it has one.
    mutating func text(for part: JSONTape.Node, request: String?, time: Timestamp?, notes: inout [String]) -> String {
        let pointer = part["asset_pointer"]?.stringValue ?? "unknown"
        if let id = byPointer[pointer] { return "[image: \(id)]" }
        guard let assets else { return "[image: \(pointer)]" }
        guard let asset = assets.find(pointer) else {
            notes.append(Self.missingNote)
            return "[image: \(pointer)]"
        }
        guard let (name, info, digest, size) = Self.describe(asset) else {
            notes.append(Self.notImageNote)
            return "[image: \(pointer)]"
        }
        let id = ImportIDs.record(.image, key: "image:\(digest.hex)")
        let dalle = part["metadata"]?["dalle"]
        let prompt = dalle?["prompt"]?.stringValue ?? request
        let drawn = (dalle.map { !$0.isNull } ?? false) || request != nil
        let when = time ?? created
        let body = ImageBody(
            title: Self.title(prompt: prompt, fileName: name, fileID: ChatGPTAssets.fileID(pointer)), sha256: digest,
            size: size, mediaType: info.mediaType, width: info.width.map(Int64.init),
            height: info.height.map(Int64.init), prompt: prompt, model: drawn ? Self.dalleModel : nil, created: when,
            updated: when)
        switch asset {
        case .file(let path): found.append(Found(id: id, body: body, path: path))
        case .bytes(let bytes, _): found.append(Found(id: id, body: body, bytes: bytes))
        }
        byPointer[pointer] = id
        return "[image: \(id)]"
    }

    /// A picture's title: the start of its prompt, else its file name without the export's
    /// `file-<id>-` prefix (`file-aTXjo8…-photo.webp` → `photo.webp`).
    static func title(prompt: String?, fileName: String, fileID: String?) -> String {
        if let prompt, !prompt.isBlank {
            let line = prompt.split(whereSeparator: \.isNewline).first.map(String.init) ?? prompt
            return ImportIDs.title(line.count > 80 ? String(line.prefix(79)) + "…" : line, fallback: "image")
        }
        var name = Substring(fileName)
        if let fileID, name.hasPrefix(fileID + "-") { name = name.dropFirst(fileID.count + 1) }
        return ImportIDs.title(String(name), fallback: "image")
    }

    /// An asset's file name, image type, sha256 and size; nil when it is not an image.
    static func describe(_ asset: ChatGPTAssets.Asset) -> (String, ImageInfo, SHA256Digest, Int64)? {
        switch asset {
        case .file(let path):
            guard let info = ImageSniffer.sniff(fileAt: path), let hashed = try? SHA256.hash(fileAt: path) else {
                return nil
            }
            return (String(path.split(separator: "/").last ?? "image"), info, hashed.digest, hashed.size)
        case .bytes(let bytes, let name):
            guard let info = ImageSniffer.sniff(Array(bytes.prefix(ImageSniffer.maxHeaderLength))) else { return nil }
            var hasher = SHA256()
            bytes.withUnsafeBytes { hasher.update(bytes: $0) }
            return (name, info, hasher.finalize(), Int64(bytes.count))
        }
    }
}
