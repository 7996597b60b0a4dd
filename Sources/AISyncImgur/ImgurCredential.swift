import AISyncCore
import AISyncHTTP

/// How aisync authenticates to Imgur (docs/DESIGN.md §7): an application's client id for anonymous
/// uploads (`Authorization: Client-ID …`) or an account's OAuth access token
/// (`Authorization: Bearer …`). Both come from the environment only, never from argv or config.
///
/// Both values are secrets as far as aisync is concerned: `description`, `debugDescription` and
/// the mirror (`dump`) show only which kind of credential it is, never the value.
public enum ImgurCredential: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// An application's client id (anonymous uploads; deleted by deletehash).
    case clientID(String)
    /// An account's OAuth 2 access token (uploads belong to the account; deleted by id).
    case bearer(String)

    /// The environment variable holding an access token (preferred when both are set).
    public static let tokenVariable = "AISYNC_IMGUR_TOKEN"
    /// The environment variable holding a client id.
    public static let clientIDVariable = "AISYNC_IMGUR_CLIENT_ID"

    /// The value of the `Authorization` header. It contains the secret: never log or print it.
    public var authorizationHeader: String {
        switch self {
        case .clientID(let id): "Client-ID \(id)"
        case .bearer(let token): "Bearer \(token)"
        }
    }

    /// The environment variable this kind of credential comes from, for messages.
    public var variableName: String {
        switch self {
        case .clientID: Self.clientIDVariable
        case .bearer: Self.tokenVariable
        }
    }

    /// What the credential is called in messages ("client id", "access token").
    public var kindName: String {
        switch self {
        case .clientID: "client id"
        case .bearer: "access token"
        }
    }

    /// Which kind of credential this is and its environment variable, with the value masked
    /// (`Imgur client id (AISYNC_IMGUR_CLIENT_ID, •••)`): safe to log.
    public var description: String {
        switch self {
        case .clientID: "Imgur client id (\(Self.clientIDVariable), •••)"
        case .bearer: "Imgur access token (\(Self.tokenVariable), •••)"
        }
    }

    /// The same masked text as ``description``, so `debugPrint` cannot leak the secret.
    public var debugDescription: String { description }

    /// No children, so `dump` and debuggers' summaries cannot show the secret either.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .enum) }

    /// The secret itself, for redacting it from server messages.
    var secret: String {
        switch self {
        case .clientID(let s), .bearer(let s): s
        }
    }

    /// True when the value can travel in an HTTP header: 1-512 visible ASCII characters, no
    /// spaces or control characters (so it cannot inject headers).
    var isWellFormed: Bool {
        let bytes = Array(secret.utf8)
        return (1...512).contains(bytes.count) && bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// `AISYNC_IMGUR_TOKEN` (bearer, preferred), else `AISYNC_IMGUR_CLIENT_ID`; surrounding
    /// whitespace (a trailing newline from `$(cat file)`) is dropped and empty values are ignored.
    /// Whether the value is usable is checked when the client first sends it.
    public static func fromEnvironment(_ env: [String: String]) -> ImgurCredential? {
        if let token = trimmed(env[tokenVariable]) { return .bearer(token) }
        if let id = trimmed(env[clientIDVariable]) { return .clientID(id) }
        return nil
    }

    private static func trimmed(_ value: String?) -> String? {
        guard let value else { return nil }
        let scalars = value.unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return nil }
        return String(scalars[first...last])
    }
}
