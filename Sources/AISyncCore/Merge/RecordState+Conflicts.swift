/// Conflicts of a record state: a field with more than one distinct maximal value, an
/// element edited on one device and removed on another, an edit concurrent with a delete.
extension RecordState {
    /// One field (or element) in conflict.
    public struct FieldConflict: Hashable, Sendable {
        /// The register name (`title`, `deleted`, …) or the collection name for an element.
        public var field: String
        /// The element id when the conflict is on one element of the collection.
        public var element: String?
        /// The competing values, the visible one first.
        public var entries: [Entry]
        /// Removes of the element its surviving values had not seen.
        public var removes: [Stamp]

        /// `title`, `deleted`, or `messages/m-…` for an element.
        public var name: String { element.map { "\(field)/\($0)" } ?? field }
    }

    /// Every conflict, registers first (by name), then elements (by id).
    public var conflicts: [FieldConflict] {
        var result: [FieldConflict] = []
        for (field, entries) in registers.sorted(by: { $0.key < $1.key }) where Self.distinct(entries) {
            result.append(FieldConflict(field: field, element: nil, entries: entries, removes: []))
        }
        if let collection = RecordSchema.collection(kind) {
            for (id, e) in elements.sorted(by: { $0.key < $1.key })
            where Self.distinct(e.entries) || e.removedConcurrently {
                let removes = e.removes.filter { r in e.entries.contains { r.clock.isConcurrent(with: $0.stamp.clock) }
                }
                result.append(FieldConflict(field: collection, element: id, entries: e.entries, removes: removes))
            }
        }
        return result
    }

    /// Whether the record has any conflict; cheaper than checking ``conflicts`` for emptiness.
    public var isConflict: Bool {
        registers.values.contains(where: Self.distinct)
            || elements.values.contains { Self.distinct($0.entries) || $0.removedConcurrently }
    }

    /// More than one maximal entry, not all holding the same value.
    static func distinct(_ entries: [Entry]) -> Bool {
        guard let first = entries.first, entries.count > 1 else { return false }
        return entries.dropFirst().contains { !$0.value.sameContent(as: first.value) }
    }
}
