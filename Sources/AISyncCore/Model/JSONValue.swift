/// A JSON document as a value, so that aisync controls byte-exact encoding.
///
/// Foundation's encoders differ between platforms in key order and escaping; canonical JSON
/// (docs/DESIGN.md §3.2) must give the same bytes, and so the same sha256, on every machine.
public enum JSONValue: Hashable, Sendable {
    /// JSON `null`.
    case null
    /// JSON `true` or `false`.
    case bool(Bool)
    /// A number without fraction or exponent that fits in 64 bits; every number aisync writes is one.
    case int(Int64)
    /// Any other number (only from foreign input); a non-finite value is written as `null`.
    case double(Double)
    /// A JSON string.
    case string(String)
    /// A JSON array, in order.
    case array([JSONValue])
    /// A JSON object; keys are unique and written sorted in canonical form, so order carries no meaning.
    case object(JSONObject)

    /// The member named `key` of an object; nil when it is absent or this is not an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The text of a ``string(_:)``; nil for any other value.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number of an ``int(_:)``; nil for any other value (a ``double(_:)`` included).
    public var intValue: Int64? {
        if case .int(let i) = self { return i }
        return nil
    }

    /// The value of a ``bool(_:)``; nil for any other value.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The members of an ``object(_:)``; nil for any other value.
    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The elements of an ``array(_:)``; nil for any other value.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
}
