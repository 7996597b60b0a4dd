import AISync
import Synchronization

/// What every command needs: where the store is, and how to open it.
enum Context {
    static func storePath(_ inv: Invocation) throws(CLIError) -> String {
        if let dir = inv.option("store") {
            guard !dir.isEmpty else { throw CLIError(usage: "--store needs a directory", command: inv.command) }
            return dir
        }
        guard let root = Store.defaultRoot(environment: CLIPlatform.environmentDictionary()) else {
            throw CLIError(AISyncError(.configuration, "cannot find the store: neither --store, AISYNC_HOME nor HOME is set", hint: "Pass --store DIR"))
        }
        return root
    }

    static func open(_ inv: Invocation) throws(CLIError) -> Store {
        let path = try storePath(inv)
        do {
            let store = try Store.open(at: path)
            CLIPlatform.keepFoundationFiles(in: "\(store.root)/sync/foundation")
            openStores.withLock { $0.append(store) }
            return store
        } catch { throw CLIError(error) }
    }

    /// Stores stay open until the process exits: freeing a 100,000-record snapshot just
    /// before exiting would only add time to every command.
    private static let openStores = Mutex<[Store]>([])

    static func recordID(_ text: String, _ inv: Invocation) throws(CLIError) -> RecordID {
        guard let id = RecordID(text) else {
            throw CLIError(usage: "'\(text.prefix(80))' is not a record id", hint: "Ids look like chat-3f9a1c2b4d5e6f70; see `aisync list`", command: inv.command)
        }
        return id
    }

    /// A message text argument; `-` reads it from standard input.
    static func text(_ argument: String, _ inv: Invocation) throws(CLIError) -> String {
        guard argument == "-" else { return argument }
        guard let input = CLIPlatform.readStandardInput() else { throw CLIError(usage: "standard input is not valid UTF-8 text", command: inv.command) }
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
