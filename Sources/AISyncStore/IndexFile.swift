import AISyncCore
import AISyncFiles
/// `index/records.v2`: the snapshot cached as tab-separated lines, cheap to parse.
///
/// A cache only: it records how far into the journal it reaches (offset, line count, and a
/// hash of the bytes just before that offset), and a mismatch means "rebuild from the
/// journal". Not JSON on purpose: 100,000 records must list in a fraction of a second, so a
/// line's summary fields come first and its sibling list is decoded only on demand.
///
/// Line: `id TAB kind TAB title TAB created-ms TAB updated-ms TAB flags TAB lines`, flags
/// being `f` (favorite), `d` (deleted), `c` (conflict), `x` (body unreadable) or `-`; lines
/// the record's journal lines as `offset.length` separated by `,` (its state is their fold).
struct IndexFile: Sendable {
    let path: String
    /// Names the temp file a rewrite goes through (the store's environment).
    let environment: AISyncEnvironment
    static let magic = "aisync-index"
    static let format = "3"
    static let anchorLength: Int64 = 256

    /// The hash of the journal bytes just before `offset`, tying the index to one journal.
    static func anchor(journal: Journal, offset: Int64) -> String? {
        guard offset > 0 else { return "-" }
        let start = max(0, offset - anchorLength)
        guard let bytes = try? FileIO.readRange(journal.path, from: start, count: Int(offset - start)),
              bytes.count == Int(offset - start) else { return nil }
        return SHA256.hash(bytes).hex
    }

    /// Written a megabyte at a time: the whole index is never in memory twice.
    func write(_ snapshot: StoreSnapshot, anchor: String) throws(AISyncError) {
        try FileIO.makeDirectories(FileIO.parentDirectory(of: path))
        // A cache need not be durable: a lost or stale index is rebuilt from the journal.
        try FileIO.writeAtomically(path, durable: false, temporarySuffix: environment.temporarySuffix()) { (emit: ([UInt8]) throws(AISyncError) -> Void) throws(AISyncError) in
            try encode(snapshot, anchor: anchor, emit: emit)
        }
    }

    private func encode(_ snapshot: StoreSnapshot, anchor: String, emit: ([UInt8]) throws(AISyncError) -> Void) throws(AISyncError) {
        var out: [UInt8] = []
        out.reserveCapacity((1 << 20) + 4096)
        let conflicts = snapshot.summaries.values.reduce(0) { $0 + ($1.conflict ? 1 : 0) }
        out.append(contentsOf: "\(Self.magic)\t\(Self.format)\t\(snapshot.journalOffset)\t\(snapshot.journalLines)\t\(anchor)\t\(snapshot.latestTime.wall)\t\(snapshot.latestTime.counter)\t\(conflicts)\n".utf8)
        for id in snapshot.recordIDs.sorted() {
            guard let s = snapshot.summaries[id] else { continue }
            out.append(contentsOf: id.rawValue.utf8); out.append(9)
            out.append(contentsOf: s.kind.rawValue.utf8); out.append(9)
            Self.escape(s.title, into: &out); out.append(9)
            out.append(contentsOf: "\(s.created.milliseconds)\t\(s.updated.milliseconds)\t".utf8)
            let flags = (s.favorite ? "f" : "") + (s.deleted ? "d" : "") + (s.conflict ? "c" : "") + (s.damaged ? "x" : "")
            out.append(contentsOf: (flags.isEmpty ? "-" : flags).utf8); out.append(9)
            if let raw = snapshot.encodedLineRefs(id) {
                out.append(contentsOf: raw)
            } else if let refs = snapshot.lineRefs(id) {
                for (n, r) in refs.enumerated() {
                    if n > 0 { out.append(UInt8(ascii: ",")) }
                    out.append(contentsOf: "\(r.offset).\(r.length)".utf8)
                }
            }
            out.append(10)
            if out.count >= 1 << 20 {
                try emit(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        try emit(out)
    }

    /// Loads the cache; nil when it is missing, from another format, or malformed.
    func read() -> (snapshot: StoreSnapshot, anchor: String)? {
        guard let bytes = try? FileIO.read(path, limit: 1 << 36) else { return nil }
        guard let headerEnd = bytes.firstIndex(of: 10), let header = Self.header(bytes[..<headerEnd]) else { return nil }
        let (offset, count, anchor, wall, counter) = (header.journalOffset, header.journalLines, header.anchor, header.wall, header.counter)
        var summaries: [RecordID: RecordSummary] = [:]
        var encoded: [RecordID: ArraySlice<UInt8>] = [:]
        // Lines run from about 80 bytes (a one-version record) up: never resize while reading.
        let estimate = bytes.count / 64
        summaries.reserveCapacity(estimate)
        encoded.reserveCapacity(estimate)
        // Scanned through a raw pointer: slicing the array itself would retain its buffer
        // at every step, a third of the time of a 100,000-record listing.
        let whole = bytes.withUnsafeBufferPointer { all -> Bool in
            var start = headerEnd + 1
            while start < all.count {
                guard let end = all[start...].firstIndex(of: 10), let (summary, raw) = Self.parseSummary(all[start..<end]) else { return false }
                summaries[summary.id] = summary
                encoded[summary.id] = bytes[raw]
                start = end + 1
            }
            return true
        }
        guard whole else { return nil }
        var snapshot = StoreSnapshot(summaries: summaries, encoded: encoded)
        snapshot.journalOffset = offset
        snapshot.journalLines = count
        snapshot.latestTime = HybridLogicalTime(wall: wall, counter: counter)
        return (snapshot, anchor)
    }

    /// The first line: how far into the journal the index reaches, and facts about the whole
    /// store that a command can use without loading it (the number of records in conflict).
    struct Header: Sendable {
        var journalOffset: Int64
        var journalLines: Int
        var anchor: String
        var wall: Int64
        var counter: Int64
        /// Nil in an index written before it was recorded.
        var conflicts: Int?
    }

    /// Reads only the header line (a no-op sync must not read 100,000 summaries).
    func header() -> Header? {
        guard let bytes = try? FileIO.readRange(path, from: 0, count: 512), let end = bytes.firstIndex(of: 10) else { return nil }
        return Self.header(bytes[..<end])
    }

    static func header(_ line: ArraySlice<UInt8>) -> Header? {
        let h = line.split(separator: 9, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard h.count == 7 || h.count == 8, h[0] == Self.magic, h[1] == Self.format, let offset = Int64(h[2]), let count = Int(h[3]),
              let wall = Int64(h[5]), let counter = Int64(h[6]) else { return nil }
        return Header(journalOffset: offset, journalLines: count, anchor: h[4], wall: wall, counter: counter,
                      conflicts: h.count == 8 ? Int(h[7]) : nil)
    }

    /// Splits a line at tabs into exactly seven fields without allocating arrays.
    private static func parseSummary<Line: Collection<UInt8>>(_ line: Line) -> (RecordSummary, Range<Int>)? where Line.Index == Int {
        var fields: [Range<Int>] = []
        fields.reserveCapacity(7)
        var fieldStart = line.startIndex
        for i in line.indices where line[i] == 9 {
            fields.append(fieldStart..<i)
            fieldStart = i + 1
            if fields.count == 6 { break }
        }
        guard fields.count == 6 else { return nil }
        let raw = fieldStart..<line.endIndex
        guard let id = RecordID(String(decoding: line[fields[0]], as: UTF8.self)),
              let kind = kind(line[fields[1]]),
              let title = unescape(line[fields[2]]),
              let created = parseInt(line[fields[3]]),
              let updated = parseInt(line[fields[4]]) else { return nil }
        let flags = line[fields[5]]
        let summary = RecordSummary(id: id, kind: kind, title: title, created: Timestamp(milliseconds: created),
                                    updated: Timestamp(milliseconds: updated), favorite: flags.contains(UInt8(ascii: "f")),
                                    deleted: flags.contains(UInt8(ascii: "d")), conflict: flags.contains(UInt8(ascii: "c")),
                                    damaged: flags.contains(UInt8(ascii: "x")))
        return (summary, raw)
    }

    /// The kind from its bytes, without making a String (100,000 lines per listing).
    private static func kind(_ bytes: some Collection<UInt8>) -> RecordKind? {
        if bytes.elementsEqual("chat".utf8) { return .chat }
        if bytes.elementsEqual("image".utf8) { return .image }
        if bytes.elementsEqual("story".utf8) { return .story }
        return nil
    }

    static func parseInt(_ bytes: some Collection<UInt8>) -> Int64? {
        var value: Int64 = 0
        var negative = false
        var any = false
        for (n, b) in bytes.enumerated() {
            if n == 0, b == UInt8(ascii: "-") { negative = true; continue }
            guard b >= 48, b <= 57 else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int64(b - 48))
            guard !o1, !o2 else { return nil }
            value = a
            any = true
        }
        return any ? (negative ? -value : value) : nil
    }

    /// Decodes a record's journal line list; nil when malformed (the index is then stale).
    static func decodeRefs(_ raw: ArraySlice<UInt8>) -> [Journal.LineRef]? {
        var refs: [Journal.LineRef] = []
        for item in raw.split(separator: UInt8(ascii: ",")) {
            guard let dot = item.firstIndex(of: UInt8(ascii: ".")), let offset = parseInt(item[..<dot]),
                  let length = parseInt(item[(dot + 1)...]), offset >= 0, length > 0 else { return nil }
            refs.append(Journal.LineRef(offset: offset, length: Int(length)))
        }
        return refs.isEmpty ? nil : refs
    }

    static func escape(_ s: String, into out: inout [UInt8]) {
        for b in s.utf8 {
            switch b {
            case 92: out.append(contentsOf: [92, 92])
            case 9: out.append(contentsOf: [92, UInt8(ascii: "t")])
            case 10: out.append(contentsOf: [92, UInt8(ascii: "n")])
            case 13: out.append(contentsOf: [92, UInt8(ascii: "r")])
            default: out.append(b)
            }
        }
    }

    static func unescape(_ bytes: some Collection<UInt8>) -> String? {
        if !bytes.contains(92) { return String(validating: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var escaping = false
        for b in bytes {
            if escaping {
                switch b {
                case 92: out.append(92)
                case UInt8(ascii: "t"): out.append(9)
                case UInt8(ascii: "n"): out.append(10)
                case UInt8(ascii: "r"): out.append(13)
                default: return nil
                }
                escaping = false
            } else if b == 92 {
                escaping = true
            } else {
                out.append(b)
            }
        }
        return escaping ? nil : String(validating: out, as: UTF8.self)
    }
}
