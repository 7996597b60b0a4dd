import AISync

/// Remotes and sync: `remote add|list|remove`, `push`, `pull`, `sync`.
enum SyncCommands {
    static let all: [any ParsableCommand.Type] = [
        RemoteAdd.self, RemoteList.self, RemoteTrust.self, RemoteRemove.self, Push.self, Pull.self, SyncCommand.self,
        Compact.self,
        Encrypt.self, PassphraseChange.self, PassphraseForget.self, Watch.self,
    ]

    struct RemoteAdd: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["remote", "add"],
            abstract:
                "Add a remote: a WebDAV URL, a plain HTTP URL (--plain), file:///folder, or an S3 bucket (s3://BUCKET/FOLDER).",
            discussion:
                "Credentials come from AISYNC_USER/AISYNC_PASSWORD or ~/.netrc, never from the URL or the config. An S3 remote's key comes from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or ~/.aws/credentials (AWS_PROFILE), its region from --region, AWS_REGION or the profile; give --endpoint for any provider but AWS."
        )
        @Argument(help: "A short name, e.g. origin.") var name: String
        @Argument(help: "https://host/path, http://127.0.0.1:8080/path, file:///path, or s3://BUCKET[/FOLDER].")
        var url: String
        @Flag(help: "The server is plain HTTP (GET/PUT/DELETE), not WebDAV.") var plain: Bool
        @Flag(help: "Allow http:// to a host that is not this machine.") var insecure: Bool
        @Flag(help: "Encrypt everything sent there; the first sync asks for a new passphrase (or AISYNC_PASSPHRASE).")
        var encrypt: Bool
        @Option(valueName: "URL", help: "S3: the provider's endpoint, e.g. https://ACCOUNT.r2.cloudflarestorage.com.")
        var endpoint: String?
        @Option(valueName: "REGION", help: "S3: the bucket's region, e.g. eu-west-3.") var region: String?
        @Flag(help: "S3: address objects as ENDPOINT/BUCKET/KEY (the default for an IP, localhost or a port).")
        var pathStyle: Bool
        @Flag(help: "S3: address objects as BUCKET.ENDPOINT/KEY (the default otherwise).") var virtualHosted: Bool
        @Option(valueName: "FILE", help: caCertHelp) var caCert: String?
        @Option(valueName: "KEY", help: pinHelp) var pinSha256: [String]

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let store = try Context.open(context)
            if pathStyle && virtualHosted {
                throw CLIError(usage: "--path-style and --virtual-hosted cannot both be given", command: "remote add")
            }
            let s3 = S3Options(
                endpoint: endpoint, region: region,
                addressing: pathStyle ? .path : virtualHosted ? .virtualHosted : nil)
            let remote = try await Context.call { () async throws(AISyncError) in
                let trust = try TLSTrust.reading(certificateFile: caCert, pins: pinSha256)
                return try await store.addRemote(
                    name: name, url: url, plain: plain, insecure: insecure, encrypted: encrypt, s3: s3, trust: trust)
            }
            if remote.type == "s3" { try await Self.probe(remote, store: store) }
            return ExitCode.success
        }

        /// Says in one line whether an S3 remote's store honours conditional writes; a probe
        /// that cannot run (offline, no key) is a warning: the remote is added either way. A
        /// bucket the server places in another region can never be used as given: the remote
        /// is taken out again and the error names the bucket's region.
        static func probe(_ remote: StoreConfig.Remote, store: Store) async throws(CLIError) {
            do throws(AISyncError) {
                let honoured = try await RemoteFactory.probeConditionalWrites(
                    remote, environment: CLIPlatform.environmentDictionary(), runtime: store.environment)
                guard let honoured else { return }
                CLIPlatform.out(
                    honoured
                        ? "\(remote.name): \(remote.url) honours conditional writes (If-None-Match, If-Match).\n"
                        : "\(remote.name): \(remote.url) ignores conditional writes; aisync stays correct without them, as on nginx (each file has one writer).\n"
                )
            } catch {
                if case .useRegion = error.remedy {
                    try await Context.call { () throws(AISyncError) in try await store.removeRemote(remote.name) }
                    throw CLIError(error)
                }
                CLIPlatform.warn(
                    "\(remote.name) is added, but could not be checked now: \(ErrorText.line(error)) The first sync will tell."
                )
            }
        }
    }

    struct RemoteList: ParsableCommand {
        static let configuration = CommandConfiguration(path: ["remote", "list"], abstract: "List remotes.")
        @Flag(help: jsonHelp) var json: Bool

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let store = try Context.open(context)
            let config = try await Context.call { () async throws(AISyncError) in try await store.currentConfig() }
            if json {
                config.remotesJSON.printLine()
            } else {
                CLIPlatform.out(
                    config.remotes.isEmpty
                        ? "No remotes yet. Add one with `aisync remote add NAME URL` (e.g. file:///media/usb/aisync).\n"
                        : config.remotes.map {
                            "\($0.name)\t\($0.type)\t\($0.url)\($0.encrypted ? "\tencrypted" : "")"
                                + ($0.hasOwnTrust ? "\town trust" : "") + "\n"
                        }.joined())
            }
            return ExitCode.success
        }
    }

    static let caCertHelp =
        "https: also trust this certificate (PEM): a private CA's, or a self-signed server's own."
    static let pinHelp =
        "https: the server's key must be this one (sha256//BASE64 of its public key, as curl's --pinnedpubkey); repeat for more."

    struct RemoteTrust: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["remote", "trust"],
            abstract: "Set what an https:// remote trusts beside the system's certificates.",
            discussion:
                "Replaces the certificates and pinned keys the remote trusted before; with neither, it trusts the system's certificates alone. What was synced is kept. A pin is checked in addition to the certificate, never instead of it."
        )
        @Argument(help: "The remote.") var name: String
        @Option(valueName: "FILE", help: caCertHelp) var caCert: String?
        @Option(valueName: "KEY", help: pinHelp) var pinSha256: [String]

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let store = try Context.open(context)
            let remote = try await Context.call { () async throws(AISyncError) in
                let trust = try TLSTrust.reading(certificateFile: caCert, pins: pinSha256)
                return try await store.setTrust(trust, remote: name)
            }
            let count = remote.certificateCount
            var what: [String] = []
            if count > 0 { what.append("\(count) certificate\(count == 1 ? "" : "s")") }
            if !remote.pins.isEmpty {
                what.append("the key\(remote.pins.count == 1 ? "" : "s") \(remote.pins.joined(separator: ", "))")
            }
            CLIPlatform.out(
                "\(remote.name) trusts "
                    + (what.isEmpty
                        ? "the system's certificates alone"
                        : "\(what.joined(separator: " and ")) beside the system's certificates")
                    + ".\n")
            return ExitCode.success
        }
    }

    struct RemoteRemove: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["remote", "remove"], abstract: "Forget a remote (nothing on the remote is deleted).")
        @Argument(help: "The remote.") var name: String

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let store = try Context.open(context)
            try await Context.call { () async throws(AISyncError) in try await store.removeRemote(name) }
            return ExitCode.success
        }
    }

    /// Progress on stderr only when it is a terminal (and TERM is not dumb): one line, redrawn.
    static let progressBar = ProgressBar()
    static let progressLine: @Sendable (SyncProgress) -> Void = { progressBar.update($0) }

    static let remoteHelp = "The remote (optional when there is only one)."
    static let dryRunHelp = "Say what would move, without moving it."
    static let rememberHelp =
        "Keep an encrypted remote's key in a file only you can read, so later syncs need no passphrase."
    static let allowMassDeleteHelp =
        "Send deletes of more than 50 records and a quarter of the store (refused otherwise)."

    /// The engine for the remote named on the command line, set up by the library from the
    /// store's config and the environment; its warnings are printed here.
    static func engine(
        _ context: CommandContext, remote: String?, remember: Bool, allowMassDelete: Bool,
        progress: @escaping @Sendable (SyncProgress) -> Void = progressLine, store opened: Store? = nil
    ) async throws(CLIError) -> SyncEngine {
        let store: Store
        if let opened { store = opened } else { store = try Context.open(context) }
        var (engine, warnings) = try await Context.call { () async throws(AISyncError) in
            try await SyncEngine.configured(
                store: store, remote: remote, environment: CLIPlatform.environmentDictionary(),
                passphrase: PassphrasePrompt.source, rememberKey: remember, progress: progress)
        }
        for warning in warnings {
            switch warning {
            case .imgurEnabledWithoutCredential:
                CLIPlatform.warn(
                    "Imgur is enabled but AISYNC_IMGUR_CLIENT_ID / AISYNC_IMGUR_TOKEN is not set; images stay pending")
            case .imgurPausedForEncryptedRemote:
                CLIPlatform.warn(
                    "this remote is encrypted, so pictures are not uploaded to Imgur, where they would be public; run `aisync imgur enable --public-images` to upload them anyway"
                )
            }
        }
        engine.allowMassDelete = allowMassDelete
        return engine
    }

    static func report(_ r: SyncReport, verb: String, json: Bool) {
        progressBar.clear()
        if json {
            r.json.printLine()
        } else {
            CLIPlatform.out(Output.syncSummary(r, verb: verb))
        }
        if r.imgurUploaded + r.imgurFailed + r.imgurDeleted > 0 || r.imgurPending > 0, !json {
            CLIPlatform.out(
                "imgur: \(r.imgurUploaded) uploaded, \(r.imgurPending) pending, \(r.imgurFailed) refused, \(r.imgurDeleted) deleted\n"
            )
        }
        if r.massDelete > 0 {
            CLIPlatform.warn(
                "without --dry-run this would stop: it deletes \(Output.count(r.massDelete, "record")) on every device; add --allow-mass-delete if you mean it"
            )
        }
        if let new = r.newDeviceID {
            CLIPlatform.err(
                "note: this store is a copy of another that keeps syncing as device \(r.oldDeviceID?.short ?? "?"); it is now device \(new.short), its unsynced changes came along, and both copies keep syncing\n"
            )
        }
        if let retryAt = r.imgurRetryAt {
            CLIPlatform.warn(
                "Imgur rate limit reached; uploads resume after \(Timestamp(milliseconds: retryAt * 1000).iso8601) (run push again then)"
            )
        }
        for problem in r.imgurErrors { CLIPlatform.warn("Imgur: \(problem); the upload stays pending") }
        for digest in r.missingBlobs where r.removedOnImgur.contains(digest) {
            CLIPlatform.warn(
                "Imgur removed image \(digest.hex.prefix(12)) (its link shows removed.png) and the remote has no copy of the original; it stays missing until a device that has it pushes"
            )
        }
        for digest in r.missingBlobs where !r.removedOnImgur.contains(digest) {
            CLIPlatform.warn(
                "the remote does not have the bytes of image \(digest.hex.prefix(12)); they stay missing until the device that has them pushes"
            )
        }
    }

    /// What push, pull and sync share: the remote, `--dry-run`, `--json`, `--remember`.
    struct TransferOptions: ParsableArguments {
        @Argument(help: remoteHelp) var name: String?
        @Flag(help: dryRunHelp) var dryRun: Bool
        @Flag(help: jsonHelp) var json: Bool
        @Flag(help: rememberHelp) var remember: Bool
    }

    /// Push, pull or sync with the engine for the options' remote, then the report.
    static func transfer(
        _ verb: String, _ context: CommandContext, _ options: TransferOptions, allowMassDelete: Bool,
        _ action: @escaping @Sendable (SyncEngine, Bool) async throws(AISyncError) -> SyncReport
    ) async throws(CLIError) -> Int32 {
        let engine = try await engine(
            context, remote: options.name, remember: options.remember, allowMassDelete: allowMassDelete)
        let dryRun = options.dryRun
        let r = try await Context.call { () async throws(AISyncError) in try await action(engine, dryRun) }
        report(r, verb: verb, json: options.json)
        return ExitCode.success
    }

    struct Push: ParsableCommand {
        static let configuration = CommandConfiguration(path: ["push"], abstract: "Send local changes to a remote.")
        @OptionGroup var transfer: TransferOptions
        @Flag(help: allowMassDeleteHelp) var allowMassDelete: Bool

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            try await SyncCommands.transfer("push", context, transfer, allowMassDelete: allowMassDelete) {
                engine, dryRun throws(AISyncError) in try await engine.push(dryRun: dryRun)
            }
        }
    }

    struct Pull: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["pull"], abstract: "Fetch and merge changes from a remote.")
        @OptionGroup var transfer: TransferOptions

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            try await SyncCommands.transfer("pull", context, transfer, allowMassDelete: false) {
                engine, dryRun throws(AISyncError) in try await engine.pull(dryRun: dryRun)
            }
        }
    }

    struct SyncCommand: ParsableCommand {
        static let configuration = CommandConfiguration(path: ["sync"], abstract: "Pull, merge, then push.")
        @OptionGroup var transfer: TransferOptions
        @Flag(help: allowMassDeleteHelp) var allowMassDelete: Bool

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            try await SyncCommands.transfer("sync", context, transfer, allowMassDelete: allowMassDelete) {
                engine, dryRun throws(AISyncError) in try await engine.sync(dryRun: dryRun)
            }
        }
    }

    /// The grace period of `compact --grace DAYS`: a whole number of days from 0 to 36500.
    struct GraceDays: ExpressibleByArgument {
        var milliseconds: Int64

        init?(argument: String) {
            guard let days = Int64(argument), (0...36500).contains(days) else { return nil }
            milliseconds = days * 24 * 3600 * 1000
        }

        static func invalid(_ text: String, name: String) -> (message: String, hint: String?) {
            ("\(name) must be a whole number of days from 0 to 36500, not \"\(text.prefix(40))\"", nil)
        }
    }

    struct Compact: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["compact"],
            abstract:
                "Write a snapshot to a remote, so a new device restores from it instead of every version ever pushed.",
            discussion:
                "Syncs first. This device's segments and older snapshots that a snapshot covers are removed once that snapshot is older than the grace period, so a device offline for less than that still syncs."
        )
        @Argument(help: remoteHelp) var name: String?
        @Option(valueName: "DAYS", help: "Keep what a snapshot covers this many days (default 30; 0 removes it now).")
        var grace: GraceDays?
        @Flag(help: jsonHelp) var json: Bool
        @Flag(help: rememberHelp) var remember: Bool
        @Flag(help: allowMassDeleteHelp) var allowMassDelete: Bool

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let grace = grace?.milliseconds ?? SyncEngine.defaultGraceMilliseconds
            let engine = try await engine(context, remote: name, remember: remember, allowMassDelete: allowMassDelete)
            let r = try await Context.call { () async throws(AISyncError) in
                try await engine.compact(graceMilliseconds: grace)
            }
            progressBar.clear()
            if json {
                r.json.printLine()
            } else {
                CLIPlatform.out(
                    "compact: snapshot \(r.snapshot) (\(Output.count(r.parts, "part")), \(Output.bytes(r.bytes))) keeps \(Output.count(r.versions, "version")), leaves out \(r.dropped); removed \(Output.count(r.removedSegments, "segment")) and \(Output.count(r.removedSnapshotParts, "old snapshot part"))\n"
                )
                CLIPlatform.out(Output.sweep(r, of: nil, command: "compact"))
            }
            return ExitCode.success
        }
    }

    struct PassphraseChange: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["passphrase", "change"],
            abstract: "Change an encrypted remote's passphrase (nothing is re-encrypted).",
            discussion:
                "Asks for the current passphrase, then the new one twice (or reads AISYNC_PASSPHRASE and AISYNC_NEW_PASSPHRASE). Other devices use the new passphrase from then on; keys they remember keep working."
        )
        @Argument(help: remoteHelp) var name: String?

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let store = try Context.open(context)
            try await Context.call { () async throws(AISyncError) in
                let config = try await store.currentConfig()
                let remote = try RemoteFactory.pick(name, in: config)
                let environment = CLIPlatform.environmentDictionary()
                let storage = try RemoteFactory.make(remote, environment: environment, runtime: store.environment)
                try await RemoteEncryption.changePassphrase(
                    of: remote, storage: storage, store: store,
                    passphrase: RemoteEncryption.source(environment: environment, fallback: PassphrasePrompt.source))
            }
            CLIPlatform.out("passphrase changed\n")
            return ExitCode.success
        }
    }

    struct PassphraseForget: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["passphrase", "forget"],
            abstract: "Delete the key --remember kept; the passphrase is asked for again.")
        @Argument(help: remoteHelp) var name: String?

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let store = try Context.open(context)
            try await Context.call { () async throws(AISyncError) in
                let remote = try RemoteFactory.pick(name, in: try await store.currentConfig())
                await store.forgetKeys(remote.name)
            }
            return ExitCode.success
        }
    }

    struct Encrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["encrypt"],
            abstract: "Encrypt a remote that holds plain data, in place (run it again to finish if it was cut off).",
            discussion:
                "Syncs first, asks for a new passphrase twice (or reads AISYNC_PASSPHRASE), marks the remote encrypted so devices without the key stop pushing, then seals every file where it is and every picture under a keyed name, removing its plain copy. Other devices are asked for the passphrase on their next sync. Run it while other devices are not syncing."
        )
        @Argument(help: remoteHelp) var name: String?
        @Flag(help: rememberHelp) var remember: Bool

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let store = try Context.open(context)
            let report = try await Context.call { () async throws(AISyncError) -> EncryptionReport in
                let remote = try RemoteFactory.pick(name, in: try await store.currentConfig())
                let environment = CLIPlatform.environmentDictionary()
                let storage = try RemoteFactory.make(remote, environment: environment, runtime: store.environment)
                let engine = SyncEngine(store: store, remote: storage, name: remote.name, progress: progressLine)
                let (keys, report) = try await engine.encryptRemote(
                    passphrase: RemoteEncryption.source(environment: environment, fallback: PassphrasePrompt.source))
                if remember { try await store.rememberKeys(keys, for: remote.name) }
                return report
            }
            progressBar.clear()
            CLIPlatform.out(
                "encrypted: \(Output.count(report.files, "file")) and \(Output.count(report.objects, "picture")) sealed, \(report.alreadySealed) already sealed\n"
            )
            return ExitCode.success
        }
    }
}
