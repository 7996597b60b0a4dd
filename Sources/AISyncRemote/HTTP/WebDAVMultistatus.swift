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
        let delegate = WebDAVMultistatus()
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = delegate
        // On Linux parse() may return true after a premature end; parserError tells the truth.
        guard parser.parse(), parser.parserError == nil, delegate.sawMultistatus, delegate.depth == 0 else { return nil }
        return delegate.responses
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
