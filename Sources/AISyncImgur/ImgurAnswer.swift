import AISyncCore
import AISyncHTTP
import Foundation

/// Reads what Imgur sent back, whatever its shape, into what the client needs to decide:
/// the parsed JSON (if it is JSON), Imgur's own message, and whether it is the over-capacity page.
///
/// Imgur's error bodies come in several shapes, all seen from the live service:
/// - `{"data":{"error":"Imgur is temporarily over capacity. Please try again later."},"success":false,"status":403}`
///   (`data.error` a string; also with `request` and `method` beside it);
/// - `{"data":{"error":{"code":1003,"message":"File type invalid (1)","type":"ImgurException","exception":[]},
///   "request":"/3/image","method":"POST"},"success":false,"status":400}` (`data.error` an object);
/// - `{"errors":[{"id":"legacy-api-…","code":"429","status":"Too Many Requests","detail":"Too Many Requests"}]}`
///   (the newer shape, no `data`);
/// - an empty body, or an HTML page from the CDN ("503 client read error") or the
///   "Imgur is over capacity!" page.
struct ImgurAnswer {
    var json: JSONValue?
    /// Imgur's message, cleaned for a one-line error (no control characters, at most 200
    /// characters, secrets replaced by •••); nil when the body says nothing usable.
    var message: String?
    var isHTML: Bool
    /// The body says Imgur is over capacity (retry later).
    var isOverCapacity: Bool

    init(_ body: [UInt8], secrets: [String]) {
        let parsed = try? JSONParser.parse(body)
        json = parsed
        let text = String(decoding: body.prefix(65536), as: UTF8.self)
        let head = text.drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }.prefix(64).lowercased()
        isHTML =
            parsed == nil
            && (head.hasPrefix("<!doctype html") || head.hasPrefix("<html") || head.hasPrefix("<?xml")
                || head.hasPrefix("<head"))
        var raw: String?
        if let parsed {
            raw = Self.message(in: parsed)
        } else if isHTML {
            raw = Self.htmlTitle(text)
        }
        message = raw.flatMap { Self.clean($0, secrets: secrets) }
        if let m = raw?.lowercased(), m.contains("over capacity") || m.contains("overloaded") {
            isOverCapacity = true
        } else if isHTML {
            let lower = text.lowercased()
            isOverCapacity = lower.contains("over capacity") || lower.contains("overloaded")
        } else {
            isOverCapacity = false
        }
    }

    /// Imgur's message from any of its JSON error shapes.
    static func message(in json: JSONValue) -> String? {
        if let data = json["data"] {
            if let s = data["error"]?.stringValue { return s }
            if let e = data["error"]?.objectValue {
                let text = e["message"]?.stringValue
                let code = e["code"]?.intValue ?? e["code"]?.stringValue.flatMap { Int64($0) }
                switch (text, code) {
                case (let t?, let c?): return "\(t) (code \(c))"
                case (let t?, nil): return t
                case (nil, let c?): return "error code \(c)"
                default: break
                }
            }
        }
        if let errors = json["errors"]?.arrayValue {
            let texts = errors.prefix(3).compactMap { e -> String? in
                e["detail"]?.stringValue ?? e["title"]?.stringValue ?? e["message"]?.stringValue ?? e["status"]?
                    .stringValue ?? e["code"]?.stringValue
            }
            if !texts.isEmpty { return texts.joined(separator: "; ") }
        }
        if let s = json["error"]?.stringValue { return s }
        if let s = json["error"]?["message"]?.stringValue { return s }
        return nil
    }

    /// The `<title>` of an HTML page, if it has one (ASCII case-insensitive byte search, so
    /// non-ASCII text elsewhere cannot shift the offsets).
    static func htmlTitle(_ html: String) -> String? {
        let bytes = Array(html.utf8)
        func find(_ needle: String, from start: Int) -> Int? {
            let n = Array(needle.utf8)
            guard n.count <= bytes.count else { return nil }
            var i = start
            while i + n.count <= bytes.count {
                var match = true
                for j in 0..<n.count {
                    let b = bytes[i + j]
                    let lower = (b >= 65 && b <= 90) ? b + 32 : b
                    if lower != n[j] {
                        match = false
                        break
                    }
                }
                if match { return i }
                i += 1
            }
            return nil
        }
        guard let open = find("<title", from: 0), let close = bytes[open...].firstIndex(of: UInt8(ascii: ">")),
            let end = find("</title", from: close + 1)
        else { return nil }
        return String(decoding: bytes[(close + 1)..<end], as: UTF8.self)
    }

    /// One clean line: control characters become spaces, runs of spaces collapse, at most 200
    /// characters, and any secret is replaced by •••.
    static func clean(_ text: String, secrets: [String]) -> String? {
        var s = text
        for secret in secrets where secret.count >= 4 {
            s = s.replacingOccurrences(of: secret, with: "•••")
        }
        var out = ""
        var lastWasSpace = true
        for scalar in s.unicodeScalars {
            // Controls, C1 controls and bidi overrides (which could disguise a message) become spaces.
            let v = scalar.value
            let isSpace =
                v < 0x20 || v == 0x7F || scalar == " " || (0x80...0x9F).contains(v) || (0x202A...0x202E).contains(v)
                || (0x2066...0x2069).contains(v)
            if isSpace {
                if !lastWasSpace { out.unicodeScalars.append(" ") }
                lastWasSpace = true
            } else {
                out.unicodeScalars.append(scalar)
                lastWasSpace = false
            }
            if out.unicodeScalars.count >= 200 {
                out += "…"
                break
            }
        }
        while out.hasSuffix(" ") { out.removeLast() }
        return out.isEmpty ? nil : out
    }
}
