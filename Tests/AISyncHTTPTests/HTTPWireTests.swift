import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncHTTP

/// HTTP/1.1 framing as the socket transport reads and writes it (RFC 9112).
@Suite("HTTP wire format")
struct HTTPWireTests {
    static func head(_ text: String) throws -> HTTPWire.Head {
        let bytes = Array(text.utf8)
        let end = try #require(
            bytes.withUnsafeBytes { HTTPWire.headEnd(in: $0) }, "no end of head in \(text.debugDescription)")
        #expect(end == bytes.count, "the head ends at its blank line")
        return try HTTPWire.parseHead(bytes[..<end])
    }

    @Test("a head is found at its blank line, with CRLF or bare LF, and not before")
    func headEnd() {
        let cases: [(String, Int?)] = [
            ("HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody", 25), ("HTTP/1.1 200 OK\n\nbody", 17),
            ("HTTP/1.1 200 OK\r\nA: b\r\n", nil),
            ("HTTP/1.1 200 OK\r\n\r", nil), ("", nil), ("\n\n", 2),
        ]
        for (text, expected) in cases {
            #expect(
                Array(text.utf8).withUnsafeBytes { HTTPWire.headEnd(in: $0) } == expected, "\(text.debugDescription)")
        }
    }

    @Test("status, lowercased headers, repeated headers joined, and the body's framing")
    func parse() throws {
        let h = try Self.head(
            "HTTP/1.1 207 Multi-Status\r\nContent-Type: text/xml\r\nContent-Length: 12\r\nDAV: 1\r\nDAV: 2\r\n\r\n")
        #expect(h.status == 207 && h.minorVersion == 1)
        #expect(h.headers == ["content-type": "text/xml", "content-length": "12", "dav": "1, 2"])
        #expect(try h.framing(method: "PROPFIND") == .length(12))
        #expect(try h.framing(method: "HEAD") == HTTPWire.Head.Framing.none)
        #expect(h.keepsAlive)
    }

    @Test(
        "framing follows RFC 9112 §6.3",
        arguments: [
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", "GET", "chunked"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", "GET", "chunked"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "GET", "error"),
            ("HTTP/1.1 200 OK\r\n\r\n", "GET", "close"),
            ("HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n", "DELETE", "none"),
            ("HTTP/1.1 304 Not Modified\r\n\r\n", "GET", "none"),
            ("HTTP/1.1 200 OK\r\nContent-Length: 10, 10\r\n\r\n", "GET", "10"),
            ("HTTP/1.1 200 OK\r\nContent-Length: 10\r\nContent-Length: 11\r\n\r\n", "GET", "error"),
            ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "GET", "error"),
            ("HTTP/1.1 200 OK\r\nContent-Length: 1e3\r\n\r\n", "GET", "error"),
            ("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", "GET", "error"),
            ("HTTP/1.1 200 OK\r\nContent-Length:  7 \r\n\r\n", "GET", "7"),
        ])
    func framing(_ text: String, _ method: String, _ expected: String) throws {
        let h = try Self.head(text)
        let framing: String
        do {
            switch try h.framing(method: method) {
            case .none: framing = "none"
            case .chunked: framing = "chunked"
            case .untilClose: framing = "close"
            case .length(let n): framing = String(n)
            }
        } catch {
            #expect(error.code == .unavailable)
            framing = "error"
        }
        #expect(framing == expected)
    }

    @Test("connection reuse: HTTP/1.1 unless told to close; HTTP/1.0 only with keep-alive")
    func keepAlive() throws {
        #expect(try !Self.head("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n").keepsAlive)
        #expect(try !Self.head("HTTP/1.0 200 OK\r\n\r\n").keepsAlive)
        #expect(try Self.head("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\n\r\n").keepsAlive)
    }

    @Test(
        "a head that is not HTTP is refused with one line",
        arguments: [
            "SSH-2.0-OpenSSH\r\n\r\n", "HTTP/2 200\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 abc OK\r\n\r\n",
            "HTTP/1.1 200 OK\r\n folded\r\n\r\n", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
            "HTTP/1.1 200 OK\r\nbad name: x\r\n\r\n",
        ])
    func malformed(_ text: String) throws {
        #expect(throws: AISyncError.self) { try HTTPWire.parseHead(Array(text.utf8)) }
    }

    @Test("the request head: Host, sorted headers, Content-Length; a line break in a value is refused")
    func requestHead() throws {
        let head = try HTTPWire.requestHead(
            method: "PUT", target: "/dav/a%20b", host: "127.0.0.1:8080",
            headers: ["If-Match": "\"e1\"", "Authorization": "Basic eA==", "content-length": "99"], bodyLength: 3)
        #expect(
            String(decoding: head, as: UTF8.self)
                == "PUT /dav/a%20b HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAuthorization: Basic eA==\r\nIf-Match: \"e1\"\r\nContent-Length: 3\r\n\r\n"
        )
        #expect(throws: AISyncError.self) {
            try HTTPWire.requestHead(
                method: "GET", target: "/", host: "h", headers: ["X": "a\r\nEvil: 1"], bodyLength: nil)
        }
    }

    /// Decodes `input` fed in pieces of `step` bytes; returns the body and the bytes left over.
    static func dechunk(_ input: String, step: Int) throws -> (body: String, rest: String, done: Bool) {
        var decoder = ChunkedDecoder()
        var body: [UInt8] = []
        let bytes = Array(input.utf8)
        var i = 0
        while i < bytes.count, !decoder.isDone {
            let piece = Array(bytes[i..<min(bytes.count, i + step)])
            let used = try piece.withUnsafeBytes { raw in
                try decoder.decode(raw) { body.append(contentsOf: $0) }
            }
            i += used
        }
        return (String(decoding: body, as: UTF8.self), String(decoding: bytes[i...], as: UTF8.self), decoder.isDone)
    }

    @Test("chunked bodies decode the same whatever the pieces they arrive in", arguments: [1, 2, 3, 7, 1000])
    func chunked(step: Int) throws {
        let wire = "5;ext=1\r\nhello\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nTrailer: x\r\n\r\nNEXT"
        let (body, rest, done) = try Self.dechunk(wire, step: step)
        #expect(body == "helloabcdefghijklmnopqrstuvwxyz")
        #expect(done && rest == "NEXT")
    }

    @Test(
        "bad chunked bodies are refused",
        arguments: ["zz\r\n", "5\r\nhelloX\r\n", "-1\r\n", "FFFFFFFFFFFFFFFF\r\n", "\r\n"])
    func badChunked(_ wire: String) {
        #expect(throws: AISyncError.self) { _ = try Self.dechunk(wire, step: 3) }
    }

    @Test("http and https URLs give host, port, Host header and target as written; others are not served")
    func targets() {
        let t = HTTPTarget("http://127.0.0.1:8080/dav/a%2Fb?x=1#frag")
        #expect(
            t?.host == "127.0.0.1" && t?.port == 8080 && t?.authority == "127.0.0.1:8080"
                && t?.target == "/dav/a%2Fb?x=1")
        #expect(HTTPTarget("http://example.org")?.target == "/")
        #expect(HTTPTarget("http://example.org")?.authority == "example.org")
        #expect(HTTPTarget("http://[::1]:81/x")?.host == "[::1]")
        #expect(HTTPTarget("http://user:pw@h/x")?.authority == "h")
        let secure = HTTPTarget("HTTPS://example.org/x")
        #expect(secure?.secure == true && secure?.port == 443 && secure?.authority == "example.org")
        #expect(HTTPTarget("https://example.org:8443")?.authority == "example.org:8443")
        #expect(HTTPTarget("https://example.org:80/")?.authority == "example.org:80")
        #expect(HTTPTarget("http://example.org:443/")?.authority == "example.org:443")
        #expect(HTTPTarget("http://example.org/")?.secure == false)
        #expect(HTTPTarget("ftp://example.org/") == nil)
        #expect(HTTPTarget("https:/example.org/") == nil)
        #expect(HTTPTarget("http://h:99999/") == nil)
        #expect(HTTPTarget("http://h/a b") == nil)
    }
}
