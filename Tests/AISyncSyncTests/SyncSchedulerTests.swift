import AISyncTestSupport
import Foundation
import Synchronization
import Testing

@testable import AISyncCore
@testable import AISyncStore
@testable import AISyncSync
@testable import AISyncTesting

/// The scheduler at work (issue 28), on the real clock with short intervals: two devices
/// converge with nobody calling sync, a burst of edits is a few syncs, a failing remote is
/// reported and recovered from, another process's edit is noticed through the journal.
@Suite("Sync scheduler")
struct SyncSchedulerTests {
    static let policy = SyncSchedule.Policy(
        interval: 400, debounce: 50, maxDelay: 400, backoffBase: 100, backoffCap: 400, offlineInterval: 400)

    /// A store on the live clock (the scheduler sleeps for real).
    static func store(_ dir: String, _ name: String) throws -> Store {
        try Store.create(at: "\(dir)/\(name)", deviceName: name, environment: .live)
    }

    /// Collects a scheduler's events in the background.
    final class Recorder: Sendable {
        final class Box: Sendable {
            let events = Mutex<[SyncEvent]>([])
        }
        let box = Box()
        let task: Task<Void, Never>

        init(_ scheduler: SyncScheduler) {
            let box = box
            task = Task { for await e in scheduler.events { box.events.withLock { $0.append(e) } } }
        }

        func count(_ match: (SyncEvent) -> Bool) -> Int { box.events.withLock { $0.filter(match).count } }
    }

    /// Waits up to `seconds` for `condition`. `scripts/test.sh` runs this suite on its own: in
    /// a full run every async test is in flight at once and stores share four I/O threads,
    /// and twice this suite's first sync came later than 120 s. Alone it takes a second or
    /// two; the long bound is for a plain `swift test` of everything, and keeps a hang from
    /// lasting forever.
    static func eventually(_ seconds: Double = 600, _ condition: () async throws -> Bool) async throws -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if try await condition() { return true }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        return try await condition()
    }

    static func isSynced(_ e: SyncEvent) -> Bool { if case .synced = e.kind { true } else { false } }

    @Test func twoDevicesConvergeWithNobodyCallingSync() async throws {
        let dir = Scratch.makeDirectory("scheduler-two")
        defer { Scratch.removeDirectory(dir) }
        let remote = InMemoryRemote()
        let a = try Self.store(dir, "a")
        let b = try Self.store(dir, "b")
        let sa = SyncScheduler(
            store: a, engines: [SyncEngine(store: a, remote: remote, name: "mem")], policy: Self.policy)
        let sb = SyncScheduler(
            store: b, engines: [SyncEngine(store: b, remote: remote, name: "mem")], policy: Self.policy)
        let recorded = Recorder(sb)
        await sa.start()
        await sb.start()
        let id = try await a.createChat(title: "from a", model: nil)
        _ = try await a.appendMessage(to: id, role: .user, text: "hello from a")
        #expect(
            try await Self.eventually {
                (try? await b.list())?.contains { $0.id == id && $0.title == "from a" } == true
            },
            "b never got a's chat")
        let back = try await b.createChat(title: "from b", model: nil)
        #expect(
            try await Self.eventually { (try? await a.list())?.contains { $0.id == back } == true },
            "a never got b's chat")
        await sa.stop()
        await sb.stop()
        await recorded.task.value  // the stream ended with stop
        #expect(recorded.count(Self.isSynced) >= 2)
        let statuses = try await b.remoteStatuses()
        #expect(statuses.isEmpty, "no remote configured by name: status lists configured remotes only")
        #expect(await b.syncHistory("mem").lastSuccess != nil, "the scheduler's syncs are noted like any other")
    }

    @Test func aBurstOfEditsIsAFewSyncsNotOneEach() async throws {
        let dir = Scratch.makeDirectory("scheduler-burst")
        defer { Scratch.removeDirectory(dir) }
        let remote = InMemoryRemote()
        let a = try Self.store(dir, "a")
        let policy = SyncSchedule.Policy(
            interval: 60_000, debounce: 300, maxDelay: 1_000, backoffBase: 100, backoffCap: 400)
        let scheduler = SyncScheduler(
            store: a, engines: [SyncEngine(store: a, remote: remote, name: "mem")], policy: policy)
        let recorded = Recorder(scheduler)
        await scheduler.start()
        #expect(try await Self.eventually { recorded.count(Self.isSynced) == 1 }, "the first sync at start")
        let id = try await a.createChat(title: "burst", model: nil)
        for n in 0..<200 { _ = try await a.appendMessage(to: id, role: .user, text: "edit \(n)") }
        #expect(try await Self.eventually { try await a.remoteHasEverything(remote) }, "the burst was not all pushed")
        try await Task.sleep(nanoseconds: 500_000_000)
        await scheduler.stop()
        await recorded.task.value
        let syncs = recorded.count(Self.isSynced) - 1
        #expect((1...6).contains(syncs), "201 edits made \(syncs) syncs")
    }

    @Test func aFailingRemoteIsReportedRetriedAndRecovers() async throws {
        let dir = Scratch.makeDirectory("scheduler-failure")
        defer { Scratch.removeDirectory(dir) }
        let remote = InMemoryRemote()
        let a = try Self.store(dir, "a")
        _ = try await a.createChat(title: "waiting", model: nil)
        await remote.setFailure { _ in AISyncError(.unavailable, "cannot reach memory://remote") }
        let scheduler = SyncScheduler(
            store: a, engines: [SyncEngine(store: a, remote: remote, name: "mem")], policy: Self.policy)
        let recorded = Recorder(scheduler)
        await scheduler.start()
        let offline = { (e: SyncEvent) -> Bool in if case .offline = e.kind { true } else { false } }
        #expect(try await Self.eventually { recorded.count(offline) >= 3 }, "not retried")
        let state = await scheduler.state
        #expect(state.remotes["mem"]?.offline == true && (state.remotes["mem"]?.failures ?? 0) >= 3)
        #expect(await a.syncHistory("mem").lastAttempt?.error?.code == "unavailable")
        await remote.setFailure(nil)
        #expect(try await Self.eventually { recorded.count(Self.isSynced) >= 1 }, "never recovered")
        #expect(try await Self.eventually { await scheduler.state.remotes["mem"]?.offline == false })
        await scheduler.stop()
        #expect(try await a.remoteHasEverything(remote))
    }

    /// The app's life cycle: about to resign active, what is pending goes up before the call
    /// returns, even with a poll an hour away and a long debounce; paused, nothing starts;
    /// became active, a sync starts at once.
    @Test func lifeCycleHooksPushBeforeResigningAndSyncOnBecomingActive() async throws {
        let dir = Scratch.makeDirectory("scheduler-life")
        defer { Scratch.removeDirectory(dir) }
        let remote = InMemoryRemote()
        let a = try Self.store(dir, "a")
        let scheduler = SyncScheduler(
            store: a, engines: [SyncEngine(store: a, remote: remote, name: "mem")],
            policy: SyncSchedule.Policy(interval: 3_600_000, debounce: 600_000, maxDelay: 600_000))
        let recorded = Recorder(scheduler)
        await scheduler.start()
        #expect(try await Self.eventually { recorded.count(Self.isSynced) == 1 }, "the first sync at start")
        _ = try await a.createChat(title: "written just before the app went away", model: nil)
        #expect(try await Self.eventually { await scheduler.state.remotes["mem"]?.firstChange != nil })
        await scheduler.willResignActive(deadline: .seconds(120))
        #expect(try await a.remoteHasEverything(remote), "nothing was pushed before resigning")
        #expect(try await Self.eventually { recorded.count(Self.isSynced) == 2 })

        await scheduler.pause()
        await scheduler.syncNow()
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(recorded.count(Self.isSynced) == 2, "a sync started while paused")
        await scheduler.resume()
        #expect(try await Self.eventually { recorded.count(Self.isSynced) == 3 }, "sync now did not run on resume")
        await scheduler.becameActive()
        #expect(try await Self.eventually { recorded.count(Self.isSynced) == 4 }, "becoming active did not sync")
        await scheduler.stop()
    }

    /// An edit by another process (a second `Store` on the same folder stands for it: its
    /// changes reach this one only through the journal file) is noticed by the file watch
    /// without the poll, and by the poll alone without the file watch (a file system that
    /// sends no notifications).
    @Test(
        "another process's edit is noticed through the journal: by the file watch alone, by the poll alone",
        arguments: [(poll: Int64(0), watchFiles: true), (poll: Int64(100), watchFiles: false)])
    func anotherProcessEditIsNoticed(poll: Int64, watchFiles: Bool) async throws {
        let dir = Scratch.makeDirectory("scheduler-other")
        defer { Scratch.removeDirectory(dir) }
        let remote = InMemoryRemote()
        let a = try Self.store(dir, "a")
        let scheduler = SyncScheduler(
            store: a, engines: [SyncEngine(store: a, remote: remote, name: "mem")],
            policy: SyncSchedule.Policy(interval: 600_000, debounce: 50), pollMilliseconds: poll,
            watchFiles: watchFiles)
        let recorded = Recorder(scheduler)
        await scheduler.start()
        #expect(try await Self.eventually { recorded.count(Self.isSynced) == 1 })
        let other = try Store.open(at: "\(dir)/a", environment: .live)
        _ = try await other.createChat(title: "by another process", model: nil)
        #expect(try await Self.eventually(600) { recorded.count(Self.isSynced) == 2 }, "the edit was not noticed")
        #expect(try await a.remoteHasEverything(remote))
        await scheduler.stop()
    }
}

extension Store {
    /// Whether the remote has every version of this store: a new store pulling from it ends
    /// with as many journal lines.
    fileprivate func remoteHasEverything(_ remote: InMemoryRemote) async throws -> Bool {
        let dir = Scratch.makeDirectory("scheduler-check")
        defer { Scratch.removeDirectory(dir) }
        let fresh = try Scratch.makeStore(in: dir, "fresh")
        guard (try? await SyncEngine(store: fresh, remote: remote, name: "mem").pull()) != nil else { return false }
        return try await fresh.status().journalLines == status().journalLines
    }
}
