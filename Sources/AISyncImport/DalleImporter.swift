import AISyncCore

/// An OpenAI Images API response: `{created, data: [{b64_json | url, revised_prompt}]}`.
///
/// Each `b64_json` picture becomes an image record whose id derives from its bytes' sha256,
/// so the same picture is never imported twice. The prompt is `--prompt` when given, else
/// the response's `revised_prompt`. A `url` is not fetched (it expires an hour after the
/// response was made): it is noted in the summary.
enum DalleImporter {
    static func read(_ document: ImportInput.Document, options: Import.Options, now: Timestamp, into batch: inout ImportBatch) throws(AISyncError) {
        guard case .array(let data)? = document.value["data"] else {
            throw Import.notAn("an Images API response", document, expected: "an object with a data list")
        }
        let created = ImportIDs.time(seconds: document.value["created"]) ?? now
        var urls = 0
        for (n, entry) in data.enumerated() {
            if entry["b64_json"] == nil, entry["url"]?.stringValue != nil { urls += 1; continue }
            guard let text = entry["b64_json"]?.stringValue else { batch.skip("#\(n + 1)", "it has neither b64_json nor url"); continue }
            guard let bytes = Base64.decode(text) else { batch.skip("#\(n + 1)", "its b64_json is not base64"); continue }
            guard let info = ImageSniffer.sniff(Array(bytes.prefix(ImageSniffer.maxHeaderLength))) else {
                batch.skip("#\(n + 1)", "its b64_json is not an image aisync recognizes"); continue
            }
            var hasher = SHA256()
            bytes.withUnsafeBytes { hasher.update(bytes: $0) }
            let digest = hasher.finalize()
            let prompt = options.prompt ?? entry["revised_prompt"]?.stringValue
            let body = ImageBody(title: ImportIDs.title(prompt.map { String($0.prefix(80)) }, fallback: "DALL·E image"),
                                 sha256: digest, size: Int64(bytes.count), mediaType: info.mediaType,
                                 width: info.width.map(Int64.init), height: info.height.map(Int64.init),
                                 prompt: prompt, model: options.model, created: created, updated: created)
            batch.add(ImportIDs.record(.image, key: "image:\(digest.hex)"), .image(body), imageBytes: bytes)
        }
        if urls > 0 {
            batch.notes.append("\(urls) image URL(s) not fetched: Images API URLs expire an hour after the response; request b64_json instead")
        }
    }
}
