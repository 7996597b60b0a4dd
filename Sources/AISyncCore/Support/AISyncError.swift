/// The one error type of the library.
///
/// Every failure a user can meet carries a `code` (which the CLI maps to an exit code), a
/// `message` saying what went wrong, and a `hint` saying how to fix it. Messages never contain
/// secrets: callers build them from paths, ids and server status lines only.
public struct AISyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is; extensible without breaking callers that switch with `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's stable kebab-case name, e.g. `not-found`; two codes are equal when their names are.
        public let name: String
        /// A code named `name`; prefer the predefined codes such as ``usage`` or ``notFound``.
        public init(_ name: String) { self.name = name }
        /// The code's ``name``.
        public var description: String { name }

        /// The command line was wrong: unknown option, missing argument, bad value.
        public static let usage = Code("usage")
        /// Stored or received data is damaged or not in a format this version understands.
        public static let damagedData = Code("damaged-data")
        /// A store, record, version or file that was asked for does not exist.
        public static let notFound = Code("not-found")
        /// A remote could not be reached.
        public static let unavailable = Code("unavailable")
        /// A local read or write failed.
        public static let io = Code("io")
        /// Try again later: the store is busy, a server asked us to wait.
        public static let temporary = Code("temporary")
        /// Authentication failed or a file permission forbids the operation.
        public static let permission = Code("permission")
        /// The store's or a remote's configuration is wrong or unsupported.
        public static let configuration = Code("configuration")
        /// The caller cancelled the task (an app's `Task.cancel()`); the remote stays valid and
        /// the next push or pull finishes the job.
        public static let cancelled = Code("cancelled")
        /// An encrypted remote's key could not be opened: the passphrase is wrong.
        public static let wrongPassphrase = Code("wrong-passphrase")
        /// A file on an encrypted remote fails its authentication check (changed, damaged,
        /// written with another key, or not encrypted at all).
        public static let tampered = Code("tampered")
        /// A file on an encrypted remote is shorter than its authenticated header says.
        public static let truncated = Code("truncated")
        /// A file on an encrypted remote is authentic but belongs at another place (swapped).
        public static let misplaced = Code("misplaced")
        /// An encrypted remote served an older head than one already seen (a replay).
        public static let replayed = Code("replayed")
        /// Internal: a push found this store to be a diverged copy and gave it a new device id;
        /// the push starts again under the new id (never surfaces to callers).
        package static let reidentified = Code("reidentified")
        /// Anything else.
        public static let other = Code("other")
    }

    /// What kind of failure this is: switch on it (the CLI maps it to an exit code).
    public var code: Code
    /// What went wrong, in one sentence without a trailing period; never contains secrets.
    public var message: String
    /// How to fix it, in words that assume no particular front end (an app or the command line
    /// may word `remedy` its own way instead); nil when there is nothing to suggest.
    public var hint: String?
    /// A short, secret-free description of the underlying cause (an errno string, a parser message).
    public var cause: String?
    /// What the user can do about it, as a value: an app switches on it to offer its own words
    /// or button, while `hint` says the same in the library's app-neutral words.
    public var remedy: Remedy?
    /// How long the server asked us to wait before trying again (a `Retry-After` header, Imgur's
    /// rate-limit reset), measured from when the error was made; nil when it did not say.
    public var retryAfter: Duration?

    /// ``retryAfter`` in whole milliseconds (rounded down), as schedules and status files keep it.
    public var retryAfterMilliseconds: Int64? {
        retryAfter.map { duration in
            let (seconds, attoseconds) = duration.components
            return seconds * 1000 + attoseconds / 1_000_000_000_000_000
        }
    }

    /// An error with the given parts; build `message`, `hint` and `cause` from paths, ids and
    /// status lines only, never from credentials or deletehashes.
    public init(
        _ code: Code, _ message: String, hint: String? = nil, cause: String? = nil,
        remedy: Remedy? = nil, retryAfter: Duration? = nil
    ) {
        self.code = code
        self.message = message
        self.hint = hint
        self.cause = cause
        self.remedy = remedy
        self.retryAfter = retryAfter
    }

    /// One line: the message, the cause in parentheses, then the hint.
    public var description: String {
        var line = message
        if let cause, !cause.isEmpty { line += " (\(cause))" }
        if let hint, !hint.isEmpty { line += ". " + hint }
        return line
    }
}

extension AISyncError {
    package static func usage(_ message: String, hint: String? = nil) -> AISyncError {
        AISyncError(.usage, message, hint: hint)
    }
    package static func notFound(_ message: String, hint: String? = nil) -> AISyncError {
        AISyncError(.notFound, message, hint: hint)
    }
    package static var cancelled: AISyncError {
        AISyncError(.cancelled, "cancelled", hint: "Run it again to finish; nothing half-done is left on the remote")
    }

    /// Throws `cancelled` when the current task was cancelled: called between steps that
    /// each leave the store and the remote valid.
    package static func checkCancellation() throws(AISyncError) {
        if Task.isCancelled { throw cancelled }
    }

    package static func damaged(_ message: String, hint: String? = nil, cause: String? = nil, remedy: Remedy? = nil)
        -> AISyncError
    {
        AISyncError(.damagedData, message, hint: hint, cause: cause, remedy: remedy)
    }
}
