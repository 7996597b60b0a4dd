import AISyncCore
import AISyncImgur
import AISyncRemote
import AISyncStore

/// Where a push or pull is, for a progress bar: what it is moving, how many of how many, and
/// the bytes moved so far in this phase.
public struct SyncProgress: Hashable, Sendable, CustomStringConvertible {
    /// What a sync is moving right now.
    public enum Phase: String, Hashable, Sendable {
        /// `pushingImages`, `pushingSegments`: sending image bytes, then batches of versions.
        /// `pullingSegments`, `pullingImages`: fetching other devices' versions, then their pictures.
        /// `takingBackOwnSegments`: a store restored from a backup fetching its own newer versions back.
        case pushingImages, pushingSegments, pullingSegments, pullingImages, takingBackOwnSegments
    }

    /// What is moving.
    public var phase: Phase
    /// Items finished so far in this phase: versions when pushing them, segments when
    /// pulling, images for pictures.
    public var done: Int
    /// How many items this phase moves in all.
    public var total: Int
    /// Bytes moved in this phase so far.
    public var bytes: Int64
    /// About how many bytes the phase moves in all; 0 when not known in advance (pulls learn
    /// a segment's size only when they fetch it).
    public var totalBytes: Int64
    /// A device name, for pulls from one device.
    public var from: String?

    /// A progress report; the engine makes these, tests and previews may too.
    public init(phase: Phase, done: Int, total: Int, bytes: Int64 = 0, totalBytes: Int64 = 0, from: String? = nil) {
        self.phase = phase
        self.done = done
        self.total = total
        self.bytes = bytes
        self.totalBytes = totalBytes
        self.from = from
    }

    /// How far the phase is, from 0 to 1: by bytes when their total is known, else by items.
    public var fraction: Double {
        if totalBytes > 0 { return min(1, Double(bytes) / Double(totalBytes)) }
        return total > 0 ? min(1, Double(done) / Double(total)) : 0
    }

    /// What is moving, as a label: "pushing versions", "pulling pictures".
    public var label: String {
        switch phase {
        case .pushingImages: "pushing pictures"
        case .pushingSegments: "pushing versions"
        case .pullingSegments: "pulling segments" + (from.map { " of \($0.prefix(40))" } ?? "")
        case .pullingImages: "pulling pictures"
        case .takingBackOwnSegments: "taking back own segments"
        }
    }

    /// "pushing versions 1200/2000, 3145728 bytes": a plain line for logs and previews.
    public var description: String {
        "\(label) \(done)/\(total)" + (bytes > 0 ? ", \(bytes) bytes" : "")
    }

    /// A stream of progress and the callback that feeds it, for `SyncEngine(progress:)`:
    ///
    /// ```swift
    /// let (updates, report) = SyncProgress.stream()
    /// let engine = SyncEngine(store: store, remote: remote, name: "cloud", progress: report)
    /// Task { for await p in updates { self.fraction = Double(p.done) / Double(max(p.total, 1)) } }
    /// ```
    public static func stream() -> (AsyncStream<SyncProgress>, @Sendable (SyncProgress) -> Void) {
        let (stream, continuation) = AsyncStream<SyncProgress>.makeStream(bufferingPolicy: .bufferingNewest(1))
        return (stream, { continuation.yield($0) })
    }
}
