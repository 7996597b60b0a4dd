/// Queries. They read through the same lock-and-refresh path, so they see every saved write.
extension Store {
    /// The state of a record whose winner is not deleted, with that winner.
    /// A record's state; a sibling list the index cannot decode means the index is damaged,
    /// so it is removed (the next command rebuilds it from the journal).
    func stateOf(_ id: RecordID, in snapshot: StoreSnapshot) throws(AISyncError) -> RecordState? {
        if let state = snapshot.state(id) { return state }
        guard snapshot.summaries[id] != nil else { return nil }
        _ = Platform.unlink(index.path)
        cache = nil
        throw AISyncError(.temporary, "the store's index was damaged and has been removed", hint: "Run the command again; the index is rebuilt from the journal")
    }

    func liveRecord(_ id: RecordID, in snapshot: StoreSnapshot) throws(AISyncError) -> (RecordState, Version) {
        guard let state = try stateOf(id, in: snapshot), let winner = state.winner else {
            throw AISyncError.notFound("no record \(id)", hint: "See `aisync list` for the ids in this store")
        }
        guard !winner.isDeleted else {
            throw AISyncError.notFound("record \(id) was deleted", hint: state.isConflict ? "It is in conflict; see `aisync conflicts`" : nil)
        }
        return (state, winner)
    }

    /// Reads and validates the body a version points at.
    public func body(of version: Version) throws(AISyncError) -> RecordBody {
        guard let digest = version.body else { throw AISyncError.notFound("version \(version.shortID) of \(version.record) is a deletion") }
        return try RecordBody(bytes: objects.get(digest), expected: version.kind)
    }

    /// Live records (not deleted), newest first, optionally of one kind.
    public func list(kind: RecordKind? = nil, includeDeleted: Bool = false) throws(AISyncError) -> [RecordSummary] {
        try locked(write: false) { snapshot, _ in
            snapshot.summaries.values
                .filter { (includeDeleted || !$0.deleted) && (kind == nil || $0.kind == kind) }
                .sorted { $0.updated != $1.updated ? $0.updated > $1.updated : $0.id < $1.id }
        }
    }

    /// A record's current state and the winning body (nil when the winner is a deletion).
    public func record(_ id: RecordID) throws(AISyncError) -> (state: RecordState, body: RecordBody?) {
        try locked(write: false) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> (RecordState, RecordBody?) in
            guard let state = try stateOf(id, in: snapshot), let winner = state.winner else {
                throw AISyncError.notFound("no record \(id)", hint: "See `aisync list` for the ids in this store")
            }
            return (state, winner.isDeleted ? nil : try body(of: winner))
        }
    }

    /// The raw canonical body bytes of the winner, exactly as stored and hashed.
    public func canonicalBody(_ id: RecordID) throws(AISyncError) -> [UInt8] {
        try locked(write: false) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> [UInt8] in
            let (_, winner) = try liveRecord(id, in: snapshot)
            guard let digest = winner.body else { return [] }
            let bytes = try objects.get(digest)
            _ = try RecordBody(bytes: bytes, expected: winner.kind)
            return bytes
        }
    }

    /// Writes an image record's original bytes to `path`, verified against its hash.
    public func saveImage(_ id: RecordID, to path: String) throws(AISyncError) {
        let digest = try locked(write: false) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> SHA256Digest in
            let (_, winner) = try liveRecord(id, in: snapshot)
            guard case .image(let image) = try body(of: winner) else {
                throw AISyncError.usage("\(id) is a \(winner.kind.rawValue), not an image", hint: "See `aisync list --kind image`")
            }
            return image.sha256
        }
        var target = path
        if Platform.stat(path)?.isDirectory == true { target = "\(path)/\(id.rawValue)" }
        try objects.export(digest, to: target)
    }

    public struct ConflictVersion: Hashable, Sendable {
        public var version: Version
        public var winner: Bool
    }

    public struct Conflict: Hashable, Sendable {
        public var id: RecordID
        public var kind: RecordKind
        public var title: String
        public var versions: [ConflictVersion]
    }

    /// Every record with more than one sibling, winner first in each.
    public func conflicts(_ only: RecordID? = nil) throws(AISyncError) -> [Conflict] {
        try locked(write: false) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> [Conflict] in
            var result: [Conflict] = []
            for summary in snapshot.summaries.values where summary.conflict && (only == nil || summary.id == only) {
                guard let state = try stateOf(summary.id, in: snapshot), let winner = state.winner, state.isConflict else { continue }
                result.append(Conflict(id: summary.id, kind: winner.kind, title: summary.title,
                                       versions: state.siblings.enumerated().map { ConflictVersion(version: $1, winner: $0 == 0) }))
            }
            return result.sorted { $0.id < $1.id }
        }
    }

    /// Every version in journal order, optionally of one record.
    public func history(_ only: RecordID? = nil) throws(AISyncError) -> [Version] {
        try locked(write: false) { (_: inout StoreSnapshot, _) throws(AISyncError) -> [Version] in
            let chunk = try journal.read(from: 0, firstLine: 0)
            return chunk.versions.map(\.version).filter { only == nil || $0.record == only }
        }
    }

    /// How many records are in conflict (from the summaries: no state is decoded).
    public func conflictCount() throws(AISyncError) -> Int {
        try locked(write: false) { snapshot, _ in snapshot.summaries.values.filter(\.conflict).count }
    }

    public struct Status: Hashable, Sendable {
        public var root: String
        public var device: DeviceID
        public var deviceName: String
        public var records: [RecordKind: Int]
        public var deleted: Int
        public var conflicts: Int
        public var objects: Int
        public var bytes: Int64
        public var journalLines: Int
        public var journalBytes: Int64
        public var remotes: [StoreConfig.Remote]
    }

    public func status() throws(AISyncError) -> Status {
        try locked(write: false) { snapshot, _ in
            var counts: [RecordKind: Int] = [:]
            for kind in RecordKind.allCases { counts[kind] = 0 }
            var deleted = 0
            for s in snapshot.summaries.values {
                if s.deleted { deleted += 1 } else { counts[s.kind, default: 0] += 1 }
            }
            let all = objects.allObjects().objects
            let bytes = all.reduce(Int64(0)) { $0 + (Platform.stat(objects.path(of: $1))?.size ?? 0) }
            return Status(root: root, device: deviceID, deviceName: config.deviceName, records: counts, deleted: deleted,
                          conflicts: snapshot.summaries.values.filter(\.conflict).count, objects: all.count, bytes: bytes,
                          journalLines: snapshot.journalLines, journalBytes: snapshot.journalOffset, remotes: config.remotes)
        }
    }
}
