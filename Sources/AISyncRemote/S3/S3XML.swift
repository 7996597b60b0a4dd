import AISyncCore

/// The XML an S3-compatible server answers with, read by the strict ``XMLReader`` (the
/// answer is hostile until checked): a page of ListObjectsV2, and an error.
///
/// Elements count in S3's namespace (`http://s3.amazonaws.com/doc/2006-03-01/`) or in none
/// (error documents, and some compatible servers' listings, have none). Text is taken
/// exactly: a key may begin or end with a space.
enum S3XML {
    static let namespaces: Set<String> = ["http://s3.amazonaws.com/doc/2006-03-01/", ""]

    /// One object of a listing.
    struct Object: Equatable {
        var key: String
        /// Opaque: a multipart upload's ETag is not an MD5.
        var etag: String?
        var size: Int64
    }

    /// One page of ListObjectsV2.
    struct ListPage: Equatable {
        var objects: [Object] = []
        /// The "folders" under the prefix, with a delimiter (`PREFIX/segments/`).
        var commonPrefixes: [String] = []
        var isTruncated = false
        /// Where the next page starts; present exactly when the page is truncated.
        var nextContinuationToken: String?
        var keyCount: Int?
    }

    /// A ListObjectsV2 page; nil when `bytes` is not one (a truncated page without a token
    /// is not one either: following it would loop or stop short).
    static func listPage(_ bytes: [UInt8]) -> ListPage? {
        var collector = ListCollector()
        guard String(validating: bytes, as: UTF8.self) != nil,
            XMLReader.read(bytes, namespaces: namespaces, into: &collector), collector.sawRoot, !collector.failed
        else { return nil }
        let page = collector.page
        guard page.isTruncated == (page.nextContinuationToken != nil) else { return nil }
        return page
    }

    /// An S3 error document: its code (`PreconditionFailed`, `NoSuchKey`, `SlowDown`…), its
    /// message, and the fields some codes carry (the bucket's region for a wrong region, the
    /// server's and the request's times for a skewed clock).
    struct ErrorDocument: Equatable {
        var code: String
        var message: String
        var fields: [String: String] = [:]
    }

    /// The error document in `bytes`; nil when it is not one.
    static func error(_ bytes: [UInt8]) -> ErrorDocument? {
        var collector = ErrorCollector()
        guard String(validating: bytes, as: UTF8.self) != nil,
            XMLReader.read(bytes, namespaces: namespaces, into: &collector), let code = collector.code, !code.isEmpty
        else { return nil }
        return ErrorDocument(code: code, message: collector.message ?? "", fields: collector.fields)
    }

    struct ListCollector: XMLCollector {
        var page = ListPage()
        var sawRoot = false
        var failed = false
        private var object: Object?
        private var inPrefixes = false
        private var objectSize: Int64?

        mutating func start(_ name: ArraySlice<UInt8>?, depth: Int) {
            guard let name else { return }
            if depth == 0 { sawRoot = name.elementsEqual("ListBucketResult".utf8) }
            guard depth == 1 else { return }
            if name.elementsEqual("Contents".utf8) {
                object = Object(key: "", etag: nil, size: -1)
                objectSize = nil
            }
            if name.elementsEqual("CommonPrefixes".utf8) { inPrefixes = true }
        }

        mutating func end(_ name: ArraySlice<UInt8>?, text: String) {
            guard let name else { return }
            if object != nil {
                if name.elementsEqual("Key".utf8) { object?.key = text }
                if name.elementsEqual("ETag".utf8) { object?.etag = text }
                if name.elementsEqual("Size".utf8) { objectSize = Int64(text) }
                if name.elementsEqual("Contents".utf8), let o = object {
                    // A key and a size that is a number: anything else is not a listing.
                    guard !o.key.isEmpty, let size = objectSize, size >= 0 else {
                        failed = true
                        return
                    }
                    page.objects.append(Object(key: o.key, etag: o.etag, size: size))
                    object = nil
                }
                return
            }
            if inPrefixes {
                if name.elementsEqual("Prefix".utf8) { page.commonPrefixes.append(text) }
                if name.elementsEqual("CommonPrefixes".utf8) { inPrefixes = false }
                return
            }
            if name.elementsEqual("IsTruncated".utf8) {
                guard text == "true" || text == "false" else {
                    failed = true
                    return
                }
                page.isTruncated = text == "true"
            }
            if name.elementsEqual("NextContinuationToken".utf8), !text.isEmpty { page.nextContinuationToken = text }
            if name.elementsEqual("KeyCount".utf8) { page.keyCount = Int(text) }
        }
    }

    struct ErrorCollector: XMLCollector {
        /// The fields kept besides the code and message (each capped: the body is hostile).
        static let kept: Set<String> = [
            "Region", "ServerTime", "RequestTime", "MaxAllowedSkewMilliseconds", "BucketName",
        ]
        var code: String?
        var message: String?
        var fields: [String: String] = [:]
        private var isError = false

        mutating func start(_ name: ArraySlice<UInt8>?, depth: Int) {
            if depth == 0 { isError = name?.elementsEqual("Error".utf8) == true }
        }

        mutating func end(_ name: ArraySlice<UInt8>?, text: String) {
            guard isError, let name else { return }
            let key = String(decoding: name, as: UTF8.self)
            let value = String(text.prefix(200))
            if key == "Code" { code = value }
            if key == "Message" { message = value }
            if Self.kept.contains(key) { fields[key] = value }
        }
    }
}

extension XMLReader {
    /// Reads `bytes` whole into `collector`; false when it is not well-formed XML.
    static func read(_ bytes: [UInt8], namespaces: Set<String>, into collector: inout some XMLCollector) -> Bool {
        var reader = XMLReader(bytes, namespaces: namespaces, trimsText: false)
        return reader.read(into: &collector)
    }
}
