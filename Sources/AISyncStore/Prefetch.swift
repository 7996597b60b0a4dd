import AISyncCore
import Dispatch
import Synchronization

/// Work started on another thread now and taken when needed: the next window of the journal
/// read and parsed while this one is applied (a long catch-up), the next batch of a listing's
/// index lines copied while this one is written (``RecordListing/forEachEntry(_:)``).
final class Prefetch<T: Sendable>: Sendable {
    private let result = Mutex<Result<T, AISyncError>?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    /// Starts `work`.
    init(_ work: @escaping @Sendable () throws(AISyncError) -> T) {
        DispatchQueue.global().async { [self] in
            let made = Result { () throws(AISyncError) -> T in try work() }
            result.withLock { $0 = made }
            ready.signal()
        }
    }

    /// What the work made, or threw, once it is done (waits for it).
    func value() throws(AISyncError) -> T {
        ready.wait()
        ready.signal()  // a second call returns at once
        return try result.withLock { $0! }.get()
    }
}
