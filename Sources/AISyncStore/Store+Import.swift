import AISyncCore
import AISyncFiles

/// Writing records that come from another app's export, under ids the caller derives from the
/// source's own ids, so that importing the same export twice changes nothing.
extension Store {
    /// One record to import: its caller-chosen id, its whole body as the source has it, and,
    /// for an image, the bytes its `sha256` names.
    public struct ImportItem: Sendable {
        /// The id derived from the source's id (e.g. `chat-` + a hash prefix of the conversation id).
        public var id: RecordID
        /// Every field and element the source has; element ids must be derived from the source too.
        public var body: RecordBody
        /// An image record's bytes (written to `objects/` when the record is created); nil otherwise.
        public var imageBytes: [UInt8]?
        /// An image record's file, streamed into `objects/` when the record is created (its
        /// sha256 must still be the body's, else the import fails); nil otherwise.
        public var imageFile: String?
        /// When the source app last changed it (a conversation's `update_time`, its last
        /// message); written as the record's `activity`, so its "updated" time and place in
        /// lists are the source's, not the moment of import. Nil when the source has none.
        public var activity: Timestamp?

        /// An item to import; `imageBytes` or `imageFile` only for image bodies.
        public init(
            id: RecordID, body: RecordBody, imageBytes: [UInt8]? = nil, imageFile: String? = nil,
            activity: Timestamp? = nil
        ) {
            self.id = id
            self.body = body
            self.imageBytes = imageBytes
            self.imageFile = imageFile
            self.activity = activity
        }
    }

    /// What importing one item did (or, in a dry run, would do).
    public enum ImportOutcome: Sendable, Equatable {
        /// The record was new: created with this many messages or pages.
        case created(elements: Int)
        /// The record existed: this many messages or pages it never had were added (one
        /// `add` each; fields the user may have changed, like the title, are left alone), or
        /// story pages without a picture got the one the import brings (one `edit` each).
        case extended(elements: Int)
        /// The record already held every message or page: nothing was written.
        case unchanged
        /// The record exists but is deleted here: left alone (restore it to import into it).
        case deleted
    }

    /// Imports many records with one journal append: new ids are created whole, existing ones
    /// get only the elements (messages, pages) whose ids they have never held — one removed
    /// here stays removed. With `dryRun` nothing is written. Titles over 1000 characters
    /// are a usage error; an id given twice gets its first body only.
    /// `deferIndex` leaves the index for ``finishImport()``: a big import calls this once per
    /// batch, and rewriting the whole index after each would cost O(records²).
    public func importRecords(_ items: [ImportItem], dryRun: Bool = false, deferIndex: Bool = false) throws(AISyncError)
        -> [ImportOutcome]
    {
        for item in items { try Self.checkTitle(item.body.title) }
        return try locked(write: !dryRun, saveIndex: !deferIndex) {
            (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> [ImportOutcome] in
            var time = snapshot.latestTime
            var versions: [Version] = []
            var lines: [[UInt8]] = []
            var outcomes: [ImportOutcome] = []
            var seen: Set<RecordID> = []
            for item in items {
                guard seen.insert(item.id).inserted else {
                    outcomes.append(.unchanged)
                    continue
                }
                let state = try stateOf(item.id, in: snapshot)
                let (outcome, found) = Self.importChange(item.body, over: state)
                outcomes.append(outcome)
                guard var change = found, !dryRun else { continue }
                if state == nil { try putImage(item) }
                for (_, bytes) in change.objects { _ = try objects.put(bytes) }
                time = max(time, state?.latestTime ?? .zero).tick(now: environment.now())
                if let activity = item.activity, activity.milliseconds < time.wall {
                    change.set(RecordSchema.activityField, .string(activity.iso8601))
                }
                let clock = (state?.clock ?? VectorClock()).incremented(for: deviceID)
                let (version, line) = Version.encoded(
                    record: item.id, kind: item.body.kind, clock: clock, time: time, device: deviceID, ops: change.ops)
                versions.append(version)
                lines.append(line)
            }
            if !versions.isEmpty { try append(versions, lines: lines, saveIndex: !deferIndex, to: &snapshot) }
            // A big import comes in many calls: folded states are rebuilt from the journal on
            // demand, so memory stays one batch, not the whole export.
            snapshot.dropDecodedStates()
            return outcomes
        }
    }

    /// Saves the index after imports made with `deferIndex` (a no-op when it is current), so
    /// the next command need not read the imported lines again.
    public func finishImport() throws(AISyncError) { try flushIndex() }

    /// Saves the index when it is behind the journal: the end of a bulk write (an import, a
    /// long pull) that deferred it.
    package func flushIndex() throws(AISyncError) {
        try locked(write: true) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) in
            if snapshot.journalLines != indexedLines { try saveIndex(&snapshot) }
        }
    }

    /// Stores a new image item's bytes or file; a file whose content changed since it was
    /// hashed is an error (the record would name bytes the store does not hold).
    func putImage(_ item: ImportItem) throws(AISyncError) {
        if let bytes = item.imageBytes { _ = try objects.put(bytes) }
        guard let path = item.imageFile, case .image(let image) = item.body else { return }
        let stored = try objects.put(fileAt: path)
        guard stored.digest == image.sha256 else {
            throw AISyncError(.damagedData, "\(path) changed while it was being imported", hint: "Run the import again")
        }
    }

    /// Whether an imported story page `value` is the page `current` holds plus a picture: the
    /// same text and position, where the page here has none and no other change (an edit, a
    /// conflict, a removal). Importing a story again with its pictures then attaches them.
    static func addsPicture(_ value: FieldValue, to current: RecordState.Element) -> Bool {
        guard case .inline(let new) = value, new["image"] != nil, current.entries.count == 1,
            case .inline(let old) = current.entries[0].value, old["image"] == nil || old["image"] == .null
        else { return false }
        return old["text"] == new["text"] && old["n"] == new["n"]
    }

    /// The operations importing `body` needs over the record's current state, if any: adds
    /// of the elements it never held, and a story page's picture when the page here has none.
    static func importChange(_ body: RecordBody, over state: RecordState?) -> (ImportOutcome, RecordBody.OperationList?)
    {
        let all = body.creationOperations()
        guard let state else {
            return (.created(elements: all.ops.filter { $0.element != nil }.count), all)
        }
        guard !state.isDeleted else { return (.deleted, nil) }
        guard state.kind == body.kind else { return (.unchanged, nil) }
        var list = RecordBody.OperationList()
        list.ops = all.ops.compactMap { op in
            // A field this record never had (custom instructions, when an older aisync made it)
            // is set: nobody here can have changed what was never there.
            if case .set(let field, _) = op { return state.registers[field] == nil ? op : nil }
            guard case .add(let field, let element, let value) = op else { return nil }
            guard let current = state.elements[element] else { return op }
            return Self.addsPicture(value, to: current) ? .edit(field: field, element: element, value: value) : nil
        }
        guard !list.ops.isEmpty else { return (.unchanged, nil) }
        for op in list.ops {
            if let digest = op.value?.objectDigest, let bytes = all.objects[digest] { list.objects[digest] = bytes }
        }
        return (.extended(elements: list.ops.filter { $0.element != nil }.count), list)
    }
}
