import AISync
import Foundation

/// `aisync import`: bring history in from ChatGPT, Claude, storybook apps and DALL·E.
enum ImportCommands {
    static let all: [any ParsableCommand.Type] = [ImportCommand.self]

    struct ImportCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["import"], abstract: "Import chats, stories or images from another app's export.",
            discussion: """
                SOURCE is chatgpt, claude, storybook or dalle; left out, it is detected from the file. \
                Importing the same export again adds nothing; a newer export adds only new messages. \
                PATH may be the export's .zip, the unzipped folder, or its conversations.json. \
                A story's pictures are the images beside its JSON (same folder or zip), put on the page their name \
                numbers (page-3.png) or in name order. A zip with an entry named ../x or /x is refused whole (exit 65).
                """)
        /// The first word: SOURCE when a PATH follows, else the PATH itself.
        @Argument(name: "SOURCE", help: "chatgpt, claude, storybook or dalle (detected when left out).") var first:
            String?
        @Argument(name: "PATH", help: "The export: its .zip, the unzipped folder, conversations.json, or a JSON file.")
        var second: String?
        @Flag(help: "Say what would be imported, without writing anything.") var dryRun: Bool
        @Flag(help: jsonHelp) var json: Bool
        @Flag(help: "chatgpt, claude: keep the model's reasoning (thoughts, thinking) with its answers.")
        var withReasoning: Bool
        @Option(valueName: "P", help: "dalle: the prompt the pictures were made from.") var prompt: String?
        @Option(valueName: "M", help: "dalle: the model that made them, e.g. dall-e-3.") var model: String?
        @Flag(help: "dalle: download pictures given as a url (they expire an hour after the response).") var fetch: Bool

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let (source, path) = try sourceAndPath(context)
            let store = try Context.open(context)
            let options = Import.Options(
                dryRun: dryRun, withReasoning: withReasoning, prompt: prompt, model: model, progress: progressLine,
                fetch: fetch ? Import.downloadPicture : nil)
            let summary = try await Context.call { () async throws(AISyncError) in
                try await Import.run(source, path: path, into: store, options: options)
            }
            SyncCommands.progressBar.clear()
            if json { summary.json.printLine() } else { CLIPlatform.out(text(summary)) }
            return ExitCode.success
        }

        /// `[SOURCE] PATH`: one word is the path; with two, the first names the source.
        func sourceAndPath(_ context: CommandContext) throws(CLIError) -> (Import.Source?, String) {
            guard let first else {
                throw context.usage("missing argument PATH", hint: "Usage: aisync import [SOURCE] PATH")
            }
            guard let second else { return (nil, first) }
            guard let source = Import.Source(rawValue: first) else {
                let names = Import.Source.allCases.map(\.rawValue)
                let guess = closest(first, among: names).map { "Did you mean '\($0)'? " } ?? ""
                throw context.usage(
                    "unknown source '\(first.prefix(40))'", hint: "\(guess)Use \(names.joined(separator: ", "))")
            }
            return (source, second)
        }
    }

    /// How many records and skips are listed one by one; a big export lists the first ones
    /// and totals the rest (`--json` has every one).
    static let listed = 20

    static func text(_ s: ImportSummary) -> String {
        let head = s.dryRun ? "Would import" : "Imported"
        var lines = [
            "\(head) from \(s.source.rawValue): \(s.created) created, \(s.extended) extended, \(s.unchanged) unchanged, "
                + "\(s.deleted) left alone (deleted here), \(s.skipped.count) skipped; \(s.elementsAdded) \(s.elementsAdded == 1 ? "message or page" : "messages and pages") added"
        ]
        let changed = s.records.filter { $0.outcome != .unchanged }
        for r in changed.prefix(listed) {
            switch r.outcome {
            case .created(let n):
                lines.append("  created   \(r.id)  \(Output.oneLine(r.title))\(count(n, r.kind, sign: ""))")
            case .extended(let n):
                lines.append("  extended  \(r.id)  \(Output.oneLine(r.title))\(count(n, r.kind, sign: "+"))")
            case .deleted:
                lines.append("  deleted   \(r.id)  \(Output.oneLine(r.title)) (restore it to import into it)")
            case .unchanged: continue
            }
            for (reason, count) in r.notes.sorted(by: { $0.key < $1.key }) {
                lines.append("            \(count) \(ErrorText.note(reason))")
            }
        }
        if changed.count > listed {
            lines.append("  … and \(changed.count - listed) more records (--json lists every one); over all records:")
            var totals: [String: Int] = [:]
            for r in changed { for (reason, count) in r.notes { totals[reason, default: 0] += count } }
            for (reason, count) in totals.sorted(by: { $0.key < $1.key }) {
                lines.append("            \(count) \(ErrorText.note(reason))")
            }
        }
        for skip in s.skipped.prefix(listed) {
            lines.append("  skipped   \(Output.oneLine(skip.source)): \(skip.reason)")
        }
        if s.skipped.count > listed {
            lines.append("  … and \(s.skipped.count - listed) more skipped (--json lists every one)")
        }
        for note in s.notes { lines.append("  note      \(ErrorText.note(note))") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The progress line on a terminal's stderr after each batch of a big import.
    static let progressLine: @Sendable (ImportProgress) -> Void = { p in
        SyncCommands.progressBar.draw(
            label: "Importing", fraction: p.fraction, counter: "\(p.records) records",
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
