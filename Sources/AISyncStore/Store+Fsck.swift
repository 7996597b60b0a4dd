import AISyncCore
import AISyncFiles

/// `aisync fsck`: re-hash every object and check every journal line, naming each problem.
extension Store {
    /// What ``fsck()`` found.
    public struct FsckReport: Hashable, Sendable {
        /// One thing wrong with the store, located to a file (and line).
        public struct Problem: Hashable, Sendable, CustomStringConvertible {
            /// The damaged or missing file's path, or the journal naming a missing object.
            public var path: String
            /// The 1-based journal line, when the problem is on one; nil for a file as a whole.
            public var line: Int?
            /// What is wrong, e.g. `image bytes … are missing from objects/`.
            public var message: String
            /// `path:line: message` (or `path: message`), like a compiler diagnostic.
            public var description: String { line.map { "\(path):\($0): \(message)" } ?? "\(path): \(message)" }
        }
        /// Every problem found, in the order they were found; empty when the store is sound.
        public var problems: [Problem] = []
        /// How many journal lines were checked.
        public var journalLines = 0
        /// How many objects were re-hashed.
        public var objectsChecked = 0
        /// Bytes of a torn last journal line (a crash mid-append) removed before checking;
        /// 0 when there was none or the store is read-only.
        public var droppedTornBytes: Int64 = 0
        /// True when no problem was found.
        public var isSound: Bool { problems.isEmpty }
        /// Pictures other devices added whose bytes this store has not downloaded yet (the
        /// remote lacked them at the last pull). A state, not damage: a pull fetches them
        /// when they appear. Bytes missing for a picture this device added are a problem.
        public var imagesNotDownloaded: [SHA256Digest] = []
        /// Paths in the store other accounts can read, write or enter (also one problem,
        /// naming the widest); nil when none can.
        public var exposure: Exposure?
        /// How many paths a repair made private again (``fsck(repair:)``).
        public var madePrivate = 0
    }

    /// Checks the whole store: parses and verifies every journal line, re-hashes every object,
    /// and checks that every object the journal names (bodies, large values, image bytes) is
    /// present. Problems are reported, not thrown; it throws only when the store cannot be
    /// read or another process holds its lock too long.
    /// Reads every byte of the store, so it is slow on large stores.
    /// Paths other accounts can read, write or enter are a problem too; with `repair` they
    /// are made private first (``makePrivate()``), the one change a check makes besides
    /// dropping a torn last line.
    public func fsck(repair: Bool = false) throws(AISyncError) -> FsckReport {
        let lock = try StoreLock.acquire(root: root, timeoutMilliseconds: environment.lockTimeoutMilliseconds)
        var report = FsckReport()
        if repair { report.madePrivate = try makePrivate() }
        report.exposure = exposure()
        if let exposure = report.exposure {
            report.problems.append(.init(path: exposure.widest, message: "\(exposure.problem)"))
        }
        if lock != nil { report.droppedTornBytes = try journal.dropTornTail() }
        var scan = try scanJournal(into: &report)
        let (all, strays) = objects.allObjects()
        for stray in strays {
            report.problems.append(
                .init(path: "\(root)/\(stray)", message: "unexpected file in objects/ (not named by its sha256)"))
        }
        for digest in all {
            report.objectsChecked += 1
            if objects.verify(digest) != true {
                report.problems.append(
                    .init(path: objects.path(of: digest), message: "bytes no longer match the object's name (damaged)"))
            }
        }
        let present = Set(all)
        checkReferencedObjects(&scan, present: present, into: &report)
        for (digest, ref) in scan.imageBytes.sorted(by: { $0.value.line < $1.value.line })
        where !present.contains(digest) {
            if ref.ours {
                report.problems.append(
                    .init(
                        path: journal.path, line: ref.line,
                        message: "image bytes \(digest.hex) are missing from objects/"))
            } else {
                report.imagesNotDownloaded.append(digest)
            }
        }
        _ = consume lock
        return report
    }

    /// What the journal names, as `fsck` collects it.
    struct JournalScan {
        /// Objects the journal names: aisync 1 bodies (kind set) and large values (kind nil).
        var referenced: [SHA256Digest: (kind: RecordKind?, line: Int)] = [:]
        /// Pictures the records show, with the first line naming them and whether a version
        /// this device wrote names them (then missing bytes are damage, not a pending download).
        var imageBytes: [SHA256Digest: (line: Int, ours: Bool)] = [:]
        /// Whether this device wrote a version with each aisync 1 body (its pictures are ours).
        var legacyOurs: [SHA256Digest: Bool] = [:]

        mutating func notePicture(_ image: SHA256Digest, line: Int, ours: Bool) {
            guard imageBytes[image]?.ours != true else { return }
            imageBytes[image] = (imageBytes[image]?.line ?? line, ours)
        }
    }

    /// Parses and verifies every journal line, noting what each names.
    func scanJournal(into report: inout FsckReport) throws(AISyncError) -> JournalScan {
        let bytes = try FileIO.read(journal.path, limit: 1 << 40)
        var scan = JournalScan()
        var line = 0
        for raw in bytes.split(separator: 10, omittingEmptySubsequences: false).dropLast() {
            line += 1
            do {
                let version = try Version(json: try JSONParser.parse(raw))
                if let body = version.legacyBody {
                    if scan.referenced[body] == nil { scan.referenced[body] = (version.kind, line) }
                    scan.legacyOurs[body] = scan.legacyOurs[body] == true || version.device == deviceID
                }
                for d in version.ops.compactMap({ $0.value?.objectDigest }) where scan.referenced[d] == nil {
                    scan.referenced[d] = (nil, line)
                }
                for image in Self.imageReferences(version.ops) {
                    scan.notePicture(image, line: line, ours: version.device == deviceID)
                }
            } catch let error as AISyncError {
                report.problems.append(
                    .init(path: journal.path, line: line, message: "damaged journal line: \(error.message)"))
            } catch {
                report.problems.append(.init(path: journal.path, line: line, message: "damaged journal line: \(error)"))
            }
        }
        if bytes.last.map({ $0 != 10 }) ?? false {
            report.problems.append(
                .init(
                    path: journal.path, line: line + 1,
                    message: "torn final line (store is read-only, so it was not dropped)"))
        }
        report.journalLines = line
        return scan
    }

    /// Every object the journal names must be present and parse; aisync 1 bodies also name
    /// pictures.
    func checkReferencedObjects(_ scan: inout JournalScan, present: Set<SHA256Digest>, into report: inout FsckReport) {
        for (digest, ref) in scan.referenced.sorted(by: { $0.value.line < $1.value.line }) {
            guard present.contains(digest) else {
                report.problems.append(
                    .init(path: journal.path, line: ref.line, message: "body object \(digest.hex) is missing"))
                continue
            }
            guard let body = try? objects.get(digest) else { continue }
            guard let kind = ref.kind else {
                if (try? JSONParser.parse(body)) == nil {
                    report.problems.append(.init(path: objects.path(of: digest), message: "value object is not JSON"))
                }
                continue
            }
            do {
                let decoded = try RecordBody(bytes: body, expected: kind)
                for image in decoded.imageReferences {
                    scan.notePicture(image, line: ref.line, ours: scan.legacyOurs[digest] ?? true)
                }
            } catch {
                report.problems.append(
                    .init(path: objects.path(of: digest), message: "record body is invalid: \(error.message)"))
            }
        }
    }

    /// Image bytes that v2 operations refer to: an image record's `sha256`, a page's picture.
    static func imageReferences(_ ops: [Operation]) -> [SHA256Digest] {
        ops.compactMap { op in
            switch op {
            case .set("sha256", .inline(.string(let hex))): SHA256Digest(hex: hex)
            case .add("pages", _, .inline(let v)), .edit("pages", _, .inline(let v)):
                v["image"]?.stringValue.flatMap { SHA256Digest(hex: $0) }
            default: nil
            }
        }
    }
}
