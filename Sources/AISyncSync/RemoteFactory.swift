import AISyncCore
import AISyncFiles
import AISyncHTTP
import AISyncImgur
import AISyncRemote
import AISyncStore

/// Builds the storage for a configured remote, with credentials from the environment or
/// `~/.netrc` (never from config).
public enum RemoteFactory {
    /// `environment` is the process's variables (credentials); `runtime` is the clock and
    /// randomness the remote uses for retries and temp names (pass `store.environment`).
    public static func make(
        _ remote: StoreConfig.Remote, environment: [String: String],
        transport: (any HTTPTransport)? = nil,
        runtime: AISyncEnvironment = .live
    ) throws(AISyncError) -> any RemoteStorage {
        if remote.type == "s3" {
            return try makeS3(remote, environment: environment, transport: transport, runtime: runtime)
        }
        let location = try RemoteLocation(url: remote.url, plain: remote.type == "http", insecure: remote.insecure)
        switch location.kind {
        case .folder:
            return FolderRemote(root: location.base, environment: runtime)
        case .webdav, .http:
            let client: any HTTPTransport
            if let transport { client = transport } else { client = try live(for: remote) }
            return HTTPRemote(
                location: location, transport: client,
                credentials: Credentials.lookup(host: location.host, environment: environment),
                environment: runtime)
        }
    }

    /// The live transport for `remote`, trusting what its config adds to the system's trust.
    static func live(for remote: StoreConfig.Remote) throws(AISyncError) -> any HTTPTransport {
        LiveTransport.make(trust: try TLSTrust(certificates: remote.certificates, pinTexts: remote.pins))
    }

    /// An S3 remote, signed with the key the AWS environment or shared files give.
    static func makeS3(
        _ remote: StoreConfig.Remote, environment: [String: String], transport: (any HTTPTransport)?,
        runtime: AISyncEnvironment
    ) throws(AISyncError) -> any RemoteStorage {
        guard let credentials = try AWSCredentials.lookup(environment: environment) else {
            throw AISyncError(
                .permission, "no AWS access key for the remote \(remote.name) (\(remote.url))",
                hint:
                    "Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or add the key to ~/.aws/credentials (AWS_PROFILE picks a profile)"
            )
        }
        let addressing = try remote.addressing.map { (text: String) throws(AISyncError) -> S3Location.Addressing in
            guard let value = S3Location.Addressing(rawValue: text) else {
                throw AISyncError.damaged("the remote \(remote.name)'s addressing is not path or virtual")
            }
            return value
        }
        let location = try S3Options.check(
            url: remote.url, S3Options(endpoint: remote.endpoint, region: remote.region, addressing: addressing),
            insecure: remote.insecure, region: credentials.region)
        let client: any HTTPTransport
        if let transport { client = transport } else { client = try live(for: remote) }
        return S3Remote(
            location: location, transport: client, credentials: credentials,
            environment: runtime)
    }

    /// Whether an S3 remote's store honours conditional writes (a probe written twice under
    /// its prefix with `If-None-Match: *`, then deleted), once its bucket is found in the
    /// remote's region (``S3Remote/checkBucket()``); nil for other kinds of remote.
    public static func probeConditionalWrites(
        _ remote: StoreConfig.Remote, environment: [String: String], transport: (any HTTPTransport)? = nil,
        runtime: AISyncEnvironment = .live
    ) async throws(AISyncError) -> Bool? {
        guard remote.type == "s3",
            let storage = try make(remote, environment: environment, transport: transport, runtime: runtime)
                as? S3Remote
        else { return nil }
        try await storage.checkBucket()
        return try await storage.honoursConditionalWrites()
    }

    /// The remote called `name`, or the only one when `name` is nil.
    public static func pick(_ name: String?, in config: StoreConfig) throws(AISyncError) -> StoreConfig.Remote {
        if let name {
            guard let remote = config.remotes.first(where: { $0.name == name }) else {
                let names = config.remotes.map(\.name)
                throw AISyncError(
                    .notFound, "no remote named '\(name)'",
                    hint: names.isEmpty
                        ? "This store has no remote yet; add one" : "The remotes are: \(names.joined(separator: ", "))",
                    remedy: names.isEmpty ? .addRemote : .chooseRemote(names))
            }
            return remote
        }
        switch config.remotes.count {
        case 0:
            throw AISyncError(
                .configuration, "this store has no remote",
                hint: "Add one: a WebDAV URL, a plain HTTP URL, or a folder (e.g. file:///media/usb/aisync)",
                remedy: .addRemote)
        case 1: return config.remotes[0]
        default:
            let names = config.remotes.map(\.name)
            throw AISyncError(
                .usage, "this store has \(names.count) remotes; say which one",
                hint: "One of: \(names.joined(separator: ", "))",
                remedy: .chooseRemote(names))
        }
    }
}
