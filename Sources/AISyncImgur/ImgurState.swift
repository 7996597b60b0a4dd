import AISyncCore
import AISyncFiles
import AISyncHTTP

/// `sync/imgur.json`: what this store knows about its Imgur uploads beyond the records.
///
/// An upload's answer is saved here (fsynced) the moment Imgur sends it, before the image
/// record is updated: a crash in between then reuses the upload instead of making another.
package struct ImgurState: Sendable, Equatable {
    package struct Upload: Sendable, Equatable {
        package var id: String
        package var link: String
        package var deletehash: String?
        package var size: Int64

        package init(id: String, link: String, deletehash: String?, size: Int64) {
            self.id = id
            self.link = link
            self.deletehash = deletehash
            self.size = size
        }
    }

    /// Answers not yet recorded in an image record, by original sha256.
    package var answered: [SHA256Digest: Upload] = [:]
    /// Images Imgur refused, with Imgur's message; not retried until the record changes.
    package var failed: [SHA256Digest: String] = [:]
    /// Imgur images whose last user was deleted, waiting to be deleted on Imgur: id → deletehash.
    package var pendingDeletes: [String: String] = [:]
    /// Uploads whose answer never arrived (a dropped connection): Imgur may have stored them.
    /// With a token they are looked for among the account's images before uploading again.
    package var maybeUploaded: Set<SHA256Digest> = []
    package var uploads: Int64 = 0
    package var deletes: Int64 = 0
    /// Unix seconds before which no upload is tried (a 429).
    package var retryAt: Int64?
    /// The last rate-limit figures seen, as shown by `aisync imgur status`.
    package var rateLimit: JSONValue?

    package init() {}

    package var json: JSONValue {
        var o: JSONObject = [
            "format": .int(1), "uploads": .int(uploads), "deletes": .int(deletes),
            "answered": .object(
                JSONObject(
                    uniqueKeysWithValues: answered.map { key, u in
                        var v: JSONObject = [
                            "id": .string(u.id), "link": .string(u.link), "size": .int(u.size),
                        ]
                        v.setIfPresent("deletehash", u.deletehash.map(JSONValue.string))
                        return (key.hex, JSONValue.object(v))
                    })),
            "failed": .object(
                JSONObject(uniqueKeysWithValues: failed.map { ($0.key.hex, JSONValue.string($0.value)) })),
            "pendingDeletes": .object(JSONObject(pendingDeletes.mapValues(JSONValue.string))),
            "maybeUploaded": .array(maybeUploaded.map(\.hex).sorted().map(JSONValue.string)),
        ]
        o.setIfPresent("retryAt", retryAt.map(JSONValue.int))
        o.setIfPresent("rateLimit", rateLimit)
        return .object(o)
    }

    package init(bytes: [UInt8], path: String) throws(AISyncError) {
        let bad = AISyncError(
            .damagedData, "\(path) is damaged",
            hint: "Delete it; pending Imgur uploads are found again from the records")
        guard let value = try? JSONParser.parse(bytes), value["format"]?.intValue == 1 else { throw bad }
        uploads = value["uploads"]?.intValue ?? 0
        deletes = value["deletes"]?.intValue ?? 0
        retryAt = value["retryAt"]?.intValue
        rateLimit = value["rateLimit"]
        for (key, u) in value["answered"]?.objectValue ?? [:] {
            guard let d = SHA256Digest(hex: key), let id = u["id"]?.stringValue, let link = u["link"]?.stringValue,
                let size = u["size"]?.intValue
            else { throw bad }
            answered[d] = Upload(id: id, link: link, deletehash: u["deletehash"]?.stringValue, size: size)
        }
        for item in value["maybeUploaded"]?.arrayValue ?? [] {
            guard let text = item.stringValue, let d = SHA256Digest(hex: text) else { throw bad }
            maybeUploaded.insert(d)
        }
        for (key, hash) in value["pendingDeletes"]?.objectValue ?? [:] {
            guard let h = hash.stringValue else { throw bad }
            pendingDeletes[key] = h
        }
        for (key, message) in value["failed"]?.objectValue ?? [:] {
            guard let d = SHA256Digest(hex: key), let m = message.stringValue else { throw bad }
            failed[d] = m
        }
    }
}
