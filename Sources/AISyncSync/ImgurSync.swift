import AISyncCore
import AISyncFiles
import AISyncImgur
import AISyncRemote
import AISyncStore

/// The image side of sync (docs/DESIGN.md §7): uploads to Imgur on push, fetches from Imgur on pull,
/// deletes on Imgur when the last record using a picture is deleted.
///
/// An original is never lost: it always goes to the WebDAV/HTTP/folder remote too (Imgur is
/// a copy, not a vault: it purged uploads not tied to an account in 2023, no longer lets new
/// applications register and is blocked in some countries); Imgur holds a shareable copy, which pull prefers when it serves
/// the original bytes unchanged and falls back from when Imgur answers removed.png, 404 or
/// something that is not the picture.
///
/// A push calls `uploadPending` before it sends the records and `flushDeletes` after (both
/// only when uploads are on). A refused credential met while uploading does not stop the push:
/// `uploadPending` returns it, and the push throws it once the records are on the remote
/// (a push that could not upload every image still pushes all records; 401/403 is still one
/// clear error, `.permission`).
public struct ImgurSync: Sendable {
    let store: Store
    let client: ImgurClient
    let placement: StoreConfig.ImagePlacement
    /// Unix seconds.
    let now: @Sendable () -> Int64
    /// Uploads in flight at once.
    static let concurrency = 3

    /// Imgur sync for `store` through `client`; the clock is the store's environment, so
    /// a seeded test store governs rate-limit waits too.
    public init(store: Store, client: ImgurClient, placement: StoreConfig.ImagePlacement) {
        let environment = store.environment
        self.store = store
        self.client = client
        self.placement = placement
        self.now = { environment.now() / 1000 }
    }

    /// Kept so callers that passed their own clock (Unix seconds) compile while they move over.
    @available(*, deprecated, message: "Drop `now:`: the clock comes from store.environment")
    public init(
        store: Store, client: ImgurClient, placement: StoreConfig.ImagePlacement, now: @escaping @Sendable () -> Int64
    ) {
        self.store = store
        self.client = client
        self.placement = placement
        self.now = now
    }

    /// Uploads every live image without Imgur coordinates. Failures of one image do not stop
    /// the others; a rate limit stops uploading until its reset; a refused credential stops
    /// uploading and is thrown by `flushDeletes` after the records were pushed. With
    /// `--images remote` nothing is uploaded. Returns counts for the report.
    /// Returns a refused credential (401/403) instead of throwing it, so the caller can push
    /// the records first and then report it.
    func uploadPending(into report: inout SyncReport) async throws(AISyncError) -> AISyncError? {
        // `--images remote`: the bytes live on the remote only (StoreConfig.ImagePlacement).
        guard placement != .remote else { return nil }
        var run = UploadRun(state: try await store.readImgurState())
        let live = try await store.liveImages()
        let start = ImgurPlanner.start(live: live, state: run.state, now: now())
        report.imgurPending = start.pending.count
        if let waitUntil = start.waitUntil {
            report.imgurRetryAt = waitUntil
            return nil
        }
        run.state.retryAt = nil
        run.copies = start.copies
        let bodies = Dictionary(live, uniquingKeysWith: { a, _ in a })
        let pending = start.pending.compactMap { id in bodies[id].map { (id, $0) } }
        for (n, (id, image)) in pending.enumerated() {
            guard store.hasObject(image.sha256) else { continue }
            if let batch = ImgurPlanner.batch(at: n, count: pending.count, concurrency: Self.concurrency) {
                run.answers = await uploadBatch(pending[batch].map(\.1), skipping: run.copies, state: run.state)
            }
            do throws(ImgurError) {
                try await upload(id, image, run: &run, report: &report)
            } catch {
                if case .stop(let refused) = try await failed(error, image: image, run: &run, report: &report) {
                    return refused
                }
            }
        }
        return nil
    }

    /// What one `uploadPending` carries from image to image.
    struct UploadRun {
        var state: ImgurState
        var copies: [SHA256Digest: ImageBody.ImgurLocation] = [:]
        /// Answers of the batch in flight, by digest.
        var answers: [SHA256Digest: Result<(upload: ImgurUpload, rateLimit: ImgurRateLimit?), ImgurError>] = [:]
    }

    /// Gets one image onto Imgur (or reuses its copy) and records where it is.
    private func upload(_ id: RecordID, _ image: ImageBody, run: inout UploadRun, report: inout SyncReport)
        async throws(ImgurError)
    {
        let upload: ImgurState.Upload
        switch ImgurPlanner.source(for: image.sha256, copies: run.copies, state: run.state) {
        case .reuse(let copy):
            try await record(id, copy)
            report.imgurPending -= 1
            return
        case .answered(let known):
            upload = known
        case .findLost:
            if let found = try await findLostUpload(image.sha256) {
                upload = found  // stored by Imgur although its answer was lost: reuse it
                run.state.answered[image.sha256] = found
                try await persist(run.state)
            } else {
                upload = try await freshUpload(image, run: &run)
            }
        case .upload:
            upload = try await freshUpload(image, run: &run)
        }
        let served = try await servedDigest(of: upload, original: image)
        let location = ImageBody.ImgurLocation(
            id: upload.id, link: upload.link, deletehash: upload.deletehash,
            servedSHA256: served?.digest, servedSize: served?.size ?? upload.size)
        try await record(id, location)
        run.copies[image.sha256] = location
        run.state.answered[image.sha256] = nil
        run.state.maybeUploaded.remove(image.sha256)
        try await persist(run.state)
        report.imgurUploaded += 1
        report.imgurPending -= 1
    }

    /// Uploads one image (or takes its answer from the batch in flight) and notes the answer
    /// before anything else, so a crash never uploads it twice.
    private func freshUpload(_ image: ImageBody, run: inout UploadRun) async throws(ImgurError) -> ImgurState.Upload {
        let answer: ImgurUpload
        let limit: ImgurRateLimit?
        if let result = run.answers.removeValue(forKey: image.sha256) {
            (answer, limit) = try result.get()
        } else {
            let path = store.objectPath(image.sha256)
            (answer, limit) = try await client.upload(
                fileAt: path, mediaType: image.mediaType, title: image.title,
                description: image.prompt, fileStem: Self.fileStem(image.sha256))
        }
        let upload = ImgurState.Upload(
            id: answer.id, link: answer.link, deletehash: answer.deletehash, size: answer.size)
        run.state.answered[image.sha256] = upload
        run.state.uploads += 1
        if let limit { run.state.rateLimit = limit.json }
        try await persist(run.state)
        return upload
    }

    /// Whether uploading goes on after a failure.
    enum Continuation {
        case next
        case stop(AISyncError?)
    }

    /// Applies `ImgurPlanner.afterFailure` to one failed upload.
    private func failed(_ error: ImgurError, image: ImageBody, run: inout UploadRun, report: inout SyncReport)
        async throws(AISyncError) -> Continuation
    {
        if let limit = error.rateLimit { run.state.rateLimit = limit.json }
        if error.mayHaveUploaded { run.state.maybeUploaded.insert(image.sha256) }
        var next = Continuation.next
        switch ImgurPlanner.afterFailure(error.kind) {
        case .stopUntil(let resetAt):
            run.state.retryAt = resetAt
            report.imgurRetryAt = resetAt
            Self.keep(run.answers, in: &run.state)
            next = .stop(nil)
        case .refused(let message):
            run.state.failed[image.sha256] = message
            report.imgurFailed += 1
            report.imgurPending -= 1
        case .stopForCredential:
            Self.keep(run.answers, in: &run.state)
            next = .stop(error.aisyncError)
        case .keepPending:
            report.imgurErrors.append(error.aisyncError.description)
        }
        try await store.writeImgurState(run.state)
        return next
    }

    /// The name an upload carries on Imgur, derived from the bytes, so it can be found again.
    static func fileStem(_ digest: SHA256Digest) -> String { "aisync-\(digest.hex.prefix(32))" }

    /// Looks for an upload whose answer was lost among the account's images (a token can list
    /// them; a Client-ID cannot, and then the image is uploaded again). Reads at most 10 pages.
    private func findLostUpload(_ digest: SHA256Digest) async throws(ImgurError) -> ImgurState.Upload? {
        let stem = Self.fileStem(digest)
        for page in 0..<10 {
            let images = try await client.accountImages(page: page)
            if let hit = images.first(where: { $0.name.map { $0 == stem || $0.hasPrefix(stem + ".") } ?? false }) {
                return ImgurState.Upload(
                    id: hit.upload.id, link: hit.upload.link, deletehash: hit.upload.deletehash, size: hit.upload.size)
            }
            if images.count < 50 { break }
        }
        return nil
    }

    /// When uploading stops mid-batch: the uploads of that batch Imgur did store are kept, to
    /// be recorded by the next push instead of being uploaded a second time.
    static func keep(
        _ answers: [SHA256Digest: Result<(upload: ImgurUpload, rateLimit: ImgurRateLimit?), ImgurError>],
        in state: inout ImgurState
    ) {
        for (digest, result) in answers {
            guard case .success(let r) = result else { continue }
            state.answered[digest] = ImgurState.Upload(
                id: r.upload.id, link: r.upload.link, deletehash: r.upload.deletehash, size: r.upload.size)
            state.uploads += 1
        }
    }

    /// Uploads the images of one batch at the same time (bounded concurrency), except those
    /// already on Imgur or answered before a crash. Results are applied in order by the caller.
    private func uploadBatch(
        _ images: [ImageBody], skipping copies: [SHA256Digest: ImageBody.ImgurLocation],
        state: ImgurState
    ) async -> [SHA256Digest: Result<(upload: ImgurUpload, rateLimit: ImgurRateLimit?), ImgurError>] {
        var jobs: [(SHA256Digest, String, ImageBody)] = []
        var seen = Set<SHA256Digest>()
        for image in images
        where copies[image.sha256] == nil && state.answered[image.sha256] == nil
            && !state.maybeUploaded.contains(image.sha256) && seen.insert(image.sha256).inserted
        {
            guard store.hasObject(image.sha256) else { continue }
            jobs.append((image.sha256, store.objectPath(image.sha256), image))
        }
        let client = self.client
        return await withTaskGroup(
            of: (SHA256Digest, Result<(upload: ImgurUpload, rateLimit: ImgurRateLimit?), ImgurError>).self
        ) { group in
            for (digest, path, image) in jobs {
                group.addTask {
                    do throws(ImgurError) {
                        return (
                            digest,
                            .success(
                                try await client.upload(
                                    fileAt: path, mediaType: image.mediaType, title: image.title,
                                    description: image.prompt, fileStem: Self.fileStem(digest)))
                        )
                    } catch {
                        return (digest, .failure(error))
                    }
                }
            }
            var results: [SHA256Digest: Result<(upload: ImgurUpload, rateLimit: ImgurRateLimit?), ImgurError>] = [:]
            for await (digest, result) in group { results[digest] = result }
            return results
        }
    }

    private func persist(_ state: ImgurState) async throws(ImgurError) {
        do { try await store.writeImgurState(state) } catch { throw ImgurError(.other, error) }
    }

    private func record(_ id: RecordID, _ location: ImageBody.ImgurLocation) async throws(ImgurError) {
        do { try await store.setImgurLocation(id, location) } catch { throw ImgurError(.other, error) }
    }

    /// What Imgur serves for an upload: the same bytes when the size matches and the hash
    /// confirms it, otherwise the hash of the re-encoded bytes.
    private func servedDigest(of upload: ImgurState.Upload, original: ImageBody) async throws(ImgurError) -> (
        digest: SHA256Digest, size: Int64
    )? {
        let temp: String
        do { temp = try await store.scratchPath() } catch { throw ImgurError(.other, error) }
        defer { _ = Platform.unlink(temp) }
        switch try await client.download(link: upload.link, to: temp, maxBytes: RemoteLimits.blob) {
        case .downloaded(let digest, let size): return (digest, size)
        case .removed, .missing: return nil
        }
    }

    /// Fetches an image's original bytes from Imgur when Imgur serves them unchanged.
    /// Returns false when it cannot (re-encoded, removed upstream, unreachable): the caller
    /// then takes them from the remote.
    func fetchOriginal(sha256: SHA256Digest, imgur: ImageBody.ImgurLocation?) async -> FetchOutcome {
        guard let imgur, imgur.servedSHA256 == sha256, let temp = try? await store.scratchPath() else {
            return .unavailable
        }
        defer { _ = Platform.unlink(temp) }
        switch try? await client.download(link: imgur.link, to: temp, maxBytes: RemoteLimits.blob) {
        case .downloaded(let digest, _)? where digest == sha256:
            return (try? await store.adoptBlob(at: temp, expected: sha256)) == true ? .fetched : .unavailable
        case .removed?, .missing?:
            return .removed
        default:
            return .unavailable
        }
    }

    /// What fetching a picture from Imgur gave.
    enum FetchOutcome: Equatable {
        case fetched
        /// Imgur no longer has it (removed.png, 404).
        case removed
        /// Not from Imgur this time (re-encoded there, unreachable, wrong bytes).
        case unavailable
    }

    /// Notes the Imgur copies whose last user the pushed tombstones deleted (no network), so
    /// they are deleted even if this push cannot reach Imgur. The last user may be the image
    /// record or a story page illustrated by it; every Imgur copy recorded for those bytes (by
    /// any image record, or an answer not yet recorded) is queued.
    func queueDeletes(_ records: [RecordID]) async throws(AISyncError) {
        var candidates = Set<SHA256Digest>()
        for record in records {
            guard let body = try await store.lastLiveBody(of: record) else { continue }
            candidates.formUnion(body.imageReferences)
        }
        var unused = Set<SHA256Digest>()
        for digest in candidates where try await !store.isImageInUse(digest) { unused.insert(digest) }
        guard !unused.isEmpty else { return }
        var state = try await store.readImgurState()
        var changed = false
        for copy in try await store.imgurCopies(of: unused) {
            state.pendingDeletes[copy.id] = copy.deletehash ?? ""
            changed = true
        }
        for digest in unused {
            guard let answer = state.answered.removeValue(forKey: digest) else { continue }
            state.pendingDeletes[answer.id] = answer.deletehash ?? ""
            changed = true
        }
        if changed { try await store.writeImgurState(state) }
    }

    /// Deletes the queued Imgur copies; what fails stays queued for the next push. Called by
    /// a push after its records went out.
    func flushDeletes(into report: inout SyncReport) async throws(AISyncError) {
        var state = try await store.readImgurState()
        guard !state.pendingDeletes.isEmpty else { return }
        for (id, deletehash) in state.pendingDeletes.sorted(by: { $0.key < $1.key }) {
            do throws(ImgurError) {
                try await client.delete(id: id, deletehash: deletehash.isEmpty ? nil : deletehash)
                state.pendingDeletes[id] = nil
                state.deletes += 1
                report.imgurDeleted += 1
            } catch {
                if let limit = error.rateLimit { state.rateLimit = limit.json }
                if error.kind == .auth {
                    try await store.writeImgurState(state)
                    throw error.aisyncError
                }
                report.imgurErrors.append(error.aisyncError.description)
            }
        }
        try await store.writeImgurState(state)
    }
}
