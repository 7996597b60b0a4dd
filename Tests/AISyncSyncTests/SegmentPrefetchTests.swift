import AISyncCore
import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncSync

/// A pull's read-ahead (issue 29): the next segment's download starts as soon as the one
/// before it has downloaded, while that one is still being verified, so the link never waits
/// for the CPU; each segment is downloaded once; nothing it started outlives it.
@Suite("Segment prefetch")
struct SegmentPrefetchTests {
    /// What the fake remote and the fake reader did, in order; each read waits at its gate
    /// until the test opens it (as if verifying took that long).
    actor Log {
        private(set) var events: [String] = []
        private var opened: Set<Int64> = []
        private var gates: [Int64: CheckedContinuation<Void, Never>] = [:]

        func add(_ event: String) { events.append(event) }

        func gate(_ n: Int64) async {
            guard !opened.contains(n) else { return }
            await withCheckedContinuation { gates[n] = $0 }
        }

        func open(_ n: Int64) {
            opened.insert(n)
            gates.removeValue(forKey: n)?.resume()
        }

        func has(_ event: String) -> Bool { events.contains(event) }
    }

    /// Waits (up to 10 s) for `condition`; false when it never held.
    static func eventually(_ condition: () async -> Bool) async -> Bool {
        for _ in 0..<2_000 {
            if await condition() { return true }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return false
    }

    /// A read-ahead over segments 1...`last` whose downloads write `dir/N.seg` (segment
    /// `missing` is not on the remote) and whose reads remove the file they were given.
    static func prefetch(_ log: Log, dir: String, through last: Int64, missing: Int64? = nil) -> SegmentPrefetch {
        SegmentPrefetch(through: last) { (n) async throws(AISyncError) -> String? in
            await log.add("download \(n)")
            guard n != missing else { return nil }
            let path = "\(dir)/\(n).seg"
            guard FileManager.default.createFile(atPath: path, contents: Data("segment \(n)".utf8)) else {
                throw AISyncError(.io, "cannot write \(path)")
            }
            await log.add("downloaded \(n)")
            return path
        } read: { (n, file) async throws(AISyncError) -> SegmentPrefetch.Read in
            await log.add(file == nil ? "read \(n) itself" : "read \(n) from its file")
            await log.gate(n)
            if let file {
                #expect((try? String(contentsOfFile: file, encoding: .utf8)) == "segment \(n)")
                try? FileManager.default.removeItem(atPath: file)
            }
            return (entries: [], bytes: Int(n))
        }
    }

    static func files(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    @Test func theNextSegmentDownloadsWhileOneIsVerifiedAndEachDownloadsOnce() async throws {
        let dir = Scratch.makeDirectory("prefetch")
        defer { Scratch.removeDirectory(dir) }
        let log = Log()
        var ahead = Self.prefetch(log, dir: dir, through: 3)

        await ahead.start(1)
        // Segment 1 is still being verified (its gate is shut): segment 2 downloads anyway.
        #expect(await Self.eventually { await log.has("downloaded 2") })
        #expect(await !log.has("download 3"), "one download ahead of the read, not more")
        await log.open(1)
        #expect(try await ahead.take(1)?.bytes == 1)

        await ahead.start(2)  // reads the file already downloaded, and starts segment 3's download
        #expect(await Self.eventually { await log.has("downloaded 3") })
        await log.open(2)
        #expect(try await ahead.take(2)?.bytes == 2)
        await ahead.start(3)
        await log.open(3)
        #expect(try await ahead.take(3)?.bytes == 3)
        await ahead.stop()

        let events = await log.events
        #expect(events.filter { $0.hasPrefix("download ") } == ["download 1", "download 2", "download 3"])
        #expect(events.filter { $0.hasPrefix("read ") } == (1...3).map { "read \($0) from its file" })
        #expect(Self.files(dir).isEmpty, "every downloaded file was read and removed: \(Self.files(dir))")
    }

    @Test func aDownloadNoOneTakesIsRemovedWhenThePullStops() async throws {
        let dir = Scratch.makeDirectory("prefetch-stop")
        defer { Scratch.removeDirectory(dir) }
        let log = Log()
        var ahead = Self.prefetch(log, dir: dir, through: 5)
        await ahead.start(1)
        #expect(await Self.eventually { await log.has("downloaded 2") })
        #expect(Self.files(dir) == ["1.seg", "2.seg"], "segment 1 is being read, segment 2 waits on disk")
        await log.open(1)
        #expect(try await ahead.take(1)?.bytes == 1)
        #expect(Self.files(dir) == ["2.seg"])
        // The pull ends here (an error, a jump to a snapshot): segment 2 will not be taken.
        await ahead.stop()
        #expect(Self.files(dir).isEmpty)
        #expect(await !log.has("download 3"))
    }

    @Test func aSegmentNothingWasStartedForIsReadThenAndAMissingOneIsNil() async throws {
        let dir = Scratch.makeDirectory("prefetch-direct")
        defer { Scratch.removeDirectory(dir) }
        let log = Log()
        var ahead = Self.prefetch(log, dir: dir, through: 9, missing: 4)
        await log.open(7)
        #expect(try await ahead.take(7)?.bytes == 7)
        #expect(await log.events == ["read 7 itself"])

        // Started on a segment the remote lacks: the read gives nil without reading a file.
        await ahead.start(4)
        #expect(try await ahead.take(4) == nil)
        await ahead.stop()
        #expect(await !log.has("read 4 from its file"))
        #expect(Self.files(dir).isEmpty)
    }
}
