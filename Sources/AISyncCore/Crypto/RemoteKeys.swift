/// The keys of an encrypted remote, derived from its random 256-bit master key.
///
/// The master key never leaves a device unwrapped unless the user asks (`--remember`); the
/// remote holds it only wrapped by passphrases (``KeyFile``). Separate keys for contents and
/// names (HKDF with distinct labels), so neither use weakens the other.
public struct RemoteKeys: Sendable, Equatable {
    /// The remote these keys belong to (its `aisync.json` id), bound into every file.
    public let remoteID: String
    /// 32 random bytes: the root of every key.
    public let master: [UInt8]
    /// Seals file contents (``SealedFile``).
    public let dataKey: [UInt8]
    /// Names objects by keyed hash, so a server cannot confirm a known picture by its sha256.
    let nameKey: [UInt8]

    /// Keys from a master key (32 bytes).
    public init(remoteID: String, master: [UInt8]) {
        precondition(master.count == 32, "a master key is 32 bytes")
        self.remoteID = remoteID
        self.master = master
        dataKey = HKDF.derive(secret: master, salt: [], info: Array("aisync-e1 data".utf8), length: 32)
        nameKey = HKDF.derive(secret: master, salt: [], info: Array("aisync-e1 names".utf8), length: 32)
    }

    /// The keyed name of an object: HMAC-SHA-256 of its digest, as 64 hex characters.
    public func objectName(_ digest: SHA256Digest) -> String {
        Hex.encode(HMACSHA256.authenticate(Array(digest.hex.utf8), key: nameKey))
    }

    /// A key file line of text for `--remember` (`<remote id> <master hex>`).
    public var remembered: String { "\(remoteID) \(Hex.encode(master))\n" }

    /// Reads a remembered key; nil when the text is not one.
    public init?(remembered text: String) {
        let parts = text.split(whereSeparator: \.isWhitespace)
        guard parts.count == 2, DeviceID(String(parts[0])) != nil, let master = Hex.decode(String(parts[1]), count: 32)
        else { return nil }
        self.init(remoteID: String(parts[0]), master: master)
    }
}
