import AISyncCore
import AISyncStore

/// Getting records out in formats that need no aisync to open: chats as Markdown, a
/// self-contained HTML page or an EPUB 3, stories as a self-contained HTML picture book and as
/// an EPUB 3, everything as a browsable folder.
public enum Export {
    /// A file format a record can be exported as.
    public enum Format: String, Sendable, CaseIterable {
        /// Markdown (`.md`): chats, and stories with links to their pictures.
        case markdown = "md"
        /// A self-contained HTML page (`.html`) with the pictures inlined: stories and chats.
        case html
        /// An EPUB 3 e-book (`.epub`): stories and chats.
        case epub
        /// The record's body as canonical JSON without secrets (`.json`), as `aisync show --json` prints it.
        case json
        /// The picture's original bytes, under the extension of its media type: images.
        case image

        /// The format a record of `kind` is exported as when none is asked for.
        public static func defaultFormat(for kind: RecordKind) -> Format {
            switch kind {
            case .chat: .markdown
            case .story: .html
            case .image: .image
            }
        }

        /// Whether a record of `kind` can be exported in this format.
        public func supports(_ kind: RecordKind) -> Bool {
            switch (self, kind) {
            case (.json, _), (.markdown, .chat), (.markdown, .story), (.html, .story), (.epub, .story),
                (.html, .chat), (.epub, .chat), (.image, .image):
                true
            default: false
            }
        }
    }

    /// A picture's bytes, to inline in a picture book or pack into an EPUB.
    public struct Picture: Hashable, Sendable {
        /// The sha256 of the bytes (what story pages refer to).
        public var digest: SHA256Digest
        /// The IANA media type, e.g. `image/png`.
        public var mediaType: String
        /// The original bytes.
        public var bytes: [UInt8]

        /// A picture with the given bytes; `mediaType` is sniffed from them when nil.
        public init(digest: SHA256Digest, bytes: [UInt8], mediaType: String? = nil) {
            self.digest = digest
            self.bytes = bytes
            self.mediaType =
                mediaType ?? ImageSniffer.sniff(Array(bytes.prefix(ImageSniffer.maxHeaderLength)))?.mediaType
                ?? "application/octet-stream"
        }

        /// The file extension for the media type, without a dot (`png`, `jpg`, …; `bin` when unknown).
        public var fileExtension: String { Export.fileExtension(forMediaType: mediaType) }
    }

    /// The usual file extension for an image media type, without a dot; `bin` when unknown.
    public static func fileExtension(forMediaType mediaType: String) -> String {
        ImageSniffer.fileExtension(mediaType: mediaType) ?? "bin"
    }
}
