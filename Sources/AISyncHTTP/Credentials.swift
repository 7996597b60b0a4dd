import AISyncCore
import AISyncFiles
import Foundation

/// A user name and password for a server, from the environment or `~/.netrc`, never from argv
/// or config files. `description` hides the password so it cannot leak into a message or log.
public struct Credentials: Sendable, Equatable, CustomStringConvertible {
    /// The login name; not secret, so it may appear in messages.
    public var user: String
    var password: String

    /// Credentials for HTTP Basic authentication. The password is kept internal and is never
    /// printed; take it from the environment or a keychain, never from a URL or argv.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// `user:•••`: the user name with the password masked, safe to log.
    public var description: String { "\(user):•••" }

    package var basicAuthorization: String { "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }

    /// `AISYNC_USER`/`AISYNC_PASSWORD`, else the `~/.netrc` entry for `host` (or `default`).
    public static func lookup(host: String, environment: [String: String]) -> Credentials? {
        if let user = environment["AISYNC_USER"], let password = environment["AISYNC_PASSWORD"] {
            return Credentials(user: user, password: password)
        }
        let netrc = environment["NETRC"] ?? environment["HOME"].map { "\($0)/.netrc" }
        guard let path = netrc, let bytes = try? FileIO.read(path, limit: 1 << 20) else { return nil }
        return parseNetrc(String(decoding: bytes, as: UTF8.self), host: host)
    }

    /// The netrc format: whitespace-separated `machine HOST login USER password PASS`, with a
    /// `default` entry as fallback; `macdef` bodies are skipped.
    static func parseNetrc(_ text: String, host: String) -> Credentials? {
        // Split on scalars, not Characters: "\r\n" is one Character, equal to neither "\r" nor "\n".
        let tokens = text.unicodeScalars.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" })
            .map { String(String.UnicodeScalarView($0)) }
        var entries: [(machine: String?, login: String?, password: String?)] = []
        var i = 0
        while i < tokens.count {
            switch tokens[i] {
            case "machine":
                entries.append((i + 1 < tokens.count ? tokens[i + 1].lowercased() : nil, nil, nil))
                i += 2
            case "default":
                entries.append((nil, nil, nil))
                i += 1
            case "login", "password", "account":
                if i + 1 < tokens.count, !entries.isEmpty {
                    if tokens[i] == "login" { entries[entries.count - 1].login = tokens[i + 1] }
                    if tokens[i] == "password" { entries[entries.count - 1].password = tokens[i + 1] }
                }
                i += 2
            case "macdef":
                // Skip to the next empty line: approximated by skipping to the next keyword.
                i += 2
            default:
                i += 1
            }
        }
        let match = entries.first { $0.machine == host.lowercased() } ?? entries.first { $0.machine == nil }
        guard let m = match, let login = m.login, let password = m.password else { return nil }
        return Credentials(user: login, password: password)
    }
}
