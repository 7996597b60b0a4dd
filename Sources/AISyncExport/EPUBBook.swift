import AISyncCore

/// A story as an EPUB 3 picture book: a title page (title, moral), then one XHTML page per
/// story page with its picture. ``package`` hands them to ``EPUBPackage`` to be zipped.
struct EPUBBook {
    let story: StoryBody
    let pictures: [SHA256Digest: Export.Picture]

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

    /// The book: the title page, every page, and the pictures.
    var package: EPUBPackage {
        let pages = story.pages.indices.map {
            EPUBPackage.Chapter(file: Self.pageFile($0), title: "Page \($0 + 1)", body: pageBody($0))
        }
        return EPUBPackage(
            title: title, chapters: [EPUBPackage.Chapter(file: "title.xhtml", title: title, body: titleBody)] + pages,
            pictures: pictureList)
    }

    /// `content.opf` of the book.
    func packageDocument(identifier: String, modified: Timestamp) -> String {
        package.packageDocument(identifier: identifier, modified: modified)
    }

    /// The title page as an XHTML document.
    func titlePage() -> String { EPUBPackage.document(title: title, body: titleBody) }

    /// Page `n` (0-based) as an XHTML document.
    func page(_ n: Int) -> String { EPUBPackage.document(title: "\(title), page \(n + 1)", body: pageBody(n)) }

    /// The title page's body: the title and the moral.
    var titleBody: String {
        var body = "<h1>\(Markup.escape(title))</h1>\n"
        if let moral = story.moral { body += Markup.paragraphs(moral, className: "moral") + "\n" }
        return body
    }

    /// Page `n`'s body: its picture, then its text.
    func pageBody(_ n: Int) -> String {
        let page = story.pages[n]
        var body = ""
        if let d = page.image {
            if let p = pictures[d] {
                body +=
                    "<div class=\"picture\"><img src=\"\(EPUBPackage.imageFile(p))\" alt=\"Illustration for page \(n + 1)\"/></div>\n"
            } else {
                body += "<p class=\"missing\">(The picture for this page is not included.)</p>\n"
            }
        }
        return body + Markup.paragraphs(page.text) + "\n"
    }
}
