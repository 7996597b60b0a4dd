import AISyncCore
import AISyncImgur
import AISyncStore

/// Turning Imgur uploads on and off (docs/DESIGN.md §7).
extension Store {
    /// Turns Imgur uploads on: `api` replaces https://api.imgur.com (tests, proxies),
    /// `images` says where image bytes go. Also forgets which images Imgur refused, so the
    /// next push tries them again (after the user shrank them, or Imgur's limits changed).
    ///
    /// - Returns: how many refused images will be tried again, and
    ///   `.imgurEnabledWithoutCredential` when `environment` has no Imgur credential yet.
    /// - Throws: `.configuration` when `api` is not a URL aisync may talk to, or when a
    ///   remote is encrypted and `publicImages` is false: pictures on Imgur are public to
    ///   anyone with the link, which would undo what the encryption is for.
    public func enableImgur(
        api: String? = nil, images: StoreConfig.ImagePlacement = .imgur, publicImages: Bool = false,
        environment: [String: String]
    ) throws(AISyncError) -> (retried: Int, warnings: [SyncWarning]) {
        if let api { try ImgurClient.validateAPIBase(api) }
        _ = try updateConfig { (config: inout StoreConfig) throws(AISyncError) in
            if images != .remote, !publicImages, let encrypted = config.remotes.first(where: \.encrypted) {
                throw AISyncError(
                    .configuration,
                    "remote \(encrypted.name) is encrypted, but pictures on Imgur are public to anyone with the link",
                    hint:
                        "Allow public pictures to upload them anyway (records stay encrypted), or keep pictures on the remote only",
                    remedy: .allowPublicImages)
            }
            config.imgur = StoreConfig.ImgurSettings(
                enabled: true, api: api, images: images, publicImages: publicImages)
        }
        let retried = try retryRefusedImgurUploads()
        let warnings: [SyncWarning] =
            ImgurCredential.fromEnvironment(environment) == nil ? [.imgurEnabledWithoutCredential] : []
        return (retried, warnings)
    }

    /// Stops uploading images to Imgur; images already there stay, and pulls still fetch them.
    public func disableImgur() throws(AISyncError) {
        _ = try updateConfig { (config: inout StoreConfig) throws(AISyncError) in
            config.imgur?.enabled = false
        }
    }
}
