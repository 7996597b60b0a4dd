import AISyncCore

/// Records in list order (newest first), each read from the index when it is asked for.
///
/// Why not an array of summaries: at 1,000,000 records the summaries with their titles were
/// 300 MB. A listing holds where each record's line starts (4 bytes a record) and reads the line
/// again from the index mapped in memory: `list --json` streams, and an app shows a window
/// of rows (``summary(at:)``) without holding the rest. It is a snapshot: later edits to the
/// store do not change it (the index file it reads is replaced, never rewritten).
public struct RecordListing: Sendable {
    private let base: IndexBase?
    /// Summaries of records changed since the index was written, which the positions name.
    private let changed: [RecordSummary]
    /// Where each listed record is (``Position/packed``): 4 bytes a record, not an enum's 8,
    /// since making the order holds such arrays at the peak of a `list` (docs/PERFORMANCE.md).
    private let order: [UInt32]

    /// Where one listed record is: the line of the index starting at an offset, or one of
    /// `changed`.
    enum Position: Sendable, Equatable {
        case line(offset: UInt32)
        case changed(Int)

        /// A line as its offset, a changed record `k` as `UInt32.max - k`: an index's lines
        /// start below 4 GiB (``IndexBase`` refuses a larger one), and a listing makes sure
        /// the two never meet (``fits(indexBytes:changed:)``).
        var packed: UInt32 {
            switch self {
            case .line(let offset): offset
            case .changed(let k): UInt32.max - UInt32(k)
            }
        }

        init(packed: UInt32, changed: Int) {
            let k = UInt32.max - packed
            self = Int(k) < changed ? .changed(Int(k)) : .line(offset: packed)
        }

        /// Whether lines of an index of `indexBytes` and `changed` changed records can be
        /// told apart when packed.
        static func fits(indexBytes: Int, changed: Int) -> Bool { indexBytes + changed < Int(UInt32.max) }
    }

    /// `order`: the packed positions (``Position/packed``), in list order.
    init(base: IndexBase?, changed: [RecordSummary], order: [UInt32]) {
        self.base = base
        self.changed = changed
        self.order = order
    }

    private func position(_ n: Int) -> Position { Position(packed: order[n], changed: changed.count) }

    /// The positions in list order: newest first, equal times in the order given (id
    /// order). `times` is used up. Where the times span few enough bits (any store whose
    /// times lie within a few centuries of each other), each becomes one 64-bit key, the age
    /// above the place, and the keys are sorted as numbers: a third of the time of sorting
    /// places by comparing their times through two arrays.
    static func newestFirst(_ times: inout [Int64], positions: [UInt32]) -> [UInt32] {
        let count = times.count
        guard count > 1, let newest = times.max(), let oldest = times.min() else { return positions }
        let placeBits = Int.bitWidth - (count - 1).leadingZeroBitCount
        let (span, overflow) = newest.subtractingReportingOverflow(oldest)
        if !overflow, placeBits < 63, span < Int64(1) << (63 - placeBits) {
            for i in times.indices { times[i] = (newest - times[i]) << placeBits | Int64(i) }
            times.sort()
            let mask = Int64(1) << placeBits - 1
            return times.map { positions[Int($0 & mask)] }
        }
        var order = Array(UInt32(0)..<UInt32(count))
        order.sort { a, b in times[Int(a)] != times[Int(b)] ? times[Int(a)] > times[Int(b)] : a < b }
        for i in order.indices { order[i] = positions[Int(order[i])] }
        return order
    }

    /// How many records are listed.
    public var count: Int { order.count }

    /// The `n`-th record, newest first. Throws `.temporary` only if the index's bytes no
    /// longer parse (they were checked when the listing was made).
    public func summary(at n: Int) throws(AISyncError) -> RecordSummary {
        guard order.indices.contains(n) else {
            throw AISyncError(
                .usage, "record \(n) of a listing of \(order.count)", hint: "Ask for 0 to \(max(order.count - 1, 0))")
        }
        switch position(n) {
        case .line(let offset):
            guard let base else { throw IndexBase.damaged }
            return try base.summary(atOffset: Int(offset))
        case .changed(let k):
            return changed[k]
        }
    }

    /// Every listed record in order. Read a batch at a time: a batch's index lines are copied
    /// in file order (a page faulted once for every line on it, not once per record, which
    /// made a listing of 1,000,000 twice as slow), up to their journal line lists, then each is
    /// parsed and handed over in list order, straight from the copy.
    public func forEach(_ body: (RecordSummary) throws(AISyncError) -> Void) throws(AISyncError) {
        try forEachEntry { (entry: Entry) throws(AISyncError) in
            switch entry {
            case .line(let line):
                guard let (summary, _) = IndexFile.parseSummary(line) else { throw IndexBase.damaged }
                try body(summary)
            case .changed(let summary):
                try body(summary)
            }
        }
    }

    /// A listed record as ``forEachEntry(_:)`` hands it over: the summary part of its index
    /// line (valid only during the call), or the summary of a record changed since.
    enum Entry {
        case line(UnsafeRawBufferPointer)
        case changed(RecordSummary)
    }

    /// Every listed record in order, as its index line's summary part where it has one
    /// (``forEach(_:)`` says how a batch is read).
    func forEachEntry(_ body: (Entry) throws(AISyncError) -> Void) throws(AISyncError) {
        var lines: [UInt8] = []
        for start in stride(from: 0, to: order.count, by: Self.batch) {
            let range = start..<min(start + Self.batch, order.count)
            // Where each line of the batch is in `lines`: its start and end, packed.
            var spans = [UInt64](repeating: 0, count: range.count)
            var wanted: [(offset: UInt32, slot: Int32)] = []
            wanted.reserveCapacity(range.count)
            for n in range {
                if case .line(let offset) = position(n) { wanted.append((offset, Int32(n - start))) }
            }
            if !wanted.isEmpty {
                guard let base else { throw IndexBase.damaged }
                wanted.sort { $0.offset < $1.offset }
                lines.removeAll(keepingCapacity: true)
                try base.copySummaries(at: wanted.map(\.offset), into: &lines) { (k: Int, at: Range<Int>) in
                    // A batch's summaries are a few MB: far from what 32 bits hold.
                    precondition(at.upperBound <= Int(UInt32.max), "a batch of summaries over 4 GB")
                    spans[Int(wanted[k].slot)] = UInt64(at.lowerBound) << 32 | UInt64(at.upperBound)
                }
            }
            try lines.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
                Result { () throws(AISyncError) in
                    for n in range {
                        switch position(n) {
                        case .line:
                            let span = spans[n - start]
                            try body(
                                .line(
                                    UnsafeRawBufferPointer(rebasing: bytes[Int(span >> 32)..<Int(span & 0xFFFF_FFFF)])))
                        case .changed(let k):
                            try body(.changed(changed[k]))
                        }
                    }
                }
            }.get()
        }
    }

    /// Records read per batch by ``forEach(_:)``: up to about 10 MB of summaries. Each batch
    /// maps the index's pages again (a batch in list order is spread over all of it), so
    /// fewer batches fault fewer pages: 131,072 took 0.88-1.18 s for 1,000,000 records where
    /// 32,768 took 1.19-1.41 s, interleaved; 262,144 no faster and 11 MB more
    /// (docs/PERFORMANCE.md §3.5).
    static let batch = 131_072

    /// All of them in an array (what a small store or a test wants).
    public var all: [RecordSummary] {
        get throws(AISyncError) {
            var result: [RecordSummary] = []
            result.reserveCapacity(count)
            try forEach { (s: RecordSummary) throws(AISyncError) in result.append(s) }
            return result
        }
    }
}
