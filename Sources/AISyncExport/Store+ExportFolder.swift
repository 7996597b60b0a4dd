import AISyncCore
import AISyncFiles
import AISyncStore

extension Store {
    /// Writes every live record into `directory`, a folder anyone can browse with no aisync:
    /// `chats/ID.md`, `stories/ID.html` and `stories/ID.epub`, `images/ID.<ext>`, and an
    /// `index.html` linking them all. A chat's `[image: image-…]` references link to those
    /// pictures by relative path (`![title](../images/ID.png)`).
    ///
    /// Refuses (usage error) a `directory` that exists and is not empty unless `force` is true;
    /// with it, files of the same names are replaced and others are left alone. Images whose
    /// bytes have not been downloaded are left out and listed in the report, and so are
    /// pictures chats refer to that are not here (their references stay as text).
    @discardableResult
    public func exportAll(to directory: String, force: Bool = false) throws(AISyncError) -> Export.FolderReport {
        let root = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        if let existing = Platform.stat(root) {
            guard existing.isDirectory else {
                throw AISyncError(
                    .usage, "\(root) already exists and is not a directory",
                    hint: "Choose another path for the export folder")
            }
            guard force || (Platform.listDirectory(root) ?? []).isEmpty else {
                throw AISyncError(
                    .usage, "\(root) already exists and is not empty",
                    hint: "Allow writing into it (files of the same names are replaced), or choose another path",
                    remedy: .allowReplacing(folder: true))
            }
        }
        var report = Export.FolderReport(directory: root, files: [], missingImages: [])
        var entries: [Export.IndexEntry] = []
        for summary in try list().sorted(by: {
            ($0.kind.rawValue, $0.title, $0.id) < ($1.kind.rawValue, $1.title, $1.id)
        }) {
            let files = try exportForFolder(
                summary.id, kind: summary.kind, into: root, missing: &report.missingImages)
            if files.isEmpty {
                report.missingImages.append(summary.id)
                continue
            }
            report.files += files
            entries.append(
                Export.IndexEntry(kind: summary.kind, title: summary.title, updated: summary.updated, files: files))
        }
        try writeExport(Array(Export.folderIndex(entries).utf8), to: "\(root)/index.html")
        report.files.append("index.html")
        return report
    }

    /// Writes one record's files under `root`; returns their relative paths, none for an
    /// image whose bytes are not here. Pictures a chat refers to that are not here are added
    /// to `missing`.
    private func exportForFolder(_ id: RecordID, kind: RecordKind, into root: String, missing: inout [RecordID])
        throws(AISyncError) -> [String]
    {
        let folder = Export.folderName(kind)
        try FileIO.makeDirectories("\(root)/\(folder)", mode: FileIO.sharedDirectory)
        if case .chat(let chat)? = try record(id).body {
            let (found, absent) = try referencedImages(in: chat)
            for imageID in absent where !missing.contains(imageID) { missing.append(imageID) }
            let markdown = Export.markdown(chat: chat) { imageID in
                found[imageID].map { image in
                    let ext = Export.fileExtension(forMediaType: image.mediaType)
                    return Export.ImageLink(
                        imageID, image, path: "../\(Export.folderName(.image))/\(imageID.rawValue).\(ext)")
                }
            }
            let file = "\(folder)/\(id.rawValue).md"
            try writeExport(Array(markdown.utf8), to: "\(root)/\(file)")
            return [file]
        }
        let formats: [Export.Format] = kind == .story ? [.html, .epub] : [.defaultFormat(for: kind)]
        if kind == .image {
            guard case .image(let image)? = try record(id).body, hasObject(image.sha256) else { return [] }
            let file = "\(folder)/\(id.rawValue).\(Export.fileExtension(forMediaType: image.mediaType))"
            try writeImage(image.sha256, to: "\(root)/\(file)")
            return [file]
        }
        var files: [String] = []
        for format in formats {
            let document = try export(id, format: format)
            try writeExport(document.bytes, to: "\(root)/\(folder)/\(document.fileName)")
            files.append("\(folder)/\(document.fileName)")
        }
        return files
    }
}
