import AISyncCore

extension SyncReport {
    /// The push, pull and sync document: `{pushed, pulled, conflicts, bytes, segments, blobs,
    /// missingImages: [sha256], dryRun, massDelete, imgur: {uploaded, pending, failed, deleted}}`.
    public var json: JSONValue {
        .object([
            "pushed": .int(Int64(pushed)), "pulled": .int(Int64(pulled)), "conflicts": .int(Int64(conflicts)),
            "bytes": .int(bytes), "segments": .int(Int64(segments)), "blobs": .int(Int64(blobs)),
            "missingImages": .array(missingBlobs.map { .string($0.hex) }), "dryRun": .bool(dryRun),
            "massDelete": .int(Int64(massDelete)),
            "imgur": .object([
                "uploaded": .int(Int64(imgurUploaded)), "pending": .int(Int64(imgurPending)),
                "failed": .int(Int64(imgurFailed)), "deleted": .int(Int64(imgurDeleted)),
            ]),
        ])
    }
}

extension SyncEngine.CompactReport {
    /// The compact document: `{snapshot, parts, versions, dropped, bytes, removedSegments,
    /// removedSnapshotParts, sweptOrphans, removedOrphans, waitingOrphans, endedUploads, waitingUploads}`.
    public var json: JSONValue {
        .object([
            "snapshot": .int(snapshot), "parts": .int(Int64(parts)), "versions": .int(Int64(versions)),
            "dropped": .int(Int64(dropped)), "bytes": .int(bytes), "removedSegments": .int(Int64(removedSegments)),
            "removedSnapshotParts": .int(Int64(removedSnapshotParts)), "sweptOrphans": .bool(sweptOrphans),
            "removedOrphans": .int(Int64(removedOrphans)), "waitingOrphans": .int(Int64(waitingOrphans)),
            "endedUploads": .int(Int64(endedUploads)), "waitingUploads": .int(Int64(waitingUploads)),
        ])
    }
}

extension SyncEngine.CompactReport {
    /// What a sweep of remote `name` without compaction did (`gc` with a remote): `{name,
    /// sweptOrphans, removedOrphans, waitingOrphans, endedUploads, waitingUploads}`.
    public func sweepJSON(remote name: String) -> JSONValue {
        .object([
            "name": .string(name), "sweptOrphans": .bool(sweptOrphans),
            "removedOrphans": .int(Int64(removedOrphans)), "waitingOrphans": .int(Int64(waitingOrphans)),
            "endedUploads": .int(Int64(endedUploads)), "waitingUploads": .int(Int64(waitingUploads)),
        ])
    }
}

extension ImgurStatus {
    /// The Imgur status document: `{enabled, images, uploads, deletes, pending, failed:
    /// [{sha256, message}], retryAt?, rateLimit?}`.
    public var json: JSONValue {
        var o: JSONObject = [
            "enabled": .bool(enabled), "images": .string(images.rawValue),
            "uploads": .int(uploads), "deletes": .int(deletes), "pending": .int(Int64(pending)),
            "failed": .array(
                failed.map { .object(["sha256": .string($0.sha256.hex), "message": .string($0.message)]) }),
        ]
        if let retryAt { o["retryAt"] = .string(Timestamp(milliseconds: retryAt * 1000).iso8601) }
        if let rateLimit { o["rateLimit"] = rateLimit }
        return .object(o)
    }
}
