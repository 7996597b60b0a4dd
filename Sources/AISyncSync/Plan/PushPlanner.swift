import AISyncCore
import AISyncRemote
import AISyncStore

/// The decisions of a push, as pure functions of what was read (docs/DESIGN.md §5.10).
///
/// `SyncEngine+Push` only reads, writes and feeds results back; everything that decides —
/// whether this store is current, restored or a copy, what goes out, how it is cut into
/// segments, what the head says and under which condition it is written, whether a 412 on
/// the head means a copy or a lost answer — lives here, so crash windows, coarse ETags and
/// racing devices are millisecond table tests instead of real-time server runs.
enum PushPlanner {
    /// This device's head as read from the remote.
    struct ObservedHead: Equatable, Sendable {
        var seq: Int64
        var etag: String?
    }

    /// What the head on the remote says about this store.
    enum OwnHead: Equatable, Sendable {
        /// No head yet: the push creates it, create-only (a second store racing us loses).
        case absent
        /// The head is the one this store last wrote: replace it under this ETag.
        case current(etag: String?)
        /// The head is past what this store knows it pushed (or the store has no checkpoint
        /// for a remote that knows it): restored from a backup, or a copy. See `adoption`.
        case ahead(seq: Int64)
    }

    /// Judges our own head. A checkpoint without a head ETag has never pushed here, so any
    /// head under our id was written by another copy of this store (or by us before a restore).
    static func ownHead(_ observed: ObservedHead?, checkpoint: SyncCheckpoint) -> OwnHead {
        guard let observed else { return .absent }
        guard checkpoint.headETag != nil, observed.seq <= checkpoint.pushedSeq else { return .ahead(seq: observed.seq) }
        return .current(etag: observed.etag ?? checkpoint.headETag)
    }

    /// After a push was cut off around its head write: the head on the remote says whether it
    /// landed. Either way the pending marks are cleared, so the next push starts clean.
    static func settle(_ checkpoint: SyncCheckpoint, observed: ObservedHead?) -> SyncCheckpoint {
        var settled = checkpoint
        if let observed, observed.seq == checkpoint.pendingSeq, let offset = checkpoint.pendingOffset {
            settled.pushedSeq = observed.seq
            settled.pushedOffset = offset
            settled.headETag = observed.etag ?? ""
        }
        settled.pendingSeq = nil
        settled.pendingOffset = nil
        return settled
    }

    /// Which journaled versions go out: this device's own, and others' only when this remote
    /// never gave them to us (relayed from another remote). Versions pulled from here are
    /// never sent back, or a sync with local edits would re-publish everything it pulled.
    static func outgoing(_ versions: [Version], device: DeviceID, checkpoint: SyncCheckpoint) -> [Int] {
        outgoing(versions.map(VersionOutline.init), device: device, checkpoint: checkpoint)
    }

    /// The same, from the versions' outlines (what a push reads of its journal).
    static func outgoing(_ versions: [VersionOutline], device: DeviceID, checkpoint: SyncCheckpoint) -> [Int] {
        versions.indices.filter { i in
            let v = versions[i]
            return v.device == device || v.counter > checkpoint.pulled[v.device]?.counter ?? 0
        }
    }

    /// Whether a push has anything to do.
    enum Start: Equatable, Sendable {
        /// Nothing to send and already registered: no request at all. When versions were
        /// journaled (all pulled from here), the checkpoint moves past them (`advanceTo`).
        case nothingToSend(advanceTo: Int64?)
        case send
    }

    static func start(outgoing: Int, journaled: Int, end: Int64, checkpoint: SyncCheckpoint) -> Start {
        guard outgoing == 0, checkpoint.headETag != nil, checkpoint.registered else { return .send }
        return .nothingToSend(advanceTo: journaled > 0 ? end : nil)
    }

    /// Cuts entries of the given encoded sizes into segments of about `targetBytes` (a single
    /// larger entry gets a segment of its own) and at most `maxEntries` each.
    static func chunks(sizes: [Int], targetBytes: Int = Segment.targetBytes, maxEntries: Int = Segment.maxEntries)
        -> [Range<Int>]
    {
        var cutter = Cutter(targetBytes: targetBytes, maxEntries: maxEntries)
        for size in sizes { cutter.add(size) }
        return cutter.finish()
    }

    /// ``chunks(sizes:targetBytes:maxEntries:)`` one entry at a time, so a push cuts its
    /// segments while it scans the journal instead of keeping every entry's size.
    struct Cutter: Sendable {
        var targetBytes = Segment.targetBytes
        var maxEntries = Segment.maxEntries
        private(set) var ranges: [Range<Int>] = []
        private(set) var count = 0
        private var start = 0, bytes = 0

        init(targetBytes: Int = Segment.targetBytes, maxEntries: Int = Segment.maxEntries) {
            self.targetBytes = targetBytes
            self.maxEntries = maxEntries
        }

        /// The next entry, of `size` encoded bytes.
        mutating func add(_ size: Int) {
            if count > start, bytes + size > targetBytes || count - start >= maxEntries {
                ranges.append(start..<count)
                (start, bytes) = (count, 0)
            }
            bytes += size
            count += 1
        }

        /// The segments, the last one included.
        func finish() -> [Range<Int>] { start < count ? ranges + [start..<count] : ranges }
    }

    /// The bytes an entry adds to its segment: its line, its objects and their framing.
    static func entrySize(lineBytes: Int, objectSizes: [Int]) -> Int {
        objectSizes.reduce(0) { $0 + $1 + 70 } + lineBytes + 24
    }

    /// The image bytes that go to the remote: every picture the store has, each digest once,
    /// in order — Imgur or not, originals always stay on the user's remote (Imgur is a copy).
    static func blobs(_ images: [(SHA256Digest, ImageBody)], local: Set<SHA256Digest>) -> [SHA256Digest] {
        var seen = Set<SHA256Digest>()
        return images.compactMap { digest, _ in local.contains(digest) && seen.insert(digest).inserted ? digest : nil }
    }

    /// One segment to write.
    struct SegmentWrite: Equatable, Sendable {
        var seq: Int64
        /// Indices into the outgoing entries.
        var entries: Range<Int>
    }

    /// A push, decided: the executor writes blobs, then segments, then `pending`, the head
    /// (under `headCondition`), registers when asked, and finally `committed` with the
    /// head's new ETag.
    struct Plan: Equatable, Sendable {
        var blobs: [SHA256Digest]
        var segments: [SegmentWrite]
        /// Written before the head: a crash after the head write is recognised by `settle`.
        var pending: SyncCheckpoint
        var head: DeviceHead
        var headCondition: WriteCondition
        var register: Bool
        /// Written last; its `headETag` is filled in with the head write's answer.
        var committed: SyncCheckpoint
    }

    /// Everything a push decides once it knows its own head is current or absent.
    struct Input: Sendable {
        var checkpoint: SyncCheckpoint
        var ownHead: OwnHead
        var remoteID: String
        var device: DeviceID
        var deviceName: String
        var now: Timestamp
        /// The outgoing entries cut into segments (``chunks(sizes:targetBytes:maxEntries:)``).
        var chunks: [Range<Int>]
        /// Journal offset just past the last journaled version.
        var end: Int64
        var blobs: [SHA256Digest]
    }

    /// Plans a push. Segment numbers continue after our last pushed one: numbers past the
    /// head are not referenced, so a leftover from an interrupted push may be replaced.
    static func plan(_ input: Input) -> Plan {
        var seq = input.checkpoint.pushedSeq
        let segments = input.chunks.map { range -> SegmentWrite in
            seq += 1
            return SegmentWrite(seq: seq, entries: range)
        }
        var pending = input.checkpoint
        pending.pendingSeq = seq
        pending.pendingOffset = input.end
        var known = Set(input.checkpoint.pulled.keys)
        known.insert(input.device)
        let head = DeviceHead(
            device: input.device, name: input.deviceName, seq: seq, updated: input.now,
            remoteID: input.remoteID, devices: known.sorted(), snapshot: input.checkpoint.snapshot)
        let condition: WriteCondition
        switch input.ownHead {
        case .current(let etag?): condition = .replacing(etag: etag)
        case .current(nil), .absent, .ahead: condition = .createOnly
        }
        var committed = pending
        committed.pushedSeq = seq
        committed.pushedOffset = input.end
        committed.pendingSeq = nil
        committed.pendingOffset = nil
        committed.registered = true
        return Plan(
            blobs: input.blobs, segments: segments, pending: pending, head: head, headCondition: condition,
            register: !input.checkpoint.registered, committed: committed)
    }

    /// A segment number we are about to use already holds a file (create-only got 412).
    enum Collision: Equatable, Sendable {
        /// The same bytes: an earlier attempt of this push wrote it; nothing to do.
        case identical
        /// Other bytes (an interrupted push that cut differently): unreferenced, so replace it.
        case replace
    }

    static func collision(existing: [UInt8]?, ours: [UInt8]) -> Collision {
        existing == ours ? .identical : .replace
    }

    /// What the head write's answer means.
    enum HeadOutcome: Equatable, Sendable {
        case landed(etag: String?)
        /// Someone else moved our head: another copy of this store pushed as this device.
        case copied
        /// A 412 that needs the head read back before judging (see `judgeReadBack`).
        case readBack
    }

    static func headOutcome(_ result: WriteResult) -> HeadOutcome {
        switch result {
        case .written(let etag): return .landed(etag: etag)
        case .preconditionFailed: return .readBack
        }
    }

    /// A 412 on the head after a transport retry may be our own write whose answer was lost:
    /// the retried conditional PUT then finds the head already changed — by us. The head
    /// read back is ours exactly when it is the one we sent (same number and time stamp).
    static func judgeReadBack(_ readBack: DeviceHead?, etag: String?, sent: DeviceHead) -> HeadOutcome {
        guard let readBack, readBack == sent else { return .copied }
        return .landed(etag: etag)
    }
}
