import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncTesting

/// Real files produced by Pillow 13 (`Image.new(...).save(...)`, mostly checkerboards so the
/// encoders do real work), embedded as hex so the tests need nothing at run time.
/// Each one was decoded back by Pillow to confirm it is a valid image of that size.
private enum SnifferFixture {
    static let png1x1 = sniffHex(
        """
        89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c49444154789c63f8cfc000
        0003010100c9fe92ef0000000049454e44ae426082
        """)

    static let png = sniffHex(
        """
        89504e470d0a1a0a0000000d494844520000002500000013080600000017bdc4b30000003649444154789c636060f8ff
        ff845c54c360a21906da01d8e90177c068488d86d468480d1e7a34a446436a34a446436a34a4864b4801002d2823ccbc
        0e8de60000000049454e44ae426082
        """)

    static let jpeg = sniffHex(
        """
        ffd8ffe000104a46494600010100000100010000ffdb004300281c1e231e19282321232d2b28303c64413c37373c7b58
        5d4964918099968f808c8aa0b4e6c3a0aadaad8a8cc8ffcbdaeef5ffffff9bc1fffffffaffe6fdfff8ffdb0043012b2d
        2d3c353c76414176f8a58ca5f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8
        f8f8f8f8f8f8f8f8f8f8f8f8f8f8ffc0001108000b001703012200021101031101ffc400160001010100000000000000
        000000000000000103ffc4001a10010002030100000000000000000000000001f031415161ffc4001701000301000000
        0000000000000000000000010203ffc4001811000301010000000000000000000000000001021103ffda000c03010002
        110311003f00c82777a4eef588016337d09bc22ba2978cffd9
        """)

    static let jpegProgressive = sniffHex(
        """
        ffd8ffe000104a46494600010100000100010000ffdb004300281c1e231e19282321232d2b28303c64413c37373c7b58
        5d4964918099968f808c8aa0b4e6c3a0aadaad8a8cc8ffcbdaeef5ffffff9bc1fffffffaffe6fdfff8ffdb0043012b2d
        2d3c353c76414176f8a58ca5f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8f8
        f8f8f8f8f8f8f8f8f8f8f8f8f8f8ffc2001108001d001103012200021101031101ffc400160001010100000000000000
        000000000000000103ffc40017010101010100000000000000000000000000020103ffda000c03010002100310000001
        c074b0002367ffc40014100100000000000000000000000000000030ffda00080101000105024fffc400171100030100
        00000000000000000000000000011011ffda0008010301013f01ba8fffc4001611000300000000000000000000000000
        00001011ffda0008010201013f0170ffc40014100100000000000000000000000000000030ffda0008010100063f024f
        ffc40017100003010000000000000000000000000000113061ffda0008010100013f219bc3ffda000c03010002000300
        000010fbefb3ffc40014110100000000000000000000000000000020ffda0008010301013f1017ffc400161100030000
        000000000000000000000000001011ffda0008010201013f10767fffc4001d1001000201050100000000000000000000
        f000e11101415161a1d1ffda0008010100013f10142b1d795050ac75e54142b1d79534d9c4d36713034f93ffd9
        """)

    static let gif87 = sniffHex(
        """
        4749463837610d0007008000000000000000002c000000000d0007000008110001081c48b0a0c18308132a5cc8b06140
        003b
        """)

    static let gif = sniffHex(
        """
        47494638396105000900810000000000cc0066cc336600000021f90401000000002c0000000005000900000816000108
        10082000c181030d2224a8f02043870b1b0604003b
        """)

    static let webpLossy = sniffHex(
        """
        52494646a800000057454250565038209c000000b004009d012a1d000f003f71a2c859b4ac2823b00802902e094770e4
        fae7ebc0bfffe640005dadcfffe60044380000fee8dba37326eb82575accadc5d1bd6e2e66dcbb7d4ae5dbe00d5fc313
        bd3d4b4bfab49a45e5e9f36b0fb96775c77621cb6efec53733b894793ecdcb6e5a3cc8c20aed647c6aaacce1134cf2f3
        6b0b84b4a81392f4cc06c477c5d3301b165ddf7015bebc90e0186bf1731d0000
        """)

    static let webpLossless = sniffHex(
        """
        5249464632000000574542505650384c260000002f1e0004000ff0848a27fc3e216afe030f04d9363ef7a9e4542f10d1
        7f82499a6a3ba61a5c6f
        """)

    static let webpExtended = sniffHex(
        """
        52494646fe00000057454250565038580a00000010000000200000140000414c50481d000000010f700eb2888840906d
        b3434e72ac0788e83fc1244db51d5385eade0f0056503820ba0000007008009d012a210015003f71accb5eb4ad28a52a
        b80a02902e09633b87a037fff3fdbfefbf3c07fffe600fffffffc2b00207fd400fd00d9c0ee05ffffafff90005b18b71
        0329b5fdce63f46000fee8dba4c29b4958c0829514ffb9acb05bf29b652fff74023ff01e20eafc7057408a5453fee7fd
        d0f5a07febf23cd133de47929ba3b02e8ec0ba3b02efd8f6532827ce18b7cbf185ea35c5ac7ff59d196df5315944a659
        6d51ca65fc94e843fbc26a7f430bc4e858a95f402000
        """)

    static let bmp = sniffHex(
        """
        424d7e0000000000000036000000280000000700000003000000010018000000000048000000c40e0000c40e00000000
        0000000000000302015a1ec80302015a1ec80302015a1ec80302010000005a1ec80302015a1ec80302015a1ec8030201
        5a1ec80000000302015a1ec80302015a1ec80302015a1ec8030201000000
        """)

    static let tiffLE = sniffHex(
        """
        49492a00080000000a000001040001000000030000000101040001000000020000000201030003000000860000000301
        0300010000000100000006010300010000000200000011010400010000008c0000001501030001000000030000001601
        040001000000020000001701040001000000120000001c010300010000000100000000000000080008000800010203c8
        1e5a010203c81e5a010203c81e5a
        """)

    static let avif = sniffHex(
        """
        00000020667479706176696600000000617669666d6966316d6961664d413142000000eb6d6574610000000000000021
        68646c72000000000000000070696374000000000000000000000000000000000e7069746d0000000000010000001e69
        6c6f63000000004400000100010000000100000113000000270000002869696e660000000000010000001a696e666502
        0000000001000061763031436f6c6f72000000006a697072700000004b6970636f000000146973706500000000000000
        0800000006000000107069786900000000030808080000000c6176314381000c0000000013636f6c726e636c78000100
        0d0006800000001769706d610000000000000001000104010283040000002f6d64617412000a081808bd688086834232
        191ec7878559dfffffe2cb000090362148863969b7c8ec7a82c0
        """)
}

// MARK: - Byte helpers

/// Decodes a hex literal, ignoring whitespace so fixtures can wrap across lines.
private func sniffHex(_ text: String) -> [UInt8] {
    let digits = Array(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
    precondition(digits.count.isMultiple(of: 2), "odd hex length")
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    var index = 0
    while index < digits.count {
        guard let byte = UInt8(String(digits[index]) + String(digits[index + 1]), radix: 16) else {
            preconditionFailure("bad hex digit near \(index)")
        }
        bytes.append(byte)
        index += 2
    }
    return bytes
}

private func sniffASCII(_ text: String) -> [UInt8] { Array(text.utf8) }
private func sniffBE16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
private func sniffLE16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
private func sniffBE32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (24 - 8 * $0) & 0xFF) } }
private func sniffLE32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) } }

/// Copy of `bytes` with `patch` written at `offset`, for turning a real file into an edge case.
private func sniffPatched(_ bytes: [UInt8], at offset: Int, with patch: [UInt8]) -> [UInt8] {
    var copy = bytes
    copy.replaceSubrange(offset..<offset + patch.count, with: patch)
    return copy
}

/// Splits a well-formed JPEG (test fixtures only) into SOI, its marker segments up to
/// SOS, and the rest (SOS + entropy-coded data + EOI), so tests can reorder segments.
private func sniffJPEGSegments(_ jpeg: [UInt8]) -> (segments: [[UInt8]], scan: [UInt8]) {
    var segments: [[UInt8]] = []
    var pos = 2
    while jpeg[pos + 1] != 0xDA {
        let length = Int(jpeg[pos + 2]) << 8 | Int(jpeg[pos + 3])
        segments.append(Array(jpeg[pos..<pos + 2 + length]))
        pos += 2 + length
    }
    return (segments, Array(jpeg[pos...]))
}

/// Deterministic generator (SnifferRNG) so "random" inputs are the same on every run.
private struct SnifferRNG: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - SnifferCrafted variants

/// Edge cases built from the real fixtures or from the format specs, each exercising
/// one parser branch the encoders above do not produce.
private enum SnifferCrafted {
    /// The real 7x3 BMP rewritten as top-down (negative height), which is still valid.
    static let bmpTopDown = sniffPatched(SnifferFixture.bmp, at: 22, with: sniffLE32(UInt32(bitPattern: -3)))

    /// OS/2-style BMP with a 12-byte BITMAPCOREHEADER (16-bit dimensions), 258x2, 24 bpp.
    static let bmpCore: [UInt8] = {
        let width = 258
        let height = 2
        let rowBytes = (width * 3 + 3) / 4 * 4
        let pixels = [UInt8](repeating: 0x7F, count: rowBytes * height)
        let offset = 14 + 12
        var b = sniffASCII("BM") + sniffLE32(UInt32(offset + pixels.count)) + sniffLE32(0) + sniffLE32(UInt32(offset))
        b += sniffLE32(12) + sniffLE16(width) + sniffLE16(height) + sniffLE16(1) + sniffLE16(24)
        return b + pixels
    }()

    /// Big-endian ("MM") uncompressed 8-bit grayscale TIFF, 300x2, SHORT-typed tags.
    static let tiffBigEndian: [UInt8] = {
        let width = 300
        let height = 2
        let tags: [(tag: Int, value: Int)] = [
            (256, width), (257, height), (258, 8), (259, 1), (262, 1),
            (273, 0), (277, 1), (278, height), (279, width * height),
        ]
        let dataOffset = 8 + 2 + tags.count * 12 + 4
        var b = sniffASCII("MM") + sniffBE16(42) + sniffBE32(8) + sniffBE16(tags.count)
        for (tag, value) in tags {
            let v = tag == 273 ? dataOffset : value
            let type = v > 0xFFFF ? 4 : 3  // LONG only when it does not fit a SHORT
            b += sniffBE16(tag) + sniffBE16(type) + sniffBE32(1)
            b += type == 3 ? sniffBE16(v) + [0, 0] : sniffBE32(UInt32(v))
        }
        b += sniffBE32(0)  // no next IFD
        return b + [UInt8](repeating: 0x80, count: width * height)
    }()

    /// `ftyp` box (plus an empty `free` box) for ISO BMFF brand tests.
    static func ftyp(major: String, compatible: [String]) -> [UInt8] {
        let body = sniffASCII(major) + sniffBE32(0) + compatible.flatMap(sniffASCII)
        return sniffBE32(UInt32(8 + body.count)) + sniffASCII("ftyp") + body + sniffBE32(8) + sniffASCII("free")
    }

    /// The real baseline JPEG with its DHT segments moved ahead of SOF0, 0xFF fill
    /// bytes before a marker, and non-frame C8 (JPG) / CC (DAC) segments whose payload
    /// looks like a 9999x9999 frame header, so reading any of them as SOF gives a wrong size.
    static let jpegReordered: [UInt8] = {
        let (segments, scan) = sniffJPEGSegments(SnifferFixture.jpeg)
        let tables = segments.filter { $0[1] == 0xC4 }
        let others = segments.filter { $0[1] != 0xC4 && $0[1] != 0xC0 }
        let frame = segments.filter { $0[1] == 0xC0 }
        let decoy: (UInt8) -> [UInt8] = { [0xFF, $0] + sniffBE16(8) + [8] + sniffBE16(9999) + sniffBE16(9999) + [1] }
        var b: [UInt8] = [0xFF, 0xD8]
        b += others.flatMap { $0 } + tables.flatMap { $0 }
        b += decoy(0xC8) + decoy(0xCC)
        b += [0xFF, 0xFF, 0xFF] + frame.flatMap { $0 }.dropFirst()  // fill bytes, then C0
        return b + scan
    }()

    /// The real JPEG with a maximal APP15 segment in front, pushing SOF past 64 KiB.
    static let jpegLateFrame: [UInt8] = {
        let payload = [UInt8](repeating: 0x41, count: 65_533)
        return [0xFF, 0xD8, 0xFF, 0xEF] + sniffBE16(65_535) + payload + SnifferFixture.jpeg.dropFirst(2)
    }()

    /// VP8X canvas at its 24-bit maximum width (16,777,216), which still fits Int32.
    static let webpWideCanvas = sniffPatched(SnifferFixture.webpExtended, at: 24, with: [0xFF, 0xFF, 0xFF])
}

// MARK: - Table

/// One input and the exact answer expected for it.
struct ImageSniffCase: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let expected: ImageInfo?
    /// False when a prefix can legitimately yield a different media type (a brand list
    /// cut short hides the AVIF brand that would override the generic HEIF one).
    var prefixesAgree = true

    var testDescription: String { name }
}

private func sniffImage(_ type: String, _ width: Int? = nil, _ height: Int? = nil) -> ImageInfo {
    ImageInfo(mediaType: type, width: width, height: height)
}

private let snifferImageCases: [ImageSniffCase] = [
    ImageSniffCase(name: "PNG 1x1", bytes: SnifferFixture.png1x1, expected: sniffImage("image/png", 1, 1)),
    ImageSniffCase(name: "PNG RGBA 37x19", bytes: SnifferFixture.png, expected: sniffImage("image/png", 37, 19)),
    ImageSniffCase(name: "JPEG baseline 23x11", bytes: SnifferFixture.jpeg, expected: sniffImage("image/jpeg", 23, 11)),
    ImageSniffCase(
        name: "JPEG progressive (SOF2) 17x29", bytes: SnifferFixture.jpegProgressive,
        expected: sniffImage("image/jpeg", 17, 29)),
    ImageSniffCase(
        name: "JPEG DHT/JPG/DAC/fill before SOF", bytes: SnifferCrafted.jpegReordered,
        expected: sniffImage("image/jpeg", 23, 11)),
    ImageSniffCase(
        name: "JPEG with 64 KiB APP segment", bytes: SnifferCrafted.jpegLateFrame,
        expected: sniffImage("image/jpeg", 23, 11)),
    ImageSniffCase(name: "GIF87a 13x7", bytes: SnifferFixture.gif87, expected: sniffImage("image/gif", 13, 7)),
    ImageSniffCase(name: "GIF89a 5x9", bytes: SnifferFixture.gif, expected: sniffImage("image/gif", 5, 9)),
    ImageSniffCase(
        name: "WebP lossy VP8 29x15", bytes: SnifferFixture.webpLossy, expected: sniffImage("image/webp", 29, 15)),
    ImageSniffCase(
        name: "WebP lossless VP8L 31x17", bytes: SnifferFixture.webpLossless,
        expected: sniffImage("image/webp", 31, 17)),
    ImageSniffCase(
        name: "WebP extended VP8X 33x21", bytes: SnifferFixture.webpExtended,
        expected: sniffImage("image/webp", 33, 21)),
    ImageSniffCase(
        name: "WebP VP8X 24-bit max width", bytes: SnifferCrafted.webpWideCanvas,
        expected: sniffImage("image/webp", 16_777_216, 21)),
    ImageSniffCase(name: "BMP 7x3", bytes: SnifferFixture.bmp, expected: sniffImage("image/bmp", 7, 3)),
    ImageSniffCase(name: "BMP top-down 7x3", bytes: SnifferCrafted.bmpTopDown, expected: sniffImage("image/bmp", 7, 3)),
    ImageSniffCase(
        name: "BMP core header 258x2", bytes: SnifferCrafted.bmpCore, expected: sniffImage("image/bmp", 258, 2)),
    ImageSniffCase(
        name: "TIFF little-endian 3x2", bytes: SnifferFixture.tiffLE, expected: sniffImage("image/tiff", 3, 2)),
    ImageSniffCase(
        name: "TIFF big-endian 300x2", bytes: SnifferCrafted.tiffBigEndian,
        expected: sniffImage("image/tiff", 300, 2)),
    ImageSniffCase(name: "AVIF (Pillow)", bytes: SnifferFixture.avif, expected: sniffImage("image/avif")),
    ImageSniffCase(
        name: "HEIC major heic", bytes: SnifferCrafted.ftyp(major: "heic", compatible: ["mif1", "heic"]),
        expected: sniffImage("image/heic")),
    ImageSniffCase(
        name: "HEIC major heix", bytes: SnifferCrafted.ftyp(major: "heix", compatible: ["mif1"]),
        expected: sniffImage("image/heic")),
    ImageSniffCase(
        name: "HEIF mif1 only", bytes: SnifferCrafted.ftyp(major: "mif1", compatible: ["mif1", "miaf"]),
        expected: sniffImage("image/heic")),
    ImageSniffCase(
        name: "HEIC as compatible brand", bytes: SnifferCrafted.ftyp(major: "miaf", compatible: ["heic"]),
        expected: sniffImage("image/heic")),
    ImageSniffCase(
        name: "AVIF sequence avis", bytes: SnifferCrafted.ftyp(major: "avis", compatible: ["avif", "msf1"]),
        expected: sniffImage("image/avif")),
    ImageSniffCase(
        name: "AVIF behind mif1 major", bytes: SnifferCrafted.ftyp(major: "mif1", compatible: ["miaf", "avif"]),
        expected: sniffImage("image/avif"), prefixesAgree: false),
]

private let snifferNonImageCases: [ImageSniffCase] = [
    ImageSniffCase(name: "empty", bytes: [], expected: nil),
    ImageSniffCase(name: "one byte", bytes: [0xFF], expected: nil),
    ImageSniffCase(name: "plain text", bytes: sniffASCII("Hello, world!\nThis is not an image.\n"), expected: nil),
    ImageSniffCase(
        name: "text starting with BM", bytes: sniffASCII("BMW service record\n2024-01-02 oil change\n"),
        expected: nil),
    ImageSniffCase(
        name: "text starting with GIF", bytes: sniffASCII("GIF is pronounced with a hard g\n"), expected: nil),
    ImageSniffCase(
        name: "text starting with RIFF", bytes: sniffASCII("RIFF raff and other WEBP notes\n"), expected: nil),
    ImageSniffCase(name: "JSON", bytes: sniffASCII("{\"kind\": \"image/png\", \"width\": 1}"), expected: nil),
    ImageSniffCase(name: "PNG signature only as text", bytes: sniffASCII("PNG\r\n"), expected: nil),
    ImageSniffCase(
        name: "RIFF WAVE audio", bytes: sniffASCII("RIFF") + sniffLE32(36) + sniffASCII("WAVEfmt ") + sniffLE32(16),
        expected: nil),
    ImageSniffCase(
        name: "MP4 video ftyp", bytes: SnifferCrafted.ftyp(major: "isom", compatible: ["isom", "iso2", "mp41"]),
        expected: nil),
    ImageSniffCase(
        name: "BM with unknown DIB size", bytes: sniffPatched(SnifferFixture.bmp, at: 14, with: sniffLE32(41)),
        expected: nil),
    ImageSniffCase(
        name: "ftyp box too small", bytes: sniffBE32(8) + sniffASCII("ftypheic") + sniffBE32(0), expected: nil),
]

// MARK: - Tests

@Suite("ImageSniffer")
struct ImageSnifferTests {
    @Test("Recognises real images with exact size", arguments: snifferImageCases)
    func recognisesImage(_ sample: ImageSniffCase) {
        #expect(ImageSniffer.sniff(sample.bytes) == sample.expected)
    }

    @Test("Rejects non-images", arguments: snifferNonImageCases)
    func rejectsNonImage(_ sample: ImageSniffCase) {
        #expect(ImageSniffer.sniff(sample.bytes) == nil)
    }

    /// Every prefix of every fixture must be handled without trapping, and whatever it
    /// reports must be a subset of the truth: the right type, and either no size or the
    /// exact size (never a size read from the wrong place).
    @Test("Every prefix is safe and consistent", arguments: snifferImageCases)
    func prefixes(_ sample: ImageSniffCase) throws {
        let expected = try #require(sample.expected)
        for length in 0...sample.bytes.count {
            guard let info = ImageSniffer.sniff(Array(sample.bytes.prefix(length))) else { continue }
            if sample.prefixesAgree {
                #expect(info.mediaType == expected.mediaType, "prefix \(length)")
            }
            if info.width != nil || info.height != nil {
                #expect(info.width == expected.width && info.height == expected.height, "prefix \(length)")
            }
        }
    }

    /// Corrupting bytes of real files must never trap; the answer itself is unspecified.
    @Test("Random corruption of real files does not trap", arguments: snifferImageCases)
    func corruption(_ sample: ImageSniffCase) {
        var rng = SnifferRNG(state: UInt64(truncatingIfNeeded: sample.name.utf8.count) &* 7919)
        let limit = min(sample.bytes.count, 256)  // the headers that matter live up front
        for _ in 0..<300 {
            var bytes = sample.bytes
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                bytes[Int.random(in: 0..<limit, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            if let info = ImageSniffer.sniff(bytes) {
                #expect(info.width.map { $0 > 0 && $0 <= Int(Int32.max) } ?? true)
                #expect(info.height.map { $0 > 0 && $0 <= Int(Int32.max) } ?? true)
            }
        }
    }

    @Test("Random bytes are not images")
    func randomBytes() {
        var rng = SnifferRNG(state: 0xA15_1C)
        for length in [1, 3, 8, 16, 64, 1_024, 65_536] {
            for _ in 0..<20 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
                #expect(ImageSniffer.sniff(bytes) == nil, "length \(length)")
            }
        }
    }

    @Test("JPEG whose SOF lies beyond the bytes given reports type without size")
    func jpegFrameBeyondHeader() {
        let header = Array(SnifferCrafted.jpegLateFrame.prefix(ImageSniffer.maxHeaderLength))
        #expect(ImageSniffer.sniff(header) == sniffImage("image/jpeg"))
    }

    @Test("JPEG that reaches SOS before any SOF has no size")
    func jpegScanWithoutFrame() {
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDA] + sniffBE16(8) + [1, 1, 0, 0, 63, 0]
        #expect(ImageSniffer.sniff(bytes) == sniffImage("image/jpeg"))
    }

    @Test("Dimensions beyond Int32 are rejected, the type is kept")
    func overflowingSizes() {
        let pngMaxOK = sniffPatched(SnifferFixture.png1x1, at: 16, with: sniffBE32(0x7FFF_FFFF))
        #expect(ImageSniffer.sniff(pngMaxOK) == sniffImage("image/png", Int(Int32.max), 1))
        let pngTooWide = sniffPatched(SnifferFixture.png1x1, at: 16, with: sniffBE32(0x8000_0000))
        #expect(ImageSniffer.sniff(pngTooWide) == sniffImage("image/png"))
        let pngHuge = sniffPatched(SnifferFixture.png1x1, at: 16, with: sniffBE32(0xFFFF_FFFF) + sniffBE32(0xFFFF_FFFF))
        #expect(ImageSniffer.sniff(pngHuge) == sniffImage("image/png"))
        let bmpMinHeight = sniffPatched(SnifferFixture.bmp, at: 22, with: sniffLE32(0x8000_0000))
        #expect(ImageSniffer.sniff(bmpMinHeight) == sniffImage("image/bmp"))
        let bmpNegativeWidth = sniffPatched(SnifferFixture.bmp, at: 18, with: sniffLE32(UInt32(bitPattern: -7)))
        #expect(ImageSniffer.sniff(bmpNegativeWidth) == sniffImage("image/bmp"))
        // ImageWidth LONG value
        let tiffHuge = sniffPatched(SnifferFixture.tiffLE, at: 18, with: sniffLE32(0xFFFF_FFFF))
        #expect(ImageSniffer.sniff(tiffHuge) == sniffImage("image/tiff"))
    }

    @Test("Zero dimensions mean no size")
    func zeroSizes() {
        #expect(
            ImageSniffer.sniff(sniffPatched(SnifferFixture.gif, at: 6, with: sniffLE16(0))) == sniffImage("image/gif"))
        #expect(
            ImageSniffer.sniff(sniffPatched(SnifferFixture.png, at: 20, with: sniffBE32(0))) == sniffImage("image/png"))
    }

    @Test("Hostile offsets and lengths do not trap")
    func hostileOffsets() {
        // TIFF IFD offset far past the end, and near Int/UInt32 limits.
        for offset: UInt32 in [9, 0xFFFF, 0x7FFF_FFFF, 0xFFFF_FFFF] {
            #expect(ImageSniffer.sniff(sniffASCII("II*\0") + sniffLE32(offset)) == sniffImage("image/tiff"))
        }
        // TIFF IFD claiming 65,535 entries in a tiny header.
        #expect(ImageSniffer.sniff(sniffASCII("MM\0*") + sniffBE32(8) + sniffBE16(0xFFFF)) == sniffImage("image/tiff"))
        // JPEG segment lengths below the minimum and running off the end.
        #expect(ImageSniffer.sniff([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01]) == sniffImage("image/jpeg"))
        #expect(ImageSniffer.sniff([0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF, 0x00]) == sniffImage("image/jpeg"))
        // JPEG made only of fill bytes.
        #expect(ImageSniffer.sniff([0xFF, 0xD8] + [UInt8](repeating: 0xFF, count: 1_000)) == sniffImage("image/jpeg"))
        // ftyp with 64-bit and to-end-of-file sizes.
        let large =
            sniffBE32(1) + sniffASCII("ftyp") + sniffBE32(0xFFFF_FFFF) + sniffBE32(0xFFFF_FFFF) + sniffASCII("avif")
            + sniffBE32(0)
        #expect(ImageSniffer.sniff(large) == sniffImage("image/avif"))
        let toEnd = sniffBE32(0) + sniffASCII("ftyp") + sniffASCII("mif1") + sniffBE32(0) + sniffASCII("heic")
        #expect(ImageSniffer.sniff(toEnd) == sniffImage("image/heic"))
        // Unknown first WebP chunk.
        let riff = sniffASCII("RIFF") + sniffLE32(12) + sniffASCII("WEBP") + sniffASCII("ALPH") + sniffLE32(0)
        #expect(ImageSniffer.sniff(riff) == sniffImage("image/webp"))
    }

    @Test("Headers longer than 64 KiB still work")
    func longHeader() {
        let bytes = SnifferFixture.png + [UInt8](repeating: 0, count: 100_000)
        #expect(ImageSniffer.sniff(bytes) == sniffImage("image/png", 37, 19))
    }
}

@Suite("ImageSniffer.sniff(fileAt:)")
struct ImageSnifferFileTests {
    /// Fresh directory per test so parallel tests never share files.
    private func scratchDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("ImageSnifferTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("Reads an image file")
    func readsImage() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("a.webp")
        try Data(SnifferFixture.webpLossless).write(to: file)
        #expect(ImageSniffer.sniff(fileAt: file.path) == sniffImage("image/webp", 31, 17))
    }

    @Test("Only the first 64 KiB are examined")
    func readsOnlyHeader() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("late.jpg")
        try Data(SnifferCrafted.jpegLateFrame).write(to: file)
        #expect(SnifferCrafted.jpegLateFrame.count > ImageSniffer.maxHeaderLength)
        #expect(ImageSniffer.sniff(fileAt: file.path) == sniffImage("image/jpeg"))
    }

    @Test("Non-images, missing files and directories give nil")
    func nonImages() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = dir.appendingPathComponent("notes.txt")
        try Data("just some text\n".utf8).write(to: text)
        let empty = dir.appendingPathComponent("empty.png")
        try Data().write(to: empty)
        #expect(ImageSniffer.sniff(fileAt: text.path) == nil)
        #expect(ImageSniffer.sniff(fileAt: empty.path) == nil)
        #expect(ImageSniffer.sniff(fileAt: dir.appendingPathComponent("missing.png").path) == nil)
        #expect(ImageSniffer.sniff(fileAt: dir.path) == nil)
    }
}
