import AISync

/// `aisync watch`: the library's scheduler in the foreground, one line per sync.
extension SyncCommands {
    /// A duration on the command line: `60s`, `2s`, `200ms`, `5m`, `1h`, or a number of seconds.
    struct Interval: ExpressibleByArgument {
        var milliseconds: Int64

        init?(argument: String) {
            let units: [(String, Double)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
            var text = Substring(argument)
            var scale = 1000.0
            for (suffix, factor) in units where text.hasSuffix(suffix) {
                text = text.dropLast(suffix.count)
                scale = factor
                break
            }
            guard let number = Double(text), number.isFinite, number >= 0, number * scale <= 86_400_000 else {
                return nil
            }
            milliseconds = Int64((number * scale).rounded())
        }

        static func invalid(_ text: String, name: String) -> (message: String, hint: String?) {
            ("\(name) must be a duration such as 60s, 500ms or 5m (at most 24h), not '\(text.prefix(40))'", nil)
        }
    }

    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["watch"],
            abstract: "Sync by itself: after local changes, on a timer, until Ctrl-C or SIGTERM.",
            discussion:
                "Syncs every remote named (all of them by default) at once, then whenever the store changes (edits by any aisync command or app, once quiet for the debounce) and every interval. Failures are retried with growing waits; an unreachable remote is polled every 5 minutes (--offline-interval) until it answers. One line per sync; Ctrl-C or SIGTERM lets the running sync stop cleanly (exit 0)."
        )
        @Option(valueName: "DURATION", help: "How often to sync with nothing new (default 60s).") var interval:
            Interval?
        @Option(valueName: "DURATION", help: "Quiet time after a change before it is pushed (default 2s).")
        var debounce: Interval?
        @Option(valueName: "DURATION", help: "How often to try a remote that cannot be reached (default 5m).")
        var offlineInterval: Interval?
        @Option(valueName: "NAME", help: "A remote to keep in sync (repeatable; default: every remote).")
        var remote: [String]
        @Flag(help: "One JSON object per line (Schemas/watch-output.schema.json).") var json: Bool

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let interval = interval?.milliseconds ?? 60_000
            guard interval >= 100 else {
                throw context.usage("--interval must be at least 100ms", hint: "A sync with nothing new is one request")
            }
            let store = try Context.open(context)
            let config = try await Context.call { () async throws(AISyncError) in try await store.currentConfig() }
            let names = remote.isEmpty ? config.remotes.map(\.name) : remote
            guard !names.isEmpty else {
                throw CLIError(
                    AISyncError(
                        .configuration, "this store has no remote to keep in sync",
                        hint: "Add one with `aisync remote add NAME URL`"))
            }
            var engines: [SyncEngine] = []
            for name in names {
                // No progress bar: the lines are the output.
                engines.append(
                    try await SyncCommands.engine(
                        context, remote: name, remember: false, allowMassDelete: false, progress: { _ in },
                        store: store))
            }
            let debounce = debounce?.milliseconds ?? 2_000
            let offline = max(offlineInterval?.milliseconds ?? 300_000, 100)
            let policy = SyncSchedule.Policy(
                interval: interval, debounce: debounce, maxDelay: max(30_000, debounce * 5),
                backoffBase: min(2_000, offline), offlineInterval: offline)
            let scheduler = SyncScheduler(store: store, engines: engines, policy: policy)
            if !json {
                // On stderr: stdout is the lines, one per sync.
                CLIPlatform.err(
                    "Watching \(names.joined(separator: ", ")): a sync \(Self.duration(debounce)) after changes and every \(Self.duration(interval)). Ctrl-C to stop.\n"
                )
            }
            await scheduler.start()
            for await event in scheduler.events {
                if let line = json ? Self.jsonLine(event) : Self.line(event) { CLIPlatform.out(line) }
            }
            // Cancelled (Ctrl-C, SIGTERM): the stream ended; let the running sync stop cleanly.
            await scheduler.stop()
            return ExitCode.success
        }

        /// `500 ms`, `2 s`, `5 min`, `1 h`.
        static func duration(_ ms: Int64) -> String {
            if ms < 1000 || ms % 1000 != 0 { return "\(ms) ms" }
            if ms % 3_600_000 == 0 { return "\(ms / 3_600_000) h" }
            if ms % 60_000 == 0 { return "\(ms / 60_000) min" }
            return "\(ms / 1000) s"
        }

        /// `12:03:04`, local time.
        static func clock(_ time: Timestamp) -> String {
            let t = CLIPlatform.localTime(time.milliseconds / 1000)
            func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
            return "\(two(t.hour)):\(two(t.minute)):\(two(t.second))"
        }

        static func line(_ event: SyncEvent) -> String? {
            let head = "\(clock(event.time)) \(event.remote): "
            switch event.kind {
            case .synced(let reason, let report):
                let summary = Output.syncSummary(report, verb: "sync").split(separator: "\n").first ?? ""
                let conflicts = report.conflicts > 0 ? " \(Output.count(report.conflicts, "record")) in conflict." : ""
                return head + "\(summary)\(conflicts) [\(reason.rawValue)]\n"
            case .failed(let error, let retryAt):
                return head
                    + "sync failed: \(Output.oneLine(error.description)); next try in \(wait(until: retryAt, from: event.time))\n"
            case .offline(let error, let retryAt):
                return head
                    + "offline: \(Output.oneLine(error.description)); next try in \(wait(until: retryAt, from: event.time))\n"
            case .started, .syncing, .idle:
                return nil
            }
        }

        private static func wait(until retryAt: Timestamp, from now: Timestamp) -> String {
            let ms = max(0, retryAt.milliseconds - now.milliseconds)
            return ms < 60_000 ? "\((ms + 999) / 1000) s" : "\((ms + 59_999) / 60_000) min"
        }

        static func jsonLine(_ event: SyncEvent) -> String? {
            var o: JSONObject = ["time": .string(event.time.iso8601), "remote": .string(event.remote)]
            switch event.kind {
            case .synced(let reason, let report):
                o["event"] = .string("synced")
                o["reason"] = .string(reason.rawValue)
                o["report"] = report.json
            case .failed(let error, let retryAt), .offline(let error, let retryAt):
                if case .offline = event.kind {
                    o["event"] = .string("offline")
                } else {
                    o["event"] = .string("failed")
                }
                o["error"] = .object(["code": .string(error.code.name), "line": .string(error.description)])
                o["retryAt"] = .string(retryAt.iso8601)
            case .started, .syncing, .idle:
                return nil
            }
            return String(decoding: JSONValue.object(o).canonicalBytes, as: UTF8.self) + "\n"
        }
    }
}
