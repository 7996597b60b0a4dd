import AISyncCore
import AISyncStore

/// Bringing history in from other apps' exports (ChatGPT, Claude, storybook apps, DALL·E):
/// each source is parsed into records with ids derived from the source's own ids, so importing
/// the same export twice adds nothing and a newer export adds only what is new.
public enum Import {
    /// The apps aisync imports from; the raw value is the CLI's `SOURCE` word.
    public enum Source: String, Sendable, CaseIterable {
        /// ChatGPT's data export: `conversations.json`, sharded `conversations-NNN.json`, or the unzipped folder.
        case chatgpt
        /// Claude's data export: its `conversations.json`, or the unzipped folder.
        case claude
        /// A storybook app's story JSON (`{title, moral, story: [sentences], imagePrompts}`).
        case storybook
        /// An OpenAI Images API response (`{created, data: [{b64_json | url, revised_prompt}]}`).
        case dalle
    }

    /// How to import.
    public struct Options: Sendable {
        /// Work out and report everything, but write nothing.
        public var dryRun: Bool
        /// Keep the model's reasoning (ChatGPT's `thoughts`, Claude's `thinking`) with the
        /// answer it led to (``ChatBody/Message/reasoning``); otherwise it is left out and counted.
        public var withReasoning: Bool
        /// The prompt of a DALL·E response (the response itself holds only `revised_prompt`).
        public var prompt: String?
        /// The image model of a DALL·E response, e.g. `dall-e-3`.
        public var model: String?
        /// Called after each batch of a big JSON export is written (from the importing task).
        public var progress: (@Sendable (ImportProgress) -> Void)?
        /// Fetches a DALL·E response's picture `url` (they expire an hour after the response);
        /// nil leaves URLs alone, noted in the summary. A failed fetch is noted, not fatal.
        public var fetch: (@Sendable (String) async throws(AISyncError) -> [UInt8])?

        /// Options for one import; `prompt`, `model` and `fetch` matter only for `dalle`.
        public init(
            dryRun: Bool = false, withReasoning: Bool = false, prompt: String? = nil, model: String? = nil,
            progress: (@Sendable (ImportProgress) -> Void)? = nil,
            fetch: (@Sendable (String) async throws(AISyncError) -> [UInt8])? = nil
        ) {
            self.dryRun = dryRun
            self.withReasoning = withReasoning
            self.prompt = prompt
            self.model = model
            self.progress = progress
            self.fetch = fetch
        }
    }

    /// Imports the export at `path` (its zip, the unzipped folder, or a JSON file) into
    /// `store`. A JSON list is read and written in slices of about 4 MB (each one journal
    /// append), so memory stays small; anything else is read whole and written in one append.
    /// `source` nil detects it from the document's shape.
    /// Throws damaged-data for input that is not such an export, or a zip with an entry named
    /// absolute or with `..` (nothing is written then), not-found for a missing path.
    public static func run(_ source: Source?, path: String, into store: Store, options: Options = Options())
        async throws(AISyncError) -> ImportSummary
    {
        if let streamed = try await runStreaming(source, path: path, into: store, options: options) { return streamed }
        let now = Timestamp(milliseconds: store.environment.now())
        let fetched = try await fetchPictures(source, path: path, options: options)
        let (found, batch) = try parse(source, path: path, options: options, now: now, fetched: fetched)
        let outcomes = try await store.importRecords(batch.items.map(\.item), dryRun: options.dryRun)
        let records = zip(batch.items, outcomes).map { item, outcome in
            ImportSummary.Record(
                id: item.item.id, kind: item.item.body.kind, title: item.item.body.title, outcome: outcome,
                notes: item.notes)
        }
        return ImportSummary(
            source: found, dryRun: options.dryRun, records: records, skipped: batch.skipped, notes: batch.notes)
    }

    /// Reads and parses the export at `path` without touching any store: which source it is,
    /// and the records it holds. `now` dates records whose source has no time (stories).
    public static func parse(_ source: Source?, path: String, options: Options = Options(), now: Timestamp)
        throws(AISyncError) -> (Source, ImportBatch)
    {
        try parse(source, path: path, options: options, now: now, fetched: [:])
    }

    /// Fetches the picture URLs of a DALL·E response when `options.fetch` is set, one by one;
    /// what each gave (bytes or an error) by URL. Empty for other sources.
    static func fetchPictures(_ source: Source?, path: String, options: Options) async throws(AISyncError) -> [String:
        Result<[UInt8], AISyncError>]
    {
        guard let fetch = options.fetch, source == nil || source == .dalle, !path.lowercased().hasSuffix(".zip") else {
            return [:]
        }
        guard let documents = try? ImportInput.documents(at: path), let first = documents.first,
            (try? detect(first.value, path: first.path)) == .dalle || source == .dalle
        else { return [:] }
        var fetched: [String: Result<[UInt8], AISyncError>] = [:]
        for url in documents.flatMap(DalleImporter.urls) where fetched[url] == nil {
            try AISyncError.checkCancellation()
            do { fetched[url] = .success(try await fetch(url)) } catch { fetched[url] = .failure(error) }
        }
        return fetched
    }

    static func parse(
        _ source: Source?, path: String, options: Options, now: Timestamp,
        fetched: [String: Result<[UInt8], AISyncError>]
    ) throws(AISyncError) -> (Source, ImportBatch) {
        var documents = source == .storybook ? [] : try ImportInput.documents(at: path)
        var story: StorybookInput?
        if documents.isEmpty, source == nil || source == .storybook {
            // A storybook folder or zip holds a story JSON and its pictures, no conversations.
            story = try StorybookInput(at: path)
            documents = story?.documents ?? []
        }
        guard let first = documents.first else {
            throw source == .storybook
                ? AISyncError(
                    .damagedData, "\(path) holds no story JSON",
                    hint: "Give the story's JSON file, or the folder or zip holding it and its pictures")
                : AISyncError(
                    .damagedData, "\(path) holds no conversations file",
                    hint: "Give conversations.json or the unzipped export folder")
        }
        let found: Source
        if let source { found = source } else { found = try detect(first.value, path: first.path) }
        var batch = ImportBatch()
        if found == .storybook {
            let input: StorybookInput
            if let story { input = story } else { input = try StorybookInput(at: path) }
            try StorybookImporter.read(input, now: now, into: &batch)
            return try checked(found, batch, path: path)
        }
        let assets = found == .chatgpt ? try ImportInput.assets(at: path) : nil
        for document in documents {
            switch found {
            case .chatgpt:
                try ChatGPTImporter.read(document, assets: assets, withReasoning: options.withReasoning, into: &batch)
            case .claude: try ClaudeImporter.read(document, withReasoning: options.withReasoning, into: &batch)
            case .storybook: break
            case .dalle: try DalleImporter.read(document, options: options, now: now, fetched: fetched, into: &batch)
            }
        }
        return try checked(found, batch, path: path)
    }

    /// `batch` as parsed from `path`, or damaged-data when nothing in it could be imported.
    static func checked(_ found: Source, _ batch: ImportBatch, path: String) throws(AISyncError) -> (
        Source, ImportBatch
    ) {
        if batch.items.isEmpty, let first = batch.skipped.first {
            throw AISyncError(
                .damagedData,
                "nothing in \(path) could be imported: \(batch.skipped.count) skipped, the first (\(first.source.prefix(80))) because \(first.reason)",
                hint: "Check that it is a \(found.rawValue) export as the app wrote it")
        }
        return (found, batch)
    }

    /// Which source a document comes from, by its shape.
    static func detect(_ value: JSONValue, path: String) throws(AISyncError) -> Source {
        let sample = value.arrayValue?.first { $0.objectValue != nil } ?? value
        if sample["mapping"] != nil { return .chatgpt }
        if sample["chat_messages"] != nil { return .claude }
        if sample["story"]?.arrayValue != nil { return .storybook }
        if value["data"]?.arrayValue != nil { return .dalle }
        throw AISyncError(
            .damagedData, "\(path) is not an export this version knows",
            hint: "Name the source: chatgpt, claude, storybook or dalle", remedy: .nameImportSource)
    }

    /// The error for a document whose shape is not `what`.
    static func notAn(_ what: String, _ document: ImportInput.Document, expected: String) -> AISyncError {
        AISyncError(
            .damagedData, "\(document.path) is not \(what): expected \(expected)",
            hint: "Check the file, or name another source")
    }
}
