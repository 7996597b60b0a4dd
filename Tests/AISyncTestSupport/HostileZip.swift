import Foundation

/// Zip archives written byte by byte, so a test can name an entry anything (`../x`, `/x`,
/// `C:\x`, a NUL byte) that a well-behaved zip tool refuses to write.
package enum HostileZip {
    /// A zip of stored entries, each named by raw bytes, in order.
    package static func stored(_ entries: [(name: [UInt8], bytes: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for (name, bytes) in entries {
            let offset = UInt32(out.count)
            var common: [UInt8] = []
            common += le16(20) + le16(0) + le16(0) + le16(0) + le16(0x21)  // version, flags, stored, time, date
            common += le32(crc32(bytes)) + le32(UInt32(bytes.count)) + le32(UInt32(bytes.count))
            common += le16(UInt16(name.count)) + le16(0)
            out += le32(0x0403_4B50) + common + name + bytes
            central +=
                le32(0x0201_4B50) + le16(20) + common + le16(0) + le16(0) + le16(0) + le32(0) + le32(offset)
                + name
        }
        let start = UInt32(out.count)
        out += central
        out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(UInt16(entries.count)) + le16(UInt16(entries.count))
        out += le32(UInt32(central.count)) + le32(start) + le16(0)
        return out
    }

    /// `stored` with UTF-8 names, written to `path`.
    package static func write(_ entries: [(name: String, bytes: [UInt8])], to path: String) throws {
        try Data(stored(entries.map { (Array($0.name.utf8), $0.bytes) })).write(to: URL(fileURLWithPath: path))
    }

    private static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private static func le32(_ v: UInt32) -> [UInt8] { le16(UInt16(v & 0xFFFF)) + le16(UInt16(v >> 16)) }

    /// CRC-32 as zip uses it (bit by bit: test archives are tiny).
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return c ^ 0xFFFF_FFFF
    }
}
