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
        report.sweptOrphans = true
        checkpoint.orphans = waiting
        try await store.writeCheckpoint(checkpoint)
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
