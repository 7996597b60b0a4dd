/// One version of one record: a journal line (design §3, Schemas/journal-line.schema.json).
///
/// Its `id` is the sha256 of its own canonical JSON without the id, so the same version has
/// the same id on every machine and a damaged line is detected.
public struct Version: Hashable, Sendable {
    public let id: SHA256Digest
    public let record: RecordID
    public let kind: RecordKind
    public let clock: VectorClock
    public let time: HybridLogicalTime
    public let device: DeviceID
    /// The body object's sha256, or nil for a tombstone.
    public let body: SHA256Digest?

    public var isDeleted: Bool { body == nil }

    public init(record: RecordID, kind: RecordKind, clock: VectorClock, time: HybridLogicalTime, device: DeviceID, body: SHA256Digest?) {
        self.record = record; self.kind = kind; self.clock = clock; self.time = time; self.device = device; self.body = body
        self.id = SHA256.hash(Self.content(record: record, kind: kind, clock: clock, time: time, device: device, body: body).canonicalBytes)
    }

    /// The short form shown to people.
    public var shortID: String { String(id.hex.prefix(12)) }

    /// Last-writer-wins order: greater HLC wins, then greater device id.
    public func winsOver(_ other: Version) -> Bool {
        if time != other.time { return time > other.time }
        if device != other.device { return device > other.device }
        return id.hex > other.id.hex
    }

    private static func content(record: RecordID, kind: RecordKind, clock: VectorClock, time: HybridLogicalTime, device: DeviceID, body: SHA256Digest?) -> JSONValue {
        .object([
            "v": .int(1), "record": .string(record.rawValue), "kind": .string(kind.rawValue),
            "clock": clock.json, "hlc": time.json, "device": .string(device.rawValue),
            "body": body.map { .string($0.hex) } ?? .null, "deleted": .bool(body == nil),
        ])
    }

    /// The journal line (canonical JSON, no newline).
    public var json: JSONValue {
        guard case .object(var o) = Self.content(record: record, kind: kind, clock: clock, time: time, device: device, body: body) else { return .null }
        o["id"] = .string(id.hex)
        return .object(o)
    }

    /// Parses and verifies a journal line or a version received from a remote.
    public init(json: JSONValue) throws(AISyncError) {
        var r = try JSONObjectReader(json, context: "version")
        guard try r.int("v") == 1 else { throw .damaged("version line format is not 1", hint: "It may come from a newer aisync; upgrade aisync") }
        let idText = try r.string("record")
        guard let record = RecordID(idText) else { throw .damaged("version names an invalid record id \"\(idText.prefix(80))\"") }
        let kindText = try r.string("kind")
        guard let kind = RecordKind(rawValue: kindText) else { throw .damaged("version has unknown kind \"\(kindText.prefix(40))\"") }
        let clock = try VectorClock(json: r.optionalValue("clock") ?? .null)
        let time = try HybridLogicalTime(json: r.optionalValue("hlc") ?? .null)
        let deviceText = try r.string("device")
        guard let device = DeviceID(deviceText) else { throw .damaged("version names an invalid device id") }
        guard clock[device] >= 1 else { throw .damaged("version's clock has no entry for its own device") }
        let deleted = try r.bool("deleted")
        let body = try r.optionalDigest("body")
        guard deleted == (body == nil) else { throw .damaged("version must have a body unless it is deleted, and none if it is") }
        let claimed = try r.digest("id")
        try r.finish()
        self.init(record: record, kind: kind, clock: clock, time: time, device: device, body: body)
        guard id == claimed else { throw .damaged("version id does not match its content (the line was altered)") }
    }
}

extension Version {
    /// Rebuilds a version whose id was verified when it was first read (from the index cache).
    init(verifiedID: SHA256Digest, record: RecordID, kind: RecordKind, clock: VectorClock, time: HybridLogicalTime, device: DeviceID, body: SHA256Digest?) {
        self.id = verifiedID; self.record = record; self.kind = kind; self.clock = clock; self.time = time; self.device = device; self.body = body
    }
}
