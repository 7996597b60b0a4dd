import AISyncCore
import AISyncFiles
import AISyncStore

/// Importing a big export a slice at a time: conversations are read from the file in chunks
/// (``JSONArrayReader``) and written in batches, so memory stays near two batches whatever the
/// size of the export. While the store writes one batch, the next is parsed on another core.
extension Import {
    /// How many bytes of JSON one batch holds before it is written.
    static let batchBytes = 4 << 20

    /// Imports a JSON file (or a folder's files) whose top level is an array, batch by batch;
    /// nil when `path` is a zip, its first file is not an array, or it is a list of stories
    /// (read whole instead).
    static func runStreaming(
        _ source: Source?, path: String, into store: Store, options: Options,
        batchBytes: Int = batchBytes, chunkSize: Int = 8 << 20
    ) async throws(AISyncError) -> ImportSummary? {
        guard !path.lowercased().hasSuffix(".zip"), let st = Platform.stat(path) else { return nil }
        let files = try ImportInput.files(at: path, isDirectory: st.isDirectory)
        guard let first = files.first, source != .storybook,
            var reader = try JSONArrayReader(path: first, chunkSize: 1 << 16)
        else { return nil }
        // A list of stories is small, and its pictures lie beside it: read whole (StorybookInput).
        if source == nil, let element = try? reader.next(),
            (try? JSONParser.parse(Array(element))).map(StorybookInput.isStory) == true
        {
            return nil
        }
        var summary = ImportSummary(
            source: source ?? .chatgpt, dryRun: options.dryRun, records: [], skipped: [], notes: [])
        let assets = try ImportInput.assets(at: path)
        var slicer = Slicer(
            found: source, assets: assets, store: store, options: options, batchBytes: batchBytes,
            now: Timestamp(milliseconds: store.environment.now()),
            progress: ImportProgress(totalBytes: files.reduce(0) { $0 + (Platform.stat($1)?.size ?? 0) }))
        do {
            for file in files { try await slicer.importFile(file, chunkSize: chunkSize, into: &summary) }
            if !options.dryRun { try await store.finishImport() }
        } catch {
            guard !summary.records.isEmpty, !options.dryRun else { throw error }
            var partial = error
            partial.message += "; the \(summary.records.count) records before it were imported"
            partial.hint = "Import a whole export again: nothing is added twice"
            throw partial
        }
        if summary.records.isEmpty, let skip = summary.skipped.first {
            throw AISyncError(
                .damagedData,
                "nothing in \(path) could be imported: \(summary.skipped.count) skipped, the first (\(skip.source.prefix(80))) because \(skip.reason)",
                hint: "Check that it is a \(summary.source.rawValue) export as the app wrote it")
        }
        return summary
    }

    /// Cuts files into batches, converts each into records and writes it, one batch behind.
    struct Slicer {
        var found: Source?
        let assets: ChatGPTAssets
        let store: Store
        let options: Options
        let batchBytes: Int
        let now: Timestamp
        var progress: ImportProgress
        /// Bytes of the files already imported whole.
        var filesDone: Int64 = 0

        /// Reads one file's elements and imports them: batch k+1 is converted while batch k is written.
        mutating func importFile(_ file: String, chunkSize: Int, into summary: inout ImportSummary)
            async throws(AISyncError)
        {
            guard var reader = try JSONArrayReader(path: file, chunkSize: chunkSize) else {
                throw AISyncError(
                    .damagedData, "\(file) is not a list of conversations", hint: "Give the export's conversations.json"
                )
            }
            var pending: Step?
            while true {
                // Reading and converting batch k+1 (one child task) overlaps writing batch k.
                let context = Context(
                    file: file, found: found, assets: assets, now: now, withReasoning: options.withReasoning)
                async let next = context.readAndConvert(reader, upTo: batchBytes)
                if let pending {
                    try await write(pending.batch, source: pending.source, offset: pending.offset, into: &summary)
                }
                pending = nil
                let step = try await next.get()
                guard step.bytes > 0 else { break }
                reader = step.reader
                found = step.source
                pending = step
            }
            filesDone += reader.size
            progress.bytesDone = filesDone
            options.progress?(progress)
        }

        /// Writes one converted batch and adds what it did to the summary.
        mutating func write(_ batch: ImportBatch, source: Source, offset: Int64, into summary: inout ImportSummary)
            async throws(AISyncError)
        {
            try AISyncError.checkCancellation()
            let outcomes = try await store.importRecords(
                batch.items.map(\.item), dryRun: options.dryRun, deferIndex: true)
            summary.source = source
            summary.records += zip(batch.items, outcomes).map { item, outcome in
                ImportSummary.Record(
                    id: item.item.id, kind: item.item.body.kind, title: item.item.body.title, outcome: outcome,
                    notes: item.notes)
            }
            summary.skipped += batch.skipped
            summary.notes += batch.notes
            progress.bytesDone = filesDone + offset
            progress.records = summary.records.count
            options.progress?(progress)
        }
    }

    /// One batch read and converted, with the reader positioned after it.
    struct Step: Sendable {
        var reader: JSONArrayReader
        var source: Source
        var batch: ImportBatch
        /// The batch's JSON bytes; 0 at the end of the file.
        var bytes: Int64
        /// How far into the file the reader is after the batch.
        var offset: Int64
    }

    /// What converting one batch needs; Sendable, so it runs beside the store's writes.
    struct Context: Sendable {
        let file: String
        let found: Source?
        let assets: ChatGPTAssets
        let now: Timestamp
        let withReasoning: Bool

        /// Reads the next batch's elements with `reader`, and converts them. (Converting two
        /// halves at once was measured slower: malloc contention outweighed the second core.)
        func readAndConvert(_ reader: JSONArrayReader, upTo bytes: Int) -> Result<Step, AISyncError> {
            var reader = reader
            do throws(AISyncError) {
                let raw = try reader.nextElements(upTo: bytes)
                let (source, batch) = try convert(raw[...]).get()
                return .success(
                    Step(
                        reader: reader, source: source, batch: batch, bytes: Int64(raw.reduce(0) { $0 + $1.count }),
                        offset: reader.offset))
            } catch {
                return .failure(error)
            }
        }

        /// Parses the elements and turns them into records (detecting the source on the first batch).
        func convert(_ raw: ArraySlice<[UInt8]>) -> Result<(Source, ImportBatch), AISyncError> {
            guard !raw.isEmpty else { return .success((found ?? .chatgpt, ImportBatch())) }
            do throws(AISyncError) {
                var elements: [JSONValue] = []
                elements.reserveCapacity(raw.count)
                for bytes in raw { elements.append(try ImportInput.parse(bytes, path: file)) }
                let document = ImportInput.Document(path: file, value: .array(elements))
                let source: Source
                if let found { source = found } else { source = try detect(document.value, path: file) }
                var batch = ImportBatch()
                switch source {
                case .chatgpt:
                    try ChatGPTImporter.read(document, assets: assets, withReasoning: withReasoning, into: &batch)
                case .claude: try ClaudeImporter.read(document, withReasoning: withReasoning, into: &batch)
                case .storybook: try StorybookImporter.read(document, now: now, into: &batch)
                case .dalle: throw notAn("an Images API response", document, expected: "an object with a data list")
                }
                return .success((source, batch))
            } catch {
                return .failure(error)
            }
        }
    }
}
