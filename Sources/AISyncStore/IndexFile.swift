import AISyncCore
import AISyncFiles

/// `index/records.v2`: the snapshot cached as tab-separated lines, cheap to parse.
///
/// A cache only: it records how far into the journal it reaches (offset, line count, and a
/// hash of the bytes just before that offset), and a mismatch means "rebuild from the
/// journal". Not JSON on purpose: 100,000 records must list in a fraction of a second, so a
/// line's summary fields come first and its sibling list is decoded only on demand.
///
/// Header: `aisync-index TAB 4 TAB journal-offset TAB journal-lines TAB anchor TAB hlc-wall TAB
/// hlc-counter TAB conflicts TAB records TAB damaged`; then one line per record, sorted by id
/// byte by byte (``IndexBase`` finds a record by binary search):
/// `id TAB kind TAB title TAB created-ms TAB updated-ms TAB flags TAB lines`, flags
/// being `f` (favorite), `d` (deleted), `c` (conflict), `x` (body unreadable) or `-`; lines
/// the record's journal lines as `offset.length` separated by `,` (its state is their fold).
struct IndexFile: Sendable {
    let path: String
    /// Names the temp file a rewrite goes through (the store's environment).
    let environment: AISyncEnvironment
    static let magic = "aisync-index"
    static let format = "4"
    static let anchorLength: Int64 = 256

    /// The hash of the journal bytes just before `offset`, tying the index to one journal.
    static func anchor(journal: Journal, offset: Int64) -> String? {
        guard offset > 0 else { return "-" }
        let start = max(0, offset - anchorLength)
        guard let bytes = try? FileIO.readRange(journal.path, from: start, count: Int(offset - start)),
            bytes.count == Int(offset - start)
        else { return nil }
        return SHA256.hash(bytes).hex
    }

    /// Written a megabyte at a time: the lines of records that did not change are copied
    /// from the current index as they are, the changed ones encoded afresh, in id order.
    /// Returns where each record line starts and sampled ids, for ``IndexBase`` to search
    /// without reading the file.
    @discardableResult
    func write(_ snapshot: StoreSnapshot, anchor: String) throws(AISyncError) -> IndexBase.Layout {
        try FileIO.makeDirectories(FileIO.parentDirectory(of: path))
        var starts = IndexBase.Layout()
        // A cache need not be durable: a lost or stale index is rebuilt from the journal.
        try FileIO.writeAtomically(path, durable: false, temporarySuffix: environment.temporarySuffix()) {
            (emit: ([UInt8]) throws(AISyncError) -> Void) throws(AISyncError) in
            starts = try encode(snapshot, anchor: anchor, emit: emit)
        }
        return starts
    }

    private func encode(_ snapshot: StoreSnapshot, anchor: String, emit: ([UInt8]) throws(AISyncError) -> Void)
        throws(AISyncError) -> IndexBase.Layout
    {
        var starts = IndexBase.Layout()
        starts.reserve(records: snapshot.counts.records)
        var emitted = 0
        var out: [UInt8] = []
        out.reserveCapacity((1 << 20) + 4096)
        let counts = snapshot.counts
        out.append(
            contentsOf:
                "\(Self.magic)\t\(Self.format)\t\(snapshot.journalOffset)\t\(snapshot.journalLines)\t\(anchor)\t\(snapshot.latestTime.wall)\t\(snapshot.latestTime.counter)\t\(counts.conflicts)\t\(counts.records)\t\(counts.damaged)\n"
                .utf8)
        func flush() throws(AISyncError) {
            guard out.count >= 1 << 20 else { return }
            try emit(out)
            emitted += out.count
            out.removeAll(keepingCapacity: true)
        }
        func start(_ id: some Collection<UInt8>) { starts.add(offset: emitted + out.count, id: id) }
        if let parts = snapshot.changedLinesInParts(2, from: Self.encodeInPartsFrom, upTo: Self.encodeInPartsUpTo) {
            try emit(out)
            emitted += out.count
            for part in parts {
                part.bytes.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
                    for lineStart in part.starts {
                        let line = bytes[Int(lineStart)...]
                        starts.add(offset: emitted + Int(lineStart), id: line.prefix { $0 != 9 })
                    }
                }
                try emit(part.bytes)
                emitted += part.bytes.count
            }
            return starts
        }
        try snapshot.forEachLine(
            unchanged: { (line: UnsafeRawBufferPointer, _: Int) throws(AISyncError) in
                start(line.prefix { $0 != 9 })
                out.append(contentsOf: line)
                out.append(10)
                try flush()
            },
            changed: { (summary: RecordSummary, refs: [Journal.LineRef]) throws(AISyncError) in
                start(summary.id.rawValue.utf8)
                Self.encode(summary, refs: refs, into: &out)
                try flush()
            })
        try emit(out)
        return starts
    }

    /// From how many changed records, and up to how many, an index with no lines on disk to
    /// keep is encoded in two parts on two cores (``StoreSnapshot/changedLinesInParts``): the
    /// index write ending a first pull of 10,000 chats into a new store, the pull's last step,
    /// took about a tenth of it on one core. Up to 50,000: the parts are held whole.
    static let encodeInPartsFrom = 4_096
    static let encodeInPartsUpTo = 50_000

    /// One record's line.
    static func encode(_ s: RecordSummary, refs: [Journal.LineRef], into out: inout [UInt8]) {
        out.append(contentsOf: s.id.rawValue.utf8)
        out.append(9)
        out.append(contentsOf: s.kind.rawValue.utf8)
        out.append(9)
        escape(s.title, into: &out)
        out.append(9)
        decimal(s.created.milliseconds, into: &out)
        out.append(9)
        decimal(s.updated.milliseconds, into: &out)
        out.append(9)
        let flagsStart = out.count
        if s.favorite { out.append(UInt8(ascii: "f")) }
        if s.deleted { out.append(UInt8(ascii: "d")) }
        if s.conflict { out.append(UInt8(ascii: "c")) }
        if s.damaged { out.append(UInt8(ascii: "x")) }
        if out.count == flagsStart { out.append(UInt8(ascii: "-")) }
        out.append(9)
        for (n, r) in refs.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            decimal(r.offset, into: &out)
            out.append(UInt8(ascii: "."))
            decimal(Int64(r.length), into: &out)
        }
        out.append(10)
    }

    /// Appends `value` in decimal without making a String (an index rewrite writes a few
    /// numbers for each of thousands of records).
    static func decimal(_ value: Int64, into out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var v = value.magnitude
        // Lowest digit first into a buffer on the stack, then appended in order.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var n = 20
            repeat {
                n -= 1
                digits[n] = 48 + UInt8(v % 10)
                v /= 10
            } while v > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[n...]))
        }
    }

    /// The first line: how far into the journal the index reaches, and facts about the whole
    /// store that a command can use without loading it (the number of records in conflict).
    struct Header: Sendable {
        var journalOffset: Int64
        var journalLines: Int
        var anchor: String
        var wall: Int64
        var counter: Int64
        /// How many records are in conflict; nil in a header that does not say.
        var conflicts: Int?
        /// How many records there are, and how many could not be read in part (format 4).
        var records: Int?
        var damaged: Int?
    }

    /// Reads only the header line (a no-op sync must not read 100,000 summaries).
    func header() -> Header? {
        guard let bytes = try? FileIO.readRange(path, from: 0, count: 512), let end = bytes.firstIndex(of: 10) else {
            return nil
        }
        return Self.header(bytes[..<end])
    }

    static func header(_ line: ArraySlice<UInt8>) -> Header? {
        let h = line.split(separator: 9, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard h.count == 10, h[0] == Self.magic, h[1] == Self.format, let offset = Int64(h[2]), let count = Int(h[3]),
            let wall = Int64(h[5]), let counter = Int64(h[6]), let conflicts = Int(h[7]), let records = Int(h[8]),
            let damaged = Int(h[9]), conflicts >= 0, records >= 0, damaged >= 0
        else { return nil }
        return Header(
            journalOffset: offset, journalLines: count, anchor: h[4], wall: wall, counter: counter,
            conflicts: conflicts, records: records, damaged: damaged)
    }

    /// Where the first six tabs of a line are (its seven fields), without allocating; nil
    /// when the line (or a newline in `line`) ends first. Eight bytes at a time: a listing
    /// looks for these in every line, twice (docs/PERFORMANCE.md).
    private static func tabs(_ line: UnsafeRawBufferPointer) -> (Int, Int, Int, Int, Int, Int)? {
        var tabs = (0, 0, 0, 0, 0, 0)
        var found = 0
        func note(_ i: Int) -> Bool {
            switch found {
            case 0: tabs.0 = i
            case 1: tabs.1 = i
            case 2: tabs.2 = i
            case 3: tabs.3 = i
            case 4: tabs.4 = i
            default: tabs.5 = i
            }
            found += 1
            return found == 6
        }
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        var i = 0
        while i + 8 <= line.count {
            let word = UInt64(littleEndian: line.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            // A high bit for each byte that is a tab or a newline (exact: no borrow between bytes).
            let tab = word ^ 0x0909_0909_0909_0909
            let newline = word ^ 0x0A0A_0A0A_0A0A_0A0A
            var hits = ~(((tab & low) &+ low) | tab) | ~(((newline & low) &+ low) | newline)
            hits &= ~low
            while hits != 0 {
                let at = i + hits.trailingZeroBitCount / 8
                if line[at] == 10 { return nil }
                if note(at) { return tabs }
                hits &= hits - 1
            }
            i += 8
        }
        while i < line.count {
            if line[i] == 10 { return nil }
            if line[i] == 9, note(i) { return tabs }
            i += 1
        }
        return nil
    }

    /// How many bytes of a record line its summary takes: up to and with the tab before its
    /// journal line list; nil when the line ends first. With it, where its first five tabs
    /// are, packed in one word for ``writeListJSON(_:tabs:times:into:)``: a listing finds them
    /// when it copies the summary and writes the JSON from the copy later (the id's, kind's,
    /// times' lengths a byte each, the title's end 32 bits); 0 when one does not fit.
    static func summaryLength(_ line: UnsafeRawBufferPointer) -> (length: Int, tabs: UInt64)? {
        guard let t = tabs(line) else { return nil }
        guard t.0 < 256, t.1 - t.0 < 256, t.3 - t.2 < 256, t.4 - t.3 < 256, t.2 < Int(UInt32.max) else {
            return (t.5 + 1, 0)
        }
        let lengths = UInt64(t.0) | UInt64(t.1 - t.0) << 8 | UInt64(t.3 - t.2) << 48 | UInt64(t.4 - t.3) << 56
        return (t.5 + 1, lengths | UInt64(t.2) << 16)
    }

    /// The tabs ``summaryLength(_:)`` packed, for a summary of `length` bytes (its sixth tab
    /// its last byte); nil for 0, or positions that do not fit it.
    private static func unpack(_ packed: UInt64, length: Int) -> (Int, Int, Int, Int, Int, Int)? {
        guard packed != 0 else { return nil }
        let t0 = Int(packed & 0xFF)
        let t1 = t0 + Int(packed >> 8 & 0xFF)
        let t2 = Int(packed >> 16 & 0xFFFF_FFFF)
        let t3 = t2 + Int(packed >> 48 & 0xFF)
        let t4 = t3 + Int(packed >> 56)
        guard t0 < t1, t1 < t2, t2 < t3, t3 < t4, t4 < length - 1 else { return nil }
        return (t0, t1, t2, t3, t4, length - 1)
    }

    /// A record line's summary, and where its journal line list is in `line`.
    static func parseSummary(_ line: UnsafeRawBufferPointer) -> (RecordSummary, Range<Int>)? {
        guard let t = tabs(line) else { return nil }
        let idBytes = line[..<t.0]
        guard isID(idBytes), let kind = kind(line[(t.0 + 1)..<t.1]),
            let title = unescape(line[(t.1 + 1)..<t.2]),
            let created = parseDecimal(line[(t.2 + 1)..<t.3]),
            let updated = parseDecimal(line[(t.3 + 1)..<t.4])
        else { return nil }
        let flags = line[(t.4 + 1)..<t.5]
        let summary = RecordSummary(
            id: RecordID(checked: ascii(idBytes)), kind: kind, title: title, created: Timestamp(milliseconds: created),
            updated: Timestamp(milliseconds: updated), favorite: flags.contains(UInt8(ascii: "f")),
            deleted: flags.contains(UInt8(ascii: "d")), conflict: flags.contains(UInt8(ascii: "c")),
            damaged: flags.contains(UInt8(ascii: "x")))
        return (summary, (t.5 + 1)..<line.count)
    }

    /// What a listing filters and sorts by (kind, last change, deleted), read from a line
    /// without making its id and title strings: a listing's first pass over 1,000,000 lines.
    static func parseListKey(_ line: UnsafeRawBufferPointer) -> (kind: RecordKind, updated: Int64, deleted: Bool)? {
        // Everything `parseSummary` would refuse is refused here too, while the store's lock
        // is held and a damaged index can still be rebuilt: the listing reads the line again
        // later, outside the lock.
        guard let t = tabs(line), isID(line[..<t.0]), let kind = kind(line[(t.0 + 1)..<t.1]),
            isEscapedText(line[(t.1 + 1)..<t.2]), parseDecimal(line[(t.2 + 1)..<t.3]) != nil,
            let updated = parseDecimal(line[(t.3 + 1)..<t.4])
        else { return nil }
        return (kind, updated, line[(t.4 + 1)..<t.5].contains(UInt8(ascii: "d")))
    }

    /// Bytes known to be ASCII as a String (no validation to repeat).
    private static func ascii(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        UnsafeRawBufferPointer(rebasing: bytes).withMemoryRebound(to: UInt8.self) {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// ``RecordID``'s rule on the id's bytes. Written here, not called across modules: a
    /// generic `RecordID` check on bytes is not specialized from another module, and a
    /// listing calls this for every record (docs/PERFORMANCE.md).
    private static func isID(_ bytes: Slice<UnsafeRawBufferPointer>) -> Bool {
        func ok(_ b: UInt8) -> Bool { (b >= 97 && b <= 122) || (b >= 48 && b <= 57) }
        guard (1...64).contains(bytes.count), let first = bytes.first, ok(first) else { return false }
        return bytes.dropFirst().allSatisfy { ok($0) || $0 == UInt8(ascii: "-") }
    }

    /// Whether ``unescape(_:)`` accepts `bytes`, without making the String when they are ASCII.
    private static func isEscapedText(_ bytes: Slice<UnsafeRawBufferPointer>) -> Bool {
        var escaping = false
        for b in bytes {
            if b >= 0x80 { return unescape(bytes) != nil }
            if escaping {
                guard unescaped(b) != nil else { return false }
                escaping = false
            } else if b == 92 {
                escaping = true
            }
        }
        return !escaping
    }

    /// One object of the list document (``RecordSummary/json``'s canonical bytes) written
    /// straight from a record line, without making its id and title strings: what
    /// `list --json` writes for every line of the index. Returns whether the record's body is
    /// damaged (flag `x`); nil, with nothing written, when the line does not parse. The line's
    /// id and title were checked by ``parseListKey(_:)`` when the listing was made (from the
    /// same bytes: an index file is replaced, never rewritten). `packed`: where its tabs are,
    /// as ``summaryLength(_:)`` found them when `line` is a summary it measured, or 0.
    static func writeListJSON(
        _ line: UnsafeRawBufferPointer, tabs packed: UInt64 = 0,
        times: inout (created: ISO8601Writer, updated: ISO8601Writer), into out: inout [UInt8]
    ) -> Bool? {
        guard let t = unpack(packed, length: line.count) ?? tabs(line), kind(line[(t.0 + 1)..<t.1]) != nil,
            let created = parseDecimal(line[(t.2 + 1)..<t.3]), let updated = parseDecimal(line[(t.3 + 1)..<t.4])
        else { return nil }
        let start = out.count
        var favorite = false
        var deleted = false
        var conflict = false
        var damaged = false
        for b in line[(t.4 + 1)..<t.5] {
            switch b {
            case UInt8(ascii: "f"): favorite = true
            case UInt8(ascii: "d"): deleted = true
            case UInt8(ascii: "c"): conflict = true
            case UInt8(ascii: "x"): damaged = true
            default: break
            }
        }
        func put(_ text: StaticString) {
            text.withUTF8Buffer { out.append(contentsOf: $0) }
        }
        put(conflict ? "{\"conflict\":true,\"created\":\"" : "{\"conflict\":false,\"created\":\"")
        times.created.write(created, into: &out)
        put(deleted ? "\",\"deleted\":true" : "\",\"deleted\":false")
        put(favorite ? ",\"favorite\":true,\"id\":\"" : ",\"favorite\":false,\"id\":\"")
        out.append(contentsOf: line[..<t.0])
        put("\",\"kind\":\"")
        out.append(contentsOf: line[(t.0 + 1)..<t.1])
        put("\",\"title\":\"")
        guard writeJSONText(line[(t.1 + 1)..<t.2], into: &out) else {
            out.removeSubrange(start...)
            return nil
        }
        put("\",\"updated\":\"")
        times.updated.write(updated, into: &out)
        put("\"}")
        return damaged
    }

    /// An escaped field (``escape(_:into:)``) as the inside of a JSON string, the bytes
    /// ``JSONValue/writeString(_:into:)`` writes for its text; false on a bad escape.
    private static func writeJSONText(_ field: Slice<UnsafeRawBufferPointer>, into out: inout [UInt8]) -> Bool {
        var run = field.startIndex
        var i = field.startIndex
        while i < field.endIndex {
            let b = field[i]
            if b >= 0x20 && b != 34 && b != 92 {
                i += 1
                continue
            }
            out.append(contentsOf: field[run..<i])
            if b == 92 {
                guard i + 1 < field.endIndex, let byte = unescaped(field[i + 1]) else { return false }
                JSONValue.escape(byte, into: &out)
                i += 2
            } else {
                JSONValue.escape(b, into: &out)
                i += 1
            }
            run = i
        }
        out.append(contentsOf: field[run..<i])
        return true
    }

    /// The kind from its bytes, without making a String (1,000,000 lines per listing, twice).
    private static func kind(_ bytes: Slice<UnsafeRawBufferPointer>) -> RecordKind? {
        let b = UnsafeRawBufferPointer(rebasing: bytes)
        func `is`(_ word: StaticString) -> Bool {
            guard word.utf8CodeUnitCount == b.count else { return false }
            for i in 0..<b.count where word.utf8Start[i] != b[i] { return false }
            return true
        }
        guard b.count == 4 || b.count == 5 else { return nil }
        if `is`("chat") { return .chat }
        if `is`("image") { return .image }
        if `is`("story") { return .story }
        return nil
    }

    /// ``parseInt(_:)`` for a field of a line: up to 18 digits (any time in milliseconds)
    /// cannot overflow, so they are added up unchecked.
    static func parseDecimal(_ bytes: Slice<UnsafeRawBufferPointer>) -> Int64? {
        var i = bytes.startIndex
        let negative = i < bytes.endIndex && bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        let digits = bytes.endIndex - i
        guard digits > 0, digits <= 18 else { return digits > 0 ? parseInt(bytes) : nil }
        var value: Int64 = 0
        while i < bytes.endIndex {
            let d = bytes[i] &- 48
            guard d <= 9 else { return nil }
            value = value &* 10 &+ Int64(d)
            i += 1
        }
        return negative ? -value : value
    }

    static func parseInt(_ bytes: some Collection<UInt8>) -> Int64? {
        var value: Int64 = 0
        var negative = false
        var any = false
        for (n, b) in bytes.enumerated() {
            if n == 0, b == UInt8(ascii: "-") {
                negative = true
                continue
            }
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
    static func decodeRefs(_ raw: some Collection<UInt8>) -> [Journal.LineRef]? {
        var refs: [Journal.LineRef] = []
        for item in raw.split(separator: UInt8(ascii: ",")) {
            guard let dot = item.firstIndex(of: UInt8(ascii: ".")), let offset = parseInt(item[..<dot]),
                let length = parseInt(item[item.index(after: dot)...]), offset >= 0, length > 0
            else { return nil }
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

    /// The byte a backslash followed by `b` stands for (``escape(_:into:)``); nil for none.
    private static func unescaped(_ b: UInt8) -> UInt8? {
        switch b {
        case 92: 92
        case UInt8(ascii: "t"): 9
        case UInt8(ascii: "n"): 10
        case UInt8(ascii: "r"): 13
        default: nil
        }
    }

    /// The text of an escaped field; nil when it is not valid UTF-8 or ends in a lone backslash.
    static func unescape(_ bytes: Slice<UnsafeRawBufferPointer>) -> String? {
        var high: UInt8 = 0
        var escaped = false
        for b in bytes {
            high |= b
            if b == 92 {
                escaped = true
                break
            }
        }
        if !escaped {
            // ASCII needs no validating (most titles); other text is validated as UTF-8.
            if high < 0x80 { return ascii(bytes) }
            return UnsafeRawBufferPointer(rebasing: bytes).withMemoryRebound(to: UInt8.self) {
                String(validating: $0, as: UTF8.self)
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var escaping = false
        for b in bytes {
            if escaping {
                guard let byte = unescaped(b) else { return nil }
                out.append(byte)
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
