import Foundation

/// One version of one record: a journal line (docs/DESIGN.md §3.3, Schemas/journal-line.schema.json).
///
/// Its `id` is the sha256 of its own canonical JSON without the id, so the same version has
/// the same id on every machine and a damaged line is detected.
///
/// Records v2 versions carry operations (`ops`). Versions written by aisync 1 carry a whole
/// body (`legacy`); they are kept verbatim, so their ids stay valid on every device and
/// remote, and read as "set every field, add every element" (`LegacyOperations`).
public struct Version: Hashable, Sendable {
    /// What a version carries: v2 operations, or an aisync 1 whole body.
    public enum Payload: Hashable, Sendable {
        /// Records v2: the changes this version makes.
        case operations([Operation])
        /// aisync 1: the whole body object's sha256, or nil for a tombstone.
        case legacy(body: SHA256Digest?)
    }

    /// The version's id: the sha256 of its canonical JSON without the id (see ``shortID`` for display).
    public let id: SHA256Digest
    /// The record this version belongs to.
    public let record: RecordID
    /// The kind of that record; every version of a record has the same kind.
    public let kind: RecordKind
    /// The record's vector clock after this version: the versions its device had seen, plus this one.
    public let clock: VectorClock
    /// When it was written, as a hybrid logical time (orders last-writer-wins).
    public let time: HybridLogicalTime
    /// The device that wrote it.
    public let device: DeviceID
    /// What the version changes: operations (v2) or an aisync 1 body.
    public let payload: Payload

    /// The journal line format this build writes.
    public static let currentFormat: Int64 = 2

    /// A version with the given content; its ``id`` is computed by hashing that content.
    public init(
        record: RecordID, kind: RecordKind, clock: VectorClock, time: HybridLogicalTime, device: DeviceID,
        payload: Payload
    ) {
        self.record = record
        self.kind = kind
        self.clock = clock
        self.time = time
        self.device = device
        self.payload = payload
        self.id = SHA256.hash(
            Self.content(record: record, kind: kind, clock: clock, time: time, device: device, payload: payload)
                .canonicalBytes)
    }

    /// A new v2 version and its journal line, serialized once: the line is the hashed content
    /// with `"id"` spliced in where canonical key order puts it (after `"hlc"`, before `"kind"`),
    /// so a bulk import or pull does not encode every version twice. Equal to `json.canonicalBytes`.
    package static func encoded(
        record: RecordID, kind: RecordKind, clock: VectorClock, time: HybridLogicalTime,
        device: DeviceID, ops: [Operation]
    ) -> (Version, line: [UInt8]) {
        let payload = Payload.operations(ops)
        let (content, at) = operationsContent(
            record: record, kind: kind, clock: clock, time: time, device: device, ops: ops)
        let id = SHA256.hash(content)
        let version = Version(
            id: id, record: record, kind: kind, clock: clock, time: time, device: device, payload: payload)
        var line: [UInt8] = []
        line.reserveCapacity(content.count + 72)
        line += content[..<at]
        line += #","id":""#.utf8
        line += id.hex.utf8
        line.append(UInt8(ascii: "\""))
        line += content[at...]
        return (version, line)
    }

    /// The canonical bytes of a v2 version's content (``content(record:kind:clock:time:device:payload:)``
    /// for `.operations`), written directly: the keys of the content and of each operation are
    /// written in their canonical order, so no object is built and sorted per operation (a
    /// bulk import writes millions). `CanonicalLineTests` holds it to the general encoding.
    /// Also where `,"kind":` starts in them: where the line's `"id"` goes.
    static func operationsContent(
        record: RecordID, kind: RecordKind, clock: VectorClock, time: HybridLogicalTime, device: DeviceID,
        ops: [Operation]
    ) -> (bytes: [UInt8], kindOffset: Int) {
        var out: [UInt8] = []
        out.reserveCapacity(256 + ops.count * 128)
        // Keys in code-point order: clock, device, hlc, kind, ops, record, v.
        out += #"{"clock":"#.utf8
        JSONValue.write(clock.json, into: &out)
        out += #","device":"#.utf8
        JSONValue.writeString(device.rawValue, into: &out)
        out += #","hlc":"#.utf8
        JSONValue.write(time.json, into: &out)
        let kindOffset = out.count
        out += #","kind":"#.utf8
        JSONValue.writeString(kind.rawValue, into: &out)
        out += #","ops":"#.utf8
        writeOperations(ops, into: &out)
        out += #","record":"#.utf8
        JSONValue.writeString(record.rawValue, into: &out)
        out += #","v":2}"#.utf8
        return (out, kindOffset)
    }

    /// Appends the canonical bytes of a list of operations (the `ops` of a v2 version's
    /// content) to `out`: each operation's keys in their canonical order (elem, field, op,
    /// ref, value).
    static func writeOperations(_ ops: [Operation], into out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (n, op) in ops.enumerated() {
            out += n > 0 ? #",{"#.utf8 : "{".utf8
            var separator = ""
            if let element = op.element {
                out += #""elem":"#.utf8
                JSONValue.writeString(element, into: &out)
                separator = ","
            }
            switch op {
            case .set(let f, _), .add(let f, _, _), .edit(let f, _, _), .remove(let f, _):
                out += (separator + #""field":"#).utf8
                JSONValue.writeString(f, into: &out)
                separator = ","
            case .delete, .restore: break
            }
            out += (separator + #""op":"#).utf8
            JSONValue.writeString(op.name, into: &out)
            switch op.value {
            case .inline(let v)?:
                out += #","value":"#.utf8
                JSONValue.write(v, into: &out)
            case .object(let d)?:
                out += #","ref":"#.utf8
                JSONValue.writeString(d.hex, into: &out)
            case nil: break
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
    }

    /// A records v2 version carrying `ops`; its ``id`` is computed by hashing its content.
    public init(
        record: RecordID, kind: RecordKind, clock: VectorClock, time: HybridLogicalTime, device: DeviceID,
        ops: [Operation]
    ) {
        self.init(record: record, kind: kind, clock: clock, time: time, device: device, payload: .operations(ops))
    }

    /// The operations of a v2 version (empty for a legacy one: see `LegacyOperations`).
    public var ops: [Operation] {
        if case .operations(let ops) = payload { return ops }
        return []
    }

    /// The body object of a legacy (aisync 1) version.
    public var legacyBody: SHA256Digest? {
        if case .legacy(let body) = payload { return body }
        return nil
    }

    /// Whether this version deletes its record (a tombstone).
    public var isDeleted: Bool {
        switch payload {
        case .legacy(let body): body == nil
        case .operations(let ops): ops.last { $0 == .delete || $0 == .restore } == .delete
        }
    }

    /// Objects this version needs: a legacy body, or values too large to be inline.
    public var objectReferences: [SHA256Digest] {
        switch payload {
        case .legacy(let body): body.map { [$0] } ?? []
        case .operations(let ops): ops.compactMap { $0.value?.objectDigest }
        }
    }

    /// The short form shown to people.
    public var shortID: String { String(id.hex.prefix(12)) }

    /// Last-writer-wins order: greater HLC wins, then greater device id.
    public func winsOver(_ other: Version) -> Bool {
        if time != other.time { return time > other.time }
        if device != other.device { return device > other.device }
        return id.hex > other.id.hex
    }

    private static func content(
        record: RecordID, kind: RecordKind, clock: VectorClock, time: HybridLogicalTime, device: DeviceID,
        payload: Payload
    ) -> JSONValue {
        var o: JSONObject = [
            "record": .string(record.rawValue), "kind": .string(kind.rawValue),
            "clock": clock.json, "hlc": time.json, "device": .string(device.rawValue),
        ]
        switch payload {
        case .legacy(let body):
            o["v"] = .int(1)
            o["body"] = body.map { .string($0.hex) } ?? .null
            o["deleted"] = .bool(body == nil)
        case .operations(let ops):
            o["v"] = .int(2)
            o["ops"] = .array(ops.map(\.json))
        }
        return .object(o)
    }

    /// The journal line (canonical JSON, no newline).
    public var json: JSONValue {
        guard
            case .object(var o) = Self.content(
                record: record, kind: kind, clock: clock, time: time, device: device, payload: payload)
        else { return .null }
        o["id"] = .string(id.hex)
        return .object(o)
    }

    /// Parses and verifies a journal line or a version received from a remote.
    public init(json: JSONValue) throws(AISyncError) {
        try self.init(json: json, verifyingID: true)
    }

    /// Parses a line; `verifyingID: false` trusts the id (a local journal line read again
    /// through the index, verified when it was first read; `fsck` re-checks every line).
    package init(json: JSONValue, verifyingID: Bool) throws(AISyncError) {
        var r = try JSONObjectReader(json, context: "version")
        let format = try r.int("v")
        guard format == 1 || format == 2 else {
            throw .damaged(
                "version line format \(format) is unknown",
                hint: "It may come from a newer version; upgrade to read it", remedy: .upgrade)
        }
        let idText = try r.string("record")
        guard let record = RecordID(idText) else {
            throw .damaged("version names an invalid record id \"\(idText.prefix(80))\"")
        }
        let kindText = try r.string("kind")
        guard let kind = RecordKind(rawValue: kindText) else {
            throw .damaged("version has unknown kind \"\(kindText.prefix(40))\"")
        }
        // A record's id carries its kind (`chat-…`), so a forged version cannot turn a chat
        // into a story even for a record this store has not seen yet.
        guard idText.hasPrefix("\(kind.rawValue)-") else {
            throw .damaged(
                "version says \(idText.prefix(80)) is a \(kind.rawValue), but its id is not a \(kind.rawValue) id")
        }
        let clock = try VectorClock(json: r.optionalValue("clock") ?? .null)
        let time = try HybridLogicalTime(json: r.optionalValue("hlc") ?? .null)
        let deviceText = try r.string("device")
        guard let device = DeviceID(deviceText) else { throw .damaged("version names an invalid device id") }
        guard clock[device] >= 1 else { throw .damaged("version's clock has no entry for its own device") }
        let payload: Payload
        if format == 1 {
            let deleted = try r.bool("deleted")
            let body = try r.optionalDigest("body")
            guard deleted == (body == nil) else {
                throw .damaged("version must have a body unless it is deleted, and none if it is")
            }
            payload = .legacy(body: body)
        } else {
            let items = try r.array("ops")
            guard !items.isEmpty, items.count <= Self.maxOperations else {
                throw .damaged("version must have 1 to \(Self.maxOperations) operations")
            }
            payload = .operations(try Self.operations(items, kind: kind))
        }
        let claimed = try r.digest("id")
        try r.finish()
        guard verifyingID else {
            self.init(
                id: claimed, record: record, kind: kind, clock: clock, time: time, device: device, payload: payload)
            return
        }
        self.init(record: record, kind: kind, clock: clock, time: time, device: device, payload: payload)
        guard id == claimed else { throw .damaged("version id does not match its content (the line was altered)") }
    }

    /// A version's operations, each field or element changed at most once.
    private static func operations(_ items: [JSONValue], kind: RecordKind) throws(AISyncError) -> [Operation] {
        var ops: [Operation] = []
        ops.reserveCapacity(items.count)
        for item in items { ops.append(try Operation(json: item, kind: kind)) }
        try checkChangedOnce(ops)
        return ops
    }

    /// Throws unless each field or element is changed by at most one of `ops`.
    static func checkChangedOnce(_ ops: [Operation]) throws(AISyncError) {
        func twice(_ op: Operation) -> AISyncError {
            .damaged("version changes \"\(op.element.map { "\(op.field)/\($0)" } ?? op.field)\" twice")
        }
        // Most versions carry a few operations: comparing each with those before it beats
        // hashing them, and allocates nothing (a pull checks every version it fetches).
        if ops.count <= 16 {
            for i in ops.indices {
                for j in 0..<i where ops[j].field == ops[i].field && ops[j].element == ops[i].element {
                    throw twice(ops[i])
                }
            }
            return
        }
        var touched = Set<Touched>()
        for op in ops where !touched.insert(Touched(field: op.field, element: op.element)).inserted {
            throw twice(op)
        }
    }

    /// Parses and verifies a journal line, `json` parsed from `line`. A line aisync wrote is canonical, so
    /// the content its id hashes is the line itself with `,"id":"…"` cut out: hashing that
    /// verifies the id without encoding the version again (40 % of rebuilding an index).
    /// A line that is not canonical falls back to the full check. Only for the store's own
    /// journal, whose lines aisync encoded itself: the fast check does not prove a line
    /// canonical, so versions from a remote always get the full check (`Version(json:)`).
    package init(json: JSONValue, line: ArraySlice<UInt8>) throws(AISyncError) {
        let parsed = try Version(json: json, verifyingID: false)
        if Self.hashWithoutID(line, id: parsed.id) == parsed.id {
            self = parsed
            return
        }
        self.init(
            record: parsed.record, kind: parsed.kind, clock: parsed.clock, time: parsed.time, device: parsed.device,
            payload: parsed.payload)
        guard id == parsed.id else { throw .damaged("version id does not match its content (the line was altered)") }
    }

    /// The SHA-256 of `line` without its `,"id":"<id>"` member; nil when the line has none.
    static func hashWithoutID(_ line: ArraySlice<UInt8>, id: SHA256Digest) -> SHA256Digest? {
        // `,"id":"<64 hex>"`, made on the stack (a pull checks every version id).
        withUnsafeTemporaryAllocation(byteCount: 72, alignment: 1) { member in
            let prefix: StaticString = #","id":""#
            prefix.withUTF8Buffer { member.copyMemory(from: UnsafeRawBufferPointer($0)) }
            id.writeHex(into: UnsafeMutableRawBufferPointer(rebasing: member[7..<71]))
            member[71] = 0x22
            return hashWithoutID(line, member: UnsafeRawBufferPointer(member))
        }
    }

    private static func hashWithoutID(_ line: ArraySlice<UInt8>, member: UnsafeRawBufferPointer) -> SHA256Digest? {
        line.withUnsafeBytes { raw -> SHA256Digest? in
            // Canonical keys before "id" (clock, device, hlc) hold only hex and numbers, so
            // the first `,"` followed by the member is the member itself.
            guard raw.count > member.count else { return nil }
            var at = 0
            let last = raw.count - member.count
            while at <= last {
                if raw[at] == 0x2C, raw[at + 1] == 0x22, raw[at + 2] == 0x69,
                    memcmp(raw.baseAddress! + at, member.baseAddress!, member.count) == 0
                {
                    var hasher = SHA256()
                    hasher.update(bytes: UnsafeRawBufferPointer(rebasing: raw[..<at]))
                    hasher.update(bytes: UnsafeRawBufferPointer(rebasing: raw[(at + member.count)...]))
                    return hasher.finalize()
                }
                at += 1
            }
            return nil
        }
    }

    init(
        id: SHA256Digest, record: RecordID, kind: RecordKind, clock: VectorClock, time: HybridLogicalTime,
        device: DeviceID, payload: Payload
    ) {
        self.id = id
        self.record = record
        self.kind = kind
        self.clock = clock
        self.time = time
        self.device = device
        self.payload = payload
    }

    /// What one operation changes: a field, or one element of it (a version changes each once).
    private struct Touched: Hashable {
        var field: String
        var element: String?
    }

    /// A bound on one version's operations (a bulk import of a long chat is still one version).
    static let maxOperations = 1_000_000
}
