import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncStore

extension Store {
    /// Whether this store's jobs run on an I/O thread (a test hook: an isolated method runs on
    /// the store's executor), and which thread.
    fileprivate func thread() -> (io: Bool, id: ObjectIdentifier) {
        (IOExecutor.isCurrentThread, ObjectIdentifier(Thread.current))
    }
}

@Suite("Store executor and sync lock waits")
struct IOExecutorTests {
    @Test("store work runs on an aisync I/O thread, never the cooperative pool")
    func storeRunsOnIOThread() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("aisync-exec-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try Store.create(at: dir, deviceName: "t")
        #expect(await store.thread().io)
        #expect(!IOExecutor.isCurrentThread, "the test itself runs on the cooperative pool")
        let id = try await store.createChat(title: "on its own thread", model: nil)
        #expect(try await store.record(id).1 != nil)
    }

    @Test("many stores at once share a few I/O threads and stay serial")
    func manyStores() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("aisync-exec-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: base) }
        let threads = try await withThrowingTaskGroup(of: [(io: Bool, id: ObjectIdentifier)].self) { group in
            for n in 0..<12 {
                group.addTask {
                    let store = try Store.create(at: "\(base)/\(n)", deviceName: "s\(n)")
                    for i in 0..<5 { _ = try await store.createChat(title: "chat \(i)", model: nil) }
                    #expect(try await store.list().count == 5)
                    return [await store.thread()]
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(threads.allSatisfy { $0.io })
        #expect(Set(threads.map(\.id)).count <= 4, "a few shared threads, not one per store")
    }

    @Test("a sync lock held by another holder: waiting costs no thread and a cancelled wait stops at once")
    func cancelledLockWait() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("aisync-lock-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = "\(dir)/sync.lock"
        let held = try StoreLock.acquire(path: path, what: "test", timeoutMilliseconds: 0)
        let isHeld = held != nil
        #expect(isHeld)
        // flock locks are per open file description: a second open in this process conflicts.
        let waiter = Task { () async throws(AISyncError) -> Bool in
            let lock = try await StoreLock.acquireAsync(
                path: path, what: "syncing with test", timeoutMilliseconds: 60_000)
            return lock != nil
        }
        try await Task.sleep(nanoseconds: 100_000_000)
        waiter.cancel()
        let result = await waiter.result
        #expect(throws: AISyncError.self) { try result.get() }
        if case .failure(let error) = result { #expect((error as? AISyncError)?.code == .cancelled) }
        _ = consume held
        // Released: the next wait gets it at once.
        let again = try await StoreLock.acquireAsync(path: path, what: "syncing with test", timeoutMilliseconds: 1_000)
        let gotIt = again != nil
        #expect(gotIt)
    }

    @Test("a lock still busy at the deadline is a clear temporary error")
    func lockTimeout() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("aisync-lock-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = "\(dir)/sync.lock"
        let held = try StoreLock.acquire(path: path, what: "test", timeoutMilliseconds: 0)
        do throws(AISyncError) {
            _ = try await StoreLock.acquireAsync(path: path, what: "syncing with test", timeoutMilliseconds: 100)
            Issue.record("got a lock that is held")
        } catch {
            #expect(error.code == .temporary)
            #expect(error.description.contains("syncing with test is busy"))
        }
        _ = consume held
    }
}
