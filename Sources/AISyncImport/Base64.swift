/// Standard base64 (RFC 4648, `+/`, `=` padding optional, line breaks ignored), decoded
/// without Foundation so the bytes of a DALL·E answer need no `Data` round trip.
enum Base64 {
    /// The decoded bytes; nil when `text` holds anything outside the alphabet or a bad tail.
    static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count / 4 * 3)
        var buffer: UInt32 = 0
        var count = 0
        var padding = 0
        for c in text.utf8 {
            let v: UInt32
            switch c {
            case 65...90: v = UInt32(c - 65)
            case 97...122: v = UInt32(c - 71)
            case 48...57: v = UInt32(c + 4)
            case 43: v = 62
            case 47: v = 63
            case 61:
                padding += 1
                continue
            case 10, 13, 32: continue
            default: return nil
            }
            guard padding == 0 else { return nil }
            buffer = buffer << 6 | v
            count += 1
            if count == 4 {
                out += [UInt8(buffer >> 16 & 0xFF), UInt8(buffer >> 8 & 0xFF), UInt8(buffer & 0xFF)]
                buffer = 0
                count = 0
            }
        }
        switch count {
        case 0: break
        case 2: out.append(UInt8(buffer >> 4 & 0xFF))
        case 3: out += [UInt8(buffer >> 10 & 0xFF), UInt8(buffer >> 2 & 0xFF)]
        default: return nil
        }
        return padding <= 2 ? out : nil
    }
}
