import AISyncCore
import AISyncHTTP
import Foundation

extension Import {
    /// The largest DALL·E picture a fetch accepts: 64 MB (a PNG from the Images API is a few MB).
    public static let pictureMaxBytes: Int64 = 64 << 20

    /// How long one picture download may take, in seconds.
    public static let pictureTimeoutSeconds: TimeInterval = 30

    /// Which redirects a picture download follows: on the same host only, so a picture URL
    /// cannot send the download elsewhere.
    public static let pictureRedirects = RedirectPolicy.sameHost

    /// Downloads one DALL·E picture URL under the import's download policy: only `http` and
    /// `https` URLs, at most ``pictureMaxBytes``, redirects per ``pictureRedirects``, and a
    /// status other than 200 is an error (the summary notes it; the import goes on).
    /// `transport` nil makes a live one with ``pictureTimeoutSeconds`` and ``pictureRedirects``
    /// for this download; tests pass a fake.
    public static func fetchPicture(_ url: String, transport: (any HTTPTransport)? = nil) async throws(AISyncError)
        -> [UInt8]
    {
        guard let parsed = URL(string: url), ["https", "http"].contains(parsed.scheme?.lowercased() ?? "") else {
            throw AISyncError(.usage, "\(url.prefix(120)) is not an http(s) URL")
        }
        let client = transport ?? LiveTransport.make(timeoutSeconds: pictureTimeoutSeconds, redirects: pictureRedirects)
        let response = try await client.send(
            HTTPRequest(method: "GET", url: url), downloadTo: nil, maxBytes: pictureMaxBytes)
        guard response.status == 200 else {
            throw AISyncError(
                .unavailable,
                "\(parsed.host ?? "the server") answered \(response.status) for \(parsed.lastPathComponent)")
        }
        return response.body
    }

    /// ``fetchPicture(_:transport:)`` on live transports, in the shape ``Options/fetch`` takes:
    /// what `aisync import dalle --fetch` uses, and what an app passes to get the same policy.
    public static let downloadPicture: @Sendable (String) async throws(AISyncError) -> [UInt8] = {
        url throws(AISyncError) in
        try await fetchPicture(url)
    }
}
