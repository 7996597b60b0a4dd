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
    /// `minimumAgeMilliseconds`. Refuses (exit 65) when the journal or a body is damaged or
    /// missing: what it names cannot be known, so nothing may be collected.
    public func collectGarbage(
        dryRun: Bool = false, minimumAgeMilliseconds: Int64 = Store.garbageMinimumAgeMilliseconds
    ) throws(AISyncError) -> GarbageReport {
        guard let lock = try StoreLock.acquire(root: root, timeoutMilliseconds: environment.lockTimeoutMilliseconds)
        else {
            throw AISyncError(.permission, "the store \(root) is read-only", hint: "Check the directory's permissions")
        }
        let (kept, all) = try namesAndObjects(or: "nothing can be collected safely")
        let cutoff = environment.now() - minimumAgeMilliseconds
        func old(_ path: String) -> Bool {
            (Platform.statInfo(path)?.modifiedNanoseconds ?? .max) / 1_000_000 <= cutoff
        }
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
        guard let lock = try StoreLock.acquire(root: root, timeoutMilliseconds: environment.lockTimeoutMilliseconds)
        else {
            throw AISyncError(.permission, "the store \(root) is read-only", hint: "Check the directory's permissions")
        }
        let (named, _) = try namesAndObjects(or: "no remote object can be judged an orphan")
        _ = consume lock
        return named
    }

    /// With the store locked: every object a version names (bodies, large values, pictures,
    /// those inside aisync 1 bodies) and every object present. Refuses (exit 65) a damaged
    /// journal or a missing or damaged body, saying `refused` cannot be done: what a damaged
    /// line or body names cannot be known.
    private func namesAndObjects(or refused: String) throws(AISyncError) -> (
        named: Set<SHA256Digest>, present: [SHA256Digest]
    ) {
        var check = FsckReport()
        var scan = try scanJournal(into: &check)
        let present = objects.allObjects().objects
        if check.problems.isEmpty { checkReferencedObjects(&scan, present: Set(present), into: &check) }
        guard check.problems.isEmpty else {
            throw AISyncError(
                .damagedData, "the store is damaged (\(check.problems[0])), so \(refused)",
                hint: "Check the store and repair it first", remedy: .checkStore)
        }
        return (Set(scan.referenced.keys).union(scan.imageBytes.keys), present)
    }

    /// Temp files a killed write can leave: in `objects/` and its subfolders, and `sync/tmp/`.
    private func leftoverFiles() -> [String] {
        var found: [String] = []
        let top = "\(root)/objects"
        for name in (Platform.listDirectory(top) ?? []).sorted() {
            let path = "\(top)/\(name)"
            if name.hasPrefix("incoming-") {
                found.append(path)
                continue
            }
            guard Platform.stat(path)?.isDirectory == true else { continue }
            for inner in (Platform.listDirectory(path) ?? []).sorted() where inner.contains(".tmp-") {
                found.append("\(path)/\(inner)")
            }
        }
        for name in (Platform.listDirectory("\(root)/sync/tmp") ?? []).sorted() {
            found.append("\(root)/sync/tmp/\(name)")
        }
        return found
    }
}
