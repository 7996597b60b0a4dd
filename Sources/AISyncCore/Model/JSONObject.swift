/// The members of a JSON object: unique keys, each with a value.
///
/// Nearly every object aisync reads is small: a chat message, an operation, a node of an
/// export's tree. Those are kept as their members sorted by key in canonical order (UTF-8
/// byte order): a key is found by comparing a handful of short strings, not by hashing it;
/// the canonical writer writes them without sorting; the whole object is one array to free.
/// Hashing every key of every object was a fifth of an import's time. Past
/// ``sortedLimit`` members an object is kept as a dictionary instead, so a large one
/// (a vector clock of many devices, a checkpoint's map) costs a hash lookup per key and
/// never a quadratic build.
///
/// It reads like a dictionary: `o["key"]`, `o["key"] = v`, `keys`, `count`, `for (k, v) in o`,
/// a dictionary literal. Iteration order carries no meaning, as for a dictionary.
///
/// Keys are told apart by their bytes, as JSON does, in both forms: `"é"` (U+00E9) and
/// `"e\u{301}"` are two keys, though Swift's `String` calls them equal (canonical
/// equivalence). Canonical JSON never normalizes text, so neither does an object's key.
public struct JSONObject: Sendable {
    /// One member: its key and its value.
    public typealias Element = (key: String, value: JSONValue)

    /// Above this many members an object is kept as a dictionary.
    static let sortedLimit = 16

    enum Storage: Sendable {
        /// Members sorted by key (UTF-8 byte order), at most ``sortedLimit``.
        case sorted([Element])
        case table([ByteKey: JSONValue])
    }

    /// A key hashed and compared by its UTF-8 bytes.
    struct ByteKey: Hashable, Sendable {
        let string: String
        init(_ string: String) { self.string = string }
        static func == (a: ByteKey, b: ByteKey) -> Bool { JSONObject.same(a.string, b.string) }
        func hash(into hasher: inout Hasher) {
            var s = string
            s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    /// Whether two keys have the same bytes. Same bytes mean equal strings, so `String`'s
    /// `==` (a compare of two words for short ASCII keys) rules out nearly every other key
    /// first; only a match has its bytes compared.
    @inline(__always)
    static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a == b && compare(a, b) == 0
    }

    var storage: Storage

    /// An empty object.
    public init() { storage = .sorted([]) }

    /// The members of `dictionary`.
    public init(_ dictionary: [String: JSONValue]) {
        var builder = Builder()
        for (key, value) in dictionary { _ = builder.add(key, value) }
        storage = builder.object.storage
    }

    /// The members of `pairs`, whose keys must be unique (a repeated key is a programming
    /// error, as for `Dictionary(uniqueKeysWithValues:)`).
    public init<S: Sequence>(uniqueKeysWithValues pairs: S) where S.Element == (String, JSONValue) {
        var builder = Builder()
        for (key, value) in pairs { precondition(builder.add(key, value), "duplicate key \(key)") }
        storage = builder.object.storage
    }

    /// Whether `a` comes before `b` in canonical key order: by UTF-8 bytes, which is code-point order.
    @inline(__always)
    package static func precedes(_ a: String, _ b: String) -> Bool { compare(a, b) < 0 }

    /// Where `key` is in sorted members, or where it would go.
    private static func search(_ members: [Element], _ key: String) -> (index: Int, found: Bool) {
        // Linear: at most sortedLimit short keys, and equal keys are found without ordering them.
        for i in members.indices {
            let order = compare(members[i].key, key)
            if order == 0 { return (i, true) }
            if order > 0 { return (i, false) }
        }
        return (members.count, false)
    }

    /// How many members there are.
    public var count: Int {
        switch storage {
        case .sorted(let m): m.count
        case .table(let t): t.count
        }
    }

    /// Whether there are no members.
    public var isEmpty: Bool { count == 0 }

    /// The keys (in canonical order while the object is small; in no set order otherwise).
    public var keys: [String] {
        switch storage {
        case .sorted(let m): m.map(\.key)
        case .table(let t): t.keys.map(\.string)
        }
    }

    /// The values, in the order of ``keys``.
    public var values: [JSONValue] {
        switch storage {
        case .sorted(let m): m.map(\.value)
        case .table(let t): Array(t.values)
        }
    }

    /// The members as a dictionary (where keys that differ only in Unicode normalization
    /// become one, as `String` has them equal).
    public var dictionary: [String: JSONValue] {
        Dictionary(map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// The members in canonical key order (UTF-8 byte order of the keys).
    public var canonicallyOrdered: [Element] {
        switch storage {
        case .sorted(let m): m
        case .table(let t): t.map { ($0.key.string, $0.value) }.sorted { Self.precedes($0.key, $1.key) }
        }
    }

    /// The value of `key`; setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get {
            switch storage {
            case .sorted(let m):
                // By index: only the key of each member is looked at, no member copied.
                for i in m.indices where Self.same(m[i].key, key) { return m[i].value }
                return nil
            case .table(let t): return t[ByteKey(key)]
            }
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// Sets `key` to `value`; the value it had, if any.
    @discardableResult
    public mutating func updateValue(_ value: JSONValue, forKey key: String) -> JSONValue? {
        switch storage {
        case .sorted(var m):
            let (i, found) = Self.search(m, key)
            storage = .sorted([])  // `m` is now the only reference: updated in place
            if found {
                let old = m[i].value
                m[i].value = value
                storage = .sorted(m)
                return old
            }
            if m.count < Self.sortedLimit {
                m.insert((key, value), at: i)
                storage = .sorted(m)
            } else {
                var t = Dictionary(uniqueKeysWithValues: m.lazy.map { (ByteKey($0.key), $0.value) })
                t[ByteKey(key)] = value
                storage = .table(t)
            }
            return nil
        case .table(var t):
            storage = .sorted([])
            let old = t.updateValue(value, forKey: ByteKey(key))
            storage = .table(t)
            return old
        }
    }

    /// Removes `key`; the value it had, if any.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        switch storage {
        case .sorted(var m):
            let (i, found) = Self.search(m, key)
            guard found else { return nil }
            storage = .sorted([])
            let old = m.remove(at: i).value
            storage = .sorted(m)
            return old
        case .table(var t):
            storage = .sorted([])
            let old = t.removeValue(forKey: ByteKey(key))
            storage = .table(t)
            if t.count <= Self.sortedLimit { storage = .sorted(canonicallyOrdered) }
            return old
        }
    }

    /// Sets `key` only when `value` is non-nil, so optional fields are absent rather than null.
    public mutating func setIfPresent(_ key: String, _ value: JSONValue?) {
        if let value { self[key] = value }
    }

    /// The same keys, each value transformed.
    public func mapValues(_ transform: (JSONValue) throws -> JSONValue) rethrows -> JSONObject {
        switch storage {
        case .sorted(let m): JSONObject(storage: .sorted(try m.map { ($0.key, try transform($0.value)) }))
        case .table(let t): JSONObject(storage: .table(try t.mapValues(transform)))
        }
    }

    init(storage: Storage) { self.storage = storage }

    /// The members given, which are already in canonical order with unique keys (a model
    /// type writing its own fields): nothing to sort or check but that order.
    init(canonicallyOrdered members: [Element]) {
        assert(zip(members, members.dropFirst()).allSatisfy { Self.compare($0.key, $1.key) < 0 })
        storage =
            members.count > Self.sortedLimit
            ? JSONObject(uniqueKeysWithValues: members.lazy.map { ($0.key, $0.value) }).storage : .sorted(members)
    }

    /// Builds an object member by member, as a parser reads them: each key goes to its
    /// sorted place as it comes, so a repeated key is found where it is.
    struct Builder {
        private var sorted: [Element] = []
        private var table: [ByteKey: JSONValue]?

        init(capacity: Int = 8) { sorted.reserveCapacity(capacity) }

        /// Adds a member; false (and nothing added) when the key is there already.
        mutating func add(_ key: String, _ value: JSONValue) -> Bool {
            if table != nil { return table!.updateValue(value, forKey: ByteKey(key)) == nil }
            var i = sorted.count
            // From the end: keys that come in canonical order (aisync's own) stop at once.
            while i > 0 {
                let order = JSONObject.compare(sorted[i - 1].key, key)
                if order == 0 { return false }
                if order < 0 { break }
                i -= 1
            }
            if sorted.count < JSONObject.sortedLimit {
                if i == sorted.count { sorted.append((key, value)) } else { sorted.insert((key, value), at: i) }
            } else {
                var t = Dictionary(uniqueKeysWithValues: sorted.lazy.map { (ByteKey($0.key), $0.value) })
                t[ByteKey(key)] = value
                table = t
                sorted = []
            }
            return true
        }

        var object: JSONObject { JSONObject(storage: table.map(Storage.table) ?? .sorted(sorted)) }
    }

    /// The canonical order of two keys: negative, zero or positive as `a` sorts before,
    /// equal to or after `b` by UTF-8 bytes.
    static func compare(_ a: String, _ b: String) -> Int {
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                for i in 0..<Swift.min(x.count, y.count) where x[i] != y[i] { return Int(x[i]) - Int(y[i]) }
                return x.count - y.count
            }
        }
    }
}

extension JSONObject: Sequence {
    /// Goes through the members (in canonical order while the object is small).
    public struct Iterator: IteratorProtocol {
        enum Base {
            case sorted(IndexingIterator<[Element]>)
            case table(Dictionary<ByteKey, JSONValue>.Iterator)
        }
        var base: Base

        /// The next member, or nil after the last.
        public mutating func next() -> Element? {
            switch base {
            case .sorted(var i):
                defer { base = .sorted(i) }
                return i.next()
            case .table(var i):
                defer { base = .table(i) }
                return i.next().map { ($0.key.string, $0.value) }
            }
        }
    }

    /// An iterator over the members.
    public func makeIterator() -> Iterator {
        switch storage {
        case .sorted(let m): Iterator(base: .sorted(m.makeIterator()))
        case .table(let t): Iterator(base: .table(t.makeIterator()))
        }
    }

    /// The number of members.
    public var underestimatedCount: Int { count }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// The members of a literal, whose keys must be unique.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(uniqueKeysWithValues: elements)
    }
}

extension JSONObject: Hashable {
    /// Whether the two have the same keys (by their bytes), each with an equal value.
    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        if case .sorted(let x) = a.storage, case .sorted(let y) = b.storage {
            return x.count == y.count && zip(x, y).allSatisfy { Self.same($0.key, $1.key) && $0.value == $1.value }
        }
        guard a.count == b.count else { return false }
        return a.allSatisfy { b[$0.key] == $0.value }
    }

    /// Independent of how the members are kept (as `Dictionary` hashes).
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for (key, value) in self {
            var h = Hasher()
            h.combine(key)
            h.combine(value)
            combined ^= h.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

extension JSONObject: CustomStringConvertible {
    /// The object as canonical JSON.
    public var description: String { JSONValue.object(self).canonicalString }
}
