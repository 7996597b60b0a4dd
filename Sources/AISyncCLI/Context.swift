import AISync
import Synchronization

/// What every command needs: where the store is, and how to open it.
enum Context {
    static func storePath(_ inv: Invocation) throws(CLIError) -> String { try storePath(inv.context) }
    static func open(_ inv: Invocation) throws(CLIError) -> Store { try open(inv.context) }
    static func recordID(_ text: String, _ inv: Invocation) async throws(CLIError) -> RecordID {
        try await recordID(text, inv.context)
    }
    static func text(_ argument: String, _ inv: Invocation) throws(CLIError) -> String {
        try text(argument, inv.context)
    }

    static func storePath(_ inv: CommandContext) throws(CLIError) -> String {
        if let dir = inv.store {
            guard !dir.isEmpty else { throw CLIError(usage: "--store needs a directory", command: inv.command) }
            return dir
        }
        guard let root = Store.defaultRoot(environment: CLIPlatform.environmentDictionary()) else {
            throw CLIError(
                AISyncError(
                    .configuration, "cannot find the store: neither --store, AISYNC_HOME nor HOME is set",
                    hint: "Pass --store DIR"))
        }
        return root
    }

    static func open(_ inv: CommandContext) throws(CLIError) -> Store {
        let path = try storePath(inv)
        warnIfOthersCanWrite(holding: path)
        do {
            let store = try Store.open(at: path)
            store.keepFoundationFiles()
            if CLIPlatform.processEndsWithCommand { openStores.withLock { $0.append(store) } }
            return store
        } catch { throw CLIError(error) }
    }

    /// Warns (once a process) when other accounts can write to the folder that holds the
    /// store: they could replace it under the user.
    static func warnIfOthersCanWrite(holding path: String) {
        guard let folder = Store.writableByOthers(holding: path) else { return }
        let first = warnedShared.withLock { warned in
            defer { warned = true }
            return !warned
        }
        guard first else { return }
        CLIPlatform.warn(
            "other accounts can write to \(TerminalText.escaped(folder)), which holds the store: they could replace it. Keep the store in a folder only you can write (--store DIR or AISYNC_HOME)"
        )
    }
    private static let warnedShared = Mutex(false)

    /// Stores stay open until the process exits: freeing a 100,000-record snapshot just
    /// before exiting would only add time to every command.
    private static let openStores = Mutex<[Store]>([])

    /// A record id argument: a whole id or a unique prefix of one (the library resolves it).
    static func recordID(_ text: String, _ inv: CommandContext) async throws(CLIError) -> RecordID {
        if let id = RecordID(text), text.utf8.count >= 21 { return id }
        let store = try open(inv)
        do {
            return try await store.resolveRecordID(text)
        } catch  where error.code == .usage {
            throw CLIError(
                usage: error.message,
                hint: error.hint.map { $0.replacingOccurrences(of: "the list of records", with: "`aisync list`") },
                command: inv.command)
        } catch {
            throw CLIError(error)
        }
    }

    /// A message text argument; `-` reads it from standard input.
    static func text(_ argument: String, _ inv: CommandContext) throws(CLIError) -> String {
        guard argument == "-" else { return argument }
        guard let input = CLIPlatform.readStandardInput() else {
            throw CLIError(usage: "standard input is not valid UTF-8 text", command: inv.command)
        }
        return input
    }

    /// Runs library code, turning its error into a CLI error.
    @discardableResult
    static func call<T>(_ body: () async throws(AISyncError) -> T) async throws(CLIError) -> T {
        do { return try await body() } catch { throw CLIError(error) }
    }
}

extension JSONValue {
    /// One JSON document on stdout.
    func printLine() { CLIPlatform.outExact(canonicalString + "\n") }
}
