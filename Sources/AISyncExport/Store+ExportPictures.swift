import AISyncCore
import AISyncFiles
import AISyncStore

extension Store {
    /// Exports a record to `path` like ``export(_:format:to:force:)``, and says what else it
    /// wrote: a Markdown file gets its pictures written beside it, in `<name>-images/`
    /// (``Export/picturesFolder(forMarkdownFile:)``), and linked by relative path, so it opens
    /// with its pictures anywhere: a chat's are the image records its messages refer to
    /// (`[image: image-…]`; one not in this store stays that text and is listed in the
    /// report), a story's are its pages' pictures (`<sha256>.<ext>`; one not downloaded yet is
    /// left out, as in the HTML). Refuses (usage error) to replace an existing file, the
    /// Markdown or a picture, unless `force` is true; nothing is written then.
    public func exportFile(_ id: RecordID, format: Export.Format? = nil, to path: String, force: Bool = false)
        throws(AISyncError) -> Export.FileReport
    {
        let body = try record(id).body
        guard format == .markdown || (format == nil && body?.kind == .chat), let body else {
            let written = try exportOneFile(id, format: format, to: path, force: force)
            return Export.FileReport(path: written, pictures: [], missingImages: [])
        }
        let target = Self.target(path, fileName: "\(id.rawValue).md")
        switch body {
        case .chat(let chat):
            let (found, missing) = try referencedImages(in: chat)
            let files = found.map { imageID, image in
                (name: "\(imageID.rawValue).\(Export.fileExtension(forMediaType: image.mediaType))", image.sha256)
            }
            var report = try writeMarkdown(to: target, force: force, pictures: files) { paths in
                Export.markdown(chat: chat) { imageID in
                    found[imageID].flatMap { image in
                        paths[image.sha256].map { Export.ImageLink(imageID, image, path: $0) }
                    }
                }
            }
            report.missingImages = missing
            return report
        case .story(let story):
            let files = try pictures(of: story).values.map { (name: "\($0.digest.hex).\($0.fileExtension)", $0.digest) }
            return try writeMarkdown(to: target, force: force, pictures: files) { paths in
                Export.markdown(story: story) { paths[$0] }
            }
        case .image:
            throw Export.unsupported(.markdown, .image)
        }
    }

    /// Writes the pictures (`name` in the folder beside `target`, the bytes of `digest`), then
    /// the Markdown `markdown` makes from each picture's relative, percent-encoded path.
    private func writeMarkdown(
        to target: String, force: Bool, pictures: [(name: String, digest: SHA256Digest)],
        markdown: ([SHA256Digest: String]) -> String
    ) throws(AISyncError) -> Export.FileReport {
        try Self.checkWritable(target, force: force)
        let parent = FileIO.parentDirectory(of: target)
        let folder = Export.picturesFolder(forMarkdownFile: String(target.split(separator: "/").last ?? "export.md"))
        let sorted = pictures.sorted { $0.name < $1.name }
        for picture in sorted { try Self.checkWritable("\(parent)/\(folder)/\(picture.name)", force: force) }
        if !sorted.isEmpty { try FileIO.makeDirectories("\(parent)/\(folder)", mode: FileIO.sharedDirectory) }
        var paths: [SHA256Digest: String] = [:]
        for picture in sorted {
            try writeImage(picture.digest, to: "\(parent)/\(folder)/\(picture.name)")
            paths[picture.digest] = Export.percentEncoded(folder) + "/" + Export.percentEncoded(picture.name)
        }
        try writeExport(Array(markdown(paths).utf8), to: target)
        return Export.FileReport(
            path: target, pictures: sorted.map { "\(folder)/\($0.name)" }, missingImages: [])
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

    /// The pictures a chat's messages show (`[image: image-…]`, see
    /// ``referencedImages(in:)``) that are in this store, by image record id, each verified
    /// against its sha256; the others are left out (their references stay as text).
    public func pictures(of chat: ChatBody) throws(AISyncError) -> [RecordID: Export.ChatPicture] {
        var result: [RecordID: Export.ChatPicture] = [:]
        for (id, image) in try referencedImages(in: chat).found {
            guard let picture = try picture(image.sha256) else { continue }
            result[id] = Export.ChatPicture(
                picture: Export.Picture(digest: picture.digest, bytes: picture.bytes, mediaType: image.mediaType),
                title: image.title.isEmpty ? id.rawValue : image.title)
        }
        return result
    }
}
