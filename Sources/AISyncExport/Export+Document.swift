import AISyncCore

extension Export {
    /// One record rendered in one format, ready to be written to a file or printed.
    public struct Document: Hashable, Sendable {
        /// The record it was made from.
        public var id: RecordID
        /// The record's kind.
        public var kind: RecordKind
        /// The format it is in.
        public var format: Format
        /// The file's bytes (UTF-8 text for Markdown, HTML and JSON).
        public var bytes: [UInt8]
        /// The file name to save it under: the record id and the format's extension, e.g. `chat-3f9a….md`.
        public var fileName: String

        /// A document of `bytes`; `fileExtension` is the extension its file name gets.
        public init(id: RecordID, kind: RecordKind, format: Format, bytes: [UInt8], fileExtension: String) {
            self.id = id
            self.kind = kind
            self.format = format
            self.bytes = bytes
            self.fileName = "\(id.rawValue).\(fileExtension)"
        }
    }

    /// What `Store.exportAll(to:force:)` wrote.
    public struct FolderReport: Hashable, Sendable {
        /// The folder written.
        public var directory: String
        /// Every file written, relative to `directory` (`index.html` last).
        public var files: [String]
        /// Images left out because their bytes have not been downloaded yet.
        public var missingImages: [RecordID]
    }

    /// The error for an image whose bytes have not been downloaded.
    static func missingBytes(_ id: RecordID) -> AISyncError {
        AISyncError(
            .damagedData, "the bytes of image \(id) are not in this store yet",
            hint: "Pull from a remote to download them, then export again")
    }

    /// The error for a format a record's kind cannot be exported in.
    static func unsupported(_ format: Format, _ kind: RecordKind) -> AISyncError {
        let formats = Format.allCases.filter { $0.supports(kind) && $0 != .image }.map(\.rawValue)
        let usual =
            kind == .image
            ? "its image file or json" : formats.dropLast().joined(separator: ", ") + " or " + formats.last!
        let article = kind == .image ? "an" : "a"
        return AISyncError(
            .usage, "\(article) \(kind.rawValue) cannot be exported as \(format.rawValue)",
            hint: "Export \(article) \(kind.rawValue) as \(usual)")
    }
}
