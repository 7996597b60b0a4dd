import AISyncCore
import AISyncHTTP

/// A failed Imgur operation, classified so the sync engine knows what to do next.
///
/// `ImgurClient` throws this (typed throws) instead of a bare `AISyncError` because a push must
/// react differently to each kind, and two of them carry data a caller needs:
///
/// | kind            | what happened                                        | what a push does                                  |
/// |-----------------|------------------------------------------------------|---------------------------------------------------|
/// | `.rateLimited`  | 429, or a spent budget in the headers                | stops uploading until `resetAt`, reports it       |
/// | `.rejected`     | 400/413/415: Imgur refused *this* file (too big, bad type) | marks that image failed with `message`, goes on |
/// | `.auth`         | 401/403: the client id or token was refused           | stops; the user fixes the credential             |
/// | `.unavailable`  | over capacity / 5xx / unreachable after the retries   | leaves the upload pending for the next push       |
/// | `.damaged`      | an answer that is not what Imgur sends (hostile or broken) | leaves it pending, reports                  |
/// | `.other`        | anything else (local file errors, configuration, odd statuses) | reports `aisyncError`                    |
///
/// `aisyncError` is the one-line, secret-free error for the CLI (its code maps to an exit code:
/// rate limited → `.temporary`, rejected → `.other`, auth → `.permission`, unavailable →
/// `.unavailable`, damaged → `.damagedData`). `rateLimit` holds the figures of the last response
/// seen, when it had any, so `aisync imgur status` can show them even after a failure.
public struct ImgurError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as far as a push needs to know (see the table above).
    public enum Kind: Sendable, Equatable {
        /// Rate limited; retry at or after `resetAt` (unix seconds). Never retried in place.
        case rateLimited(resetAt: Int64)
        /// Imgur refused this file; `message` is Imgur's own text (e.g. "File is over the size limit").
        case rejected(message: String)
        /// The credential was refused.
        case auth
        /// Imgur is over capacity, failing or unreachable, after the client's retries.
        case unavailable
        /// Imgur's answer (or a recorded id/link) is not what the API promises.
        case damaged
        /// Anything else.
        case other
    }

    /// What went wrong, which decides what a push does next.
    public var kind: Kind
    /// The same failure as a one-line, secret-free ``AISyncError`` for people and exit codes.
    public var aisyncError: AISyncError
    /// The rate-limit figures of the last response, if it carried any.
    public var rateLimit: ImgurRateLimit?
    /// The HTTP status of the last response, if there was one.
    public var status: Int?
    /// True when an upload's request may have reached Imgur although no answer came back (a
    /// timeout): the image may exist on Imgur without aisync knowing its id or deletehash.
    /// With a bearer token the caller can look for it among the account's images.
    public var mayHaveUploaded: Bool

    /// An error of `kind` described by `error`; its message must not contain the credential or a deletehash.
    public init(
        _ kind: Kind, _ error: AISyncError, rateLimit: ImgurRateLimit? = nil, status: Int? = nil,
        mayHaveUploaded: Bool = false
    ) {
        self.kind = kind
        self.aisyncError = error
        self.rateLimit = rateLimit
        self.status = status
        self.mayHaveUploaded = mayHaveUploaded
    }

    /// The ``aisyncError``'s one-line description.
    public var description: String { aisyncError.description }

    /// When a rate-limited operation may be tried again (unix seconds).
    public var retryAt: Int64? {
        if case .rateLimited(let at) = kind { return at }
        return nil
    }
}
