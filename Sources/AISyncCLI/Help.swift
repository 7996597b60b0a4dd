/// Help text in the swift-argument-parser layout: OVERVIEW, USAGE, ARGUMENTS, OPTIONS,
/// SUBCOMMANDS. Every section of a page shares one column for descriptions, and text wraps
/// to the terminal's width (``CLIPlatform/columns``).
enum Help {
    static let version = "0.1.0"

    static func root(_ commands: [CommandSpec], width: Int = CLIPlatform.columns) -> String {
        let options = [
            ("--store <DIR>", "The store to use (default: $AISYNC_HOME, else ~/.aisync)."),
            ("-V, --version", "Show the version."), ("-h, --help", "Show help information."),
        ]
        let subcommands = commands.filter { !$0.hidden }.map { ($0.fullName, $0.abstract) }
        let column = descriptionColumn(options + subcommands)
        return """
            \(wrap("OVERVIEW: aisync keeps your AI chats, storybooks and images safe and the same on every device.", width: width))

            \(wrap("Everything works offline in a local store; sync it with a WebDAV, HTTP or folder remote.", width: width))

            USAGE: aisync <subcommand> [options]

            OPTIONS:
            \(rows(options, column: column, width: width))
            SUBCOMMANDS:
            \(rows(subcommands, column: column, width: width))
              See 'aisync help <subcommand>' for detailed help.

            """
    }

    static func command(_ c: CommandSpec, width: Int = CLIPlatform.columns) -> String {
        let arguments = c.arguments.map { ("<\($0.name)>", $0.help) }
        let options = (c.options + globalOptions).map { o in
            let name = o.isFlag ? "--\(o.name)" : "--\(o.name) <\(o.valueName!)>"
            return (o.name == "help" ? "-h, " + name : name, o.help)
        }
        let column = descriptionColumn(arguments + options)
        var text = wrap("OVERVIEW: \(c.abstract)", width: width) + "\n"
        if let d = c.discussion {
            text +=
                "\n"
                + d.split(separator: "\n", omittingEmptySubsequences: false).map { wrap(String($0), width: width) }
                .joined(separator: "\n") + "\n"
        }
        text += "\n" + wrap("USAGE: \(c.usageLine)", width: width, indent: 9) + "\n"
        if !arguments.isEmpty { text += "\nARGUMENTS:\n" + rows(arguments, column: column, width: width) }
        text += "\nOPTIONS:\n" + rows(options, column: column, width: width)
        return text
    }

    /// Commands that group others (`chat`, `image`, `story`).
    static func group(_ name: String, _ commands: [CommandSpec], width: Int = CLIPlatform.columns) -> String {
        let subcommands = commands.filter { $0.path.first == name && !$0.hidden }.map {
            ($0.path.dropFirst().joined(separator: " "), $0.abstract)
        }
        return "OVERVIEW: \(name) commands.\n\nUSAGE: aisync \(name) <subcommand>\n\nSUBCOMMANDS:\n"
            + rows(subcommands, column: descriptionColumn(subcommands), width: width)
    }

    /// Where descriptions start: two spaces past the longest name, but no further than 28;
    /// a longer name gets its description on the next line.
    static func descriptionColumn(_ rows: [(String, String)]) -> Int {
        min(rows.reduce(0) { max($0, $1.0.count) } + 4, 28)
    }

    /// `  name    description`, the description wrapped to `width` under its column.
    static func rows(_ rows: [(String, String)], column: Int, width: Int) -> String {
        var out = ""
        for (name, description) in rows {
            let body = wrap(description, width: width, indent: column, firstLineUsed: column)
            if name.count + 4 <= column {
                out += "  " + name.padding(column - 2) + body + "\n"
            } else {
                out += "  " + name + "\n" + String(repeating: " ", count: column) + body + "\n"
            }
        }
        return out
    }

    /// `text` wrapped at spaces to `width` columns; continuation lines start with `indent`
    /// spaces. A word longer than a line stays whole.
    static func wrap(_ text: String, width: Int, indent: Int = 0, firstLineUsed: Int = 0) -> String {
        var out = ""
        var used = firstLineUsed
        var lineHasWord = false
        let limit = max(width, indent + 20)
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            let w = DisplayWidth.of(String(word))
            if lineHasWord, used + 1 + w > limit {
                out += "\n" + String(repeating: " ", count: indent)
                used = indent
                lineHasWord = false
            }
            if lineHasWord {
                out += " "
                used += 1
            }
            out += word
            used += w
            lineHasWord = true
        }
        return out
    }
}
