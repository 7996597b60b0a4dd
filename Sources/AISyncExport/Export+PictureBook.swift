import AISyncCore
import Foundation

extension Export {
    /// A story as one self-contained HTML page: pictures inlined as `data:` URIs, so the file
    /// opens anywhere, offline, with nothing beside it.
    ///
    /// All text is escaped. The page reads on a phone (`<meta name=viewport>`, pictures scale
    /// to the screen) and prints one story page per paper page. A page whose picture is not
    /// in `pictures` (not downloaded yet) shows its text with a note instead.
    public static func pictureBook(story: StoryBody, pictures: [SHA256Digest: Picture]) -> String {
        let title = story.title.isEmpty ? "Untitled story" : story.title
        var out = """
            <!DOCTYPE html>
            <html lang="und">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(Markup.escape(oneLine(title)))</title>
            <style>\(pictureBookStyle)</style>
            </head>
            <body>
            <header class="cover">
            <h1>\(Markup.escape(oneLine(title)))</h1>

            """
        if let moral = story.moral { out += Markup.paragraphs(moral, className: "moral") + "\n" }
        out += "</header>\n"
        for (n, page) in story.pages.enumerated() {
            out += "<section class=\"page\" id=\"page-\(n + 1)\">\n"
            if let digest = page.image {
                if let picture = pictures[digest] {
                    let data = Data(picture.bytes).base64EncodedString()
                    out +=
                        "<figure><img src=\"data:\(Markup.escape(picture.mediaType));base64,\(data)\" alt=\"Illustration for page \(n + 1)\"></figure>\n"
                } else {
                    out += "<p class=\"missing\">(The picture for this page has not been downloaded yet.)</p>\n"
                }
            }
            out += Markup.paragraphs(page.text) + "\n"
            out += "<p class=\"number\">\(n + 1)</p>\n</section>\n"
        }
        out += "</body>\n</html>\n"
        return out
    }

    /// The picture book's style sheet: one column that fits a phone, one story page per printed page.
    static let pictureBookStyle = """

        html { font-family: Georgia, "Times New Roman", serif; line-height: 1.5; color: #222; background: #fffdf8; }
        body { margin: 0 auto; max-width: 40em; padding: 1em; }
        h1 { font-size: 2em; text-align: center; margin: 1em 0 0.5em; }
        .moral { font-style: italic; text-align: center; }
        .page { margin: 2em 0; }
        figure { margin: 0 0 1em; text-align: center; }
        img { max-width: 100%; height: auto; border-radius: 0.5em; }
        .page p { font-size: 1.2em; }
        .page p.number { font-size: 0.9em; text-align: center; color: #777; }
        .missing { color: #777; font-style: italic; }
        @media print {
          html { background: none; }
          body { max-width: none; padding: 0; }
          .cover, .page { break-after: page; page-break-after: always; }
          .page:last-of-type { break-after: auto; page-break-after: auto; }
          figure, img { break-inside: avoid; page-break-inside: avoid; }
          img { max-height: 60vh; }
        }

        """
}
