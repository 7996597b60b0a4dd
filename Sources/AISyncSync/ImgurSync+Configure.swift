import AISyncCore
import AISyncHTTP
import AISyncImgur
import AISyncRemote
import AISyncStore

/// The Imgur side of a sync engine, built from the store's settings and the environment.
extension ImgurSync {
    /// The environment variable that replaces the Imgur API base (tests, proxies); it wins
    /// over the store's `imgur.api` setting.
    public static let apiVariable = "AISYNC_IMGUR_API"

    /// What `settings` and `environment` ask for: uploads when Imgur is enabled and the
    /// environment has a credential; otherwise download-only, so pictures other devices put on
    /// Imgur still come back (downloads never send a credential). Enabled without a credential
    /// warns `.imgurEnabledWithoutCredential` and keeps the placement, so images wait for one.
    ///
    /// - Throws: `.configuration` when the API base (setting or `AISYNC_IMGUR_API`) is not
    ///   one aisync may talk to (see `ImgurClient.validateAPIBase`).
    package static func configured(
        store: Store, settings: StoreConfig.ImgurSettings?, environment: [String: String],
        transport: any HTTPTransport
    ) throws(AISyncError)
        -> (sync: ImgurSync, uploads: Bool, warnings: [SyncWarning])
    {
        let api = environment[apiVariable] ?? settings?.api ?? "https://api.imgur.com"
        try ImgurClient.validateAPIBase(api)
        let credential = ImgurCredential.fromEnvironment(environment)
        let enabled = settings?.enabled == true
        let client = ImgurClient(
            apiBase: api, credential: credential ?? .clientID("download-only"), transport: transport,
            environment: store.environment)
        let placement: StoreConfig.ImagePlacement = enabled ? (settings?.images ?? .imgur) : .remote
        let sync = ImgurSync(store: store, client: client, placement: placement)
        let warnings: [SyncWarning] = enabled && credential == nil ? [.imgurEnabledWithoutCredential] : []
        return (sync, enabled && credential != nil, warnings)
    }
}
