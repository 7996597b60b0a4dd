/// JSON values parsed into two flat buffers: one slot per value (in document order, each
/// container's slot before its members) and one byte buffer holding every string's text.
///
/// A big export is read this way (``JSONTape/Builder``): a tree of ``JSONValue``s costs an
/// allocation for every object, array and long string, a reference count on every value
/// looked at, and all of it freed node by node; a tape is two arrays, read in place through
/// ``JSONTape/Node``s and freed (or reused for the next batch) at once. It accepts exactly
/// what ``JSONParser`` accepts (the same scanner: duplicate keys, invalid UTF-8 and nesting
/// deeper than ``JSONParser/maxDepth`` are refused), and a ``JSONTape/Node/value`` reads as
/// the value ``JSONParser`` gives for the same bytes.
package struct JSONTape: Sendable {
    /// What a slot holds.
    enum Kind: UInt8, Sendable {
        case null, bool, int, double, string, array, object
    }

    /// One value. A string: `count` bytes of ``text`` from `payload`. A number or boolean:
    /// its bits in `payload`. An array or object: `count` elements or members (a member is
    /// its key's string slot, then its value's), and in `payload` the index of the slot
    /// after its last one.
    struct Slot: Sendable {
        var kind: Kind
        var count: UInt32
        var payload: Int
    }

    var slots: [Slot]
    var text: [UInt8]
    /// The slots of the values appended to the builder, in order.
    var rootSlots: [Int]

    /// `value` as a tape of one value.
    package init(_ value: JSONValue) {
        var builder = Builder()
        builder.append(value)
        self = builder.finish()
    }

    init(slots: [Slot], text: [UInt8], roots: [Int]) {
        self.slots = slots
        self.text = text
        rootSlots = roots
    }

    /// Why a document the parser accepts was refused: a string or container past a slot's count.
    static let tooLarge = "a value too large to read (a string of 4 GiB or more, or 2^32 members or more)"

    /// How many values the tape holds.
    package var count: Int { rootSlots.count }

    /// Calls `body` with the values the builder was given, in order. The nodes read the
    /// tape's memory in place: they are valid only inside `body`, and must not be kept or
    /// returned (nor a ``Lookup``, which holds one).
    package func withRoots<R>(_ body: ([Node]) -> R) -> R {
        slots.withUnsafeBufferPointer { slots in
            text.withUnsafeBufferPointer { text in
                body(rootSlots.map { Node(slots: slots, text: text, index: $0) })
            }
        }
    }

    /// The values as ``JSONValue``s.
    package var values: [JSONValue] { withRoots { $0.map(\.value) } }

    /// One value in a tape: read like a ``JSONValue`` (`node["key"]`, ``stringValue``,
    /// ``elements``…) without building one. It points into the tape's memory, so it is
    /// only used inside ``JSONTape/withRoots(_:)`` (no reference counting on any read).
    package struct Node {
        let slots: UnsafeBufferPointer<Slot>
        let text: UnsafeBufferPointer<UInt8>
        let index: Int

        var slot: Slot { slots[index] }

        /// A node of the same tape.
        @inline(__always)
        func node(_ index: Int) -> Node { Node(slots: slots, text: text, index: index) }

        /// The slot after the value at `index` and everything in it.
        @inline(__always)
        func after(_ index: Int) -> Int {
            let slot = slots[index]
            return slot.kind == .array || slot.kind == .object ? slot.payload : index + 1
        }

        /// Whether the string at slot `index` has the bytes of `key`.
        @inline(__always)
        func string(at index: Int, equals key: UnsafeBufferPointer<UInt8>) -> Bool {
            let slot = slots[index]
            guard Int(slot.count) == key.count else { return false }
            for i in 0..<key.count where text[slot.payload + i] != key[i] { return false }
            return true
        }

        /// The text of the string at slot `index` (checked as UTF-8 when parsed: decoding
        /// repairs nothing).
        func string(at index: Int) -> String {
            let slot = slots[index]
            return String(
                decoding: UnsafeBufferPointer(rebasing: text[slot.payload..<slot.payload + Int(slot.count)]),
                as: UTF8.self)
        }

        /// The member named `key` of an object (found by its bytes, as ``JSONObject`` finds
        /// keys); nil when it is absent or this is not an object. Linear in the members: a
        /// big object read many times is read through ``lookup()``.
        package subscript(key: String) -> Node? {
            let slot = slot
            guard slot.kind == .object else { return nil }
            var key = key
            return key.withUTF8 { key -> Node? in
                var i = index + 1
                for _ in 0..<slot.count {
                    if string(at: i, equals: key) { return node(i + 1) }
                    i = after(i + 1)
                }
                return nil
            }
        }

        /// Whether this is `null`.
        package var isNull: Bool { slot.kind == .null }
        /// Whether this is an object.
        package var isObject: Bool { slot.kind == .object }

        /// The text of a string; nil for any other value.
        package var stringValue: String? { slot.kind == .string ? string(at: index) : nil }

        /// Whether this is a string with exactly the bytes of `text` (no string made).
        package func isString(_ text: String) -> Bool {
            guard slot.kind == .string else { return false }
            var text = text
            return text.withUTF8 { string(at: index, equals: $0) }
        }

        /// The value of `true` or `false`; nil for any other value.
        package var boolValue: Bool? { slot.kind == .bool ? slot.payload != 0 : nil }

        /// A number as a double (an integer converted); nil for any other value.
        package var numberValue: Double? {
            let slot = slot
            switch slot.kind {
            case .int: return Double(Int64(truncatingIfNeeded: slot.payload))
            case .double: return Double(bitPattern: UInt64(UInt(bitPattern: slot.payload)))
            default: return nil
            }
        }

        /// The elements of an array; nil for any other value.
        package var elements: [Node]? {
            let slot = slot
            guard slot.kind == .array else { return nil }
            var list: [Node] = []
            list.reserveCapacity(Int(slot.count))
            var i = index + 1
            for _ in 0..<slot.count {
                list.append(node(i))
                i = after(i)
            }
            return list
        }

        /// The members of an object, in the order written; nil for any other value.
        package var members: [(key: String, value: Node)]? {
            let slot = slot
            guard slot.kind == .object else { return nil }
            var list: [(key: String, value: Node)] = []
            list.reserveCapacity(Int(slot.count))
            var i = index + 1
            for _ in 0..<slot.count {
                list.append((string(at: i), node(i + 1)))
                i = after(i + 1)
            }
            return list
        }

        /// How many members an object has (elements for an array); 0 for any other value.
        package var count: Int {
            let slot = slot
            return slot.kind == .object || slot.kind == .array ? Int(slot.count) : 0
        }

        /// The members of an object, for reading many of them: hashed by key when there are
        /// many, searched in place when few. Nil for any other value.
        package func lookup() -> Lookup? { slot.kind == .object ? Lookup(self) : nil }

        /// The value as a ``JSONValue`` (for code that reads trees).
        package var value: JSONValue {
            let slot = slot
            switch slot.kind {
            case .null: return .null
            case .bool: return .bool(slot.payload != 0)
            case .int: return .int(Int64(truncatingIfNeeded: slot.payload))
            case .double: return .double(Double(bitPattern: UInt64(UInt(bitPattern: slot.payload))))
            case .string: return .string(string(at: index))
            case .array: return .array(elements!.map(\.value))
            case .object:
                var builder = JSONObject.Builder(capacity: Int(slot.count))
                for (key, value) in members! { _ = builder.add(key, value.value) }
                return .object(builder.object)
            }
        }
    }

    /// An object's members by key: a hash table past ``JSONObject``'s small size, the object
    /// itself below it.
    package struct Lookup {
        /// The object.
        package let node: Node
        private let table: KeyTable?

        init(_ node: Node) {
            self.node = node
            guard node.slot.count > UInt32(JSONObject.sortedLimit) else {
                table = nil
                return
            }
            var table = KeyTable(count: Int(node.slot.count))
            var i = node.index + 1
            for _ in 0..<node.slot.count {
                // Keys are unique: the parser refused the object otherwise.
                _ = table.insert(i, slots: node.slots, text: node.text)
                i = node.after(i + 1)
            }
            self.table = table
        }

        /// The member named `key`; nil when absent.
        package subscript(key: String) -> Node? {
            guard let table else { return node[key] }
            var key = key
            return key.withUTF8 { table.find($0, slots: node.slots, text: node.text) }.map { node.node($0 + 1) }
        }

        /// How many members there are.
        package var count: Int { node.count }
        /// Whether there are none.
        package var isEmpty: Bool { node.count == 0 }
        /// The members, in the order written.
        package var members: [(key: String, value: Node)] { node.members ?? [] }
    }

    /// Builds a tape value by value: from bytes (parsed strictly, as ``JSONParser`` does)
    /// or from ``JSONValue``s.
    package struct Builder: Sendable {
        var slots: [Slot] = []
        var text: [UInt8] = []
        var roots: [Int] = []
        /// Key slots of the objects being parsed, to find a repeated key.
        var keys: [Int] = []

        /// An empty builder.
        package init() {}

        /// An empty builder that writes into the memory of `tape` (a reader of batch after
        /// batch keeps its buffers, rather than fault in new pages for every batch; memory
        /// still shared is copied on write, as for any array), else into room for `bytes` of
        /// JSON.
        package init(reusing tape: consuming JSONTape?, bytes: Int) {
            // A tape grown far past a batch (one huge conversation) is let go, not kept.
            if var tape = consume tape, tape.text.capacity <= 4 * bytes + (1 << 20) {
                swap(&slots, &tape.slots)
                swap(&text, &tape.text)
                slots.removeAll(keepingCapacity: true)
                text.removeAll(keepingCapacity: true)
            } else {
                // About one value per 24 bytes of an export, and at most its bytes of text.
                slots.reserveCapacity(bytes / 24)
                text.reserveCapacity(bytes)
            }
        }

        /// How many values were appended.
        package var count: Int { roots.count }

        /// Parses the one value starting at `start` in `buffer` (no whitespace before it),
        /// nested `depth` deep in its document, appends it and returns where it ends; nil
        /// (nothing appended) when it is not valid JSON.
        package mutating func append(in buffer: UnsafeBufferPointer<UInt8>, at start: Int, depth: Int) -> Int? {
            let (slotCount, textCount) = (slots.count, text.count)
            var parser = JSONParser(buffer)
            parser.index = start
            do {
                try parser.tapeValue(depth: depth, into: &self)
            } catch {
                slots.removeSubrange(slotCount...)
                text.removeSubrange(textCount...)
                keys.removeAll(keepingCapacity: true)
                return nil
            }
            roots.append(slotCount)
            return parser.index
        }

        /// Parses one complete JSON document and appends it; throws what ``JSONParser``
        /// throws for it, or that a value is too large for a tape (nothing appended).
        package mutating func append(document bytes: [UInt8]) throws(JSONParser.Failure) {
            let (slotCount, textCount, rootCount) = (slots.count, text.count, roots.count)
            let whole = bytes.withUnsafeBufferPointer { buffer -> Bool in
                var start = 0
                while start < buffer.count, JSONParser.isSpace(buffer[start]) { start += 1 }
                guard var after = append(in: buffer, at: start, depth: 0) else { return false }
                while after < buffer.count, JSONParser.isSpace(buffer[after]) { after += 1 }
                return after == buffer.count
            }
            if whole { return }
            // Refused, or followed by more bytes: taken back, and the parser says why. The tape
            // refuses what the parser refuses, and values too large for its counts.
            slots.removeSubrange(slotCount...)
            text.removeSubrange(textCount...)
            roots.removeSubrange(rootCount...)
            _ = try JSONParser.parse(bytes)
            throw JSONParser.Failure(offset: 0, reason: JSONTape.tooLarge)
        }

        /// Takes the last value appended back out.
        package mutating func removeLast() {
            let first = roots.removeLast()
            if let string = slots[first...].first(where: { $0.kind == .string }) {
                text.removeSubrange(string.payload...)
            }
            slots.removeSubrange(first...)
        }

        /// Appends `value`, which must hold no string of 4 GiB or more and no container of
        /// 2³² members or more (a value parsed from memory).
        package mutating func append(_ value: JSONValue) {
            roots.append(slots.count)
            write(value)
        }

        private mutating func write(_ value: JSONValue) {
            switch value {
            case .null: slots.append(Slot(kind: .null, count: 0, payload: 0))
            case .bool(let b): slots.append(Slot(kind: .bool, count: 0, payload: b ? 1 : 0))
            case .int(let i): slots.append(Slot(kind: .int, count: 0, payload: Int(truncatingIfNeeded: i)))
            case .double(let d):
                slots.append(Slot(kind: .double, count: 0, payload: Int(bitPattern: UInt(d.bitPattern))))
            case .string(let s): appendString(s)
            case .array(let items):
                let at = slots.count
                slots.append(Slot(kind: .array, count: UInt32(items.count), payload: 0))
                for item in items { write(item) }
                slots[at].payload = slots.count
            case .object(let members):
                let at = slots.count
                slots.append(Slot(kind: .object, count: UInt32(members.count), payload: 0))
                for (key, member) in members.canonicallyOrdered {
                    appendString(key)
                    write(member)
                }
                slots[at].payload = slots.count
            }
        }

        private mutating func appendString(_ s: String) {
            let offset = text.count
            text.append(contentsOf: s.utf8)
            slots.append(Slot(kind: .string, count: UInt32(text.count - offset), payload: offset))
        }

        /// The tape of everything appended.
        package consuming func finish() -> JSONTape { JSONTape(slots: slots, text: text, roots: roots) }

        /// Whether the object whose member keys are `keys[from...]` repeats one.
        mutating func repeatsKey(from first: Int) -> Bool {
            let count = keys.count - first
            guard count > 1 else { return false }
            return text.withUnsafeBufferPointer { text in
                func same(_ a: Slot, _ b: Slot) -> Bool {
                    guard a.count == b.count else { return false }
                    for i in 0..<Int(a.count) where text[a.payload + i] != text[b.payload + i] { return false }
                    return true
                }
                if count <= JSONObject.sortedLimit {
                    for i in first..<keys.count {
                        let a = slots[keys[i]]
                        for j in (i + 1)..<keys.count where same(a, slots[keys[j]]) { return true }
                    }
                    return false
                }
                return slots.withUnsafeBufferPointer { slots in
                    var table = KeyTable(count: count)
                    return !keys[first...].allSatisfy { table.insert($0, slots: slots, text: text) }
                }
            }
        }
    }
}

/// The keys of one object (string slots of a tape) in an open-addressed table, hashed by
/// their bytes with `Hasher` (seeded per process, so keys in a hostile export cannot be
/// chosen to collide), no string made for any of them.
struct KeyTable {
    /// Key slot indices; -1 where empty. A power of two, at least twice the keys.
    private var buckets: [Int]

    init(count: Int) {
        var size = 8
        while size < count * 2 { size <<= 1 }
        buckets = Array(repeating: -1, count: size)
    }

    @inline(__always)
    private static func bytes(_ slot: JSONTape.Slot, _ text: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: text[slot.payload..<slot.payload + Int(slot.count)])
    }

    @inline(__always)
    private static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for i in 0..<a.count where a[i] != b[i] { return false }
        return true
    }

    /// The first bucket to look in for `key`.
    private func start(_ key: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(key))
        return hasher.finalize() & (buckets.count - 1)
    }

    /// Adds the key at slot `index`; false (nothing added) when one with its bytes is there.
    mutating func insert(_ index: Int, slots: UnsafeBufferPointer<JSONTape.Slot>, text: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        let key = Self.bytes(slots[index], text)
        var bucket = start(key)
        while buckets[bucket] >= 0 {
            if Self.same(Self.bytes(slots[buckets[bucket]], text), key) { return false }
            bucket = (bucket + 1) & (buckets.count - 1)
        }
        buckets[bucket] = index
        return true
    }

    /// The slot of the key with the bytes of `key`; nil when there is none.
    func find(
        _ key: UnsafeBufferPointer<UInt8>, slots: UnsafeBufferPointer<JSONTape.Slot>, text: UnsafeBufferPointer<UInt8>
    )
        -> Int?
    {
        var bucket = start(key)
        while buckets[bucket] >= 0 {
            if Self.same(Self.bytes(slots[buckets[bucket]], text), key) { return buckets[bucket] }
            bucket = (bucket + 1) & (buckets.count - 1)
        }
        return nil
    }
}

extension JSONParser {
    /// Parses the value at the cursor into `tape` (see ``JSONTape/Builder``): the checks of
    /// ``parseValue(depth:)``, the same scanner.
    mutating func tapeValue(depth: Int, into tape: inout JSONTape.Builder) throws(Failure) {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            guard depth < Self.maxDepth else { throw fail("nesting too deep") }
            try tapeObject(depth: depth, into: &tape)
        case UInt8(ascii: "["):
            guard depth < Self.maxDepth else { throw fail("nesting too deep") }
            let at = tape.slots.count
            tape.slots.append(JSONTape.Slot(kind: .array, count: 0, payload: 0))
            index += 1
            skipWhitespace()
            var count = 0
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
            } else {
                while true {
                    skipWhitespace()
                    try tapeValue(depth: depth + 1, into: &tape)
                    count += 1
                    if try closes(UInt8(ascii: "]")) { break }
                }
            }
            tape.slots[at].count = try count32(count)
            tape.slots[at].payload = tape.slots.count
        case UInt8(ascii: "\""): try tapeString(into: &tape)
        case UInt8(ascii: "t"):
            try expectWord("true")
            tape.slots.append(JSONTape.Slot(kind: .bool, count: 0, payload: 1))
        case UInt8(ascii: "f"):
            try expectWord("false")
            tape.slots.append(JSONTape.Slot(kind: .bool, count: 0, payload: 0))
        case UInt8(ascii: "n"):
            try expectWord("null")
            tape.slots.append(JSONTape.Slot(kind: .null, count: 0, payload: 0))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            switch try parseNumber() {
            case .int(let i):
                tape.slots.append(JSONTape.Slot(kind: .int, count: 0, payload: Int(truncatingIfNeeded: i)))
            case .double(let d):
                tape.slots.append(JSONTape.Slot(kind: .double, count: 0, payload: Int(bitPattern: UInt(d.bitPattern))))
            default: throw fail("invalid number")
            }
        default: throw fail("unexpected character")
        }
    }

    private mutating func tapeObject(depth: Int, into tape: inout JSONTape.Builder) throws(Failure) {
        let at = tape.slots.count
        tape.slots.append(JSONTape.Slot(kind: .object, count: 0, payload: 0))
        index += 1
        skipWhitespace()
        var count = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            tape.slots[at].payload = tape.slots.count
            return
        }
        let firstKey = tape.keys.count
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key") }
            tape.keys.append(tape.slots.count)
            try tapeString(into: &tape)
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            try tapeValue(depth: depth + 1, into: &tape)
            count += 1
            if try closes(UInt8(ascii: "}")) { break }
        }
        guard !tape.repeatsKey(from: firstKey) else { throw fail("duplicate key") }
        tape.keys.removeSubrange(firstKey...)
        tape.slots[at].count = try count32(count)
        tape.slots[at].payload = tape.slots.count
    }

    /// A slot's count: a string of 4 GiB or more, or a container of 2³² members or more, is
    /// past what a tape holds (the caller is told it is too large, not that it is not JSON).
    private func count32(_ count: Int) throws(Failure) -> UInt32 {
        guard let count = UInt32(exactly: count) else { throw fail(JSONTape.tooLarge) }
        return count
    }

    /// A string's bytes, unescaped and checked as UTF-8, appended to the tape's text.
    private mutating func tapeString(into tape: inout JSONTape.Builder) throws(Failure) {
        index += 1
        let offset = tape.text.count
        let (end, ascii) = JSONStringScan.plainRun(bytes, from: index)
        if end < bytes.count, bytes[end] == 34 {
            let run = UnsafeBufferPointer(rebasing: bytes[index..<end])
            guard ascii || UTF8Check.isValid(run) else { throw fail("invalid UTF-8 in string") }
            tape.text.append(contentsOf: run)
            index = end + 1
        } else {
            tape.text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<end]))
            index = end
            try unescapeRest(into: &tape.text)
            let valid = tape.text.withUnsafeBufferPointer {
                UTF8Check.isValid(UnsafeBufferPointer(rebasing: $0[offset...]))
            }
            guard valid else { throw fail("invalid UTF-8 in string") }
        }
        tape.slots.append(JSONTape.Slot(kind: .string, count: try count32(tape.text.count - offset), payload: offset))
    }
}

/// Whether bytes are well-formed UTF-8 (Unicode 15, table 3-7: no overlong forms, no
/// surrogates, nothing past U+10FFFF) — what `String(validating:)` accepts, without making
/// a string.
enum UTF8Check {
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = bytes.count
        while i < n {
            // Eight ASCII bytes at a time.
            while i + 8 <= n,
                UnsafeRawPointer(bytes.baseAddress! + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                i += 8
            }
            guard i < n else { return true }
            let b0 = bytes[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            func continuation(_ at: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
                at < n && bytes[at] >= low && bytes[at] <= high
            }
            switch b0 {
            case 0xC2...0xDF:
                guard continuation(i + 1) else { return false }
                i += 2
            case 0xE0...0xEF:
                let low: UInt8 = b0 == 0xE0 ? 0xA0 : 0x80
                let high: UInt8 = b0 == 0xED ? 0x9F : 0xBF
                guard continuation(i + 1, low, high), continuation(i + 2) else { return false }
                i += 3
            case 0xF0...0xF4:
                let low: UInt8 = b0 == 0xF0 ? 0x90 : 0x80
                let high: UInt8 = b0 == 0xF4 ? 0x8F : 0xBF
                guard continuation(i + 1, low, high), continuation(i + 2), continuation(i + 3) else { return false }
                i += 4
            default: return false
            }
        }
        return true
    }
}
