/// `aisync.1`, the man page, written from the same command table as `aisync help`, so the two
/// never disagree (`scripts/man.sh` saves it; the README says how to install it).
enum ManPage {
    static let command: any ParsableCommand.Type = Command.self

    struct Command: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["manpage"], abstract: "Print the man page (roff) made from the command table.", hidden: true)

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            CLIPlatform.outExact(ManPage.roff(CommandLineTool.commands.filter { !$0.hidden }))
            return ExitCode.success
        }
    }

    /// Text safe in roff: backslashes, hyphens, and a leading dot or quote.
    static func escaped(_ text: String) -> String {
        var s = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": s += "\\e"
            case "-": s += "\\-"
            case _ where scalar.value > 0x7E:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                s += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            default: s.unicodeScalars.append(scalar)
            }
        }
        if s.hasPrefix(".") || s.hasPrefix("'") { s = "\\&" + s }
        return s
    }

    static func roff(_ visible: [CommandSpec]) -> String {
        var out = """
            .TH AISYNC 1 "" "aisync \(Help.version)" "User Commands"
            .ad l
            .nh
            .SH NAME
            aisync \\- keep AI chats, storybooks and images safe and the same on every device
            .SH SYNOPSIS
            .B aisync
            .I command
            [\\fIoptions\\fR] [\\fB\\-\\-store\\fR \\fIDIR\\fR]
            .SH DESCRIPTION
            Everything works offline in a local store (\\fB$AISYNC_HOME\\fR, else \\fI~/.aisync\\fR); sync it with a WebDAV, plain HTTP or folder remote, optionally encrypted end to end, and pictures with Imgur.
            Record ids may be shortened to a unique prefix.
            \\fB\\-\\-json\\fR prints exactly one JSON document.
            .SH COMMANDS

            """
        for c in visible {
            out += ".TP\n.B \(escaped(c.usageLine))\n\(escaped(c.abstract))\n.RS\n"
            if let d = c.discussion { out += ".PP\n\(escaped(d))\n" }
            for a in c.arguments { out += ".TP\n.I \(escaped(a.name))\n\(escaped(a.help))\n" }
            for o in c.options {
                let name =
                    o.isFlag ? "\\-\\-\(escaped(o.name))" : "\\-\\-\(escaped(o.name)) \\fI\(escaped(o.valueName!))\\fR"
                out += ".TP\n\\fB\(name)\\fR\n\(escaped(o.help))\n"
            }
            out += ".RE\n"
        }
        out += ".SH ENVIRONMENT\n"
        for (name, what) in environment { out += ".TP\n.B \(name)\n\(escaped(what))\n" }
        out += ".SH EXIT STATUS\n"
        for (code, what) in exitCodes { out += ".TP\n.B \(code)\n\(escaped(what))\n" }
        out += ".SH SEE ALSO\nThe README and Schemas/README.md of the aisync sources.\n"
        return out
    }

    static let environment: [(String, String)] = [
        ("AISYNC_HOME", "The store, when --store is not given (default ~/.aisync)."),
        (
            "AISYNC_USER, AISYNC_PASSWORD",
            "Credentials for WebDAV and HTTP remotes (else ~/.netrc); never in argv or config."
        ),
        (
            "AISYNC_PASSPHRASE, AISYNC_NEW_PASSPHRASE",
            "An encrypted remote's passphrase, and the new one for passphrase change; else a no-echo prompt on the terminal."
        ),
        ("AISYNC_IMGUR_CLIENT_ID, AISYNC_IMGUR_TOKEN", "The Imgur credential for uploads."),
        ("AISYNC_AUTO_COMPACT_BYTES", "Write a snapshot by itself past this many pushed bytes (0: never)."),
    ]

    static let exitCodes: [(Int32, String)] = [
        (ExitCode.success, "success"), (ExitCode.other, "any other failure"),
        (ExitCode.usage, "usage error, or a refused mass delete"),
        (ExitCode.damagedData, "damaged data, or a file that is not a whole image"),
        (ExitCode.notFound, "no store, record, version or file"), (ExitCode.unavailable, "a remote is unavailable"),
        (ExitCode.io, "local I/O error, or the server is out of space"), (ExitCode.temporary, "try again later"),
        (ExitCode.permission, "permission denied, locally or by the server"),
        (ExitCode.configuration, "configuration: upgrade, wrong URL, a passphrase needed"),
        (ExitCode.wrongPassphrase, "wrong passphrase"),
        (ExitCode.tampered, "a file on an encrypted remote was changed"),
        (ExitCode.truncated, "a file on an encrypted remote was cut short"),
        (ExitCode.misplaced, "a file on an encrypted remote was moved or swapped"),
        (ExitCode.replayed, "an encrypted remote served an old head again"),
        (ExitCode.cancelled, "cancelled (Ctrl-C, SIGTERM)"),
    ]
}
