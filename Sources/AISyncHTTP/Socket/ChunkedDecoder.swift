import AISyncCore

/// Decodes a `Transfer-Encoding: chunked` body (RFC 9112 §7.1) as it arrives, piece by
/// piece, with constant memory: a chunk's data is handed on as it is read, never gathered.
/// Chunk extensions and trailers are read and dropped.
package struct ChunkedDecoder: Sendable {
    private enum State: Sendable {
        case size
        case data(Int64)
        case dataEnd, trailer, done
    }

    private var state = State.size
    /// The line being read (a size line or a trailer line), without its line feed.
    private var line: [UInt8] = []
    /// The longest size or trailer line accepted.
    private static let maxLine = 8 << 10

    package init() {}

    /// True once the last chunk and the trailer have been read.
    package var isDone: Bool { if case .done = state { true } else { false } }

    /// Decodes from `input`, handing each piece of body data to `emit`; returns how many
    /// bytes of `input` it used (fewer than all only when the body ended inside it).
    package mutating func decode(
        _ input: UnsafeRawBufferPointer,
        emit: (UnsafeRawBufferPointer) throws(AISyncError) -> Void
    ) throws(AISyncError) -> Int {
        var i = 0
        while i < input.count {
            switch state {
            case .done:
                return i
            case .data(let remaining):
                let n = min(Int64(input.count - i), remaining)
                try emit(UnsafeRawBufferPointer(rebasing: input[i..<(i + Int(n))]))
                i += Int(n)
                state = remaining == n ? .dataEnd : .data(remaining - n)
            case .size, .dataEnd, .trailer:
                let byte = input[i]
                i += 1
                guard byte == 10 else {
                    guard line.count < Self.maxLine else {
                        throw HTTPWire.malformed("a chunked body with an endless line")
                    }
                    line.append(byte)
                    continue
                }
                if line.last == 13 { line.removeLast() }
                try endLine()
                line.removeAll(keepingCapacity: true)
            }
        }
        return i
    }

    /// One whole line was read in a line state.
    private mutating func endLine() throws(AISyncError) {
        switch state {
        case .size:
            // "1a;name=value": the size is the hex digits before any extension.
            let digits = line.prefix { $0 != 59 && $0 != 32 && $0 != 9 }
            guard !digits.isEmpty, digits.count <= 15,
                let size = Int64(String(decoding: digits, as: UTF8.self), radix: 16), size >= 0
            else {
                throw HTTPWire.malformed("a chunked body with a bad chunk size")
            }
            state = size == 0 ? .trailer : .data(size)
        case .dataEnd:
            guard line.isEmpty else { throw HTTPWire.malformed("a chunk longer than its size") }
            state = .size
        case .trailer:
            if line.isEmpty { state = .done }
        case .data, .done:
            break
        }
    }
}
