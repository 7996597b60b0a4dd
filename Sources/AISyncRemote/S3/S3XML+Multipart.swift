import AISyncCore

/// The answers of S3's multipart calls: CreateMultipartUpload's upload id,
/// CompleteMultipartUpload's result (which may be an error with status 200), and
/// ListMultipartUploads' pages. Read by the strict reader like every other answer.
extension S3XML {
    /// One upload a ListMultipartUploads page names.
    struct PendingUpload: Equatable {
        var key: String
        var uploadID: String
    }

    /// One page of ListMultipartUploads.
    struct UploadsPage: Equatable {
        var uploads: [PendingUpload] = []
        var isTruncated = false
        var nextKeyMarker: String?
        var nextUploadIDMarker: String?
    }

    /// The upload id in an `InitiateMultipartUploadResult`; nil when there is none.
    static func uploadID(_ bytes: [UInt8]) -> String? {
        guard let fields = fields(bytes, root: "InitiateMultipartUploadResult", item: nil),
            let id = fields.top["UploadId"], !id.isEmpty
        else { return nil }
        return id
    }

    /// What a `CompleteMultipartUploadResult` says: the new object's ETag, when it gives one.
    struct Completed: Equatable {
        var etag: String?
    }

    /// The result in `bytes`; nil when it is not one (an `Error` document is read with
    /// ``error(_:)``). moto names its root `CompleteMultipartUploadResponse`.
    static func completed(_ bytes: [UInt8]) -> Completed? {
        guard
            let fields = fields(bytes, root: "CompleteMultipartUploadResult", item: nil)
                ?? fields(bytes, root: "CompleteMultipartUploadResponse", item: nil)
        else { return nil }
        return Completed(etag: fields.top["ETag"])
    }

    /// A ListMultipartUploads page; nil when `bytes` is not one (a truncated page without its
    /// markers is not one either: following it would loop).
    static func uploadsPage(_ bytes: [UInt8]) -> UploadsPage? {
        guard let fields = fields(bytes, root: "ListMultipartUploadsResult", item: "Upload") else { return nil }
        var page = UploadsPage()
        guard
            let truncated = fields.top["IsTruncated"].map({ $0 == "true" ? true : $0 == "false" ? false : nil })
                ?? false
        else { return nil }
        page.isTruncated = truncated
        page.nextKeyMarker = fields.top["NextKeyMarker"].flatMap { $0.isEmpty ? nil : $0 }
        page.nextUploadIDMarker = fields.top["NextUploadIdMarker"].flatMap { $0.isEmpty ? nil : $0 }
        if page.isTruncated, page.nextKeyMarker == nil { return nil }
        for item in fields.items {
            guard let key = item["Key"], !key.isEmpty, let id = item["UploadId"], !id.isEmpty else { return nil }
            page.uploads.append(PendingUpload(key: key, uploadID: id))
        }
        return page
    }

    /// The text of the root's child elements (`top`), and of the children of each `item`
    /// element (`items`); nil when `bytes` is not well-formed UTF-8 XML with that root.
    static func fields(_ bytes: [UInt8], root: String, item: String?) -> FieldsCollector? {
        var collector = FieldsCollector(item: item)
        guard String(validating: bytes, as: UTF8.self) != nil,
            XMLReader.read(bytes, namespaces: namespaces, into: &collector), collector.root == root,
            !collector.failed
        else { return nil }
        return collector
    }

    /// Collects the text of the root's children, and of each `item` element's children.
    struct FieldsCollector: XMLCollector {
        /// The most items a page may hold (AWS sends at most 1,000); more is hostile.
        static let maxItems = 10_000
        let item: String?
        var root: String?
        var top: [String: String] = [:]
        var items: [[String: String]] = []
        var failed = false
        private var current: [String: String]?
        /// How many elements are open.
        private var open = 0

        init(item: String?) { self.item = item }

        mutating func start(_ name: ArraySlice<UInt8>?, depth: Int) {
            open = depth + 1
            guard let name else { return }
            if depth == 0 { root = String(decoding: name, as: UTF8.self) }
            if depth == 1, let item, name.elementsEqual(item.utf8) { current = [:] }
        }

        mutating func end(_ name: ArraySlice<UInt8>?, text: String) {
            let depth = open - 1
            open -= 1
            guard let name else { return }
            let key = String(decoding: name, as: UTF8.self)
            let value = String(text.prefix(4096))
            if depth == 1, current != nil, key == item {
                if let done = current { items.append(done) }
                current = nil
                if items.count > Self.maxItems { failed = true }
            } else if depth == 1 {
                top[key] = value
            } else if depth == 2, current != nil {
                current?[key] = value
            }
        }
    }
}
