/// Where a device's latest snapshot is and what it covers (docs/DESIGN.md §5.7): written in
/// the device's head, so devices find it on servers that cannot list, and in its checkpoint,
/// so the next push writes it into the head again.
///
/// A snapshot is `parts` files `snapshots/<device>/<seq>-<part>.snap`, each in the segment
/// format: every version the writer's store still needs (``RecordState/essentialVersionIDs``)
/// once it had merged each device's segments up to `covers[device]`. A fresh store starts
/// from it and fetches only the segments past `covers`; a store that finds a segment gone
/// (removed after compaction) falls back to it.
package struct SnapshotInfo: Sendable, Equatable {
    /// The snapshot's number among its writer's snapshots (1, 2, …).
    package var seq: Int64
    /// How many part files it has (1…``maxParts``).
    package var parts: Int64
    /// Per device, the last of its segments the snapshot includes.
    package var covers: [DeviceID: Int64]
    /// When it was written: segments it covers are removed only after a grace period.
    package var created: Timestamp

    /// Far above any real store (100,000 chats take about 20 parts), far below a hostile
    /// head's 10^15.
    package static let maxParts: Int64 = 100_000

    package init(seq: Int64, parts: Int64, covers: [DeviceID: Int64], created: Timestamp) {
        self.seq = seq
        self.parts = parts
        self.covers = covers
        self.created = created
    }

    package var json: JSONValue {
        .object([
            "seq": .int(seq), "parts": .int(parts), "created": .string(created.iso8601),
            "covers": .object(JSONObject(uniqueKeysWithValues: covers.map { ($0.key.rawValue, .int($0.value)) })),
        ])
    }

    /// Reads it from untrusted JSON (a head on the remote): numbers in range, device ids valid.
    package init(json: JSONValue, context: String) throws(AISyncError) {
        var r = try JSONObjectReader(json, context: context)
        seq = try r.int("seq")
        parts = try r.int("parts")
        created = try r.time("created")
        guard seq >= 1, (1...Self.maxParts).contains(parts) else {
            throw .damaged("\(context): snapshot numbers out of range")
        }
        guard let object = r.optionalValue("covers")?.objectValue else {
            throw .damaged("\(context): snapshot without covers")
        }
        var covers: [DeviceID: Int64] = [:]
        for (key, value) in object {
            guard let id = DeviceID(key), let n = value.intValue, n >= 0 else {
                throw .damaged("\(context): invalid snapshot covers entry")
            }
            covers[id] = n
        }
        self.covers = covers
        try r.finish()
    }
}
