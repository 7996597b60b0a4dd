import AISyncCore

/// Where an S3-compatible remote lives: `s3://BUCKET[/PREFIX]`, the endpoint that serves it,
/// the region that signs for it, and how objects are addressed.
///
/// AWS endpoints follow from the region (`https://s3.REGION.amazonaws.com`); any other
/// provider (R2, B2, Wasabi, MinIO, Ceph, SeaweedFS, Garage) gives its endpoint. Objects are
/// addressed path-style (`https://host/bucket/key`) when the endpoint is an IP address,
/// `localhost` or carries a port, or when the bucket's name cannot be a host name over TLS
/// (it holds a dot, an upper-case letter or `_`); virtual-hosted (`https://bucket.host/key`)
/// otherwise, as AWS wants. Either can be asked for.
public struct S3Location: Sendable, Equatable {
    /// How an object's URL names its bucket.
    public enum Addressing: String, Sendable {
        /// `https://host/bucket/key`.
        case path
        /// `https://bucket.host/key`.
        case virtualHosted = "virtual"
    }

    /// The bucket.
    public var bucket: String
    /// The folder inside the bucket that the remote uses, without slashes at either end
    /// (empty: the whole bucket).
    public var prefix: String
    /// `http` or `https`.
    public var scheme: String
    /// The endpoint's host and port (`s3.eu-west-3.amazonaws.com`, `127.0.0.1:8333`).
    public var endpointHost: String
    /// The region requests are signed for (`us-east-1` when nothing says otherwise).
    public var region: String
    /// How objects are addressed.
    public var addressing: Addressing

    /// Parses `s3://BUCKET[/PREFIX]`; `endpoint` is the provider's URL (nil: AWS, from the
    /// region); `addressing` nil chooses as described above.
    public init(url: String, endpoint: String?, region: String?, addressing: Addressing?) throws(AISyncError) {
        guard url.hasPrefix("s3://") else {
            throw AISyncError(
                .usage, "'\(url.prefix(100))' is not an S3 URL", hint: "Write s3://BUCKET or s3://BUCKET/FOLDER")
        }
        let rest = url.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" })
        try Self.validateBucket(bucket)
        self.bucket = bucket
        prefix = rest.dropFirst(bucket.count).split(separator: "/").joined(separator: "/")
        guard !prefix.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) else {
            throw AISyncError(.usage, "'\(url.prefix(100))' has a . or .. folder", hint: "Name the folder plainly")
        }
        self.region = region.flatMap { $0.isEmpty ? nil : $0 } ?? "us-east-1"
        if let endpoint {
            let (scheme, host) = try Self.parseEndpoint(endpoint)
            self.scheme = scheme
            endpointHost = host
        } else {
            scheme = "https"
            endpointHost = "s3.\(self.region).amazonaws.com"
        }
        self.addressing = addressing ?? Self.defaultAddressing(host: endpointHost, bucket: bucket, scheme: scheme)
    }

    /// `scheme` and `host[:port]` of an endpoint URL, which has no path, query or user.
    static func parseEndpoint(_ endpoint: String) throws(AISyncError) -> (String, String) {
        let scheme: String
        if endpoint.hasPrefix("https://") {
            scheme = "https"
        } else if endpoint.hasPrefix("http://") {
            scheme = "http"
        } else {
            throw AISyncError(
                .usage, "the endpoint '\(endpoint.prefix(100))' is not an http(s) URL",
                hint: "Give the provider's endpoint, like https://s3.example.com")
        }
        var host = String(endpoint.dropFirst(scheme.count + 3))
        if host.hasSuffix("/") { host.removeLast() }
        guard !host.isEmpty, !host.contains("/"), !host.contains("@"), !host.contains("?"), !host.contains("#"),
            !host.contains(" ")
        else {
            throw AISyncError(
                .usage, "the endpoint '\(endpoint.prefix(100))' must be a scheme and host only",
                hint: "Give the bucket in the s3:// URL, not in the endpoint")
        }
        return (scheme, host.lowercased())
    }

    /// Path-style for an IP address, `localhost` or a port, and for bucket names that cannot
    /// be a TLS host name; virtual-hosted otherwise.
    static func defaultAddressing(host: String, bucket: String, scheme: String) -> Addressing {
        let name = host.hasPrefix("[") ? host : String(host.prefix { $0 != ":" })
        let hasPort = host.hasPrefix("[") ? host.contains("]:") : host.contains(":")
        let isIP =
            host.hasPrefix("[") || name.split(separator: ".").count == 4 && name.allSatisfy { $0.isNumber || $0 == "." }
        if isIP || hasPort || name == "localhost" || name.hasSuffix(".localhost") { return .path }
        if bucket.contains(".") && scheme == "https" || bucket.contains(where: { $0.isUppercase || $0 == "_" }) {
            return .path
        }
        return .virtualHosted
    }

    /// Bucket names as S3 allows them: 3-63 characters of letters, digits, `.`, `-` and `_`,
    /// starting and ending with a letter or digit, no `..`, not an IP address.
    static func validateBucket(_ bucket: String) throws(AISyncError) {
        let allowed = bucket.utf8.allSatisfy { b in
            (b >= 97 && b <= 122) || (b >= 65 && b <= 90) || (b >= 48 && b <= 57) || b == 46 || b == 45 || b == 95
        }
        let ends = { (c: Character?) in c.map { $0.isLetter || $0.isNumber } ?? false }
        let isIP = bucket.split(separator: ".").count == 4 && bucket.allSatisfy { $0.isNumber || $0 == "." }
        guard (3...63).contains(bucket.utf8.count), allowed, ends(bucket.first), ends(bucket.last),
            !bucket.contains(".."), !isIP
        else {
            throw AISyncError(
                .usage, "'\(bucket.prefix(70))' is not a bucket name S3 allows",
                hint:
                    "Bucket names are 3-63 letters, digits, dots or hyphens, starting and ending with a letter or digit"
            )
        }
    }

    /// The host a request goes to (the `Host` header, which is signed).
    public var requestHost: String { addressing == .virtualHosted ? "\(bucket).\(endpointHost)" : endpointHost }

    /// The path of the object at `key` under the prefix, not percent-encoded (what is signed);
    /// `key` empty gives the bucket's own path (for listing).
    public func objectPath(_ key: String) -> String {
        let full = [prefix, key].filter { !$0.isEmpty }.joined(separator: "/")
        let bucketPart = addressing == .path ? "/\(bucket)" : ""
        return key.isEmpty ? bucketPart + "/" : bucketPart + "/" + full
    }

    /// The key of `name` under the prefix (`PREFIX/name`), as listings show it.
    public func key(_ name: String) -> String { prefix.isEmpty ? name : "\(prefix)/\(name)" }

    /// The URL of the object at `key` (empty: the bucket), percent-encoded as it is signed.
    public func url(_ key: String, query: [(name: String, value: String)] = []) -> String {
        let q = query.map { SigV4.encode($0.name, slash: true) + "=" + SigV4.encode($0.value, slash: true) }
        return "\(scheme)://\(requestHost)" + SigV4.encode(objectPath(key), slash: false)
            + (q.isEmpty ? "" : "?" + q.joined(separator: "&"))
    }
}
