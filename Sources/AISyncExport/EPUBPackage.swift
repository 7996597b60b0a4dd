import AISyncCore

/// An EPUB 3 publication from already-rendered XHTML chapters and their pictures: the
/// container, package document, navigation and style, zipped with `mimetype` first and every
/// entry stored, as the EPUB container format requires. Stories (``EPUBBook``) and chats
/// (``Export/epub(chat:pictures:identifier:modified:)``) are both written through it.
struct EPUBPackage {
    /// One content document in reading order.
    struct Chapter {
        /// Its file name inside `OEBPS/`, e.g. `page-1.xhtml`; its manifest id is the name without `.xhtml`.
        var file: String
        /// Its entry in the table of contents.
        var title: String
        /// Its `<body>` content, already escaped.
        var body: String
    }

    /// The publication's title (escaped when written).
    var title: String
    /// The chapters, in reading order.
    var chapters: [Chapter]
    /// The pictures the chapters show (each once), as `images/<sha256>.<ext>`.
    var pictures: [Export.Picture]

    /// Image types every EPUB 3 reading system supports (EPUB 3.3 core media types).
    static let coreMediaTypes: Set<String> = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml"]

    static let container = """
        <?xml version="1.0" encoding="UTF-8"?>
        <container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
          <rootfiles>
            <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
          </rootfiles>
        </container>

        """

    static let style = """
        body { font-family: serif; line-height: 1.5; margin: 1em; }
        h1 { text-align: center; }
        .moral { font-style: italic; text-align: center; }
        .picture { text-align: center; margin: 0 0 1em; }
        img { max-width: 100%; max-height: 70vh; }
        .missing { font-style: italic; }
        .meta { text-align: center; color: #555; }
        .message { margin: 1em 0; }
        .role { font-weight: bold; margin: 0; }
        .instructions, .reasoning { border-left: 0.2em solid #999; padding-left: 0.8em; color: #444; }
        pre { white-space: pre-wrap; font-family: monospace; font-size: 0.9em; background: #f4f4f4; padding: 0.5em; }

        """

    /// The path of a picture inside `OEBPS/`.
    static func imageFile(_ p: Export.Picture) -> String { "images/\(p.digest.hex).\(p.fileExtension)" }

    /// The zipped publication.
    func zip(identifier: String, modified: Timestamp) throws(AISyncError) -> [UInt8] {
        var zip = StoredZipWriter(modified: modified)
        try zip.add("mimetype", Array("application/epub+zip".utf8))
        try zip.add("META-INF/container.xml", Array(Self.container.utf8))
        try zip.add("OEBPS/content.opf", Array(packageDocument(identifier: identifier, modified: modified).utf8))
        try zip.add("OEBPS/nav.xhtml", Array(navigation().utf8))
        try zip.add("OEBPS/style.css", Array(Self.style.utf8))
        for chapter in chapters {
            try zip.add("OEBPS/\(chapter.file)", Array(Self.document(title: chapter.title, body: chapter.body).utf8))
        }
        for picture in pictures { try zip.add("OEBPS/\(Self.imageFile(picture))", picture.bytes) }
        return zip.finish()
    }

    static func id(_ chapter: Chapter) -> String {
        chapter.file.hasSuffix(".xhtml") ? String(chapter.file.dropLast(6)) : chapter.file
    }

    /// `content.opf`: metadata, every file in the book, and the reading order.
    func packageDocument(identifier: String, modified: Timestamp) -> String {
        let stamp = String(modified.iso8601.prefix(19)) + "Z"  // EPUB wants whole seconds
        var manifest = """
                <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
                <item id="style" href="style.css" media-type="text/css"/>

            """
        var spine = ""
        for chapter in chapters {
            manifest +=
                "    <item id=\"\(Self.id(chapter))\" href=\"\(chapter.file)\" media-type=\"application/xhtml+xml\"/>\n"
            spine += "    <itemref idref=\"\(Self.id(chapter))\"/>\n"
        }
        for p in pictures {
            manifest +=
                "    <item id=\"img-\(p.digest.hex)\" href=\"\(Self.imageFile(p))\" media-type=\"\(p.mediaType)\"/>\n"
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="book-id" xml:lang="und">
              <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
                <dc:identifier id="book-id">\(Markup.escape(identifier))</dc:identifier>
                <dc:title>\(Markup.escape(title))</dc:title>
                <dc:language>und</dc:language>
                <meta property="dcterms:modified">\(stamp)</meta>
              </metadata>
              <manifest>
            \(manifest)  </manifest>
              <spine>
            \(spine)  </spine>
            </package>

            """
    }

    /// `nav.xhtml`: the table of contents, every chapter by its title.
    func navigation() -> String {
        var items = ""
        for chapter in chapters {
            items += "      <li><a href=\"\(chapter.file)\">\(Markup.escape(chapter.title))</a></li>\n"
        }
        return Self.document(
            title: "Contents",
            body: """
                <nav epub:type="toc" id="toc">
                  <h1>Contents</h1>
                  <ol>
                \(items)  </ol>
                </nav>
                """)
    }

    /// An XHTML content document around `body` (already escaped).
    static func document(title: String, body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE html>
        <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="und" lang="und">
        <head>
        <meta charset="utf-8"/>
        <title>\(Markup.escape(title))</title>
        <link rel="stylesheet" type="text/css" href="style.css"/>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }
}
