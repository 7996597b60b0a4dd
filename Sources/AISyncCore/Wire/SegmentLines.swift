/// One step of reading a segment's lines.
package enum SegmentLine: Sendable {
    /// A whole line, without its newline.
    case line(ArraySlice<UInt8>)
    /// No more bytes.
    case end
    /// The line goes on past the length asked for (the rest is not read).
    case tooLong
    /// The last bytes have no newline: the file was cut short.
    case unterminated
}

/// Where `Segment.decode` reads lines from: memory (``SegmentBytes``) or a file read in
/// pieces (`FileLines` in AISyncFiles), one line at a time.
package protocol SegmentLines {
    /// The next line, if it is at most `maxBytes` long.
    mutating func next(maxBytes: Int) throws(AISyncError) -> SegmentLine
}

/// The lines of a segment held in memory.
package struct SegmentBytes: SegmentLines {
    private let bytes: [UInt8]
    private var start = 0

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    package mutating func next(maxBytes: Int) throws(AISyncError) -> SegmentLine {
        guard start < bytes.count else { return .end }
        guard let newline = bytes[start...].firstIndex(of: 10) else { return .unterminated }
        guard newline - start <= maxBytes else { return .tooLong }
        defer { start = newline + 1 }
        return .line(bytes[start..<newline])
    }
}
