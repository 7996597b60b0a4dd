import AISyncCore
import AISyncImgur
import AISyncRemote
import AISyncStore

/// What a push, pull or sync moved.
public struct SyncReport: Sendable, Equatable {
    /// Versions written to the remote.
    public var pushed = 0
    /// Versions received that changed this store.
    public var pulled = 0
    /// Records in conflict after the operation.
    public var conflicts = 0
    /// Bytes sent and received (segments, heads, blobs).
    public var bytes: Int64 = 0
    /// Segments (batches of versions) written or read.
    public var segments = 0
    /// Of ``bytes``, those of the segments a push wrote: what automatic snapshots weigh
    /// (pictures are not in snapshots, so they do not count).
    public var segmentBytes: Int64 = 0
    /// Image files sent to or received from the remote (or fetched from Imgur on pull).
    public var blobs = 0
    /// Images whose bytes the remote does not have (reported, not fatal).
    public var missingBlobs: [SHA256Digest] = []
    /// Of those, the pictures Imgur removed (its link now shows removed.png).
    public var removedOnImgur: [SHA256Digest] = []
    /// True when nothing was written: the counts say what the run would have moved.
    public var dryRun = false
    /// A dry run's warning: a real push would stop (without `allowMassDelete`) because it
    /// deletes this many records, more than max(50, a quarter of the store); 0 otherwise.
    public var massDelete = 0
    /// Imgur: uploads done in this run, still pending, refused by Imgur, deleted.
    public var imgurUploaded = 0
    /// Images still waiting to go to Imgur after this run (rate limit, outage); the next push retries them.
    public var imgurPending = 0
    /// Images Imgur refused in this run (too big, unsupported); they are not retried until
    /// `Store.retryRefusedImgurUploads()` (`aisync imgur enable`) says so.
    public var imgurFailed = 0
    /// Images deleted from Imgur in this run because no record uses them any more.
    public var imgurDeleted = 0
    /// Unix seconds when Imgur's rate limit resets, when it stopped uploads.
    public var imgurRetryAt: Int64?
    /// Imgur problems that left uploads pending (over capacity, unreachable).
    public var imgurErrors: [String] = []
    /// Set when this store turned out to be a copy used in two places: it took this new
    /// device id (its unpushed changes re-stamped) so both copies keep syncing.
    public var newDeviceID: DeviceID?
    /// The device id the store had before it took ``newDeviceID``; nil when it kept its id.
    public var oldDeviceID: DeviceID?

    /// An empty report: nothing moved.
    public init() {}

    /// Combines the reports of two runs in sequence (`a` then `b`, as `sync` does with pull and
    /// push): counts add up, while `conflicts` and `imgurPending` are taken from `b`, the later.
    public static func + (a: SyncReport, b: SyncReport) -> SyncReport {
        var r = a
        r.pushed += b.pushed
        r.pulled += b.pulled
        r.bytes += b.bytes
        r.segments += b.segments
        r.segmentBytes += b.segmentBytes
        r.blobs += b.blobs
        r.missingBlobs += b.missingBlobs
        r.removedOnImgur += b.removedOnImgur
        r.imgurUploaded += b.imgurUploaded
        r.imgurFailed += b.imgurFailed
        r.imgurDeleted += b.imgurDeleted
        r.imgurPending = b.imgurPending
        r.imgurRetryAt = b.imgurRetryAt ?? a.imgurRetryAt
        r.imgurErrors += b.imgurErrors
        r.conflicts = b.conflicts
        r.dryRun = a.dryRun || b.dryRun
        r.newDeviceID = b.newDeviceID ?? a.newDeviceID
        r.oldDeviceID = b.oldDeviceID ?? a.oldDeviceID
        return r
    }
}
