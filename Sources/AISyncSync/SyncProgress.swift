import AISyncCore
import AISyncStore
import AISyncRemote
import AISyncImgur
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
    /// Items finished before this one (0-based), and the phase's total.
    public var done: Int
    /// How many items (images or segments) this phase moves in all.
    public var total: Int
    /// Bytes moved in this phase so far.
    public var bytes: Int64
    /// A device name, for pulls from one device.
    public var from: String?

    /// A progress report; the engine makes these, tests and previews may too.
    public init(phase: Phase, done: Int, total: Int, bytes: Int64 = 0, from: String? = nil) {
        self.phase = phase; self.done = done; self.total = total; self.bytes = bytes; self.from = from
    }

    /// "pushing segment 2/5", the line the command line shows on a terminal.
    public var description: String {
        let what = switch phase {
        case .pushingImages: "pushing image"
        case .pushingSegments: "pushing segment"
        case .pullingSegments: "pulling segment"
        case .pullingImages: "pulling image"
        case .takingBackOwnSegments: "taking back own segment"
        }
        return "\(what) \(done + 1)/\(total)" + (from.map { " of \($0.prefix(40))" } ?? "") + (bytes > 0 ? ", \(bytes) bytes" : "")
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
