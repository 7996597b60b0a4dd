import AISync
import AISyncTestSupport
import Foundation
import Synchronization
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncImgur
@testable import AISyncRemote
@testable import AISyncStore
@testable import AISyncSync
@testable import AISyncTesting

// What an app embedding AISync uses beyond the CLI (issue 8): the README example, images from
// memory, local image files, Date and Codable conformances, and live change notifications.

@Suite("Library API")
struct LibraryAPITests {
    /// The README's "Using the library" example is a real executable target: it must build
    /// (it is built with everything) and run.
    @Test func theReadmeExampleRuns() throws {
        let exe = URL(fileURLWithPath: CLIHarness.executable).deletingLastPathComponent().appendingPathComponent(
            "aisync-example"
        ).path
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        let r = CLIHarness.runProcess(exe, [dir], display: ["aisync-example"])
        #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)")
        let lines = r.stdoutLines
        #expect(lines.first.map { CLIExpect.matches($0, "^changed: \\[\"chat-[0-9a-f]{16}\"\\]$") } == true, "\(r)")
        #expect(lines.contains("Lisbon trip — updated just now"), "\(r)")
        #expect(lines.contains("push cancelled"), "a cancelled push says so: \(r)")
        #expect(lines.contains("progress: pushing versions 0/2"), "progress reached the app: \(r)")
        #expect(lines.last == "pushed 2 version(s)", "\(r)")
        // What it pushed is a real remote another device can restore from.
        let other = CLIStore(directory: dir, path: "\(dir)/other")
        try other.ok(["init"])
        try other.ok(["remote", "add", "usb", "file://\(dir)/remote"])
        try other.ok(["pull"])
        #expect(try other.list().first?["title"] as? String == "Lisbon trip")
    }

    @Test func imagesFromMemoryAndTheirLocalFile() async throws {
        let dir = Scratch.makeDirectory("api-image")
        defer { Scratch.removeDirectory(dir) }
        let store = try Scratch.makeStore(in: dir, "a")
        let png = [UInt8](CLIFixtures.png.bytes)
        let id = try await store.addImage(data: png, title: "fox", prompt: "a fox", model: "dall-e-3")
        let path = try #require(try await store.imageFilePath(id))
        #expect(FileManager.default.contents(atPath: path).map([UInt8].init) == png)
        let url = try #require(try await store.imageFileURL(id))
        #expect(url.isFileURL && url.path == path)
        #expect(try Data(contentsOf: url) == Data(png), "an app can load the picture from the URL")
        guard case .image(let image)? = try await store.record(id).body else {
            Issue.record("not an image")
            return
        }
        #expect(image.size == Int64(png.count) && image.mediaType == "image/png" && image.prompt == "a fox")
        await #expect(throws: AISyncError.self) {
            try await store.addImage(data: Array("not an image".utf8), title: "x", prompt: nil, model: nil)
        }
        let chat = try await store.createChat(title: "c", model: nil)
        await #expect(throws: AISyncError.self) { try await store.imageFilePath(chat) }
    }

    @Test func summariesAreCodableAndTimesAreDates() async throws {
        let dir = Scratch.makeDirectory("api-codable")
        defer { Scratch.removeDirectory(dir) }
        let store = try Scratch.makeStore(in: dir, "a")
        _ = try await store.createChat(title: "Codable", model: nil)
        let summaries = try await store.list()
        let data = try JSONEncoder().encode(summaries)
        #expect(try JSONDecoder().decode([RecordSummary].self, from: data) == summaries)
        let t = Timestamp(milliseconds: 1_764_417_600_123)
        #expect(Timestamp(t.date) == t)
        #expect(String(decoding: try JSONEncoder().encode(t), as: UTF8.self) == "\"2025-11-29T12:00:00.123Z\"")
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(RecordID.self, from: Data("\"Not An Id\"".utf8))
        }
    }

    /// `changes()` announces local edits and versions pulled from a remote.
    @Test func changesAreAnnouncedForLocalEditsAndPulls() async throws {
        let dir = Scratch.makeDirectory("api-changes")
        defer { Scratch.removeDirectory(dir) }
        let a = try Scratch.makeStore(in: dir, "a")
        let b = try Scratch.makeStore(in: dir, "b")
        let remote = InMemoryRemote()
        let stream = await b.changes()
        let seen = Task { () -> [Set<RecordID>] in
            var all: [Set<RecordID>] = []
            for await change in stream {
                all.append(change.records)
                if all.count == 2 { break }
            }
            return all
        }
        let mine = try await b.createChat(title: "local", model: nil)
        let theirs = try await a.createChat(title: "remote", model: nil)
        _ = try await Scratch.engine(a, remote).push()
        _ = try await Scratch.engine(b, remote).pull()
        #expect(await seen.value == [[mine], [theirs]])
    }
}

/// A remote that cancels the task using it at its Nth write: a cancellation mid-push, at a
/// deterministic point.
private actor CancellingRemote: RemoteStorage {
    let inner: InMemoryRemote
    var writesLeft: Int
    init(_ inner: InMemoryRemote, cancelAtWrite n: Int) {
        self.inner = inner
        writesLeft = n
    }

    nonisolated var displayName: String { inner.displayName }
    nonisolated var canList: Bool { inner.canList }
    func read(_ path: String, maxBytes: Int) async throws(AISyncError) -> RemoteFile? {
        try await inner.read(path, maxBytes: maxBytes)
    }
    func download(_ path: String, to localPath: String, maxBytes: Int64) async throws(AISyncError) -> Bool {
        try await inner.download(path, to: localPath, maxBytes: maxBytes)
    }
    func write(_ path: String, _ bytes: [UInt8], condition: WriteCondition) async throws(AISyncError) -> WriteResult {
        writesLeft -= 1
        if writesLeft == 0 { withUnsafeCurrentTask { $0?.cancel() } }
        return try await inner.write(path, bytes, condition: condition)
    }
    func upload(_ path: String, from localPath: String, condition: WriteCondition) async throws(AISyncError)
        -> WriteResult
    {
        try await inner.upload(path, from: localPath, condition: condition)
    }
    func list(_ directory: String) async throws(AISyncError) -> [RemoteEntry]? { try await inner.list(directory) }
    func exists(_ path: String) async throws(AISyncError) -> Bool { try await inner.exists(path) }
    func delete(_ path: String) async throws(AISyncError) { try await inner.delete(path) }
}

extension LibraryAPITests {
    /// Cancelling a push of 1,000 chats stops it at the next step, says "cancelled", leaves
    /// the remote valid (no head names a missing segment), and the next push completes it.
    /// Cancelled while writing the manifest, and while writing the segment (before the head).
    @Test(arguments: [1, 2])
    func cancellingAPushStopsItAndTheNextPushCompletesIt(cancelAtWrite: Int) async throws {
        let dir = Scratch.makeDirectory("api-cancel")
        defer { Scratch.removeDirectory(dir) }
        let a = try Scratch.makeStore(in: dir, "a")
        let base = Timestamp(milliseconds: 1_764_417_600_000)
        let ids = try await a.createMany(
            (0..<1_000).map { i in
                .chat(
                    ChatBody(
                        title: "chat \(i)", model: nil,
                        messages: [
                            .init(id: "m-\(i)", role: .user, text: String(repeating: "x", count: 300), time: base)
                        ],
                        created: base, updated: base))
            })
        let remote = InMemoryRemote()
        let push = Task {
            try await Scratch.engine(a, CancellingRemote(remote, cancelAtWrite: cancelAtWrite)).push()
        }
        let result = await push.result
        guard case .failure(let error as AISyncError) = result else {
            Issue.record("the push was not cancelled: \(result)")
            return
        }
        #expect(error.code == .cancelled, "\(error)")
        // Whatever landed is consistent: another device pulls it without error.
        let b = try Scratch.makeStore(in: dir, "b")
        if await remote.contents(RemotePath.manifest) != nil { _ = try await Scratch.engine(b, remote).pull() }
        // The next push completes; a new device then gets all of them.
        _ = try await Scratch.engine(a, remote).push()
        let c = try Scratch.makeStore(in: dir, "c")
        _ = try await Scratch.engine(c, remote).pull()
        #expect(Set(try await c.list().map(\.id)) == Set(ids))
    }
}

extension LibraryAPITests {
    /// Progress is structured (phase, done, total, bytes) and reported in order; the stream
    /// an app binds to a progress bar delivers the latest.
    @Test func progressIsStructuredAndStreamed() async throws {
        let dir = Scratch.makeDirectory("api-progress")
        defer { Scratch.removeDirectory(dir) }
        let a = try Scratch.makeStore(in: dir, "a")
        for image in CLIFixtures.allImages {
            _ = try await a.addImage(data: [UInt8](image.bytes), title: image.name, prompt: nil, model: nil)
        }
        _ = try await a.createChat(title: "chat", model: nil)
        let remote = InMemoryRemote()
        let seen = Mutex<[SyncProgress]>([])
        let collect: @Sendable (SyncProgress) -> Void = { p in seen.withLock { $0.append(p) } }
        _ = try await SyncEngine(store: a, remote: remote, name: "mem", progress: collect).push()
        let b = try Scratch.makeStore(in: dir, "b")
        let (updates, report) = SyncProgress.stream()
        _ = try await SyncEngine(
            store: b, remote: remote, name: "mem",
            progress: { p in
                collect(p)
                report(p)
            }
        ).pull()
        let all = seen.withLock { $0 }
        #expect(
            all.filter { $0.phase == .pushingImages }.map(\.done) == Array(0..<CLIFixtures.allImages.count), "\(all)")
        // Versions are counted one by one, and the push reports reaching the end (a bar at 100 %).
        #expect(
            all.map(\.phase) == Array(repeating: .pushingImages, count: CLIFixtures.allImages.count) + [
                .pushingSegments, .pushingSegments, .pullingSegments,
            ]
                + Array(repeating: .pullingImages, count: CLIFixtures.allImages.count), "\(all)")
        let versions = CLIFixtures.allImages.count + 1
        #expect(
            all.filter { $0.phase == .pushingSegments }.map { [$0.done, $0.total] } == [
                [0, versions], [versions, versions],
            ], "\(all)")
        #expect(all.first { $0.phase == .pushingSegments && $0.done == versions }?.fraction == 1, "\(all)")
        for p in all where p.phase != .pushingSegments { #expect(p.done < p.total, "\(p)") }
        #expect(
            all.last?.description.hasPrefix(
                "pulling pictures \(CLIFixtures.allImages.count - 1)/\(CLIFixtures.allImages.count)") == true, "\(all)")
        // The stream keeps the newest: the last pull step.
        var latest: SyncProgress?
        for await p in updates {
            latest = p
            break
        }
        #expect(latest == all.last)
    }
}

extension LibraryAPITests {
    /// Without `--name`, a store is named after the machine (not "device"): `$HOSTNAME` is a
    /// shell variable that aisync never sees, so the system is asked.
    @Test func aNewStoreIsNamedAfterTheMachine() throws {
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        var env = CLIHarness.baseEnvironment()
        env["HOSTNAME"] = nil
        let r = CLIHarness.runProcess(CLIHarness.executable, ["init", "--store", "\(dir)/s"], environment: env)
        #expect(r.exitCode == 0, "\(r)")
        let config = try CLIJSON.parseObject(
            String(decoding: FileManager.default.contents(atPath: "\(dir)/s/config.json") ?? Data(), as: UTF8.self))
        let name = (config["device"] as? [String: Any])?["name"] as? String
        if let kernel = try? String(contentsOfFile: "/proc/sys/kernel/hostname", encoding: .utf8) {
            let expected = kernel.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").first.map(
                String.init)
            #expect(name == expected, "\(r)")
        }
        #expect(name != nil && name != "device", "\(r)")
    }
}
