/// AWS Signature Version 4, as S3 and every S3-compatible store check it: the request's
/// method, path, query, chosen headers and payload hash are put in canonical form, hashed,
/// and signed with a key derived from the secret, the day, the region and the service.
///
/// The S3 flavour: the path is percent-encoded once and never normalized (`a//b` and `./`
/// are an object's name, not a path to tidy), and the payload's SHA-256 is sent in
/// `x-amz-content-sha256` and signed. Pure: the caller gives the time and sends the headers.
/// Checked against AWS's published examples and against botocore's signer on random requests
/// (SigV4Tests).
public enum SigV4 {
    /// An access key: its id, its secret, and a session token for temporary credentials.
    /// Its description never shows the secret or the token.
    public struct Credentials: Sendable, CustomStringConvertible {
        /// The access key id (`AKIA…`), which is not secret.
        public var accessKeyID: String
        /// The secret access key.
        public var secretAccessKey: String
        /// The session token of temporary credentials, sent as `x-amz-security-token`.
        public var sessionToken: String?

        /// An access key.
        public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
            self.accessKeyID = accessKeyID
            self.secretAccessKey = secretAccessKey
            self.sessionToken = sessionToken
        }

        /// `access key AKIA… (secret hidden)`.
        public var description: String {
            "access key \(accessKeyID) (secret hidden\(sessionToken == nil ? "" : ", with a session token"))"
        }
    }

    /// What is signed of a request.
    public struct Request: Sendable {
        /// `GET`, `PUT`, `HEAD`, `DELETE`, `POST`.
        public var method: String
        /// The path as the object's name has it, not yet percent-encoded (`/bucket/a b+c`).
        public var path: String
        /// The query's names and values, not yet percent-encoded, in any order.
        public var query: [(name: String, value: String)]
        /// The headers to sign, `host` among them (names in any case).
        public var headers: [(name: String, value: String)]
        /// The payload's SHA-256 as lowercase hex, or `UNSIGNED-PAYLOAD`.
        public var payloadHash: String

        /// A request to sign.
        public init(
            method: String, path: String, query: [(name: String, value: String)] = [],
            headers: [(name: String, value: String)], payloadHash: String
        ) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.payloadHash = payloadHash
        }
    }

    /// The SHA-256 of no bytes: the payload hash of a request without a body.
    public static let emptyPayloadHash = SHA256.hash([UInt8]()).hex

    /// The headers to add to `request` so that it is signed at `time` (milliseconds since
    /// 1970): `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token` with a session
    /// token, and `authorization`. Those added before `authorization` are signed too.
    public static func sign(
        _ request: Request, credentials: Credentials, region: String, service: String = "s3", time: Timestamp
    ) -> [(name: String, value: String)] {
        let amzDate = Self.amzDate(time)
        var added: [(name: String, value: String)] = [
            ("x-amz-date", amzDate), ("x-amz-content-sha256", request.payloadHash),
        ]
        if let token = credentials.sessionToken { added.append(("x-amz-security-token", token)) }
        var signed = request
        signed.headers += added
        let scope = "\(amzDate.prefix(8))/\(region)/\(service)/aws4_request"
        let (canonical, signedHeaders) = canonicalRequest(signed)
        let toSign = stringToSign(amzDate: amzDate, scope: scope, canonicalRequest: canonical)
        let key = signingKey(
            secret: credentials.secretAccessKey, date: String(amzDate.prefix(8)), region: region, service: service)
        let signature = Hex.encode(HMACSHA256.authenticate(Array(toSign.utf8), key: key))
        added.append(
            (
                "authorization",
                "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
            ))
        return added
    }

    /// `20130524T000000Z`: the time in UTC, to the second.
    public static func amzDate(_ time: Timestamp) -> String {
        // 2013-05-24T00:00:00.000Z -> 20130524T000000Z
        String(time.iso8601.prefix(19).filter { $0 != "-" && $0 != ":" }) + "Z"
    }

    /// The canonical request and its signed headers' names (`host;range;x-amz-date`).
    public static func canonicalRequest(_ request: Request) -> (text: String, signedHeaders: String) {
        // Headers: names lowercased, values trimmed with inner runs of spaces made one, the
        // values of a repeated name joined by commas in the order given; sorted by name.
        var byName: [String: [String]] = [:]
        var names: [String] = []
        for (name, value) in request.headers {
            let lower = name.lowercased()
            if byName[lower] == nil { names.append(lower) }
            byName[lower, default: []].append(
                value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " "))
        }
        names.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let headerLines = names.map { "\($0):\(byName[$0]!.joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        // Query: each name and value encoded, then sorted by name, then by value.
        let query = request.query.map { (encode($0.name, slash: true), encode($0.value, slash: true)) }
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }
            .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let path = request.path.isEmpty ? "/" : encode(request.path, slash: false)
        let text = [request.method, path, query, headerLines, signedHeaders, request.payloadHash]
            .joined(separator: "\n")
        return (text, signedHeaders)
    }

    /// What the signature is the HMAC of.
    public static func stringToSign(amzDate: String, scope: String, canonicalRequest: String) -> String {
        "AWS4-HMAC-SHA256\n\(amzDate)\n\(scope)\n" + SHA256.hash(Array(canonicalRequest.utf8)).hex
    }

    /// The key that signs one day's requests to one service in one region.
    public static func signingKey(secret: String, date: String, region: String, service: String) -> [UInt8] {
        var key = HMACSHA256.authenticate(Array(date.utf8), key: Array(("AWS4" + secret).utf8))
        for part in [region, service, "aws4_request"] { key = HMACSHA256.authenticate(Array(part.utf8), key: key) }
        return key
    }

    /// `text`'s UTF-8 percent-encoded as SigV4 wants: every byte but `A-Z a-z 0-9 - . _ ~`
    /// as `%XX` (uppercase), `/` kept unless `slash` (a path's separators stay; in a query
    /// they are encoded).
    public static func encode(_ text: String, slash: Bool) -> String {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where !slash:
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
