import AISyncCore
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Direct S3 requests for test set-up and checks, not through aisync's remote: signed with
/// SigV4 (itself checked against botocore in SigV4Tests), sent with URLSession, path-style.
package struct S3TestClient: Sendable {
    /// `http://127.0.0.1:PORT`.
    package var endpoint: String
    package var bucket: String
    package var region: String
    package var accessKey: String
    package var secretKey: String

    package init(endpoint: String, bucket: String, region: String, accessKey: String, secretKey: String) {
        self.endpoint = endpoint
        self.bucket = bucket
        self.region = region
        self.accessKey = accessKey
        self.secretKey = secretKey
    }

    /// Sends `method` on `key` (empty: the bucket) with a signed payload.
    package func send(
        _ method: String, _ key: String, query: [(name: String, value: String)] = [], body: Data? = nil,
        headers: [String: String] = [:]
    ) async throws -> RemoteHTTP.Response {
        let path = "/\(bucket)/\(key)"
        let host = String(endpoint.drop { $0 != "/" }.dropFirst(2))
        let bytes = body.map { [UInt8]($0) } ?? []
        let signed = SigV4.sign(
            SigV4.Request(
                method: method, path: path, query: query, headers: [("host", host)],
                payloadHash: SHA256.hash(bytes).hex),
            credentials: SigV4.Credentials(accessKeyID: accessKey, secretAccessKey: secretKey), region: region,
            time: Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000)))
        let q = query.map { SigV4.encode($0.name, slash: true) + "=" + SigV4.encode($0.value, slash: true) }
        let url = endpoint + SigV4.encode(path, slash: false) + (q.isEmpty ? "" : "?" + q.joined(separator: "&"))
        var request = URLRequest(url: try #require(URL(string: url), "bad URL \(url)"))
        request.httpMethod = method
        for (name, value) in signed { request.setValue(value, forHTTPHeaderField: name) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response): (Data, URLResponse)
        if let body {
            (data, response) = try await RemoteHTTP.session.upload(for: request, from: body)
        } else {
            (data, response) = try await RemoteHTTP.session.data(for: request)
        }
        var fields: [String: String] = [:]
        for (k, v) in (response as? HTTPURLResponse)?.allHeaderFields ?? [:] {
            if let k = k as? String, let v = v as? String { fields[k.lowercased()] = v }
        }
        return RemoteHTTP.Response(
            status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data, headers: fields)
    }

    /// Every key under `prefix` (no delimiter), page by page.
    package func keys(under prefix: String) async throws -> [String] {
        var keys: [String] = []
        var token: String?
        repeat {
            var query: [(name: String, value: String)] = [("list-type", "2"), ("prefix", prefix)]
            if let token { query.append(("continuation-token", token)) }
            let r = try await send("GET", "", query: query)
            try #require(r.status == 200, "listing \(prefix) answered \(r.status): \(r.text)")
            let text = String(decoding: r.body, as: UTF8.self)
            keys += Self.elements("Key", in: text)
            token =
                text.contains("<IsTruncated>true</IsTruncated>")
                ? Self.elements("NextContinuationToken", in: text).first : nil
        } while token != nil
        return keys
    }

    /// The texts of every `<name>…</name>` in `xml`, unescaped.
    static func elements(_ name: String, in xml: String) -> [String] {
        var out: [String] = []
        var rest = xml[...]
        while let open = rest.range(of: "<\(name)>"),
            let close = rest.range(of: "</\(name)>", range: open.upperBound..<rest.endIndex)
        {
            out.append(
                String(rest[open.upperBound..<close.lowerBound]).replacingOccurrences(of: "&lt;", with: "<")
                    .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&quot;", with: "\"")
                    .replacingOccurrences(of: "&apos;", with: "'").replacingOccurrences(of: "&amp;", with: "&"))
            rest = rest[close.upperBound...]
        }
        return out
    }

    /// Copies every object under `prefix`/ into `folder`, keeping the layout: a read-only
    /// view of the remote as its administrator would see it.
    package func mirror(prefix: String, into folder: String) async throws {
        for key in try await keys(under: prefix + "/") {
            let r = try await send("GET", key)
            try #require(r.status == 200, "GET \(key) answered \(r.status)")
            let path = folder + "/" + key.dropFirst(prefix.count + 1)
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try r.body.write(to: URL(fileURLWithPath: path))
        }
    }

    /// Deletes every object under `prefix`/, and ends every unfinished upload there.
    package func removeAll(under prefix: String) async throws {
        for key in try await keys(under: prefix + "/") { _ = try await send("DELETE", key) }
        for upload in try await uploads(under: prefix + "/") {
            _ = try await send("DELETE", upload.key, query: [("uploadId", upload.id)])
        }
    }

    /// The unfinished multipart uploads under `prefix` (ListMultipartUploads, one page).
    package func uploads(under prefix: String) async throws -> [(key: String, id: String)] {
        let r = try await send("GET", "", query: [("uploads", ""), ("prefix", prefix)])
        try #require(r.status == 200, "listing uploads under \(prefix) answered \(r.status): \(r.text)")
        let text = String(decoding: r.body, as: UTF8.self)
        let keys = Self.elements("Upload", in: text).flatMap { Self.elements("Key", in: $0) }
        let ids = Self.elements("UploadId", in: text)
        try #require(keys.count == ids.count, "an upload listing whose keys and ids do not pair: \(text)")
        return Array(zip(keys, ids)).map { (key: $0.0, id: $0.1) }
    }

    /// Starts a multipart upload of `key` and sends its first part (`bytes`), leaving it
    /// unfinished as a killed process would; its upload id.
    package func startUpload(_ key: String, firstPart bytes: Data) async throws -> String {
        let r = try await send("POST", key, query: [("uploads", "")])
        try #require(r.status == 200, "CreateMultipartUpload answered \(r.status): \(r.text)")
        let id = try #require(Self.elements("UploadId", in: String(decoding: r.body, as: UTF8.self)).first)
        let part = try await send("PUT", key, query: [("partNumber", "1"), ("uploadId", id)], body: bytes)
        try #require(part.status == 200, "UploadPart answered \(part.status): \(part.text)")
        return id
    }
}
