import AISyncCore
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
