import AISyncCore
import Foundation

/// A file's lines read a MiB at a time, for `Segment.decode`: a downloaded segment is parsed
/// without reading it whole into memory first, and a line longer than asked for is refused
/// once that many bytes were read, not after reading the rest.
package final class FileLines: SegmentLines {
    private let fd: Int32
    private let path: String
    private var buffer: [UInt8] = []
    private var start = 0
    /// Bytes of `buffer` from `start` up to here hold no newline.
    private var scanned = 0
    private var atEnd = false
    /// Where the next read starts, and where the lines end (the file's end when nil).
    private var offset: Int64
    private let limit: Int64?

    /// Opens `path`, for its lines from byte `from` (the start of a line) up to byte `to` (the
    /// end of one; the file's end when nil). Throws `.io` when it cannot be read.
    package init(path: String, from: Int64 = 0, to: Int64? = nil) throws(AISyncError) {
        fd = Platform.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileIO.ioError("read", path, errno: Platform.errno) }
        self.path = path
        (offset, limit) = (from, to)
    }

    deinit { Platform.close(fd) }

    package func next(maxBytes: Int) throws(AISyncError) -> SegmentLine {
        while true {
            if let newline = buffer[max(start, scanned)...].firstIndex(of: 10) {
                guard newline - start <= maxBytes else { return .tooLong }
                defer {
                    start = newline + 1
                    scanned = start
                }
                return .line(buffer[start..<newline])
            }
            scanned = buffer.count
            if buffer.count - start > maxBytes { return .tooLong }
            if atEnd { return start < buffer.count ? .unterminated : .end }
            try fill()
        }
    }

    /// Drops the lines already handed out and reads up to another MiB.
    private func fill() throws(AISyncError) {
        if start > 0 {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
        let old = buffer.count
        let size = Int(min(Int64(1 << 20), limit.map { max($0 - offset, 0) } ?? Int64(1 << 20)))
        buffer.append(contentsOf: repeatElement(0, count: size))
        let n = buffer.withUnsafeMutableBytes {
            Platform.pread(fd, into: UnsafeMutableRawBufferPointer(rebasing: $0[old...]), at: offset)
        }
        guard let n else { throw FileIO.ioError("read", path, errno: Platform.errno) }
        buffer.removeLast(size - n)
        offset += Int64(n)
        if n == 0 { atEnd = true }
    }
}
