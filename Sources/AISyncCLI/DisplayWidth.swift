/// How many terminal columns text takes, to shorten titles so a row fits its line. Wide
/// (East Asian, emoji) characters take two, combining marks and joiners none.
enum DisplayWidth {
    static func of(_ c: Character) -> Int {
        var width = 0
        for s in c.unicodeScalars {
            switch s.value {
            case 0x0300...0x036F, 0x200B...0x200F, 0xFE00...0xFE0F, 0x1F3FB...0x1F3FF, 0xE0100...0xE01EF: continue
            case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
                0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
                0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x3FFFD:
                return 2
            default: width = 1
            }
        }
        return width
    }

    static func of(_ text: String) -> Int { text.reduce(0) { $0 + of($1) } }

    /// `text` cut to `columns` with an ellipsis when it is longer.
    static func truncated(_ text: String, to columns: Int) -> String {
        guard of(text) > columns else { return text }
        var out = ""
        var used = 0
        for c in text {
            let w = of(c)
            if used + w > columns - 1 { break }
            out.append(c)
            used += w
        }
        return out + "…"
    }
}
