import AISyncCore

/// An OpenAI Images API response: `{created, data: [{b64_json | url, revised_prompt}]}`.
///
/// Each `b64_json` picture becomes an image record whose id derives from its bytes' sha256,
/// so the same picture is never imported twice. The prompt is `--prompt` when given, else
/// the response's `revised_prompt`. A `url` expires an hour after the response was made: it
/// is fetched only when the caller asked (`Import.Options.fetch`, the CLI's `--fetch`), and
/// otherwise noted in the summary.
enum DalleImporter {
    /// The `url`s of the entries that have no `b64_json`, in order.
    static func urls(in document: ImportInput.Document) -> [String] {
        (document.value["data"]?.arrayValue ?? []).compactMap { entry in
            entry["b64_json"] == nil ? entry["url"]?.stringValue : nil
        }
    }

    /// `fetched` holds what fetching each `url` gave (empty when nothing was fetched).
    static func read(
        _ document: ImportInput.Document, options: Import.Options, now: Timestamp,
        fetched: [String: Result<[UInt8], AISyncError>] = [:], into batch: inout ImportBatch
    ) throws(AISyncError) {
        guard case .array(let data)? = document.value["data"] else {
            throw Import.notAn("an Images API response", document, expected: "an object with a data list")
        }
        let created = ImportIDs.time(seconds: document.value["created"]) ?? now
        var notFetched = 0
        var failed: [String] = []
        for (n, entry) in data.enumerated() {
            let bytes: [UInt8]
            if entry["b64_json"] == nil, let url = entry["url"]?.stringValue {
                switch fetched[url] {
                case .success(let got)?: bytes = got
                case .failure(let error)?:
                    failed.append(error.message)
                    continue
                case nil:
                    notFetched += 1
                    continue
                }
            } else {
                guard let text = entry["b64_json"]?.stringValue else {
                    batch.skip("#\(n + 1)", "it has neither b64_json nor url")
                    continue
                }
                guard let decoded = Base64.decode(text) else {
                    batch.skip("#\(n + 1)", "its b64_json is not base64")
                    continue
                }
                bytes = decoded
            }
            add(bytes, entry: entry, n: n, options: options, created: created, into: &batch)
        }
        if notFetched > 0 {
            batch.notes.append(
                "\(notFetched) image URL(s) not fetched: Images API URLs expire an hour after the response; fetch them within the hour, or request b64_json"
            )
        }
        if let first = failed.first {
            batch.notes.append(
                "\(failed.count) image URL(s) could not be fetched (Images API URLs expire after an hour): \(first)")
        }
    }

    /// One picture's bytes as an image record, or a skip when they are not an image.
    static func add(
        _ bytes: [UInt8], entry: JSONValue, n: Int, options: Import.Options, created: Timestamp,
        into batch: inout ImportBatch
    ) {
        guard let info = ImageSniffer.sniff(Array(bytes.prefix(ImageSniffer.maxHeaderLength))) else {
            batch.skip("#\(n + 1)", "it is not an image this version recognizes")
            return
        }
        var hasher = SHA256()
        bytes.withUnsafeBytes { hasher.update(bytes: $0) }
        let digest = hasher.finalize()
        let prompt = options.prompt ?? entry["revised_prompt"]?.stringValue
        let body = ImageBody(
            title: ImportIDs.title(prompt.map { String($0.prefix(80)) }, fallback: "DALL·E image"),
            sha256: digest, size: Int64(bytes.count), mediaType: info.mediaType,
            width: info.width.map(Int64.init), height: info.height.map(Int64.init),
            prompt: prompt, model: options.model, created: created, updated: created)
        batch.add(ImportIDs.record(.image, key: "image:\(digest.hex)"), .image(body), imageBytes: bytes)
    }
}
