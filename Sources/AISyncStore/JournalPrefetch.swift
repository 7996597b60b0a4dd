import AISyncCore
import Dispatch
import Synchronization

/// Reads and parses one window of the journal on another thread, so a long catch-up (an
/// index rebuilt from 100,000 versions) parses the next window while it applies this one.
final class JournalPrefetch: Sendable {
    private let result = Mutex<Result<Journal.Chunk, AISyncError>?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    /// Starts reading `maxBytes` of whole lines at `offset` (line `firstLine`).
    init(_ journal: Journal, from offset: Int64, firstLine: Int, maxBytes: Int) {
        DispatchQueue.global().async { [self] in
            let read = Result { () throws(AISyncError) -> Journal.Chunk in
                try journal.read(from: offset, firstLine: firstLine, maxBytes: maxBytes)
            }
            result.withLock { $0 = read }
            ready.signal()
        }
    }

    /// The window, once read (waits for it).
    func chunk() throws(AISyncError) -> Journal.Chunk {
        ready.wait()
        ready.signal()  // a second call returns at once
        return try result.withLock { $0! }.get()
    }
}
