import AISyncCore
import AISyncFiles

/// What the syncs with one remote did, whoever ran them (the CLI, `aisync watch`, an app):
/// `sync/status/<remote>.json`, written by every push, pull, sync, compaction and sweep
/// under the remote's sync lock, read without touching the network.
public struct SyncHistory: Hashable, Sendable {
    /// One sync with the remote and how it ended.
    public struct Attempt: Hashable, Sendable {
        /// What ran: `push`, `pull`, `sync`, `compact`, `sweep`, `encrypt`.
        public var operation: String
        /// When it started (once it held the remote's sync lock).
        public var started: Timestamp
        /// When it ended.
        public var finished: Timestamp
        /// Why it failed; nil when it succeeded. Only the error's code, one-line text and
        /// retry delay are kept (never a secret: errors carry none).
        public var error: Failure?

        /// A failed attempt's error, as kept.
        public struct Failure: Hashable, Sendable {
            /// The error's code name (`unavailable`, `temporary`, `permission`…).
            public var code: String
            /// Its one line: message, cause and hint.
            public var line: String
            /// How long the server asked to wait, in milliseconds, when it said.
            public var retryAfterMilliseconds: Int64?

            /// The failure of `error`.
            public init(_ error: AISyncError) {
                code = error.code.name
                line = error.description
                retryAfterMilliseconds = error.retryAfterMilliseconds
            }

            init(code: String, line: String, retryAfterMilliseconds: Int64?) {
                self.code = code
                self.line = line
                self.retryAfterMilliseconds = retryAfterMilliseconds
            }
        }

        /// Whether it ended without an error.
        public var succeeded: Bool { error == nil }

        /// An attempt of `operation` from `started` to `finished`, failed with `error` when given.
        public init(operation: String, started: Timestamp, finished: Timestamp, error: Failure? = nil) {
            self.operation = operation
            self.started = started
            self.finished = finished
            self.error = error
        }
    }

    /// The newest attempt, whatever its outcome.
    public var lastAttempt: Attempt?
    /// The newest attempt that succeeded.
    public var lastSuccess: Attempt?
    /// The newest successful attempt that pulled (a pull, sync, compaction or sweep): it saw
    /// every head the remote had when it listed them, and merged all they named.
    public var lastPull: Attempt?
    /// Failed attempts since the last success (0 after a success).
    public var failuresInARow = 0

    /// No attempt yet.
    public init() {}

    /// Notes `attempt`; `pulled` says whether it read the remote's heads and merged them all.
    public mutating func record(_ attempt: Attempt, pulled: Bool) {
        lastAttempt = attempt
        if attempt.succeeded {
            lastSuccess = attempt
            failuresInARow = 0
            if pulled { lastPull = attempt }
        } else {
            failuresInARow += 1
        }
    }

    var json: JSONValue {
        var o: JSONObject = ["format": .int(1)]
        o.setIfPresent("lastAttempt", lastAttempt.map(Self.json))
        o.setIfPresent("lastSuccess", lastSuccess.map(Self.json))
        o.setIfPresent("lastPull", lastPull.map(Self.json))
        if failuresInARow > 0 { o["failuresInARow"] = .int(Int64(failuresInARow)) }
        return .object(o)
    }

    /// An attempt as JSON: `{operation, started, finished, error?: {code, line, retryAfterMs?}}`.
    package static func json(_ a: Attempt) -> JSONValue {
        var o: JSONObject = [
            "operation": .string(a.operation), "started": .string(a.started.iso8601),
            "finished": .string(a.finished.iso8601),
        ]
        if let e = a.error {
            var error: JSONObject = ["code": .string(e.code), "line": .string(e.line)]
            error.setIfPresent("retryAfterMs", e.retryAfterMilliseconds.map(JSONValue.int))
            o["error"] = .object(error)
        }
        return .object(o)
    }

    private static func attempt(_ value: JSONValue?) -> Attempt?? {
        guard let value else { return .some(nil) }
        guard let operation = value["operation"]?.stringValue,
            let started = value["started"]?.stringValue.flatMap(Timestamp.init(iso8601:)),
            let finished = value["finished"]?.stringValue.flatMap(Timestamp.init(iso8601:))
        else { return nil }
        var error: Attempt.Failure?
        if let e = value["error"] {
            guard let code = e["code"]?.stringValue, let line = e["line"]?.stringValue else { return nil }
            error = Attempt.Failure(code: code, line: line, retryAfterMilliseconds: e["retryAfterMs"]?.intValue)
        }
        return .some(Attempt(operation: operation, started: started, finished: finished, error: error))
    }

    /// Parses the file; nil when it is not one (damaged or from a newer aisync): the history
    /// is only a record, and the next sync writes it anew.
    init?(bytes: [UInt8]) {
        guard let value = try? JSONParser.parse(bytes), value["format"]?.intValue == 1,
            case .some(let last) = Self.attempt(value["lastAttempt"]),
            case .some(let success) = Self.attempt(value["lastSuccess"]),
            case .some(let pull) = Self.attempt(value["lastPull"])
        else { return nil }
        (lastAttempt, lastSuccess, lastPull) = (last, success, pull)
        failuresInARow = Int(value["failuresInARow"]?.intValue ?? 0)
    }
}

extension Store {
    func syncHistoryPath(_ remote: String) -> String { "\(root)/sync/status/\(remote).json" }

    /// What the syncs with `remote` did (see ``SyncHistory``); empty when none ran yet.
    public func syncHistory(_ remote: String) -> SyncHistory {
        guard let bytes = try? FileIO.read(syncHistoryPath(remote), limit: 1 << 20),
            let history = SyncHistory(bytes: bytes)
        else { return SyncHistory() }
        return history
    }

    /// Notes a sync with `remote` (call under its sync lock). Not made durable: a crash
    /// loses at most this note, and the next sync writes it again.
    package func recordSync(_ remote: String, _ attempt: SyncHistory.Attempt, pulled: Bool) throws(AISyncError) {
        var history = syncHistory(remote)
        history.record(attempt, pulled: pulled)
        try FileIO.makeDirectories("\(root)/sync/status")
        try FileIO.writeAtomically(
            syncHistoryPath(remote), history.json.canonicalBytes + [10], durable: false,
            temporarySuffix: environment.temporarySuffix())
    }

    /// Forgets what the syncs with `remote` did (after `remote remove`).
    package func forgetSyncHistory(_ remote: String) {
        _ = Platform.unlink(syncHistoryPath(remote))
    }
}
