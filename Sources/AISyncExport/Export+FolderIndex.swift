import AISyncCore

extension Export {
    /// One record's line in the `--all` folder's `index.html`.
    struct IndexEntry {
        var kind: RecordKind
        var title: String
        var updated: Timestamp
        /// The record's files, relative to the folder; the first is what its title links to.
        var files: [String]
    }

    /// The sub-folder a kind's files go into.
    static func folderName(_ kind: RecordKind) -> String {
        switch kind {
        case .chat: "chats"
        case .story: "stories"
        case .image: "images"
        }
    }

    /// `index.html`: a plain page listing every exported record by kind, linking its files.
    static func folderIndex(_ entries: [IndexEntry]) -> String {
        var out = """
            <!DOCTYPE html>
            <html lang="und">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>aisync export</title>
            <style>
            body { font-family: system-ui, sans-serif; max-width: 48em; margin: 0 auto; padding: 1em; line-height: 1.5; }
            li { margin: 0.3em 0; } .date { color: #777; font-size: 0.9em; }
            img { max-width: 6em; max-height: 6em; vertical-align: middle; margin-right: 0.5em; }
            </style>
            </head>
            <body>
            <h1>aisync export</h1>

            """
        for kind in RecordKind.allCases {
            let list = entries.filter { $0.kind == kind }
            out += "<h2>\(heading(kind)) (\(list.count))</h2>\n"
            if list.isEmpty {
                out += "<p>None.</p>\n"
                continue
            }
            out += "<ul>\n" + list.map(indexLine).joined() + "</ul>\n"
        }
        out += "</body>\n</html>\n"
        return out
    }

    private static func heading(_ kind: RecordKind) -> String {
        switch kind {
        case .chat: "Chats"
        case .story: "Stories"
        case .image: "Images"
        }
    }

    private static func indexLine(_ e: IndexEntry) -> String {
        let title = Markup.escape(oneLine(e.title.isEmpty ? "Untitled" : e.title))
        let first = Markup.escape(e.files[0])
        var line = "<li>"
        if e.kind == .image { line += "<a href=\"\(first)\"><img src=\"\(first)\" alt=\"\"></a>" }
        line += "<a href=\"\(first)\">\(title)</a>"
        for extra in e.files.dropFirst() {
            let ext = extra.split(separator: ".").last.map(String.init) ?? "file"
            line += " (<a href=\"\(Markup.escape(extra))\">\(Markup.escape(ext.uppercased()))</a>)"
        }
        return line + " <span class=\"date\">\(String(e.updated.iso8601.prefix(10)))</span></li>\n"
    }
}
