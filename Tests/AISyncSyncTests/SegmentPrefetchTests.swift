import AISyncCore
import AISyncTestSupport
import AISyncTesting
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
    /// `missing` is not on the remote, segment `failing` fails) and whose reads remove the
    /// file they were given, or throw the download's error.
    static func prefetch(
        _ log: Log, dir: String, through last: Int64, missing: Int64? = nil, failing: Int64? = nil
    ) -> SegmentPrefetch {
        SegmentPrefetch(through: last) { (n) async throws(AISyncError) -> String? in
            await log.add("download \(n)")
            guard n != missing else { return nil }
            guard n != failing else { throw AISyncError(.unavailable, "segment \(n) failed") }
            let path = "\(dir)/\(n).seg"
            guard FileManager.default.createFile(atPath: path, contents: Data("segment \(n)".utf8)) else {
                throw AISyncError(.io, "cannot write \(path)")
            }
            await log.add("downloaded \(n)")
            return path
        } read: { (n, downloaded) async throws(AISyncError) -> SegmentPrefetch.Read in
            let file: String?
            switch downloaded {
            case .success(let path)?: file = path
            case .failure(let error)?:
                await log.add("read \(n) after: \(error.message)")
                throw error
            case nil: file = nil
            }
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

    @Test func aDownloadMadeAheadIsTakenEvenWhenTheReadWasNotStarted() async throws {
        let dir = Scratch.makeDirectory("prefetch-reuse")
        defer { Scratch.removeDirectory(dir) }
        let log = Log()
        var ahead = Self.prefetch(log, dir: dir, through: 5)
        await ahead.start(1)
        #expect(await Self.eventually { await log.has("downloaded 2") })
        await log.open(1)
        #expect(try await ahead.take(1)?.bytes == 1)
        await log.open(2)
        #expect(try await ahead.take(2)?.bytes == 2, "taken without a start, as after a jump to a snapshot")
        await ahead.stop()
        let events = await log.events
        #expect(events.filter { $0 == "download 2" }.count == 1, "\(events)")
        #expect(events.contains("read 2 from its file"))
        #expect(Self.files(dir).isEmpty)
    }

    @Test(arguments: [(missing: Int64?.some(2), failing: Int64?.none), (missing: nil, failing: 2)])
    func nothingIsDownloadedAfterAMissingOrFailedSegment(missing: Int64?, failing: Int64?) async throws {
        let dir = Scratch.makeDirectory("prefetch-after")
        defer { Scratch.removeDirectory(dir) }
        let log = Log()
        var ahead = Self.prefetch(log, dir: dir, through: 5, missing: missing, failing: failing)
        await ahead.start(1)
        await log.open(1)
        #expect(try await ahead.take(1)?.bytes == 1)
        await ahead.start(2)
        if missing != nil {
            #expect(try await ahead.take(2) == nil)
        } else {
            await #expect(throws: AISyncError.self) { try await ahead.take(2) }
            #expect(await log.has("read 2 after: segment 2 failed"), "the read went on from the download's error")
        }
        await ahead.stop()  // waits for whatever was started after segment 2
        #expect(await !log.has("download 3"))
        #expect(Self.files(dir).isEmpty)
    }

    /// The real thing: a pull of several segments from a remote asks for each segment once,
    /// gets every record, and leaves no scratch file.
    @Test func aPullOfManySegmentsFetchesEachOnceAndLeavesNoScratchFile() async throws {
        let dir = Scratch.makeDirectory("prefetch-pull")
        defer { Scratch.removeDirectory(dir) }
        let a = try Scratch.makeStore(in: dir, "a")
        let remote = InMemoryRemote()
        for round in 0..<4 {  // a push per round: a segment each
            _ = try await a.createMany(SyncEngineTests.chatBodies(50, prefix: "Round \(round) chat"))
            _ = try await Scratch.engine(a, remote).push()
        }
        let b = try Scratch.makeStore(in: dir, "b")
        await remote.resetRequests()
        let report = try await Scratch.engine(b, remote).pull()
        #expect(report.pulled == 200)
        #expect(try await b.list().count == 200)
        let segmentGets = await remote.requests.filter { $0.method == "GET" && $0.path.hasPrefix("segments/") }
        #expect(segmentGets.count == 4, "\(segmentGets.map { $0.path })")
        #expect(Set(segmentGets.map { $0.path }).count == 4)
        #expect(Self.files("\(b.root)/sync/tmp").isEmpty)
    }

    // MARK: - The first segment parsed in halves

    /// A real segment of `count` chats (over 1 MiB at 2,500) as its file bytes, with what its
    /// header names.
    static func segmentFile(chats count: Int, in dir: String) async throws -> (
        bytes: [UInt8], device: DeviceID, remoteID: String
    ) {
        let a = try Scratch.makeStore(in: dir, "writer")
        let remote = InMemoryRemote()
        _ = try await a.createMany(SyncEngineTests.chatBodies(count, prefix: "A chat with a title long enough"))
        _ = try await Scratch.engine(a, remote).push()
        let path = try #require(
            await remote.requests.first { $0.method == "PUT" && $0.path.hasPrefix("segments/") }?.path)
        let bytes = try #require(try await remote.read(path, maxBytes: 64 << 20)?.bytes)
        let headerEnd = try #require(bytes.firstIndex(of: 10))
        let header = try JSONParser.parse(bytes[..<headerEnd])
        let deviceName = try #require(header["device"]?.stringValue)
        let device = try #require(DeviceID(deviceName))
        return (bytes, device, try #require(header["remote"]?.stringValue))
    }

    /// The segment in `bytes` parsed from a file both ways: its entries' lines, or its error.
    static func bothWays(_ bytes: [UInt8], _ file: String, device: DeviceID, remoteID: String) async
        -> [Result<[[UInt8]], AISyncError>]
    {
        FileManager.default.createFile(atPath: file, contents: Data(bytes))
        var results: [Result<[[UInt8]], AISyncError>] = []
        for inHalves in [false, true] {
            do throws(AISyncError) {
                let segment = try await SyncEngine.decodeSegmentFile(
                    file, size: Int64(bytes.count), shown: "r/1.seg", device: device, seq: 1, remoteID: remoteID,
                    inHalves: inHalves)
                results.append(.success(segment.entries.map { $0.line ?? $0.version.json.canonicalBytes }))
            } catch {
                results.append(.failure(error))
            }
        }
        return results
    }

    /// `bytes` with its header's count replaced by `count`.
    static func counting(_ bytes: [UInt8], _ count: Int) -> [UInt8] {
        let text = String(decoding: bytes, as: UTF8.self)
        return Array(text.replacingOccurrences(of: "\"count\":2500", with: "\"count\":\(count)").utf8)
    }

    static func message(_ result: Result<[[UInt8]], AISyncError>) -> String? {
        if case .failure(let error) = result { return "\(error.code) \(error.message)" }
        return nil
    }

    @Test func aBigSegmentParsedInHalvesGivesTheSameEntriesAndTheSameErrors() async throws {
        let dir = Scratch.makeDirectory("halves")
        defer { Scratch.removeDirectory(dir) }
        let (bytes, device, remoteID) = try await Self.segmentFile(chats: 2_500, in: dir)
        let file = "\(dir)/1.seg"
        FileManager.default.createFile(atPath: file, contents: Data(bytes))
        let split = try #require(SyncEngine.halvesSplit(file, size: Int64(bytes.count)), "the segment is split")
        #expect(split > Int64(bytes.count) / 2 && bytes[Int(split) - 1] == 10)

        let whole = await Self.bothWays(bytes, file, device: device, remoteID: remoteID)
        let lines = try whole[0].get()
        #expect(lines.count == 2_500)
        #expect(try whole[1].get() == lines)

        // Damage one line in each half, cut the file short, drop or repeat a line.
        let starts = [0] + bytes.indices.filter { bytes[$0] == 10 }.map { $0 + 1 }.dropLast()
        func damaged(line: Int) -> [UInt8] {
            var copy = bytes
            let at = starts[line] + 40
            copy[at] = copy[at] == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
            return copy
        }
        let cases: [(String, [UInt8])] = [
            ("a line of the first half", damaged(line: 10)),
            ("a line of the second half", damaged(line: 2_400)),
            ("the last newline cut", Array(bytes.dropLast())),
            ("the last line dropped", Array(bytes[..<starts[2_500]])),
            ("a line repeated", bytes + bytes[starts[2_500]...]),
            ("the header's count", Self.counting(bytes, 2_499)),
            // A wrong count beside other damage: one pass in order stops at the count first.
            ("an empty line past the last", bytes + [10]),
            ("one fewer counted and the last line damaged", Self.counting(damaged(line: 2_500), 2_499)),
            ("two fewer counted and the last newline cut", Self.counting(Array(bytes.dropLast()), 2_498)),
            ("one fewer counted and the last newline cut", Self.counting(Array(bytes.dropLast()), 2_499)),
            ("far fewer counted and a line of the second half damaged", Self.counting(damaged(line: 2_400), 2_000)),
        ]
        for (what, broken) in cases {
            let results = await Self.bothWays(broken, file, device: device, remoteID: remoteID)
            let sequential = try #require(Self.message(results[0]), "\(what): refused")
            #expect(Self.message(results[1]) == sequential, "\(what)")
            #expect(sequential.hasPrefix("damaged-data remote segment r/1.seg is invalid"), "\(what): \(sequential)")
        }
        // The line a damaged second half names is counted from the segment's start.
        let late = await Self.bothWays(damaged(line: 2_400), file, device: device, remoteID: remoteID)
        #expect(Self.message(late[1])?.contains("line 2401") == true, "\(String(describing: Self.message(late[1])))")
    }
}
