import AISyncCore
import AISyncHTTP
import AISyncRemote
import AISyncStore

/// Adding and forgetting remotes, with the checks every front end needs.
///
/// Here rather than in AISyncStore because a remote's URL is vetted by `RemoteLocation`
/// (AISyncRemote), which the store layer does not know; AISyncSync is where the two meet.
extension Store {
    /// Adds a remote called `name` at `url` (`https://…` WebDAV, `http(s)://…` with `plain`
    /// for a plain HTTP server, or `file:///path`) to the store's config, and returns it.
    /// Credentials never go in the config: they come from the environment when syncing.
    /// With `encrypted`, everything sent there is encrypted; the first sync sets up its key
    /// (or opens the one another device made) with a passphrase. `trust` adds certificates
    /// and pinned keys to the system's trust for an `https://` remote (see ``setTrust(_:remote:)``).
    ///
    /// - Throws: `.usage` for a name that is not 1-32 lowercase letters, digits, `-` or `_`,
    ///   for a URL aisync refuses (credentials in it, plain http to another machine without
    ///   `insecure`, …), for trust given to a remote that is not `https://`, or when a remote
    ///   of that name exists (remedy `.removeRemote`).
    @discardableResult
    public func addRemote(
        name: String, url: String, plain: Bool = false, insecure: Bool = false, encrypted: Bool = false,
        s3: S3Options = S3Options(), trust: TLSTrust = .system
    ) throws(AISyncError) -> StoreConfig.Remote {
        try RemoteLocation.validateName(name)
        var remote: StoreConfig.Remote
        if url.hasPrefix("s3://") {
            guard !plain else { throw AISyncError(.usage, "plain HTTP applies to http(s) URLs, not s3:// buckets") }
            let location = try S3Options.check(url: url, s3, insecure: insecure)
            remote = StoreConfig.Remote(
                name: name, url: "s3://\(location.bucket)" + (location.prefix.isEmpty ? "" : "/\(location.prefix)"),
                type: "s3", insecure: insecure, encrypted: encrypted, endpoint: s3.endpoint, region: s3.region,
                addressing: s3.addressing?.rawValue)
        } else {
            guard s3.endpoint == nil, s3.region == nil, s3.addressing == nil else {
                throw AISyncError(
                    .usage, "an endpoint, region or addressing applies to s3:// remotes only",
                    hint: "Give the bucket as s3://BUCKET[/FOLDER]")
            }
            let location = try RemoteLocation(url: url, plain: plain, insecure: insecure)
            remote = StoreConfig.Remote(
                name: name, url: url, type: location.kind.rawValue, insecure: insecure, encrypted: encrypted)
        }
        try Self.apply(trust, to: &remote)
        _ = try updateConfig { (config: inout StoreConfig) throws(AISyncError) in
            guard !config.remotes.contains(where: { $0.name == name }) else {
                throw AISyncError(
                    .usage, "a remote named '\(name)' exists already", hint: "Remove it first to replace it",
                    remedy: .removeRemote(name))
            }
            config.remotes.append(remote)
        }
        return remote
    }

    /// Sets what the `https://` remote called `name` trusts beside the system's certificates:
    /// `trust`'s certificates (a private CA, or a self-signed server's own certificate) and
    /// pinned keys, replacing what it trusted before (``TLSTrust/system`` for the system's
    /// alone). What was synced with the remote is kept. Returns the remote as it now is.
    ///
    /// - Throws: `.notFound` for no such remote, `.usage` when it is not `https://`.
    @discardableResult
    public func setTrust(_ trust: TLSTrust, remote name: String) throws(AISyncError) -> StoreConfig.Remote {
        let config = try updateConfig { (config: inout StoreConfig) throws(AISyncError) in
            guard let index = config.remotes.firstIndex(where: { $0.name == name }) else {
                throw Self.noRemote(name, in: config)
            }
            try Self.apply(trust, to: &config.remotes[index])
        }
        return config.remotes.first { $0.name == name }!
    }

    /// The error for a remote `config` does not have.
    static func noRemote(_ name: String, in config: StoreConfig) -> AISyncError {
        let names = config.remotes.map(\.name)
        return AISyncError(
            .notFound, "no remote named '\(name)'",
            hint: names.isEmpty ? "This store has no remote" : "The remotes are: \(names.joined(separator: ", "))",
            remedy: .chooseRemote(names))
    }

    /// Writes `trust` into `remote`: the certificates as clean PEM (only the certificate
    /// blocks: anything else in the file given, a private key included, is left out), the
    /// pins as `sha256//BASE64`.
    static func apply(_ trust: TLSTrust, to remote: inout StoreConfig.Remote) throws(AISyncError) {
        if !trust.isSystem {
            let secure =
                remote.type == "s3"
                ? (remote.endpoint.map { $0.lowercased().hasPrefix("https://") } ?? true)
                : remote.url.lowercased().hasPrefix("https://")
            guard secure else {
                throw AISyncError(
                    .usage,
                    "the remote \(remote.name) is not https://: certificates and pinned keys apply to HTTPS only")
            }
        }
        remote.certificates = try trust.certificates.map { (pem) throws(AISyncError) in try TLSTrust.cleanPEM(pem) }
        remote.pins = trust.pins.map(TLSTrust.pinText)
    }

    /// Forgets the remote called `name` and what this store last synced with it; nothing on
    /// the remote itself is deleted, so adding it again later syncs from scratch.
    ///
    /// - Throws: `.notFound` (remedy `.chooseRemote` with the remotes there are) when the
    ///   store has no remote of that name.
    public func removeRemote(_ name: String) throws(AISyncError) {
        _ = try updateConfig { (config: inout StoreConfig) throws(AISyncError) in
            guard config.remotes.contains(where: { $0.name == name }) else {
                throw Self.noRemote(name, in: config)
            }
            config.remotes.removeAll { $0.name == name }
        }
        try forgetCheckpoint(name)
        forgetSyncHistory(name)
        forgetKeys(name)
    }
}

/// What an S3 remote needs beside its `s3://BUCKET[/PREFIX]` URL.
public struct S3Options: Sendable, Equatable {
    /// The provider's endpoint (`https://ACCOUNT.r2.cloudflarestorage.com`,
    /// `http://127.0.0.1:8333`); nil for AWS, whose endpoint follows from the region.
    public var endpoint: String?
    /// The region to sign for; nil takes `AWS_REGION`, `AWS_DEFAULT_REGION` or the AWS
    /// profile's when syncing, else `us-east-1`.
    public var region: String?
    /// Path-style or virtual-hosted addressing; nil chooses from the endpoint.
    public var addressing: S3Location.Addressing?

    /// Options for an S3 remote.
    public init(endpoint: String? = nil, region: String? = nil, addressing: S3Location.Addressing? = nil) {
        self.endpoint = endpoint
        self.region = region
        self.addressing = addressing
    }

    /// The location `url` and `options` name, checked: a plain `http://` endpoint only to
    /// this machine unless `insecure`.
    static func check(url: String, _ options: S3Options, insecure: Bool, region: String? = nil) throws(AISyncError)
        -> S3Location
    {
        let location = try S3Location(
            url: url, endpoint: options.endpoint, region: options.region ?? region, addressing: options.addressing)
        let host =
            location.endpointHost.hasPrefix("[")
            ? String(location.endpointHost.dropFirst().prefix { $0 != "]" })
            : String(location.endpointHost.prefix { $0 != ":" })
        if location.scheme == "http", !insecure, !RemoteLocation.isLoopback(host) {
            throw AISyncError(
                .usage, "refusing plain http:// to \(host): signed requests and data would travel unencrypted",
                hint: "Use an https:// endpoint, or allow plain http:// if this network is trusted",
                remedy: .allowInsecureHTTP)
        }
        return location
    }
}
