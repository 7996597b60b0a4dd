extension ImageSniffer {
    /// Whether an image of `mediaType` is whole, not only well begun: a file cut short (a
    /// download that stopped, an 8-byte signature) would sync as a picture nobody can open.
    /// `read(offset, count)` gives bytes of the file (fewer at its end), `size` its length.
    ///
    /// - Returns: nil when it is whole (or its type has no cheap check: TIFF, HEIC, AVIF),
    ///   else what is wrong, to finish "… is not a whole PNG: " and say which check failed.
    public static func incompleteness(mediaType: String, size: Int64, read: (Int64, Int) -> [UInt8]) -> String? {
        switch mediaType {
        case "image/png": return pngIncompleteness(size: size, read: read)
        case "image/jpeg": return jpegIncompleteness(size: size, read: read)
        case "image/gif": return gifIncompleteness(size: size, read: read)
        case "image/webp":
            let header = read(4, 4)
            guard header.count == 4 else { return "its RIFF header is cut short" }
            let riff = Int64(header[0]) | Int64(header[1]) << 8 | Int64(header[2]) << 16 | Int64(header[3]) << 24
            return riff + 8 <= size ? nil : "its RIFF header says \(riff + 8) bytes but the file has \(size)"
        case "image/bmp":
            let header = read(2, 4)
            guard header.count == 4 else { return "its header is cut short" }
            let declared = Int64(header[0]) | Int64(header[1]) << 8 | Int64(header[2]) << 16 | Int64(header[3]) << 24
            return declared <= size ? nil : "its header says \(declared) bytes but the file has \(size)"
        default:
            return nil
        }
    }

    /// PNG: chunks (length, type, data, CRC) from byte 8 until IEND, which must be there,
    /// with image data (IDAT) before it.
    private static func pngIncompleteness(size: Int64, read: (Int64, Int) -> [UInt8]) -> String? {
        var at: Int64 = 8
        var chunks = 0
        var data = false
        while at + 12 <= size {
            let head = read(at, 8)
            guard head.count == 8 else { break }
            let length = Int64(head[0]) << 24 | Int64(head[1]) << 16 | Int64(head[2]) << 8 | Int64(head[3])
            if head[4...7].elementsEqual(Array("IEND".utf8)) {
                return data ? nil : "it has no image data (no IDAT chunk before IEND)"
            }
            if head[4...7].elementsEqual(Array("IDAT".utf8)) { data = true }
            at += 12 + length
            chunks += 1
            guard chunks < 10_000_000 else { break }
        }
        return chunks == 0
            ? "it is only a PNG signature, with no image data" : "its chunks stop before IEND, so it was cut short"
    }

    /// JPEG: marker segments from the start up to the start of scan (FF DA), which must be
    /// there, then the end-of-image marker (FF D9) after it, at the end of the file.
    private static func jpegIncompleteness(size: Int64, read: (Int64, Int) -> [UInt8]) -> String? {
        var at: Int64 = 2
        var scan: Int64?
        var segments = 0
        while at + 2 <= size, segments < 100_000 {
            let head = read(at, 4)
            guard head.count >= 2, head[0] == 0xFF else { return "its marker segments are broken at byte \(at)" }
            if head[1] == 0xFF {
                at += 1
                continue
            }  // fill byte
            if head[1] == 0xD9 { return "it ends (FF D9) before any image data (no start-of-scan marker FF DA)" }
            if (0xD0...0xD7).contains(head[1]) || head[1] == 0x01 {
                at += 2
                continue
            }
            guard head.count == 4 else { break }
            let length = Int64(head[2]) << 8 | Int64(head[3])
            guard length >= 2 else { return "its marker segments are broken at byte \(at)" }
            if head[1] == 0xDA {
                scan = at + 2 + length
                break
            }
            at += 2 + length
            segments += 1
        }
        guard let scan else { return "it has no image data (no start-of-scan marker FF DA), so it was cut short" }
        let tail = read(max(scan, size - 1024), Int(min(1024, max(0, size - scan))))
        return tail.count >= 2 && (0..<(tail.count - 1)).contains { tail[$0] == 0xFF && tail[$0 + 1] == 0xD9 }
            ? nil : "it has no end-of-image marker (FF D9) after its image data, so it was cut short"
    }

    /// GIF: the blocks after the screen descriptor (extensions, images), at least one image,
    /// then the trailer (3B).
    private static func gifIncompleteness(size: Int64, read: (Int64, Int) -> [UInt8]) -> String? {
        let screen = read(10, 1)
        guard screen.count == 1, size > 13 else { return "its header is cut short" }
        var at: Int64 = 13 + (screen[0] & 0x80 != 0 ? 3 << (Int64(screen[0] & 7) + 1) : 0)
        var images = 0
        /// Skips data sub-blocks (a length byte, then that many bytes, until a 0).
        func skipSubBlocks() -> Bool {
            while at < size {
                guard let n = read(at, 1).first else { return false }
                at += 1 + Int64(n)
                if n == 0 { return true }
            }
            return false
        }
        for _ in 0..<1_000_000 {
            guard let block = read(at, 1).first else { break }
            switch block {
            case 0x3B: return images > 0 ? nil : "it has no image, only a trailer (3B)"
            case 0x21:
                at += 2
                guard skipSubBlocks() else { return "an extension block is cut short, with no GIF trailer (3B)" }
            case 0x2C:
                let descriptor = read(at, 10)
                guard descriptor.count == 10 else { return "an image is cut short, with no GIF trailer (3B)" }
                at += 10 + (descriptor[9] & 0x80 != 0 ? 3 << (Int64(descriptor[9] & 7) + 1) : 0) + 1
                guard skipSubBlocks() else { return "an image is cut short, with no GIF trailer (3B)" }
                images += 1
            default:
                return "it has an unknown block (\(String(block, radix: 16))) at byte \(at)"
            }
        }
        return "it has no GIF trailer (3B), so it was cut short"
    }
}
