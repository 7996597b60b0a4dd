import AISyncCore
import AISyncRemote
import AISyncStore

/// Adding and forgetting remotes, with the checks every front end needs.
///
/// Here rather than in AISyncStore because a remote's URL is vetted by `RemoteLocation`
/// (AISyncRemote), which the store layer does not know; AISyncSync is where the two meet.
extension Store {
    /// Adds a remote called `name` at `url` (`https://…` WebDAV, `http(s)://…` with `plain`
    /// for a plain HTTP server, or `file:///path`) to the store's config, and returns it.
    /// Credentials never go in the config: they come from the environment when syncing.
    /// With `encrypted`, everything sent there is encrypted; the first sync sets up its key
    /// (or opens the one another device made) with a passphrase.
    ///
    /// - Throws: `.usage` for a name that is not 1-32 lowercase letters, digits, `-` or `_`,
    ///   for a URL aisync refuses (credentials in it, plain http to another machine without
    ///   `insecure`, …), or when a remote of that name exists (remedy `.removeRemote`).
    @discardableResult
    public func addRemote(
        name: String, url: String, plain: Bool = false, insecure: Bool = false, encrypted: Bool = false
    ) throws(AISyncError) -> StoreConfig.Remote {
        try RemoteLocation.validateName(name)
        let location = try RemoteLocation(url: url, plain: plain, insecure: insecure)
        let remote = StoreConfig.Remote(
            name: name, url: url, type: location.kind.rawValue, insecure: insecure, encrypted: encrypted)
        _ = try updateConfig { (config: inout StoreConfig) throws(AISyncError) in
            guard !config.remotes.contains(where: { $0.name == name }) else {
                throw AISyncError(
                    .usage, "a remote named '\(name)' exists already", hint: "Remove it first to replace it",
                    remedy: .removeRemote(name))
            }
            config.remotes.append(remote)
        }
        return remote
    }

    /// Forgets the remote called `name` and what this store last synced with it; nothing on
    /// the remote itself is deleted, so adding it again later syncs from scratch.
    ///
    /// - Throws: `.notFound` (remedy `.chooseRemote` with the remotes there are) when the
    ///   store has no remote of that name.
    public func removeRemote(_ name: String) throws(AISyncError) {
        _ = try updateConfig { (config: inout StoreConfig) throws(AISyncError) in
            guard config.remotes.contains(where: { $0.name == name }) else {
                let names = config.remotes.map(\.name)
                throw AISyncError(
                    .notFound, "no remote named '\(name)'",
                    hint: names.isEmpty
                        ? "This store has no remote" : "The remotes are: \(names.joined(separator: ", "))",
                    remedy: .chooseRemote(names))
            }
            config.remotes.removeAll { $0.name == name }
        }
        try forgetCheckpoint(name)
        forgetKeys(name)
    }
}
