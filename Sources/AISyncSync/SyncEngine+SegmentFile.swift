import AISyncCore
import AISyncFiles
import AISyncRemote
import AISyncStore

extension SyncEngine {
    /// Downloads a segment (or snapshot part) to a scratch file, hashing it on the way, and
    /// parses it from there a line at a time: a segment never sits whole in memory next to
    /// its parsed entries, and a hostile one (a 63 MB line of one string) is refused after a
    /// few KiB are read. Nil when the remote does not have it.
    ///
    /// Like ``readParsed(_:maxBytes:_:)``, a segment that does not parse is read again after
    /// a short wait (a server writing it in place, an answer cut short), until a read of the
    /// same size is refused for the same reason: then the damage is real. (Compared without
    /// hashing the file: most refusals stop reading after a few KiB.)
    ///
    /// `downloaded`: how a download already made for it went (``downloadSegmentFile(_:)``):
    /// the first attempt takes it (reads its scratch file, and removes it like the others, or
    /// goes on from its error) instead of downloading again. `inHalves`: a big segment is
    /// parsed as two halves at once (when the other core has nothing else to do).
    func readSegmentFile(
        _ path: String, device: DeviceID, seq: Int64, remoteID: String,
        downloaded: Result<String, AISyncError>? = nil, inHalves: Bool = false
    ) async throws(AISyncError) -> (segment: Segment, bytes: Int)? {
        let shown = "\(remote.displayName)/\(path)"
        var attempt = 0
        var refused: (size: Int64, message: String)?
        var prefetched = downloaded
        while true {
            let given = prefetched.take()
            let temp: String
            if case .success(let file)? = given { temp = file } else { temp = try await store.scratchPath() }
            defer { _ = Platform.unlink(temp) }
            var size: Int64 = 0
            do throws(AISyncError) {
                switch given {
                case .success?: break
                case .failure(let error)?: throw error
                case nil:
                    // On an encrypted remote a file caught half-written fails here, as `.truncated`.
                    guard try await remote.download(path, to: temp, maxBytes: Int64(RemoteLimits.segment)) else {
                        return nil
                    }
                }
                size = Platform.stat(temp)?.size ?? 0
                let segment = try await Self.decodeSegmentFile(
                    temp, size: size, shown: shown, device: device, seq: seq, remoteID: remoteID, inHalves: inHalves)
                return (segment, Int(size))
            } catch  where (error.code == .damagedData || error.code == .truncated) && attempt < 3 {
                if keys == nil, (try? FileIO.readRange(temp, from: 0, count: 8)) == SealedFile.magic {
                    throw try await encryptedNow()
                }
                if let refused, refused.size == size, refused.message == error.message { throw error }
                refused = (size, error.message)
                attempt += 1
                await store.environment.sleep(150 * attempt)
            }
        }
    }

    /// Parses and verifies a downloaded segment (``Segment/decode(_:path:device:seq:remoteID:maxLineBytes:)``),
    /// a big one in two halves at once when `inHalves`: the second from the first line that
    /// starts past the middle, on a task of its own, with the same checks and the same errors
    /// as one pass in order (the first half's first; a refused first half stops the second).
    static func decodeSegmentFile(
        _ file: String, size: Int64, shown: String, device: DeviceID, seq: Int64, remoteID: String, inHalves: Bool
    ) async throws(AISyncError) -> Segment {
        let maxLine = RemoteLimits.segment
        guard inHalves, let middle = halvesSplit(file, size: size) else {
            var lines = try FileLines(path: file)
            return try Segment.decode(
                &lines, path: shown, device: device, seq: seq, remoteID: remoteID, maxLineBytes: maxLine)
        }
        var first = try FileLines(path: file, to: middle)
        let header = try Segment.decodeHeader(&first, path: shown, device: device, seq: seq, remoteID: remoteID)
        let half = Int(min(header.count, Int64(Segment.maxEntries))) / 2 + 1
        async let second = Self.decodeEntries(file, from: middle, header: header, maxLineBytes: maxLine, reserve: half)
        var entries: [Segment.Entry]
        do {
            entries = try Segment.decodeEntries(&first, header: header, maxLineBytes: maxLine, reserve: half)
        } catch {
            throw error.error(shown, lineBase: 2)  // leaving cancels the second half
        }
        switch await second {
        case .failure(let failure):
            // Where one pass would have stopped first: at the line past the header's count,
            // or at this one.
            let n = Int64(entries.count + failure.at)
            if header.count < n || (header.count == n && !failure.onReading) {
                throw Segment.invalid(shown, Segment.countMismatch)
            }
            throw failure.error(shown, lineBase: 2 + entries.count)
        case .success(let rest):
            guard Int64(entries.count + rest.count) == header.count else {
                throw Segment.invalid(shown, Segment.countMismatch)
            }
            entries += rest
            return Segment(device: device, seq: seq, remoteID: remoteID, entries: entries)
        }
    }

    /// Segments this big or bigger may be parsed in halves.
    static let halvesFrom: Int64 = 1 << 20

    /// Where a segment file of `size` bytes is split in halves: the first line that starts
    /// past its middle; nil when it is too small, or no line starts in the 64 KiB after it.
    static func halvesSplit(_ file: String, size: Int64) -> Int64? {
        guard size >= halvesFrom, let window = try? FileIO.readRange(file, from: size / 2, count: 64 << 10),
            let newline = window.firstIndex(of: 10)
        else { return nil }
        let start = size / 2 + Int64(newline) + 1
        return start < size ? start : nil
    }

    private static func decodeEntries(
        _ file: String, from: Int64, header: Segment.Header, maxLineBytes: Int, reserve: Int
    ) async -> Result<[Segment.Entry], Segment.EntryFailure> {
        Result { () throws(Segment.EntryFailure) -> [Segment.Entry] in
            switch Result(catching: { () throws(AISyncError) -> FileLines in try FileLines(path: file, from: from) }) {
            case .failure(let error): throw Segment.EntryFailure(at: 0, onReading: true, reading: error)
            case .success(var lines):
                return try Segment.decodeEntries(
                    &lines, header: header, maxLineBytes: maxLineBytes, counted: false, reserve: reserve,
                    stopsWhenCancelled: true)
            }
        }
    }

    /// Downloads a segment (or snapshot part) to a new scratch file and returns its path, for
    /// ``readSegmentFile(_:device:seq:remoteID:downloaded:inHalves:)`` to read later; nil when the
    /// remote does not have it. The caller owns the file; on an error there is none.
    func downloadSegmentFile(_ path: String) async throws(AISyncError) -> String? {
        let temp = try await store.scratchPath()
        do throws(AISyncError) {
            if try await remote.download(path, to: temp, maxBytes: Int64(RemoteLimits.segment)) { return temp }
        } catch {
            _ = Platform.unlink(temp)
            throw error
        }
        _ = Platform.unlink(temp)
        return nil
    }
}
