import AISyncCore
import AISyncRemote
import AISyncStore

/// Orphan pictures on the remote (docs/DESIGN.md §5.8): bytes under `objects/` that no version names,
/// left by a push killed between its pictures and its segment, or by versions a snapshot
/// left out. A sweep notes when it first finds each one and removes it only once that is
/// older than the grace period: a device may have uploaded a picture and not yet the
/// segment that names it, and nothing would upload that picture again.
extension SyncEngine {
    /// Lists the remote's object folders and removes what no version in this store names and
    /// an earlier sweep already found so, at least `grace` ago. Never on the sweep that first
    /// finds it, even with no grace: another device may be between uploading a picture and
    /// the segment that names it, and nothing would put the picture back. Only object-shaped
    /// names are judged (64 lowercase hex characters under their 2-character folder);
    /// anything else stays. A remote that cannot list (plain HTTP) is left as it is. Call it
    /// only right after a pull, in the same lock.
    func sweepOrphans(grace: Int64, checkpoint: inout SyncCheckpoint, report: inout CompactReport)
        async throws(AISyncError)
    {
        // Stored names: an encrypted remote keys them, and they must not be keyed again.
        let raw = (remote as? EncryptedRemote)?.inner ?? remote
        guard raw.canList else { return }
        let now = store.environment.now()
        // Both names count on an encrypted remote: a plain copy `aisync encrypt` did not get
        // to seal yet may be the only one.
        var named = Set<String>()
        for digest in try await store.namedObjects() {
            let path = RemotePath.objectPath(digest)
            named.insert(path)
            if let sealed = remote as? EncryptedRemote { named.insert(sealed.storedPath(path)) }
        }
        let folders = try await raw.subfolders("objects") ?? (0..<256).map { Self.hexByte($0) }
        var waiting: [String: Int64] = [:]
        for (n, folder) in folders.enumerated() where Self.isObjectName(folder, length: 2) {
            try AISyncError.checkCancellation()
            progress(SyncProgress(phase: .pushingImages, done: n, total: folders.count, bytes: 0))
            for entry in try await raw.list("objects/\(folder)") ?? []
            where Self.isObjectName(entry.name, length: 64) && entry.name.hasPrefix(folder) {
                let path = "objects/\(folder)/\(entry.name)"
                guard !named.contains(path) else { continue }
                if let firstSeen = checkpoint.orphans[path], now - firstSeen >= grace {
                    try await raw.delete(path)
                    report.removedOrphans += 1
                } else {
                    waiting[path] = checkpoint.orphans[path] ?? now
                }
            }
        }
        report.waitingOrphans = waiting.count
        try await sweepUploads(raw, grace: grace, now: now, checkpoint: &checkpoint, report: &report)
        report.sweptOrphans = true
        checkpoint.orphans = waiting
        try await store.writeCheckpoint(checkpoint)
    }

    /// Ends the unfinished uploads (S3 multipart) an earlier sweep already found, at least
    /// `grace` ago: their parts are stored, and billed, until ended. Never one first found now:
    /// another device may be uploading it. Counted from when this device saw it, not from the
    /// time the store gives (a store's clock, or moto's fixed time, says nothing of this one).
    private func sweepUploads(
        _ raw: any RemoteStorage, grace: Int64, now: Int64, checkpoint: inout SyncCheckpoint,
        report: inout CompactReport
    ) async throws(AISyncError) {
        var waiting: [String: Int64] = [:]
        for upload in try await raw.unfinishedUploads() {
            try AISyncError.checkCancellation()
            if let firstSeen = checkpoint.unfinishedUploads[upload.id], now - firstSeen >= grace {
                try await raw.endUpload(upload)
                report.endedUploads += 1
            } else {
                waiting[upload.id] = checkpoint.unfinishedUploads[upload.id] ?? now
            }
        }
        report.waitingUploads = waiting.count
        checkpoint.unfinishedUploads = waiting
    }

    /// Whether `name` has `length` lowercase hex characters, as object names and folders do.
    static func isObjectName(_ name: String, length: Int) -> Bool {
        name.utf8.count == length && name.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    private static func hexByte(_ n: Int) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[n >> 4], digits[n & 15]])
    }
}
