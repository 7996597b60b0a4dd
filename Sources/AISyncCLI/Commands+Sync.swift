import AISync

/// Remotes and sync: `remote add|list|remove`, `push`, `pull`, `sync`.
enum SyncCommands {
    static let all: [CommandSpec] = [remoteAdd, remoteList, remoteRemove, push, pull, sync, compact, encrypt, passphraseChange, passphraseForget]

    static let remoteAdd = CommandSpec(
        path: ["remote", "add"], abstract: "Add a remote: a WebDAV URL, a plain HTTP URL (--plain), or file:///folder.",
        discussion: "Credentials come from AISYNC_USER/AISYNC_PASSWORD or ~/.netrc, never from the URL or the config.",
        arguments: [ArgumentSpec(name: "NAME", help: "A short name, e.g. origin."), ArgumentSpec(name: "URL", help: "https://host/path, http://127.0.0.1:8080/path, or file:///path.")],
        options: [OptionSpec(name: "plain", help: "The server is plain HTTP (GET/PUT/DELETE), not WebDAV."),
                  OptionSpec(name: "insecure", help: "Allow http:// to a host that is not this machine."),
                  OptionSpec(name: "encrypt", help: "Encrypt everything sent there; the first sync asks for a new passphrase (or AISYNC_PASSPHRASE).")]
    ) { inv throws(CLIError) in
        let name = inv.positionals[0], url = inv.positionals[1]
        let store = try Context.open(inv)
        try await Context.call { () async throws(AISyncError) in
            try await store.addRemote(name: name, url: url, plain: inv.flag("plain"), insecure: inv.flag("insecure"), encrypted: inv.flag("encrypt"))
        }
        return ExitCode.success
    }

    static let remoteList = CommandSpec(path: ["remote", "list"], abstract: "List remotes.", options: [InspectCommands.json]) { inv throws(CLIError) in
        let store = try Context.open(inv)
        let config = try await Context.call { () async throws(AISyncError) in try await store.currentConfig() }
        if inv.flag("json") {
            config.remotesJSON.printLine()
        } else {
            CLIPlatform.out(config.remotes.isEmpty ? "No remotes yet. Add one with `aisync remote add NAME URL` (e.g. file:///media/usb/aisync).\n"
                            : config.remotes.map { "\($0.name)\t\($0.type)\t\($0.url)\($0.encrypted ? "\tencrypted" : "")\n" }.joined())
        }
        return ExitCode.success
    }

    static let remoteRemove = CommandSpec(
        path: ["remote", "remove"], abstract: "Forget a remote (nothing on the remote is deleted).",
        arguments: [ArgumentSpec(name: "NAME", help: "The remote.")]
    ) { inv throws(CLIError) in
        let name = inv.positionals[0]
        let store = try Context.open(inv)
        try await Context.call { () async throws(AISyncError) in try await store.removeRemote(name) }
        return ExitCode.success
    }

    /// Progress on stderr only when it is a terminal (and TERM is not dumb): one line, redrawn.
    static let progressBar = ProgressBar()
    static let progressLine: @Sendable (SyncProgress) -> Void = { progressBar.update($0) }

    static let remember = OptionSpec(name: "remember", help: "Keep an encrypted remote's key in a file only you can read, so later syncs need no passphrase.")
    static let allowMassDelete = OptionSpec(name: "allow-mass-delete", help: "Send deletes of more than 50 records and a quarter of the store (refused otherwise).")
    static let syncOptions = [OptionSpec(name: "dry-run", help: "Say what would move, without moving it."), InspectCommands.json, remember]
    static let pushOptions = syncOptions + [allowMassDelete]

    /// The engine for the remote named on the command line, set up by the library from the
    /// store's config and the environment; its warnings are printed here.
    static func engine(_ inv: Invocation) async throws(CLIError) -> SyncEngine {
        let store = try Context.open(inv)
        var (engine, warnings) = try await Context.call { () async throws(AISyncError) in
            try await SyncEngine.configured(store: store, remote: inv.positionals.first, environment: CLIPlatform.environmentDictionary(),
                                            passphrase: PassphrasePrompt.source, rememberKey: inv.flag("remember"), progress: progressLine)
        }
        for warning in warnings {
            switch warning {
            case .imgurEnabledWithoutCredential:
                CLIPlatform.warn("Imgur is enabled but AISYNC_IMGUR_CLIENT_ID / AISYNC_IMGUR_TOKEN is not set; images stay pending")
            case .imgurPausedForEncryptedRemote:
                CLIPlatform.warn("this remote is encrypted, so pictures are not uploaded to Imgur, where they would be public; run `aisync imgur enable --public-images` to upload them anyway")
            }
        }
        engine.allowMassDelete = inv.flag("allow-mass-delete")
        return engine
    }

    static func report(_ r: SyncReport, verb: String, _ inv: Invocation) {
        progressBar.clear()
        if inv.flag("json") {
            r.json.printLine()
        } else {
            CLIPlatform.out(Output.syncSummary(r, verb: verb))
        }
        if r.imgurUploaded + r.imgurFailed + r.imgurDeleted > 0 || r.imgurPending > 0, !inv.flag("json") {
            CLIPlatform.out("imgur: \(r.imgurUploaded) uploaded, \(r.imgurPending) pending, \(r.imgurFailed) refused, \(r.imgurDeleted) deleted\n")
        }
        if r.massDelete > 0 {
            CLIPlatform.warn("without --dry-run this would stop: it deletes \(Output.count(r.massDelete, "record")) on every device; add --allow-mass-delete if you mean it")
        }
        if let new = r.newDeviceID {
            CLIPlatform.err("note: this store is a copy of another that keeps syncing as device \(r.oldDeviceID?.short ?? "?"); it is now device \(new.short), its unsynced changes came along, and both copies keep syncing\n")
        }
        if let retryAt = r.imgurRetryAt {
            CLIPlatform.warn("Imgur rate limit reached; uploads resume after \(Timestamp(milliseconds: retryAt * 1000).iso8601) (run push again then)")
        }
        for problem in r.imgurErrors { CLIPlatform.warn("Imgur: \(problem); the upload stays pending") }
        for digest in r.missingBlobs where r.removedOnImgur.contains(digest) {
            CLIPlatform.warn("Imgur removed image \(digest.hex.prefix(12)) (its link shows removed.png) and the remote has no copy of the original; it stays missing until a device that has it pushes")
        }
        for digest in r.missingBlobs where !r.removedOnImgur.contains(digest) {
            CLIPlatform.warn("the remote does not have the bytes of image \(digest.hex.prefix(12)); they stay missing until the device that has them pushes")
        }
    }

    static let remoteArgument = [ArgumentSpec(name: "NAME", help: "The remote (optional when there is only one).", optional: true)]

    static let push = CommandSpec(path: ["push"], abstract: "Send local changes to a remote.", arguments: remoteArgument, options: pushOptions) { inv throws(CLIError) in
        let engine = try await engine(inv)
        let r = try await Context.call { () async throws(AISyncError) in try await engine.push(dryRun: inv.flag("dry-run")) }
        report(r, verb: "push", inv)
        return ExitCode.success
    }

    static let pull = CommandSpec(path: ["pull"], abstract: "Fetch and merge changes from a remote.", arguments: remoteArgument, options: syncOptions) { inv throws(CLIError) in
        let engine = try await engine(inv)
        let r = try await Context.call { () async throws(AISyncError) in try await engine.pull(dryRun: inv.flag("dry-run")) }
        report(r, verb: "pull", inv)
        return ExitCode.success
    }

    static let compact = CommandSpec(
        path: ["compact"], abstract: "Write a snapshot to a remote, so a new device restores from it instead of every version ever pushed.",
        discussion: "Syncs first. This device's segments and older snapshots that a snapshot covers are removed once that snapshot is older than the grace period, so a device offline for less than that still syncs.",
        arguments: remoteArgument,
        options: [OptionSpec(name: "grace", valueName: "DAYS", help: "Keep what a snapshot covers this many days (default 30; 0 removes it now)."),
                  InspectCommands.json, remember, allowMassDelete]
    ) { inv throws(CLIError) in
        var grace = SyncEngine.defaultGraceMilliseconds
        if let text = inv.option("grace") {
            guard let days = Int64(text), (0...36500).contains(days) else {
                throw CLIError(usage: "--grace must be a whole number of days from 0 to 36500, not \"\(text.prefix(40))\"", command: inv.command)
            }
            grace = days * 24 * 3600 * 1000
        }
        let engine = try await engine(inv)
        let r = try await Context.call { () async throws(AISyncError) in try await engine.compact(graceMilliseconds: grace) }
        progressBar.clear()
        if inv.flag("json") {
            r.json.printLine()
        } else {
            CLIPlatform.out("compact: snapshot \(r.snapshot) (\(Output.count(r.parts, "part")), \(Output.bytes(r.bytes))) keeps \(Output.count(r.versions, "version")), leaves out \(r.dropped); removed \(Output.count(r.removedSegments, "segment")) and \(Output.count(r.removedSnapshotParts, "old snapshot part"))\n")
            if r.sweptOrphans, r.removedOrphans + r.waitingOrphans > 0 {
                CLIPlatform.out("compact: \(Output.count(r.removedOrphans, "orphan picture")) removed from the remote, \(r.waitingOrphans) kept until the grace period has passed\n")
            } else if !r.sweptOrphans {
                CLIPlatform.out("compact: orphan pictures not swept: this remote cannot list its files (plain HTTP)\n")
            }
        }
        return ExitCode.success
    }

    static let sync = CommandSpec(path: ["sync"], abstract: "Pull, merge, then push.", arguments: remoteArgument, options: pushOptions) { inv throws(CLIError) in
        let engine = try await engine(inv)
        let r = try await Context.call { () async throws(AISyncError) in try await engine.sync(dryRun: inv.flag("dry-run")) }
        report(r, verb: "sync", inv)
        return ExitCode.success
    }

    static let passphraseChange = CommandSpec(
        path: ["passphrase", "change"], abstract: "Change an encrypted remote's passphrase (nothing is re-encrypted).",
        discussion: "Asks for the current passphrase, then the new one twice (or reads AISYNC_PASSPHRASE and AISYNC_NEW_PASSPHRASE). Other devices use the new passphrase from then on; keys they remember keep working.",
        arguments: remoteArgument
    ) { inv throws(CLIError) in
        let store = try Context.open(inv)
        try await Context.call { () async throws(AISyncError) in
            let config = try await store.currentConfig()
            let remote = try RemoteFactory.pick(inv.positionals.first, in: config)
            let environment = CLIPlatform.environmentDictionary()
            let storage = try RemoteFactory.make(remote, environment: environment, runtime: store.environment)
            try await RemoteEncryption.changePassphrase(of: remote, storage: storage, store: store,
                                                        passphrase: RemoteEncryption.source(environment: environment, fallback: PassphrasePrompt.source))
        }
        CLIPlatform.out("passphrase changed\n")
        return ExitCode.success
    }

    static let passphraseForget = CommandSpec(
        path: ["passphrase", "forget"], abstract: "Delete the key --remember kept; the passphrase is asked for again.",
        arguments: remoteArgument
    ) { inv throws(CLIError) in
        let store = try Context.open(inv)
        try await Context.call { () async throws(AISyncError) in
            let remote = try RemoteFactory.pick(inv.positionals.first, in: try await store.currentConfig())
            await store.forgetKeys(remote.name)
        }
        return ExitCode.success
    }

    static let encrypt = CommandSpec(
        path: ["encrypt"], abstract: "Encrypt a remote that holds plain data, in place (run it again to finish if it was cut off).",
        discussion: "Syncs first, asks for a new passphrase twice (or reads AISYNC_PASSPHRASE), marks the remote encrypted so devices without the key stop pushing, then seals every file where it is and every picture under a keyed name, removing its plain copy. Other devices are asked for the passphrase on their next sync. Run it while other devices are not syncing.",
        arguments: remoteArgument, options: [remember]
    ) { inv throws(CLIError) in
        let store = try Context.open(inv)
        let report = try await Context.call { () async throws(AISyncError) -> EncryptionReport in
            let remote = try RemoteFactory.pick(inv.positionals.first, in: try await store.currentConfig())
            let environment = CLIPlatform.environmentDictionary()
            let storage = try RemoteFactory.make(remote, environment: environment, runtime: store.environment)
            let engine = SyncEngine(store: store, remote: storage, name: remote.name, progress: progressLine)
            let (keys, report) = try await engine.encryptRemote(passphrase: RemoteEncryption.source(environment: environment, fallback: PassphrasePrompt.source))
            if inv.flag("remember") { try await store.rememberKeys(keys, for: remote.name) }
            return report
        }
        progressBar.clear()
        CLIPlatform.out("encrypted: \(Output.count(report.files, "file")) and \(Output.count(report.objects, "picture")) sealed, \(report.alreadySealed) already sealed\n")
        return ExitCode.success
    }
}
