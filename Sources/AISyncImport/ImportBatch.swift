import AISyncCore
import AISyncStore

/// What a source parser found in an export: the records to import, what it left out, and
/// why. Nothing is written yet; `Import.run` hands the items to the store in one append.
public struct ImportBatch: Sendable {
    /// One record to import, with counts of what was left out of it (by reason).
    public struct Item: Sendable {
        /// The record, its derived id and (for images) its bytes.
        public var item: Store.ImportItem
        /// Left out or changed while reading it, by reason (`hidden by the app`, `on other
        /// branches`, `kept as raw JSON`…), with how many of each.
        public var notes: [String: Int]
    }

    /// Something in the export that was not imported at all.
    public struct Skip: Sendable, Equatable {
        /// The source's id for it (a conversation id), or its position (`#3`) when it has none.
        public var source: String
        /// Why, in a few words (`not an object`, `its mapping is not an object`).
        public var reason: String
    }

    /// The records, in the export's order.
    public var items: [Item] = []
    /// What was left out whole.
    public var skipped: [Skip] = []
    /// Notes on the export as a whole (`2 image URLs not fetched`).
    public var notes: [String] = []

    /// An empty batch.
    public init() {}

    mutating func add(
        _ id: RecordID, _ body: RecordBody, notes: [String: Int] = [:], imageBytes: [UInt8]? = nil,
        imageFile: String? = nil, activity: Timestamp? = nil
    ) {
        items.append(
            Item(
                item: Store.ImportItem(
                    id: id, body: body, imageBytes: imageBytes, imageFile: imageFile, activity: activity),
                notes: notes))
    }

    mutating func skip(_ source: String, _ reason: String) { skipped.append(Skip(source: source, reason: reason)) }
}
