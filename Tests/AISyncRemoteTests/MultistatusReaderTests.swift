import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncRemote

/// The PROPFIND reader against an independent XML parser (Python's ElementTree): random
/// multistatus documents in the forms servers write (prefixes, a default namespace,
/// attributes, comments, CDATA, entity and character references, self-closing elements),
/// then damaged copies of them, must read the same — or be refused by both.
@Suite("Multistatus reader", .tags(.python), .needsPython)
struct MultistatusReaderTests {
    /// One document per line of hex; Python answers one JSON value per line: the responses
    /// (href, etag, collection) or null when it refuses the document.
    static func reference(_ documents: [[UInt8]]) throws -> [String] {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        for d in documents {
            for b in d { hex += [digits[Int(b >> 4)], digits[Int(b & 15)]] }
            hex.append(10)
        }
        let script = """
            import sys, json
            import xml.etree.ElementTree as ET
            D = '{DAV:}'
            for line in sys.stdin.read().split('\\n')[:-1]:
                try:
                    root = ET.fromstring(bytes.fromhex(line))
                except ET.ParseError:
                    print('null'); continue
                if root.tag != D + 'multistatus':
                    print('null'); continue
                out = []
                for r in root.iter(D + 'response'):
                    href = r.find(D + 'href')
                    etag = r.find('.//' + D + 'getetag')
                    e = (etag.text or '').strip() if etag is not None else ''
                    out.append([(href.text or '').strip() if href is not None else '', e or None,
                                r.find('.//' + D + 'collection') is not None])
                print(json.dumps(out))
            """
        let r = CLIHarness.runProcess("/usr/bin/env", ["python3", "-c", script], stdin: Data(hex))
        try #require(r.exitCode == 0, "python3 is needed (scripts/test.sh installs it): \(r)")
        return r.stdoutLines
    }

    static func ours(_ document: [UInt8]) -> String {
        guard let responses = WebDAVMultistatus.parse(document) else { return "null" }
        let items = responses.map { r -> [Any] in [r.href, r.etag.map { $0 as Any } ?? NSNull(), r.isCollection] }
        let data = try! JSONSerialization.data(withJSONObject: items, options: [])
        return String(decoding: data, as: UTF8.self)
    }

    /// Normalizes both sides' JSON (spacing, escapes) for comparison.
    static func normalized(_ json: String) -> String {
        guard json != "null", let value = try? JSONSerialization.jsonObject(with: Data(json.utf8)) else { return json }
        let data = try! JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    static func document(_ random: inout SeededGenerator) -> String {
        let prefix = ["D:", "d:", "", "lp1:"].randomElement(using: &random)!
        let declaration = prefix.isEmpty ? "xmlns=\"DAV:\"" : "xmlns:\(prefix.dropLast())=\"DAV:\""
        func element(_ name: String, _ content: String) -> String { "<\(prefix)\(name)>\(content)</\(prefix)\(name)>" }
        func text(_ s: String) -> String {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return s.replacingOccurrences(of: "&", with: "&amp;")
            case 1: return "<![CDATA[\(s)]]>"
            case 2: return s.replacingOccurrences(of: "&", with: "&#38;").replacingOccurrences(of: "/", with: "&#x2F;")
            default: return "\n   " + s.replacingOccurrences(of: "&", with: "&amp;") + "  "
            }
        }
        var body = ""
        for n in 0..<Int.random(in: 0...4, using: &random) {
            let collection = Bool.random(using: &random)
            let href = "/dav/a b&c/\(collection ? "dir\(n)/" : "f\(n).json")"
            var props = element("resourcetype", collection ? "<\(prefix)collection/>" : "")
            if Bool.random(using: &random) { props += element("getetag", text("\"\(n)-abc\"")) }
            if Bool.random(using: &random) { props += "<x:other xmlns:x=\"urn:x\" a='1'>ignored</x:other>" }
            let propstat = element("propstat", element("prop", props) + element("status", "HTTP/1.1 200 OK"))
            let comment = Bool.random(using: &random) ? "<!-- a comment -->" : ""
            body +=
                "<\(prefix)response\(Bool.random(using: &random) ? " id=\"r\(n)\"" : "")>\(comment)"
                + element("href", text(href)) + propstat + "</\(prefix)response>\n"
        }
        let head = Bool.random(using: &random) ? "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n" : ""
        return head + "<\(prefix)multistatus \(declaration)>\n" + body + "</\(prefix)multistatus>\n"
    }

    @Test func readsWhatElementTreeReadsAndRefusesWhatItRefuses() throws {
        let seed = SeededGenerator.seed()
        var random = SeededGenerator(seed: seed)
        var documents: [[UInt8]] = []
        for _ in 0..<300 {
            let whole = Array(Self.document(&random).utf8)
            documents.append(whole)
            // Damaged copies: cut short, a byte changed to markup, a tag renamed.
            documents.append(Array(whole.prefix(Int.random(in: 0..<whole.count, using: &random))))
            var changed = whole
            changed[Int.random(in: 0..<changed.count, using: &random)] = [
                UInt8(ascii: "<"), UInt8(ascii: "&"), UInt8(ascii: ">"), UInt8(ascii: "/"),
            ].randomElement(using: &random)!
            documents.append(changed)
            documents.append(
                Array(String(decoding: whole, as: UTF8.self).replacingOccurrences(of: "href>", with: "hreff>").utf8))
        }
        let expected = try Self.reference(documents)
        try #require(expected.count == documents.count)
        var accepted = 0
        for (n, document) in documents.enumerated() {
            let mine = Self.ours(document)
            if mine != "null" { accepted += 1 }
            #expect(
                Self.normalized(mine) == Self.normalized(expected[n]),
                "document \(n), seed \(seed): \(String(decoding: document, as: UTF8.self).debugDescription)")
        }
        #expect(accepted >= 300, "every undamaged document reads: \(accepted)")
    }

    @Test(arguments: [
        "<!DOCTYPE d [<!ENTITY x \"y\">]><d:multistatus xmlns:d=\"DAV:\"/>",
        "<d:multistatus xmlns:d=\"DAV:\"><d:response><d:href>&x;</d:href></d:response></d:multistatus>",
        "<d:multistatus xmlns:d=\"DAV:\"></d:Multistatus>",
        "<d:multistatus xmlns:d=\"DAV:\"/><d:multistatus xmlns:d=\"DAV:\"/>",
        "text<d:multistatus xmlns:d=\"DAV:\"/>",
        "<d:multistatus xmlns:d=\"DAV:\"><d:response><d:href>&#0;</d:href></d:response></d:multistatus>",
        // `]]>` in text (a CDATA section whose `<` was lost): seed 8028106214833973796 of the
        // comparison with ElementTree found it read as text.
        "<d:multistatus xmlns:d=\"DAV:\"><d:response><d:href>/a</d:href><d:propstat><d:prop><d:getetag>>![CDATA[\"3-abc\"]]></d:getetag></d:prop></d:propstat></d:response></d:multistatus>",
        "<d:multistatus xmlns:d=\"DAV:\"><d:response><d:href>a]]>b</d:href></d:response></d:multistatus>",
    ])
    func malformedOrUnsafeDocumentsAreRefused(_ text: String) {
        #expect(WebDAVMultistatus.parse(Array(text.utf8)) == nil)
    }
}
