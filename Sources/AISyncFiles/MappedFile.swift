import Synchronization
import AISyncCore

/// A file mapped read-only into memory, for a large cache read in place (the store's index):
/// only the pages a command touches are read, and they belong to the page cache, not the
/// heap, so a lookup in a 100 MB index costs a few pages and a listing can hand back what
/// it has passed (``release(_:)``).
///
/// The mapping keeps the file's bytes as they were when opened: files read this way are only
/// ever replaced by rename, never rewritten in place.
package final class MappedFile: Sendable {
    /// Where the mapping starts, as an integer (a pointer is not `Sendable`; the bytes never
    /// change, so reading them from any thread is safe).
    private let address: UInt
    /// The file's size when mapped.
    package let count: Int
    /// Lookups since the pages were last handed back (``lookedUp()``).
    private let lookups = Atomic<Int>(0)

    /// Maps `path`; nil when it is missing, empty, or cannot be mapped (the caller then reads
    /// without the cache).
    package init?(path: String) {
        guard let (address, count) = Platform.mapReadOnly(path) else { return nil }
        self.address = address
        self.count = count
    }

    deinit { Platform.unmap(address, count) }

    /// Runs `body` over the file's bytes (valid only inside `body`).
    package func withBytes<T, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> T) throws(E) -> T {
        try body(UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: address), count: count))
    }

    /// Notes one random-access read (an index lookup); every 16 of them the whole file's
    /// pages are handed back, so lookups scattered over a large file hold a few pages, not
    /// all it has (a pull of 1,000,000 records looks up every one of them). Often, because
    /// Linux maps 64 KB around every page fault of a file ("fault-around"): 256 lookups
    /// between releases still held 16 MB of a 27 MB index. `every` other than 16: callers
    /// whose reads are closer together.
    package func lookedUp(every: Int = 16) {
        let (n, _) = lookups.add(1, ordering: .relaxed)
        if n % every == every - 1 { release(0..<count) }
    }

    /// Tells the system the pages of `range` are not needed for now: they leave this
    /// process's memory (a later read brings them back from the page cache), so a pass over
    /// the whole file holds a window of it, not all of it.
    package func release(_ range: Range<Int>) {
        guard range.upperBound <= count else { return }
        Platform.dropPages(address, range)
    }
}
