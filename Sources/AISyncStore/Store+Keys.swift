import AISyncCore
import AISyncFiles

/// Where an encrypted remote's unwrapped key is kept when the user allows it (`--remember`),
/// and the config mark that a remote is encrypted.
extension Store {
    func keyPath(_ remote: String) -> String { "\(root)/sync/\(remote).key" }

    /// The key remembered for `remote`, if the user chose `--remember`; nil otherwise, or
    /// when the file is not a key (it is then ignored and the passphrase asked for).
    public func rememberedKeys(_ remote: String) -> RemoteKeys? {
        guard let bytes = try? FileIO.read(keyPath(remote), limit: 4096),
            let text = String(validating: bytes, as: UTF8.self)
        else { return nil }
        return RemoteKeys(remembered: text)
    }

    /// Keeps `keys` for `remote` in a file only this user can read (0600), so later syncs
    /// need no passphrase. Anyone who can read the store's folder as this user can then
    /// decrypt the remote: the README says so.
    public func rememberKeys(_ keys: RemoteKeys, for remote: String) throws(AISyncError) {
        try FileIO.makeDirectories("\(root)/sync")
        try FileIO.writeAtomically(
            keyPath(remote), Array(keys.remembered.utf8), temporarySuffix: environment.temporarySuffix(), mode: 0o600)
    }

    /// Forgets a remembered key; the passphrase is asked for again next time.
    public func forgetKeys(_ remote: String) {
        _ = Platform.unlink(keyPath(remote))
    }

    /// Marks `remote` encrypted in the config, so this store never sends it plaintext again.
    public func markRemoteEncrypted(_ remote: String) throws(AISyncError) {
        _ = try updateConfig { (config: inout StoreConfig) throws(AISyncError) in
            guard let i = config.remotes.firstIndex(where: { $0.name == remote }) else { return }
            config.remotes[i].encrypted = true
        }
    }
}
