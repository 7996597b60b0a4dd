/// One change a version makes to its record (records v2, docs/DESIGN.md §3.3).
///
/// Registers are `set`; collection elements (a chat's messages, a story's pages) are `add`,
/// `edit` and `remove` by element id; the record itself is `delete` / `restore`. The first
/// version of a record carries a `set` for every field and an `add` for every element.
public enum Operation: Hashable, Sendable {
    /// Sets the register `field` (`title`, `favorite`, …) to `value`.
    case set(field: String, value: FieldValue)
    /// Adds element `element` (a message or page id) with `value` to the collection `field`.
    case add(field: String, element: String, value: FieldValue)
    /// Replaces the value of element `element` of the collection `field`.
    case edit(field: String, element: String, value: FieldValue)
    /// Removes element `element` from the collection `field`; an edit it had not seen survives, in conflict.
    case remove(field: String, element: String)
    /// Deletes the record (sets `deleted` to true); every version stays, so it can be restored.
    case delete
    /// Brings a deleted record back (sets `deleted` to false), with everything it held.
    case restore

    /// The field this operation touches (`deleted` for delete/restore).
    public var field: String {
        switch self {
        case .set(let f, _), .add(let f, _, _), .edit(let f, _, _), .remove(let f, _): f
        case .delete, .restore: RecordSchema.deletedField
        }
    }

    /// The element id an `add`, `edit` or `remove` touches; nil for the other operations.
    public var element: String? {
        switch self {
        case .add(_, let e, _), .edit(_, let e, _), .remove(_, let e): e
        default: nil
        }
    }

    /// The value a `set`, `add` or `edit` writes; nil for `remove`, `delete` and `restore`.
    public var value: FieldValue? {
        switch self {
        case .set(_, let v), .add(_, _, let v), .edit(_, _, let v): v
        default: nil
        }
    }

    /// The operation's name in a journal line: `set`, `add`, `edit`, `remove`, `delete`, `restore`.
    var name: String {
        switch self {
        case .set: "set"
        case .add: "add"
        case .edit: "edit"
        case .remove: "remove"
        case .delete: "delete"
        case .restore: "restore"
        }
    }

    var json: JSONValue {
        var o: JSONObject = ["op": .string(name)]
        switch self {
        case .set(let f, _): o["field"] = .string(f)
        case .add(let f, let e, _), .edit(let f, let e, _), .remove(let f, let e):
            o["field"] = .string(f)
            o["elem"] = .string(e)
        case .delete, .restore: break
        }
        switch value {
        case .inline(let v)?: o["value"] = v
        case .object(let d)?: o["ref"] = .string(d.hex)
        case nil: break
        }
        return .object(o)
    }

    /// Parses and validates one operation of a version of `kind` (untrusted: journal lines,
    /// remote segments). Inline values are checked against the field's schema here; values
    /// in objects when they are read.
    init(json: JSONValue, kind: RecordKind) throws(AISyncError) {
        var r = try JSONObjectReader(json, context: "operation")
        let op = try r.string("op")
        // A null "field" or "elem" is refused as before, not read as absent: one line, one reading.
        func text(_ key: String) throws(AISyncError) -> String? {
            guard r.members[key] != .null else { throw .damaged("operation: field \"\(key)\" must be a string") }
            return try r.optionalString(key)
        }
        let field = try text("field")
        let element = try text("elem")
        let ref = try r.optionalDigest("ref")
        // A null "ref" reads as absent only where a ref may be (set, add, edit), as it always
        // has; on the others it is an unknown field, as it always was.
        if ref == nil, r.members["ref"] == .null, !["set", "add", "edit"].contains(op) {
            throw .damaged(
                "operation: unknown field \"ref\"", hint: "It may come from a newer version; upgrade to read it",
                remedy: .upgrade)
        }
        let value = r.optionalValue("value") ?? (r.members["value"] == .null ? .null : nil)
        try r.finish()
        try self.init(op: op, field: field, element: element, value: value, ref: ref, kind: kind)
    }

    /// An operation from its members (nil: absent; a `value` of JSON null is present), checked.
    /// The one place that decides what an operation may be, for both readers of journal lines
    /// (``init(json:kind:)`` and the canonical line reader), so they cannot disagree.
    init(op: String, field: String?, element: String?, value: JSONValue?, ref: SHA256Digest?, kind: RecordKind)
        throws(AISyncError)
    {
        func absent(_ name: String, _ present: Bool) throws(AISyncError) {
            if present {
                throw .damaged(
                    "operation: unknown field \"\(name)\"",
                    hint: "It may come from a newer version; upgrade to read it", remedy: .upgrade)
            }
        }
        func present(_ name: String, _ value: String?) throws(AISyncError) -> String {
            guard let value else { throw .damaged("operation: field \"\(name)\" must be present") }
            return value
        }
        func fieldValue(_ f: String, element: Bool) throws(AISyncError) -> FieldValue {
            switch (value, ref) {
            case (let v?, nil):
                try RecordSchema.validate(v, field: f, element: element, kind: kind)
                return .inline(v)
            case (nil, let d?): return .object(d)
            default: throw .damaged("operation on \"\(f)\" must have exactly one of \"value\" and \"ref\"")
            }
        }
        switch op {
        case "delete", "restore":
            try absent("elem", element != nil)
            try absent("field", field != nil)
            try absent("ref", ref != nil)
            try absent("value", value != nil)
            self = op == "delete" ? .delete : .restore
        case "set":
            let f = try present("field", field)
            guard RecordSchema.registers(kind).contains(f) else {
                throw .damaged("a \(kind.rawValue) has no field \"\(f.prefix(40))\"")
            }
            try absent("elem", element != nil)
            self = .set(field: f, value: try fieldValue(f, element: false))
        case "add", "edit", "remove":
            let f = try present("field", field)
            guard RecordSchema.collection(kind) == f else {
                throw .damaged("a \(kind.rawValue) has no collection \"\(f.prefix(40))\"")
            }
            let e = try present("elem", element)
            guard RecordID.isValid(e) else { throw .damaged("element id \"\(e.prefix(80))\" is not a valid id") }
            switch op {
            case "add": self = .add(field: f, element: e, value: try fieldValue(f, element: true))
            case "edit": self = .edit(field: f, element: e, value: try fieldValue(f, element: true))
            default:
                try absent("ref", ref != nil)
                try absent("value", value != nil)
                self = .remove(field: f, element: e)
            }
        default:
            throw .damaged(
                "unknown operation \"\(op.prefix(40))\"", hint: "It may come from a newer version; upgrade to read it",
                remedy: .upgrade)
        }
    }
}
