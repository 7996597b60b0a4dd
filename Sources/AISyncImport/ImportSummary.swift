import AISyncCore
import AISyncStore

/// What an import did (or, with `dryRun`, would do): per record, and what was left out.
public struct ImportSummary: Sendable {
    /// One record the export held.
    public struct Record: Sendable {
        /// Its id in the store (derived from the source's id).
        public var id: RecordID
        /// Its kind.
        public var kind: RecordKind
        /// Its title as the export has it.
        public var title: String
        /// Created, extended with new messages, unchanged, or left alone because deleted here.
        public var outcome: Store.ImportOutcome
        /// What was left out of it, by reason, with counts.
        public var notes: [String: Int]
    }

    /// Where the records came from.
    public var source: Import.Source
    /// True when nothing was written.
    public var dryRun: Bool
    /// Every record of the export, in its order.
    public var records: [Record]
    /// What was left out whole, with why.
    public var skipped: [ImportBatch.Skip]
    /// Notes on the export as a whole.
    public var notes: [String]

    /// Records created.
    public var created: Int { records.filter { if case .created = $0.outcome { true } else { false } }.count }
    /// Records that existed and got new messages or pages.
    public var extended: Int { records.filter { if case .extended = $0.outcome { true } else { false } }.count }
    /// Records that already held everything.
    public var unchanged: Int { records.filter { $0.outcome == .unchanged }.count }
    /// Records deleted here, left alone.
    public var deleted: Int { records.filter { $0.outcome == .deleted }.count }
    /// Messages or pages written (or that would be), over all records.
    public var elementsAdded: Int {
        records.reduce(0) { sum, r in
            switch r.outcome {
            case .created(let n), .extended(let n): sum + n
            default: sum
            }
        }
    }

    /// The summary as one JSON document: `{source, dryRun, created, extended, unchanged,
    /// deleted, elementsAdded, records: [{id, kind, title, outcome, elements, notes}],
    /// skipped: [{source, reason}], notes}`.
    public var json: JSONValue {
        .object([
            "source": .string(source.rawValue), "dryRun": .bool(dryRun),
            "created": .int(Int64(created)), "extended": .int(Int64(extended)), "unchanged": .int(Int64(unchanged)),
            "deleted": .int(Int64(deleted)), "elementsAdded": .int(Int64(elementsAdded)),
            "records": .array(records.map(Self.json)),
            "skipped": .array(skipped.map { .object(["source": .string($0.source), "reason": .string($0.reason)]) }),
            "notes": .array(notes.map(JSONValue.string)),
        ])
    }

    private static func json(_ r: Record) -> JSONValue {
        let (outcome, elements): (String, Int) =
            switch r.outcome {
            case .created(let n): ("created", n)
            case .extended(let n): ("extended", n)
            case .unchanged: ("unchanged", 0)
            case .deleted: ("deleted", 0)
            }
        return .object([
            "id": .string(r.id.rawValue), "kind": .string(r.kind.rawValue), "title": .string(r.title),
            "outcome": .string(outcome), "elements": .int(Int64(elements)),
            "notes": .object(JSONObject(r.notes.mapValues { .int(Int64($0)) })),
        ])
    }
}
