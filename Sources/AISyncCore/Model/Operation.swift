/// One change a version makes to its record (records v2, design §3).
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

    var json: JSONValue {
        var o: [String: JSONValue]
        switch self {
        case .set(let f, _): o = ["op": .string("set"), "field": .string(f)]
        case .add(let f, let e, _): o = ["op": .string("add"), "field": .string(f), "elem": .string(e)]
        case .edit(let f, let e, _): o = ["op": .string("edit"), "field": .string(f), "elem": .string(e)]
        case .remove(let f, let e): o = ["op": .string("remove"), "field": .string(f), "elem": .string(e)]
        case .delete: o = ["op": .string("delete")]
        case .restore: o = ["op": .string("restore")]
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
        func value(_ r: inout JSONObjectReader, field: String, element: Bool) throws(AISyncError) -> FieldValue {
            let inline = r.optionalValue("value") ?? (r.members["value"] == .null ? .null : nil)
            let ref = try r.optionalDigest("ref")
            switch (inline, ref) {
            case (let v?, nil):
                try RecordSchema.validate(v, field: field, element: element, kind: kind)
                return .inline(v)
            case (nil, let d?): return .object(d)
            default: throw .damaged("operation on \"\(field)\" must have exactly one of \"value\" and \"ref\"")
            }
        }
        func element(_ r: inout JSONObjectReader) throws(AISyncError) -> String {
            let e = try r.string("elem")
            guard RecordID.isValid(e) else { throw .damaged("element id \"\(e.prefix(80))\" is not a valid id") }
            return e
        }
        switch op {
        case "delete": self = .delete
        case "restore": self = .restore
        case "set":
            let f = try r.string("field")
            guard RecordSchema.registers(kind).contains(f) else { throw .damaged("a \(kind.rawValue) has no field \"\(f.prefix(40))\"") }
            self = .set(field: f, value: try value(&r, field: f, element: false))
        case "add", "edit", "remove":
            let f = try r.string("field")
            guard RecordSchema.collection(kind) == f else { throw .damaged("a \(kind.rawValue) has no collection \"\(f.prefix(40))\"") }
            let e = try element(&r)
            switch op {
            case "add": self = .add(field: f, element: e, value: try value(&r, field: f, element: true))
            case "edit": self = .edit(field: f, element: e, value: try value(&r, field: f, element: true))
            default: self = .remove(field: f, element: e)
            }
        default:
            throw .damaged("unknown operation \"\(op.prefix(40))\"", hint: "It may come from a newer aisync; upgrade aisync")
        }
        try r.finish()
    }
}
