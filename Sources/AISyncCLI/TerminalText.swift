/// Text from records and remotes made safe to print on a terminal.
///
/// A title or message can hold escape sequences (colours, OSC 8 links, cursor moves, a clear
/// screen), and it syncs from every other device and every imported export: printed raw, it
/// would rewrite the user's terminal. Every control character but newline and tab is shown
/// visibly instead: C0 and DEL as `\x1b`, C1 and the bidirectional overrides (which reorder
/// what is shown) as `\u009b`. `--json` output is written exactly, never through this.
enum TerminalText {
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16)
            let shown =
                scalar.value < 0x80
                ? "\\x" + String(repeating: "0", count: 2 - hex.count) + hex
                : "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            out.append(contentsOf: shown.unicodeScalars)
        }
        return String(out)
    }

    static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x0A, 0x09: false
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }
}
