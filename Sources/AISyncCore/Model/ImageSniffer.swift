/// What the first bytes of a file say about it as an image.
///
/// Sniffing only looks at a bounded header, so it is cheap enough to run on every
/// file a sync pass touches; the result is a hint (type and, when the header states
/// it, pixel size), not a validation that the whole file decodes.
public struct ImageInfo: Equatable, Sendable {
    /// IANA media type: "image/png", "image/jpeg", "image/gif", "image/webp",
    /// "image/bmp", "image/tiff", "image/heic" or "image/avif".
    public var mediaType: String
    /// Pixel width when the header states it; nil when it is absent, beyond the
    /// bytes given, zero, or does not fit in `Int32`.
    public var width: Int?
    /// Pixel height, under the same rules as `width`.
    public var height: Int?

    /// Public so callers outside the module (and tests) can build expected values.
    public init(mediaType: String, width: Int? = nil, height: Int? = nil) {
        self.mediaType = mediaType
        self.width = width
        self.height = height
    }
}

/// Recognises common image formats from their leading bytes without decoding them.
///
/// Every read is bounds-checked against the bytes given, because headers come from
/// arbitrary (possibly truncated or hostile) files: malformed input yields `nil`, or
/// the media type without a size, and never a trap.
public enum ImageSniffer {
    /// How many leading bytes callers are expected to pass; enough for every size
    /// field handled here in ordinary files (JPEG's SOF can follow large EXIF/ICC
    /// segments, which is why this is not a few hundred bytes).
    public static let maxHeaderLength = 64 * 1024

    /// Looks at the leading bytes (callers pass at most the first 64 KiB of a file) and
    /// returns nil when they are not a known image format.
    ///
    /// A recognised signature followed by a missing or implausible size still returns
    /// the media type with nil `width`/`height`, since the type alone is useful.
    public static func sniff(_ header: [UInt8]) -> ImageInfo? {
        let bytes = HeaderBytes(header)
        if let info = sniffPNG(bytes) { return info }
        if let info = sniffJPEG(bytes) { return info }
        if let info = sniffGIF(bytes) { return info }
        if let info = sniffWebP(bytes) { return info }
        if let info = sniffBMP(bytes) { return info }
        if let info = sniffTIFF(bytes) { return info }
        if let info = sniffISOBMFF(bytes) { return info }
        return nil
    }
}

// MARK: - Bounds-checked reading

/// Read-only view over the header whose accessors return nil instead of trapping when
/// a read would leave the buffer, so format parsers can chain reads with `guard let`.
private struct HeaderBytes {
    let raw: [UInt8]
    init(_ raw: [UInt8]) { self.raw = raw }

    var count: Int { raw.count }

    /// True when `length` bytes starting at `offset` are all present. Written as
    /// `offset <= count - length` so huge offsets taken from file data cannot overflow.
    func has(_ offset: Int, _ length: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= raw.count - length
    }

    func u8(_ offset: Int) -> UInt8? {
        has(offset, 1) ? raw[offset] : nil
    }

    func u16be(_ offset: Int) -> Int? {
        guard has(offset, 2) else { return nil }
        return Int(raw[offset]) << 8 | Int(raw[offset + 1])
    }

    func u16le(_ offset: Int) -> Int? {
        guard has(offset, 2) else { return nil }
        return Int(raw[offset + 1]) << 8 | Int(raw[offset])
    }

    func u24le(_ offset: Int) -> Int? {
        guard has(offset, 3) else { return nil }
        return Int(raw[offset + 2]) << 16 | Int(raw[offset + 1]) << 8 | Int(raw[offset])
    }

    func u32be(_ offset: Int) -> Int? {
        guard has(offset, 4) else { return nil }
        return Int(raw[offset]) << 24 | Int(raw[offset + 1]) << 16
            | Int(raw[offset + 2]) << 8 | Int(raw[offset + 3])
    }

    func u32le(_ offset: Int) -> Int? {
        guard has(offset, 4) else { return nil }
        return Int(raw[offset + 3]) << 24 | Int(raw[offset + 2]) << 16
            | Int(raw[offset + 1]) << 8 | Int(raw[offset])
    }

    /// Signed little-endian 32-bit value, for BMP whose height sign means row order.
    func i32le(_ offset: Int) -> Int? {
        guard let value = u32le(offset) else { return nil }
        return Int(Int32(bitPattern: UInt32(value)))
    }

    func u16(_ offset: Int, bigEndian: Bool) -> Int? {
        bigEndian ? u16be(offset) : u16le(offset)
    }

    func u32(_ offset: Int, bigEndian: Bool) -> Int? {
        bigEndian ? u32be(offset) : u32le(offset)
    }

    /// True when the bytes at `offset` equal `expected`; false if any are missing.
    func matches(_ offset: Int, _ expected: [UInt8]) -> Bool {
        guard has(offset, expected.count) else { return false }
        for (index, byte) in expected.enumerated() where raw[offset + index] != byte {
            return false
        }
        return true
    }

    func matches(_ offset: Int, ascii: String) -> Bool {
        matches(offset, Array(ascii.utf8))
    }

    /// Four-character code at `offset` (box and chunk types), nil if truncated.
    func fourCC(_ offset: Int) -> [UInt8]? {
        has(offset, 4) ? Array(raw[offset..<offset + 4]) : nil
    }
}

// MARK: - Formats

extension ImageSniffer {
    /// Builds an `ImageInfo`, keeping the size only when both dimensions are usable:
    /// zero means "unknown/invalid" in these headers, and values past `Int32.max` are
    /// treated as hostile rather than passed on to callers that may allocate by them.
    private static func info(_ mediaType: String, _ width: Int?, _ height: Int?) -> ImageInfo {
        let valid = 1...Int(Int32.max)
        guard let width, let height, valid.contains(width), valid.contains(height) else {
            return ImageInfo(mediaType: mediaType)
        }
        return ImageInfo(mediaType: mediaType, width: width, height: height)
    }

    /// PNG: 8-byte signature, then the IHDR chunk must come first and holds
    /// big-endian width and height.
    private static func sniffPNG(_ b: HeaderBytes) -> ImageInfo? {
        guard b.matches(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
        guard b.matches(12, ascii: "IHDR") else { return info("image/png", nil, nil) }
        return info("image/png", b.u32be(16), b.u32be(20))
    }

    /// JPEG: SOI then a chain of marker segments; the frame size lives in the first
    /// SOFn segment, which may follow arbitrarily large APPn (EXIF, ICC) segments.
    private static func sniffJPEG(_ b: HeaderBytes) -> ImageInfo? {
        guard b.matches(0, [0xFF, 0xD8, 0xFF]) else { return nil }
        let type = "image/jpeg"
        var pos = 2
        while true {
            // Every segment starts with 0xFF; anything else means we lost sync.
            guard let lead = b.u8(pos), lead == 0xFF else { return info(type, nil, nil) }
            pos += 1
            // Any number of 0xFF fill bytes may precede the marker code.
            var marker: UInt8 = 0xFF
            while let next = b.u8(pos) {
                pos += 1
                if next != 0xFF {
                    marker = next
                    break
                }
            }
            if marker == 0xFF { return info(type, nil, nil) }  // ran out of bytes
            switch marker {
            case 0x01, 0xD0...0xD7:
                continue  // TEM and RSTn carry no length field
            case 0xD8, 0xD9, 0xDA:
                // A second SOI, EOI, or start of scan before any SOF: no size to find.
                return info(type, nil, nil)
            default:
                break
            }
            guard let length = b.u16be(pos), length >= 2 else { return info(type, nil, nil) }
            // SOF0...SOF15 share a layout; C4 (DHT), C8 (JPG) and CC (DAC) sit in that
            // range but are not frame headers.
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                // length(2) precision(1) height(2) width(2)
                return info(type, b.u16be(pos + 5), b.u16be(pos + 3))
            }
            pos += length
        }
    }

    /// GIF: "GIF87a"/"GIF89a" then the logical screen width and height, little-endian.
    private static func sniffGIF(_ b: HeaderBytes) -> ImageInfo? {
        guard b.matches(0, ascii: "GIF87a") || b.matches(0, ascii: "GIF89a") else { return nil }
        return info("image/gif", b.u16le(6), b.u16le(8))
    }

    /// WebP: a RIFF container of form "WEBP" whose first chunk is VP8 (lossy),
    /// VP8L (lossless) or VP8X (extended, carries the canvas size).
    private static func sniffWebP(_ b: HeaderBytes) -> ImageInfo? {
        guard b.matches(0, ascii: "RIFF"), b.matches(8, ascii: "WEBP") else { return nil }
        let type = "image/webp"
        let data = 20  // after the chunk FourCC (12) and chunk size (16)
        if b.matches(12, ascii: "VP8 ") {
            // Frame tag (3 bytes; bit 0 clear = key frame), start code 9D 01 2A,
            // then 14-bit width and height, each with 2 scaling bits on top.
            guard let tag = b.u8(data), tag & 1 == 0,
                b.matches(data + 3, [0x9D, 0x01, 0x2A]),
                let width = b.u16le(data + 6), let height = b.u16le(data + 8)
            else { return info(type, nil, nil) }
            return info(type, width & 0x3FFF, height & 0x3FFF)
        }
        if b.matches(12, ascii: "VP8L") {
            // Signature byte 0x2F, then 14 bits width-1 and 14 bits height-1, LSB first.
            guard b.u8(data) == 0x2F, let bits = b.u32le(data + 1) else { return info(type, nil, nil) }
            return info(type, (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        }
        if b.matches(12, ascii: "VP8X") {
            // Flags (1), reserved (3), then 24-bit canvas width-1 and height-1.
            guard let width = b.u24le(data + 4), let height = b.u24le(data + 7) else {
                return info(type, nil, nil)
            }
            return info(type, width + 1, height + 1)
        }
        return info(type, nil, nil)
    }

    /// BMP: "BM" file header, then a DIB header whose own size identifies its layout.
    /// "BM" alone is too weak a signature (plain text can start with it), so the DIB
    /// header size must be one of the known values before this counts as a BMP.
    private static func sniffBMP(_ b: HeaderBytes) -> ImageInfo? {
        guard b.matches(0, ascii: "BM"), let dibSize = b.u32le(14) else { return nil }
        let type = "image/bmp"
        switch dibSize {
        case 12:  // BITMAPCOREHEADER: unsigned 16-bit width and height
            return info(type, b.u16le(18), b.u16le(20))
        case 16, 40, 52, 56, 64, 108, 124:  // BITMAPINFOHEADER and its extensions
            guard let width = b.i32le(18), let height = b.i32le(22) else { return info(type, nil, nil) }
            // Negative height marks a top-down bitmap; the magnitude is the size.
            // Int32.min has no positive counterpart, so it is rejected as out of range.
            return info(type, width, height == Int(Int32.min) ? nil : abs(height))
        default:
            return nil
        }
    }

    /// TIFF: byte-order mark plus 42, then the offset of the first IFD. Width and
    /// height (tags 256/257) are read from that IFD when it lies within the header.
    private static func sniffTIFF(_ b: HeaderBytes) -> ImageInfo? {
        let bigEndian: Bool
        if b.matches(0, [0x49, 0x49, 0x2A, 0x00]) {
            bigEndian = false
        } else if b.matches(0, [0x4D, 0x4D, 0x00, 0x2A]) {
            bigEndian = true
        } else {
            return nil
        }
        let type = "image/tiff"
        guard let ifd = b.u32(4, bigEndian: bigEndian), ifd >= 8,
            let entryCount = b.u16(ifd, bigEndian: bigEndian)
        else { return info(type, nil, nil) }
        var width: Int?
        var height: Int?
        for index in 0..<entryCount {
            let entry = ifd + 2 + index * 12
            guard let tag = b.u16(entry, bigEndian: bigEndian),
                let fieldType = b.u16(entry + 2, bigEndian: bigEndian)
            else { break }
            guard tag == 256 || tag == 257 else { continue }
            // The value sits left-justified in the 4-byte value field: SHORT (3) or LONG (4).
            let value: Int?
            switch fieldType {
            case 3: value = b.u16(entry + 8, bigEndian: bigEndian)
            case 4: value = b.u32(entry + 8, bigEndian: bigEndian)
            default: value = nil
            }
            if tag == 256 { width = value } else { height = value }
            if width != nil, height != nil { break }
        }
        return info(type, width, height)
    }

    /// HEIC/AVIF: an ISO BMFF file whose leading `ftyp` box names a HEIF brand.
    /// AVIF brands win over the generic "mif1" because AVIF files list "mif1" too.
    /// The size is left nil: it lives in an `ispe` property that is only meaningful
    /// after resolving the primary item through `pitm`/`ipma`, and guessing from the
    /// first `ispe` could report a thumbnail's size.
    private static func sniffISOBMFF(_ b: HeaderBytes) -> ImageInfo? {
        guard b.matches(4, ascii: "ftyp"), let size32 = b.u32be(0) else { return nil }
        var boxEnd: Int
        var brandsStart = 16
        switch size32 {
        case 0:  // box extends to end of file
            boxEnd = b.count
        case 1:  // 64-bit largesize follows the type
            guard let high = b.u32be(8), let low = b.u32be(12) else { return nil }
            // Anything past 2^31 is absurd for an ftyp box; clamp to what we have.
            boxEnd = high == 0 && low <= Int(Int32.max) ? low : b.count
            brandsStart = 24
        default:
            // A real ftyp box holds at least its header and major brand + minor version.
            guard size32 >= 16 else { return nil }
            boxEnd = size32
        }
        boxEnd = min(boxEnd, b.count)
        guard let major = b.fourCC(brandsStart - 8) else { return nil }
        var brands = [major]
        var offset = brandsStart
        while offset + 4 <= boxEnd, let brand = b.fourCC(offset) {
            brands.append(brand)
            offset += 4
        }
        let avif: Set<[UInt8]> = [Array("avif".utf8), Array("avis".utf8)]
        let heic: Set<[UInt8]> = [Array("heic".utf8), Array("heix".utf8)]
        let heif: Set<[UInt8]> = [Array("mif1".utf8)]
        if avif.contains(major) { return info("image/avif", nil, nil) }
        if heic.contains(major) { return info("image/heic", nil, nil) }
        if brands.contains(where: avif.contains) { return info("image/avif", nil, nil) }
        if brands.contains(where: heic.contains) || brands.contains(where: heif.contains) {
            return info("image/heic", nil, nil)
        }
        return nil
    }
}
