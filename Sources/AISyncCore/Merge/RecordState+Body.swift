/// The visible record: every register's winning value and the visible elements in order.
extension RecordState {
    /// Reads a value that lives in an object (large values); throws when it is missing.
    public typealias Resolver = (SHA256Digest) throws(AISyncError) -> JSONValue

    func json(_ value: FieldValue?, _ resolve: Resolver) throws(AISyncError) -> JSONValue? {
        switch value {
        case .inline(let v)?: v
        case .object(let d)?: try resolve(d)
        case nil: nil
        }
    }

    func string(_ field: String, _ resolve: Resolver) throws(AISyncError) -> String? {
        try json(value(field), resolve)?.stringValue
    }

    /// The visible title without reading anything but large titles (listing).
    public func title(_ resolve: Resolver) throws(AISyncError) -> String { try string("title", resolve) ?? "" }
    /// Whether the visible value of the `favorite` field is true (false when never set).
    public var favorite: Bool { value("favorite") == .inline(.bool(true)) }

    /// When the record was made: the `created` field, else its first version's time.
    public var created: Timestamp {
        if case .inline(.string(let s))? = value("created"), let t = Timestamp(iso8601: s) { return t }
        return latestTime.timestamp
    }

    /// The record as people see it. Values in objects are read with `resolve` and checked
    /// against the field's schema (they came from outside when they were pulled).
    public func body(_ resolve: Resolver) throws(AISyncError) -> RecordBody {
        let checked: Resolver = { (d: SHA256Digest) throws(AISyncError) -> JSONValue in try resolve(d) }
        let title = try self.title(checked)
        let updated = activityTime.timestamp
        switch kind {
        case .chat:
            var messages: [(ChatBody.Message, Stamp)] = []
            for (id, entry) in visibleEntries() {
                messages.append(
                    (try ChatBody.Message(elementID: id, json: try json(entry.value, checked) ?? .null), entry.stamp))
            }
            messages.sort { a, b in
                if a.0.time != b.0.time { return a.0.time < b.0.time }
                if a.1.time != b.1.time { return a.1.time < b.1.time }
                return a.0.id < b.0.id
            }
            let list = messages.map(\.0)
            return .chat(
                ChatBody(
                    title: title, model: try string("model", checked),
                    instructions: try string("instructions", checked), messages: list.filter { $0.branch == nil },
                    alternatives: list.filter { $0.branch != nil }, favorite: favorite, created: created,
                    updated: updated))
        case .story:
            var pages: [(StoryBody.Page, Stamp)] = []
            for (id, entry) in visibleEntries() {
                pages.append((try StoryBody.Page(json: try json(entry.value, checked) ?? .null, id: id), entry.stamp))
            }
            pages.sort { a, b in
                if a.0.position != b.0.position { return a.0.position < b.0.position }
                if a.1.time != b.1.time { return a.1.time < b.1.time }
                return a.0.id < b.0.id
            }
            let prompts = (try json(value("prompts"), checked)?.arrayValue ?? []).compactMap(\.stringValue)
            return .story(
                StoryBody(
                    title: title, moral: try string("moral", checked), pages: pages.map(\.0), prompts: prompts,
                    favorite: favorite, created: created, updated: updated))
        case .image:
            guard let shaText = try string("sha256", checked), let sha = SHA256Digest(hex: shaText),
                case .int(let size)? = try json(value("size"), checked),
                let mediaType = try string("mediaType", checked)
            else {
                throw .damaged("image record has no sha256, size or media type")
            }
            let imgur = try json(value("imgur"), checked).flatMap {
                (v: JSONValue) throws(AISyncError) -> ImageBody.ImgurLocation? in
                v == .null ? nil : try ImageBody.ImgurLocation(json: v)
            }
            return .image(
                ImageBody(
                    title: title, sha256: sha, size: size, mediaType: mediaType,
                    width: try json(value("width"), checked)?.intValue,
                    height: try json(value("height"), checked)?.intValue,
                    prompt: try string("prompt", checked), model: try string("model", checked), imgur: imgur,
                    favorite: favorite, created: created, updated: updated))
        }
    }

    /// Visible elements with their winning entry.
    func visibleEntries() -> [(String, Entry)] {
        elements.compactMap { id, e in e.entries.first.map { (id, $0) } }
    }
}
