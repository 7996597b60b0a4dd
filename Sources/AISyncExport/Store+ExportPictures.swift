import AISyncCore
import AISyncFiles
import AISyncStore

extension Store {
    /// Exports a record to `path` like ``export(_:format:to:force:)``, and says what else it
    /// wrote: a chat's Markdown gets the pictures its messages refer to (`[image: image-…]`)
    /// written beside it, in `<name>-images/` (``Export/picturesFolder(forMarkdownFile:)``),
    /// and linked by relative path, so the file opens with its pictures anywhere. A picture
    /// not in this store stays a `[image: …]` reference and is listed in the report.
    /// Refuses (usage error) to replace an existing file, the Markdown or a picture, unless
    /// `force` is true; nothing is written then.
    public func exportFile(_ id: RecordID, format: Export.Format? = nil, to path: String, force: Bool = false)
        throws(AISyncError) -> Export.FileReport
    {
        guard format == nil || format == .markdown, case .chat(let chat)? = try record(id).body else {
            let written = try exportOneFile(id, format: format, to: path, force: force)
            return Export.FileReport(path: written, pictures: [], missingImages: [])
        }
        let target = Self.target(path, fileName: "\(id.rawValue).md")
        try Self.checkWritable(target, force: force)
        let (found, missing) = try referencedImages(in: chat)
        let parent = FileIO.parentDirectory(of: target)
        let folder = Export.picturesFolder(forMarkdownFile: String(target.split(separator: "/").last ?? "chat.md"))
        var files: [RecordID: String] = [:]
        for (imageID, image) in found {
            files[imageID] = "\(folder)/\(imageID.rawValue).\(Export.fileExtension(forMediaType: image.mediaType))"
        }
        for file in files.values { try Self.checkWritable("\(parent)/\(file)", force: force) }
        if !files.isEmpty { try FileIO.makeDirectories("\(parent)/\(folder)") }
        for (imageID, image) in found.sorted(by: { $0.key < $1.key }) {
            try writeImage(image.sha256, to: "\(parent)/\(files[imageID] ?? imageID.rawValue)")
        }
        let markdown = Export.markdown(chat: chat) { imageID in
            guard let file = files[imageID], let image = found[imageID] else { return nil }
            let encoded = file.split(separator: "/").map { Export.percentEncoded(String($0)) }.joined(separator: "/")
            return Export.ImageLink(imageID, image, path: encoded)
        }
        try writeExport(Array(markdown.utf8), to: target)
        return Export.FileReport(path: target, pictures: files.values.sorted(), missingImages: missing)
    }

    /// The image records a chat's messages refer to (`[image: image-…]`): those whose bytes
    /// are here, and the ids of the others (no such record, deleted, bytes not downloaded).
    public func referencedImages(in chat: ChatBody) throws(AISyncError) -> (
        found: [RecordID: ImageBody], missing: [RecordID]
    ) {
        var found: [RecordID: ImageBody] = [:]
        var missing: [RecordID] = []
        var seen: Set<RecordID> = []
        for id in (chat.messages + chat.alternatives).flatMap({ Export.imageReferences(in: $0.text) })
        where seen.insert(id).inserted {
            let body: RecordBody?
            do { body = try record(id).body } catch  where error.code == .notFound { body = nil }
            if case .image(let image)? = body, hasObject(image.sha256) {
                found[id] = image
            } else {
                missing.append(id)
            }
        }
        return (found, missing)
    }
}
