import AISync

/// Commands that read the store: list, show, log, status, conflicts, fsck, and resolve.
enum InspectCommands {
    static let all: [CommandSpec] = [list, show, log, status, conflicts, resolve, restore, fsck, gc]
    static let json = OptionSpec(name: "json", help: "Print one JSON document instead of text.")

    static let list = CommandSpec(
        path: ["list"], abstract: "List records, newest first.",
        options: [OptionSpec(name: "kind", valueName: "chat|story|image", help: "Only records of this kind."),
                  OptionSpec(name: "deleted", help: "Include deleted records."), json]
    ) { inv throws(CLIError) in
        var kind: RecordKind?
        if let text = inv.option("kind") {
            guard let k = RecordKind(rawValue: text) else { throw CLIError(usage: "unknown kind '\(text)'", hint: "Use chat, story or image", command: inv.command) }
            kind = k
        }
        let store = try Context.open(inv)
        let listing = try await Context.call { () async throws(AISyncError) in try await store.listing(kind: kind, includeDeleted: inv.flag("deleted")) }
        func warnIfDamaged(_ r: RecordSummary) {
            if r.damaged { CLIPlatform.warn("the body of \(r.id) is missing or damaged; run `aisync fsck`") }
        }
        if inv.flag("json") {
            // Streamed: a million records are never all in memory at once.
            try await Context.call { () async throws(AISyncError) in
                try listing.writeJSON(emit: { CLIPlatform.writeBytes($0, to: 1) }, each: warnIfDamaged)
            }
        } else {
            let records = try await Context.call { () async throws(AISyncError) in try listing.all }
            records.forEach(warnIfDamaged)
            CLIPlatform.out(records.isEmpty ? "No records\(kind.map { " of kind \($0.rawValue)" } ?? "")\(inv.flag("deleted") ? "" : " (deleted ones show with --deleted)").\n"
                            : Output.list(records, columns: CLIPlatform.listColumns))
        }
        return ExitCode.success
    }

    static let show = CommandSpec(
        path: ["show"], abstract: "Show a record.",
        discussion: """
            With --json, prints the record as canonical JSON (it validates against Schemas/<kind>.schema.json). \
            With --version, shows the record as that version's device saw it: the losing side of a conflict, or a deleted record.
            """,
        arguments: [ArgumentSpec(name: "ID", help: "The record.")],
        options: [json, OptionSpec(name: "version", valueName: "VERSION", help: "Show the record as of this version (6+ characters, from `aisync log ID`)."),
                  OptionSpec(name: "show-secrets", help: "Include secrets such as an Imgur deletehash.")]
    ) { inv throws(CLIError) in
        let id = try await Context.recordID(inv.positionals[0], inv)
        let store = try Context.open(inv)
        let (state, shown, asOf) = try await Context.call { () async throws(AISyncError) in
            try await store.visibleRecord(id, asOf: inv.option("version"))
        }
        let body = inv.flag("show-secrets") ? shown : shown.redactingSecrets()
        if inv.flag("json") { body.json.printLine() } else { CLIPlatform.out(Output.show(id: id, body: body, state: state, asOf: asOf)) }
        return ExitCode.success
    }

    static let log = CommandSpec(
        path: ["log"], abstract: "Show the history of versions, newest first.",
        arguments: [ArgumentSpec(name: "ID", help: "Only this record.", optional: true)],
        options: [json, OptionSpec(name: "limit", valueName: "N", help: "Only the N newest versions (also -n N).")]
    ) { inv throws(CLIError) in
        var id: RecordID?
        if let text = inv.positionals.first { id = try await Context.recordID(text, inv) }
        var limit = Int.max
        if let text = inv.option("limit") {
            guard let n = Int(text), n >= 0 else {
                throw CLIError(usage: "--limit must be a whole number of versions (0 or more), not '\(text.prefix(40))'", hint: "e.g. -n 20", command: inv.command)
            }
            limit = n
        }
        let store = try Context.open(inv)
        let versions = Array(try await Context.call { () async throws(AISyncError) in try await store.history(id) }.suffix(limit))
        let names = store.deviceNames()
        if inv.flag("json") {
            Version.logJSON(versions.reversed(), deviceNames: names).printLine()
        } else {
            let now = CLIPlatform.nowMilliseconds()
            CLIPlatform.out(versions.isEmpty && limit > 0 ? "No versions yet.\n" : versions.reversed().map { Output.logLine($0, names: names, now: now) }.joined())
        }
        return ExitCode.success
    }

    static let status = CommandSpec(path: ["status"], abstract: "Summarize the store.", options: [json]) { inv throws(CLIError) in
        let store = try Context.open(inv)
        let s = try await Context.call { () async throws(AISyncError) in try await store.status() }
        if inv.flag("json") { s.json.printLine() } else { CLIPlatform.out(Output.status(s)) }
        return ExitCode.success
    }

    static let conflicts = CommandSpec(
        path: ["conflicts"], abstract: "List fields changed to different values on two devices at once; the shown value first.",
        arguments: [ArgumentSpec(name: "ID", help: "Only this record.", optional: true)],
        options: [json]
    ) { inv throws(CLIError) in
        var id: RecordID?
        if let text = inv.positionals.first { id = try await Context.recordID(text, inv) }
        let store = try Context.open(inv)
        let list = try await Context.call { () async throws(AISyncError) in try await store.conflicts(id) }
        let names = store.deviceNames()
        if inv.flag("json") {
            Store.Conflict.listJSON(list, deviceNames: names).printLine()
        } else if list.isEmpty {
            CLIPlatform.out("No conflicts.\n")
        } else {
            CLIPlatform.out(list.map { Output.conflict($0, names: names) }.joined(separator: "\n"))
        }
        return ExitCode.success
    }

    static let resolve = CommandSpec(
        path: ["resolve"], abstract: "Close a conflict by keeping one side.",
        discussion: """
            --keep VERSION keeps, for every field in conflict, what that version's device saw. \
            --field F --value-of VERSION closes the conflict on one field (title, deleted, messages/m-…). \
            The new version supersedes the others on every device once synced; a kept deletion or restore applies too.
            """,
        arguments: [ArgumentSpec(name: "ID", help: "The record in conflict.")],
        options: [OptionSpec(name: "keep", valueName: "VERSION", help: "The version to keep (at least 6 characters, from `aisync conflicts`)."),
                  OptionSpec(name: "field", valueName: "F", help: "Only this field (with --value-of)."),
                  OptionSpec(name: "value-of", valueName: "VERSION", help: "The version whose value of --field to keep.")]
    ) { inv throws(CLIError) in
        let id = try await Context.recordID(inv.positionals[0], inv)
        let store = try Context.open(inv)
        let version: Version
        switch (inv.option("keep"), inv.option("field"), inv.option("value-of")) {
        case (let keep?, nil, nil):
            version = try await Context.call { () async throws(AISyncError) in try await store.resolve(id, keep: keep) }
        case (nil, let field?, let of?):
            version = try await Context.call { () async throws(AISyncError) in try await store.resolve(id, field: field, valueOf: of) }
        default:
            throw CLIError(usage: "give --keep VERSION, or --field F with --value-of VERSION", hint: "See `aisync conflicts \(id)` for fields and versions", command: inv.command)
        }
        CLIPlatform.out("Resolved \(id): new version \(version.shortID)\n")
        return ExitCode.success
    }

    static let restore = CommandSpec(
        path: ["restore"], abstract: "Bring a deleted record back, with everything it held.",
        arguments: [ArgumentSpec(name: "ID", help: "The deleted record (see `aisync list --deleted`).")]
    ) { inv throws(CLIError) in
        let id = try await Context.recordID(inv.positionals[0], inv)
        let store = try Context.open(inv)
        let version = try await Context.call { () async throws(AISyncError) in try await store.restore(id) }
        CLIPlatform.out("Restored \(id): new version \(version.shortID)\n")
        return ExitCode.success
    }

    static let fsck = CommandSpec(
        path: ["fsck"], abstract: "Re-hash every object and check the journal; exit 0 only when all is sound."
    ) { inv throws(CLIError) in
        let store = try Context.open(inv)
        let report = try await Context.call { () async throws(AISyncError) in try await store.fsck() }
        if report.droppedTornBytes > 0 { CLIPlatform.err("note: dropped a torn final journal line (\(report.droppedTornBytes) bytes) left by an interrupted write\n") }
        for problem in report.problems { CLIPlatform.out("\(problem)\n") }
        var summary = "\(report.journalLines) journal lines, \(report.objectsChecked) objects checked"
        if !report.imagesNotDownloaded.isEmpty {
            summary += "; \(Output.count(report.imagesNotDownloaded.count, "picture")) from other devices not yet downloaded (a pull fetches them when the remote has them)"
        }
        if report.isSound {
            CLIPlatform.out("ok: \(summary)\n")
            return ExitCode.success
        }
        CLIPlatform.err("Error: the store has \(Output.count(report.problems.count, "problem")) (\(summary)). Pull from a remote or restore the files named above\n")
        return ExitCode.damagedData
    }

    static let gc = CommandSpec(
        path: ["gc"], abstract: "Remove objects no version names and leftovers of killed writes (older than an hour).",
        options: [OptionSpec(name: "dry-run", help: "List what would be removed, without removing it."), json]
    ) { inv throws(CLIError) in
        let store = try Context.open(inv)
        let dryRun = inv.flag("dry-run")
        let r = try await Context.call { () async throws(AISyncError) in try await store.collectGarbage(dryRun: dryRun) }
        if inv.flag("json") {
            r.json.printLine()
        } else {
            let verb = dryRun ? "would remove" : "removed"
            CLIPlatform.out("gc: \(verb) \(Output.count(r.objects.count, "unused object")) (\(Output.bytes(r.bytes))) and \(Output.count(r.leftovers.count, "leftover temp file"))\n")
        }
        return ExitCode.success
    }
}
