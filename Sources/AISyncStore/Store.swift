import AISyncCore
import AISyncFiles
import Synchronization

/// A local aisync store: records as content-addressed objects plus an append-only journal.
///
/// Works with no network. Every operation takes the store's advisory lock, first catches up
/// with whatever other processes appended to the journal, then reads or writes, so several
/// processes (the CLI, an app) can share one store. See docs/DESIGN.md §4.
public actor Store {
    /// The store's directory (holding `config.json`, `journal.jsonl`, `objects/`, …).
    public nonisolated let root: String
    /// The config as loaded; it changes only when a copied store takes a new device id.
    public nonisolated var config: StoreConfig { configBox.withLock { $0 } }
    nonisolated let configBox: Mutex<StoreConfig>
    /// The clock, randomness and sleep every write and sync of this store uses.
    package nonisolated let environment: AISyncEnvironment
    let objects: ObjectStore
    let journal: Journal
    let index: IndexFile
    /// The snapshot as of the last operation; refreshed from the journal tail each time.
    var cache: StoreSnapshot?
    /// Where the store's jobs run: a dedicated I/O thread, so its blocking file I/O, fsync
    /// and lock waits never hold a thread of Swift's cooperative pool (see `IOExecutor`).
    nonisolated let executor = IOExecutor.next()
    /// The store runs on its I/O executor, not the cooperative pool.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    /// Who listens to `changes()`.
    var observers: [Int: AsyncStream<StoreChange>.Continuation] = [:]
    var nextObserverID = 0

    /// How many journal lines past the index make a write worth rewriting the index.
    static let indexRewriteThreshold = 32

    private init(root: String, config: StoreConfig, environment: AISyncEnvironment) {
        self.root = root
        configBox = Mutex(config)
        self.environment = environment
        objects = ObjectStore(directory: "\(root)/objects", environment: environment)
        journal = Journal(path: "\(root)/journal.jsonl", environment: environment)
        index = IndexFile(path: "\(root)/index/records.v2", environment: environment)
    }

    /// Reads versions and large values for folding record states.
    package var reader: VersionReader { VersionReader(journal: journal, objects: objects) }

    /// This device's id, which stamps every version it writes. It can change once, when a
    /// push finds the store is a copy in use elsewhere and gives it a new id.
    public nonisolated var deviceID: DeviceID { config.deviceID }

    /// Creates a new store with a fresh random device id.
    public static func create(at root: String, deviceName: String?, environment: AISyncEnvironment = .live)
        throws(AISyncError) -> Store
    {
        let configPath = "\(root)/config.json"
        if FileIO.exists(configPath) {
            throw AISyncError(
                .configuration, "\(root) is already a store",
                hint: "Use it as it is, or create the new store in another folder",
                remedy: .useExistingStore)
        }
        // The folders above the store are the user's, as `mkdir -p` makes them; the store
        // folder and everything in it are the owner's alone, whatever the umask (an empty
        // folder given for it is closed too; one holding other files is left as it is, and
        // reported).
        var trimmed = root
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        try FileIO.makeDirectories(FileIO.parentDirectory(of: trimmed), mode: FileIO.sharedDirectory)
        try FileIO.makeDirectories(root)
        if Platform.listDirectory(root)?.isEmpty == true {
            let fd = Platform.openEntry(root, in: nil, followLink: true)
            defer { if fd >= 0 { Platform.close(fd) } }
            if fd >= 0, let st = Platform.permissions(of: fd), st.mode & sharedBits != 0 {
                let code = Platform.setPermissions(of: fd, st.mode & ~sharedBits)
                if code != 0 { throw FileIO.ioError("change the permissions of", root, errno: code) }
            }
        }
        protectData(root)
        for sub in ["objects", "index", "sync"] { try FileIO.makeDirectories("\(root)/\(sub)") }
        let name = deviceName ?? environment.hostName() ?? "device"
        let config = StoreConfig(
            deviceID: environment.makeDeviceID(), deviceName: name, created: Timestamp(milliseconds: environment.now()))
        let journalPath = "\(root)/journal.jsonl"
        if !FileIO.exists(journalPath) {
            try FileIO.writeAtomically(journalPath, [], temporarySuffix: environment.temporarySuffix())
        }
        // config.json last: its presence is what makes a directory a store.
        try FileIO.writeAtomically(
            configPath, config.json.canonicalBytes + [10], temporarySuffix: environment.temporarySuffix())
        return Store(root: root, config: config, environment: environment)
    }

    /// Opens an existing store, refusing one written by a newer aisync.
    public static func open(at root: String, environment: AISyncEnvironment = .live) throws(AISyncError) -> Store {
        let configPath = "\(root)/config.json"
        guard FileIO.exists(configPath) else {
            throw AISyncError(
                .notFound, "no store at \(root)",
                hint: "Create a store there first, or open one at another location",
                remedy: .initStore)
        }
        var config = try StoreConfig(bytes: FileIO.read(configPath, limit: 1 << 20), path: configPath)
        if config.format < StoreConfig.currentFormat { config = try migrate(root: root, environment: environment) }
        // A store made before data protection gets it too (Apple platforms; new files inherit it).
        protectData(root)
        return Store(root: root, config: config, environment: environment)
    }

    /// Migrates a format 1 store (aisync 1) to records v2, under the lock. The journal is
    /// kept byte for byte: its v1 lines read as "set every field, add every element" (see
    /// `LegacyOperations`), so every version id stays valid here and on remotes, and nothing
    /// can be lost. Only the index (a cache) is dropped, and the config says format 2, which
    /// aisync 1 refuses with "upgrade aisync" instead of misreading v2 lines.
    static func migrate(root: String, environment: AISyncEnvironment) throws(AISyncError) -> StoreConfig {
        let configPath = "\(root)/config.json"
        guard let lock = try StoreLock.acquire(root: root, timeoutMilliseconds: environment.lockTimeoutMilliseconds)
        else {
            throw AISyncError(
                .permission, "the store \(root) is in format 1 and must be migrated, but it is read-only",
                hint: "Open it once with write permission")
        }
        var config = try StoreConfig(bytes: FileIO.read(configPath, limit: 1 << 20), path: configPath)
        if config.format < StoreConfig.currentFormat {
            _ = Platform.unlink("\(root)/index/records.v1")
            config.format = StoreConfig.currentFormat
            try FileIO.writeAtomically(
                configPath, config.json.canonicalBytes + [10], temporarySuffix: environment.temporarySuffix())
        }
        _ = consume lock
        return config
    }

    /// Runs `body` with the lock held (or without it on a read-only store when `write` is false)
    /// and an up-to-date snapshot.
    package func locked<T>(
        write: Bool, saveIndex: Bool = true, _ body: (inout StoreSnapshot, Bool) throws(AISyncError) -> T
    ) throws(AISyncError) -> T {
        let lock = try StoreLock.acquire(root: root, timeoutMilliseconds: environment.lockTimeoutMilliseconds)
        let canWrite = lock != nil
        if write && !canWrite {
            throw AISyncError(
                .permission, "the store \(root) is read-only",
                hint: "Check the directory's permissions; reading commands still work")
        }
        var snapshot = try refresh(canWrite: canWrite, saveIndex: saveIndex)
        let result: T
        do {
            result = try body(&snapshot, canWrite)
        } catch  where IndexBase.isDamage(error) {
            // The index failed a lookup: rebuilt from the journal, the body runs once more.
            // Safe to repeat: `append` recovers by itself once its lines are written, and a
            // batch merged in pieces (`integrate`) finds the pieces it appended held on the
            // second run (and syncs them, as it syncs whatever it leaves).
            dropIndex()
            snapshot = try refresh(canWrite: canWrite, saveIndex: saveIndex)
            result = try body(&snapshot, canWrite)
        }
        cache = snapshot
        _ = consume lock
        return result
    }

    /// Catches the snapshot up with the journal: cached snapshot, else the index, else a
    /// rebuild from the first line. Drops a torn final line when it may write. `saveIndex:
    /// false` leaves a stale index alone (a bulk import saves it once at its end).
    func refresh(canWrite: Bool, saveIndex: Bool = true) throws(AISyncError) -> StoreSnapshot {
        if canWrite { try journal.dropTornTail() }
        let size = journal.size()
        var snapshot: StoreSnapshot
        let fromBase: Bool
        var fromIndex = false
        if let offset = cache?.journalOffset, offset <= size,
            IndexFile.anchor(journal: journal, offset: offset) == cachedAnchor
        {
            // Taken, not copied: while `cache` still held it, the first change would copy every
            // dictionary (O(records) per command, O(records²) over a big import's batches).
            // `locked` puts it back when its body succeeds.
            snapshot = cache.take()!
            fromBase = true
        } else if let base = IndexBase(path: index.path), base.header.journalOffset <= size,
            IndexFile.anchor(journal: journal, offset: base.header.journalOffset) == base.header.anchor
        {
            indexedLines = base.header.journalLines
            snapshot = StoreSnapshot(base: base)
            fromBase = true
            fromIndex = true
        } else {
            indexedLines = -1
            snapshot = StoreSnapshot()
            fromBase = false
        }
        do {
            if fromIndex { try snapshot.retryDamaged(reader: reader) }
            try catchUp(&snapshot, canWrite: canWrite)
        } catch  where error.code == .temporary && fromBase {
            // The index (or cached snapshot) does not match the journal: rebuild from it.
            dropIndex()
            indexedLines = -1
            snapshot = StoreSnapshot()
            try catchUp(&snapshot, canWrite: canWrite)
            cachedAnchor = IndexFile.anchor(journal: journal, offset: snapshot.journalOffset)
            if canWrite { try self.saveIndex(&snapshot) }
            return snapshot
        }
        cachedAnchor = IndexFile.anchor(journal: journal, offset: snapshot.journalOffset)
        if canWrite, saveIndex, indexedLines < 0 || snapshot.journalLines - indexedLines >= Self.indexRewriteThreshold {
            try self.saveIndex(&snapshot)
        }
        return snapshot
    }

    /// Folds the journal past the end of `snapshot` into it, a window (``catchUpWindow``) at a
    /// time. A rebuild of a large store (index deleted or stale) then holds a window or two of
    /// versions, not the whole journal parsed at once; between
    /// windows the decoded states are dropped (rebuilt from the journal if a later window
    /// needs one). When there is more than one window, the next is read and parsed on other
    /// threads while this one is applied.
    func catchUp(_ snapshot: inout StoreSnapshot, canWrite: Bool) throws(AISyncError) {
        var windows = 0
        var chunk = try journal.read(
            from: snapshot.journalOffset, firstLine: snapshot.journalLines, maxBytes: Self.catchUpWindow)
        while chunk.endOffset > snapshot.journalOffset {
            let big = chunk.endOffset - snapshot.journalOffset >= Int64(Self.catchUpWindow / 2)
            let next =
                big
                ? Prefetch { [journal, from = chunk.endOffset, line = chunk.endLine] () throws(AISyncError) in
                    try journal.read(from: from, firstLine: line, maxBytes: Self.catchUpWindow)
                } : nil
            if windows > 0 { snapshot.dropDecodedStates() }
            try snapshot.apply(chunk.versions.lazy.map { ($0.version, $0.ref) }, reader: reader)
            snapshot.journalOffset = chunk.endOffset
            snapshot.journalLines = chunk.endLine
            if canWrite { try saveIndexIfLarge(&snapshot, growingUpTo: Self.rebuildOverlayCap) }
            windows += 1
            var applied: [Journal.Chunk.Line] = []
            swap(&applied, &chunk.versions)
            releaseElsewhere(applied)
            if let next {
                chunk = try next.value()
            } else {
                chunk = try journal.read(
                    from: snapshot.journalOffset, firstLine: snapshot.journalLines, maxBytes: Self.catchUpWindow)
            }
        }
    }

    /// 1 MB: a window parsed is several times its size, and two are alive at once; smaller
    /// windows lowered a rebuild's peak in the same time (docs/PERFORMANCE.md).
    static let catchUpWindow = 1 << 20

    /// The journal anchor of `cache`, to notice a journal replaced under us.
    var cachedAnchor: String?
    /// Journal lines covered by the index on disk; -1 when there is no usable index.
    var indexedLines = -1

    /// Writes the index (the records changed since the last one merged into it) and takes
    /// it as the snapshot's new base, so the changed records leave memory.
    func saveIndex(_ snapshot: inout StoreSnapshot) throws(AISyncError) {
        guard let anchor = IndexFile.anchor(journal: journal, offset: snapshot.journalOffset) else { return }
        let layout = try index.write(snapshot, anchor: anchor)
        indexedLines = snapshot.journalLines
        // Read back in place; should that fail (no mmap), the changes simply stay in memory.
        if let written = IndexBase(path: index.path, layout: layout),
            written.header.journalOffset == snapshot.journalOffset, written.header.anchor == anchor
        {
            snapshot.rebase(written)
        }
    }

    /// Saves the index when the records changed since the last one are many: a pull, an
    /// import or a rebuild of a large store then holds a batch of records, not all of them.
    /// `growingUpTo`: the batch grows with the index up to that many
    /// (``overlayLimit(indexed:upTo:)``), for a rebuild or a bulk write.
    func saveIndexIfLarge(_ snapshot: inout StoreSnapshot, growingUpTo cap: Int? = nil) throws(AISyncError) {
        let limit = cap.map { Self.overlayLimit(indexed: snapshot.baseCount, upTo: $0) } ?? Self.overlayLimit
        if snapshot.changedCount >= limit { try saveIndex(&snapshot) }
    }

    /// How many changed records a snapshot holds in memory before they go to the index
    /// (about 400 bytes each; the index is rewritten once per this many).
    static let overlayLimit = 5_000

    /// The batch of a rebuild or a bulk write: 5,000, or half the records already indexed, up
    /// to `cap`. Each write copies the whole index, so a batch that grows with it writes far
    /// fewer lines into a large one (docs/PERFORMANCE.md 3.14). Into an empty index the first
    /// batch is ``firstBulkOverlay``: memory peaks when the index is large, not then, and a
    /// pull of 10,000 chats into a new store writes its index once instead of twice.
    static func overlayLimit(indexed: Int, upTo cap: Int) -> Int {
        indexed == 0 ? max(firstBulkOverlay, cap) : min(max(overlayLimit, indexed / 2), cap)
    }

    /// How many records a bulk write into an empty index holds before its first write.
    static let firstBulkOverlay = 12_500

    /// A rebuild's cap (it holds a window of the journal besides).
    static let rebuildOverlayCap = 12_500
    /// A pull's or an import's cap: it holds a segment's versions besides, and its peak
    /// memory is bounded (a pull of 1,000,000 records in 64 MB).
    static let bulkOverlayCap = 8_000
}
