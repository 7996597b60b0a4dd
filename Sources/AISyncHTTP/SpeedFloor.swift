import AISyncCore
import Synchronization

/// The slowest transfer worth waiting for, like curl's `--speed-limit`/`--speed-time`: a
/// request that moves fewer than `bytesPerSecond` × `seconds` bytes in any `seconds`-long
/// stretch is ended with one line. A server that trickles a byte every two seconds never trips
/// the inactivity timeout; this ends it after `seconds`, not after the overall deadline.
public struct SpeedFloor: Sendable, Equatable {
    /// The average rate below which a stretch counts as too slow.
    public var bytesPerSecond: Int64
    /// How long a stretch is.
    public var seconds: Double

    /// A floor of `bytesPerSecond` over `seconds`.
    public init(bytesPerSecond: Int64, seconds: Double) {
        self.bytesPerSecond = bytesPerSecond
        self.seconds = seconds
    }

    /// Under 1 KiB/s for 30 s.
    public static let standard = SpeedFloor(bytesPerSecond: 1024, seconds: 30)

    /// No floor (only the inactivity timeout and the overall deadline).
    public static let none = SpeedFloor(bytesPerSecond: 0, seconds: 0)

    /// `1 KB/s for 30 s`, for messages.
    var text: String {
        let rate = bytesPerSecond >= 1024 ? "\(bytesPerSecond / 1024) KB/s" : "\(bytesPerSecond) bytes/s"
        return "\(rate) for \(Int(seconds.rounded())) s"
    }
}

/// Measures one request's progress against a ``SpeedFloor``: bytes sent and received are
/// counted, and each `seconds`-long stretch, from the first byte moved, must move enough.
/// Until a byte moves, the inactivity timeout alone governs: a connection slow to open (a
/// loaded machine, a slow handshake) is not judged as a slow transfer.
final class PaceMeter: Sendable {
    let floor: SpeedFloor
    private struct State {
        /// When the current stretch began; nil until the first byte moves.
        var stretchStart: UInt64?
        /// When the last check ran.
        var lastCheck: UInt64?
        var movedAtStart: Int64 = 0
        var moved: Int64 = 0
        /// Set once a stretch moved too little: what it moved.
        var tooSlow: Int64?
    }
    private let state: Mutex<State>

    /// A meter whose first stretch starts with the first byte moved.
    init(_ floor: SpeedFloor) {
        self.floor = floor
        state = Mutex(State())
    }

    /// Counts `bytes` moved at `now` (monotonic nanoseconds).
    func add(_ bytes: Int, now: UInt64) {
        state.withLock { s in
            if s.stretchStart == nil { s.stretchStart = now }
            s.moved += Int64(bytes)
        }
    }

    /// What the last finished stretch moved if it was too little; nil while the pace holds.
    /// Called often (at least every second): a stretch ends when `now` is `seconds` past its
    /// start. A check that comes more than ``stallNanoseconds`` after the one before means
    /// this process was not running (a starved thread pool, a suspended app): the stretch
    /// starts again rather than blame the server for the pause.
    func check(now: UInt64) -> Int64? {
        guard floor.bytesPerSecond > 0, floor.seconds > 0 else { return nil }
        return state.withLock { s in
            if let slow = s.tooSlow { return slow }
            defer { s.lastCheck = now }
            if let last = s.lastCheck, now > last, now - last > Self.stallNanoseconds, s.stretchStart != nil {
                s.stretchStart = now
                s.movedAtStart = s.moved
                return nil
            }
            guard let start = s.stretchStart, now >= start, Double(now - start) >= floor.seconds * 1e9 else {
                return nil
            }
            let moved = s.moved - s.movedAtStart
            if Double(moved) < Double(floor.bytesPerSecond) * floor.seconds {
                s.tooSlow = moved
                return moved
            }
            s.stretchStart = now
            s.movedAtStart = s.moved
            return nil
        }
    }

    /// The longest gap between two checks that is not a stall of this process (they come
    /// every second at most).
    static let stallNanoseconds: UInt64 = 2_500_000_000

    /// The one error for a request to `host` whose stretch moved only `moved` bytes.
    func error(host: String, moved: Int64) -> AISyncError {
        AISyncError(
            .temporary,
            "\(host) is too slow: \(moved) bytes moved in \(Int(floor.seconds.rounded())) s, under \(floor.text)",
            hint: "Try again later; if the server or the network stays this slow, check them", remedy: .retryLater)
    }
}
