import AISyncCore
import AISyncFiles

/// `aisync gc`: removes objects nothing in the journal names (pictures of records that were
/// never kept, values of a version that a crash left unjournaled) and leftovers of killed
/// writes. Everything it keeps is what `fsck` checks: bodies, large values and the pictures
/// any version of any record names, deleted records included (they can be restored).
extension Store {
    /// What ``collectGarbage(dryRun:minimumAgeMilliseconds:)`` removed (or would remove).
    public struct GarbageReport: Hashable, Sendable {
        /// Objects no version names, removed.
        public var objects: [SHA256Digest] = []
        /// Their bytes.
        public var bytes: Int64 = 0
        /// Temp files of writes that were killed (`incoming-…`, `….tmp-…`, `sync/tmp/…`).
        public var leftovers: [String] = []
        /// True when nothing was removed because it was a dry run.
        public var dryRun = false
    }

    /// Files younger than this are left alone: a pull stores a picture before the version
    /// that names it is journaled, and a writer's temp file may still be open.
    public static let garbageMinimumAgeMilliseconds: Int64 = 3_600_000

    /// Removes objects no journal line names and leftovers of killed writes, older than
    /// `minimumAgeMilliseconds`. Refuses (exit 65) when the journal is damaged: what a damaged
    /// line names cannot be known, so nothing may be collected.
    public func collectGarbage(dryRun: Bool = false, minimumAgeMilliseconds: Int64 = Store.garbageMinimumAgeMilliseconds) throws(AISyncError) -> GarbageReport {
        guard let lock = try StoreLock.acquire(root: root, timeoutMilliseconds: environment.lockTimeoutMilliseconds) else {
            throw AISyncError(.permission, "the store \(root) is read-only", hint: "Check the directory's permissions")
        }
        var check = FsckReport()
        var scan = try scanJournal(into: &check)
        guard check.problems.isEmpty else {
            throw AISyncError(.damagedData, "the journal is damaged (\(check.problems[0])), so nothing can be collected safely",
                              hint: "Run `aisync fsck` and repair the store first", remedy: .checkStore)
        }
        let (all, _) = objects.allObjects()
        checkReferencedObjects(&scan, present: Set(all), into: &check)
        let kept = Set(scan.referenced.keys).union(scan.imageBytes.keys)
        let cutoff = environment.now() - minimumAgeMilliseconds
        func old(_ path: String) -> Bool { (Platform.statInfo(path)?.modifiedNanoseconds ?? .max) / 1_000_000 <= cutoff }
        var report = GarbageReport(dryRun: dryRun)
        for digest in all where !kept.contains(digest) && old(objects.path(of: digest)) {
            report.objects.append(digest)
            report.bytes += Platform.stat(objects.path(of: digest))?.size ?? 0
            if !dryRun { _ = Platform.unlink(objects.path(of: digest)) }
        }
        for path in leftoverFiles() where old(path) {
            report.leftovers.append(path)
            if !dryRun { _ = Platform.unlink(path) }
        }
        _ = consume lock
        return report
    }

    /// Every object a version in the journal names (bodies, large values, pictures, those
    /// inside aisync 1 bodies, of deleted records too): a remote object not among them is an
    /// orphan there. Refuses (exit 65) a damaged journal or a missing or damaged body, which
    /// could name anything.
    package func namedObjects() throws(AISyncError) -> Set<SHA256Digest> {
        guard let lock = try StoreLock.acquire(root: root, timeoutMilliseconds: environment.lockTimeoutMilliseconds) else {
            throw AISyncError(.permission, "the store \(root) is read-only", hint: "Check the directory's permissions")
        }
        var check = FsckReport()
        var scan = try scanJournal(into: &check)
        // aisync 1 bodies name their pictures inside the body object.
        checkReferencedObjects(&scan, present: Set(objects.allObjects().objects), into: &check)
        _ = consume lock
        guard check.problems.isEmpty else {
            throw AISyncError(.damagedData, "the journal is damaged (\(check.problems[0])), so no remote object can be judged an orphan",
                              hint: "Run `aisync fsck` and repair the store first", remedy: .checkStore)
        }
        return Set(scan.referenced.keys).union(scan.imageBytes.keys)
    }

    /// Temp files a killed write can leave: in `objects/` and its subfolders, and `sync/tmp/`.
    private func leftoverFiles() -> [String] {
        var found: [String] = []
        let top = "\(root)/objects"
        for name in (Platform.listDirectory(top) ?? []).sorted() {
            let path = "\(top)/\(name)"
            if name.hasPrefix("incoming-") { found.append(path); continue }
            guard Platform.stat(path)?.isDirectory == true else { continue }
            for inner in (Platform.listDirectory(path) ?? []).sorted() where inner.contains(".tmp-") { found.append("\(path)/\(inner)") }
        }
        for name in (Platform.listDirectory("\(root)/sync/tmp") ?? []).sorted() { found.append("\(root)/sync/tmp/\(name)") }
        return found
    }
}
