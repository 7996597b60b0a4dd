import AISyncCore
import AISyncFiles
import AISyncStore

/// Importing a big export a slice at a time: conversations are read from the file in chunks
/// (``JSONArrayReader``) and written in batches, so memory stays near one batch whatever the
/// size of the export.
extension Import {
    /// How many bytes of JSON one batch holds before it is written.
    static let batchBytes = 16 << 20

    /// Imports a JSON file (or a folder's files) whose top level is an array, batch by batch;
    /// nil when `path` is a zip or its first file is not an array (read whole instead).
    static func runStreaming(_ source: Source?, path: String, into store: Store, options: Options,
                             batchBytes: Int = batchBytes, chunkSize: Int = 8 << 20) async throws(AISyncError) -> ImportSummary? {
        guard !path.lowercased().hasSuffix(".zip"), let st = Platform.stat(path) else { return nil }
        let files = try ImportInput.files(at: path, isDirectory: st.isDirectory)
        guard let first = files.first, try JSONArrayReader(path: first) != nil else { return nil }
        var summary = ImportSummary(source: source ?? .chatgpt, dryRun: options.dryRun, records: [], skipped: [], notes: [])
        var found = source
        let assets = try ImportInput.assets(at: path)
        do {
            try await slices(files, found: &found, assets: assets, store: store, options: options,
                             batchBytes: batchBytes, chunkSize: chunkSize, into: &summary)
        } catch {
            guard !summary.records.isEmpty, !options.dryRun else { throw error }
            var partial = error
            partial.message += "; the \(summary.records.count) records before it were imported"
            partial.hint = "Import a whole export again: nothing is added twice"
            throw partial
        }
        if summary.records.isEmpty, let skip = summary.skipped.first {
            throw AISyncError(.damagedData, "nothing in \(path) could be imported: \(summary.skipped.count) skipped, the first (\(skip.source.prefix(80))) because \(skip.reason)",
                              hint: "Check that it is a \(summary.source.rawValue) export as the app wrote it")
        }
        return summary
    }

    /// Reads every file's elements and imports them slice by slice.
    static func slices(_ files: [String], found: inout Source?, assets: ChatGPTAssets, store: Store, options: Options,
                       batchBytes: Int, chunkSize: Int, into summary: inout ImportSummary) async throws(AISyncError) {
        for file in files {
            guard var reader = try JSONArrayReader(path: file, chunkSize: chunkSize) else {
                throw AISyncError(.damagedData, "\(file) is not a list of conversations", hint: "Check the file, or name another source")
            }
            var elements: [JSONValue] = []
            var bytes = 0
            while let element = try reader.next() {
                elements.append(try ImportInput.parse(Array(element), path: file))
                bytes += element.count
                if bytes >= batchBytes {
                    try await importSlice(&elements, file: file, found: &found, assets: assets, store: store, options: options, into: &summary)
                    bytes = 0
                }
            }
            try await importSlice(&elements, file: file, found: &found, assets: assets, store: store, options: options, into: &summary)
        }
    }

    /// Reads and writes one slice of conversations, then empties it.
    static func importSlice(_ elements: inout [JSONValue], file: String, found: inout Source?, assets: ChatGPTAssets,
                            store: Store, options: Options, into summary: inout ImportSummary) async throws(AISyncError) {
        guard !elements.isEmpty else { return }
        let document = ImportInput.Document(path: file, value: .array(elements))
        elements = []
        let source: Source
        if let found { source = found } else { source = try detect(document.value, path: file) }
        found = source
        summary.source = source
        var batch = ImportBatch()
        switch source {
        case .chatgpt: try ChatGPTImporter.read(document, assets: assets, into: &batch)
        case .claude: try ClaudeImporter.read(document, into: &batch)
        case .storybook: try StorybookImporter.read(document, now: Timestamp(milliseconds: store.environment.now()), into: &batch)
        case .dalle: throw notAn("an Images API response", document, expected: "an object with a data list")
        }
        let outcomes = try await store.importRecords(batch.items.map(\.item), dryRun: options.dryRun)
        summary.records += zip(batch.items, outcomes).map { item, outcome in
            ImportSummary.Record(id: item.item.id, kind: item.item.body.kind, title: item.item.body.title, outcome: outcome, notes: item.notes)
        }
        summary.skipped += batch.skipped
        summary.notes += batch.notes
    }
}
