import AISyncCore
import AISyncFiles
import AISyncStore

/// What a ``SyncScheduler`` reports, per remote, for an app's UI or `aisync watch`'s lines.
public struct SyncEvent: Sendable {
    /// What happened.
    public enum Kind: Sendable {
        /// A sync started, for `reason`.
        case started(reason: SyncSchedule.Reason)
        /// The running sync moved on (as ``SyncEngine/progress`` reports it).
        case syncing(progress: SyncProgress)
        /// A sync ended well.
        case synced(reason: SyncSchedule.Reason, report: SyncReport)
        /// A sync failed; the next try is at `retryAt`.
        case failed(error: AISyncError, retryAt: Timestamp)
        /// The remote could not be reached; it is polled less often until it answers.
        case offline(error: AISyncError, retryAt: Timestamp)
        /// In sync, nothing pending; the next poll is at `next`.
        case idle(next: Timestamp?)
    }

    /// The remote's name.
    public var remote: String
    /// When it happened.
    public var time: Timestamp
    /// What happened.
    public var kind: Kind
}

/// Syncs a store by itself (docs/DESIGN.md §5.12): after local changes (coalesced: a burst
/// of edits is one sync), on a timer (a sync with nothing new is one request), when asked,
/// and around an app's life cycle; backing off after failures, polling slowly while a remote
/// is offline, one sync at a time. Its decisions are ``SyncSchedule``'s; it carries them out.
///
/// ```swift
/// let scheduler = SyncScheduler(store: store, engines: [engine])
/// await scheduler.start()
/// for await event in scheduler.events { show(event) }
/// ```
///
/// Local changes are seen in this process through the store, and those of other processes
/// (the CLI beside an app) through the journal: inotify or a dispatch source, and a poll.
public actor SyncScheduler {
    /// Everything the scheduler reports, until ``stop()``.
    public nonisolated let events: AsyncStream<SyncEvent>
    private let continuation: AsyncStream<SyncEvent>.Continuation
    private let store: Store
    private var engines: [String: SyncEngine] = [:]
    private var schedule: SyncSchedule
    private let now: @Sendable () -> Int64
    private let random: @Sendable () -> UInt64
    private let pollMilliseconds: Int64
    private let watchFiles: Bool
    private var loop: Task<Void, Never>?
    private var current: Task<Result<SyncReport, AISyncError>, Never>?
    private var helpers: [Task<Void, Never>] = []
    private var watcher: FileWatcher?
    private var wakeup: CheckedContinuation<Void, Never>?
    private var timer: Task<Void, Never>?
    private var stopping = false
    /// The journal's size when last looked at: a change is noted only when it moved.
    private var journalSize: Int64 = -1

    /// A scheduler for `store`, syncing with each of `engines` (their names are the remotes').
    /// `pollMilliseconds`: how often the journal is looked at for other processes' changes
    /// besides the file watch (0: never; the in-process ones are always seen). `watchFiles`:
    /// false leaves other processes' changes to the poll alone (a file system that sends no
    /// notifications, such as some network mounts).
    public init(
        store: Store, engines: [SyncEngine], policy: SyncSchedule.Policy = SyncSchedule.Policy(),
        pollMilliseconds: Int64 = 1_000, watchFiles: Bool = true
    ) {
        self.watchFiles = watchFiles
        self.store = store
        self.schedule = SyncSchedule(remotes: engines.map(\.name), policy: policy)
        self.now = store.environment.now
        self.random = store.environment.random
        self.pollMilliseconds = pollMilliseconds
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
        for engine in engines where self.engines[engine.name] == nil {
            var forwarding = engine
            let (name, yield, appProgress) = (engine.name, continuation, engine.progress)
            forwarding.progress = { progress in
                appProgress(progress)
                yield.yield(
                    SyncEvent(
                        remote: name, time: Timestamp(milliseconds: store.environment.now()),
                        kind: .syncing(progress: progress)))
            }
            self.engines[engine.name] = forwarding
        }
    }

    /// Starts: the first sync of each remote is due at once. Calling it again does nothing.
    public func start() {
        guard loop == nil, !stopping else { return }
        journalSize = store.journalFileSize()
        let storeChanges = store
        helpers.append(
            Task { [weak self] in
                for await _ in await storeChanges.changes() { await self?.journalMayHaveMoved() }
            })
        if watchFiles {
            watcher = FileWatcher(directory: store.root, name: "journal.jsonl") { [weak self] in
                Task { await self?.journalMayHaveMoved() }
            }
        }
        if pollMilliseconds > 0 {
            let every = pollMilliseconds
            helpers.append(
                Task { [weak self] in
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .milliseconds(every))
                        await self?.journalMayHaveMoved()
                    }
                })
        }
        loop = Task { await self.run() }
    }

    /// Stops: cancels a sync in flight (the remote stays valid; the next run finishes it) and
    /// waits for it to end. No event follows; ``events`` ends.
    public func stop() async {
        stopping = true
        watcher?.stop()
        for helper in helpers { helper.cancel() }
        current?.cancel()
        wake()
        await loop?.value
        continuation.finish()
    }

    /// Syncs `remote` (every remote when nil) as soon as the running sync, if any, ends:
    /// backoff and debounce do not hold it back.
    public func syncNow(_ remote: String? = nil) {
        schedule.request(remote)
        wake()
    }

    /// Nothing starts until ``resume()`` (a running sync finishes).
    public func pause() { schedule.paused = true }

    /// Starts again what ``pause()`` held.
    public func resume() {
        schedule.paused = false
        wake()
    }

    /// The app became active: sync soon, to show what other devices did meanwhile.
    public func becameActive() { syncNow() }

    /// The app is about to resign active: pushes what is pending to every remote now, and
    /// cancels the sync still running once `deadline` has passed (the remote stays valid;
    /// the rest goes at the next sync).
    public func willResignActive(deadline: Duration = .seconds(10)) async {
        let pending = schedule.order.filter { schedule.remotes[$0]?.firstChange != nil }
        guard !pending.isEmpty else { return }
        for name in pending { schedule.request(name) }
        wake()
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: deadline)
        while pending.contains(where: {
            schedule.remotes[$0]?.requested == true || schedule.remotes[$0]?.running != nil
        }
        ) {
            guard clock.now < end, !Task.isCancelled, !stopping else {
                current?.cancel()
                return
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// What the schedule knows now (for a test or a debug view).
    public var state: SyncSchedule { schedule }

    // MARK: - The loop

    private func run() async {
        while !stopping {
            let t = now()
            switch schedule.next(at: t) {
            case .sync(let remote, let reason):
                await sync(remote, reason: reason)
            case .wait(let until):
                await sleep(until: until)
            }
        }
    }

    private func sync(_ remote: String, reason: SyncSchedule.Reason) async {
        guard let engine = engines[remote] else { return }
        schedule.started(remote, at: now())
        emit(remote, .started(reason: reason))
        let task = Task { () async -> Result<SyncReport, AISyncError> in
            do throws(AISyncError) { return .success(try await engine.sync()) } catch { return .failure(error) }
        }
        current = task
        let result = await task.value
        current = nil
        let ended = now()
        let unit = Double(random() >> 11) / Double(1 << 53)
        switch result {
        case .success(let report):
            schedule.ended(remote, at: ended, .succeeded, unit: unit)
            emit(remote, .synced(reason: reason, report: report))
        case .failure(let error) where error.code == .cancelled && stopping:
            schedule.ended(remote, at: ended, .failed(offline: false, retryAfter: nil), unit: unit)
        case .failure(let error):
            let offline = error.code == .unavailable
            schedule.ended(
                remote, at: ended, .failed(offline: offline, retryAfter: error.retryAfterMilliseconds), unit: unit)
            let retryAt = Timestamp(milliseconds: schedule.remotes[remote]?.retryAt ?? ended)
            emit(remote, offline ? .offline(error: error, retryAt: retryAt) : .failed(error: error, retryAt: retryAt))
        }
        await noteWhatIsLeft(after: remote)
        if case .success = result, schedule.remotes[remote]?.firstChange == nil {
            emit(remote, .idle(next: schedule.due(remote).map { Timestamp(milliseconds: $0.at) }))
        }
    }

    /// After a sync: versions journaled past what a remote was sent (edits made meanwhile,
    /// or versions this sync brought that another remote has not got) are changes to send.
    private func noteWhatIsLeft(after remote: String) async {
        let size = store.journalFileSize()
        journalSize = size
        var behind: [String] = []
        for name in schedule.order {
            guard let checkpoint = try? await store.readCheckpoint(name) else { continue }
            if checkpoint.pushedOffset < size { behind.append(name) }
        }
        if !behind.isEmpty { schedule.noteChange(at: now(), remotes: behind) }
    }

    /// The journal may have grown (an edit here or in another process): a change when it did.
    private func journalMayHaveMoved() {
        let size = store.journalFileSize()
        guard size != journalSize else { return }
        journalSize = size
        // A sync running now wrote it, or an edit landed meanwhile: after the sync, what is
        // left is compared with each remote's checkpoint.
        if schedule.order.contains(where: { schedule.remotes[$0]?.running != nil }) { return }
        schedule.noteChange(at: now())
        wake()
    }

    private func sleep(until deadline: Int64?) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            guard !stopping else {
                c.resume()
                return
            }
            wakeup = c
            if let deadline {
                let wait = max(0, deadline - now())
                timer = Task { [weak self] in
                    try? await Task.sleep(for: .milliseconds(wait))
                    await self?.wake()
                }
            }
        }
        timer?.cancel()
        timer = nil
    }

    private func wake() {
        wakeup?.resume()
        wakeup = nil
    }

    private func emit(_ remote: String, _ kind: SyncEvent.Kind) {
        continuation.yield(SyncEvent(remote: remote, time: Timestamp(milliseconds: now()), kind: kind))
    }
}
