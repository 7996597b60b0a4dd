/// CRC-32 as zip, gzip and PNG use it (IEEE 802.3, reflected polynomial 0xEDB88320).
///
/// Every zip entry carries the CRC-32 of its bytes; readers such as epubcheck refuse an EPUB
/// whose checksums do not match. `CRC32.checksum(Array("123456789".utf8)) == 0xCBF43926`.
public struct CRC32: Sendable {
    /// The checksum of everything passed to ``update(_:)`` so far.
    public private(set) var value: UInt32 = 0

    /// A checksum of no bytes (0).
    public init() {}

    /// Adds `bytes` to the checksum.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        var crc = ~value
        for byte in bytes {
            crc = Self.table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        value = ~crc
    }

    /// The CRC-32 of `bytes` in one call.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// The byte-at-a-time table for the reflected polynomial.
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
}
