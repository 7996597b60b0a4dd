/// `index/records.v1`: the snapshot cached as tab-separated lines, cheap to parse.
///
/// A cache only: it records how far into the journal it reaches (offset, line count, and a
/// hash of the bytes just before that offset), and a mismatch means "rebuild from the
/// journal". Not JSON on purpose: 100,000 records must load in a fraction of a second.
struct IndexFile: Sendable {
    let path: String
    static let magic = "aisync-index"
    static let anchorLength: Int64 = 256

    /// The hash of the journal bytes just before `offset`, tying the index to one journal.
    static func anchor(journal: Journal, offset: Int64) -> String? {
        guard offset > 0 else { return "-" }
        let start = max(0, offset - anchorLength)
        guard let bytes = try? FileIO.readRange(journal.path, from: start, count: Int(offset - start)),
              bytes.count == Int(offset - start) else { return nil }
        return SHA256.hash(bytes).hex
    }

    func write(_ snapshot: StoreSnapshot, anchor: String) throws(AISyncError) {
        var out: [UInt8] = []
        out.reserveCapacity(snapshot.states.count * 256 + 128)
        out.append(contentsOf: "\(Self.magic)\t1\t\(snapshot.journalOffset)\t\(snapshot.journalLines)\t\(anchor)\t\(snapshot.latestTime.wall)\t\(snapshot.latestTime.counter)\n".utf8)
        for id in snapshot.states.keys.sorted() {
            guard let state = snapshot.states[id], let s = snapshot.summaries[id] else { continue }
            out.append(contentsOf: id.rawValue.utf8); out.append(9)
            out.append(contentsOf: s.kind.rawValue.utf8); out.append(9)
            Self.escape(s.title, into: &out); out.append(9)
            out.append(contentsOf: "\(s.created.milliseconds)\t\(s.updated.milliseconds)\t\(s.favorite ? 1 : 0)\t".utf8)
            for (n, v) in state.siblings.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ";")) }
                let clock = v.clock.counters.sorted { $0.key < $1.key }.map { "\($0.key.rawValue):\($0.value)" }.joined(separator: "/")
                out.append(contentsOf: "\(v.id.hex),\(v.device.rawValue),\(v.time.wall),\(v.time.counter),\(v.body?.hex ?? "-"),\(clock)".utf8)
            }
            out.append(10)
        }
        try FileIO.makeDirectories(FileIO.parentDirectory(of: path))
        // A cache need not be durable: a lost or stale index is rebuilt from the journal.
        try FileIO.writeAtomically(path, out, durable: false)
    }

    /// Loads the cache; nil when it is missing, from another format, or malformed.
    func read() -> (snapshot: StoreSnapshot, anchor: String)? {
        guard let bytes = try? FileIO.read(path, limit: 1 << 36) else { return nil }
        var lines = bytes.split(separator: 10, omittingEmptySubsequences: true)[...]
        guard let header = lines.popFirst() else { return nil }
        let h = header.split(separator: 9, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard h.count == 7, h[0] == Self.magic, h[1] == "1", let offset = Int64(h[2]), let count = Int(h[3]),
              let wall = Int64(h[5]), let counter = Int64(h[6]) else { return nil }
        var snapshot = StoreSnapshot()
        snapshot.journalOffset = offset
        snapshot.journalLines = count
        snapshot.latestTime = HybridLogicalTime(wall: wall, counter: counter)
        snapshot.states.reserveCapacity(lines.count)
        snapshot.summaries.reserveCapacity(lines.count)
        for line in lines {
            guard let (summary, state) = Self.parseRecord(line) else { return nil }
            snapshot.states[summary.id] = state
            snapshot.summaries[summary.id] = summary
        }
        return (snapshot, h[4])
    }

    private static func parseRecord(_ line: ArraySlice<UInt8>) -> (RecordSummary, RecordState)? {
        let f = line.split(separator: 9, omittingEmptySubsequences: false)
        guard f.count == 7,
              let id = RecordID(String(decoding: f[0], as: UTF8.self)),
              let kind = RecordKind(rawValue: String(decoding: f[1], as: UTF8.self)),
              let title = unescape(f[2]),
              let created = Int64(String(decoding: f[3], as: UTF8.self)),
              let updated = Int64(String(decoding: f[4], as: UTF8.self)) else { return nil }
        var state = RecordState()
        for item in f[6].split(separator: UInt8(ascii: ";")) {
            let p = item.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            guard p.count == 6, let vid = SHA256Digest(hex: p[0]), let device = DeviceID(p[1]),
                  let wall = Int64(p[2]), let counter = Int64(p[3]) else { return nil }
            let body: SHA256Digest?
            if p[4] == "-" { body = nil } else { guard let d = SHA256Digest(hex: p[4]) else { return nil }; body = d }
            var counters: [DeviceID: Int64] = [:]
            for entry in p[5].split(separator: "/") {
                let kv = entry.split(separator: ":")
                guard kv.count == 2, let d = DeviceID(String(kv[0])), let n = Int64(kv[1]) else { return nil }
                counters[d] = n
            }
            state.merge(Version(verifiedID: vid, record: id, kind: kind, clock: VectorClock(counters),
                                time: HybridLogicalTime(wall: wall, counter: counter), device: device, body: body))
        }
        guard let winner = state.winner else { return nil }
        let summary = RecordSummary(id: id, kind: kind, title: title, created: Timestamp(milliseconds: created),
                                    updated: Timestamp(milliseconds: updated), favorite: f[5].first == UInt8(ascii: "1"),
                                    deleted: winner.isDeleted, conflict: state.isConflict)
        return (summary, state)
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

    static func unescape(_ bytes: ArraySlice<UInt8>) -> String? {
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

