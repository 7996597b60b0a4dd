/// Reading a journal line in the one form aisync writes it.
///
/// Rebuilding an index parses every line of the journal, and going through a JSON tree (a
/// dictionary for the line, its clock, its time and each operation, then a reader over each)
/// was most of that: at 100,000 records, 2 of the 5 CPU seconds of a `list` with the index
/// deleted. A line in canonical form is read here straight into a version; only operation
/// values go through the JSON parser. Anything else (whitespace, another key order, an escape
/// in a key or an id, a format 1 line, any check failing) gives nil and the line takes the
/// general path, which decides and words the error. So this reader accepts a subset of what
/// ``Version/init(json:verifyingID:)`` accepts and makes the same version of it; every check
/// on the parts is the general path's own (``Operation/init(op:field:element:value:ref:kind:)``,
/// ``Version/checkChangedOnce(_:)``, the id types' validation).
struct CanonicalLineReader {
    /// The members an operation value's objects make room for at first: a message is three
    /// or four (role, text, time, model), and a pull holds a segment's thousands of them.
    static let valueMembers = 4
    private let bytes: UnsafeBufferPointer<UInt8>
    private var at = 0
    /// Whether operation values must be in canonical form byte for byte too (each is encoded
    /// again and compared): for lines from elsewhere, whose id is checked by hashing the line
    /// as it is. The store's own journal lines are written canonical and need not be.
    private let strict: Bool
    /// Where each value's canonical bytes are written, when `strict`.
    private var scratch: [UInt8] = []

    /// The version `line` holds, its id as the line claims it (not verified here); nil when
    /// the line is not exactly in canonical form or does not pass the checks.
    static func version(_ line: UnsafeBufferPointer<UInt8>) -> Version? {
        var reader = CanonicalLineReader(bytes: line, strict: false)
        return reader.version()
    }

    /// The same, with every operation value also checked to be in canonical form.
    static func strictVersion(_ line: UnsafeBufferPointer<UInt8>) -> Version? {
        var reader = CanonicalLineReader(bytes: line, strict: true)
        return reader.version()
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, strict: Bool) {
        self.bytes = bytes
        self.strict = strict
    }

    private mutating func version() -> Version? {
        guard expect(#"{"clock":{"#) else { return nil }
        var counters: [DeviceID: Int64] = [:]
        var previous: Range<Int>? = nil
        // The clock's first device, whose id the writing device's usually is (not made twice).
        var first: (bytes: Range<Int>, id: DeviceID)?
        repeat {
            // Keys in strictly increasing order: canonical, and never a duplicate.
            guard let key = string(), let device = DeviceID(text(key)), expect(":"), let n = integer(), n >= 1 else {
                return nil
            }
            if let previous, !bytes[previous].lexicographicallyPrecedes(bytes[key]) { return nil }
            previous = key
            if first == nil { first = (key, device) }
            counters[device] = n
        } while expect(",")
        guard expect(#"},"device":"#), let d = string(), let device = deviceID(d, first), counters[device] != nil,
            expect(#","hlc":{"c":"#), let counter = integer(), expect(#","t":"#), let wall = integer(),
            expect(#"},"id":"#), let idText = string(), let id = digest(idText),
            expect(#","kind":"#), let k = string(), let kind = RecordKind(rawValue: text(k)),
            expect(#","ops":["#)
        else { return nil }
        var ops: [Operation] = []
        repeat {
            guard let op = operation(kind: kind) else { return nil }
            ops.append(op)
        } while expect(",")
        guard expect(#"],"record":"#), let r = string(), hasKindPrefix(r, kind), let record = RecordID(text(r)),
            expect(#","v":2}"#), at == bytes.count, ops.count <= Version.maxOperations,
            (try? Version.checkChangedOnce(ops)) != nil
        else { return nil }
        return Version(
            id: id, record: record, kind: kind, clock: VectorClock(positive: counters),
            time: HybridLogicalTime(wall: wall, counter: counter), device: device, payload: .operations(ops))
    }

    /// The members of an operation object, in canonical (sorted) order.
    private static let operationKeys = [#""elem":"#, #""field":"#, #""op":"#, #""ref":"#, #""value":"#].map {
        Array($0.utf8)
    }

    private mutating func operation(kind: RecordKind) -> Operation? {
        guard expect("{") else { return nil }
        var element: String?
        var field: String?
        var op: String?
        var ref: SHA256Digest?
        var value: JSONValue?
        var last = -1
        repeat {
            guard let key = Self.operationKeys.indices.first(where: { expect(Self.operationKeys[$0]) }), key > last
            else { return nil }
            last = key
            switch key {
            case 0:
                guard let s = string() else { return nil }
                element = text(s)
            case 1:
                guard let s = string() else { return nil }
                field = text(s)
            case 2:
                guard let s = string() else { return nil }
                op = text(s)
            case 3:
                guard let s = string(), let d = digest(s) else { return nil }
                ref = d
            default:
                // The depth the general parser is at for a value in an operation of a line.
                guard let (v, end) = JSONParser.value(in: bytes, at: at, depth: 3, objectCapacity: Self.valueMembers)
                else { return nil }
                if strict {
                    // Room for the whole line at once: grown by doubling, it was reallocated
                    // several times a line.
                    if scratch.capacity == 0 { scratch.reserveCapacity(bytes.count) }
                    scratch.removeAll(keepingCapacity: true)
                    JSONValue.write(v, into: &scratch)
                    guard scratch.count == end - at, scratch.elementsEqual(bytes[at..<end]) else { return nil }
                }
                value = v
                at = end
            }
        } while expect(",")
        guard expect("}"), let op else { return nil }
        return try? Operation(op: op, field: field, element: element, value: value, ref: ref, kind: kind)
    }

    /// What a push plans with (``VersionOutline``), read from a line in canonical form without
    /// decoding its operations: each operation's `op` and `ref`, every other member skipped
    /// over (``skipValue()``). Nil for a line not exactly in the form, as ``version()``.
    static func outline(_ line: UnsafeBufferPointer<UInt8>) -> VersionOutline? {
        var reader = CanonicalLineReader(bytes: line, strict: false)
        return reader.outline()
    }

    private mutating func outline() -> VersionOutline? {
        guard expect(#"{"clock":{"#) else { return nil }
        let clock = at
        repeat {
            guard string() != nil, expect(":"), integer() != nil else { return nil }
        } while expect(",")
        let clockEnd = at
        guard expect(#"},"device":"#), let d = string(), let device = DeviceID(text(d)),
            expect(#","hlc":{"c":"#), integer() != nil, expect(#","t":"#), integer() != nil,
            expect(#"},"id":"#), let idText = string(), let id = digest(idText),
            expect(#","kind":"#), let k = string(), let kind = RecordKind(rawValue: text(k)),
            expect(#","ops":["#)
        else { return nil }
        var deleted = false
        var objects: [SHA256Digest] = []
        repeat {
            guard expect("{") else { return nil }
            repeat {
                guard let key = string(), expect(":") else { return nil }
                if matches(key, "op") {
                    guard let op = string() else { return nil }
                    if matches(op, "delete") { deleted = true } else if matches(op, "restore") { deleted = false }
                } else if matches(key, "ref") {
                    guard let ref = string(), let digest = digest(ref) else { return nil }
                    objects.append(digest)
                } else {
                    guard skipValue() else { return nil }
                }
            } while expect(",")
            guard expect("}") else { return nil }
        } while expect(",")
        guard expect(#"],"record":"#), let r = string(), hasKindPrefix(r, kind), let record = RecordID(text(r)),
            expect(#","v":2}"#), at == bytes.count, let counter = counter(of: d, in: clock..<clockEnd)
        else { return nil }
        return VersionOutline(
            id: id, kind: kind, record: record, device: device, counter: counter, isDeleted: deleted,
            objectReferences: objects)
    }

    /// The counter of the device named at `device` in the clock's members at `clock`.
    private func counter(of device: Range<Int>, in clock: Range<Int>) -> Int64? {
        var reader = self
        reader.at = clock.lowerBound
        repeat {
            guard let key = reader.string(), reader.expect(":"), let n = reader.integer() else { return nil }
            if bytes[key].elementsEqual(bytes[device]) { return n }
        } while reader.at < clock.upperBound && reader.expect(",")
        return nil
    }

    /// Whether the string at `range` is `word`.
    private func matches(_ range: Range<Int>, _ word: StaticString) -> Bool {
        word.withUTF8Buffer { bytes[range].elementsEqual($0) }
    }

    /// Moves the cursor past one JSON value (to the `,`, `}` or `]` after it) without reading
    /// it: strings are skipped to their closing quote (an escaped one does not close them),
    /// arrays and objects to their matching bracket. A line this is used on is checked by its
    /// hash, not by this.
    private mutating func skipValue() -> Bool {
        var depth = 0
        while at < bytes.count {
            switch bytes[at] {
            case 34:
                at += 1
                while at < bytes.count, bytes[at] != 34 { at += bytes[at] == 92 ? 2 : 1 }
                guard at < bytes.count else { return false }
                at += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                at += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return true }
                depth -= 1
                at += 1
            case UInt8(ascii: ","):
                if depth == 0 { return true }
                at += 1
            default:
                at += 1
            }
        }
        return false
    }

    /// Consumes `literal` if the bytes at the cursor are exactly it.
    private mutating func expect(_ literal: StaticString) -> Bool {
        literal.withUTF8Buffer { expect($0) }
    }

    private mutating func expect(_ literal: some Collection<UInt8>) -> Bool {
        guard bytes.count - at >= literal.count else { return false }
        var i = at
        for b in literal {
            guard bytes[i] == b else { return false }
            i += 1
        }
        at = i
        return true
    }

    /// A string of printable ASCII without escapes (all ids, kinds and names are), as the
    /// range of its bytes; nil for anything else, left to the general path.
    private mutating func string() -> Range<Int>? {
        guard at < bytes.count, bytes[at] == 34 else { return nil }
        var i = at + 1
        while i < bytes.count {
            let b = bytes[i]
            if b == 34 {
                defer { at = i + 1 }
                return (at + 1)..<i
            }
            guard b >= 0x20, b < 0x80, b != 92 else { return nil }
            i += 1
        }
        return nil
    }

    /// The device id at `range`: `known`'s when the bytes are the same.
    private func deviceID(_ range: Range<Int>, _ known: (bytes: Range<Int>, id: DeviceID)?) -> DeviceID? {
        if let known, bytes[range].elementsEqual(bytes[known.bytes]) { return known.id }
        return DeviceID(text(range))
    }

    private func digest(_ range: Range<Int>) -> SHA256Digest? {
        SHA256Digest(hexUTF8: UnsafeBufferPointer(rebasing: bytes[range]))
    }

    /// Whether the string at `range` starts with the kind's name and a `-`, as a record id must.
    private func hasKindPrefix(_ range: Range<Int>, _ kind: RecordKind) -> Bool {
        var name = kind.rawValue
        return name.withUTF8 { name in
            range.count > name.count && bytes[range.lowerBound + name.count] == UInt8(ascii: "-")
                && bytes[range.lowerBound..<(range.lowerBound + name.count)].elementsEqual(name)
        }
    }

    private func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// A non-negative integer as JSON writes one (no leading zero) that fits in 64 bits, not
    /// followed by a fraction or exponent (the general parser reads those as doubles).
    private mutating func integer() -> Int64? {
        var i = at
        var value: Int64 = 0
        while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int64(bytes[i] - 48))
            guard !o1, !o2 else { return nil }
            value = a
            i += 1
        }
        guard i > at, bytes[at] != 48 || i == at + 1 else { return nil }
        if i < bytes.count,
            bytes[i] == UInt8(ascii: ".") || bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")
        {
            return nil
        }
        at = i
        return value
    }
}

/// What a push needs to know of a version to plan with it: which device wrote it and at what
/// count (whether it goes to a remote), its record and kind, whether it deletes, and the
/// objects it refers to. Read from a journal line without decoding its operations
/// (``Version/outline(journalLine:)``): a push of 10,000 chats spent most of its time
/// decoding every operation of every line to learn these.
package struct VersionOutline: Sendable, Equatable {
    package var id: SHA256Digest
    package var kind: RecordKind
    package var record: RecordID
    /// The device that wrote the version, and its counter in the version's clock.
    package var device: DeviceID
    package var counter: Int64
    package var isDeleted: Bool
    package var objectReferences: [SHA256Digest]

    package init(
        id: SHA256Digest, kind: RecordKind, record: RecordID, device: DeviceID, counter: Int64, isDeleted: Bool,
        objectReferences: [SHA256Digest]
    ) {
        self.id = id
        self.kind = kind
        self.record = record
        self.device = device
        self.counter = counter
        self.isDeleted = isDeleted
        self.objectReferences = objectReferences
    }

    /// The outline of a version already decoded.
    package init(_ v: Version) {
        self.init(
            id: v.id, kind: v.kind, record: v.record, device: v.device, counter: v.clock[v.device],
            isDeleted: v.isDeleted, objectReferences: v.objectReferences)
    }
}

extension Version {
    /// The outline of a line of the store's own journal, its id checked by hashing the line
    /// without it (the same check ``init(journalLine:verifyingID:)`` makes: a line damaged on
    /// disk does not pass); nil when the line is not exactly in canonical form or the hash
    /// differs (the caller then parses it whole, which words the error).
    package static func outline(journalLine line: ArraySlice<UInt8>) -> VersionOutline? {
        guard let o = line.withUnsafeBufferPointer(CanonicalLineReader.outline), hashWithoutID(line, id: o.id) == o.id
        else { return nil }
        return o
    }

    /// The version `line` holds when the line is exactly in canonical form and its id is the
    /// hash of the line without it; nil otherwise (the general path then decides and words
    /// the error). What a segment entry's version is checked with first: hashing the bytes
    /// as they came replaces a parse into a JSON tree and a canonical re-encoding.
    package static func verifiedCanonical(_ line: ArraySlice<UInt8>) -> Version? {
        guard let v = line.withUnsafeBufferPointer(CanonicalLineReader.strictVersion),
            Self.hashWithoutID(line, id: v.id) == v.id
        else { return nil }
        return v
    }

    /// Parses a line of the store's own journal; with `verifyingID`, checks its id against
    /// its content. A line in canonical form (every line aisync writes) is read directly
    /// (``CanonicalLineReader``) and its id checked by hashing the line without it; any
    /// other line goes through the JSON parser and the general checks, which word the error.
    package init(journalLine line: ArraySlice<UInt8>, verifyingID: Bool) throws(AISyncError) {
        if let v = line.withUnsafeBufferPointer(CanonicalLineReader.version),
            !verifyingID || Self.hashWithoutID(line, id: v.id) == v.id
        {
            self = v
            return
        }
        let json: JSONValue
        do { json = try JSONParser.parse(line) } catch { throw .damaged(error.description) }
        self = verifyingID ? try Version(json: json, line: line) : try Version(json: json, verifyingID: false)
    }
}
