import AISyncCore
import AISyncFiles
import Foundation
import Synchronization

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The append-only `journal.jsonl`: one canonical JSON version per `\n`-terminated line.
///
/// A line is reported as saved only after it was appended and fsynced. A final line without
/// its newline is the trace of a crash mid-append; it was never reported as saved, so it is
/// dropped. Any other bad line is damage, reported with its line number.
struct Journal: Sendable {
    let path: String
    /// Names the temp file of `replace` (the store's environment, so seeded tests repeat).
    let environment: AISyncEnvironment

    /// Where one line sits in the journal (without its newline).
    struct LineRef: Hashable, Sendable {
        var offset: Int64
        var length: Int
    }

    struct Chunk: Sendable {
        typealias Line = (version: Version, line: Int, ref: LineRef, raw: ArraySlice<UInt8>)
        var versions: [Line] = []
        /// Byte offset just past the last complete line read.
        var endOffset: Int64
        /// Number of complete lines up to `endOffset`.
        var endLine: Int
        /// Bytes after the last newline (a torn final line), if any.
        var tornBytes: Int64 = 0
    }

    func size() -> Int64 { Platform.stat(path)?.size ?? 0 }

    /// Reads and verifies every complete line from `offset` (which is line `firstLine`).
    func read(from offset: Int64, firstLine: Int) throws(AISyncError) -> Chunk {
        let fd = Platform.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if Platform.errno == ENOENT, offset == 0 { return Chunk(endOffset: 0, endLine: 0) }
            throw FileIO.ioError("read", path, errno: Platform.errno)
        }
        defer { Platform.close(fd) }
        let bytes = try FileIO.readAll(fd, path: path, from: offset, limit: 1 << 40)
        return try parse(bytes[...], at: offset, firstLine: firstLine)
    }

    /// Reads and verifies the complete lines in about `maxBytes` from `offset` (more when one
    /// line is longer): a long journal read a window at a time, in bounded memory.
    func read(from offset: Int64, firstLine: Int, maxBytes: Int) throws(AISyncError) -> Chunk {
        let bytes = try window(from: offset, maxBytes: maxBytes)
        guard let last = bytes.lastIndex(of: 0x0A) else {
            return try parse(bytes[...], at: offset, firstLine: firstLine)
        }
        return try parseInParallel(bytes[...last], at: offset, firstLine: firstLine)
    }

    /// About `maxBytes` of the journal from `offset`, read again twice as large until it holds
    /// a newline or reaches the end (one line longer than `maxBytes`).
    private func window(from offset: Int64, maxBytes: Int) throws(AISyncError) -> [UInt8] {
        var count = max(maxBytes, 1)
        var bytes = try FileIO.readRange(path, from: offset, count: count)
        while bytes.lastIndex(of: 0x0A) == nil, bytes.count == count {
            count *= 2
            bytes = try FileIO.readRange(path, from: offset, count: count)
        }
        return bytes
    }

    /// Parses a window of whole lines on every core: parsing and verifying lines is most of
    /// rebuilding an index, and lines do not depend on each other. The versions come back in
    /// journal order.
    private func parseInParallel(_ bytes: ArraySlice<UInt8>, at offset: Int64, firstLine: Int) throws(AISyncError)
        -> Chunk
    {
        var chunk = Chunk(endOffset: offset, endLine: firstLine)
        let parts = try inParts(bytes, at: offset, firstLine: firstLine) {
            (journal: Journal, part: ArraySlice<UInt8>, at: Int64, line: Int) throws(AISyncError) in
            try journal.parse(part, at: at, firstLine: line)
        }
        for part in parts {
            chunk.versions += part.versions
            chunk.endOffset = part.endOffset
            chunk.endLine = part.endLine
        }
        return chunk
    }

    /// Runs `work` over parts of a window of whole lines, one per core (from 256 KB: a
    /// catch-up window is 1 MB; one part below that), each part cut at a line end and given
    /// where it is in the file and its first line's number (for messages naming a damaged
    /// line); the results in file order, or the first part's error.
    private func inParts<T: Sendable>(
        _ bytes: ArraySlice<UInt8>, at offset: Int64, firstLine: Int,
        _ work: @escaping @Sendable (Journal, ArraySlice<UInt8>, Int64, Int) throws(AISyncError) -> T
    ) throws(AISyncError) -> [T] {
        let parts = min(ProcessInfo.processInfo.activeProcessorCount, 8)
        guard parts > 1, bytes.count >= 1 << 18 else { return [try work(self, bytes, offset, firstLine)] }
        var cuts = [bytes.startIndex]
        for n in 1..<parts {
            let guess = max(cuts[cuts.count - 1], bytes.startIndex + bytes.count * n / parts)
            guard let newline = bytes[guess...].firstIndex(of: 0x0A), newline + 1 < bytes.endIndex else { break }
            cuts.append(newline + 1)
        }
        cuts.append(bytes.endIndex)
        var firstLines = [firstLine]
        for i in 1..<(cuts.count - 1) {
            firstLines.append(firstLines[i - 1] + bytes[cuts[i - 1]..<cuts[i]].count { $0 == 0x0A })
        }
        let results = Mutex<[Result<T, AISyncError>?]>(Array(repeating: nil, count: cuts.count - 1))
        let journal = self
        let starts = firstLines
        let ends = cuts
        DispatchQueue.concurrentPerform(iterations: ends.count - 1) { i in
            let part = bytes[ends[i]..<ends[i + 1]]
            let result = Result { () throws(AISyncError) in
                try work(journal, part, offset + Int64(ends[i] - bytes.startIndex), starts[i])
            }
            results.withLock { $0[i] = result }
        }
        var made: [T] = []
        for result in results.withLock({ $0 }) {
            guard let result else { continue }
            made.append(try result.get())
        }
        return made
    }

    /// The outlines of the complete lines in about `maxBytes` from `offset` (more when one
    /// line is longer), on every core, and the offset just past them: what a push plans with
    /// (``VersionOutline``), each line's id checked by its hash. A line not in canonical form
    /// is parsed whole, which words any damage (line numbers count from `offset`).
    ///
    /// The hash finds a line damaged on disk; the operations' contents are not checked again
    /// (as decoding them did): every line got into the journal through aisync's own encoder
    /// or a pull that checked it whole, and a pulling device checks every line it is sent.
    func outlines(from offset: Int64, maxBytes: Int) throws(AISyncError) -> (
        lines: [(outline: VersionOutline, ref: LineRef)], end: Int64
    ) {
        let bytes = try window(from: offset, maxBytes: maxBytes)
        guard let last = bytes.lastIndex(of: 0x0A) else { return ([], offset) }
        let parts = try inParts(bytes[...last], at: offset, firstLine: 0) {
            (journal: Journal, part: ArraySlice<UInt8>, at: Int64, line: Int) throws(AISyncError) in
            try journal.outlines(part, at: at, firstLine: line)
        }
        return (parts.count == 1 ? parts[0] : Array(parts.joined()), offset + Int64(last + 1))
    }

    /// The outlines of the whole lines of `bytes` (read at `offset`).
    private func outlines(_ bytes: ArraySlice<UInt8>, at offset: Int64, firstLine: Int) throws(AISyncError)
        -> [(outline: VersionOutline, ref: LineRef)]
    {
        var made: [(outline: VersionOutline, ref: LineRef)] = []
        var start = bytes.startIndex
        var line = firstLine
        while start < bytes.endIndex, let newline = bytes[start...].firstIndex(of: 0x0A) {
            line += 1
            let raw = bytes[start..<newline]
            let ref = LineRef(offset: offset + Int64(start - bytes.startIndex), length: raw.count)
            if let outline = Version.outline(journalLine: raw) {
                made.append((outline, ref))
            } else {
                made.append((VersionOutline(try parseLine(raw, line: "\(line)")), ref))
            }
            start = newline + 1
        }
        return made
    }

    /// The complete lines of `bytes` (read at `offset`), parsed and verified; bytes after the
    /// last newline are a torn line.
    private func parse(_ bytes: ArraySlice<UInt8>, at offset: Int64, firstLine: Int) throws(AISyncError) -> Chunk {
        var chunk = Chunk(endOffset: offset, endLine: firstLine)
        var start = bytes.startIndex
        var line = firstLine
        while start < bytes.endIndex {
            guard let newline = bytes[start...].firstIndex(of: 0x0A) else {
                chunk.tornBytes = Int64(bytes.endIndex - start)
                break
            }
            line += 1
            let ref = LineRef(offset: offset + Int64(start - bytes.startIndex), length: newline - start)
            chunk.versions.append(
                (try parseLine(bytes[start..<newline], line: "\(line)"), line, ref, bytes[start..<newline]))
            start = newline + 1
            chunk.endOffset = offset + Int64(start - bytes.startIndex)
            chunk.endLine = line
        }
        return chunk
    }

    /// Parses and verifies one line; damage names the line.
    func parseLine(_ slice: ArraySlice<UInt8>, line: @autoclosure () -> String, verifyingID: Bool = true)
        throws(AISyncError) -> Version
    {
        do {
            return try Version(journalLine: slice, verifyingID: verifyingID)
        } catch {
            throw AISyncError(
                .damagedData, "\(path):\(line()): damaged journal line: \(error.message)",
                hint: "Check the store; a copy of this line may be on a remote", remedy: .checkStore)
        }
    }

    /// Reads the versions at `refs` (one record's history, from the index). Lines close
    /// together are read in one go. Their ids were verified when the lines were first read,
    /// so they are trusted here (as the index is); `fsck` re-verifies every line.
    func versions(at refs: [LineRef]) throws(AISyncError) -> [Version] {
        try lines(at: refs).map(\.version)
    }

    /// The versions at `refs` with their lines' bytes, in the order of `refs`.
    func lines(at refs: [LineRef]) throws(AISyncError) -> [(version: Version, raw: ArraySlice<UInt8>)] {
        let sorted = refs.sorted { $0.offset < $1.offset }
        var byOffset: [Int64: (version: Version, raw: ArraySlice<UInt8>)] = [:]
        byOffset.reserveCapacity(refs.count)
        var k = 0
        try forEachLine(at: sorted) { (version: Version, raw: ArraySlice<UInt8>) throws(AISyncError) in
            byOffset[sorted[k].offset] = (version, raw)
            k += 1
        }
        return refs.compactMap { byOffset[$0.offset] }
    }

    /// The most read at once for lines close together.
    static let readGroupBytes: Int64 = 1 << 20

    /// The lines at `refs` (ascending offsets), each parsed and handed to `body` as it is
    /// read, so a caller that encodes them as it goes holds one line's version at a time.
    /// Lines close together are read in one go, up to ``readGroupBytes``.
    func forEachLine(at refs: [LineRef], _ body: (Version, ArraySlice<UInt8>) throws(AISyncError) -> Void)
        throws(AISyncError)
    {
        try forEachRawLine(at: refs) { (ref: LineRef, line: ArraySlice<UInt8>) throws(AISyncError) in
            try body(try parseLine(line, line: "@\(ref.offset)", verifyingID: false), line)
        }
    }

    /// The lines at `refs` (ascending offsets) as bytes, unparsed, each checked to end where its
    /// ref says. For lines read moments before (a push's segments, cut from the lines its
    /// scan of the journal outlined).
    func forEachRawLine(at refs: [LineRef], _ body: (LineRef, ArraySlice<UInt8>) throws(AISyncError) -> Void)
        throws(AISyncError)
    {
        // Groups of refs whose span wastes little: one read each.
        var groups: [(start: Int64, end: Int64, refs: ArraySlice<LineRef>)] = []
        var i = 0
        while i < refs.count {
            var j = i + 1
            var end = refs[i].offset + Int64(refs[i].length)
            while j < refs.count, refs[j].offset - end <= 4096, end - refs[i].offset < Self.readGroupBytes {
                end = max(end, refs[j].offset + Int64(refs[j].length))
                j += 1
            }
            groups.append((refs[i].offset, end, refs[i..<j]))
            i = j
        }
        // A group at a time: a push's 4 MB segment holds a MiB of journal, not all of it.
        var n = 0
        try FileIO.forEachRange(path, groups.map { ($0.start, Int($0.end - $0.start)) }) {
            (bytes: [UInt8]) throws(AISyncError) in
            let group = groups[n]
            n += 1
            guard bytes.count == Int(group.end - group.start) else {
                throw AISyncError(
                    .temporary, "the store's index points past the end of the journal",
                    hint: "Run the command again; the index is rebuilt")
            }
            for ref in group.refs {
                let from = Int(ref.offset - group.start)
                let line = bytes[from..<(from + ref.length)]
                guard bytes.count == from + ref.length || bytes[from + ref.length] == 0x0A else {
                    throw AISyncError(
                        .temporary, "the store's index does not match the journal",
                        hint: "Run the command again; the index is rebuilt")
                }
                try body(ref, line)
            }
        }
    }

    /// Drops a torn final line (bytes after the last newline). Call with the store lock held.
    /// Returns how many bytes were dropped.
    @discardableResult
    func dropTornTail() throws(AISyncError) -> Int64 {
        let total = size()
        guard total > 0 else { return 0 }
        let fd = Platform.open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw FileIO.ioError("open", path, errno: Platform.errno) }
        defer { Platform.close(fd) }
        var keep = total
        var buffer = [UInt8](repeating: 0, count: 4096)
        var position = total
        search: while position > 0 {
            let start = max(0, position - Int64(buffer.count))
            let count = Int(position - start)
            _ = Platform.lseek(fd, start, SEEK_SET)
            let n = buffer.withUnsafeMutableBytes {
                Platform.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<count]))
            }
            guard n == count else { throw FileIO.ioError("read", path, errno: Platform.errno) }
            for i in stride(from: count - 1, through: 0, by: -1) where buffer[i] == 0x0A {
                keep = start + Int64(i) + 1
                break search
            }
            position = start
            keep = 0
        }
        guard keep < total else { return 0 }
        guard Platform.ftruncate(fd, keep), Platform.fsync(fd) else {
            throw FileIO.ioError("repair", path, errno: Platform.errno)
        }
        return total - keep
    }

    /// Appends lines and fsyncs before returning: only then is a version saved. Returns where
    /// each line landed (call with the store lock held, so nobody appends in between).
    /// `durable: false` leaves the fsync to a later ``sync()``, which must come before anything
    /// reports these lines saved (a pull appending a batch a piece at a time syncs once).
    @discardableResult
    func append(_ versions: [Version], lines: [[UInt8]]? = nil, durable: Bool = true) throws(AISyncError)
        -> [LineRef]
    {
        guard !versions.isEmpty else { return [] }
        var bytes: [UInt8] = []
        // A bulk write appends megabytes at once: grown by doubling, the buffer was copied
        // and faulted in again and again.
        if let lines { bytes.reserveCapacity(lines.reduce(versions.count) { $0 + $1.count }) }
        var refs: [LineRef] = []
        refs.reserveCapacity(versions.count)
        let start = size()
        for (n, v) in versions.enumerated() {
            let line = lines?[n] ?? v.json.canonicalBytes
            refs.append(LineRef(offset: start + Int64(bytes.count), length: line.count))
            bytes.append(contentsOf: line)
            bytes.append(0x0A)
        }
        let fd = Platform.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, FileIO.privateFile)
        guard fd >= 0 else { throw FileIO.ioError("append to", path, errno: Platform.errno) }
        defer { Platform.close(fd) }
        let ok = bytes.withUnsafeBytes { Platform.writeAll(fd, $0) }
        guard ok, !durable || Platform.fsync(fd) else {
            let code = Platform.errno
            throw FileIO.ioError("append to", path, errno: code)
        }
        if durable { environment.journalSynced?() }
        return refs
    }

    /// Makes every line appended so far durable (after ``append(_:lines:durable:)`` with
    /// `durable: false`).
    func sync() throws(AISyncError) {
        let fd = Platform.open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileIO.ioError("append to", path, errno: Platform.errno) }
        defer { Platform.close(fd) }
        guard Platform.fsync(fd) else { throw FileIO.ioError("append to", path, errno: Platform.errno) }
        environment.journalSynced?()
    }

    /// Replaces the whole journal with `versions` (a temp file, fsynced, renamed over it,
    /// the folder fsynced). Returns the byte offset just after the first `splitAfter` lines.
    /// Only for re-identifying a copied store; call with the store lock held.
    func replace(with versions: [Version], splitAfter: Int) throws(AISyncError) -> Int64 {
        var bytes: [UInt8] = []
        var split: Int64 = 0
        for (n, v) in versions.enumerated() {
            if n == splitAfter { split = Int64(bytes.count) }
            bytes += v.json.canonicalBytes
            bytes.append(0x0A)
        }
        if splitAfter >= versions.count { split = Int64(bytes.count) }
        try FileIO.writeAtomically(path, bytes, temporarySuffix: environment.temporarySuffix())
        FileIO.syncDirectory(FileIO.parentDirectory(of: path))
        return split
    }

    /// The last complete line's version, read from the end of the file (cheap).
    func lastVersion() -> Version? {
        let total = size()
        guard total > 0 else { return nil }
        let fd = Platform.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Platform.close(fd) }
        let start = max(0, total - 16384)
        guard let bytes = try? FileIO.readAll(fd, path: path, from: start) else { return nil }
        guard let last = bytes.lastIndex(of: 0x0A) else { return nil }
        let lineStart = (bytes[..<last].lastIndex(of: 0x0A)).map { $0 + 1 } ?? 0
        guard lineStart > 0 || start == 0, let value = try? JSONParser.parse(bytes[lineStart..<last]) else {
            return nil
        }
        return try? Version(json: value)
    }
}
