import AISync

extension RecordKind: ExpressibleByArgumentWord {}

/// The help of `--json`, the same on every command that has it.
let jsonHelp = "Print one JSON document instead of text."

/// Commands that read the store: list, show, log, status, conflicts, fsck, and resolve.
enum InspectCommands {
    static let all: [any ParsableCommand.Type] = [
        List.self, Show.self, Log.self, Status.self, Conflicts.self, Resolve.self, Restore.self, Fsck.self, GC.self,
    ]

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(path: ["list"], abstract: "List records, newest first.")
        @Option(valueName: "chat|story|image", help: "Only records of this kind.") var kind: RecordKind?
        @Flag(help: "Include deleted records.") var deleted: Bool
        @Flag(help: jsonHelp) var json: Bool

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let store = try Context.open(context)
            let listing = try await Context.call { () async throws(AISyncError) in
                try await store.listing(kind: kind, includeDeleted: deleted)
            }
            func warnIfDamaged(_ r: RecordSummary) {
                if r.damaged { CLIPlatform.warn("the body of \(r.id) is missing or damaged; run `aisync fsck`") }
            }
            if json {
                // Streamed: a million records are never all in memory at once.
                try await Context.call { () async throws(AISyncError) in
                    try listing.writeJSON(emit: { CLIPlatform.writeBytes($0, to: 1) }, damaged: warnIfDamaged)
                }
                return ExitCode.success
            }
            let records = try await Context.call { () async throws(AISyncError) in try listing.all }
            records.forEach(warnIfDamaged)
            CLIPlatform.out(
                records.isEmpty
                    ? "No records\(kind.map { " of kind \($0.rawValue)" } ?? "")\(deleted ? "" : " (deleted ones show with --deleted)").\n"
                    : Output.list(records, columns: CLIPlatform.listColumns))
            return ExitCode.success
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["show"], abstract: "Show a record.",
            discussion: """
                With --json, prints the record as canonical JSON (it validates against Schemas/<kind>.schema.json). \
                With --version, shows the record as that version's device saw it: the losing side of a conflict, or a deleted record.
                """)
        @Argument(help: "The record.") var id: String
        @Flag(help: jsonHelp) var json: Bool
        @Option(valueName: "VERSION", help: "Show the record as of this version (6+ characters, from `aisync log ID`).")
        var version: String?
        @Flag(help: "Include secrets such as an Imgur deletehash.") var showSecrets: Bool

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let record = try await Context.recordID(id, context)
            let store = try Context.open(context)
            let (state, shown, asOf) = try await Context.call { () async throws(AISyncError) in
                try await store.visibleRecord(record, asOf: version)
            }
            let body = showSecrets ? shown : shown.redactingSecrets()
            if json {
                body.json.printLine()
            } else {
                CLIPlatform.out(Output.show(id: record, body: body, state: state, asOf: asOf))
            }
            return ExitCode.success
        }
    }

    /// How many versions `log -n` shows: a whole number, 0 or more.
    struct VersionCount: ExpressibleByArgument {
        var value: Int

        init?(argument: String) {
            guard let n = Int(argument), n >= 0 else { return nil }
            value = n
        }

        static func invalid(_ text: String, name: String) -> (message: String, hint: String?) {
            ("\(name) must be a whole number of versions (0 or more), not '\(text.prefix(40))'", "e.g. -n 20")
        }
    }

    struct Log: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["log"], abstract: "Show the history of versions, newest first.")
        @Argument(help: "Only this record.") var id: String?
        @Flag(help: jsonHelp) var json: Bool
        @Option(valueName: "N", help: "Only the N newest versions (also -n N).") var limit: VersionCount?

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            var record: RecordID?
            if let id { record = try await Context.recordID(id, context) }
            let limit = limit?.value ?? Int.max
            let store = try Context.open(context)
            let versions = Array(
                try await Context.call { () async throws(AISyncError) in try await store.history(record) }.suffix(limit)
            )
            let names = store.deviceNames()
            if json {
                Version.logJSON(versions.reversed(), deviceNames: names).printLine()
            } else {
                let now = CLIPlatform.nowMilliseconds()
                CLIPlatform.out(
                    versions.isEmpty && limit > 0
                        ? "No versions yet.\n"
                        : versions.reversed().map { Output.logLine($0, names: names, now: now) }.joined())
            }
            return ExitCode.success
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(path: ["status"], abstract: "Summarize the store.")
        @Flag(help: jsonHelp) var json: Bool

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let store = try Context.open(context)
            let (s, remotes) = try await Context.call { () async throws(AISyncError) in
                (try await store.status(), try await store.remoteStatuses())
            }
            if json {
                s.json(remotes: remotes).printLine()
            } else {
                CLIPlatform.out(Output.status(s, remotes: remotes))
            }
            return ExitCode.success
        }
    }

    struct Conflicts: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["conflicts"],
            abstract: "List fields changed to different values on two devices at once; the shown value first.")
        @Argument(help: "Only this record.") var id: String?
        @Flag(help: jsonHelp) var json: Bool

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            var record: RecordID?
            if let id { record = try await Context.recordID(id, context) }
            let store = try Context.open(context)
            let list = try await Context.call { () async throws(AISyncError) in try await store.conflicts(record) }
            let names = store.deviceNames()
            if json {
                Store.Conflict.listJSON(list, deviceNames: names).printLine()
            } else if list.isEmpty {
                CLIPlatform.out("No conflicts.\n")
            } else {
                CLIPlatform.out(list.map { Output.conflict($0, names: names) }.joined(separator: "\n"))
            }
            return ExitCode.success
        }
    }

    struct Resolve: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["resolve"], abstract: "Close a conflict by keeping one side.",
            discussion: """
                --keep VERSION keeps, for every field in conflict, what that version's device saw. \
                --field F --value-of VERSION closes the conflict on one field (title, deleted, messages/m-…). \
                The new version supersedes the others on every device once synced; a kept deletion or restore applies too.
                """)
        @Argument(help: "The record in conflict.") var id: String
        @Option(valueName: "VERSION", help: "The version to keep (at least 6 characters, from `aisync conflicts`).")
        var keep: String?
        @Option(valueName: "F", help: "Only this field (with --value-of).") var field: String?
        @Option(valueName: "VERSION", help: "The version whose value of --field to keep.") var valueOf: String?

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let record = try await Context.recordID(id, context)
            let store = try Context.open(context)
            let version: Version
            switch (keep, field, valueOf) {
            case (let keep?, nil, nil):
                version = try await Context.call { () async throws(AISyncError) in
                    try await store.resolve(record, keep: keep)
                }
            case (nil, let field?, let of?):
                version = try await Context.call { () async throws(AISyncError) in
                    try await store.resolve(record, field: field, valueOf: of)
                }
            default:
                throw context.usage(
                    "give --keep VERSION, or --field F with --value-of VERSION",
                    hint: "See `aisync conflicts \(record)` for fields and versions")
            }
            CLIPlatform.out("Resolved \(record): new version \(version.shortID)\n")
            return ExitCode.success
        }
    }

    struct Restore: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["restore"], abstract: "Bring a deleted record back, with everything it held.")
        @Argument(help: "The deleted record (see `aisync list --deleted`).") var id: String

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let record = try await Context.recordID(id, context)
            let store = try Context.open(context)
            let version = try await Context.call { () async throws(AISyncError) in try await store.restore(record) }
            CLIPlatform.out("Restored \(record): new version \(version.shortID)\n")
            return ExitCode.success
        }
    }

    struct Fsck: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["fsck"],
            abstract:
                "Re-hash every object, check the journal and that no other account can reach the store; exit 0 only when all is sound."
        )
        @Flag(
            help:
                "Make the store private again first: take the group's and others' permissions off every folder and file in it."
        )
        var repair: Bool

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let store = try Context.open(context)
            let repair = repair
            let report = try await Context.call { () async throws(AISyncError) in try await store.fsck(repair: repair) }
            if report.madePrivate > 0 {
                CLIPlatform.err(
                    "note: made \(Output.count(report.madePrivate, "path")) in the store private (others had access)\n")
            }
            if report.droppedTornBytes > 0 {
                CLIPlatform.err(
                    "note: dropped a torn final journal line (\(report.droppedTornBytes) bytes) left by an interrupted write\n"
                )
            }
            for problem in report.problems { CLIPlatform.out("\(TerminalText.escaped(problem.description))\n") }
            var summary = "\(report.journalLines) journal lines, \(report.objectsChecked) objects checked"
            if !report.imagesNotDownloaded.isEmpty {
                summary +=
                    "; \(Output.count(report.imagesNotDownloaded.count, "picture")) from other devices not yet downloaded (a pull fetches them when the remote has them)"
            }
            if report.isSound {
                CLIPlatform.out("ok: \(summary)\n")
                return ExitCode.success
            }
            let onlyExposed = report.exposure != nil && report.problems.count == 1
            CLIPlatform.err(
                "Error: the store has \(Output.count(report.problems.count, "problem")) (\(summary)). \(onlyExposed ? "Run `aisync fsck --repair` to make it private" : report.exposure != nil ? "Run `aisync fsck --repair` to make it private; pull from a remote or restore the other files named above" : "Pull from a remote or restore the files named above")\n"
            )
            return ExitCode.damagedData
        }
    }

    struct GC: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["gc"],
            abstract: "Remove objects no version names and leftovers of killed writes (older than an hour).",
            discussion:
                "With --remote, also pull from that remote, then remove the pictures on it no version names and end its unfinished uploads (S3 multipart uploads a killed push left), once a sweep has seen them for the grace period."
        )
        @Flag(help: "List what would be removed, without removing it.") var dryRun: Bool
        @Flag(help: jsonHelp) var json: Bool
        @Option(valueName: "NAME", help: "Also sweep this remote, after pulling from it.") var remote: String?
        @Option(
            valueName: "DAYS",
            help: "With --remote: what a sweep found this many days ago goes (default 30; 0 after a second sweep).")
        var grace: SyncCommands.GraceDays?

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            if remote == nil, grace != nil {
                throw context.usage("--grace applies to --remote", hint: "Add --remote NAME, or leave out --grace")
            }
            if remote != nil, dryRun {
                throw context.usage(
                    "--dry-run cannot be used with --remote",
                    hint: "The sweep of a remote notes what it finds first and removes it only on a later sweep")
            }
            // The remote is found (and its key asked for) before anything is removed.
            var engine: SyncEngine?
            if let remote {
                engine = try await SyncCommands.engine(context, remote: remote, remember: false, allowMassDelete: false)
            }
            let store = try Context.open(context)
            let dryRun = dryRun
            let r = try await Context.call { () async throws(AISyncError) in
                try await store.collectGarbage(dryRun: dryRun)
            }
            var swept: SyncEngine.CompactReport?
            if let engine {
                let grace = grace?.milliseconds ?? SyncEngine.defaultGraceMilliseconds
                swept = try await Context.call { () async throws(AISyncError) in
                    try await engine.sweepRemote(graceMilliseconds: grace)
                }
                SyncCommands.progressBar.clear()
            }
            if json {
                var document = r.json.objectValue ?? [:]
                if let swept, let remote { document["remote"] = swept.sweepJSON(remote: remote) }
                JSONValue.object(document).printLine()
            } else {
                let verb = dryRun ? "would remove" : "removed"
                CLIPlatform.out(
                    "gc: \(verb) \(Output.count(r.objects.count, "unused object")) (\(Output.bytes(r.bytes))) and \(Output.count(r.leftovers.count, "leftover temp file"))\n"
                )
                if let swept, let remote {
                    CLIPlatform.out(Output.sweep(swept, of: remote, command: "gc"))
                }
            }
            return ExitCode.success
        }
    }
}
