import AISyncCore
import AISyncFiles
import AISyncHTTP
import AISyncImgur
import AISyncRemote
import AISyncStore

/// A sync engine set up the way the store's config says, in one call.
extension SyncEngine {
    /// An engine for the remote called `name` (nil: the only one), with its credentials and
    /// Imgur set up from `environment`: what an app or the command line calls before
    /// `push`, `pull` or `sync`, so every front end applies the same rules.
    ///
    /// From `environment`: `AISYNC_USER` / `AISYNC_PASSWORD` (else `~/.netrc`, or `NETRC`) for
    /// the remote's server; `AISYNC_IMGUR_CLIENT_ID` or `AISYNC_IMGUR_TOKEN` for Imgur uploads;
    /// `AISYNC_IMGUR_API` to replace the Imgur API base; `AISYNC_PASSPHRASE` for an encrypted
    /// remote, else `passphrase` is asked (see ``RemoteEncryption``). Pass `[:]` for none.
    /// With `rememberKey`, an encrypted remote's key is kept in a 0600 file in the store.
    ///
    /// - Returns: the engine, and warnings about a setup that works but not fully (Imgur
    ///   enabled without a credential) for the caller to show in its own words.
    /// - Throws: `.configuration` (remedy `.addRemote`) when the store has no remote,
    ///   `.notFound` / `.usage` (remedy `.chooseRemote`) when `name` is unknown or missing among
    ///   several, `.usage` for a remote URL aisync refuses, `.configuration` for an Imgur API
    ///   base it refuses.
    public static func configured(
        store: Store, remote name: String? = nil, environment: [String: String],
        passphrase: PassphraseSource? = nil, rememberKey: Bool = false,
        progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }
    ) async throws(AISyncError)
        -> (engine: SyncEngine, warnings: [SyncWarning])
    {
        let config = try await store.currentConfig()
        let remote = try RemoteFactory.pick(name, in: config)
        var storage = try RemoteFactory.make(remote, environment: environment, runtime: store.environment)
        let source = RemoteEncryption.source(environment: environment, fallback: passphrase)
        if let keys = try await RemoteEncryption.keys(
            for: remote, storage: storage, store: store, passphrase: source, remember: rememberKey)
        {
            let scratch = try await store.scratchPath()
            storage = EncryptedRemote(
                storage, keys: keys, environment: store.environment,
                scratchDirectory: FileIO.parentDirectory(of: scratch))
        }
        let imgur = try ImgurSync.configured(
            store: store, settings: config.imgur, environment: environment,
            transport: LiveTransport.make(redirects: .imgur))
        var warnings = imgur.warnings
        var uploads = imgur.uploads
        if uploads, storage is EncryptedRemote, config.imgur?.publicImages != true {
            uploads = false
            warnings.append(.imgurPausedForEncryptedRemote)
        }
        var engine = SyncEngine(
            store: store, remote: storage, name: remote.name, imgur: imgur.sync, uploadsToImgur: uploads,
            progress: progress)
        if let text = environment["AISYNC_AUTO_COMPACT_BYTES"] {
            guard let bytes = Int64(text), bytes >= 0 else {
                throw AISyncError.usage(
                    "AISYNC_AUTO_COMPACT_BYTES must be a whole number of bytes (0 turns automatic snapshots off), not \"\(text.prefix(40))\""
                )
            }
            engine.autoCompactBytes = bytes == 0 ? nil : bytes
        }
        return (engine, warnings)
    }
}
