import AISyncCore
import AISyncFiles

/// What the sync layer needs from the store: the journal since a point, bodies and blobs,
/// applying verified remote versions, and per-remote checkpoints.
extension Store {
    /// Versions appended at or after `offset`, and the offset just past them.
    package func journalVersions(from offset: Int64) throws(AISyncError) -> (versions: [Version], end: Int64) {
        let (lines, end) = try journalLines(from: offset)
        return (lines.map(\.version), end)
    }

    /// The same, each with its journal line's bytes (what a segment carries, as is).
    package func journalLines(from offset: Int64) throws(AISyncError) -> (
        lines: [(version: Version, raw: [UInt8])], end: Int64
    ) {
        try locked(write: false) {
            (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> ([(version: Version, raw: [UInt8])], Int64) in
            let start = min(offset, snapshot.journalOffset)
            let chunk = try journal.read(from: start, firstLine: 0)
            return (chunk.versions.map { ($0.version, Array($0.raw)) }, chunk.endOffset)
        }
    }

    /// One journal line as a push plans with it: its outline, where it is, and its size.
    package typealias JournalLine = (version: VersionOutline, offset: Int64, length: Int)

    /// The complete lines in about `maxBytes` of the journal from `offset` (read as is, no
    /// snapshot loaded: a push of nothing new costs O(1)), outlined (``VersionOutline``: read
    /// without decoding their operations, each id checked by its hash), and the offset just
    /// past them. An offset past the end (a journal rewritten shorter) reads from the end.
    package func journalWindow(from offset: Int64, maxBytes: Int) throws(AISyncError) -> (
        lines: [JournalLine], end: Int64
    ) {
        let size = journal.size()
        let start = min(offset, size)
        guard start < size else { return ([], start) }
        let (lines, end) = try journal.outlines(from: start, maxBytes: Int(min(Int64(maxBytes), size - start)))
        return (lines.map { ($0.outline, $0.ref.offset, $0.ref.length) }, end)
    }

    /// A segment of the journal lines at `places` (ascending, found by
    /// ``journalWindow(from:maxBytes:)``): `header`, then each line's entry appended before the
    /// next read (a segment's parsed versions were most of a push's memory, and building it in
    /// place spares a copy of it). The lines are not parsed again: the push's scan of the
    /// journal parsed them and gave each one's `objects` (a large value's bytes travel in the
    /// entry); the pulling device verifies every line it is sent.
    ///
    /// `journal` is the journal file the scan read (``journalFile()``). Another process that
    /// gives this store a new device id rewrites the journal, moving lines: places from before
    /// then point at other bytes, so a journal replaced since the scan, before or during this
    /// read, is refused (`.temporary`; the push is run again) rather than sent.
    package func segment(
        header: [UInt8], lines places: [(offset: Int64, length: Int, objects: [SHA256Digest])], journal file: UInt64?
    ) throws(AISyncError) -> [UInt8] {
        try checkJournal(is: file)
        var out = header
        out.reserveCapacity(header.count + places.reduce(0) { $0 + $1.length + 32 })
        var n = 0
        try journal.forEachRawLine(at: places.map { Journal.LineRef(offset: $0.offset, length: $0.length) }) {
            (_: Journal.LineRef, raw: ArraySlice<UInt8>) throws(AISyncError) in
            var objects: [SHA256Digest: [UInt8]] = [:]
            for digest in places[n].objects { objects[digest] = try self.objects.get(digest) }
            n += 1
            Segment.appendEntry(objects: objects, line: raw, to: &out)
        }
        try checkJournal(is: file)
        return out
    }

    /// Which journal file this is (its inode): a rewrite (``Journal/replace(with:splitAfter:)``)
    /// puts a new file in its place. Nil when there is none.
    package nonisolated func journalFile() -> UInt64? { Platform.statInfo("\(root)/journal.jsonl")?.inode }

    private func checkJournal(is file: UInt64?) throws(AISyncError) {
        guard journalFile() != file else { return }
        throw AISyncError(
            .temporary,
            "the store's journal was rewritten during the push (another aisync gave this store a new device id)",
            hint: "Run the push again")
    }

    /// The sizes of the objects a version needs on another device, without reading them.
    /// Nonisolated, as are the two below: objects are immutable files named by their hash,
    /// and a push asks for every version's (10,000 hops onto the store's thread and back were
    /// 37,000 futex calls and a third of a push's time).
    package nonisolated func objectSizes(of references: [SHA256Digest]) -> [Int] {
        references.map { Int(Platform.stat(objects.path(of: $0))?.size ?? 0) }
    }

    func objectBytes(_ digest: SHA256Digest) throws(AISyncError) -> [UInt8] { try objects.get(digest) }
    package nonisolated func objectPath(_ digest: SHA256Digest) -> String { objects.path(of: digest) }
    package nonisolated func hasObject(_ digest: SHA256Digest) -> Bool { objects.contains(digest) }
    /// Every object this store holds (pictures and large values), for `aisync encrypt`.
    package func objectDigests() -> [SHA256Digest] { objects.allObjects().objects }

    /// Moves a downloaded file into `objects/` if it hashes to `digest`; false (and the file
    /// removed) when it does not. `hashed` is the file's SHA-256 when the caller computed it
    /// while writing the file (a download hashed on the way): a 200 MB image is then not read
    /// a second time. Without it the file is hashed here.
    package func adoptBlob(at temp: String, expected digest: SHA256Digest, hashed: SHA256Digest? = nil)
        throws(AISyncError) -> Bool
    {
        defer { _ = Platform.unlink(temp) }
        guard let actual = hashed ?? (try? SHA256.hash(fileAt: temp))?.digest, actual == digest else { return false }
        let target = objects.path(of: digest)
        if objects.contains(digest) { return true }
        try FileIO.makeDirectories(FileIO.parentDirectory(of: target))
        guard Platform.rename(temp, target) else { throw FileIO.ioError("write", target, errno: Platform.errno) }
        FileIO.syncDirectory(FileIO.parentDirectory(of: target))
        return true
    }

    /// A scratch path inside the store (same file system as `objects/`, so renames are atomic).
    package func scratchPath() throws(AISyncError) -> String {
        try FileIO.makeDirectories("\(root)/sync/tmp")
        return "\(root)/sync/tmp/\(environment.temporarySuffix())"
    }

    /// Applies verified remote versions: their objects (large values, aisync 1 bodies) go to
    /// `objects/`, then every version this store did not know is appended to the journal in
    /// one fsynced write. A version that would change a record's kind is refused whole: a
    /// record's kind is fixed when it is created.
    /// Returns how many versions were applied and whether the journal was at `expectedEnd`
    /// before. `streaming`: one batch of a long pull; the index is saved by ``flushIndex()``
    /// at its end, and each piece's entries and folded states are freed once it is appended
    /// (the batch is taken over: given the only copy, memory shrinks as the batch goes in).
    package func integrate(_ entries: consuming [Segment.Entry], expectedEnd: Int64?, streaming: Bool = false)
        throws(AISyncError) -> (applied: Int, wasAtEnd: Bool, end: Int64)
    {
        var remaining = entries
        return try locked(write: true, saveIndex: !streaming) {
            (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> (Int, Bool, Int64) in
            let wasAtEnd = expectedEnd == snapshot.journalOffset
            try checkKinds(remaining, in: snapshot)
            var applied = 0
            // A long pull appends a thousand versions at a time: the entries and the states
            // folded for one piece are dropped before the next, so memory stays a piece.
            let piece = streaming ? Self.integratePiece : max(remaining.count, 1)
            do throws(AISyncError) {
                while !remaining.isEmpty {
                    let count = min(piece, remaining.count)
                    let (fresh, lines) = try newVersions(remaining[..<count], in: snapshot)
                    if !fresh.isEmpty {
                        try append(fresh, lines: lines, saveIndex: !streaming, durable: false, to: &snapshot)
                    }
                    applied += fresh.count
                    remaining.removeFirst(count)
                    if streaming {
                        snapshot.dropDecodedStates()
                        Platform.releaseFreeMemory()
                    }
                }
            } catch {
                // Lines already appended stay durable even when the batch fails part-way.
                try? journal.sync()
                throw error
            }
            // One fsync for the batch, before the caller records it as merged. Even when this
            // call appended nothing: lines an earlier, failed call (or a process killed before
            // its sync) appended are held now, and must be durable before a checkpoint says so.
            try journal.sync()
            return (applied, wasAtEnd, snapshot.journalOffset)
        }
    }

    /// Refuses the whole batch, before anything is written, when a version would change its
    /// record's kind (fixed when the record is created).
    private func checkKinds(_ entries: [Segment.Entry], in snapshot: StoreSnapshot) throws(AISyncError) {
        var kinds: [RecordID: RecordKind] = [:]
        kinds.reserveCapacity(entries.count)
        // By index, not `for e in entries`: a copy of each entry retains all it holds.
        for i in entries.indices {
            let record = entries[i].version.record
            let own = entries[i].version.kind
            if kinds[record] == nil { kinds[record] = try snapshot.summary(record)?.kind ?? own }
            guard let kind = kinds[record], kind != own else { continue }
            throw AISyncError(
                .damagedData, "a pulled version of \(record) would turn a \(kind.rawValue) into a \(own.rawValue)",
                hint:
                    "Nothing was applied; the remote holds a forged or damaged version (from device \(entries[i].version.device.short))"
            )
        }
    }

    /// How many pulled versions are appended at once.
    static let integratePiece = 1_000

    /// The versions of `entries` this store does not have yet, their objects stored, and
    /// their journal lines: the segment's own bytes where it kept them (verified canonical),
    /// encoded otherwise.
    private func newVersions(_ entries: ArraySlice<Segment.Entry>, in snapshot: StoreSnapshot) throws(AISyncError)
        -> ([Version], [[UInt8]])
    {
        // Per record: its kind, and the version ids the store and this piece hold. A record new
        // to the store (almost every one in a first pull) keeps its first id alone; a set is
        // made only when another version of it follows.
        var known = [RecordID: (kind: RecordKind, first: SHA256Digest?, ids: Set<SHA256Digest>)]()
        known.reserveCapacity(entries.count)
        var fresh: [Version] = []
        var lines: [[UInt8]] = []
        fresh.reserveCapacity(entries.count)
        lines.reserveCapacity(entries.count)
        for i in entries.indices {
            let id = entries[i].version.id
            let record = entries[i].version.record
            let kind = entries[i].version.kind
            // Taken out and put back, not changed in place through `known[record]?`: each such
            // access allocated (its value is large), and a set taken out is not copied.
            var entry: (kind: RecordKind, first: SHA256Digest?, ids: Set<SHA256Digest>)
            if let seen = known.removeValue(forKey: record) {
                entry = seen
            } else {
                let state = try snapshot.state(record, reader: reader)
                entry = state.map { ($0.kind, nil, $0.versionIDs) } ?? (kind, nil, [])
            }
            // A version of another kind was refused by `checkKinds` already; one held is skipped.
            let held = entry.kind != kind || entry.first == id || entry.ids.contains(id)
            if !held {
                if entry.first == nil, entry.ids.isEmpty { entry.first = id } else { entry.ids.insert(id) }
            }
            known[record] = entry
            if held { continue }
            if !entries[i].objects.isEmpty {
                for (_, bytes) in entries[i].objects { _ = try objects.put(bytes) }
            }
            fresh.append(entries[i].version)
            lines.append(entries[i].line ?? entries[i].version.json.canonicalBytes)
        }
        return (fresh, lines)
    }

    /// The objects a version needs on another device (large values, an aisync 1 body).
    package func objectsOf(_ version: Version) throws(AISyncError) -> [SHA256Digest: [UInt8]] {
        var result: [SHA256Digest: [UInt8]] = [:]
        for d in version.objectReferences { result[d] = try objects.get(d) }
        return result
    }

    /// Remembers other devices' names (from their heads), for `log` and `conflicts`.
    package func rememberDeviceNames(_ names: [DeviceID: String]) throws(AISyncError) {
        var known = deviceNames()
        let before = known
        for (id, name) in names where id != deviceID { known[id] = name }
        guard known != before else { return }
        let json = JSONValue.object([
            "format": .int(1),
            "devices": .object(JSONObject(uniqueKeysWithValues: known.map { ($0.key.rawValue, .string($0.value)) })),
        ])
        try FileIO.makeDirectories("\(root)/sync")
        try FileIO.writeAtomically(
            "\(root)/devices.json", json.canonicalBytes + [10], durable: false,
            temporarySuffix: environment.temporarySuffix())
    }

    /// Names of the devices this store has heard of, this one included.
    public nonisolated func deviceNames() -> [DeviceID: String] {
        var names: [DeviceID: String] = [:]
        if let bytes = try? FileIO.read("\(root)/devices.json", limit: 1 << 22),
            let value = try? JSONParser.parse(bytes)
        {
            for (key, name) in value["devices"]?.objectValue ?? [:] {
                if let id = DeviceID(key), let n = name.stringValue { names[id] = String(n.prefix(200)) }
            }
        }
        names[deviceID] = config.deviceName
        return names
    }

    func checkpointPath(_ remote: String) -> String { "\(root)/sync/\(remote).json" }

    /// Drops a remote's checkpoint (after `remote remove`).
    public func forgetCheckpoint(_ remote: String) throws(AISyncError) {
        _ = Platform.unlink(checkpointPath(remote))
    }

    package func readCheckpoint(_ remote: String) throws(AISyncError) -> SyncCheckpoint {
        let path = checkpointPath(remote)
        guard FileIO.exists(path) else { return SyncCheckpoint(remote: remote) }
        return try SyncCheckpoint(bytes: FileIO.read(path, limit: 1 << 24), path: path)
    }

    package func writeCheckpoint(_ checkpoint: SyncCheckpoint) throws(AISyncError) {
        try FileIO.makeDirectories("\(root)/sync")
        try FileIO.writeAtomically(
            checkpointPath(checkpoint.remote), checkpoint.json.canonicalBytes + [10],
            temporarySuffix: environment.temporarySuffix())
    }

    /// Saves a changed config (remotes); config.json is replaced atomically under the lock.
    public func updateConfig(_ change: (inout StoreConfig) throws(AISyncError) -> Void) throws(AISyncError)
        -> StoreConfig
    {
        try locked(write: true) { (_: inout StoreSnapshot, _) throws(AISyncError) -> StoreConfig in
            let path = "\(root)/config.json"
            var config = try StoreConfig(bytes: FileIO.read(path, limit: 1 << 20), path: path)
            try change(&config)
            try FileIO.writeAtomically(
                path, config.json.canonicalBytes + [10], temporarySuffix: environment.temporarySuffix())
            return config
        }
    }

    /// The current config as on disk (remotes may have changed since the store was opened).
    public func currentConfig() throws(AISyncError) -> StoreConfig {
        let path = "\(root)/config.json"
        return try StoreConfig(bytes: FileIO.read(path, limit: 1 << 20), path: path)
    }
}

extension Store {
    /// The image bodies of some records, deleted ones included (a deleted image can be
    /// restored, so its bytes must be on the remote too), for pushing their bytes.
    package func imageBodies(of records: Set<RecordID>) throws(AISyncError) -> [(SHA256Digest, ImageBody)] {
        try locked(write: false) {
            (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> [(SHA256Digest, ImageBody)] in
            var result: [(SHA256Digest, ImageBody)] = []
            for id in records.sorted() {
                guard let state = try stateOf(id, in: snapshot), state.kind == .image,
                    case .image(let image)? = try? visibleBody(state)
                else { continue }
                result.append((image.sha256, image))
            }
            return result
        }
    }

    /// The image records pulled entries would give, merged with what the store holds, before
    /// anything is written: their bytes are fetched first, so a record never arrives before
    /// its picture when the remote has it.
    package func previewImages(_ entries: [Segment.Entry]) throws(AISyncError) -> [(SHA256Digest, ImageBody)] {
        try locked(write: false, saveIndex: false) {
            (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> [(SHA256Digest, ImageBody)] in
            var states: [RecordID: RecordState] = [:]
            var incoming: [SHA256Digest: [UInt8]] = [:]
            for i in entries.indices where entries[i].version.kind == .image {
                let (e, v) = (entries[i], entries[i].version)
                incoming.merge(e.objects) { a, _ in a }
                if states[v.record] == nil {
                    states[v.record] = try snapshot.state(v.record, reader: reader) ?? RecordState(kind: .image)
                }
                var ops = v.ops
                if case .legacy(let digest) = v.payload {
                    guard let digest else {
                        ops = [.delete]
                        states[v.record]?.merge(v, ops: ops)
                        continue
                    }
                    guard let bytes = e.objects[digest], let body = try? RecordBody(bytes: bytes, expected: .image)
                    else { continue }
                    ops = LegacyOperations.operations(of: body)
                }
                states[v.record]?.merge(v, ops: ops)
            }
            let reader = self.reader
            var result: [(SHA256Digest, ImageBody)] = []
            // Deleted ones too: their bytes come along, so restoring one brings its picture back.
            for (_, state) in states.sorted(by: { $0.key < $1.key }) {
                let body = try? state.body { (d: SHA256Digest) throws(AISyncError) -> JSONValue in
                    if let bytes = incoming[d], let value = try? JSONParser.parse(bytes) { return value }
                    return try reader.resolve(d)
                }
                if case .image(let image)? = body { result.append((image.sha256, image)) }
            }
            return result
        }
    }
}
