import AISyncCore
import AISyncRemote
import AISyncStore

/// What a passphrase is asked for.
public enum PassphrasePurpose: Sendable, Equatable {
    /// To open the key of the remote called `remote`.
    case unlock(remote: String)
    /// To wrap the key of a remote being encrypted for the first time (confirm it on a terminal).
    case create(remote: String)
    /// The new passphrase of `aisync passphrase change` (confirm it on a terminal).
    case change(remote: String)
}

/// Asks the user for a passphrase (an app's secure field, the CLI's no-echo prompt); throws
/// to give up. The library never stores what it returns.
public typealias PassphraseSource = @Sendable (PassphrasePurpose) async throws(AISyncError) -> String

/// Opening, creating and re-wrapping an encrypted remote's key (`keys.json`).
public enum RemoteEncryption {
    /// The passphrase from `AISYNC_PASSPHRASE` (or `AISYNC_NEW_PASSPHRASE` for a change),
    /// else from `fallback` (a prompt), else a `.configuration` error saying how to give one.
    public static func source(environment: [String: String], fallback: PassphraseSource? = nil) -> PassphraseSource {
        { (purpose: PassphrasePurpose) async throws(AISyncError) -> String in
            let variable = if case .change = purpose { "AISYNC_NEW_PASSPHRASE" } else { "AISYNC_PASSPHRASE" }
            if let value = environment[variable], !value.isEmpty { return value }
            if let fallback { return try await fallback(purpose) }
            let name =
                switch purpose {
                case .unlock(let r), .create(let r), .change(let r): r
                }
            throw AISyncError(
                .configuration, "remote \(name) is encrypted and no passphrase was given",
                hint: "Give the remote's passphrase",
                remedy: .providePassphrase(remote: name, new: variable == "AISYNC_NEW_PASSPHRASE"))
        }
    }

    /// The keys for `remote`: remembered ones, else `keys.json` opened with a passphrase;
    /// nil for a remote that is not encrypted. A remote never synced is asked whether it is
    /// encrypted (one read of `aisync.json`); an empty one marked `encrypted` gets a new
    /// key. With `remember`, the opened key is kept in a 0600 file in the store.
    public static func keys(
        for remote: StoreConfig.Remote, storage: any RemoteStorage, store: Store,
        passphrase: PassphraseSource, remember: Bool = false
    ) async throws(AISyncError) -> RemoteKeys? {
        if let remembered = await store.rememberedKeys(remote.name) { return remembered }
        if !remote.encrypted {
            // A remote this store never synced with is asked once. When it cannot be read here
            // (offline, not created yet), the engine finds out on its own first read of
            // `aisync.json` and asks to be run again.
            guard try await store.readCheckpoint(remote.name).remoteID == nil,
                let manifest = try? await readManifest(storage), manifest.encrypted
            else { return nil }
            try await store.markRemoteEncrypted(remote.name)
        }
        let keys = try await openOrCreate(remote.name, storage: storage, store: store, passphrase: passphrase)
        if remember { try await store.rememberKeys(keys, for: remote.name) }
        return keys
    }

    private static func openOrCreate(
        _ name: String, storage: any RemoteStorage, store: Store, passphrase: PassphraseSource
    ) async throws(AISyncError) -> RemoteKeys {
        if let file = try await readKeyFile(storage) {
            return try file.value.unlock(passphrase: try await passphrase(.unlock(remote: name))).keys
        }
        if let manifest = try await readManifest(storage) {
            if manifest.encrypted {
                throw AISyncError(
                    .damagedData, "\(storage.displayName) is encrypted but its keys.json is missing",
                    hint: "Restore keys.json from a backup of the server; without it nothing there can be decrypted")
            }
            throw AISyncError(
                .configuration, "\(storage.displayName) already holds unencrypted data",
                hint: "Encrypt it in place, or use an empty folder", remedy: .encryptRemote(name))
        }
        guard
            let keys = try await createKeyFile(
                storage, remoteID: store.environment.randomHex(bytes: 16), name: name, store: store,
                passphrase: passphrase)
        else {
            // Another device set up encryption at the same moment: use its key.
            return try await openOrCreate(name, storage: storage, store: store, passphrase: passphrase)
        }
        return keys
    }

    /// Makes a new master key for `remoteID` and writes `keys.json` create-only, then reads it
    /// back; nil when one was there already (412), `.temporary` when another device's write
    /// replaced ours (a server ignoring If-None-Match).
    private static func createKeyFile(
        _ storage: any RemoteStorage, remoteID: String, name: String, store: Store,
        passphrase: PassphraseSource
    ) async throws(AISyncError) -> RemoteKeys? {
        let environment = store.environment
        let new = try checkNew(try await passphrase(.create(remote: name)))
        let (file, keys) = KeyFile.create(
            remoteID: remoteID, passphrase: new, created: Timestamp(milliseconds: environment.now()),
            random: environment.secureRandom)
        if try await storage.write(KeyFile.path, file.json.canonicalBytes + [10], condition: .createOnly)
            == .preconditionFailed
        {
            return nil
        }
        guard try await readKeyFile(storage)?.value == file else {
            throw AISyncError(
                .temporary, "another device set up encryption on \(storage.displayName) at the same moment",
                hint: "Run the command again to use its key")
        }
        return keys
    }

    /// The key for encrypting a plain remote in place: the one a cut-off `aisync encrypt`
    /// left in `keys.json` (opened with the passphrase), else a new one for the remote's id.
    static func conversionKeys(
        _ storage: any RemoteStorage, remoteID: String, store: Store, passphrase: PassphraseSource
    ) async throws(AISyncError) -> RemoteKeys {
        let name = storage.displayName
        if let file = try await readKeyFile(storage) {
            guard file.value.remoteID == remoteID else {
                throw AISyncError(
                    .tampered, "\(name)/keys.json belongs to another remote",
                    hint: "Restore the server's keys.json from a backup, or remove it if no data was encrypted with it")
            }
            return try file.value.unlock(passphrase: try await passphrase(.unlock(remote: name))).keys
        }
        guard
            let keys = try await createKeyFile(
                storage, remoteID: remoteID, name: name, store: store, passphrase: passphrase)
        else {
            throw AISyncError(
                .temporary, "another device set up encryption on \(name) at the same moment",
                hint: "Run the command again to use its key")
        }
        return keys
    }

    /// Adds a slot for the new passphrase and removes the one the old passphrase opened:
    /// the data stays as it is. Any device that remembered the key keeps working.
    public static func changePassphrase(
        of remote: StoreConfig.Remote, storage: any RemoteStorage, store: Store,
        passphrase: PassphraseSource
    ) async throws(AISyncError) {
        guard let read = try await readKeyFile(storage) else {
            throw AISyncError(
                .notFound, "\(storage.displayName) has no keys.json: it is not encrypted", hint: "Encrypt it first",
                remedy: .encryptRemote(remote.name))
        }
        var file = read.value
        let (keys, oldSlot) = try file.unlock(passphrase: try await passphrase(.unlock(remote: remote.name)))
        let environment = store.environment
        file.addSlot(
            for: keys, passphrase: try checkNew(try await passphrase(.change(remote: remote.name))),
            created: Timestamp(milliseconds: environment.now()), random: environment.secureRandom)
        file.slots.removeAll { $0.id == oldSlot }
        let condition: WriteCondition = read.etag.map { .replacing(etag: $0) } ?? .always
        let result = try await storage.write(KeyFile.path, file.json.canonicalBytes + [10], condition: condition)
        guard result != .preconditionFailed, try await readKeyFile(storage)?.value == file else {
            throw AISyncError(
                .temporary, "keys.json on \(storage.displayName) changed while the passphrase was being changed",
                hint: "Run the command again")
        }
    }

    /// A new passphrase must be at least 8 characters: everything on the remote is only as
    /// safe as it is (scrypt makes each guess cost, not a short passphrase long).
    static func checkNew(_ passphrase: String) throws(AISyncError) -> String {
        guard passphrase.count >= 8 else {
            throw AISyncError.usage(
                "a new passphrase must have at least 8 characters",
                hint: "Choose a longer one; several words are easy to remember")
        }
        return passphrase
    }

    static func readKeyFile(_ storage: any RemoteStorage) async throws(AISyncError) -> (value: KeyFile, etag: String?)?
    {
        guard let file = try await storage.read(KeyFile.path, maxBytes: 64 << 10) else { return nil }
        return (try KeyFile(bytes: file.bytes, shown: "\(storage.displayName)/\(KeyFile.path)"), file.etag)
    }

    static func readManifest(_ storage: any RemoteStorage) async throws(AISyncError) -> RemoteManifest? {
        guard let file = try await storage.read(RemotePath.manifest) else { return nil }
        return try RemoteManifest(bytes: file.bytes, location: storage.displayName)
    }
}
