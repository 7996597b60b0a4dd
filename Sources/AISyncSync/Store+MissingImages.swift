import AISyncCore
import AISyncFiles
import AISyncStore

/// `sync/missing-images.json`: the pictures whose records arrived but whose bytes no remote
/// (nor Imgur) had yet. Every pull tries them again; keeping the list means a pull with
/// nothing new tries only these instead of folding every image record in the store (a no-op
/// sync must cost O(1) locally, whatever the store size).
///
/// No file means "never recorded" (a store from an older aisync, or one that took its own
/// history back from a remote): the next pull scans every live image once and writes it.
extension Store {
    /// One picture a pull wants: its bytes' digest, and where Imgur serves a copy, if anywhere.
    typealias WantedImage = (digest: SHA256Digest, imgur: ImageBody.ImgurLocation?)

    var missingImagesPath: String { "\(root)/sync/missing-images.json" }

    /// The pictures recorded as missing; nil when nothing was ever recorded (scan instead).
    /// A damaged file counts as never recorded: it is only a cache of a scan.
    func missingImages() -> [WantedImage]? {
        guard let bytes = try? FileIO.read(missingImagesPath, limit: 1 << 24), let value = try? JSONParser.parse(bytes),
            value["format"]?.intValue == 1, let items = value["images"]?.arrayValue
        else { return nil }
        var result: [WantedImage] = []
        for item in items {
            guard let hex = item["sha256"]?.stringValue, let digest = SHA256Digest(hex: hex) else { return nil }
            result.append((digest, item["imgur"].flatMap { try? ImageBody.ImgurLocation(json: $0) }))
        }
        return result
    }

    /// Records the pictures still missing after a pull (rewritten only when it changed).
    func setMissingImages(_ images: [WantedImage]) throws(AISyncError) {
        let items = images.sorted { $0.digest.hex < $1.digest.hex }.map { image -> JSONValue in
            var o: JSONObject = ["sha256": .string(image.digest.hex)]
            // Where to fetch it, never the deletehash (a secret that stays in the records).
            o.setIfPresent(
                "imgur",
                image.imgur.map {
                    ImageBody.ImgurLocation(
                        id: $0.id, link: $0.link, servedSHA256: $0.servedSHA256, servedSize: $0.servedSize
                    ).json
                })
            return .object(o)
        }
        let bytes = JSONValue.object(["format": .int(1), "images": .array(items)]).canonicalBytes + [10]
        if (try? FileIO.read(missingImagesPath, limit: 1 << 24)) == bytes { return }
        try FileIO.makeDirectories("\(root)/sync")
        try FileIO.writeAtomically(missingImagesPath, bytes, temporarySuffix: environment.temporarySuffix())
    }

    /// Forgets the list: the next pull scans every live image (after taking history back,
    /// whose pictures were never looked for).
    func forgetMissingImages() {
        _ = Platform.unlink(missingImagesPath)
    }
}
