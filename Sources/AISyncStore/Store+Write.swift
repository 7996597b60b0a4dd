import AISyncCore
import AISyncFiles

/// Local edits: each writes the objects its large values need, then one fsynced journal line
/// carrying its operations (docs/DESIGN.md §4.2, §3.3). Adding a message costs O(that message).
extension Store {
    /// Writes a new version of `id` carrying `change`, whose clock follows every version of
    /// the record (so it closes conflicts on the fields it sets).
    func commit(
        _ id: RecordID, kind: RecordKind, _ change: RecordBody.OperationList, over state: RecordState?,
        snapshot: inout StoreSnapshot
    ) throws(AISyncError) -> Version {
        for (_, bytes) in change.objects { _ = try objects.put(bytes) }
        let base = max(snapshot.latestTime, state?.latestTime ?? .zero)
        let version = Version(
            record: id, kind: kind, clock: (state?.clock ?? VectorClock()).incremented(for: deviceID),
            time: base.tick(now: environment.now()), device: deviceID, ops: change.ops)
        try append([version], to: &snapshot)
        return version
    }

    /// Appends versions to the journal (one fsynced write), then brings the snapshot, the
    /// journal anchor and, when enough lines have piled up, the index up to date.
    /// `lines` are the versions' journal lines when the caller already encoded them
    /// (``Version/encoded(record:kind:clock:time:device:ops:)``); `saveIndex: false` leaves
    /// the index for the caller to save once at the end of a bulk write; `durable: false`
    /// leaves the journal's fsync to the caller (``Journal/sync()``).
    func append(
        _ versions: [Version], lines: [[UInt8]]? = nil, saveIndex: Bool = true, durable: Bool = true,
        to snapshot: inout StoreSnapshot
    ) throws(AISyncError) {
        let refs = try journal.append(versions, lines: lines, durable: durable)
        do {
            try snapshot.apply(versions, refs: refs, reader: reader)
            snapshot.journalOffset = journal.size()
            snapshot.journalLines += versions.count
        } catch  where IndexBase.isDamage(error) {
            // The lines are written: the snapshot is rebuilt from the journal, them included.
            dropIndex()
            indexedLines = -1
            snapshot = StoreSnapshot()
            try catchUp(&snapshot, canWrite: true)
        }
        cachedAnchor = IndexFile.anchor(journal: journal, offset: snapshot.journalOffset)
        if saveIndex, snapshot.journalLines - indexedLines >= Self.indexRewriteThreshold {
            try self.saveIndex(&snapshot)
        } else {
            // A bulk write (a pull, an import) lets the records changed in memory grow with the
            // index, as a rebuild does: each write copies the whole index (docs/PERFORMANCE.md 3.14).
            try saveIndexIfLarge(&snapshot, growingUpTo: saveIndex ? nil : Self.bulkOverlayCap)
        }
        announce(Set(versions.map(\.record)))
    }

    /// Creates a record without loading the whole store: a fresh id has no history, so only
    /// the device's latest time (the journal's last line) is needed.
    func create(_ kind: RecordKind, body: (Timestamp) throws(AISyncError) -> RecordBody) throws(AISyncError) -> RecordID
    {
        guard let lock = try StoreLock.acquire(root: root, timeoutMilliseconds: environment.lockTimeoutMilliseconds)
        else {
            throw AISyncError(
                .permission, "the store \(root) is read-only",
                hint: "Check the directory's permissions; reading commands still work")
        }
        try journal.dropTornTail()
        let id = try newRecordID(kind)
        let latest = max(journal.lastVersion()?.time ?? .zero, cache?.latestTime ?? .zero)
        let time = latest.tick(now: environment.now())
        let change = try body(time.timestamp).creationOperations()
        for (_, bytes) in change.objects { _ = try objects.put(bytes) }
        let version = Version(
            record: id, kind: kind, clock: VectorClock().incremented(for: deviceID), time: time, device: deviceID,
            ops: change.ops)
        try journal.append([version])
        _ = consume lock
        announce([id])
        return id
    }

    func newRecordID(_ kind: RecordKind) throws(AISyncError) -> RecordID {
        guard let id = RecordID("\(kind.rawValue)-\(environment.makeID())") else {
            throw AISyncError(.other, "the id generator made an invalid id")
        }
        return id
    }

    /// Writes the operations `change` makes to a live record's state. Its second argument
    /// reads the visible body, only when the change needs it (adding a message does not).
    @discardableResult
    package func edit(
        _ id: RecordID,
        _ change: (RecordState, () throws(AISyncError) -> RecordBody, Timestamp) throws(AISyncError) ->
            RecordBody.OperationList
    ) throws(AISyncError) -> Version {
        try locked(write: true) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> Version in
            let state = try liveState(id, in: snapshot)
            let body = { () throws(AISyncError) -> RecordBody in try self.visibleBody(state) }
            let now = max(snapshot.latestTime, state.latestTime).tick(now: environment.now()).timestamp
            let ops = try change(state, body, now)
            guard !ops.ops.isEmpty else { throw AISyncError.usage("nothing to change") }
            return try commit(id, kind: state.kind, ops, over: state, snapshot: &snapshot)
        }
    }

    /// Titles are bounded so one record cannot bloat every listing (Schemas: maxLength 1000).
    static func checkTitle(_ title: String) throws(AISyncError) {
        guard title.unicodeScalars.count <= 1000 else {
            throw AISyncError.usage(
                "the title is \(title.unicodeScalars.count) characters long", hint: "Use at most 1000 characters")
        }
    }

    /// A title or message typed by a person: blank ones are refused, since they would show as
    /// empty rows everywhere the record syncs (imports keep what the export had).
    static func checkNotBlank(_ text: String, _ what: String) throws(AISyncError) {
        guard text.unicodeScalars.contains(where: isVisible) else {
            throw AISyncError.usage(
                "the \(what) is empty or shows nothing", hint: "Give a \(what) with at least one visible character")
        }
    }

    /// An optional text (a model, a prompt, a moral) is left out or shows something.
    static func checkNotBlank(_ text: String?, _ what: String) throws(AISyncError) {
        if let text { try checkNotBlank(text, what) }
    }

    /// A character that puts ink on the screen: not a space, a control character, or an
    /// invisible format character (zero-width space, joiners, direction marks).
    static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate: false
        default: !scalar.properties.isWhitespace && !scalar.properties.isDefaultIgnorableCodePoint
        }
    }

    /// Creates many records with one journal append and one fsync (bulk import, benchmarks).
    public func createMany(_ bodies: [RecordBody]) throws(AISyncError) -> [RecordID] {
        for body in bodies { try Self.checkTitle(body.title) }
        return try locked(write: true) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> [RecordID] in
            var time = snapshot.latestTime
            var versions: [Version] = []
            for body in bodies {
                let id = try newRecordID(body.kind)
                time = time.tick(now: environment.now())
                let change = body.creationOperations()
                for (_, bytes) in change.objects { _ = try objects.put(bytes) }
                versions.append(
                    Version(
                        record: id, kind: body.kind, clock: VectorClock().incremented(for: deviceID), time: time,
                        device: deviceID, ops: change.ops))
            }
            try append(versions, to: &snapshot)
            // The new records' states are not kept (the index has their summaries): a
            // million made in batches would hold them all (docs/PERFORMANCE.md).
            snapshot.dropDecodedStates()
            return versions.map(\.record)
        }
    }

    /// Renames many records with one journal append and one fsync (benchmarks of long
    /// histories: `debug-generate --renames`). Deleted and missing records are skipped.
    package func renameMany(_ titles: [(RecordID, String)]) throws(AISyncError) {
        for (_, title) in titles { try Self.checkTitle(title) }
        try locked(write: true) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) in
            var time = snapshot.latestTime
            var versions: [Version] = []
            for (id, title) in titles {
                guard let state = try stateOf(id, in: snapshot), !state.isDeleted else { continue }
                time = max(time, state.latestTime).tick(now: environment.now())
                versions.append(
                    Version(
                        record: id, kind: state.kind, clock: state.clock.incremented(for: deviceID), time: time,
                        device: deviceID, ops: [.set(field: "title", value: .inline(.string(title)))]))
            }
            if !versions.isEmpty { try append(versions, to: &snapshot) }
            snapshot.dropDecodedStates()
        }
    }

    /// Creates an empty chat and returns its new id. `title` may be at most 1000 characters;
    /// `model` names the AI model (e.g. `gpt-4o`), nil when unknown.
    public func createChat(title: String, model: String?) throws(AISyncError) -> RecordID {
        try Self.checkTitle(title)
        try Self.checkNotBlank(title, "title")
        try Self.checkNotBlank(model, "model")
        return try create(.chat) { now in .chat(ChatBody(title: title, model: model, created: now, updated: now)) }
    }

    /// Adds a message: one `add` operation carrying just that message.
    @discardableResult
    public func appendMessage(to id: RecordID, role: ChatBody.Role, text: String) throws(AISyncError) -> Version {
        try Self.checkNotBlank(text, "message")
        let messageID = "m-\(environment.makeID())"
        return try edit(id) { (state: RecordState, _, now: Timestamp) throws(AISyncError) -> RecordBody.OperationList in
            guard state.kind == .chat else {
                throw AISyncError.usage(
                    "\(id) is \(state.kind.withArticle), not a chat", hint: "Messages can only be added to chats")
            }
            var list = RecordBody.OperationList()
            list.add(
                "messages", messageID, ChatBody.Message(id: messageID, role: role, text: text, time: now).elementJSON)
            return list
        }
    }

    /// Changes a message's text (its role and time stay). A concurrent remove of it on another
    /// device is a conflict on that message, not a loss.
    @discardableResult
    public func editMessage(_ id: RecordID, message prefix: String, text: String) throws(AISyncError) -> Version {
        try Self.checkNotBlank(text, "message")
        return try edit(id) {
            (_, body: () throws(AISyncError) -> RecordBody, _) throws(AISyncError) -> RecordBody.OperationList in
            let message = try Self.message(prefix, in: body(), record: id)
            var list = RecordBody.OperationList()
            list.edit(
                "messages", message.id,
                ChatBody.Message(id: message.id, role: message.role, text: text, time: message.time).elementJSON)
            return list
        }
    }

    /// Removes a message (observed-remove: an edit made elsewhere that this device had not
    /// seen keeps the message, in conflict).
    @discardableResult
    public func removeMessage(_ id: RecordID, message prefix: String) throws(AISyncError) -> Version {
        try edit(id) {
            (_, body: () throws(AISyncError) -> RecordBody, _) throws(AISyncError) -> RecordBody.OperationList in
            let message = try Self.message(prefix, in: body(), record: id)
            var list = RecordBody.OperationList()
            list.ops.append(.remove(field: "messages", element: message.id))
            return list
        }
    }

    /// A visible message by id or unique id prefix.
    static func message(_ prefix: String, in body: RecordBody, record: RecordID) throws(AISyncError) -> ChatBody.Message
    {
        guard case .chat(let chat) = body else {
            throw AISyncError.usage(
                "\(record) is \(body.kind.withArticle), not a chat", hint: "Messages belong to chats")
        }
        if let exact = chat.messages.first(where: { $0.id == prefix }) { return exact }
        let matches = chat.messages.filter { $0.id.hasPrefix(prefix) || $0.id.hasPrefix("m-" + prefix) }
        guard let first = matches.first, !prefix.isEmpty else {
            throw AISyncError(
                .notFound, "\(record) has no message \(prefix)",
                hint:
                    "Message ids start with m- and are shown with the record's messages (adding a message returns the version, not the message)",
                remedy: .showMessages(record))
        }
        guard matches.count == 1 else {
            throw AISyncError.usage("message id \(prefix) is ambiguous", hint: "Give more characters")
        }
        return first
    }

    /// Adds an image from bytes in memory (a DALL·E answer, a photo picker); like
    /// `addImage(fileAt:)`, the bytes must be a whole image of a known type.
    public func addImage(data: [UInt8], title: String, prompt: String?, model: String?) throws(AISyncError) -> RecordID
    {
        guard let info = ImageSniffer.sniff(data) else {
            throw AISyncError(
                .damagedData, "the data is not an image this version recognizes",
                hint: "Supported: PNG, JPEG, GIF, WebP, BMP, TIFF, HEIC, AVIF")
        }
        try Self.checkTitle(title)
        try Self.checkNotBlank(title, "title")
        try Self.checkNotBlank(prompt, "prompt")
        try Self.checkNotBlank(model, "model")
        let digest = try objects.put(data)
        return try create(.image) { now in
            .image(
                ImageBody(
                    title: title, sha256: digest, size: Int64(data.count), mediaType: info.mediaType,
                    width: info.width.map(Int64.init), height: info.height.map(Int64.init),
                    prompt: prompt, model: model, created: now, updated: now))
        }
    }

    /// Adds an image file: its bytes are streamed into `objects/` and described by a record.
    public func addImage(fileAt path: String, title: String?, prompt: String?, model: String?) throws(AISyncError)
        -> RecordID
    {
        if let title { try Self.checkTitle(title) }
        try Self.checkNotBlank(title, "title")
        try Self.checkNotBlank(prompt, "prompt")
        try Self.checkNotBlank(model, "model")
        guard let st = Platform.stat(path) else {
            if Platform.lastErrorIsPermission {
                throw AISyncError(
                    .permission, "cannot read \(path): a folder on its path may not be opened",
                    hint: "Check the permissions of its folders")
            }
            throw AISyncError(.notFound, "no such file: \(path)", hint: "Check the path of the image")
        }
        guard st.isRegular else {
            throw AISyncError(.usage, "\(path) is not a regular file", hint: "Give the path of an image file")
        }
        guard Platform.access(path, writable: false) else {
            throw AISyncError(
                .permission, "cannot read \(path): permission denied",
                hint: "Check the file's permissions (it must be readable by you)")
        }
        guard let info = ImageSniffer.sniff(fileAt: path) else {
            throw AISyncError(
                .damagedData, "\(path) is not an image this version recognizes",
                hint: "Supported: PNG, JPEG, GIF, WebP, BMP, TIFF, HEIC, AVIF")
        }
        let kind = info.mediaType.split(separator: "/").last.map { $0.uppercased() } ?? "image"
        if let problem = ImageSniffer.incompleteness(
            mediaType: info.mediaType, size: st.size,
            read: { offset, count in
                (try? FileIO.readRange(path, from: offset, count: count)) ?? []
            })
        {
            throw AISyncError(
                .damagedData, "\(path) is not a whole \(kind): \(problem)", hint: "Save or download the picture again")
        }
        let stored = try objects.put(fileAt: path)
        let name = title ?? String(path.split(separator: "/").last ?? "image")
        return try create(.image) { now in
            .image(
                ImageBody(
                    title: name, sha256: stored.digest, size: stored.size, mediaType: info.mediaType,
                    width: info.width.map(Int64.init), height: info.height.map(Int64.init),
                    prompt: prompt, model: model, created: now, updated: now))
        }
    }

    /// Creates a story; the n-th image illustrates the n-th page.
    public func createStory(title: String, moral: String?, pages: [String], images: [RecordID]) throws(AISyncError)
        -> RecordID
    {
        try Self.checkTitle(title)
        try Self.checkNotBlank(title, "title")
        guard !pages.isEmpty else { throw AISyncError.usage("a story needs at least one page") }
        try Self.checkNotBlank(moral, "moral")
        for (n, page) in pages.enumerated() { try Self.checkNotBlank(page, "text of page \(n + 1)") }
        guard images.count <= pages.count else {
            throw AISyncError.usage(
                "\(images.count) images for \(pages.count) pages", hint: "Give at most one image per page")
        }
        var illustrations: [ImageBody] = []
        if !images.isEmpty {
            illustrations = try locked(write: false) {
                (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> [ImageBody] in
                var found: [ImageBody] = []
                for imageID in images {
                    let state = try liveState(imageID, in: snapshot)
                    guard case .image(let image) = try visibleBody(state) else {
                        throw AISyncError(
                            .usage, "\(imageID) is \(state.kind.withArticle), not an image",
                            hint: "Give the ids of image records (see the list of images)", remedy: .listImages)
                    }
                    found.append(image)
                }
                return found
            }
        }
        let storyPages = pages.enumerated().map { n, text in
            StoryBody.Page(
                id: "page-\(environment.makeID())", position: Int64(n + 1), text: text,
                image: n < illustrations.count ? illustrations[n].sha256 : nil)
        }
        let prompts = illustrations.compactMap(\.prompt)
        return try create(.story) { now in
            .story(
                StoryBody(title: title, moral: moral, pages: storyPages, prompts: prompts, created: now, updated: now))
        }
    }

    /// Sets the record's title (at most 1000 characters, else a usage error) and returns the
    /// new version. Throws not-found for a missing or deleted record.
    @discardableResult
    public func rename(_ id: RecordID, to title: String) throws(AISyncError) -> Version {
        try Self.checkTitle(title)
        try Self.checkNotBlank(title, "title")
        return try edit(id) { _, _, _ in
            var list = RecordBody.OperationList()
            list.set("title", .string(title))
            return list
        }
    }

    /// Marks (`true`) or unmarks (`false`) the record as a favorite and returns the new
    /// version. Throws not-found for a missing or deleted record.
    @discardableResult
    public func setFavorite(_ id: RecordID, _ favorite: Bool) throws(AISyncError) -> Version {
        try edit(id) { _, _, _ in
            var list = RecordBody.OperationList()
            list.set("favorite", .bool(favorite))
            return list
        }
    }

    /// Deletes a record: a `delete` version that follows every other, so deletes sync too.
    @discardableResult
    public func delete(_ id: RecordID) throws(AISyncError) -> Version {
        try locked(write: true) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> Version in
            let state = try liveState(id, in: snapshot)
            return try commit(
                id, kind: state.kind, RecordBody.OperationList(ops: [.delete]), over: state, snapshot: &snapshot)
        }
    }

    /// Brings a deleted record back, with everything it held.
    @discardableResult
    public func restore(_ id: RecordID) throws(AISyncError) -> Version {
        try locked(write: true) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> Version in
            guard let state = try stateOf(id, in: snapshot) else { throw AISyncError.noRecord(id) }
            guard state.isDeleted else { throw AISyncError.usage("\(id) is not deleted", hint: "Nothing to restore") }
            return try commit(
                id, kind: state.kind, RecordBody.OperationList(ops: [.restore]), over: state, snapshot: &snapshot)
        }
    }
}
