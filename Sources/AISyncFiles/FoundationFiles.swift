/// A privacy rule: nothing of a store's use lands outside it.
///
/// On Linux, Foundation's URLSession makes a URL cache and a cookie folder under `~/.cache`
/// and `~/.local/share` as soon as any session configuration exists, even an ephemeral one
/// with both turned off: traces of private chats outside the store. Pointing
/// `XDG_CACHE_HOME` and `XDG_DATA_HOME` into the store keeps them there (they stay empty).
/// Apple platforms need nothing.
public enum FoundationFiles {
    /// The environment variables that send Foundation's folders into `directory`: empty on
    /// Apple platforms.
    public static func variables(in directory: String) -> [String: String] {
        #if canImport(Darwin)
            [:]
        #else
            ["XDG_CACHE_HOME": "\(directory)/cache", "XDG_DATA_HOME": "\(directory)/data"]
        #endif
    }

    /// Sets ``variables(in:)`` in this process's environment. Call it before the first
    /// network request (Foundation reads them once), while no other thread reads the
    /// environment: at launch, or when opening the store.
    public static func keep(in directory: String) {
        for (name, value) in variables(in: directory).sorted(by: { $0.key < $1.key }) {
            Platform.setEnvironment(name, value)
        }
    }
}
