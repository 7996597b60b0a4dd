import AISyncCore
import AISyncStore
import AISyncRemote
import AISyncImgur
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
    public var segments = 0
    public var blobs = 0
    /// Images whose bytes the remote does not have (reported, not fatal).
    public var missingBlobs: [SHA256Digest] = []
    /// Of those, the pictures Imgur removed (its link now shows removed.png).
    public var removedOnImgur: [SHA256Digest] = []
    public var dryRun = false
    /// Imgur: uploads done in this run, still pending, refused by Imgur, deleted.
    public var imgurUploaded = 0
    public var imgurPending = 0
    public var imgurFailed = 0
    public var imgurDeleted = 0
    /// Unix seconds when Imgur's rate limit resets, when it stopped uploads.
    public var imgurRetryAt: Int64?
    /// Imgur problems that left uploads pending (over capacity, unreachable).
    public var imgurErrors: [String] = []
    /// Set when this store turned out to be a copy used in two places: it took this new
    /// device id (its unpushed changes re-stamped) so both copies keep syncing.
    public var newDeviceID: DeviceID?
    public var oldDeviceID: DeviceID?

    public init() {}

    public static func + (a: SyncReport, b: SyncReport) -> SyncReport {
        var r = a
        r.pushed += b.pushed; r.pulled += b.pulled; r.bytes += b.bytes; r.segments += b.segments; r.blobs += b.blobs
        r.missingBlobs += b.missingBlobs
        r.removedOnImgur += b.removedOnImgur
        r.imgurUploaded += b.imgurUploaded; r.imgurFailed += b.imgurFailed; r.imgurDeleted += b.imgurDeleted
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
