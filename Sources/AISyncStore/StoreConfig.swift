import AISyncCore

/// `config.json`: who this device is and which remotes it knows. Never holds secrets.
public struct StoreConfig: Hashable, Sendable {
    /// The newest store format this build understands. Format 2 is records v2 (versions
    /// carry operations); a format 1 store is migrated when it is first opened.
    public static let currentFormat: Int64 = 2

    /// A remote this store syncs with (`aisync remote add`).
    public struct Remote: Hashable, Sendable {
        /// The name commands use (`aisync push NAME`): 1-32 lowercase letters, digits, `-`, `_`;
        /// also the name of its checkpoint file in `sync/`.
        public var name: String
        /// The remote's URL as given: `https://…`, `http://…` or `file:///path`; never with credentials.
        public var url: String
        /// `webdav`, `http` (plain, cannot list) or `folder`.
        public var type: String
        /// Plain `http://` allowed to a host that is not loopback (`--insecure`).
        public var insecure: Bool
        /// Everything on the remote is encrypted (`--encrypt`, or found so): once set, this
        /// store never sends it plaintext, whatever the server's files say.
        public var encrypted: Bool
        /// For `s3` remotes: the provider's endpoint URL (nil: AWS, from the region).
        public var endpoint: String?
        /// For `s3` remotes: the region requests are signed for (nil: from the AWS
        /// environment or profile, else `us-east-1`).
        public var region: String?
        /// For `s3` remotes: `path` or `virtual` addressing when one was asked for (nil: chosen
        /// from the endpoint).
        public var addressing: String?
        /// For `https://` remotes: certificates trusted beside the system's (PEM text, copied in
        /// from the file given), e.g. a home server's private CA. Public, never a secret.
        public var certificates: String?
        /// For `https://` remotes: pinned server keys (`sha256//BASE64` of the key's DER
        /// SubjectPublicKeyInfo); when there are any, the server's key must be one of them.
        public var pins: [String]

        /// How many certificates ``certificates`` holds (0 for none).
        public var certificateCount: Int {
            certificates.map { $0.components(separatedBy: "-----BEGIN CERTIFICATE-----").count - 1 } ?? 0
        }

        /// True when the remote trusts more than the system's certificates, or pins a key.
        public var hasOwnTrust: Bool { certificates != nil || !pins.isEmpty }

        /// A remote entry; nothing is validated here (``RemoteLocation`` checks the URL).
        public init(
            name: String, url: String, type: String, insecure: Bool = false, encrypted: Bool = false,
            endpoint: String? = nil, region: String? = nil, addressing: String? = nil, certificates: String? = nil,
            pins: [String] = []
        ) {
            self.certificates = certificates
            self.pins = pins
            self.name = name
            self.url = url
            self.type = type
            self.insecure = insecure
            self.encrypted = encrypted
            self.endpoint = endpoint
            self.region = region
            self.addressing = addressing
        }

        /// A remote entry as `config.json` at `path` holds it.
        init(json item: JSONValue, path: String) throws(AISyncError) {
            var x = try JSONObjectReader(item, context: "\(path) remote")
            self.init(
                name: try x.string("name"), url: try x.string("url"), type: try x.string("type"),
                insecure: x.optionalValue("insecure")?.boolValue ?? false,
                encrypted: x.optionalValue("encrypted")?.boolValue ?? false, endpoint: try x.optionalString("endpoint"),
                region: try x.optionalString("region"), addressing: try x.optionalString("addressing"),
                certificates: try x.optionalString("certificates"),
                pins: try (x.optionalValue("pins")?.arrayValue ?? []).map { (pin) throws(AISyncError) in
                    guard let text = pin.stringValue else {
                        throw AISyncError.damaged("\(path): a remote's pin is not text")
                    }
                    return text
                })
            try x.finish()
        }

        var json: JSONValue {
            var o: JSONObject = ["name": .string(name), "url": .string(url), "type": .string(type)]
            if insecure { o["insecure"] = .bool(true) }
            if encrypted { o["encrypted"] = .bool(true) }
            if let endpoint { o["endpoint"] = .string(endpoint) }
            if let region { o["region"] = .string(region) }
            if let addressing { o["addressing"] = .string(addressing) }
            if let certificates { o["certificates"] = .string(certificates) }
            if !pins.isEmpty { o["pins"] = .array(pins.map(JSONValue.string)) }
            return .object(o)
        }
    }

    /// Where image bytes go (docs/DESIGN.md §7), chosen with `aisync imgur enable --images`.
    public enum ImagePlacement: String, Sendable, CaseIterable {
        /// On Imgur as a shareable copy, the original on the remote too (the default).
        case imgur
        /// On the WebDAV/HTTP/folder remote only (Imgur off).
        case remote
        /// On both (the same as `imgur` since originals always stay on the remote; kept so
        /// existing configs read as before).
        case both
    }

    /// `imgur enable` settings; the credential is never here (environment only).
    public struct ImgurSettings: Hashable, Sendable {
        /// Whether a push uploads images to Imgur (`imgur enable` / `imgur disable`).
        public var enabled: Bool
        /// Replaces https://api.imgur.com (tests, proxies); AISYNC_IMGUR_API overrides it.
        public var api: String?
        /// Where image bytes are kept (`--images`).
        public var images: ImagePlacement
        /// The user agreed that pictures go to Imgur, where anyone with the link sees them,
        /// even though a remote is encrypted (`--public-images`).
        public var publicImages: Bool

        /// Settings as `aisync imgur enable` writes them; `api` nil means the official API.
        public init(enabled: Bool, api: String? = nil, images: ImagePlacement = .imgur, publicImages: Bool = false) {
            self.enabled = enabled
            self.api = api
            self.images = images
            self.publicImages = publicImages
        }

        var json: JSONValue {
            var o: JSONObject = ["enabled": .bool(enabled), "images": .string(images.rawValue)]
            o.setIfPresent("api", api.map(JSONValue.string))
            if publicImages { o["publicImages"] = .bool(true) }
            return .object(o)
        }
    }

    /// The store's format (see ``currentFormat``); a newer one than this build knows is refused.
    public var format: Int64
    /// This device's random 128-bit id, which stamps every version it writes.
    public var deviceID: DeviceID
    /// A human name for this device (`--name`, else the host name), shown by `log` and `conflicts`.
    public var deviceName: String
    /// When the store was created.
    public var created: Timestamp
    /// The remotes this store knows, in the order they were added.
    public var remotes: [Remote]
    /// Imgur settings; nil when `aisync imgur enable` was never run.
    public var imgur: ImgurSettings?

    var json: JSONValue {
        var o: JSONObject = [
            "format": .int(format),
            "device": .object(["id": .string(deviceID.rawValue), "name": .string(deviceName)]),
            "created": .string(created.iso8601),
            "remotes": .array(remotes.map(\.json)),
        ]
        o.setIfPresent("imgur", imgur?.json)
        return .object(o)
    }

    init(
        format: Int64 = currentFormat, deviceID: DeviceID, deviceName: String, created: Timestamp,
        remotes: [Remote] = []
    ) {
        self.format = format
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.created = created
        self.remotes = remotes
    }

    init(bytes: [UInt8], path: String) throws(AISyncError) {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            throw AISyncError(
                .damagedData, "\(path) is not valid JSON",
                hint: "Restore it from a backup, or move it away and create the store again",
                cause: error.description, remedy: .replaceStoreConfig)
        }
        // The format is checked before anything else, so a newer store gets "upgrade", not "damaged".
        if let format = value["format"]?.intValue, format > Self.currentFormat {
            throw AISyncError(
                .configuration,
                "\(path) is store format \(format), but this version understands only format \(Self.currentFormat)",
                hint: "Upgrade to a newer version to open this store", remedy: .upgrade)
        }
        do throws(AISyncError) {
            var r = try JSONObjectReader(value, context: path)
            format = try r.int("format")
            guard format >= 1 else { throw AISyncError.damaged("\(path): format must be ≥ 1") }
            var d = try JSONObjectReader(r.optionalValue("device") ?? .null, context: "\(path) device")
            let idText = try d.string("id")
            guard let id = DeviceID(idText) else {
                throw AISyncError.damaged("\(path): device id is not 32 lowercase hex characters")
            }
            deviceID = id
            deviceName = try d.string("name")
            try d.finish()
            created = try r.time("created")
            remotes = try r.array("remotes").map { (item) throws(AISyncError) in try Remote(json: item, path: path) }
            if let value = r.optionalValue("imgur") {
                var i = try JSONObjectReader(value, context: "\(path) imgur")
                let enabled = try i.bool("enabled")
                let api = try i.optionalString("api")
                let imagesText = try i.string("images")
                guard let images = ImagePlacement(rawValue: imagesText) else {
                    throw AISyncError.damaged("\(path): imgur images must be imgur, remote or both")
                }
                let publicImages = i.optionalValue("publicImages")?.boolValue ?? false
                imgur = ImgurSettings(enabled: enabled, api: api, images: images, publicImages: publicImages)
                try i.finish()
            } else {
                imgur = nil
            }
            try r.finish()
        } catch {
            throw AISyncError(.damagedData, error.message, hint: "Fix or restore \(path)")
        }
    }
}
