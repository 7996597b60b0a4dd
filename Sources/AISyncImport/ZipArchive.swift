/// The entries of a zip archive held in memory (an app's data export), read through the
/// central directory. Entry names are untrusted and only ever compared, never used as paths,
/// so a `../../x` entry could reach nothing; still, an archive holding such a name was made to
/// attack whoever unpacks it, so ``unsafeName`` names the first one and importers refuse the
/// archive whole. Stored and DEFLATE entries are read, each checked against its CRC-32; ZIP64
/// archives (over 4 GB) are refused.
struct ZipArchive {
    /// One entry of the central directory.
    struct Entry {
        var name: String
        var method: Int
        var crc: UInt32
        var compressedSize: Int
        var size: Int
        var localHeader: Int
    }

    /// Why an archive or entry could not be read.
    struct Failure: Error, CustomStringConvertible {
        /// What was wrong, e.g. `no end of central directory`.
        var description: String
    }

    let bytes: [UInt8]
    /// The entries by name (the first wins when a name repeats).
    private(set) var entries: [String: Entry] = [:]
    /// Entry names in archive order.
    private(set) var names: [String] = []
    /// The first entry name that is absolute, climbs out with `..`, or holds a NUL byte (see
    /// ``isUnsafe(_:)``); nil when every name stays inside the archive.
    private(set) var unsafeName: String?

    init(bytes: [UInt8]) throws(Failure) {
        self.bytes = bytes
        guard let end = Self.endOfCentralDirectory(bytes) else {
            throw Failure(description: "no end of central directory: not a zip, or truncated")
        }
        let count = u16(end + 10)
        let offset = Int(u32(end + 16))
        guard offset != 0xFFFF_FFFF, count != 0xFFFF else {
            throw Failure(description: "ZIP64 archives are not supported")
        }
        var at = offset
        for _ in 0..<count {
            guard at + 46 <= bytes.count, u32(at) == 0x0201_4b50 else {
                throw Failure(description: "damaged central directory")
            }
            let nameLength = u16(at + 28)
            let extra = u16(at + 30)
            let comment = u16(at + 32)
            guard at + 46 + nameLength <= bytes.count else { throw Failure(description: "damaged central directory") }
            let name = String(decoding: bytes[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
            let entry = Entry(
                name: name, method: u16(at + 10), crc: u32(at + 16), compressedSize: Int(u32(at + 20)),
                size: Int(u32(at + 24)), localHeader: Int(u32(at + 42)))
            if unsafeName == nil, Self.isUnsafe(name) { unsafeName = name }
            if entries[name] == nil {
                entries[name] = entry
                names.append(name)
            }
            at += 46 + nameLength + extra + comment
        }
    }

    /// Whether an entry name would land outside the folder it is unpacked into: absolute
    /// (`/x`, `\x`, a Windows drive `C:\x`, `C:/x` or `C:x`), with a `..` component (split on
    /// `/` and `\`), or holding a NUL byte (which cuts the name short in C).
    static func isUnsafe(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first else { return false }
        if bytes.contains(0) || first == UInt8(ascii: "/") || first == UInt8(ascii: "\\") { return true }
        if bytes.count >= 2, bytes[1] == UInt8(ascii: ":"), (first | 0x20) >= 97, (first | 0x20) <= 122 { return true }
        return bytes.split(omittingEmptySubsequences: false) { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") }
            .contains { $0.elementsEqual("..".utf8) }
    }

    /// An untrusted entry name as one quoted line of at most 80 characters: control
    /// characters (newlines and escape sequences included) and bidirectional overrides are
    /// shown as `\x1b` or `\u202e`, so the name cannot break the line or drive a terminal.
    static func shown(_ name: String) -> String {
        var out = ""
        for scalar in name.unicodeScalars.prefix(80) {
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x200E, 0x200F, 0x061C, 0x202A...0x202E, 0x2066...0x2069:
                let hex = String(scalar.value, radix: 16)
                out +=
                    scalar.value < 0x80
                    ? "\\x" + String(repeating: "0", count: 2 - hex.count) + hex
                    : "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            case 0x22, 0x5C: out += "\\" + String(scalar)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return "\"" + out + (name.unicodeScalars.count > 80 ? "…" : "") + "\""
    }

    /// The end-of-central-directory record's offset, searched for from the end.
    static func endOfCentralDirectory(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 22 else { return nil }
        var at = bytes.count - 22
        let stop = max(0, bytes.count - 22 - 65_535)
        while at >= stop {
            if bytes[at] == 0x50, bytes[at + 1] == 0x4b, bytes[at + 2] == 5, bytes[at + 3] == 6 { return at }
            at -= 1
        }
        return nil
    }

    /// The entry's bytes, decompressed and checked; at most `limit` bytes.
    func read(_ name: String, limit: Int) throws(Failure) -> [UInt8] {
        guard let e = entries[name] else { throw Failure(description: "no entry \(name.prefix(80))") }
        guard e.localHeader + 30 <= bytes.count, u32(e.localHeader) == 0x0403_4b50 else {
            throw Failure(description: "damaged entry \(name.prefix(80))")
        }
        let start = e.localHeader + 30 + u16(e.localHeader + 26) + u16(e.localHeader + 28)
        guard start + e.compressedSize <= bytes.count else {
            throw Failure(description: "truncated entry \(name.prefix(80))")
        }
        guard e.size <= limit else {
            throw Failure(description: "entry \(name.prefix(80)) is larger than \(limit) bytes")
        }
        let data = Array(bytes[start..<(start + e.compressedSize)])
        let out: [UInt8]
        switch e.method {
        case 0: out = data
        case 8:
            do { out = try Inflate.decompress(data, limit: e.size) } catch {
                throw Failure(description: "entry \(name.prefix(80)): \(error)")
            }
        default:
            throw Failure(
                description: "entry \(name.prefix(80)) uses compression method \(e.method), not stored or deflate")
        }
        guard out.count == e.size, CRC32.checksum(out) == e.crc else {
            throw Failure(description: "entry \(name.prefix(80)) fails its CRC-32 check")
        }
        return out
    }

    private func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    private func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
}

/// CRC-32 (ISO-HDLC, as zip uses it), table-driven.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
