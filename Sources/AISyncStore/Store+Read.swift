import AISyncCore
import AISyncFiles
import Foundation

/// Queries. They read through the same lock-and-refresh path, so they see every saved write.
extension Store {
    /// A record's state; a line list the index cannot decode means the index is damaged,
    /// so it is removed (the next command rebuilds it from the journal).
    package func stateOf(_ id: RecordID, in snapshot: StoreSnapshot) throws(AISyncError) -> RecordState? {
        do {
            if let state = try snapshot.state(id, reader: reader) { return state }
        } catch  where error.code == .temporary {
            dropIndex()
            throw error
        }
        guard try snapshot.summary(id) != nil else { return nil }
        throw IndexBase.damaged
    }

    /// Forgets a damaged or stale index: the next command rebuilds it from the journal.
    func dropIndex() {
        _ = Platform.unlink(index.path)
        cache = nil
    }

    /// The state of a record that exists and is not deleted.
    func liveState(_ id: RecordID, in snapshot: StoreSnapshot) throws(AISyncError) -> RecordState {
        guard let state = try stateOf(id, in: snapshot) else {
            throw AISyncError.noRecord(id)
        }
        guard !state.isDeleted else {
            throw AISyncError.recordDeleted(id, inConflict: state.isConflict)
        }
        return state
    }

    /// The record as people see it, reading large values from objects.
    package func visibleBody(_ state: RecordState) throws(AISyncError) -> RecordBody {
        let reader = self.reader
        return try state.body { (d: SHA256Digest) throws(AISyncError) -> JSONValue in try reader.resolve(d) }
    }

    /// Live records (not deleted), newest first, optionally of one kind.
    public func list(kind: RecordKind? = nil, includeDeleted: Bool = false) throws(AISyncError) -> [RecordSummary] {
        try listing(kind: kind, includeDeleted: includeDeleted).all
    }

    /// From how many records a listing reads the index on every core (``IndexBase/listKeys(parts:include:)``).
    static let listOnCores = 50_000

    /// The same records as ``list(kind:includeDeleted:)`` in the same order, read from the
    /// index one by one as they are asked for: what a large store's list streams and what an
    /// app pages through (4 bytes a record held, not the summaries).
    public func listing(kind: RecordKind? = nil, includeDeleted: Bool = false) throws(AISyncError) -> RecordListing {
        try locked(write: false) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> RecordListing in
            // Lines are listed by where they start, in 32 bits: checked before any is read.
            let indexBytes = snapshot.indexBase?.file.count ?? 0
            guard RecordListing.Position.fits(indexBytes: indexBytes, changed: 0) else {
                throw Self.tooLargeToList(indexBytes)
            }
            if snapshot.changedCount == 0, let base = snapshot.indexBase, base.header.records ?? 0 >= Self.listOnCores {
                // Nothing changed since the index was written: its lines alone, on every core.
                var (times, offsets) = try base.listKeys(parts: ProcessInfo.processInfo.activeProcessorCount) {
                    (k: RecordKind, deleted: Bool) in (includeDeleted || !deleted) && (kind == nil || k == kind)
                }
                let order = RecordListing.newestFirst(&times, positions: offsets)
                return RecordListing(base: base, changed: [], order: order)
            }
            var times: [Int64] = []
            var positions: [UInt32] = []
            var changed: [RecordSummary] = []
            times.reserveCapacity(snapshot.counts.records)
            positions.reserveCapacity(snapshot.counts.records)
            try snapshot.forEachListed {
                (k: RecordKind, updated: Int64, deleted: Bool, at: StoreSnapshot.Listed) throws(AISyncError) in
                guard (includeDeleted || !deleted) && (kind == nil || k == kind) else { return }
                times.append(updated)
                switch at {
                case .line(let offset):
                    // Below 4 GiB: the file's size was checked above.
                    positions.append(RecordListing.Position.line(offset: UInt32(offset)).packed)
                case .changed(let s):
                    positions.append(RecordListing.Position.changed(changed.count).packed)
                    changed.append(s)
                }
            }
            guard RecordListing.Position.fits(indexBytes: indexBytes, changed: changed.count) else {
                throw Self.tooLargeToList(indexBytes)
            }
            // Newest first; records visited in id order, so equal times keep id order.
            let order = RecordListing.newestFirst(&times, positions: positions)
            return RecordListing(base: snapshot.indexBase, changed: changed, order: order)
        }
    }

    /// An index (and the records changed since it) past what a listing's 32-bit positions
    /// hold: about 40 million records.
    private static func tooLargeToList(_ indexBytes: Int) -> AISyncError {
        AISyncError(
            .io, "the store's index is too large to list (\(indexBytes) bytes; a listing reads up to 4 GiB)",
            hint: "List one kind at a time with a smaller store, or split the store")
    }

    /// The summaries of `ids` that exist, newest first, and how many records the store has:
    /// a lookup each, not a listing of the store.
    package func summaries(of ids: some Sequence<RecordID>) throws(AISyncError) -> (
        found: [RecordSummary], records: Int
    ) {
        try locked(write: false) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> ([RecordSummary], Int) in
            var found: [RecordSummary] = []
            for id in ids { if let s = try snapshot.summary(id) { found.append(s) } }
            found.sort { $0.updated != $1.updated ? $0.updated > $1.updated : $0.id < $1.id }
            return (found, snapshot.counts.records)
        }
    }

    /// A record's current state and its visible body (nil when it is deleted).
    public func record(_ id: RecordID) throws(AISyncError) -> (state: RecordState, body: RecordBody?) {
        try locked(write: false) {
            (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> (RecordState, RecordBody?) in
            guard let state = try stateOf(id, in: snapshot) else {
                throw AISyncError.noRecord(id)
            }
            return (state, state.isDeleted ? nil : try visibleBody(state))
        }
    }

    /// The visible body as canonical JSON (what `show --json` prints).
    public func canonicalBody(_ id: RecordID) throws(AISyncError) -> [UInt8] {
        try locked(write: false) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> [UInt8] in
            try visibleBody(try liveState(id, in: snapshot)).canonicalBytes
        }
    }

    /// The sha256 of a live image record's original bytes.
    func imageDigest(_ id: RecordID) throws(AISyncError) -> SHA256Digest { try imageBody(id).sha256 }

    /// A live image record's body (its sha256, media type, size…).
    func imageBody(_ id: RecordID) throws(AISyncError) -> ImageBody {
        try locked(write: false) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> ImageBody in
            let state = try liveState(id, in: snapshot)
            guard case .image(let image) = try visibleBody(state) else {
                throw AISyncError(
                    .usage, "\(id) is \(state.kind.withArticle), not an image", hint: "See the list of images",
                    remedy: .listImages)
            }
            return image
        }
    }

    /// Where an image's original bytes are on disk, for an app to display; nil while they
    /// have not been downloaded yet. The file is content-addressed and must not be modified.
    public func imageFilePath(_ id: RecordID) throws(AISyncError) -> String? {
        let digest = try imageDigest(id)
        return objects.contains(digest) ? objects.path(of: digest) : nil
    }

    /// The image's local file as a `file://` URL, for `Image(contentsOf:)`/`AsyncImage` or a
    /// share sheet; nil while its bytes have not been downloaded yet. Do not modify the file.
    public func imageFileURL(_ id: RecordID) throws(AISyncError) -> URL? {
        try imageFilePath(id).map { URL(fileURLWithPath: $0, isDirectory: false) }
    }

    /// One version taking part in a record's conflict; `resolve(_:keep:)` with its id keeps it.
    public struct ConflictVersion: Hashable, Sendable {
        /// The version, with its device and time.
        public var version: Version
        /// Its values are the ones shown.
        public var winner: Bool
    }

    /// One value of a field in conflict, as one version wrote it.
    public struct ConflictValue: Hashable, Sendable {
        /// The version that wrote (or removed) this value.
        public var version: Version
        /// The value (nil for an element that version removed).
        public var value: JSONValue?
        /// Whether this is the value shown now (last writer wins); the others are kept, not lost.
        public var winner: Bool
    }

    /// A field (or a message / page) with competing values.
    public struct ConflictField: Hashable, Sendable {
        /// `title`, `favorite`, `deleted`, or `messages/m-…` for one element.
        public var field: String
        /// The competing values, the one shown first, then removes of the element.
        public var values: [ConflictValue]
    }

    /// A record in conflict: fields set to different values on two devices at once.
    public struct Conflict: Hashable, Sendable {
        /// The record in conflict.
        public var id: RecordID
        /// Its kind.
        public var kind: RecordKind
        /// Its visible title, for display.
        public var title: String
        /// The versions holding competing values, the one shown first.
        public var versions: [ConflictVersion]
        /// Each field in conflict, registers first (by name), then elements (by id).
        public var fields: [ConflictField]
    }

    /// Every record in conflict, with each field in conflict and its values.
    public func conflicts(_ only: RecordID? = nil) throws(AISyncError) -> [Conflict] {
        try locked(write: false) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> [Conflict] in
            var inConflict: [RecordSummary] = []
            if let only {
                guard let summary = try snapshot.summary(only) else { throw AISyncError.noRecord(only) }
                if summary.conflict { inConflict.append(summary) }
            } else if snapshot.counts.conflicts > 0 {
                try snapshot.forEachSummary { (s: RecordSummary) throws(AISyncError) in
                    if s.conflict { inConflict.append(s) }
                }
            }
            var result: [Conflict] = []
            for summary in inConflict {
                guard let state = try stateOf(summary.id, in: snapshot), state.isConflict else { continue }
                result.append(try conflict(summary, state, in: snapshot))
            }
            return result.sorted { $0.id < $1.id }
        }
    }

    private func conflict(_ summary: RecordSummary, _ state: RecordState, in snapshot: StoreSnapshot)
        throws(AISyncError) -> Conflict
    {
        let byID = Dictionary(
            try versions(of: summary.id, in: snapshot).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let reader = self.reader
        var fields: [ConflictField] = []
        var stamps: [SHA256Digest: RecordState.Stamp] = [:]
        for c in state.conflicts {
            var values: [ConflictValue] = []
            for (n, entry) in c.entries.enumerated() {
                guard let v = byID[entry.stamp.version] else { continue }
                let value: JSONValue? =
                    switch entry.value {
                    case .inline(let j): j
                    case .object(let d): try? reader.resolve(d)
                    }
                values.append(ConflictValue(version: v, value: value, winner: n == 0))
                stamps[v.id] = entry.stamp
            }
            for stamp in c.removes {
                guard let v = byID[stamp.version] else { continue }
                values.append(ConflictValue(version: v, value: nil, winner: false))
                stamps[v.id] = stamp
            }
            fields.append(ConflictField(field: c.name, values: values))
        }
        let ordered = stamps.values.sorted { $0.winsOver($1) }
        let versions = ordered.enumerated().compactMap { n, s in
            byID[s.version].map { ConflictVersion(version: $0, winner: n == 0) }
        }
        return Conflict(id: summary.id, kind: state.kind, title: summary.title, versions: versions, fields: fields)
    }

    /// Every version in journal order, optionally of one record.
    public func history(_ only: RecordID? = nil) throws(AISyncError) -> [Version] {
        try locked(write: false) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> [Version] in
            if let only { return try versions(of: only, in: snapshot) }
            return try journal.read(from: 0, firstLine: 0).versions.map(\.version)
        }
    }

    /// How many records are in conflict (from the summaries: no state is decoded).
    public func conflictCount() throws(AISyncError) -> Int {
        // From the index's header when it is current and nothing is loaded yet: a sync with
        // nothing new then never reads the whole store.
        if cache == nil, let header = index.header(), let conflicts = header.conflicts,
            header.journalOffset == journal.size(),
            IndexFile.anchor(journal: journal, offset: header.journalOffset) == header.anchor
        {
            return conflicts
        }
        return try locked(write: false) { (snapshot: inout StoreSnapshot, canWrite: Bool) throws(AISyncError) -> Int in
            // Bring the index up to date, so the next sync with nothing new finds the count there.
            if canWrite,
                index.header().map({ $0.conflicts == nil || $0.journalOffset != snapshot.journalOffset }) ?? true
            {
                try saveIndex(&snapshot)
            }
            return snapshot.counts.conflicts
        }
    }

    /// An overview of the store, as `aisync status` prints it.
    public struct Status: Hashable, Sendable {
        /// The store's directory.
        public var root: String
        /// This device's id.
        public var device: DeviceID
        /// This device's human name.
        public var deviceName: String
        /// How many live (not deleted) records there are of each kind; every kind is present, 0 included.
        public var records: [RecordKind: Int]
        /// How many records are deleted (and could be restored).
        public var deleted: Int
        /// How many records are in conflict.
        public var conflicts: Int
        /// How many objects (image bytes and large values) are in `objects/`.
        public var objects: Int
        /// The objects' total size on disk, in bytes.
        public var bytes: Int64
        /// How many lines (versions) the journal holds.
        public var journalLines: Int
        /// The journal's size in bytes.
        public var journalBytes: Int64
        /// The remotes configured, as in `config.json`.
        public var remotes: [StoreConfig.Remote]
        /// Live pictures whose bytes are not here yet (another device added them and the
        /// remote lacked them at the last pull): a pull fetches them when they appear.
        public var imagesNotDownloaded: Int = 0
        /// Paths in the store that other accounts can read, write or enter; nil when none can.
        public var exposure: Exposure?
    }

    /// Counts records, conflicts, objects and journal lines. Lists `objects/` and stats every
    /// object, so it costs a little more than `list()` on a store with many images.
    public func status() throws(AISyncError) -> Status {
        try locked(write: false) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> Status in
            var counts: [RecordKind: Int] = [:]
            for kind in RecordKind.allCases { counts[kind] = 0 }
            var deleted = 0
            var images: [RecordID] = []
            try snapshot.forEachSummary { (s: RecordSummary) throws(AISyncError) in
                if s.deleted { deleted += 1 } else { counts[s.kind, default: 0] += 1 }
                if s.kind == .image && !s.deleted && !s.damaged { images.append(s.id) }
            }
            let all = objects.allObjects().objects
            let bytes = all.reduce(Int64(0)) { $0 + (Platform.stat(objects.path(of: $1))?.size ?? 0) }
            var status = Status(
                root: root, device: deviceID, deviceName: config.deviceName, records: counts, deleted: deleted,
                conflicts: snapshot.counts.conflicts, objects: all.count, bytes: bytes,
                journalLines: snapshot.journalLines, journalBytes: snapshot.journalOffset, remotes: config.remotes)
            let present = Set(all)
            for id in images {
                guard let state = try stateOf(id, in: snapshot), case .image(let image)? = try? visibleBody(state)
                else { continue }
                if !present.contains(image.sha256) { status.imagesNotDownloaded += 1 }
            }
            status.exposure = exposure()
            return status
        }
    }
}
