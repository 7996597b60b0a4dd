/// Help text in the swift-argument-parser layout: OVERVIEW, USAGE, ARGUMENTS, OPTIONS, SUBCOMMANDS.
enum Help {
    static let version = "0.1.0"

    static func root(_ commands: [CommandSpec]) -> String {
        var text = """
            OVERVIEW: aisync keeps your AI chats, storybooks and images safe and the same on every device.

            Everything works offline in a local store; sync it with a WebDAV, HTTP or folder remote.

            USAGE: aisync <subcommand> [options]

            OPTIONS:
              --store DIR             The store to use (default: $AISYNC_HOME, else ~/.aisync).
              --version               Show the version.
              -h, --help              Show help information.

            SUBCOMMANDS:

            """
        for c in commands where !c.hidden {
            text += "  \(c.fullName.padding(22)) \(c.abstract)\n"
        }
        text += "\n  See 'aisync help <subcommand>' for detailed help.\n"
        return text
    }

    static func command(_ c: CommandSpec) -> String {
        var text = "OVERVIEW: \(c.abstract)\n"
        if let d = c.discussion { text += "\n\(d)\n" }
        text += "\nUSAGE: \(c.usageLine)\n"
        if !c.arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for a in c.arguments { text += "  \(("<" + a.name + ">").padding(22)) \(a.help)\n" }
        }
        text += "\nOPTIONS:\n"
        for o in c.options + globalOptions {
            let name = o.isFlag ? "--\(o.name)" : "--\(o.name) <\(o.valueName!)>"
            text += "  \((o.name == "help" ? "-h, " + name : name).padding(22)) \(o.help)\n"
        }
        return text
    }

    /// Commands that group others (`chat`, `image`, `story`).
    static func group(_ name: String, _ commands: [CommandSpec]) -> String {
        var text = "OVERVIEW: \(name) commands.\n\nUSAGE: aisync \(name) <subcommand>\n\nSUBCOMMANDS:\n"
        for c in commands where c.path.first == name { text += "  \(c.path.dropFirst().joined(separator: " ").padding(22)) \(c.abstract)\n" }
        return text
    }
}
