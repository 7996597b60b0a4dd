import AISyncCore
import AISyncFiles
import Foundation
import Synchronization

/// The index as last written, read in place rather than loaded: a command that needs one
/// record finds its line by binary search (lines are sorted by id), a listing passes over
/// the lines once, and nothing about the other records is held in memory. This is what
/// keeps memory bounded whatever the store's size (docs/PERFORMANCE.md).
///
/// The file is a cache (``IndexFile``): a line that does not parse, or ids out of order,
/// mean it is damaged, reported as `.temporary` so the store drops it and rebuilds it from
/// the journal.
struct IndexBase: Sendable {
    let file: MappedFile
    let header: IndexFile.Header
    /// Where the first record line starts (just past the header line).
    let bodyStart: Int
    /// Where every `sampleEvery`-th record line starts, and its id (from the writer, or from
    /// the pass that checked the file). A lookup searches the ids in memory, then scans only
    /// the lines of one run, so it touches a page or two of the file instead of one per step
    /// of a binary search over it all (which brings most of a large index into memory).
    /// Only every 64th start is kept: every start costs 4 bytes a record, twice over while
    /// an index is rewritten.
    private var layout = Layout()
    static let sampleEvery = 64

    /// What the writer of an index knows about its lines: how many there are, and where
    /// every ``IndexBase/sampleEvery``-th one starts and its id.
    struct Layout: Sendable {
        var count = 0
        var runStarts: [UInt32] = []
        /// The sampled ids back to back, and where each ends: one allocation instead of one
        /// array per id, which cost several times the ids' own bytes.
        private var sampleBytes: [UInt8] = []
        private var sampleEnds: [UInt32] = []

        /// How many ids are sampled (one per run of lines).
        var sampleCount: Int { sampleEnds.count }

        /// Makes room for the samples of an index of about `records` lines.
        mutating func reserve(records: Int) {
            let runs = records / IndexBase.sampleEvery + 1
            runStarts.reserveCapacity(runs)
            sampleEnds.reserveCapacity(runs)
            sampleBytes.reserveCapacity(runs * 24)
        }

        /// Notes a line starting at `offset` with id `id`.
        mutating func add(offset: Int, id: some Collection<UInt8>) {
            if count % IndexBase.sampleEvery == 0 {
                sampleBytes.append(contentsOf: id)
                sampleEnds.append(UInt32(truncatingIfNeeded: sampleBytes.count))
                runStarts.append(offset < Int(UInt32.max) ? UInt32(offset) : .max)
            }
            count += 1
        }

        /// Whether sampled id `k` sorts before `key` or equals it.
        func sample(_ k: Int, notAfter key: [UInt8]) -> Bool {
            let start = k == 0 ? 0 : Int(sampleEnds[k - 1])
            let id = sampleBytes[start..<Int(sampleEnds[k])]
            return id.lexicographicallyPrecedes(key) || id.elementsEqual(key)
        }
    }

    /// Maps the index at `path`; nil when it is missing, of another format, or cut short.
    /// `layout` is what the writer knows, trusted when it fits the header and the file (the
    /// file was just written by this process); otherwise one pass over the file checks it.
    init?(path: String, layout: Layout = Layout()) {
        guard let file = MappedFile(path: path) else { return nil }
        let parsed = file.withBytes { bytes -> (IndexFile.Header, Int)? in
            guard bytes.last == 10, let end = Self.lineEnd(bytes, from: 0, limit: min(bytes.count, 4096)),
                let header = IndexFile.header(Array(bytes[..<end])[...])
            else { return nil }
            return (header, end + 1)
        }
        guard let (header, start) = parsed, header.records != nil else { return nil }
        self.file = file
        self.header = header
        bodyStart = start
        let runs = (layout.count + Self.sampleEvery - 1) / Self.sampleEvery
        let usable =
            layout.count == header.records && layout.runStarts.first.map { Int($0) == start } != false
            && layout.runStarts.last.map { Int($0) < file.count } != false
            && layout.sampleCount == runs && layout.runStarts.count == runs
            && zip(layout.runStarts, layout.runStarts.dropFirst()).allSatisfy { $0 < $1 }
        if usable {
            self.layout = layout
        } else {
            // Read from disk: one pass checks what a binary search relies on (every line
            // whole, ids in order, as many lines as the header says) and notes where the
            // lines start. A damaged cache is then rebuilt, never half trusted (a record
            // out of place would look missing). The pass is cheap beside a rebuild.
            var found = Layout()
            let whole: Void? = try? forEachLine {
                (line: UnsafeRawBufferPointer, idLength: Int, offset: Int) throws(AISyncError) in
                guard offset < Int(UInt32.max) else { throw Self.damaged }
                found.add(offset: offset, id: line[..<idLength])
            }
            guard whole != nil, found.count == header.records else { return nil }
            self.layout = found
        }
    }

    /// Hands the file's pages back to the system (they stay in the page cache): called
    /// between batches, so a long pull's lookups do not accumulate the whole index.
    func releasePages() { file.release(0..<file.count) }

    /// One record as the index has it: its summary and its journal lines, still encoded.
    struct Entry: Sendable {
        var summary: RecordSummary
        var encodedRefs: ArraySlice<UInt8>
    }

    /// The line of `id`: a binary search over the sampled ids, then a scan of one run.
    func find(_ id: RecordID) throws(AISyncError) -> Entry? {
        let key = Array(id.rawValue.utf8)
        // The last sample not after the key: its run of lines is the only place it can be.
        var first = 0
        var past = layout.sampleCount
        while first < past {
            let mid = first + (past - first) / 2
            if layout.sample(mid, notAfter: key) { first = mid + 1 } else { past = mid }
        }
        guard first > 0 else { return nil }
        let run = first - 1
        let lines = min(Self.sampleEvery, layout.count - run * Self.sampleEvery)
        return try withRun(run) { (bytes: UnsafeRawBufferPointer) throws(AISyncError) -> Entry? in
            var start = 0
            for _ in 0..<lines {
                guard start < bytes.count, let end = Self.lineEnd(bytes, from: start, limit: bytes.count) else {
                    throw Self.damaged
                }
                let order = Self.compareID(bytes, start..<end, key)
                if order == 0 {
                    let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
                    guard let (summary, refs) = IndexFile.parseSummary(line) else { throw Self.damaged }
                    return Entry(summary: summary, encodedRefs: Array(line[refs])[...])
                }
                if order > 0 { return nil }  // lines are in id order: it is not here
                start = end + 1
            }
            return nil
        }
    }

    /// Runs `body` over a copy of run `run`'s lines (read with `pread`, not through the
    /// mapping: see ``MappedFile/copy(_:)``), the run's first line at offset 0.
    private func withRun<T>(_ run: Int, _ body: (UnsafeRawBufferPointer) throws(AISyncError) -> T) throws(AISyncError)
        -> T
    {
        let lower = Int(layout.runStarts[run])
        let upper = run + 1 < layout.runStarts.count ? Int(layout.runStarts[run + 1]) : file.count
        guard lower < upper, let bytes = file.copy(lower..<upper) else { throw Self.damaged }
        return try bytes.withUnsafeBytes { buffer in Result { () throws(AISyncError) -> T in try body(buffer) } }.get()
    }

    /// Calls `body` with every line in id order: the line's bytes (without its newline),
    /// where its id ends, and where the line starts in the file. Checks the order as it goes,
    /// and hands the pages it has passed back to the system, so a pass over a large index
    /// holds a window of it.
    func forEachLine(_ body: (UnsafeRawBufferPointer, Int, Int) throws(AISyncError) -> Void) throws(AISyncError) {
        try file.withBytes { (bytes: UnsafeRawBufferPointer) throws(AISyncError) in
            var start = bodyStart
            var previous: Range<Int>? = nil
            var released = 0
            while start < bytes.count {
                guard let end = Self.lineEnd(bytes, from: start, limit: bytes.count) else { throw Self.damaged }
                var idEnd = start
                while idEnd < end, bytes[idEnd] != 9 { idEnd += 1 }
                if let previous, !Self.precedes(bytes, previous, start..<idEnd) { throw Self.damaged }
                try body(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), idEnd - start, start)
                previous = start..<idEnd
                start = end + 1
                if start - released >= Self.window {
                    file.release(released..<(start - 4096))
                    released = start - 4096
                }
            }
        }
    }

    /// The summary of the line starting at `offset` (where ``forEachLine(_:)`` said it
    /// starts), for a listing that visits lines out of id order: the line's start is read
    /// with `pread`, not mapped, so the listing holds no pages of the index. A line is read as
    /// far as its summary goes (its journal line list can be long), in steps that grow.
    func summary(atOffset offset: Int) throws(AISyncError) -> RecordSummary {
        guard offset >= bodyStart, offset < file.count else { throw Self.damaged }
        var length = 1024
        while true {
            let end = min(offset + length, file.count)
            guard let bytes = file.copy(offset..<end) else { throw Self.damaged }
            let parsed = bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> RecordSummary?? in
                if let newline = Self.lineEnd(raw, from: 0, limit: raw.count) {
                    return .some(IndexFile.parseSummary(UnsafeRawBufferPointer(rebasing: raw[..<newline]))?.0)
                }
                // No newline yet: the summary is whole once its six tabs are in.
                if let (summary, _) = IndexFile.parseSummary(raw) { return .some(summary) }
                return end == file.count ? .some(nil) : nil
            }
            switch parsed {
            case .some(.some(let summary)): return summary
            case .some(.none): throw Self.damaged
            case .none: length *= 4
            }
        }
    }

    /// Appends the summary part of the lines starting at `offsets` (ascending; each in the
    /// upper 32 bits, the lower ones are the caller's) to `out`, and tells `each` where each
    /// one went and where its tabs are (``IndexFile/summaryLength(_:)``). A line is read only as far as its summary goes (to the tab before its journal
    /// line list, which can be long and a listing does not read; ``IndexFile`` stops at a
    /// newline). Read in file order with `pread`, a MB at a time from one wanted line to a
    /// little past the last one within that MB, not through the mapping: a listing of
    /// 1,000,000 records in another order reads the index once per batch, and through the
    /// mapping each pass faulted every page in and handed it back, which also cost every
    /// core while another thread ran (docs/PERFORMANCE.md §3.17). Safe to run on any thread.
    func copySummaries(at offsets: [Int64], into out: inout [UInt8], _ each: (Int, Range<Int>, UInt64) -> Void)
        throws(AISyncError)
    {
        func start(_ k: Int) -> Int { Int(UInt64(bitPattern: offsets[k]) >> 32) }
        // What the reading below relies on, checked once: every line within the file's body,
        // in ascending order.
        for k in offsets.indices {
            guard start(k) >= bodyStart, start(k) < file.count, k == 0 || start(k - 1) <= start(k) else {
                throw Self.damaged
            }
        }
        var room = Self.copyChunk + Self.lineRoom
        var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: room, alignment: 8)
        defer { buffer.deallocate() }
        var k = 0
        while k < offsets.count {
            let first = start(k)
            var last = k
            while last + 1 < offsets.count, start(last + 1) < first + Self.copyChunk { last += 1 }
            var upper = min(file.count, start(last) + Self.lineRoom)
            while true {
                guard file.read(first..<upper, into: buffer) else { throw Self.damaged }
                let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<(upper - first)])
                let copied = try Self.copySummaries(bytes, at: first, offsets, k...last, into: &out, each)
                if copied > k {
                    k = copied
                    break
                }
                // Line `k`'s summary is longer than what was read: read more of it.
                guard upper < file.count else { throw Self.damaged }
                upper = min(file.count, first + (upper - first) * 4)
                if upper - first > room {
                    room = upper - first
                    buffer.deallocate()
                    buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: room, alignment: 8)
                }
            }
        }
    }

    /// The summaries of lines `wanted` found whole in `bytes` (read from offset `at`), copied
    /// as ``copySummaries(at:into:_:)`` says; returns the first line not copied.
    private static func copySummaries(
        _ bytes: UnsafeRawBufferPointer, at base: Int, _ offsets: [Int64], _ wanted: ClosedRange<Int>,
        into out: inout [UInt8], _ each: (Int, Range<Int>, UInt64) -> Void
    ) throws(AISyncError) -> Int {
        for k in wanted {
            let start = Int(UInt64(bitPattern: offsets[k]) >> 32) - base
            let rest = UnsafeRawBufferPointer(rebasing: bytes[start...])
            guard let (length, tabs) = IndexFile.summaryLength(rest) else {
                // A line that ends before its six tabs is damage; else it goes on past `bytes`.
                if rest.contains(10) { throw damaged }
                return k
            }
            let at = out.count
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<(start + length)]))
            each(k, at..<out.count, tabs)
        }
        return wanted.upperBound + 1
    }

    /// How much of the index ``copySummaries(at:into:_:)`` reads at a time, and how far past a
    /// wanted line's start (most summaries are well under this; a longer one, a title of
    /// hundreds of characters, is read again).
    static let copyChunk = 1 << 20
    static let lineRoom = 1024

    /// What a listing sorts by, for every line whose kind and deleted flag `include` takes, in
    /// id order: `updated` and where the line starts. The pass ``StoreSnapshot/forEachListed``
    /// makes when nothing changed since the index was written, on one thread per part of the
    /// file (cut at sampled line starts) reading with `pread` a MB at a time: the mapping's
    /// page faults and releases cost more, and across threads a release costs every core
    /// (docs/PERFORMANCE.md §3.5). Every line is checked as in the one-thread pass (ids in
    /// order, across parts too; ``IndexFile/parseListKey(_:)``).
    func listKeys(parts: Int, include: @Sendable @escaping (RecordKind, Bool) -> Bool) throws(AISyncError) -> (
        times: [Int64], offsets: [UInt32]
    ) {
        let runs = layout.runStarts.count
        guard runs > 0 else { return ([], []) }
        let parts = max(1, min(parts, runs))
        let cuts = (0..<parts).map { Int(layout.runStarts[runs * $0 / parts]) } + [file.count]
        typealias Part = (times: [Int64], offsets: [UInt32], first: [UInt8], last: [UInt8])
        let results = Mutex<[Part?]>(Array(repeating: nil, count: parts))
        let file = file
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            guard let made = Self.listKeys(file, cuts[part]..<cuts[part + 1], include: include) else { return }
            results.withLock { $0[part] = made }
        }
        var times: [Int64] = []
        var offsets: [UInt32] = []
        var last: [UInt8]? = nil
        for made in results.withLock({ $0 }) {
            guard let made else { throw Self.damaged }
            if let last, !made.first.isEmpty, !last.lexicographicallyPrecedes(made.first) { throw Self.damaged }
            if !made.last.isEmpty { last = made.last }
            if times.isEmpty {
                times = made.times
                offsets = made.offsets
            } else {
                times += made.times
                offsets += made.offsets
            }
        }
        return (times, offsets)
    }

    /// One part of ``listKeys(parts:include:)``: the lines of `range` (whole lines), with its
    /// first and last ids; nil when a line does not parse or ids are out of order.
    private static func listKeys(
        _ file: MappedFile, _ range: Range<Int>, include: (RecordKind, Bool) -> Bool
    ) -> (times: [Int64], offsets: [UInt32], first: [UInt8], last: [UInt8])? {
        var made: (times: [Int64], offsets: [UInt32], first: [UInt8], last: [UInt8]) = ([], [], [], [])
        var previous: [UInt8] = []
        var position = range.lowerBound
        var size = 1 << 20
        var chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 8)
        defer { chunk.deallocate() }
        while position < range.upperBound {
            let end = min(position + size, range.upperBound)
            if chunk.count < end - position {
                chunk.deallocate()
                chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: end - position, alignment: 8)
            }
            guard file.read(position..<end, into: chunk) else { return nil }
            let bytes = UnsafeRawBufferPointer(rebasing: chunk[..<(end - position)])
            let used = listKeys(bytes, at: position, include: include, previous: &previous, into: &made)
            guard let used else { return nil }
            if used == 0 {
                // A line longer than the chunk (a record with a very long history).
                guard end < range.upperBound else { return nil }
                size *= 4
                continue
            }
            position += used
        }
        made.last = previous
        return made
    }

    /// The whole lines at the start of `bytes` (read from offset `at`) added to `made`, as
    /// ``listKeys(_:_:include:)`` says; returns how many bytes they take, nil when a line
    /// does not parse or ids are out of order. `previous`: the id of the line before.
    private static func listKeys(
        _ bytes: UnsafeRawBufferPointer, at position: Int, include: (RecordKind, Bool) -> Bool,
        previous: inout [UInt8], into made: inout (times: [Int64], offsets: [UInt32], first: [UInt8], last: [UInt8])
    ) -> Int? {
        var start = 0
        while let newline = lineEnd(bytes, from: start, limit: bytes.count) {
            let line = UnsafeRawBufferPointer(rebasing: bytes[start..<newline])
            let id = line.prefix { $0 != 9 }
            guard let key = IndexFile.parseListKey(line), id.count < line.count,
                previous.isEmpty || previous.lexicographicallyPrecedes(id)
            else { return nil }
            if made.first.isEmpty { made.first = Array(id) }
            previous.removeAll(keepingCapacity: true)
            previous.append(contentsOf: id)
            if include(key.kind, key.deleted) {
                made.times.append(key.updated)
                made.offsets.append(UInt32(position + start))
            }
            start = newline + 1
        }
        return start
    }

    /// How far a pass over the file reads before handing back the pages behind it.
    static let window = 512 << 10

    static var damaged: AISyncError {
        AISyncError(.temporary, damagedMessage, hint: "Run the command again; the index is rebuilt from the journal")
    }
    private static let damagedMessage = "the store's index is damaged"

    /// Whether `error` is this cache found damaged (``Store`` then rebuilds it and retries).
    static func isDamage(_ error: AISyncError) -> Bool { error.code == .temporary && error.message == damagedMessage }

    /// Where the line starting at `from` ends (its newline), looking no further than `limit`.
    static func lineEnd(_ bytes: UnsafeRawBufferPointer, from: Int, limit: Int) -> Int? {
        Platform.firstIndex(of: 10, in: bytes, from: from, limit: limit)
    }

    /// Compares the id at the start of `line` (up to its first tab) with `key`, byte by byte.
    static func compareID(_ bytes: UnsafeRawBufferPointer, _ line: Range<Int>, _ key: [UInt8]) -> Int {
        var i = line.lowerBound
        var k = 0
        while i < line.upperBound, bytes[i] != 9, k < key.count {
            if bytes[i] != key[k] { return bytes[i] < key[k] ? -1 : 1 }
            i += 1
            k += 1
        }
        let lineDone = i == line.upperBound || bytes[i] == 9
        if lineDone && k == key.count { return 0 }
        return lineDone ? -1 : 1
    }

    /// Whether the id at `a` sorts strictly before the id at `b`.
    static func precedes(_ bytes: UnsafeRawBufferPointer, _ a: Range<Int>, _ b: Range<Int>) -> Bool {
        let common = min(a.count, b.count)
        for n in 0..<common where bytes[a.lowerBound + n] != bytes[b.lowerBound + n] {
            return bytes[a.lowerBound + n] < bytes[b.lowerBound + n]
        }
        return a.count < b.count
    }
}
