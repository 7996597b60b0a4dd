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
    public var dryRun = false

    public init() {}

    public static func + (a: SyncReport, b: SyncReport) -> SyncReport {
        var r = a
        r.pushed += b.pushed; r.pulled += b.pulled; r.bytes += b.bytes; r.segments += b.segments; r.blobs += b.blobs
        r.missingBlobs += b.missingBlobs
        r.conflicts = b.conflicts
        r.dryRun = a.dryRun || b.dryRun
        return r
    }
}
