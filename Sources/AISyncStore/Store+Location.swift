import AISyncCore
import AISyncFiles

/// Where a store lives when the caller does not say.
extension Store {
    /// The default store directory: `AISYNC_HOME` when set and not empty, else `$HOME/.aisync`;
    /// nil when neither is set (the caller must then name a directory). One rule, so the
    /// command line and an app embedding the library on a desktop find the same store.
    public static func defaultRoot(environment: [String: String]) -> String? {
        if let home = environment["AISYNC_HOME"], !home.isEmpty { return home }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return "\(home)/.aisync"
    }
}

extension Store {
    /// Where Foundation's cache and cookie folders go (``FoundationFiles``): inside the store.
    public nonisolated var foundationFilesDirectory: String { "\(root)/sync/foundation" }

    /// Keeps Foundation's cache and cookie folders inside this store instead of `$HOME` (on
    /// Linux; nothing to do on Apple platforms). Call it once, after opening the store and
    /// before the first sync, while no other thread reads the environment.
    public nonisolated func keepFoundationFiles() { FoundationFiles.keep(in: foundationFilesDirectory) }
}
