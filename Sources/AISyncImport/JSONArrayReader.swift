import AISyncCore
import AISyncFiles

/// Reads the elements of a JSON file whose top level is an array one at a time, in chunks,
/// so a 1 GB `conversations.json` never sits in memory whole: only the element being read
/// (one conversation) and one chunk do.
///
/// ``nextValue(inPlace:undo:parse:into:)`` parses each element strictly (``JSONParser``) where it lies in the
/// chunk; ``next()``, which it falls back on for an element that runs past the chunk or is not
/// valid JSON, finds where an element ends (tracking strings, escapes and nesting) and hands
/// back its bytes. Bytes between elements must be whitespace and commas in the right places,
/// else it is an error naming the offset.
struct JSONArrayReader {
    enum State { case beforeArray, beforeFirst, beforeElement, inElement, done }

    let path: String
    let size: Int64
    let chunkSize: Int
    private var fileOffset: Int64 = 0
    private var buffer: [UInt8] = []
    /// Where `buffer` starts in the file.
    private var bufferStart: Int64 = 0
    private var position = 0
    private var elementStart = -1
    private var depth = 0
    private var inString = false
    private var escaped = false
    private(set) var state = State.beforeArray

    /// A reader for `path`; nil when the file's first non-space byte is not `[`.
    init?(path: String, chunkSize: Int = 8 << 20) throws(AISyncError) {
        self.path = path
        self.chunkSize = chunkSize
        size = Platform.stat(path)?.size ?? 0
        let head = try FileIO.readRange(path, from: 0, count: Int(min(size, 4096)))
        guard head.first(where: { !Self.isSpace($0) }) == UInt8(ascii: "[") else { return nil }
    }

    /// How far into the file reading has come (the byte after the last one looked at).
    var offset: Int64 { bufferStart + Int64(position) }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    /// The bytes of the next element, or nil after the closing `]`.
    mutating func next() throws(AISyncError) -> ArraySlice<UInt8>? {
        while true {
            while position < buffer.count {
                if state == .inElement { skipInside() }
                guard position < buffer.count else { break }
                if let element = try step(buffer[position]) { return element }
                position += 1
            }
            guard state != .done || fileOffset < size else { return nil }
            guard fileOffset < size else { throw bad("unexpected end of input") }
            try refill()
        }
    }

    /// Inside an element, skips string contents and bytes that are not structural, stopping
    /// at the next byte that may change the nesting (a quote, bracket, brace or comma) so
    /// ``step(_:)`` sees only those. Most of a conversation is string contents.
    private mutating func skipInside() {
        var p = position
        var inString = inString
        var escaped = escaped
        buffer.withUnsafeBufferPointer { bytes in
            let end = bytes.count
            guard let base = bytes.baseAddress else { return }
            while p < end {
                if inString, !escaped {
                    // Eight bytes at a time through string contents, to the next quote or
                    // backslash (most of an export is message text).
                    while p + 8 <= end {
                        let word = UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self)
                        if Self.hasByte(word, 0x22) || Self.hasByte(word, 0x5C) { break }
                        p += 8
                    }
                    guard p < end else { break }
                }
                let b = bytes[p]
                if inString {
                    if escaped {
                        escaped = false
                    } else if b == 0x5C {
                        escaped = true
                    } else if b == 0x22 {
                        inString = false
                    }
                } else if b == 0x22 {
                    inString = true
                } else if b == 0x5B || b == 0x5D || b == 0x7B || b == 0x7D || b == 0x2C {
                    return
                }
                p += 1
            }
        }
        position = p
        self.inString = inString
        self.escaped = escaped
    }

    /// Whether any of the eight bytes of `word` is `byte` (the classic zero-byte test on
    /// `word ^ byte×8`: exact, no false positives).
    @inline(__always)
    static func hasByte(_ word: UInt64, _ byte: UInt8) -> Bool {
        let x = word ^ (0x0101_0101_0101_0101 &* UInt64(byte))
        return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080 != 0
    }

    /// The next elements, parsed, until they hold at least `bytes` bytes of JSON or the list
    /// ends (empty after the closing `]`), and how many bytes they held.
    mutating func nextValues(upTo bytes: Int, parse: ([UInt8]) throws(AISyncError) -> JSONValue)
        throws(AISyncError) -> (values: [JSONValue], bytes: Int)
    {
        var values: [JSONValue] = []
        var total = 0
        while total < bytes,
            let count = try nextValue(
                inPlace: Self.parseInPlace, undo: { $0.removeLast() },
                parse: { (bytes, values) throws(AISyncError) in values.append(try parse(bytes)) }, into: &values)
        {
            total += count
        }
        return (values, total)
    }

    /// The next elements parsed into `tape`, until they hold at least `bytes` bytes of JSON or
    /// the list ends, and how many bytes they held. `parse` appends an element copied out (one
    /// across a chunk's end, or one the tape refused) or throws why it is not JSON.
    mutating func nextValues(
        upTo bytes: Int, into tape: inout JSONTape.Builder,
        parse: ([UInt8], inout JSONTape.Builder) throws(AISyncError) -> Void
    ) throws(AISyncError) -> Int {
        var total = 0
        while total < bytes,
            let count = try nextValue(
                inPlace: { tape, buffer, start in tape.append(in: buffer, at: start, depth: 0) },
                undo: { $0.removeLast() }, parse: { (bytes, tape) throws(AISyncError) in try parse(bytes, &tape) },
                into: &tape)
        {
            total += count
        }
        return total
    }

    private static func parseInPlace(_ values: inout [JSONValue], _ buffer: UnsafeBufferPointer<UInt8>, _ start: Int)
        -> Int?
    {
        guard let (value, end) = JSONParser.value(in: buffer, at: start, depth: 0) else { return nil }
        values.append(value)
        return end
    }

    /// The next element parsed into `output`, and its length in bytes; nil after the closing `]`.
    ///
    /// An element that lies whole in the chunk read (nearly all) is parsed where it is by
    /// `inPlace` (which adds it to `output` and says where it ends, or adds nothing and
    /// gives nil): no first pass to find its end, no copy. One that runs past the chunk,
    /// or is not valid JSON, is found by ``next()`` and its copy given to `parse`, so an
    /// error says where, exactly as before. When `inPlace` parsed a value but no separator
    /// follows it in the chunk, `undo` takes it back out of `output`.
    private mutating func nextValue<Output>(
        inPlace: (inout Output, UnsafeBufferPointer<UInt8>, Int) -> Int?, undo: (inout Output) -> Void,
        parse: ([UInt8], inout Output) throws(AISyncError) -> Void, into output: inout Output
    ) throws(AISyncError) -> Int? {
        if state == .beforeFirst || state == .beforeElement, !inString {
            while position < buffer.count, Self.isSpace(buffer[position]) { position += 1 }
            if position < buffer.count, buffer[position] != UInt8(ascii: ","), buffer[position] != UInt8(ascii: "]") {
                if let end = buffer.withUnsafeBufferPointer({ inPlace(&output, $0, position) }) {
                    var after = end
                    while after < buffer.count, Self.isSpace(buffer[after]) { after += 1 }
                    // A number ending at the chunk's end may go on in the next one: only a
                    // separator seen here ends the element.
                    if after < buffer.count, buffer[after] == UInt8(ascii: ",") || buffer[after] == UInt8(ascii: "]") {
                        state = buffer[after] == UInt8(ascii: ",") ? .beforeElement : .done
                        defer { position = after + 1 }
                        return after - position
                    }
                    undo(&output)
                }
            }
        }
        guard let element = try next() else { return nil }
        try parse(Array(element), &output)
        return element.count
    }

    /// Handles one byte; returns an element when this byte ends one.
    private mutating func step(_ b: UInt8) throws(AISyncError) -> ArraySlice<UInt8>? {
        if inString {
            if escaped { escaped = false } else if b == 0x5C { escaped = true } else if b == 0x22 { inString = false }
            return nil
        }
        switch state {
        case .beforeArray:
            if Self.isSpace(b) { return nil }
            guard b == UInt8(ascii: "[") else { throw bad("expected '['") }
            state = .beforeFirst
            return nil
        case .beforeFirst, .beforeElement:
            if Self.isSpace(b) { return nil }
            if b == UInt8(ascii: "]"), state == .beforeFirst {
                state = .done
                return nil
            }
            guard b != UInt8(ascii: ","), b != UInt8(ascii: "]") else { throw bad("expected a value") }
            elementStart = position
            state = .inElement
            return try step(b)
        case .inElement:
            let opens = b == UInt8(ascii: "{") || b == UInt8(ascii: "[")
            let closes = b == UInt8(ascii: "}") || b == UInt8(ascii: "]")
            if b == 0x22 {
                inString = true
            } else if opens {
                depth += 1
            } else if closes, depth > 0 {
                depth -= 1
            } else if depth == 0, b == UInt8(ascii: "]") || b == UInt8(ascii: ",") {
                // The end of an element of the top-level list.
                let element = buffer[elementStart..<position]
                elementStart = -1
                state = b == UInt8(ascii: ",") ? .beforeElement : .done
                position += 1
                return element
            }
            return nil
        case .done:
            guard Self.isSpace(b) else { throw bad("unexpected trailing bytes") }
            return nil
        }
    }

    /// Drops what was read (keeping a partial element) and reads the next chunk.
    private mutating func refill() throws(AISyncError) {
        let keep = elementStart >= 0 ? elementStart : buffer.count
        buffer.removeFirst(keep)
        bufferStart += Int64(keep)
        position -= keep
        if elementStart >= 0 { elementStart = 0 }
        // Read into the buffer's own room: after the first chunk no fresh pages are faulted in.
        let count = Int(min(Int64(chunkSize), size - fileOffset))
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: count))
        let path = path
        let offset = fileOffset
        let read = try buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(AISyncError) in
                try FileIO.readRange(path, from: offset, into: UnsafeMutableRawBufferPointer(rebasing: bytes[old...]))
            }
        }.get()
        // A file that shrank while read ends here; what follows is judged as its end.
        buffer.removeLast(count - read)
        fileOffset += Int64(count)
    }

    private func bad(_ reason: String) -> AISyncError {
        AISyncError(
            .damagedData, "\(path) is not valid JSON", hint: "Give the export's JSON file as the app wrote it",
            cause: "\(reason) at byte \(bufferStart + Int64(position))")
    }
}
