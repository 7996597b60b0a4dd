/// aisync's encrypted file format (version 1): how every file on an encrypted remote is stored.
///
/// ```
/// header  "aisyncE1" | salt (24 random bytes) | F (UInt64 LE: framed length)      40 bytes
/// chunks  ChaCha20-Poly1305 of 64 KiB pieces of the framed bytes, each + 16-byte tag
/// framed  binding length (UInt32 LE) | binding | L (UInt64 LE) | plaintext (L) | zeros to F
/// ```
///
/// - Each file has its own key, `HKDF(dataKey, salt, "aisync-e1 file")`, so random 192-bit
///   salts stand in for nonces that could collide; chunk nonces are a counter plus a
///   last-chunk flag (as in age's STREAM), so chunks cannot be reordered, dropped or cut off.
/// - The header is the associated data of every chunk: a changed length is found.
/// - The binding (remote id and path, inside the encryption) ties a file to its place: a
///   file moved by the server is told apart from a damaged one, and named.
/// - `F` is the framed length padded by Padmé (at most 12 % more), so sizes reveal only
///   about log log of the length. The stored size follows from `F` alone, so a cut-off file
///   is told apart from a changed one: its chunks authenticate up to where it ends.
public enum SealedFile {
    /// The first bytes of every sealed file.
    public static let magic: [UInt8] = Array("aisyncE1".utf8)
    /// Magic, salt and framed length.
    public static let headerBytes = 40
    /// Plaintext bytes per chunk.
    public static let chunkBytes = 64 << 10
    /// A chunk as stored: its bytes and tag.
    public static let sealedChunkBytes = chunkBytes + ChaChaPoly.tagBytes

    /// Where a file belongs: sealed into it and checked when it is opened.
    public struct Binding: Sendable, Equatable {
        /// The remote's id (`aisync.json`).
        public var remoteID: String
        /// The file's path on the remote, before object names are keyed.
        public var path: String
        /// A binding for `path` on remote `remoteID`.
        public init(remoteID: String, path: String) {
            self.remoteID = remoteID
            self.path = path
        }
        var bytes: [UInt8] { Array("\(remoteID)\n\(path)".utf8) }
        init?(bytes: [UInt8]) {
            guard let text = String(validating: bytes, as: UTF8.self), let cut = text.firstIndex(of: "\n") else {
                return nil
            }
            remoteID = String(text[..<cut])
            path = String(text[text.index(after: cut)...])
        }
    }

    /// Padmé (Nikitin et al., PETS 2019): rounds `n` up so only its top log log bits remain.
    public static func padme(_ n: Int64) -> Int64 {
        guard n > 2 else { return n }
        let e = Int64(63 - n.leadingZeroBitCount)
        let s = Int64(64 - e.leadingZeroBitCount)
        let mask: Int64 = (1 << (e - s)) - 1
        return (n + mask) & ~mask
    }

    static func framedLength(plainSize: Int64, binding: Binding) -> Int64 {
        padme(Int64(4 + binding.bytes.count + 8) + plainSize)
    }

    /// The stored size of a file of framed length `framed`.
    static func storedSize(framed: Int64) -> Int64 {
        let chunks = max(1, (framed + Int64(chunkBytes) - 1) / Int64(chunkBytes))
        return Int64(headerBytes) + framed + chunks * Int64(ChaChaPoly.tagBytes)
    }

    /// The size on the remote of `plainSize` bytes stored at `binding`.
    public static func storedSize(plainSize: Int64, binding: Binding) -> Int64 {
        storedSize(framed: framedLength(plainSize: plainSize, binding: binding))
    }

    /// Seals `plain` whole (heads, segments, small files).
    public static func seal(_ plain: [UInt8], dataKey: [UInt8], salt: [UInt8], binding: Binding) -> [UInt8] {
        var sealer = Sealer(dataKey: dataKey, salt: salt, binding: binding, plainSize: Int64(plain.count))
        var out = sealer.header
        out += sealer.add(plain)
        out += sealer.finish()
        return out
    }

    /// Opens a whole sealed file; throws `.damagedData`, `.tampered`, `.truncated` or
    /// `.misplaced` (named by `shown`) without giving out any unauthenticated byte.
    public static func open(_ sealed: [UInt8], dataKey: [UInt8], binding: Binding, shown: String) throws(AISyncError)
        -> [UInt8]
    {
        var opener = try Opener(
            header: Array(sealed.prefix(headerBytes)), storedSize: Int64(sealed.count), dataKey: dataKey,
            binding: binding, shown: shown)
        var out: [UInt8] = []
        var at = headerBytes
        while at < sealed.count {
            let end = min(sealed.count, at + sealedChunkBytes)
            out += try opener.open(Array(sealed[at..<end]))
            at = end
        }
        try opener.finish()
        return out
    }

    static func fileKey(dataKey: [UInt8], salt: [UInt8]) -> [UInt8] {
        HKDF.derive(secret: dataKey, salt: salt, info: Array("aisync-e1 file".utf8), length: 32)
    }

    static func nonce(_ index: UInt64, last: Bool) -> [UInt8] {
        var n = [UInt8](repeating: 0, count: 12)
        for i in 0..<8 { n[3 + i] = UInt8(truncatingIfNeeded: index >> (56 - 8 * UInt64(i))) }
        n[11] = last ? 1 : 0
        return n
    }

    static func littleEndian(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    static func readLittleEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}
