import AISyncCore
import AISyncFiles
import AISyncHTTP

/// When ``S3Remote`` sends a file in parts (S3's multipart upload) rather than in one
/// PutObject: a large picture then never rides on one request, each part is retried on its
/// own, and memory holds one part at a time.
public struct S3PartPolicy: Sendable, Equatable {
    /// Files larger than this many bytes go in parts.
    public var threshold: Int64
    /// The size of each part but the last (S3 wants at least 5 MiB); larger for a file that
    /// would otherwise need more than ``maxParts`` parts.
    public var partSize: Int64

    /// Parts of `partSize` for files over `threshold` bytes.
    public init(threshold: Int64, partSize: Int64) {
        self.threshold = threshold
        self.partSize = partSize
    }

    /// Over 64 MiB, in parts of 16 MiB.
    public static let standard = S3PartPolicy(threshold: 64 << 20, partSize: 16 << 20)

    /// S3 takes at most 10,000 parts in one upload.
    public static let maxParts: Int64 = 10_000

    /// The part size for a file of `size` bytes: ``partSize``, or more (in whole MiB) so that
    /// the file fits in ``maxParts`` parts.
    public func partSize(for size: Int64) -> Int64 {
        let mebibyte: Int64 = 1 << 20
        let least = (size + Self.maxParts - 1) / Self.maxParts
        guard least > partSize else { return partSize }
        return (least + mebibyte - 1) / mebibyte * mebibyte
    }
}

/// Multipart uploads (CreateMultipartUpload, UploadPart, CompleteMultipartUpload,
/// AbortMultipartUpload) and the uploads a killed process left (ListMultipartUploads). A
/// failed upload is aborted at once; one whose process died is listed by
/// ``unfinishedUploads()`` and ended with ``endUpload(_:)`` by compaction, since its parts
/// stay stored, and billed, until then.
extension S3Remote {
    /// Sends the file at `localPath` (`size` bytes) in parts, one at a time, each read into
    /// memory, hashed for its signature and retried on its own; aborts the upload when any
    /// step fails or the task is cancelled.
    func uploadInParts(_ path: String, from localPath: String, size: Int64, condition: WriteCondition)
        async throws(AISyncError) -> WriteResult
    {
        // The first try in a task of its own, which a cancel does not reach: cancelled while
        // the answer is on its way, the upload would exist on the store under an id this
        // process never learned, left for compaction to end. One try only, so a cancel waits
        // for one answer at most (never for retries and their waits); retries, if the store
        // asks for them, are cancelled as any request is.
        try AISyncError.checkCancellation()
        let remote = self
        let headers = ["Content-Type": "application/octet-stream"]
        let first = await Task { () async -> Result<HTTPResponse, AISyncError> in
            do throws(AISyncError) {
                return .success(
                    try await remote.send("POST", path, query: [("uploads", "")], headers: headers, attempts: 1))
            } catch {
                return .failure(error)
            }
        }.value
        let response: HTTPResponse
        switch first {
        case .success(let answer) where !Self.isTransient(answer): response = answer
        default: response = try await send("POST", path, query: [("uploads", "")], headers: headers)
        }
        guard response.status == 200 else { throw failure(response, "start uploading \(path) in parts") }
        guard let uploadID = S3XML.uploadID(response.body) else {
            throw unreadable("answer to CreateMultipartUpload", path)
        }
        do {
            try AISyncError.checkCancellation()
            let etags = try await uploadParts(path, uploadID: uploadID, from: localPath, size: size)
            let result = try await complete(path, uploadID: uploadID, etags: etags, size: size, condition: condition)
            // A refused completion leaves the upload open on some stores: end it.
            if result == .preconditionFailed { try? await abort(path, uploadID: uploadID) }
            return result
        } catch {
            // In a task of its own, so a cancelled sync still ends it; what a killed process
            // leaves, compaction ends.
            await Task { try? await remote.abort(path, uploadID: uploadID) }.value
            throw error
        }
    }

    /// UploadPart for each part of the file in turn; their ETags, in order.
    private func uploadParts(_ path: String, uploadID: String, from localPath: String, size: Int64)
        async throws(AISyncError) -> [String]
    {
        let partSize = parts.partSize(for: size)
        let count = Int((size + partSize - 1) / partSize)
        var etags: [String] = []
        etags.reserveCapacity(count)
        for number in 1...count {
            try AISyncError.checkCancellation()
            let offset = Int64(number - 1) * partSize
            let length = Int(min(partSize, size - offset))
            let bytes = try FileIO.readRange(localPath, from: offset, count: length)
            guard bytes.count == length else {
                throw AISyncError(
                    .io, "\(localPath) changed while it was being uploaded (\(size) bytes expected)",
                    hint: "Run the command again")
            }
            let response = try await send(
                "PUT", path, query: [("partNumber", String(number)), ("uploadId", uploadID)], body: .bytes(bytes),
                payloadHash: SHA256.hash(bytes).hex)
            guard response.status == 200 else { throw failure(response, "upload part \(number) of \(path)") }
            guard let etag = response.headers["etag"], !etag.isEmpty else {
                throw AISyncError(
                    .damagedData, "S3 gave no ETag for part \(number) of \(path)",
                    hint: "Check the remote's endpoint: is it an S3-compatible server?")
            }
            etags.append(etag)
        }
        return etags
    }

    /// CompleteMultipartUpload of `etags`, create-only when `condition` says (stores that
    /// know conditions refuse it with 412 when the key exists).
    private func complete(_ path: String, uploadID: String, etags: [String], size: Int64, condition: WriteCondition)
        async throws(AISyncError) -> WriteResult
    {
        var xml = #"<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">"#
        for (index, etag) in etags.enumerated() {
            xml += "<Part><PartNumber>\(index + 1)</PartNumber><ETag>\(Self.escapeXML(etag))</ETag></Part>"
        }
        xml += "</CompleteMultipartUpload>"
        let body = Array(xml.utf8)
        var headers = ["Content-Type": "application/xml"]
        if condition == .createOnly { headers["If-None-Match"] = "*" }
        let response = try await send(
            "POST", path, query: [("uploadId", uploadID)], headers: headers, body: .bytes(body),
            payloadHash: SHA256.hash(body).hex)
        switch response.status {
        case 200:
            if let done = S3XML.completed(response.body) { return .written(etag: done.etag) }
            // AWS may answer 200 and put an error in the body.
            if let error = S3XML.error(response.body) {
                throw AISyncError(
                    .temporary, "S3 could not finish uploading \(path): \(error.code)",
                    hint: "Try again later", remedy: .retryLater)
            }
            throw unreadable("answer to CompleteMultipartUpload", path)
        case 412: return .preconditionFailed
        case 404 where S3XML.error(response.body)?.code == "NoSuchUpload":
            // A retry after a completion whose answer was lost: the object is there.
            if try await presence(path) == .present(size: size) { return .written(etag: nil) }
            throw failure(response, "finish uploading \(path)")
        default: throw failure(response, "finish uploading \(path)")
        }
    }

    /// AbortMultipartUpload; an upload already gone is not an error.
    func abort(_ path: String, uploadID: String) async throws(AISyncError) {
        let response = try await send("DELETE", path, query: [("uploadId", uploadID)])
        switch response.status {
        case 200, 204: return
        case 404 where !isMissingBucket(response): return
        default: throw failure(response, "end the unfinished upload of \(path)")
        }
    }

    /// The multipart uploads under the remote's prefix that were begun and not finished
    /// (ListMultipartUploads, page after page): a killed process's, one whose abort failed, or
    /// one running now on another device. An upload whose key aisync would never write is left
    /// out. The time a store gives for each is not used: moto's is fixed, and a device's clock
    /// may differ from the store's; compaction counts from when it first saw each.
    public func unfinishedUploads() async throws(AISyncError) -> [UnfinishedUpload] {
        let prefix = location.key("")
        var found: [UnfinishedUpload] = []
        try await followPages("unfinished uploads in \(displayName)") {
            (after) async throws(AISyncError) -> [QueryItem]? in
            var query: [QueryItem] = [("uploads", ""), ("prefix", prefix)]
            if let pageSize { query.append(("max-uploads", String(pageSize))) }
            let response = try await send("GET", "", query: query + after, maxBytes: 16 << 20)
            guard response.status == 200 else { throw failure(response, "list unfinished uploads") }
            guard let page = S3XML.uploadsPage(response.body) else {
                throw unreadable("listing of unfinished uploads", displayName)
            }
            for upload in page.uploads where upload.key.hasPrefix(prefix) {
                let path = String(upload.key.dropFirst(prefix.count))
                guard (try? RemotePath.validate(path)) != nil else { continue }
                found.append(UnfinishedUpload(path: path, id: upload.uploadID))
            }
            guard page.isTruncated, let key = page.nextKeyMarker else { return nil }
            return [("key-marker", key)] + (page.nextUploadIDMarker.map { [("upload-id-marker", $0)] } ?? [])
        }
        return found
    }

    /// AbortMultipartUpload of `upload`: its parts are deleted.
    public func endUpload(_ upload: UnfinishedUpload) async throws(AISyncError) {
        try await abort(upload.path, uploadID: upload.id)
    }

    /// The one error for an answer that is not what S3 sends.
    func unreadable(_ what: String, _ path: String) -> AISyncError {
        AISyncError(
            .damagedData, "S3 sent an unreadable \(what) of \(path)",
            hint: "Check the remote's endpoint: is it an S3-compatible server?")
    }

    /// `text` with `&`, `<` and `>` escaped, for an XML element's content.
    static func escapeXML(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
