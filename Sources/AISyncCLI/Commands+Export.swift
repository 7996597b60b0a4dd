import AISync
import Foundation

/// `aisync export`: records out as Markdown, an HTML picture book, an EPUB, JSON or the image file.
enum ExportCommands {
    static let all: [CommandSpec] = [export]

    static let export = CommandSpec(
        path: ["export"], abstract: "Write a record (or every record) to files that open without aisync.",
        discussion: """
            The default format depends on the kind: a chat is Markdown (md), a story an HTML picture book with its \
            pictures inlined (html; epub for an EPUB 3 book), an image its original file; json works for any record. \
            Without --output the file is written to the current directory as ID.EXT; --output - writes to standard output. \
            An existing file is never replaced without --force (exit 64). \
            --all writes a folder (default ./aisync-export): chats/*.md, stories/*.html and *.epub, images/*, and an index.html linking them.
            """,
        arguments: [ArgumentSpec(name: "ID", help: "The record to export (or --all).", optional: true)],
        options: [OptionSpec(name: "all", help: "Export every record into a folder with an index.html."),
                  OptionSpec(name: "format", valueName: "md|html|epub|json", help: "The format (default: by kind)."),
                  OptionSpec(name: "output", valueName: "PATH", help: "The file (or directory) to write; - for standard output. Also -o."),
                  OptionSpec(name: "force", help: "Replace existing files.")]
    ) { inv throws(CLIError) in
        let format = try inv.option("format").map { (text: String) throws(CLIError) -> Export.Format in try parseFormat(text, inv) }
        switch (inv.positionals.first, inv.flag("all")) {
        case (nil, true):
            guard format == nil else { throw CLIError(usage: "--format cannot be used with --all", hint: "--all writes each kind in its own formats", command: inv.command) }
            return try await exportAll(inv)
        case (let text?, false):
            return try await exportOne(try await Context.recordID(text, inv), format: format, inv)
        case (nil, false):
            throw CLIError(usage: "give a record ID or --all", hint: "Usage: aisync export ID|--all [--format md|html|epub|json] [--output PATH] [--force]", command: inv.command)
        case (_?, true):
            throw CLIError(usage: "give a record ID or --all, not both", command: inv.command)
        }
    }

    static func parseFormat(_ text: String, _ inv: Invocation) throws(CLIError) -> Export.Format {
        guard let format = Export.Format(rawValue: text), format != .image else {
            throw CLIError(usage: "unknown format '\(text)'", hint: "Use md, html, epub or json", command: inv.command)
        }
        return format
    }

    static func exportOne(_ id: RecordID, format: Export.Format?, _ inv: Invocation) async throws(CLIError) -> Int32 {
        let store = try Context.open(inv)
        let output = inv.option("output") ?? "."
        if output == "-" {
            let document = try await Context.call { () async throws(AISyncError) in try await store.export(id, format: format) }
            if CLIPlatform.stdoutIsTerminal {
                // Text is shown escaped, like every human output; a zip or an EPUB is refused.
                guard let text = String(validating: document.bytes, as: UTF8.self), !text.contains("\u{0}") else {
                    throw CLIError(usage: "standard output is a terminal, and this export is binary", hint: "Redirect it to a file, or pass --output FILE", command: inv.command)
                }
                CLIPlatform.out(text)
                return ExitCode.success
            }
            do { try FileHandle.standardOutput.write(contentsOf: Data(document.bytes)) } catch {
                throw CLIError(AISyncError(.io, "cannot write to standard output", cause: "\(error.localizedDescription)"))
            }
            return ExitCode.success
        }
        let force = inv.flag("force")
        let written = try await Context.call { () async throws(AISyncError) in try await store.export(id, format: format, to: output, force: force) }
        CLIPlatform.out("\(written)\n")
        return ExitCode.success
    }

    static func exportAll(_ inv: Invocation) async throws(CLIError) -> Int32 {
        let output = inv.option("output") ?? "aisync-export"
        guard output != "-" else { throw CLIError(usage: "--all writes a folder, not standard output", hint: "Pass --output DIR", command: inv.command) }
        let store = try Context.open(inv)
        let force = inv.flag("force")
        let report = try await Context.call { () async throws(AISyncError) in try await store.exportAll(to: output, force: force) }
        for id in report.missingImages {
            CLIPlatform.warn("left out \(id): its bytes are not in this store yet (pull from a remote to download them)")
        }
        CLIPlatform.out("Exported \(Output.count(report.files.count - 1, "file")) to \(report.directory); open \(report.directory)/index.html\n")
        return ExitCode.success
    }
}
