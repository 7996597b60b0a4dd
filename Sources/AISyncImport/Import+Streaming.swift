import AISyncCore
import AISyncFiles
import AISyncStore
import Synchronization

/// Importing a big export a slice at a time: conversations are read from the file in chunks
/// (``JSONArrayReader``) and written in batches, so memory stays near four batches whatever the
/// size of the export. While the store writes one batch, the next ones are parsed on another core.
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

    /// Cuts files into batches, converts each into records and writes it, the converting a
    /// batch or two ahead of the writing.
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

        /// How many batches may be read and not yet written: two converting at once (on both
        /// cores, while the store writes a third), so a batch that is slow to convert and one
        /// that is slow to write no longer hold each other up.
        static let lookahead = 3

        /// Reads one file's elements and imports them: batches are read one at a time in file
        /// order, converted on up to ``lookahead`` tasks at once, and written in file order by
        /// the store.
        mutating func importFile(_ file: String, chunkSize: Int, into summary: inout ImportSummary)
            async throws(AISyncError)
        {
            guard let reader = try JSONArrayReader(path: file, chunkSize: chunkSize) else {
                throw AISyncError(
                    .damagedData, "\(file) is not a list of conversations", hint: "Give the export's conversations.json"
                )
            }
            let batches = BatchReader(reader)
            let context = Context(
                file: file, found: found, assets: assets, now: now, withReasoning: options.withReasoning)
            let (steps, permits, producer) = context.convertAhead(
                batches, batchBytes: batchBytes, lookahead: Self.lookahead)
            do {
                // Batches come as they are converted; they are written in the order they were
                // read (the first error in that order stops the import there).
                var waiting: [Int: Result<Step, AISyncError>] = [:]
                var next = 0
                var ended = false
                reading: for await (number, result) in steps {
                    waiting[number] = consume result
                    while let ready = waiting.removeValue(forKey: next) {
                        next += 1
                        // Consumed, not copied: the last reference must be the one sent back.
                        let step = try (consume ready).get()
                        guard step.bytes > 0 else {
                            ended = true
                            break reading
                        }
                        found = step.source
                        try await write(step.batch, source: step.source, offset: step.offset, into: &summary)
                        permits.yield(consume step)  // back to the converting tasks, which free it
                    }
                }
                // The batches end before the end of the list only when the import is cancelled
                // (the stream ends then): never reported as a whole file imported.
                if !ended { try Self.stoppedBeforeTheEnd(file) }
            } catch {
                // The converting tasks stop after the batch they are on; the store is left as written.
                permits.finish()
                producer.cancel()
                await producer.value
                throw error
            }
            permits.finish()
            await producer.value
            filesDone += batches.size
            progress.bytesDone = filesDone
            options.progress?(progress)
        }

        /// Why batches ended before the end of `file`: the import was cancelled.
        static func stoppedBeforeTheEnd(_ file: String) throws(AISyncError) {
            try AISyncError.checkCancellation()
            throw AISyncError(.other, "the import of \(file) stopped before its end", hint: "Import it again")
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

    /// The reader of one file, shared by the tasks converting its batches: a batch is read
    /// (and parsed) by one task at a time, in file order, and numbered as it is read. After an
    /// error or the end of the list, every later read is an empty batch (the end).
    actor BatchReader {
        private var reader: JSONArrayReader
        private var count = 0
        private var ended = false
        /// The file's size.
        nonisolated let size: Int64

        init(_ reader: JSONArrayReader) {
            self.reader = reader
            size = reader.size
        }

        /// The next batch's elements parsed into a tape (in `reused`'s memory), the bytes they
        /// held and how far into the file the reader is after them, with the batch's number.
        func nextTape(upTo bytes: Int, reusing reused: consuming JSONTape?, path: String) -> (
            Int, Result<(tape: JSONTape, bytes: Int, offset: Int64), AISyncError>
        ) {
            defer { count += 1 }
            var builder = JSONTape.Builder(reusing: consume reused, bytes: bytes)
            guard !ended else { return (count, .success((builder.finish(), 0, reader.offset))) }
            do throws(AISyncError) {
                let read = try reader.nextValues(upTo: bytes, into: &builder) {
                    (bytes, tape) throws(AISyncError) in try ImportInput.parse(bytes, path: path, into: &tape)
                }
                ended = read == 0
                return (count, .success((builder.finish(), read, reader.offset)))
            } catch {
                ended = true
                return (count, .failure(error))
            }
        }

        /// The next batch's elements parsed into trees, the bytes they held and how far into
        /// the file the reader is after them, with the batch's number.
        func nextValues(upTo bytes: Int, path: String) -> (
            Int, Result<(values: [JSONValue], bytes: Int, offset: Int64), AISyncError>
        ) {
            defer { count += 1 }
            guard !ended else { return (count, .success(([], 0, reader.offset))) }
            do throws(AISyncError) {
                let (values, read) = try reader.nextValues(upTo: bytes) { (bytes) throws(AISyncError) in
                    try ImportInput.parse(bytes, path: path)
                }
                ended = read == 0
                return (count, .success((values, read, reader.offset)))
            } catch {
                ended = true
                return (count, .failure(error))
            }
        }
    }

    /// A tape handed to the task that reads the next batch into its memory: taken out, so
    /// that task holds the only reference (a tape shared is copied, not written over).
    final class TapeHandoff: Sendable {
        private let tape: Mutex<JSONTape?>
        init(_ tape: consuming JSONTape?) { self.tape = Mutex(tape) }
        func take() -> JSONTape? { tape.withLock { $0.take() } }
    }

    /// One batch read and converted.
    struct Step: Sendable {
        var source: Source
        var batch: ImportBatch
        /// The parsed elements (a tape for ChatGPT's, trees for the others), kept until the
        /// batch is written; then the step goes back to the task that made it, which frees
        /// it before it reads the next batch.
        var parsed: [JSONValue]
        var tape: JSONTape?
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

        /// Starts a task that reads and converts batches, each once a permit is given
        /// (`lookahead` empty ones to begin with, then each written step, which it frees):
        /// the first alone (it names the source the others are read as), then on a task each,
        /// so two convert at once while a third is written. Each result comes with its batch's
        /// number. It ends when the permits end.
        func convertAhead(_ batches: BatchReader, batchBytes: Int, lookahead: Int) -> (
            AsyncStream<(Int, Result<Step, AISyncError>)>, AsyncStream<Step?>.Continuation, Task<Void, Never>
        ) {
            let (steps, output) = AsyncStream<(Int, Result<Step, AISyncError>)>.makeStream()
            let (permits, permitInput) = AsyncStream<Step?>.makeStream()
            for _ in 0..<lookahead { permitInput.yield(nil) }
            let producer = Task {
                var permit = permits.makeAsyncIterator()
                guard await permit.next() != nil, !Task.isCancelled else {
                    output.finish()
                    return
                }
                // The first batch names the source; the ones after it are read as that. It is
                // handed on, not kept: the store frees it (and its tape goes back) once written.
                guard let source = await firstBatch(batches, upTo: batchBytes, into: output) else {
                    output.finish()
                    return
                }
                let context = Context(
                    file: file, found: source, assets: assets, now: now, withReasoning: withReasoning)
                await withTaskGroup(of: Void.self) { group in
                    while var written = await permit.next(), !Task.isCancelled {
                        // A written step is freed here, on this task, not on the store's
                        // thread (freed there while it allocates, malloc's arena lock was
                        // contended: PERFORMANCE.md §3.7). Its tape's memory is kept for a
                        // next batch.
                        let reused = TapeHandoff(written?.tape)
                        written = nil
                        _ = written
                        group.addTask {
                            output.yield(
                                await context.readAndConvert(batches, upTo: batchBytes, reusing: reused.take()))
                        }
                    }
                }
                output.finish()
            }
            return (steps, permitInput, producer)
        }

        /// Reads and converts the first batch and hands it on (not kept: the store frees it);
        /// the source it names, or nil when it is the end or an error.
        func firstBatch(
            _ batches: BatchReader, upTo bytes: Int,
            into output: AsyncStream<(Int, Result<Step, AISyncError>)>.Continuation
        ) async -> Source? {
            let first = await readAndConvert(batches, upTo: bytes, reusing: nil)
            var source: Source?
            if case .success(let step) = first.1, step.bytes > 0 { source = step.source }
            output.yield(first)
            return source
        }

        /// Reads the next batch's elements (one task at a time, through `batches`), then
        /// converts them here, beside other batches converting.
        func readAndConvert(_ batches: BatchReader, upTo bytes: Int, reusing reused: consuming JSONTape?) async -> (
            Int, Result<Step, AISyncError>
        ) {
            let file = file
            // ChatGPT's conversations (and the first batch, whose source is not known yet)
            // are read into a tape: no tree to build, look through and free.
            if found == nil || found == .chatgpt {
                let (number, read) = await batches.nextTape(upTo: bytes, reusing: consume reused, path: file)
                return (
                    number,
                    read.flatMap { (tape, count, offset) in
                        convert(tape).map { (source, batch) in
                            Step(
                                source: source, batch: batch, parsed: [], tape: tape, bytes: Int64(count),
                                offset: offset)
                        }
                    }
                )
            }
            let (number, read) = await batches.nextValues(upTo: bytes, path: file)
            return (
                number,
                read.flatMap { (values, count, offset) in
                    convert(values).map { (source, batch) in
                        Step(
                            source: source, batch: batch, parsed: values, tape: nil, bytes: Int64(count),
                            offset: offset)
                    }
                }
            )
        }

        /// Turns the elements read into a tape into records (detecting the source on the
        /// first batch, from its first object); sources other than ChatGPT read them as trees.
        func convert(_ tape: JSONTape) -> Result<(Source, ImportBatch), AISyncError> {
            guard tape.count > 0 else { return .success((found ?? .chatgpt, ImportBatch())) }
            return tape.withRoots { roots in
                do throws(AISyncError) {
                    let sample = roots.first(where: \.isObject) ?? roots[0]
                    let source: Source
                    if let found { source = found } else { source = try detect(.array([sample.value]), path: file) }
                    guard source == .chatgpt else { return convert(roots.map(\.value)) }
                    var batch = ImportBatch()
                    ChatGPTImporter.read(roots, assets: assets, withReasoning: withReasoning, into: &batch)
                    return .success((source, batch))
                } catch {
                    return .failure(error)
                }
            }
        }

        /// Turns the parsed elements into records (detecting the source on the first batch).
        func convert(_ elements: [JSONValue]) -> Result<(Source, ImportBatch), AISyncError> {
            guard !elements.isEmpty else { return .success((found ?? .chatgpt, ImportBatch())) }
            do throws(AISyncError) {
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
