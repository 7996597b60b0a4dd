import AISyncCore
import AISyncFiles
import AISyncHTTP
import AISyncImgur
import AISyncRemote
import AISyncStore

/// Builds the storage for a configured remote, with credentials from the environment or
/// `~/.netrc` (never from config).
public enum RemoteFactory {
    /// `environment` is the process's variables (credentials); `runtime` is the clock and
    /// randomness the remote uses for retries and temp names (pass `store.environment`).
    public static func make(
        _ remote: StoreConfig.Remote, environment: [String: String],
        transport: (any HTTPTransport)? = nil,
        runtime: AISyncEnvironment = .live
    ) throws(AISyncError) -> any RemoteStorage {
        let location = try RemoteLocation(url: remote.url, plain: remote.type == "http", insecure: remote.insecure)
        switch location.kind {
        case .folder:
            return FolderRemote(root: location.base, environment: runtime)
        case .webdav, .http:
            return HTTPRemote(
                location: location, transport: transport ?? LiveTransport.make(),
                credentials: Credentials.lookup(host: location.host, environment: environment),
                environment: runtime)
        }
    }

    /// The remote called `name`, or the only one when `name` is nil.
    public static func pick(_ name: String?, in config: StoreConfig) throws(AISyncError) -> StoreConfig.Remote {
        if let name {
            guard let remote = config.remotes.first(where: { $0.name == name }) else {
                let names = config.remotes.map(\.name)
                throw AISyncError(
                    .notFound, "no remote named '\(name)'",
                    hint: names.isEmpty
                        ? "This store has no remote yet; add one" : "The remotes are: \(names.joined(separator: ", "))",
                    remedy: names.isEmpty ? .addRemote : .chooseRemote(names))
            }
            return remote
        }
        switch config.remotes.count {
        case 0:
            throw AISyncError(
                .configuration, "this store has no remote",
                hint: "Add one: a WebDAV URL, a plain HTTP URL, or a folder (e.g. file:///media/usb/aisync)",
                remedy: .addRemote)
        case 1: return config.remotes[0]
        default:
            let names = config.remotes.map(\.name)
            throw AISyncError(
                .usage, "this store has \(names.count) remotes; say which one",
                hint: "One of: \(names.joined(separator: ", "))",
                remedy: .chooseRemote(names))
        }
    }
}
