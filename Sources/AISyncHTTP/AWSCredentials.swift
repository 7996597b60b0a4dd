import AISyncCore
import AISyncFiles

/// An access key for S3-compatible storage, and a region, found the way the AWS CLI finds
/// them, so a user who has set up `aws` or `rclone` needs nothing more:
///
/// 1. `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (with `AWS_SESSION_TOKEN`);
/// 2. the shared credentials file (`AWS_SHARED_CREDENTIALS_FILE`, else `~/.aws/credentials`),
///    section `[PROFILE]`;
/// 3. the config file (`AWS_CONFIG_FILE`, else `~/.aws/config`), section `[profile PROFILE]`
///    (`[default]` for the default profile).
///
/// The profile is `AWS_PROFILE`, else `default`; the region `AWS_REGION`, else
/// `AWS_DEFAULT_REGION`, else the profile's `region` in the config file. Never from argv or
/// aisync's config. ``source`` says where the key came from; no description or error ever
/// holds the secret or the token.
public struct AWSCredentials: Sendable, CustomStringConvertible {
    /// The access key.
    public var key: SigV4.Credentials
    /// The region the profile names, if any.
    public var region: String?
    /// Where the key was found: `environment (AWS_ACCESS_KEY_ID)` or `~/.aws/credentials [work]`.
    public var source: String

    /// A key an app supplies itself (from its keychain, say); `source` is how errors name
    /// it (`the app's keychain`), never the secret.
    public init(key: SigV4.Credentials, region: String? = nil, source: String) {
        self.key = key
        self.region = region
        self.source = source
    }

    /// `access key AKIA… (secret hidden) from ~/.aws/credentials [default]`.
    public var description: String { "\(key) from \(source)" }

    /// The key and region for `environment`, or nil when none is set anywhere. A profile
    /// named but found nowhere, or a key without its secret, is an error naming the file.
    public static func lookup(environment: [String: String]) throws(AISyncError) -> AWSCredentials? {
        let named = environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 }
        let profile = named ?? "default"
        let home = environment["HOME"] ?? ""
        let credentialsPath = environment["AWS_SHARED_CREDENTIALS_FILE"] ?? "\(home)/.aws/credentials"
        let configPath = environment["AWS_CONFIG_FILE"] ?? "\(home)/.aws/config"
        let credentialsFile = try Self.read(credentialsPath)
        let configFile = try Self.read(configPath)
        let fromCredentials = credentialsFile?[profile]
        let fromConfig = configFile?[profile == "default" ? "default" : "profile \(profile)"]
        if named != nil, fromCredentials == nil, fromConfig == nil {
            throw AISyncError(
                .configuration, "the AWS profile \"\(profile)\" is in neither \(credentialsPath) nor \(configPath)",
                hint: "Add a [\(profile)] section to \(credentialsPath), or set AWS_PROFILE to a profile that exists")
        }
        let region = [environment["AWS_REGION"], environment["AWS_DEFAULT_REGION"], fromConfig?["region"]]
            .compactMap { $0.flatMap { $0.isEmpty ? nil : $0 } }.first
        if let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty {
            guard let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else {
                throw AISyncError(
                    .configuration, "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not",
                    hint: "Set both, or neither to use \(credentialsPath)")
            }
            let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
            return AWSCredentials(
                key: SigV4.Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token), region: region,
                source: "environment (AWS_ACCESS_KEY_ID)")
        }
        let configSection = profile == "default" ? "default" : "profile \(profile)"
        for (section, path, name) in [
            (fromCredentials, credentialsPath, profile), (fromConfig, configPath, configSection),
        ] {
            guard let section, let id = section["aws_access_key_id"] else { continue }
            guard let secret = section["aws_secret_access_key"], !secret.isEmpty, !id.isEmpty else {
                throw AISyncError(
                    .configuration, "\(path) [\(name)] has an aws_access_key_id but no aws_secret_access_key",
                    hint: "Add the secret under that profile, or remove the incomplete key")
            }
            return AWSCredentials(
                key: SigV4.Credentials(
                    accessKeyID: id, secretAccessKey: secret, sessionToken: section["aws_session_token"]),
                region: region, source: "\(path) [\(name)]")
        }
        return nil
    }

    /// The sections of an INI file as the AWS CLI writes them, or nil when there is no file.
    static func read(_ path: String) throws(AISyncError) -> [String: [String: String]]? {
        guard FileIO.exists(path) else { return nil }
        let bytes = try FileIO.read(path, limit: 1 << 20)
        return parse(String(decoding: bytes, as: UTF8.self))
    }

    /// `[section]` headers and `key = value` lines; `#` and `;` start comments; indented
    /// lines (a nested block such as `s3 =` followed by `  addressing_style = path`) are
    /// skipped, as are lines that are neither.
    static func parse(_ text: String) -> [String: [String: String]] {
        var sections: [String: [String: String]] = [:]
        var current: String?
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            guard let first = line.first, first != " ", first != "\t" else { continue }
            let trimmed = line.trimmingCharacters(in: " \t")
            if trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            if trimmed.hasPrefix("["), trimmed.hasSuffix("]") {
                let name = trimmed.dropFirst().dropLast().trimmingCharacters(in: " \t")
                    .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                current = name
                sections[name, default: [:]] = sections[name] ?? [:]
                continue
            }
            guard let current, let equals = trimmed.firstIndex(of: "=") else { continue }
            let key = trimmed[..<equals].trimmingCharacters(in: " \t").lowercased()
            let value = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: " \t")
            if !key.isEmpty { sections[current]?[key] = value }
        }
        return sections
    }
}

extension StringProtocol {
    /// Without the leading and trailing characters in `set`.
    fileprivate func trimmingCharacters(in set: String) -> String {
        let scalars = Array(unicodeScalars)
        var start = 0
        var end = scalars.count
        while start < end, set.unicodeScalars.contains(scalars[start]) { start += 1 }
        while end > start, set.unicodeScalars.contains(scalars[end - 1]) { end -= 1 }
        return String(String.UnicodeScalarView(scalars[start..<end]))
    }
}
