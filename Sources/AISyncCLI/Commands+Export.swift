import AISync
import Foundation

/// `aisync export`: records out as Markdown, an HTML picture book, an EPUB, JSON or the image file.
enum ExportCommands {
    static let all: [any ParsableCommand.Type] = [ExportCommand.self]

    struct ExportCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["export"], abstract: "Write a record (or every record) to files that open without aisync.",
            discussion: """
                The default format depends on the kind: a chat is Markdown (md; html for one page with its pictures \
                inlined, epub for an EPUB 3 book), a story an HTML picture book with its \
                pictures inlined (html; epub for an EPUB 3 book), an image its original file; json works for any record. \
                Without --output the file is written to the current directory as ID.EXT; --output - writes to standard output. \
                A chat's Markdown file gets the pictures its messages show written beside it, in NAME-images/, linked by \
                relative path (on standard output they stay [image: ID] references). \
                An existing file is never replaced without --force (exit 64). \
                --all writes a folder (default ./aisync-export): chats/*.md, stories/*.html and *.epub, images/*, and an index.html linking them.
                """)
        @Argument(help: "The record to export (or --all).") var id: String?
        @Flag(help: "Export every record into a folder with an index.html.") var all: Bool
        @Option(valueName: "md|html|epub|json", help: "The format (default: by kind).") var format: DocumentFormat?
        @Option(valueName: "PATH", help: "The file (or directory) to write; - for standard output. Also -o.")
        var output: String?
        @Flag(help: "Replace existing files.") var force: Bool

        func validate(_ context: CommandContext) throws(CLIError) {
            switch (id, all) {
            case (nil, true):
                guard format == nil else {
                    throw context.usage(
                        "--format cannot be used with --all", hint: "--all writes each kind in its own formats")
                }
            case (_?, false): break
            case (nil, false):
                throw context.usage(
                    "give a record ID or --all",
                    hint: "Usage: aisync export ID|--all [--format md|html|epub|json] [--output PATH] [--force]")
            case (_?, true):
                throw context.usage("give a record ID or --all, not both")
            }
        }

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            guard let id else { return try await exportAll(context) }
            return try await exportOne(try await Context.recordID(id, context), context)
        }

        func exportOne(_ id: RecordID, _ context: CommandContext) async throws(CLIError) -> Int32 {
            let store = try Context.open(context)
            let format = format?.format
            let output = output ?? "."
            if output == "-" {
                let document = try await Context.call { () async throws(AISyncError) in
                    try await store.export(id, format: format)
                }
                if CLIPlatform.stdoutIsTerminal {
                    // Text is shown escaped, like every human output; a zip or an EPUB is refused.
                    guard let text = String(validating: document.bytes, as: UTF8.self), !text.contains("\u{0}") else {
                        throw context.usage(
                            "standard output is a terminal, and this export is binary",
                            hint: "Redirect it to a file, or pass --output FILE")
                    }
                    CLIPlatform.out(text)
                    return ExitCode.success
                }
                if let failure = CLIPlatform.writeAll(document.bytes, to: 1) {
                    throw CLIError(AISyncError(.io, "cannot write to standard output", cause: failure))
                }
                return ExitCode.success
            }
            let force = force
            let report = try await Context.call { () async throws(AISyncError) in
                try await store.exportFile(id, format: format, to: output, force: force)
            }
            warnMissing(report.missingImages)
            CLIPlatform.out("\(report.path)\n")
            return ExitCode.success
        }

        /// One warning for each picture left out of an export.
        func warnMissing(_ ids: [RecordID]) {
            for id in ids {
                CLIPlatform.warn(
                    "left out \(id): its bytes are not in this store yet (pull from a remote to download them)")
            }
        }

        func exportAll(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let output = output ?? "aisync-export"
            guard output != "-" else {
                throw context.usage("--all writes a folder, not standard output", hint: "Pass --output DIR")
            }
            let store = try Context.open(context)
            let force = force
            let report = try await Context.call { () async throws(AISyncError) in
                try await store.exportAll(to: output, force: force)
            }
            warnMissing(report.missingImages)
            CLIPlatform.out(
                "Exported \(Output.count(report.files.count - 1, "file")) to \(report.directory); open \(report.directory)/index.html\n"
            )
            return ExitCode.success
        }
    }

    /// The formats `--format` names (an image's own file is its default, never named).
    enum DocumentFormat: String, ExpressibleByArgumentWord {
        case md, html, epub, json

        var format: Export.Format { Export.Format(rawValue: rawValue)! }
    }
}
