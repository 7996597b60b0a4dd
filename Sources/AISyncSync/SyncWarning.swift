import AISyncCore

/// Something the user should know about a sync setup that still works, as a value: the
/// library decides when it applies, each front end says it in its own words.
public enum SyncWarning: Hashable, Sendable {
    /// Imgur uploads are turned on for the store, but the environment holds no Imgur
    /// credential (`AISYNC_IMGUR_CLIENT_ID` or `AISYNC_IMGUR_TOKEN`): pushes leave images
    /// pending until one is given; records and everything else still sync.
    case imgurEnabledWithoutCredential
    /// Imgur uploads are on, but this remote is encrypted and the user never agreed to public
    /// pictures (`imgur enable --public-images`): pictures stay on the encrypted remote only.
    case imgurPausedForEncryptedRemote
}
