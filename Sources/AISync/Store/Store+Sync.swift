/// What the sync layer needs from the store: the journal since a point, bodies and blobs,
/// applying verified remote versions, and per-remote checkpoints.
extension Store {
    /// Versions appended at or after `offset`, and the offset just past them.
    func journalVersions(from offset: Int64) throws(AISyncError) -> (versions: [Version], end: Int64) {
        try locked(write: false) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> ([Version], Int64) in
            let start = min(offset, snapshot.journalOffset)
            let chunk = try journal.read(from: start, firstLine: 0)
            return (chunk.versions.map(\.version), chunk.endOffset)
        }
    }

    func objectBytes(_ digest: SHA256Digest) throws(AISyncError) -> [UInt8] { try objects.get(digest) }
    func objectPath(_ digest: SHA256Digest) -> String { objects.path(of: digest) }
    func hasObject(_ digest: SHA256Digest) -> Bool { objects.contains(digest) }

    /// Moves a downloaded file into `objects/` if it hashes to `digest`; false (and the file
    /// removed) when it does not.
    func adoptBlob(at temp: String, expected digest: SHA256Digest) throws(AISyncError) -> Bool {
        defer { _ = Platform.unlink(temp) }
        guard let (actual, _) = try? SHA256.hash(fileAt: temp), actual == digest else { return false }
        let target = objects.path(of: digest)
        if objects.contains(digest) { return true }
        try FileIO.makeDirectories(FileIO.parentDirectory(of: target))
        guard Platform.rename(temp, target) else { throw FileIO.ioError("write", target, errno: Platform.errno) }
        FileIO.syncDirectory(FileIO.parentDirectory(of: target))
        return true
    }

    /// A scratch path inside the store (same file system as `objects/`, so renames are atomic).
    func scratchPath() throws(AISyncError) -> String {
        try FileIO.makeDirectories("\(root)/sync/tmp")
        return "\(root)/sync/tmp/\(environment.makeID())"
    }

    /// Applies verified remote versions: bodies go to `objects/`, then every version that
    /// changes a record's state is appended to the journal in one fsynced write.
    /// Returns the versions applied and whether the journal was at `expectedEnd` before.
    func integrate(_ entries: [Segment.Entry], expectedEnd: Int64?) throws(AISyncError) -> (applied: [Version], wasAtEnd: Bool, end: Int64) {
        try locked(write: true) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> ([Version], Bool, Int64) in
            let wasAtEnd = expectedEnd == snapshot.journalOffset
            var trial = [RecordID: RecordState]()
            var applied: [Version] = []
            for e in entries {
                var state = trial[e.version.record] ?? snapshot.state(e.version.record) ?? RecordState()
                guard state.merge(e.version) else { continue }
                trial[e.version.record] = state
                if let body = e.body { try objects.put(body) }
                applied.append(e.version)
            }
            guard !applied.isEmpty else { return ([], wasAtEnd, snapshot.journalOffset) }
            try append(applied, to: &snapshot)
            return (applied, wasAtEnd, snapshot.journalOffset)
        }
    }

    func checkpointPath(_ remote: String) -> String { "\(root)/sync/\(remote).json" }

    /// Drops a remote's checkpoint (after `remote remove`).
    public func forgetCheckpoint(_ remote: String) throws(AISyncError) {
        _ = Platform.unlink(checkpointPath(remote))
    }

    func readCheckpoint(_ remote: String) throws(AISyncError) -> SyncCheckpoint {
        let path = checkpointPath(remote)
        guard FileIO.exists(path) else { return SyncCheckpoint(remote: remote) }
        return try SyncCheckpoint(bytes: FileIO.read(path, limit: 1 << 24), path: path)
    }

    func writeCheckpoint(_ checkpoint: SyncCheckpoint) throws(AISyncError) {
        try FileIO.makeDirectories("\(root)/sync")
        try FileIO.writeAtomically(checkpointPath(checkpoint.remote), checkpoint.json.canonicalBytes + [10])
    }

    /// Saves a changed config (remotes); config.json is replaced atomically under the lock.
    public func updateConfig(_ change: (inout StoreConfig) throws(AISyncError) -> Void) throws(AISyncError) -> StoreConfig {
        try locked(write: true) { (_: inout StoreSnapshot, _) throws(AISyncError) -> StoreConfig in
            let path = "\(root)/config.json"
            var config = try StoreConfig(bytes: FileIO.read(path, limit: 1 << 20), path: path)
            try change(&config)
            try FileIO.writeAtomically(path, config.json.canonicalBytes + [10])
            return config
        }
    }

    /// The current config as on disk (remotes may have changed since the store was opened).
    public func currentConfig() throws(AISyncError) -> StoreConfig {
        let path = "\(root)/config.json"
        return try StoreConfig(bytes: FileIO.read(path, limit: 1 << 20), path: path)
    }
}
