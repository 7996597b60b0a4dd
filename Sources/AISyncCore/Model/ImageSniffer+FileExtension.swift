extension ImageSniffer {
    /// The usual file extension for an image media type, without a dot (`jpg` for JPEG);
    /// nil when the type is not one aisync knows. Saved and exported pictures are named
    /// with it so other programs open them.
    public static func fileExtension(mediaType: String) -> String? {
        switch mediaType {
        case "image/png": "png"
        case "image/jpeg": "jpg"
        case "image/gif": "gif"
        case "image/webp": "webp"
        case "image/heic": "heic"
        case "image/heif": "heif"
        case "image/avif": "avif"
        case "image/bmp": "bmp"
        case "image/tiff": "tiff"
        case "image/svg+xml": "svg"
        default: nil
        }
    }
}
