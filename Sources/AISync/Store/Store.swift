/// A local aisync store: records as content-addressed objects plus an append-only journal.
///
/// Works with no network. Every operation takes the store's advisory lock, first catches up
/// with whatever other processes appended to the journal, then reads or writes, so several
/// processes (the CLI, an app) can share one store. See design §2.
public actor Store {
    public nonisolated let root: String
    public nonisolated let config: StoreConfig
    let environment: StoreEnvironment
    let objects: ObjectStore
    let journal: Journal
    let index: IndexFile
    /// The snapshot as of the last operation; refreshed from the journal tail each time.
    var cache: StoreSnapshot?

    /// How many journal lines past the index make a write worth rewriting the index.
    static let indexRewriteThreshold = 32

    private init(root: String, config: StoreConfig, environment: StoreEnvironment) {
        self.root = root
        self.config = config
        self.environment = environment
        objects = ObjectStore(directory: "\(root)/objects")
        journal = Journal(path: "\(root)/journal.jsonl")
        index = IndexFile(path: "\(root)/index/records.v1")
    }

    public nonisolated var deviceID: DeviceID { config.deviceID }

    /// Creates a new store with a fresh random device id.
    public static func create(at root: String, deviceName: String?, environment: StoreEnvironment = .live) throws(AISyncError) -> Store {
        let configPath = "\(root)/config.json"
        if FileIO.exists(configPath) {
            throw AISyncError(.configuration, "\(root) is already an aisync store", hint: "Use it as it is, or pass --store DIR to create another")
        }
        try FileIO.makeDirectories(root)
        for sub in ["objects", "index", "sync"] { try FileIO.makeDirectories("\(root)/\(sub)") }
        let name = deviceName ?? Platform.environment("HOSTNAME") ?? "device"
        let config = StoreConfig(deviceID: environment.makeDeviceID(), deviceName: name, created: Timestamp(milliseconds: environment.now()))
        let journalPath = "\(root)/journal.jsonl"
        if !FileIO.exists(journalPath) { try FileIO.writeAtomically(journalPath, []) }
        // config.json last: its presence is what makes a directory a store.
        try FileIO.writeAtomically(configPath, config.json.canonicalBytes + [10])
        return Store(root: root, config: config, environment: environment)
    }

    /// Opens an existing store, refusing one written by a newer aisync.
    public static func open(at root: String, environment: StoreEnvironment = .live) throws(AISyncError) -> Store {
        let configPath = "\(root)/config.json"
        guard FileIO.exists(configPath) else {
            throw AISyncError(.notFound, "no aisync store at \(root)", hint: "Run `aisync init` to create one, or pass --store DIR / set AISYNC_HOME")
        }
        let config = try StoreConfig(bytes: FileIO.read(configPath, limit: 1 << 20), path: configPath)
        return Store(root: root, config: config, environment: environment)
    }

    /// Runs `body` with the lock held (or without it on a read-only store when `write` is false)
    /// and an up-to-date snapshot.
    func locked<T>(write: Bool, _ body: (inout StoreSnapshot, Bool) throws(AISyncError) -> T) throws(AISyncError) -> T {
        let lock = try StoreLock.acquire(root: root, timeoutMilliseconds: environment.lockTimeoutMilliseconds)
        let canWrite = lock != nil
        if write && !canWrite {
            throw AISyncError(.permission, "the store \(root) is read-only", hint: "Check the directory's permissions; reading commands still work")
        }
        var snapshot = try refresh(canWrite: canWrite)
        let result = try body(&snapshot, canWrite)
        cache = snapshot
        _ = consume lock
        return result
    }

    /// Catches the snapshot up with the journal: cached snapshot, else the index, else a
    /// rebuild from the first line. Drops a torn final line when it may write.
    func refresh(canWrite: Bool) throws(AISyncError) -> StoreSnapshot {
        if canWrite { try journal.dropTornTail() }
        let size = journal.size()
        var base: StoreSnapshot?
        if let cache, cache.journalOffset <= size, IndexFile.anchor(journal: journal, offset: cache.journalOffset) == cachedAnchor {
            base = cache
        } else if let (snapshot, anchor) = index.read(), snapshot.journalOffset <= size,
                  IndexFile.anchor(journal: journal, offset: snapshot.journalOffset) == anchor {
            base = snapshot
            base?.retryDamaged(objects: objects)
            indexedLines = snapshot.journalLines
        } else {
            indexedLines = -1
        }
        var snapshot = base ?? StoreSnapshot()
        let chunk = try journal.read(from: snapshot.journalOffset, firstLine: snapshot.journalLines)
        snapshot.apply(chunk.versions.map(\.version), objects: objects)
        snapshot.journalOffset = chunk.endOffset
        snapshot.journalLines = chunk.endLine
        cachedAnchor = IndexFile.anchor(journal: journal, offset: snapshot.journalOffset)
        if canWrite, indexedLines < 0 || snapshot.journalLines - indexedLines >= Self.indexRewriteThreshold {
            try saveIndex(snapshot)
        }
        return snapshot
    }

    /// The journal anchor of `cache`, to notice a journal replaced under us.
    var cachedAnchor: String?
    /// Journal lines covered by the index on disk; -1 when there is no usable index.
    var indexedLines = -1

    func saveIndex(_ snapshot: StoreSnapshot) throws(AISyncError) {
        guard let anchor = IndexFile.anchor(journal: journal, offset: snapshot.journalOffset) else { return }
        try index.write(snapshot, anchor: anchor)
        indexedLines = snapshot.journalLines
    }
}
