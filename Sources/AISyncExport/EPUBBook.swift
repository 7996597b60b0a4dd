import AISyncCore

/// The text files of an EPUB 3 picture book (package document, navigation, pages); `Export.epub`
/// zips them with the pictures.
struct EPUBBook {
    let story: StoryBody
    let pictures: [SHA256Digest: Export.Picture]

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

        """

    var title: String { Export.oneLine(story.title.isEmpty ? "Untitled story" : story.title) }

    /// The distinct pictures the pages show, in page order.
    var pictureList: [Export.Picture] {
        var seen: Set<SHA256Digest> = []
        return story.pages.compactMap { page in
            guard let d = page.image, let p = pictures[d], seen.insert(d).inserted else { return nil }
            return p
        }
    }

    static func pageFile(_ n: Int) -> String { "page-\(n + 1).xhtml" }
    static func imageFile(_ p: Export.Picture) -> String { "images/\(p.digest.hex).\(p.fileExtension)" }

    /// `content.opf`: metadata, every file in the book, and the reading order.
    func packageDocument(identifier: String, modified: Timestamp) -> String {
        let stamp = String(modified.iso8601.prefix(19)) + "Z"  // EPUB wants whole seconds
        var manifest = """
                <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
                <item id="style" href="style.css" media-type="text/css"/>
                <item id="title" href="title.xhtml" media-type="application/xhtml+xml"/>

            """
        var spine = "    <itemref idref=\"title\"/>\n"
        for n in story.pages.indices {
            manifest +=
                "    <item id=\"page-\(n + 1)\" href=\"\(Self.pageFile(n))\" media-type=\"application/xhtml+xml\"/>\n"
            spine += "    <itemref idref=\"page-\(n + 1)\"/>\n"
        }
        for p in pictureList {
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

    /// `nav.xhtml`: the table of contents, the title page then every page.
    func navigation() -> String {
        var items = "      <li><a href=\"title.xhtml\">\(Markup.escape(title))</a></li>\n"
        for n in story.pages.indices { items += "      <li><a href=\"\(Self.pageFile(n))\">Page \(n + 1)</a></li>\n" }
        return document(
            title: "Contents",
            body: """
                <nav epub:type="toc" id="toc">
                  <h1>Contents</h1>
                  <ol>
                \(items)  </ol>
                </nav>
                """)
    }

    /// The title page: the title and the moral.
    func titlePage() -> String {
        var body = "<h1>\(Markup.escape(title))</h1>\n"
        if let moral = story.moral { body += Markup.paragraphs(moral, className: "moral") + "\n" }
        return document(title: title, body: body)
    }

    /// Page `n` (0-based): its picture, then its text.
    func page(_ n: Int) -> String {
        let page = story.pages[n]
        var body = ""
        if let d = page.image {
            if let p = pictures[d] {
                body +=
                    "<div class=\"picture\"><img src=\"\(Self.imageFile(p))\" alt=\"Illustration for page \(n + 1)\"/></div>\n"
            } else {
                body += "<p class=\"missing\">(The picture for this page is not included.)</p>\n"
            }
        }
        body += Markup.paragraphs(page.text) + "\n"
        return document(title: "\(title), page \(n + 1)", body: body)
    }

    /// An XHTML content document around `body` (already escaped).
    func document(title: String, body: String) -> String {
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
