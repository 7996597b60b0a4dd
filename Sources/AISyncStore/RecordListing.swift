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

    /// Records read per batch (``batch``; fewer in tests, to read many batches of a small store).
    private var batchSize = Self.batch

    /// `order`: the packed positions (``Position/packed``), in list order.
    init(base: IndexBase?, changed: [RecordSummary], order: [UInt32]) {
        self.base = base
        self.changed = changed
        self.order = order
    }

    /// The same listing, read `size` records a batch.
    func reading(batchesOf size: Int) -> RecordListing {
        var copy = self
        copy.batchSize = max(1, size)
        return copy
    }

    private func position(_ n: Int) -> Position { Position(packed: order[n], changed: changed.count) }

    /// The positions in list order: newest first, equal times in the order given (id
    /// order). `times` is used up. Where the times span few enough bits (any store whose
    /// times lie within a few centuries of each other), each becomes one 64-bit key, the age
    /// above the place, and the keys are sorted by their age bits alone, in place order
    /// already (``RadixSort``, stable): a third of the time of sorting places by comparing
    /// their times through two arrays, and a fifth of that again of sorting the keys as numbers.
    static func newestFirst(_ times: inout [Int64], positions: [UInt32]) -> [UInt32] {
        let count = times.count
        guard count > 1, let newest = times.max(), let oldest = times.min() else { return positions }
        let placeBits = Int.bitWidth - (count - 1).leadingZeroBitCount
        let (span, overflow) = newest.subtractingReportingOverflow(oldest)
        if !overflow, placeBits < 63, span < Int64(1) << (63 - placeBits) {
            for i in times.indices { times[i] = (newest - times[i]) << placeBits | Int64(i) }
            RadixSort.sort(&times, by: placeBits..<(placeBits + Int64.bitWidth - span.leadingZeroBitCount))
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
    /// in file order (the index read once per batch, not a page at a time per record, which
    /// made a listing of 1,000,000 twice as slow), up to their journal line lists, then each is
    /// parsed and handed over in list order, straight from the copy.
    public func forEach(_ body: (RecordSummary) throws(AISyncError) -> Void) throws(AISyncError) {
        try forEachEntry { (entry: Entry) throws(AISyncError) in
            switch entry {
            case .line(let line, _):
                guard let (summary, _) = IndexFile.parseSummary(line) else { throw IndexBase.damaged }
                try body(summary)
            case .changed(let summary):
                try body(summary)
            }
        }
    }

    /// A listed record as ``forEachEntry(_:)`` hands it over: the summary part of its index
    /// line (valid only during the call) and where its tabs are (``IndexFile/summaryLength(_:)``),
    /// or the summary of a record changed since.
    enum Entry {
        case line(UnsafeRawBufferPointer, tabs: UInt64)
        case changed(RecordSummary)
    }

    /// Every listed record in order, as its index line's summary part where it has one
    /// (``forEach(_:)`` says how a batch is read). While one batch is handed over, the next is
    /// copied on another core (a listing of 1,000,000 records is eight batches).
    func forEachEntry(_ body: (Entry) throws(AISyncError) -> Void) throws(AISyncError) {
        let batches = stride(from: 0, to: order.count, by: batchSize).map { $0..<min($0 + batchSize, order.count) }
        guard let first = batches.first else { return }
        var copied = try copyBatch(first)
        for (k, range) in batches.enumerated() {
            let next =
                k + 1 < batches.count
                ? Prefetch { [self, range = batches[k + 1]] () throws(AISyncError) in try copyBatch(range) } : nil
            // Not left running when `body` throws.
            defer { _ = try? next?.value() }
            try hand(range, copied, body)
            if let next { copied = try next.value() }
        }
    }

    /// The summary parts of the index lines of the records at `range` of the order, copied in
    /// file order, and where each is in them (its start and end, packed; by place in `range`).
    private func copyBatch(_ range: Range<Int>) throws(AISyncError) -> Batch {
        var lines: [UInt8] = []
        var spans = [UInt64](repeating: 0, count: range.count)
        var tabs = [UInt64](repeating: 0, count: range.count)
        // Each line's offset above its place in the batch, sorted by the offset.
        var wanted: [Int64] = []
        wanted.reserveCapacity(range.count)
        for n in range {
            if case .line(let offset) = position(n) {
                wanted.append(Int64(bitPattern: UInt64(offset) << 32 | UInt64(n - range.lowerBound)))
            }
        }
        guard !wanted.isEmpty else { return Batch(lines: lines, spans: spans, tabs: tabs) }
        guard let base else { throw IndexBase.damaged }
        RadixSort.sort(&wanted, by: 32..<min(64, 32 + Int.bitWidth - base.file.count.leadingZeroBitCount))
        lines.reserveCapacity(wanted.count * 128)
        try base.copySummaries(at: wanted, into: &lines) { (k: Int, at: Range<Int>, found: UInt64) in
            // A batch's summaries are a few MB: far from what 32 bits hold.
            precondition(at.upperBound <= Int(UInt32.max), "a batch of summaries over 4 GB")
            let place = Int(wanted[k] & 0xFFFF_FFFF)
            spans[place] = UInt64(at.lowerBound) << 32 | UInt64(at.upperBound)
            tabs[place] = found
        }
        return Batch(lines: lines, spans: spans, tabs: tabs)
    }

    /// A batch's summaries as ``copyBatch(_:)`` copies them: each one's start and end in
    /// `lines` (packed), and its tabs, by place in the batch.
    private struct Batch: Sendable {
        var lines: [UInt8]
        var spans: [UInt64]
        var tabs: [UInt64]
    }

    /// Hands the records at `range` of the order to `body`, from their batch's copied lines.
    private func hand(
        _ range: Range<Int>, _ copied: Batch, _ body: (Entry) throws(AISyncError) -> Void
    ) throws(AISyncError) {
        try copied.lines.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            Result { () throws(AISyncError) in
                for n in range {
                    switch position(n) {
                    case .line:
                        let span = copied.spans[n - range.lowerBound]
                        let line = UnsafeRawBufferPointer(rebasing: bytes[Int(span >> 32)..<Int(span & 0xFFFF_FFFF)])
                        try body(.line(line, tabs: copied.tabs[n - range.lowerBound]))
                    case .changed(let k):
                        try body(.changed(changed[k]))
                    }
                }
            }
        }.get()
    }

    /// Records read per batch by ``forEach(_:)``: up to about 10 MB of summaries. Each batch
    /// reads the index again (a batch in list order is spread over all of it), so fewer
    /// batches read less: 131,072 took 0.88-1.18 s for 1,000,000 records where 32,768 took
    /// 1.19-1.41 s, interleaved; 262,144 no faster and 11 MB more (docs/PERFORMANCE.md §3.5).
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
