import AISync
import Foundation

/// `aisync import`: bring history in from ChatGPT, Claude, storybook apps and DALL·E.
enum ImportCommands {
    static let all: [CommandSpec] = [importCommand]

    static let importCommand = CommandSpec(
        path: ["import"], abstract: "Import chats, stories or images from another app's export.",
        discussion: """
        SOURCE is chatgpt, claude, storybook or dalle; left out, it is detected from the file. \
        Importing the same export again adds nothing; a newer export adds only new messages. \
        PATH may be the export's .zip, the unzipped folder, or its conversations.json.
        """,
        arguments: [ArgumentSpec(name: "SOURCE", help: "chatgpt, claude, storybook or dalle (detected when left out).", optional: true),
                    ArgumentSpec(name: "PATH", help: "The export: its .zip, the unzipped folder, conversations.json, or a JSON file.",
                                 optional: true)],
        options: [OptionSpec(name: "dry-run", help: "Say what would be imported, without writing anything."), InspectCommands.json,
                  OptionSpec(name: "prompt", valueName: "P", help: "dalle: the prompt the pictures were made from."),
                  OptionSpec(name: "model", valueName: "M", help: "dalle: the model that made them, e.g. dall-e-3."),
                  OptionSpec(name: "fetch", help: "dalle: download pictures given as a url (they expire an hour after the response).")]
    ) { inv throws(CLIError) in
        let (source, path) = try arguments(inv)
        let store = try Context.open(inv)
        let options = Import.Options(dryRun: inv.flag("dry-run"), prompt: inv.option("prompt"), model: inv.option("model"),
                                     progress: progressLine, fetch: inv.flag("fetch") ? Import.downloadPicture : nil)
        let summary = try await Context.call { () async throws(AISyncError) in
            try await Import.run(source, path: path, into: store, options: options)
        }
        SyncCommands.progressBar.clear()
        if inv.flag("json") { summary.json.printLine() } else { CLIPlatform.out(text(summary)) }
        return ExitCode.success
    }

    static func arguments(_ inv: Invocation) throws(CLIError) -> (Import.Source?, String) {
        guard let first = inv.positionals.first else {
            throw CLIError(usage: "missing argument PATH", hint: "Usage: aisync import [SOURCE] PATH", command: inv.command)
        }
        guard inv.positionals.count == 2 else { return (nil, first) }
        guard let source = Import.Source(rawValue: inv.positionals[0]) else {
            let names = Import.Source.allCases.map(\.rawValue)
            let guess = closest(inv.positionals[0], among: names).map { "Did you mean '\($0)'? " } ?? ""
            throw CLIError(usage: "unknown source '\(inv.positionals[0].prefix(40))'", hint: "\(guess)Use \(names.joined(separator: ", "))", command: inv.command)
        }
        return (source, inv.positionals[1])
    }

    /// How many records and skips are listed one by one; a big export lists the first ones
    /// and totals the rest (`--json` has every one).
    static let listed = 20

    static func text(_ s: ImportSummary) -> String {
        let head = s.dryRun ? "Would import" : "Imported"
        var lines = ["\(head) from \(s.source.rawValue): \(s.created) created, \(s.extended) extended, \(s.unchanged) unchanged, "
                     + "\(s.deleted) left alone (deleted here), \(s.skipped.count) skipped; \(s.elementsAdded) \(s.elementsAdded == 1 ? "message or page" : "messages and pages") added"]
        let changed = s.records.filter { $0.outcome != .unchanged }
        for r in changed.prefix(listed) {
            switch r.outcome {
            case .created(let n): lines.append("  created   \(r.id)  \(Output.oneLine(r.title))\(count(n, r.kind, sign: ""))")
            case .extended(let n): lines.append("  extended  \(r.id)  \(Output.oneLine(r.title))\(count(n, r.kind, sign: "+"))")
            case .deleted: lines.append("  deleted   \(r.id)  \(Output.oneLine(r.title)) (restore it to import into it)")
            case .unchanged: continue
            }
            for (reason, count) in r.notes.sorted(by: { $0.key < $1.key }) { lines.append("            \(count) \(reason)") }
        }
        if changed.count > listed {
            lines.append("  … and \(changed.count - listed) more records (--json lists every one); over all records:")
            var totals: [String: Int] = [:]
            for r in changed { for (reason, count) in r.notes { totals[reason, default: 0] += count } }
            for (reason, count) in totals.sorted(by: { $0.key < $1.key }) { lines.append("            \(count) \(reason)") }
        }
        for skip in s.skipped.prefix(listed) { lines.append("  skipped   \(Output.oneLine(skip.source)): \(skip.reason)") }
        if s.skipped.count > listed { lines.append("  … and \(s.skipped.count - listed) more skipped (--json lists every one)") }
        for note in s.notes { lines.append("  note      \(ErrorText.note(note))") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The progress line on a terminal's stderr after each batch of a big import.
    static let progressLine: @Sendable (ImportProgress) -> Void = { p in
        SyncCommands.progressBar.draw(label: "Importing", fraction: p.fraction, counter: "\(p.records) records",
                                      bytes: p.bytesDone, totalBytes: p.totalBytes, finished: p.fraction >= 1)
    }

    /// ` (3 messages)`, ` (+1 page)`; nothing for images.
    static func count(_ n: Int, _ kind: RecordKind, sign: String) -> String {
        switch kind {
        case .chat: " (\(sign)\(n) message\(n == 1 ? "" : "s"))"
        case .story: " (\(sign)\(n) page\(n == 1 ? "" : "s"))"
        case .image: ""
        }
    }
}
