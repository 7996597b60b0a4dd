/// Local edits: each writes a body object, then one fsynced journal line (design §2, §3).
extension Store {
    /// Writes a new version of `id` that dominates every sibling in `state`.
    func commit(_ id: RecordID, kind: RecordKind, body: RecordBody?, over state: RecordState?, snapshot: inout StoreSnapshot) throws(AISyncError) -> Version {
        let digest: SHA256Digest? = if let body { try objects.put(body.canonicalBytes) } else { nil }
        let base = max(snapshot.latestTime, state?.latestTime ?? .zero)
        let version = Version(record: id, kind: kind,
                              clock: (state?.joinedClock ?? VectorClock()).incremented(for: deviceID),
                              time: base.tick(now: environment.now()), device: deviceID, body: digest)
        try append([version], to: &snapshot)
        return version
    }

    /// Appends versions to the journal (one fsynced write), then brings the snapshot, the
    /// journal anchor and, when enough lines have piled up, the index up to date.
    func append(_ versions: [Version], to snapshot: inout StoreSnapshot) throws(AISyncError) {
        try journal.append(versions)
        snapshot.apply(versions, objects: objects)
        snapshot.journalOffset = journal.size()
        snapshot.journalLines += versions.count
        cachedAnchor = IndexFile.anchor(journal: journal, offset: snapshot.journalOffset)
        if snapshot.journalLines - indexedLines >= Self.indexRewriteThreshold { try saveIndex(snapshot) }
    }

    /// Creates a record without loading the whole store: a fresh id has no history, so only
    /// the device's latest time (the journal's last line) is needed.
    func create(_ kind: RecordKind, body: (Timestamp) throws(AISyncError) -> RecordBody) throws(AISyncError) -> RecordID {
        guard let lock = try StoreLock.acquire(root: root, timeoutMilliseconds: environment.lockTimeoutMilliseconds) else {
            throw AISyncError(.permission, "the store \(root) is read-only", hint: "Check the directory's permissions; reading commands still work")
        }
        try journal.dropTornTail()
        guard let id = RecordID("\(kind.rawValue)-\(environment.makeID())") else {
            throw AISyncError(.other, "the id generator made an invalid id")
        }
        let latest = max(journal.lastVersion()?.time ?? .zero, cache?.latestTime ?? .zero)
        let time = latest.tick(now: environment.now())
        let content = try body(time.timestamp)
        let digest = try objects.put(content.canonicalBytes)
        let version = Version(record: id, kind: kind, clock: VectorClock().incremented(for: deviceID), time: time, device: deviceID, body: digest)
        try journal.append([version])
        _ = consume lock
        return id
    }

    /// Applies `change` to the winning body of a live record and commits the result.
    func edit(_ id: RecordID, _ change: (inout RecordBody, Timestamp) throws(AISyncError) -> Void) throws(AISyncError) -> Version {
        try locked(write: true) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> Version in
            let (state, winner) = try liveRecord(id, in: snapshot)
            var body = try self.body(of: winner)
            let now = max(snapshot.latestTime, state.latestTime).tick(now: environment.now()).timestamp
            try change(&body, now)
            body.updated = now
            return try commit(id, kind: winner.kind, body: body, over: state, snapshot: &snapshot)
        }
    }

    /// Titles are bounded so one record cannot bloat every listing (Schemas: maxLength 1000).
    static func checkTitle(_ title: String) throws(AISyncError) {
        guard title.unicodeScalars.count <= 1000 else {
            throw AISyncError.usage("the title is \(title.unicodeScalars.count) characters long", hint: "Use at most 1000 characters")
        }
    }

    /// Creates many records with one journal append and one fsync (bulk import, benchmarks).
    public func createMany(_ bodies: [RecordBody]) throws(AISyncError) -> [RecordID] {
        for body in bodies { try Self.checkTitle(body.title) }
        return try locked(write: true) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> [RecordID] in
            var time = snapshot.latestTime
            var versions: [Version] = []
            for body in bodies {
                guard let id = RecordID("\(body.kind.rawValue)-\(environment.makeID())") else { throw AISyncError(.other, "the id generator made an invalid id") }
                time = time.tick(now: environment.now())
                let digest = try objects.put(body.canonicalBytes)
                versions.append(Version(record: id, kind: body.kind, clock: VectorClock().incremented(for: deviceID), time: time, device: deviceID, body: digest))
            }
            try append(versions, to: &snapshot)
            return versions.map(\.record)
        }
    }

    public func createChat(title: String, model: String?) throws(AISyncError) -> RecordID {
        try Self.checkTitle(title)
        return try create(.chat) { now in .chat(ChatBody(title: title, model: model, created: now, updated: now)) }
    }

    @discardableResult
    public func appendMessage(to id: RecordID, role: ChatBody.Role, text: String) throws(AISyncError) -> Version {
        let messageID = "m-\(environment.makeID())"
        return try edit(id) { (body: inout RecordBody, now: Timestamp) throws(AISyncError) in
            guard case .chat(var chat) = body else { throw AISyncError.usage("\(id) is a \(body.kind.rawValue), not a chat", hint: "Messages can only be added to chats") }
            chat.messages.append(.init(id: messageID, role: role, text: text, time: now))
            body = .chat(chat)
        }
    }

    /// Adds an image file: its bytes are streamed into `objects/` and described by a record.
    public func addImage(fileAt path: String, title: String?, prompt: String?, model: String?) throws(AISyncError) -> RecordID {
        guard let st = Platform.stat(path) else {
            throw AISyncError(.notFound, "no such file: \(path)", hint: "Check the path of the image")
        }
        guard st.isRegular else { throw AISyncError(.usage, "\(path) is not a regular file", hint: "Give the path of an image file") }
        guard let info = ImageSniffer.sniff(fileAt: path) else {
            throw AISyncError(.damagedData, "\(path) is not an image aisync recognizes", hint: "Supported: PNG, JPEG, GIF, WebP, BMP, TIFF, HEIC, AVIF")
        }
        if let title { try Self.checkTitle(title) }
        let stored = try objects.put(fileAt: path)
        let name = title ?? String(path.split(separator: "/").last ?? "image")
        return try create(.image) { now in
            .image(ImageBody(title: name, sha256: stored.digest, size: stored.size, mediaType: info.mediaType,
                             width: info.width.map(Int64.init), height: info.height.map(Int64.init),
                             prompt: prompt, model: model, created: now, updated: now))
        }
    }

    /// Creates a story; the n-th image illustrates the n-th page.
    public func createStory(title: String, moral: String?, pages: [String], images: [RecordID]) throws(AISyncError) -> RecordID {
        try Self.checkTitle(title)
        guard !pages.isEmpty else { throw AISyncError.usage("a story needs at least one --page") }
        guard images.count <= pages.count else {
            throw AISyncError.usage("\(images.count) images for \(pages.count) pages", hint: "Give at most one --image per --page")
        }
        var illustrations: [ImageBody] = []
        if !images.isEmpty {
            illustrations = try locked(write: false) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> [ImageBody] in
                var found: [ImageBody] = []
                for imageID in images {
                    let (_, winner) = try liveRecord(imageID, in: snapshot)
                    guard case .image(let image) = try body(of: winner) else {
                        throw AISyncError.usage("\(imageID) is a \(winner.kind.rawValue), not an image", hint: "Pass image ids to --image (see `aisync list --kind image`)")
                    }
                    found.append(image)
                }
                return found
            }
        }
        let storyPages = pages.enumerated().map { n, text in
            StoryBody.Page(text: text, image: n < illustrations.count ? illustrations[n].sha256 : nil)
        }
        let prompts = illustrations.compactMap(\.prompt)
        return try create(.story) { now in
            .story(StoryBody(title: title, moral: moral, pages: storyPages, prompts: prompts, created: now, updated: now))
        }
    }

    @discardableResult
    public func rename(_ id: RecordID, to title: String) throws(AISyncError) -> Version {
        try Self.checkTitle(title)
        return try edit(id) { body, _ in body.title = title }
    }

    @discardableResult
    public func setFavorite(_ id: RecordID, _ favorite: Bool) throws(AISyncError) -> Version {
        try edit(id) { body, _ in body.favorite = favorite }
    }

    /// Deletes a record by writing a tombstone that dominates every sibling.
    @discardableResult
    public func delete(_ id: RecordID) throws(AISyncError) -> Version {
        try locked(write: true) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> Version in
            let (state, winner) = try liveRecord(id, in: snapshot)
            return try commit(id, kind: winner.kind, body: nil, over: state, snapshot: &snapshot)
        }
    }

    /// Closes a conflict by writing a version that dominates every sibling and carries the
    /// chosen sibling's content (or its deletion).
    @discardableResult
    public func resolve(_ id: RecordID, keep prefix: String) throws(AISyncError) -> Version {
        try locked(write: true) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> Version in
            guard let state = try stateOf(id, in: snapshot) else { throw AISyncError.notFound("no record \(id)", hint: "See `aisync list`") }
            let chosen = try Self.pick(prefix, among: state.siblings, record: id)
            let body: RecordBody? = chosen.isDeleted ? nil : try self.body(of: chosen)
            return try commit(id, kind: chosen.kind, body: body, over: state, snapshot: &snapshot)
        }
    }

    static func pick(_ prefix: String, among siblings: [Version], record: RecordID) throws(AISyncError) -> Version {
        let p = prefix.lowercased()
        guard p.count >= 6, p.utf8.allSatisfy(isLowerHex) else {
            throw AISyncError.usage("\"\(prefix)\" is not a version id", hint: "Give at least 6 hex characters of a version from `aisync conflicts \(record)`")
        }
        let matches = siblings.filter { $0.id.hex.hasPrefix(p) }
        guard let first = matches.first else {
            throw AISyncError.notFound("\(record) has no current version \(prefix)", hint: "See `aisync conflicts` for the versions you can keep")
        }
        guard matches.count == 1 else { throw AISyncError.usage("version prefix \(prefix) is ambiguous", hint: "Give more characters") }
        return first
    }
}
