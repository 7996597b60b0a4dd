/// A value an operation carries: small ones inline, large ones as an object named by sha256.
///
/// Records v2 (docs/DESIGN.md §3.3): a 10 MB message must not sit in every journal read or in the
/// index, so values whose canonical JSON is over `inlineLimit` bytes go to `objects/` and the
/// operation names them. The same value always gets the same form, so two devices that write
/// it agree on its bytes (and conflicts compare like with like).
public enum FieldValue: Hashable, Sendable {
    /// A value carried in the journal line itself: up to ``inlineLimit`` bytes of canonical
    /// JSON (an aisync 1 body may hold larger ones inline).
    case inline(JSONValue)
    /// A larger value, stored as canonical JSON in `objects/` under this sha256.
    case object(SHA256Digest)

    /// Values up to this many bytes of canonical JSON stay in the journal line.
    public static let inlineLimit = 4096

    /// The form `value` takes, and its canonical bytes when they go to an object.
    static func make(_ value: JSONValue) -> (value: FieldValue, objectBytes: [UInt8]?) {
        // Most values are far below the limit even if every byte were escaped: no count needed.
        guard value.canonicalLengthBound(upTo: inlineLimit) > inlineLimit,
            value.canonicalLength(upTo: inlineLimit) > inlineLimit
        else { return (.inline(value), nil) }
        let bytes = value.canonicalBytes
        return (.object(SHA256.hash(bytes)), bytes)
    }

    /// Whether two values hold the same JSON, whatever their form (an aisync 1 body keeps
    /// large values inline where a v2 version names an object).
    func sameContent(as other: FieldValue) -> Bool {
        switch (self, other) {
        case (.inline(let a), .inline(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        case (.inline(let a), .object(let d)), (.object(let d), .inline(let a)): SHA256.hash(a.canonicalBytes) == d
        }
    }

    package var objectDigest: SHA256Digest? {
        if case .object(let d) = self { return d }
        return nil
    }
}
