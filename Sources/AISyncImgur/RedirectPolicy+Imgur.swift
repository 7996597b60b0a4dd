import AISyncHTTP
import Foundation

extension RedirectPolicy {
    /// For Imgur's image links: same-host redirects are followed, except the one to Imgur's
    /// `removed.png` placeholder. That hop is the answer (Imgur removed the image), so the 3xx
    /// comes back to `ImgurClient.download`, which reports `.removed` instead of keeping the
    /// placeholder picture. Pass it to the transport an `ImgurClient` uses:
    /// `LiveTransport.make(redirects: .imgur)`.
    public static let imgur = RedirectPolicy.sameHost.stopping { $0.path.hasSuffix("/removed.png") }
}
