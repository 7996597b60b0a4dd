import AISyncCore
import AISyncStore
import AISyncRemote
import AISyncImgur
/// Builds the storage for a configured remote, with credentials from the environment or
/// `~/.netrc` (never from config).
public enum RemoteFactory {
    public static func make(_ remote: StoreConfig.Remote, environment: [String: String],
                            transport: (any HTTPTransport)? = nil) throws(AISyncError) -> any RemoteStorage {
        let location = try RemoteLocation(url: remote.url, plain: remote.type == "http", insecure: remote.insecure)
        switch location.kind {
        case .folder:
            return FolderRemote(root: location.base)
        case .webdav, .http:
            return HTTPRemote(location: location, transport: transport ?? URLSessionTransport(),
                              credentials: Credentials.lookup(host: location.host, environment: environment))
        }
    }

    /// The remote called `name`, or the only one when `name` is nil.
    public static func pick(_ name: String?, in config: StoreConfig) throws(AISyncError) -> StoreConfig.Remote {
        if let name {
            guard let remote = config.remotes.first(where: { $0.name == name }) else {
                throw AISyncError(.notFound, "no remote named '\(name)'", hint: "See `aisync remote list`; add one with `aisync remote add NAME URL`")
            }
            return remote
        }
        switch config.remotes.count {
        case 0: throw AISyncError(.configuration, "this store has no remote", hint: "Add one with `aisync remote add NAME URL` (e.g. file:///media/usb/aisync)")
        case 1: return config.remotes[0]
        default: throw AISyncError(.usage, "this store has \(config.remotes.count) remotes; say which one", hint: "One of: \(config.remotes.map(\.name).joined(separator: ", "))")
        }
    }
}
