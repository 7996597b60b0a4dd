import AISyncCore

/// HTTP/1.1 framing (RFC 9112) as pure functions over bytes: the request head aisync sends
/// and the response head and chunked body it reads. No I/O here, so every rule is tested
/// with tables and fuzzed with hostile bytes (`Tests/Fuzz/http-wire.swift`).
package enum HTTPWire {
    /// The longest response head accepted (status line plus headers): a server that sends
    /// more is not answering HTTP as aisync knows it.
    package static let maxHeadBytes = 64 << 10

    /// A parsed response head.
    package struct Head: Equatable, Sendable {
        /// `1` for HTTP/1.1, `0` for HTTP/1.0.
        package var minorVersion: Int
        package var status: Int
        /// Header names in lowercase; repeated headers joined with ", ".
        package var headers: [String: String]

        /// How the body that follows is framed.
        package enum Framing: Equatable, Sendable {
            /// No body (HEAD, 1xx, 204, 304).
            case none
            /// Exactly this many bytes.
            case length(Int64)
            /// `Transfer-Encoding: chunked`.
            case chunked
            /// Everything until the server closes the connection.
            case untilClose
        }

        /// The body's framing for an answer to `method` (RFC 9112 §6.3).
        package func framing(method: String) throws(AISyncError) -> Framing {
            if method == "HEAD" || (100..<200).contains(status) || status == 204 || status == 304 { return .none }
            if let coding = headers["transfer-encoding"] {
                // Only chunked is understood; anything else cannot be framed safely.
                guard coding.lowercased().split(separator: ",").last?.trimmingCharacters(in: " \t") == "chunked" else {
                    throw HTTPWire.malformed(
                        "a body in \"Transfer-Encoding: \(coding.prefix(40))\", which this client cannot read")
                }
                return .chunked
            }
            if let length = headers["content-length"] {
                // A repeated length ("10, 10") must agree with itself (RFC 9110 §8.6).
                let values = Set(length.split(separator: ",").map { $0.trimmingCharacters(in: " \t") })
                guard values.count == 1, let text = values.first, !text.isEmpty, text.count <= 18,
                    text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let n = Int64(text)
                else {
                    throw HTTPWire.malformed("a Content-Length of \"\(length.prefix(40))\"")
                }
                return .length(n)
            }
            return .untilClose
        }

        /// True when the connection may carry another request after this answer.
        package var keepsAlive: Bool {
            let connection = headers["connection"]?.lowercased() ?? ""
            if connection.contains("close") { return false }
            return minorVersion >= 1 || connection.contains("keep-alive")
        }
    }

    /// The request head: request line, `Host`, the caller's headers, and `Content-Length`
    /// when a body (possibly empty) is sent. Header values with CR or LF are refused: they
    /// would let a value start a header of its own.
    package static func requestHead(
        method: String, target: String, host: String, headers: [String: String],
        bodyLength: Int64?
    ) throws(AISyncError) -> [UInt8] {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            let lower = name.lowercased()
            if lower == "host" || lower == "content-length" || lower == "transfer-encoding" { continue }
            guard isToken(name), !value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) else {
                throw AISyncError(
                    .configuration, "the HTTP header \(name.prefix(40)) cannot be sent: it holds a line break")
            }
            text += "\(name): \(value)\r\n"
        }
        if let bodyLength { text += "Content-Length: \(bodyLength)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// Where the response head ends in `bytes` (the index just past its blank line), or nil
    /// when more bytes are needed.
    package static func headEnd(in bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 2 else { return nil }
        for i in 1..<bytes.count where bytes[i] == 10 {
            // "\n\n", or "\n\r\n" (which ends "\r\n\r\n"): lenient, as browsers are.
            if bytes[i - 1] == 10 || (i >= 2 && bytes[i - 1] == 13 && bytes[i - 2] == 10) { return i + 1 }
        }
        return nil
    }

    /// Parses a response head (the bytes up to and including its blank line).
    package static func parseHead(_ bytes: some Collection<UInt8>) throws(AISyncError) -> Head {
        // Split on bytes, not Characters: "\r\n" is one Character in Swift.
        let lines = bytes.split(separator: 10, omittingEmptySubsequences: false)
            .map { line in Substring(decoding: line.last == 13 ? line.dropLast() : line[...], as: UTF8.self) }
        guard let statusLine = lines.first, !statusLine.isEmpty else { throw malformed("an empty answer") }
        let head = try parseStatusLine(String(statusLine))
        var headers: [String: String] = [:]
        for line in lines.dropFirst() where !line.isEmpty {
            guard line.first != " " && line.first != "\t" else { throw malformed("a folded header line") }
            guard let colon = line.firstIndex(of: ":") else { throw malformed("a header line without a colon") }
            let name = String(line[..<colon])
            guard isToken(name) else { throw malformed("a header name that is not a token") }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
            let key = name.lowercased()
            headers[key] = headers[key].map { "\($0), \(value)" } ?? value
        }
        return Head(minorVersion: head.minor, status: head.status, headers: headers)
    }

    private static func parseStatusLine(_ line: String) throws(AISyncError) -> (minor: Int, status: Int) {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "HTTP/1.1" || parts[0] == "HTTP/1.0" else {
            throw malformed("a status line that is not HTTP/1.x (\"\(line.prefix(40))\")")
        }
        guard parts[1].count == 3, let status = Int(parts[1]), (100...999).contains(status) else {
            throw malformed("a status line without a status code")
        }
        return (parts[0] == "HTTP/1.1" ? 1 : 0, status)
    }

    /// RFC 9110 token characters.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { c in
                (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
                    || "!#$%&'*+-.^_`|~".utf8.contains(c)
            }
    }

    /// A server answer that breaks HTTP's framing: the server, or something between, is broken.
    static func malformed(_ what: String) -> AISyncError {
        AISyncError(
            .unavailable, "the server sent \(what)", hint: "Check that the URL points at a WebDAV or HTTP server")
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String { String(self).trimmingCharacters(in: set) }
}
