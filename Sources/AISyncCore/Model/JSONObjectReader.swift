/// Reads typed fields out of an untrusted JSON object, with errors that name the field.
///
/// Unknown keys are an error: bodies are hashed, so a field this version does not know would
/// be silently dropped on the next edit.
package struct JSONObjectReader {
    let members: JSONObject
    let context: String
    /// The keys read that the object has, each once: a short array (objects have a handful
    /// of keys), where a Set's hashing and growth were a tenth of rebuilding an index.
    private var seen: [String] = []

    package init(_ value: JSONValue, context: String) throws(AISyncError) {
        guard case .object(let m) = value else { throw .damaged("\(context) is not a JSON object") }
        members = m
        self.context = context
    }

    private func bad(_ key: String, _ expected: String) -> AISyncError {
        .damaged("\(context): field \"\(key)\" must be \(expected)")
    }

    package mutating func optionalString(_ key: String) throws(AISyncError) -> String? {
        see(key)
        guard let v = members[key], v != .null else { return nil }
        guard case .string(let s) = v else { throw bad(key, "a string") }
        return s
    }

    package mutating func string(_ key: String) throws(AISyncError) -> String {
        guard let s = try optionalString(key) else { throw bad(key, "present") }
        return s
    }

    mutating func optionalInt(_ key: String) throws(AISyncError) -> Int64? {
        see(key)
        guard let v = members[key], v != .null else { return nil }
        guard case .int(let i) = v else { throw bad(key, "an integer") }
        return i
    }

    package mutating func int(_ key: String) throws(AISyncError) -> Int64 {
        guard let i = try optionalInt(key) else { throw bad(key, "present") }
        return i
    }

    package mutating func bool(_ key: String) throws(AISyncError) -> Bool {
        see(key)
        guard case .bool(let b)? = members[key] else { throw bad(key, "true or false") }
        return b
    }

    package mutating func time(_ key: String) throws(AISyncError) -> Timestamp {
        let s = try string(key)
        guard let t = Timestamp(iso8601: s) else { throw bad(key, "a time like 2026-11-29T12:00:00.000Z") }
        return t
    }

    mutating func digest(_ key: String) throws(AISyncError) -> SHA256Digest {
        try SHA256Digest.parse(try string(key), what: "\(context): field \"\(key)\"")
    }

    mutating func optionalDigest(_ key: String) throws(AISyncError) -> SHA256Digest? {
        guard let s = try optionalString(key) else { return nil }
        return try SHA256Digest.parse(s, what: "\(context): field \"\(key)\"")
    }

    package mutating func array(_ key: String) throws(AISyncError) -> [JSONValue] {
        see(key)
        guard case .array(let a)? = members[key] else { throw bad(key, "an array") }
        return a
    }

    package mutating func optionalValue(_ key: String) -> JSONValue? {
        see(key)
        guard let v = members[key], v != .null else { return nil }
        return v
    }

    private mutating func see(_ key: String) {
        if members[key] != nil, !seen.contains(key) { seen.append(key) }
    }

    /// Fails when the object has keys that were never read.
    package func finish() throws(AISyncError) {
        guard seen.count != members.count else { return }
        if let extra = members.keys.filter({ !seen.contains($0) }).sorted().first {
            throw .damaged(
                "\(context): unknown field \"\(extra)\"", hint: "It may come from a newer version; upgrade to read it",
                remedy: .upgrade)
        }
    }
}
