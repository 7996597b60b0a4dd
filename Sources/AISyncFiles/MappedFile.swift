import AISyncCore

/// A file mapped read-only into memory, for a large cache read in place (the store's index):
/// only the pages a command touches are read, and they belong to the page cache, not the
/// heap, so a listing of a 100 MB index can hand back what it has passed (``release(_:)``);
/// a lookup copies the few KB it needs instead (``copy(_:)``).
///
/// The mapping keeps the file's bytes as they were when opened: files read this way are only
/// ever replaced by rename, never rewritten in place.
package final class MappedFile: Sendable {
    /// Where the mapping starts, as an integer (a pointer is not `Sendable`; the bytes never
    /// change, so reading them from any thread is safe).
    private let address: UInt
    /// The file's size when mapped.
    package let count: Int
    /// The file, open for ``copy(_:)``.
    private let fd: Int32

    /// Maps `path`; nil when it is missing, empty, or cannot be mapped (the caller then reads
    /// without the cache).
    package init?(path: String) {
        guard let (address, count, fd) = Platform.mapReadOnly(path) else { return nil }
        self.address = address
        self.count = count
        self.fd = fd
    }

    deinit {
        Platform.unmap(address, count)
        Platform.close(fd)
    }

    /// Runs `body` over the file's bytes (valid only inside `body`): for passes over much of
    /// the file, which hand back what they passed with ``release(_:)``.
    package func withBytes<T, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> T) throws(E) -> T {
        try body(UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: address), count: count))
    }

    /// A copy of `range` of the file, read with `pread` instead of through the mapping: for
    /// scattered small reads (an index lookup). Touching a mapped page can map the whole
    /// page-cache folio around it, so lookups through the mapping held megabytes of the index
    /// for a few KB read each (docs/PERFORMANCE.md). Nil when the file cannot be read or is shorter.
    package func copy(_ range: Range<Int>) -> [UInt8]? {
        guard range.lowerBound >= 0, range.upperBound <= count else { return nil }
        var bytes = [UInt8](repeating: 0, count: range.count)
        return bytes.withUnsafeMutableBytes { read(range, into: $0) } ? bytes : nil
    }

    /// Reads `range` of the file with `pread` into `buffer` (at least `range.count` bytes):
    /// ``copy(_:)`` without making an array, for a pass that reads chunk after chunk. False
    /// when the file cannot be read or is shorter.
    package func read(_ range: Range<Int>, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard range.lowerBound >= 0, range.upperBound <= count, buffer.count >= range.count else { return false }
        let target = UnsafeMutableRawBufferPointer(rebasing: buffer[..<range.count])
        return Platform.pread(fd, into: target, at: Int64(range.lowerBound)) == range.count
    }

    /// Tells the system the pages of `range` are not needed for now: they leave this
    /// process's memory (a later read brings them back from the page cache), so a pass over
    /// the whole file holds a window of it, not all of it.
    package func release(_ range: Range<Int>) {
        guard range.upperBound <= count else { return }
        Platform.dropPages(address, range)
    }
}
