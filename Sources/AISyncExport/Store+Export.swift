import AISyncCore
import AISyncFiles
import AISyncStore

extension Store {
    /// A record rendered in `format` (the kind's default when nil): a chat as Markdown, an HTML
    /// page or an EPUB (with its pictures), a story as an HTML picture book or an EPUB, an
    /// image as its original bytes, any record as JSON.
    ///
    /// Throws not-found for a missing or deleted record, usage for a format the kind has
    /// none of, damaged-data for an image whose bytes are missing or damaged.
    public func export(_ id: RecordID, format: Export.Format? = nil) throws(AISyncError) -> Export.Document {
        guard let body = try record(id).body else {
            throw AISyncError(.notFound, "\(id) is deleted", hint: "Restore it first", remedy: .restoreRecord(id))
        }
        let format = format ?? .defaultFormat(for: body.kind)
        guard format.supports(body.kind) else { throw Export.unsupported(format, body.kind) }
        func text(_ s: String, _ ext: String) -> Export.Document {
            Export.Document(id: id, kind: body.kind, format: format, bytes: Array(s.utf8), fileExtension: ext)
        }
        switch (format, body) {
        case (.json, _):
            return text(body.redactingSecrets().json.canonicalString + "\n", "json")
        case (.markdown, .chat(let chat)):
            return text(Export.markdown(chat: chat), "md")
        case (.markdown, .story(let story)):
            return text(Export.markdown(story: story), "md")
        case (.html, .chat(let chat)):
            return text(Export.chatPage(chat: chat, pictures: try pictures(of: chat)), "html")
        case (.epub, .chat(let chat)):
            let bytes = try Export.epub(
                chat: chat, pictures: try pictures(of: chat), identifier: "urn:aisync:\(id.rawValue)",
                modified: chat.updated)
            return Export.Document(id: id, kind: .chat, format: .epub, bytes: bytes, fileExtension: "epub")
        case (.html, .story(let story)):
            return text(Export.pictureBook(story: story, pictures: try pictures(of: story)), "html")
        case (.epub, .story(let story)):
            let bytes = try Export.epub(
                story: story, pictures: try pictures(of: story), identifier: "urn:aisync:\(id.rawValue)",
                modified: story.updated)
            return Export.Document(id: id, kind: .story, format: .epub, bytes: bytes, fileExtension: "epub")
        case (.image, .image(let image)):
            guard let picture = try picture(image.sha256) else { throw Export.missingBytes(id) }
            return Export.Document(
                id: id, kind: .image, format: .image, bytes: picture.bytes,
                fileExtension: Export.fileExtension(forMediaType: image.mediaType))
        default:
            throw Export.unsupported(format, body.kind)
        }
    }

    /// Exports a record (see ``export(_:format:)``) and writes it to `path`, or into `path`
    /// under ``Export/Document/fileName`` when `path` is a directory; returns the file written.
    /// A chat's Markdown gets its pictures beside it (see ``exportFile(_:format:to:force:)``,
    /// which also says what was left out).
    /// Refuses (usage error) to replace an existing file unless `force` is true.
    @discardableResult
    public func export(_ id: RecordID, format: Export.Format? = nil, to path: String, force: Bool = false)
        throws(AISyncError) -> String
    {
        try exportFile(id, format: format, to: path, force: force).path
    }

    /// Writes one record's export (no pictures beside) to `path`, or into it when a directory.
    func exportOneFile(_ id: RecordID, format: Export.Format?, to path: String, force: Bool) throws(AISyncError)
        -> String
    {
        // An image's bytes are streamed (and verified) straight from the store, never held whole.
        if format == nil || format == .image, case .image(let image)? = try record(id).body {
            let target = Self.target(
                path, fileName: "\(id.rawValue).\(Export.fileExtension(forMediaType: image.mediaType))")
            try Self.checkWritable(target, force: force)
            guard hasObject(image.sha256) else { throw Export.missingBytes(id) }
            try writeImage(image.sha256, to: target)
            return target
        }
        let document = try export(id, format: format)
        let target = Self.target(path, fileName: document.fileName)
        try Self.checkWritable(target, force: force)
        try writeExport(document.bytes, to: target)
        return target
    }

    /// The pictures a story's pages show that are in this store (each verified against its
    /// sha256); pictures not downloaded yet are left out.
    public func pictures(of story: StoryBody) throws(AISyncError) -> [SHA256Digest: Export.Picture] {
        var result: [SHA256Digest: Export.Picture] = [:]
        for digest in story.pages.compactMap(\.image) where result[digest] == nil {
            result[digest] = try picture(digest)
        }
        return result
    }

    /// One picture's bytes, verified; nil when they are not in the store.
    func picture(_ digest: SHA256Digest) throws(AISyncError) -> Export.Picture? {
        guard hasObject(digest) else { return nil }
        let bytes = try FileIO.read(objectPath(digest), limit: 1 << 30)
        guard SHA256.hash(bytes) == digest else {
            throw AISyncError(
                .damagedData,
                "the picture \(digest.hex) is damaged in this store: its bytes no longer match their hash",
                hint: "Check the store; pull from a remote to restore it", remedy: .checkStore)
        }
        return Export.Picture(digest: digest, bytes: bytes)
    }

    /// `path`, or `fileName` inside it when `path` is a directory.
    static func target(_ path: String, fileName: String) -> String {
        guard Platform.stat(path)?.isDirectory == true else { return path }
        return "\(path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path)/\(fileName)"
    }

    /// Refuses to replace `path` unless `force` is true.
    static func checkWritable(_ path: String, force: Bool) throws(AISyncError) {
        guard let existing = Platform.stat(path) else { return }
        if existing.isDirectory {
            throw AISyncError(
                .usage, "\(path) is a directory", hint: "Pass a file path, or an existing directory to write into")
        }
        guard force else {
            throw AISyncError(
                .usage, "\(path) already exists", hint: "Allow replacing it, or choose another path",
                remedy: .allowReplacing(folder: false))
        }
    }

    /// Copies a picture's bytes from the store to `target` by streaming them, verified against
    /// their hash; errors name `target`, never the temp file the copy goes through.
    func writeImage(_ digest: SHA256Digest, to target: String) throws(AISyncError) {
        let temp = "\(target).tmp-\(environment.temporarySuffix())"
        do throws(AISyncError) {
            let copied = try FileIO.copy(objectPath(digest), to: temp, mode: FileIO.sharedFile)
            guard copied.digest == digest else {
                throw AISyncError(
                    .damagedData,
                    "the picture \(digest.hex) is damaged in this store: its bytes no longer match their hash",
                    hint: "Check the store; pull from a remote to restore it", remedy: .checkStore)
            }
            guard Platform.rename(temp, target) else { throw FileIO.ioError("write", target, errno: Platform.errno) }
        } catch {
            _ = Platform.unlink(temp)
            var clean = error
            clean.message = error.message.replacing(temp, with: target)
            clean.cause = error.cause?.replacing(temp, with: target)
            throw clean
        }
    }

    /// Writes an export atomically: a reader never sees half a file. Its mode is the user's
    /// umask's, as the pictures beside it: an export is written to be shared.
    func writeExport(_ bytes: [UInt8], to path: String) throws(AISyncError) {
        try FileIO.writeAtomically(
            path, bytes, durable: false, temporarySuffix: environment.temporarySuffix(), mode: FileIO.sharedFile)
    }
}
