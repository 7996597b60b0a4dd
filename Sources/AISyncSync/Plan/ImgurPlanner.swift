import AISyncCore
import AISyncImgur
import AISyncStore

/// The decisions of Imgur uploads, as pure functions (docs/DESIGN.md §7): what is pending, whether a
/// rate limit still holds, where each image's Imgur copy comes from, how uploads are batched,
/// and what a failure means for the rest. `ImgurSync.uploadPending` carries them out.
enum ImgurPlanner {
    /// Where uploads stand before a push.
    struct Start: Equatable {
        /// Live images without Imgur coordinates that Imgur has not refused, in record order.
        var pending: [RecordID]
        /// The Imgur copy each digest already has: the same bytes in another record reuse it.
        var copies: [SHA256Digest: ImageBody.ImgurLocation]
        /// Unix seconds until which Imgur's rate limit holds: no upload before then.
        var waitUntil: Int64?
    }

    static func start(live: [(RecordID, ImageBody)], state: ImgurState, now: Int64) -> Start {
        var copies: [SHA256Digest: ImageBody.ImgurLocation] = [:]
        for (_, image) in live { if let imgur = image.imgur { copies[image.sha256] = imgur } }
        let pending = live.filter { $0.1.imgur == nil && state.failed[$0.1.sha256] == nil }.map(\.0)
        let wait = state.retryAt.flatMap { $0 > now ? $0 : nil }
        return Start(pending: pending, copies: copies, waitUntil: wait)
    }

    /// The batch of uploads that starts at position `n` of `count` pending images, if one
    /// does: the first upload goes alone (it finds out whether the rate budget is spent), then
    /// `concurrency` at a time.
    static func batch(at n: Int, count: Int, concurrency: Int) -> Range<Int>? {
        guard n < count, n == 0 || (n - 1) % concurrency == 0 else { return nil }
        return n..<min(count, n + (n == 0 ? 1 : concurrency))
    }

    /// Where an image's Imgur copy comes from.
    enum Source: Equatable {
        /// Another record with the same bytes is on Imgur already.
        case reuse(ImageBody.ImgurLocation)
        /// Imgur answered before a crash; never upload twice.
        case answered(ImgurState.Upload)
        /// The answer may have been lost after Imgur stored it: look in the account first.
        case findLost
        /// Upload it.
        case upload
    }

    static func source(for digest: SHA256Digest, copies: [SHA256Digest: ImageBody.ImgurLocation], state: ImgurState)
        -> Source
    {
        if let copy = copies[digest] { return .reuse(copy) }
        if let known = state.answered[digest] { return .answered(known) }
        return state.maybeUploaded.contains(digest) ? .findLost : .upload
    }

    /// What one failed upload means for the rest.
    enum AfterFailure: Equatable {
        /// Rate limited: stop until Imgur's reset (Unix seconds).
        case stopUntil(Int64)
        /// Imgur refused this image for good (too big, wrong type): note it, go on.
        case refused(String)
        /// The credential was refused: stop uploading; the records still go out, then the push
        /// reports it.
        case stopForCredential
        /// Over capacity or unreachable: leave it pending, go on.
        case keepPending
    }

    static func afterFailure(_ kind: ImgurError.Kind) -> AfterFailure {
        switch kind {
        case .rateLimited(let resetAt): return .stopUntil(resetAt)
        case .rejected(let message): return .refused(message)
        case .auth: return .stopForCredential
        case .unavailable, .damaged, .other: return .keepPending
        }
    }
}
