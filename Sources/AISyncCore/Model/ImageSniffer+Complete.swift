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
        case "image/jpeg":
            let tail = read(max(0, size - 1024), 1024)
            return tail.count >= 2 && (0..<(tail.count - 1)).contains { tail[$0] == 0xFF && tail[$0 + 1] == 0xD9 } && size > 4
                ? nil : "it has no end-of-image marker (FF D9), so it was cut short"
        case "image/gif":
            return read(max(0, size - 16), 16).contains(0x3B) && size > 13 ? nil : "it has no GIF trailer (3B), so it was cut short"
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

    /// PNG: chunks (length, type, data, CRC) from byte 8 until IEND, which must be there.
    private static func pngIncompleteness(size: Int64, read: (Int64, Int) -> [UInt8]) -> String? {
        var at: Int64 = 8
        var chunks = 0
        while at + 12 <= size {
            let head = read(at, 8)
            guard head.count == 8 else { break }
            let length = Int64(head[0]) << 24 | Int64(head[1]) << 16 | Int64(head[2]) << 8 | Int64(head[3])
            if head[4...7].elementsEqual(Array("IEND".utf8)) { return nil }
            at += 12 + length
            chunks += 1
            guard chunks < 10_000_000 else { break }
        }
        return chunks == 0 ? "it is only a PNG signature, with no image data" : "its chunks stop before IEND, so it was cut short"
    }
}
