import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import AISyncCore

/// Parses a PROPFIND `207 Multi-Status` body (RFC 4918 §13) into hrefs and ETags.
final class WebDAVMultistatus: NSObject, XMLParserDelegate {
    struct Response { var href = ""; var etag: String?; var isCollection = false; var ok = true }

    private(set) var responses: [Response] = []
    private var current: Response?
    private var text = ""
    private(set) var sawMultistatus = false
    /// Open elements; a complete document ends at 0.
    private(set) var depth = 0

    static func parse(_ bytes: [UInt8]) -> [Response]? {
        guard isSafeForXMLParser(bytes) else { return nil }
        let delegate = WebDAVMultistatus()
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = delegate
        // On Linux parse() may return true after a premature end; parserError tells the truth.
        guard parser.parse(), parser.parserError == nil, delegate.sawMultistatus, delegate.depth == 0 else { return nil }
        return delegate.responses
    }

    /// Whether FoundationXML can be given `bytes` without crashing (both found by fuzzing): it
    /// traps on an element or prefix name that is not UTF-8 (libxml2 passes one through from a
    /// document it reads as UTF-8, even one declaring another encoding), and reads a null
    /// pointer for a processing instruction without data (`<?x?>`). Servers send UTF-8 with
    /// at most an XML declaration, so anything else is refused as not a multistatus.
    static func isSafeForXMLParser(_ bytes: [UInt8]) -> Bool {
        guard String(validating: bytes, as: UTF8.self) != nil else { return false }
        var rest = bytes[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        // The one `<?` allowed is the declaration's, at the start.
        if rest.starts(with: Array("<?xml".utf8)), rest.count > 5, [0x20, 0x09, 0x0D, 0x0A].contains(rest[rest.startIndex + 5]) {
            rest = rest.dropFirst(2)
        }
        return rest.firstRange(of: Array("<?".utf8)) == nil
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        text = ""
        if depth == 0, name == "multistatus" { sawMultistatus = true }
        depth += 1
        switch name {
        case "response": current = Response()
        case "collection": current?.isCollection = true
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        depth -= 1
        switch name {
        case "href": if current?.href.isEmpty == true { current?.href = value }
        case "getetag": if !value.isEmpty { current?.etag = value }
        case "response":
            if let c = current { responses.append(c) }
            current = nil
        default: break
        }
        text = ""
    }
}
