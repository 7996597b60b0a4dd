/// Escaping for text placed in HTML and XHTML, shared by the picture book, the EPUB and the
/// `--all` index: every title, page and moral is untrusted text from an LLM or a user.
enum Markup {
    /// `text` safe inside an element or a double-quoted attribute of HTML or XML: `&`, `<`,
    /// `>`, `"` and `'` become character references, and control characters XML forbids are dropped.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                let v = scalar.value
                // C0/C1 controls and noncharacters are not allowed in XML and are parse errors in HTML.
                if v < 0x20 || (0x7F...0x9F).contains(v) || (0xFDD0...0xFDEF).contains(v) || v & 0xFFFE == 0xFFFE {
                    continue
                }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Text as paragraphs: blank lines split paragraphs, single line breaks become `<br/>`.
    static func paragraphs(_ text: String, className: String? = nil) -> String {
        let normalized = text.normalizingLineEndings()
        let attribute = className.map { " class=\"\($0)\"" } ?? ""
        return normalized.split(separator: "\n\n", omittingEmptySubsequences: true)
            .map { $0.trimmingNewlines() }
            .filter { !$0.isEmpty }
            .map {
                "<p\(attribute)>"
                    + $0.split(separator: "\n", omittingEmptySubsequences: false).map { escape(String($0)) }.joined(
                        separator: "<br/>") + "</p>"
            }
            .joined(separator: "\n")
    }
}

extension String {
    /// The text with `\r\n` and `\r` line endings turned into `\n`.
    func normalizingLineEndings() -> String {
        var out = ""
        var previousCR = false
        for scalar in unicodeScalars {
            if scalar == "\r" {
                out += "\n"
                previousCR = true
                continue
            }
            if scalar == "\n", previousCR {
                previousCR = false
                continue
            }
            previousCR = false
            out.unicodeScalars.append(scalar)
        }
        return out
    }

    /// The text without leading and trailing line feeds.
    func trimmingNewlines() -> String {
        guard let start = firstIndex(where: { $0 != "\n" }), let end = lastIndex(where: { $0 != "\n" }) else {
            return ""
        }
        return String(self[start...end])
    }
}

extension Substring {
    /// The text without leading and trailing line feeds.
    func trimmingNewlines() -> String { String(self).trimmingNewlines() }
}
