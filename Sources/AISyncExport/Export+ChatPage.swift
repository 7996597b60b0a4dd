import AISyncCore
import Foundation

extension Export {
    /// A picture a chat shows, with its title (the image record's), for HTML and EPUB exports.
    public struct ChatPicture: Hashable, Sendable {
        /// The picture's bytes and type.
        public var picture: Picture
        /// Its title, the alt text.
        public var title: String

        /// A picture titled `title`.
        public init(picture: Picture, title: String) {
            self.picture = picture
            self.title = title
        }
    }

    /// A chat as one self-contained HTML page, as the app showed it: its title, model and
    /// dates, custom instructions, then each message under its role (reasoning kept with an
    /// answer shown before it), code as code, pictures inlined as `data:` URIs, and other
    /// branches after the transcript. All text is escaped; the page opens anywhere, offline.
    /// Pictures are keyed by image record id; one missing stays as its `[image: …]` text.
    public static func chatPage(chat: ChatBody, pictures: [RecordID: ChatPicture]) -> String {
        let page = ChatPage(chat: chat) { id in
            pictures[id].map {
                ($0.title, "data:\($0.picture.mediaType);base64,\(Data($0.picture.bytes).base64EncodedString())")
            }
        }
        return """
            <!DOCTYPE html>
            <html lang="und">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(Markup.escape(page.title))</title>
            <style>\(chatStyle)</style>
            </head>
            <body>
            \(page.header())\(page.transcript())\(chat.alternatives.isEmpty ? "" : page.branches())</body>
            </html>

            """
    }

    /// The chat page's style sheet: one column that fits a phone, messages set apart by role.
    static let chatStyle = """

        html { font-family: -apple-system, "Segoe UI", Roboto, sans-serif; line-height: 1.5; color: #222; }
        body { margin: 0 auto; max-width: 46em; padding: 1em; }
        h1 { font-size: 1.6em; }
        .meta { color: #666; }
        .message { margin: 1.2em 0; padding: 0.6em 0.9em; border-radius: 0.6em; }
        .user { background: #eef4ff; }
        .assistant { background: #f6f6f6; }
        .system { background: #fff4e0; }
        .role { font-weight: bold; margin: 0 0 0.3em; }
        .instructions, .reasoning { border-left: 0.25em solid #bbb; padding-left: 0.8em; color: #555; }
        pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #272822; color: #f8f8f2; padding: 0.7em; border-radius: 0.4em; }
        figure { margin: 0.5em 0; }
        img { max-width: 100%; height: auto; border-radius: 0.4em; }
        @media print { .message { break-inside: avoid; } }

        """
}

/// The markup of a chat shared by the HTML page and the EPUB: XHTML that is also valid HTML
/// (`<br/>`, `<img …/>`), every text escaped. Message text is split into blocks: fenced code
/// becomes `<pre><code>`, a line that is only `[image: image-…]` becomes the picture (when
/// `image` gives its title and source), the rest paragraphs.
struct ChatPage {
    let chat: ChatBody
    /// A picture's alt text and `src`, by image record id; nil leaves the reference as text.
    let image: (RecordID) -> (alt: String, src: String)?

    var title: String { Export.oneLine(chat.title.isEmpty ? "Untitled chat" : chat.title) }

    /// The image records the messages show, in order, once each.
    var referencedImages: [RecordID] {
        var seen: Set<RecordID> = []
        return (chat.messages + chat.alternatives).flatMap { Export.imageReferences(in: $0.text) }
            .filter { seen.insert($0).inserted }
    }

    /// The title, model, dates and custom instructions.
    func header() -> String {
        var meta = chat.model.map { "Model: \(Markup.escape($0)) · " } ?? ""
        meta += "Created \(chat.created.iso8601.prefix(10)) · Updated \(chat.updated.iso8601.prefix(10))"
        var out = "<h1>\(Markup.escape(title))</h1>\n<p class=\"meta\">\(meta)</p>\n"
        if let instructions = chat.instructions {
            out += "<div class=\"instructions\">\n<p class=\"role\">Custom instructions</p>\n"
            out += Markup.paragraphs(instructions) + "\n</div>\n"
        }
        return out
    }

    /// Every message of the transcript.
    func transcript() -> String {
        chat.messages.map { message($0, heading: Export.roleHeading($0.role)) }.joined()
    }

    /// The alternatives, each saying which message it follows.
    func branches() -> String {
        var numbers: [String: Int] = [:]
        for (n, m) in chat.messages.enumerated() { numbers[m.id] = n + 1 }
        var out = "<h2>Other branches</h2>\n<p>Regenerated answers and edited questions, kept as alternatives.</p>\n"
        for (n, m) in chat.alternatives.enumerated() {
            let after =
                m.branch?.after.map { id in numbers[id].map { "message \($0)" } ?? "another alternative" }
                ?? "the start"
            out += message(m, heading: "Alternative \(n + 1): \(Export.roleHeading(m.role)), after \(after)")
        }
        return out
    }

    /// One message: its reasoning (when kept), its role, its text as blocks.
    func message(_ m: ChatBody.Message, heading: String) -> String {
        var out = "<div class=\"message \(m.role.rawValue)\">\n"
        if let reasoning = m.reasoning {
            out +=
                "<div class=\"reasoning\">\n<p class=\"role\">Reasoning</p>\n\(Markup.paragraphs(reasoning))\n</div>\n"
        }
        out += "<p class=\"role\">\(Markup.escape(heading))</p>\n" + blocks(m.text) + "</div>\n"
        return out
    }

    /// Message text as paragraphs, code blocks and pictures.
    func blocks(_ text: String) -> String {
        var out = ""
        var paragraph: [Substring] = []
        var code: (fence: String, lines: [Substring])?
        func flush() {
            if !paragraph.isEmpty { out += Markup.paragraphs(paragraph.joined(separator: "\n")) + "\n" }
            paragraph = []
        }
        for line in Self.lines(text) {
            if let open = code {
                if line.trimmingCharacters(in: .whitespaces).hasPrefix(open.fence) {
                    out += Self.codeBlock(open.lines)
                    code = nil
                } else {
                    code?.lines.append(line)
                }
                continue
            }
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                flush()
                code = (String(trimmed.prefix { $0 == "`" || $0 == "~" }), [])
            } else {
                // Each picture reference that resolves becomes the picture, where it stands;
                // one that does not stays as its text.
                var pending = ""
                var rest = line
                var split = false
                while let (before, id, after) = Export.firstImageReference(in: rest) {
                    if let (alt, src) = image(id) {
                        pending += before
                        if !pending.allSatisfy(\.isWhitespace) { paragraph.append(Substring(pending)) }
                        pending = ""
                        flush()
                        out += "<figure><img src=\"\(Markup.escape(src))\" alt=\"\(Markup.escape(alt))\"/></figure>\n"
                        split = true
                    } else {
                        pending += rest[..<after.startIndex]
                    }
                    rest = after
                }
                pending += rest
                if !(split && pending.allSatisfy(\.isWhitespace)) { paragraph.append(Substring(pending)) }
            }
        }
        // A fence left open ends with the message.
        if let open = code { out += Self.codeBlock(open.lines) }
        flush()
        return out
    }

    /// Lines of code as a `<pre><code>` block, escaped.
    static func codeBlock(_ lines: [Substring]) -> String {
        "<pre><code>\(Markup.escape(lines.joined(separator: "\n")))</code></pre>\n"
    }

    static func lines(_ text: String) -> [Substring] {
        text.normalizingLineEndings().split(separator: "\n", omittingEmptySubsequences: false)
    }
}
