import AISync
import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncStore

/// Ctrl-C and SIGTERM cancel a running command instead of killing it: a push stops between
/// two writes, says so in one line (exit 130) and leaves store and remote as they were.
@Suite("Ctrl-C")
struct CLIInterruptTests {
    @Test(
        "an interrupted push: exit 130, one line, nothing changed; the next push completes",
        arguments: [SIGINT, SIGTERM])
    func interruptedPush(signal: Int32) throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let remote = "\(store.directory)/remote"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        let chat = try store.ok(["chat", "new", "--title", "kept"]).trimmingCharacters(in: .whitespacesAndNewlines)
        try store.ok(["remote", "add", "usb", "file://\(remote)"])
        let journal = store.journalBytes()
        // Another holder of the sync lock keeps the push waiting, so the signal lands mid-command.
        try FileManager.default.createDirectory(atPath: "\(store.path)/sync", withIntermediateDirectories: true)
        let lockPath = "\(store.path)/sync/usb.lock"
        var held = try StoreLock.acquire(path: lockPath, what: "test", timeoutMilliseconds: 0)
        let push = try CLIHarness.startAISync(["push"], store: store.path)
        try #require(Self.waitUntil(push.pid, hasOpen: lockPath), "the push never reached the sync lock")
        kill(push.pid, signal)
        let r = push.wait(timeout: 20)
        CLIExpect.cleanError(r, code: 130, mentioning: ["cancelled", "run it again"])
        #expect(store.journalBytes() == journal, "the store is unchanged")
        #expect(!FileManager.default.fileExists(atPath: "\(remote)/heads"), "nothing was published")
        held = nil
        _ = held
        try store.ok(["push"])
        let other = CLIStore(directory: store.directory, path: "\(store.directory)/other")
        try other.ok(["init"])
        try other.ok(["remote", "add", "usb", "file://\(remote)"])
        try other.ok(["pull"])
        #expect(try other.show(chat)["title"] as? String == "kept")
    }

    /// Waits (up to 10 s) until process `pid` has `path` open: a condition, not a guess at time.
    static func waitUntil(_ pid: Int32, hasOpen path: String) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            if fds.contains(where: {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == path
            }) {
                return true
            }
            usleep(5_000)
        }
        return false
    }
}
