import AISyncCore

/// Parses a PROPFIND `207 Multi-Status` body (RFC 4918 §13) into hrefs and ETags.
///
/// A small XML reader of its own rather than FoundationXML: the answer is untrusted, and
/// libxml2 behind XMLParser crashed on two inputs fuzzing found (a non-UTF-8 element name,
/// a processing instruction without data); it also brought a library's worth of memory into
/// every sync for a document of a few elements, though a sync with nothing new has a tight
/// memory budget (docs/PERFORMANCE.md). This reader takes well-formed UTF-8 XML 1.0 — elements with
/// namespace prefixes, attributes, character and the five predefined entity references,
/// CDATA, comments, an XML declaration — and refuses anything else (a DOCTYPE, other
/// processing instructions, undefined entities, mismatched tags, unbound prefixes), as not
/// a multistatus. Elements count only in the `DAV:` namespace. Checked against Python's
/// ElementTree on random and damaged documents (`MultistatusReaderTests`).
enum WebDAVMultistatus {
    struct Response: Equatable {
        var href = ""
        var etag: String?
        var isCollection = false
    }

    /// The responses of a multistatus document; nil when `bytes` is not one.
    static func parse(_ bytes: [UInt8]) -> [Response]? {
        guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
        var reader = XMLReader(bytes, namespaces: ["DAV:"])
        var collector = Collector()
        guard reader.read(into: &collector), collector.sawMultistatus else { return nil }
        return collector.responses
    }

    /// What the reader reports, folded into responses: `DAV:` elements by local name.
    struct Collector: XMLCollector {
        var responses: [Response] = []
        var current: Response?
        var sawMultistatus = false

        mutating func start(_ name: ArraySlice<UInt8>?, depth: Int) {
            guard let name else { return }
            if depth == 0, name.elementsEqual("multistatus".utf8) { sawMultistatus = true }
            if name.elementsEqual("response".utf8) { current = Response() }
            if name.elementsEqual("collection".utf8) { current?.isCollection = true }
        }

        mutating func end(_ name: ArraySlice<UInt8>?, text: String) {
            guard let name else { return }
            if name.elementsEqual("href".utf8), current?.href.isEmpty == true { current?.href = text }
            if name.elementsEqual("getetag".utf8), !text.isEmpty { current?.etag = text }
            if name.elementsEqual("response".utf8) {
                if let c = current { responses.append(c) }
                current = nil
            }
        }
    }
}

/// What an ``XMLReader`` reports to: each element's start and end (with the text directly
/// inside it, whitespace trimmed), by local name when the element is in one of the reader's
/// namespaces, nil otherwise.
protocol XMLCollector {
    mutating func start(_ name: ArraySlice<UInt8>?, depth: Int)
    mutating func end(_ name: ArraySlice<UInt8>?, text: String)
}

/// A strict, non-validating reader of one XML document, reporting each element's start and
/// end (with the text directly inside it, whitespace trimmed) to an ``XMLCollector``: a
/// PROPFIND answer (`DAV:`), an S3 listing or error (S3's namespace, or none).
struct XMLReader {
    private let bytes: [UInt8]
    /// The namespaces whose elements are reported by name ("" is no namespace).
    private let namespaces: Set<String>
    /// Whether text is reported with whitespace at either end trimmed (a WebDAV href), or
    /// exactly (an S3 key may begin or end with a space).
    private let trimsText: Bool
    private var at = 0
    /// Open elements' qualified names (an end tag must match the innermost), and the
    /// namespace prefixes in scope inside each ("" the default namespace).
    private var open: [ArraySlice<UInt8>] = []
    private var scopes: [[String: String]] = []
    private var text: [UInt8] = []
    static let maxDepth = 64

    init(_ bytes: [UInt8], namespaces: Set<String>, trimsText: Bool = true) {
        self.bytes = bytes
        self.namespaces = namespaces
        self.trimsText = trimsText
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { at = 3 }
    }

    /// Reads the whole document; false at the first thing that is not well-formed.
    mutating func read(into collector: inout some XMLCollector) -> Bool {
        if starts("<?xml"), at + 5 < bytes.count, Self.isSpace(bytes[at + 5]) {
            guard let end = find("?>", from: at), Self.isDeclaration(bytes[(at + 5)..<end]) else { return false }
            at = end + 2
        }
        var sawRoot = false
        while at < bytes.count {
            if bytes[at] != UInt8(ascii: "<") {
                guard readText(inElement: !open.isEmpty) else { return false }
                continue
            }
            if starts("<!--") {
                // `--` may appear only as the end (XML 1.0 §2.5).
                guard let end = find("--", from: at + 4), end + 2 < bytes.count, bytes[end + 2] == UInt8(ascii: ">")
                else { return false }
                at = end + 3
            } else if starts("<![CDATA[") {
                guard !open.isEmpty, let end = find("]]>", from: at + 9) else { return false }
                text += bytes[(at + 9)..<end]
                at = end + 3
            } else if starts("</") {
                guard readEndTag(into: &collector) else { return false }
            } else if starts("<!") || starts("<?") {
                return false  // a DOCTYPE, or a processing instruction: never in a multistatus
            } else {
                guard !(sawRoot && open.isEmpty), readStartTag(into: &collector) else { return false }
                sawRoot = true
            }
        }
        return sawRoot && open.isEmpty
    }

    /// Character data up to the next `<`, entity references decoded; outside the root
    /// element only whitespace may appear.
    private mutating func readText(inElement: Bool) -> Bool {
        while at < bytes.count, bytes[at] != UInt8(ascii: "<") {
            let b = bytes[at]
            if !inElement {
                guard Self.isSpace(b) else { return false }
                at += 1
                continue
            }
            if b == UInt8(ascii: "&") {
                guard let semicolon = bytes[at...].prefix(12).firstIndex(of: UInt8(ascii: ";")),
                    let decoded = Self.entity(bytes[(at + 1)..<semicolon])
                else { return false }
                text += decoded
                at = semicolon + 1
            } else {
                // `]]>` may only end a CDATA section, never appear in text (XML 1.0 §2.4):
                // a parser that read it as text would read a document others refuse.
                if b == UInt8(ascii: ">"), at >= 2, bytes[at - 1] == UInt8(ascii: "]"),
                    bytes[at - 2] == UInt8(ascii: "]")
                {
                    return false
                }
                text.append(b)
                at += 1
            }
        }
        return true
    }

    private mutating func readStartTag(into collector: inout some XMLCollector) -> Bool {
        at += 1
        guard let name = readName(), open.count < Self.maxDepth else { return false }
        // Attributes: name = "value" | 'value'; namespace declarations among them apply to
        // this element, so they are all read before its name is resolved.
        var attributes: [ArraySlice<UInt8>] = []
        var scope = scopes.last ?? [:]
        while true {
            let hadSpace = skipSpaces()
            guard at < bytes.count else { return false }
            if bytes[at] == UInt8(ascii: ">") || starts("/>") { break }
            guard hadSpace, let attribute = readName(), !attributes.contains(where: { $0.elementsEqual(attribute) })
            else { return false }
            attributes.append(attribute)
            _ = skipSpaces()
            guard at < bytes.count, bytes[at] == UInt8(ascii: "=") else { return false }
            at += 1
            _ = skipSpaces()
            guard let value = readAttributeValue() else { return false }
            if attribute.elementsEqual("xmlns".utf8) {
                scope[""] = value
            } else if attribute.starts(with: "xmlns:".utf8) {
                let prefix = String(decoding: attribute.dropFirst(6), as: UTF8.self)
                guard !prefix.isEmpty, !prefix.contains(":"), !value.isEmpty else { return false }
                scope[prefix] = value
            }
        }
        for attribute in attributes
        where !attribute.elementsEqual("xmlns".utf8) && !attribute.starts(with: "xmlns:".utf8) {
            guard Self.resolve(attribute, in: scope, isAttribute: true) != nil else { return false }
        }
        guard let uri = Self.resolve(name, in: scope, isAttribute: false) else { return false }
        let known = namespaces.contains(uri) ? Self.localName(name) : nil
        text = []
        collector.start(known, depth: open.count)
        if starts("/>") {
            at += 2
            collector.end(known, text: "")
        } else {
            at += 1
            open.append(name)
            scopes.append(scope)
        }
        return true
    }

    /// A quoted attribute value with its references decoded; nil when malformed.
    private mutating func readAttributeValue() -> String? {
        guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") || bytes[at] == UInt8(ascii: "'") else { return nil }
        let quote = bytes[at]
        guard let close = bytes[(at + 1)...].firstIndex(of: quote) else { return nil }
        var value: [UInt8] = []
        var i = at + 1
        while i < close {
            switch bytes[i] {
            case UInt8(ascii: "<"): return nil
            case UInt8(ascii: "&"):
                guard let semicolon = bytes[i..<close].prefix(12).firstIndex(of: UInt8(ascii: ";")),
                    let decoded = Self.entity(bytes[(i + 1)..<semicolon])
                else { return nil }
                value += decoded
                i = semicolon + 1
            default:
                value.append(bytes[i])
                i += 1
            }
        }
        at = close + 1
        return String(decoding: value, as: UTF8.self)
    }

    private mutating func readEndTag(into collector: inout some XMLCollector) -> Bool {
        at += 2
        guard let name = readName(), let innermost = open.last, innermost.elementsEqual(name), let scope = scopes.last
        else { return false }
        _ = skipSpaces()
        guard at < bytes.count, bytes[at] == UInt8(ascii: ">") else { return false }
        at += 1
        open.removeLast()
        scopes.removeLast()
        let uri = Self.resolve(name, in: scope, isAttribute: false)
        let known = uri.map { namespaces.contains($0) } == true ? Self.localName(name) : nil
        collector.end(known, text: String(decoding: trimsText ? Self.trimmed(text) : text[...], as: UTF8.self))
        text = []
        return true
    }

    /// The namespace of a qualified name: its prefix's (which must be declared), or for an
    /// element without one the default namespace ("" when none); an unprefixed attribute
    /// has none. Nil when the prefix is not declared, or the name has more than one colon.
    static func resolve(_ name: ArraySlice<UInt8>, in scope: [String: String], isAttribute: Bool) -> String? {
        let parts = name.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return isAttribute ? "" : (scope[""] ?? "")
        case 2:
            guard !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
            let prefix = String(decoding: parts[0], as: UTF8.self)
            if prefix == "xml" { return "http://www.w3.org/XML/1998/namespace" }
            return scope[prefix]
        default: return nil
        }
    }

    /// The inside of an XML declaration (after `<?xml`, before `?>`): a version 1.x, then
    /// optionally an encoding (UTF-8 only: that is how the body is read) and `standalone`.
    static func isDeclaration(_ inside: ArraySlice<UInt8>) -> Bool {
        var pairs: [(String, String)] = []
        var rest = Substring(String(decoding: inside, as: UTF8.self))
        while true {
            let trimmed = rest.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
            if trimmed.isEmpty { break }
            guard let equals = trimmed.firstIndex(of: "=") else { return false }
            let key = trimmed[..<equals].trimmingSpaces
            let afterEquals = trimmed[trimmed.index(after: equals)...].drop {
                $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r"
            }
            guard let quote = afterEquals.first, quote == "\"" || quote == "'",
                let close = afterEquals.dropFirst().firstIndex(of: quote)
            else { return false }
            pairs.append((String(key), String(afterEquals[afterEquals.index(after: afterEquals.startIndex)..<close])))
            rest = afterEquals[afterEquals.index(after: close)...]
            if let next = rest.first, next != " ", next != "\t", next != "\n", next != "\r" { return false }
        }
        guard let version = pairs.first, version.0 == "version", version.1.hasPrefix("1."), version.1.count > 2,
            version.1.dropFirst(2).allSatisfy({ $0.isASCII && $0.isNumber })
        else { return false }
        var allowed = ["encoding", "standalone"]
        for (key, value) in pairs.dropFirst() {
            guard let position = allowed.firstIndex(of: key) else { return false }
            allowed.removeSubrange(...position)
            if key == "encoding", value.lowercased() != "utf-8" { return false }
            if key == "standalone", value != "yes", value != "no" { return false }
        }
        return true
    }

    /// An XML name (ASCII letters, digits, `_ - . :`, or any non-ASCII UTF-8 byte), not
    /// starting with a digit, `-` or `.`.
    private mutating func readName() -> ArraySlice<UInt8>? {
        let start = at
        while at < bytes.count, Self.isNameByte(bytes[at]) { at += 1 }
        guard at > start else { return nil }
        let first = bytes[start]
        guard !(first >= 0x30 && first <= 0x39), first != UInt8(ascii: "-"), first != UInt8(ascii: ".") else {
            return nil
        }
        return bytes[start..<at]
    }

    private mutating func skipSpaces() -> Bool {
        let start = at
        while at < bytes.count, Self.isSpace(bytes[at]) { at += 1 }
        return at > start
    }

    private func starts(_ literal: String) -> Bool { bytes[at...].starts(with: literal.utf8) }

    private func find(_ literal: String, from: Int) -> Int? {
        bytes[from...].firstRange(of: Array(literal.utf8))?.lowerBound
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    static func isNameByte(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b >= 0x80
            || b == UInt8(ascii: "_") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: ":")
    }

    /// The part of a qualified name after its prefix (`D:href` → `href`).
    static func localName(_ name: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let colon = name.lastIndex(of: UInt8(ascii: ":")) else { return name }
        return name[(colon + 1)...]
    }

    /// The UTF-8 of an entity reference's body (`amp`, `#38`, `#x26`); nil when undefined
    /// or not a character XML allows.
    static func entity(_ body: ArraySlice<UInt8>) -> [UInt8]? {
        switch String(decoding: body, as: UTF8.self) {
        case "lt": return [0x3C]
        case "gt": return [0x3E]
        case "amp": return [0x26]
        case "quot": return [0x22]
        case "apos": return [0x27]
        case let reference where reference.hasPrefix("#x"): return character(UInt32(reference.dropFirst(2), radix: 16))
        case let reference where reference.hasPrefix("#"): return character(UInt32(reference.dropFirst(), radix: 10))
        default: return nil
        }
    }

    private static func character(_ value: UInt32?) -> [UInt8]? {
        guard let value, let scalar = Unicode.Scalar(value),
            value == 0x9 || value == 0xA || value == 0xD || (value >= 0x20 && value != 0xFFFE && value != 0xFFFF)
        else { return nil }
        return Array(String(Character(scalar)).utf8)
    }

    static func trimmed(_ text: [UInt8]) -> ArraySlice<UInt8> {
        var slice = text[...]
        while let first = slice.first, isSpace(first) { slice = slice.dropFirst() }
        while let last = slice.last, isSpace(last) { slice = slice.dropLast() }
        return slice
    }
}

extension Substring {
    /// Without ASCII whitespace at either end.
    fileprivate var trimmingSpaces: Substring {
        func space(_ c: Character) -> Bool { c == " " || c == "\t" || c == "\n" || c == "\r" }
        guard let first = firstIndex(where: { !space($0) }), let last = lastIndex(where: { !space($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
