import AISyncCore
import AISyncFiles
import AISyncImgur
import AISyncStore

/// The store side of Imgur sync: where the upload bookkeeping lives, which images are live, and
/// recording Imgur coordinates as new versions.
extension Store {
    var imgurStatePath: String { "\(root)/sync/imgur.json" }

    func readImgurState() throws(AISyncError) -> ImgurState {
        guard FileIO.exists(imgurStatePath) else { return ImgurState() }
        return try ImgurState(bytes: FileIO.read(imgurStatePath, limit: 1 << 24), path: imgurStatePath)
    }

    func writeImgurState(_ state: ImgurState) throws(AISyncError) {
        try FileIO.makeDirectories("\(root)/sync")
        try FileIO.writeAtomically(
            imgurStatePath, state.json.canonicalBytes + [10], temporarySuffix: environment.temporarySuffix())
    }

    /// Live image records, with their visible bodies.
    func liveImages() throws(AISyncError) -> [(RecordID, ImageBody)] {
        try locked(write: false) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> [(RecordID, ImageBody)] in
            var result: [(RecordID, ImageBody)] = []
            for id in try snapshot.ids(of: .image, where: { !$0.deleted && !$0.damaged }) {
                guard let state = try stateOf(id, in: snapshot), case .image(let image)? = try? visibleBody(state)
                else { continue }
                result.append((id, image))
            }
            return result
        }
    }

    /// Whether any live record still uses the image bytes `digest` (an image record, or a
    /// story page): deleting its last user is what deletes it on Imgur.
    func isImageInUse(_ digest: SHA256Digest) throws(AISyncError) -> Bool {
        try locked(write: false) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> Bool in
            for id in try snapshot.ids(where: { !$0.deleted && $0.kind != .chat }) {
                guard let state = try stateOf(id, in: snapshot), let body = try? visibleBody(state) else { continue }
                if body.imageReferences.contains(digest) { return true }
            }
            return false
        }
    }

    /// Records where Imgur keeps an image: a new version of its record setting `imgur`.
    func setImgurLocation(_ id: RecordID, _ location: ImageBody.ImgurLocation) throws(AISyncError) {
        _ = try edit(id) { (state: RecordState, _, _) throws(AISyncError) -> RecordBody.OperationList in
            var list = RecordBody.OperationList()
            if state.kind == .image { list.set("imgur", location.json) }
            return list
        }
    }

    /// Every Imgur copy any image record (live or deleted, any version) recorded for one of
    /// `digests`, once per Imgur id: what to delete on Imgur when the bytes' last user is gone.
    func imgurCopies(of digests: Set<SHA256Digest>) throws(AISyncError) -> [ImageBody.ImgurLocation] {
        try locked(write: false) {
            (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> [ImageBody.ImgurLocation] in
            var copies: [String: ImageBody.ImgurLocation] = [:]
            for id in try snapshot.ids(of: .image, where: { _ in true }) {
                guard let state = try stateOf(id, in: snapshot),
                    case .inline(.string(let hex))? = state.value("sha256"),
                    let sha = SHA256Digest(hex: hex), digests.contains(sha)
                else { continue }
                for v in try versions(of: id, in: snapshot) {
                    for case .set("imgur", .inline(let value)) in reader.operations(of: v) ?? [] {
                        guard value != .null, let imgur = try? ImageBody.ImgurLocation(json: value) else { continue }
                        if copies[imgur.id]?.deletehash == nil { copies[imgur.id] = imgur }
                    }
                }
            }
            return copies.values.sorted { $0.id < $1.id }
        }
    }

    /// What a record held when it was deleted (for deleting its Imgur copy).
    func lastLiveBody(of id: RecordID) throws(AISyncError) -> RecordBody? {
        try locked(write: false) { (snapshot: inout StoreSnapshot, _) throws(AISyncError) -> RecordBody? in
            guard let state = try stateOf(id, in: snapshot) else { return nil }
            return try? visibleBody(state)
        }
    }
}

/// What `aisync imgur status` shows.
public struct ImgurStatus: Sendable, Equatable {
    /// How many images this store has uploaded to Imgur (a running total kept in `sync/imgur.json`).
    public var uploads: Int64
    /// How many images this store has deleted from Imgur (a running total kept in `sync/imgur.json`).
    public var deletes: Int64
    /// Live images without Imgur coordinates (and not refused).
    public var pending: Int
    /// Images Imgur refused: sha256 and Imgur's message.
    public var failed: [(sha256: SHA256Digest, message: String)]
    /// Unix seconds (not milliseconds) before which no upload is tried, after a 429; nil when
    /// Imgur is not rate limiting this store.
    public var retryAt: Int64?
    /// The last rate-limit figures Imgur sent, in the form ``ImgurRateLimit/json`` writes
    /// (`user`, `client`, `post`, `observedAt`); nil before the first answer.
    public var rateLimit: JSONValue?
    /// Whether uploads are turned on (`enableImgur`).
    public var enabled = false
    /// Where image bytes go; `.remote` when Imgur was never enabled.
    public var images: StoreConfig.ImagePlacement = .remote

    /// Field by field, `failed` compared by its digests and messages (tuples are not `Equatable`).
    public static func == (a: ImgurStatus, b: ImgurStatus) -> Bool {
        a.uploads == b.uploads && a.deletes == b.deletes && a.pending == b.pending && a.retryAt == b.retryAt
            && a.enabled == b.enabled && a.images == b.images
            && a.rateLimit == b.rateLimit && a.failed.map(\.sha256) == b.failed.map(\.sha256)
            && a.failed.map(\.message) == b.failed.map(\.message)
    }
}

extension Store {
    /// Uploads done, pending and refused, the last rate-limit figures, and the settings;
    /// nothing is pending when image bytes stay on the remote (`images: .remote`).
    public func imgurStatus() throws(AISyncError) -> ImgurStatus {
        let state = try readImgurState()
        let settings = try currentConfig().imgur
        // With images kept on the remote, nothing waits for Imgur.
        let pending =
            settings?.images == .remote
            ? 0
            : try liveImages().filter { $0.1.imgur == nil && state.failed[$0.1.sha256] == nil }.count
        return ImgurStatus(
            uploads: state.uploads, deletes: state.deletes, pending: pending,
            failed: state.failed.sorted { $0.key.hex < $1.key.hex }.map { ($0.key, $0.value) },
            retryAt: state.retryAt, rateLimit: state.rateLimit,
            enabled: settings?.enabled ?? false, images: settings?.images ?? .remote)
    }
}

extension Store {
    /// Forgets which images Imgur refused, so the next push tries them again (after the user
    /// shrank them, or Imgur's limits changed). Returns how many were forgotten.
    @discardableResult
    public func retryRefusedImgurUploads() throws(AISyncError) -> Int {
        var state = try readImgurState()
        let count = state.failed.count
        guard count > 0 else { return 0 }
        state.failed = [:]
        try writeImgurState(state)
        return count
    }
}
