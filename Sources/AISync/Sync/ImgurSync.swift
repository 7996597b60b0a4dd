/// The image side of sync (design §5): uploads to Imgur on push, fetches from Imgur on pull,
/// deletes on Imgur when the last record using a picture is deleted.
///
/// An original is never lost: Imgur re-encodes big images, so after each upload aisync hashes
/// what the link serves; when that differs from the original, the original also goes to the
/// WebDAV/HTTP/folder remote (`keepsOriginalOnRemote`).
public struct ImgurSync: Sendable {
    let store: Store
    let client: ImgurClient
    let placement: StoreConfig.ImagePlacement
    /// Unix seconds.
    let now: @Sendable () -> Int64
    static let concurrency = 3

    public init(store: Store, client: ImgurClient, placement: StoreConfig.ImagePlacement, now: @escaping @Sendable () -> Int64) {
        self.store = store; self.client = client; self.placement = placement; self.now = now
    }

    /// Whether the original bytes must also be on the remote: always unless Imgur serves
    /// exactly them and the user chose Imgur alone.
    static func keepsOriginalOnRemote(_ image: ImageBody, placement: StoreConfig.ImagePlacement) -> Bool {
        guard placement == .imgur, let imgur = image.imgur, imgur.servedSHA256 == image.sha256 else { return true }
        return false
    }

    /// Uploads every live image without Imgur coordinates. Failures of one image do not stop
    /// the others; a rate limit stops uploading until its reset. Returns counts for the report.
    func uploadPending(into report: inout SyncReport) async throws(AISyncError) {
        var state = try await store.readImgurState()
        let nowSeconds = now()
        let pending = try await store.liveImages().filter { $0.1.imgur == nil && state.failed[$0.1.sha256] == nil }
        report.imgurPending = pending.count
        if let retryAt = state.retryAt, retryAt > nowSeconds {
            report.imgurRetryAt = retryAt
            return
        }
        state.retryAt = nil
        for (id, image) in pending {
            guard await store.hasObject(image.sha256) else { continue }
            do throws(ImgurError) {
                let upload: ImgurState.Upload
                if let known = state.answered[image.sha256] {
                    upload = known   // answered before a crash: reuse, never upload twice
                } else {
                    let (answer, limit) = try await client.upload(fileAt: await store.objectPath(image.sha256), mediaType: image.mediaType,
                                                                  title: image.title, description: image.prompt)
                    upload = ImgurState.Upload(id: answer.id, link: answer.link, deletehash: answer.deletehash, size: answer.size)
                    state.answered[image.sha256] = upload
                    state.uploads += 1
                    if let limit { state.rateLimit = limit.json }
                    try await persist(state)
                }
                let served = try await servedDigest(of: upload, original: image)
                let location = ImageBody.ImgurLocation(id: upload.id, link: upload.link, deletehash: upload.deletehash,
                                                       servedSHA256: served?.digest, servedSize: served?.size ?? upload.size)
                try await record(id, location)
                state.answered[image.sha256] = nil
                try await persist(state)
                report.imgurUploaded += 1
                report.imgurPending -= 1
            } catch {
                if let limit = error.rateLimit { state.rateLimit = limit.json }
                switch error.kind {
                case .rateLimited(let resetAt):
                    state.retryAt = resetAt
                    report.imgurRetryAt = resetAt
                    try await store.writeImgurState(state)
                    return
                case .rejected(let message):
                    state.failed[image.sha256] = message
                    report.imgurFailed += 1
                    report.imgurPending -= 1
                case .auth:
                    try await store.writeImgurState(state)
                    throw error.aisyncError
                case .unavailable, .damaged, .other:
                    report.imgurErrors.append(error.aisyncError.description)
                }
                try await store.writeImgurState(state)
            }
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
    private func servedDigest(of upload: ImgurState.Upload, original: ImageBody) async throws(ImgurError) -> (digest: SHA256Digest, size: Int64)? {
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
    func fetchOriginal(_ image: ImageBody) async -> Bool {
        guard let imgur = image.imgur, imgur.servedSHA256 == image.sha256, let temp = try? await store.scratchPath() else { return false }
        defer { _ = Platform.unlink(temp) }
        guard case .downloaded(let digest, _)? = try? await client.download(link: imgur.link, to: temp, maxBytes: RemoteLimits.blob),
              digest == image.sha256 else { return false }
        return (try? await store.adoptBlob(at: temp, expected: image.sha256)) ?? false
    }

    /// Notes the Imgur copies whose last user the pushed tombstones deleted (no network), so
    /// they are deleted even if this push cannot reach Imgur.
    func queueDeletes(_ versions: [Version]) async throws(AISyncError) {
        var state = try await store.readImgurState()
        var changed = false
        for v in versions where v.isDeleted && v.kind != .chat {
            guard case .image(let image)? = try await store.lastLiveBody(of: v.record), let imgur = image.imgur,
                  try await !store.isImageInUse(image.sha256) else { continue }
            state.pendingDeletes[imgur.id] = imgur.deletehash ?? ""
            changed = true
        }
        if changed { try await store.writeImgurState(state) }
    }

    /// Deletes the queued Imgur copies; what fails stays queued for the next push.
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
                if error.kind == .auth { try await store.writeImgurState(state); throw error.aisyncError }
                report.imgurErrors.append(error.aisyncError.description)
            }
        }
        try await store.writeImgurState(state)
    }
}
