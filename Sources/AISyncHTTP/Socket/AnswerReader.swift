#if canImport(Glibc) || canImport(Musl)
    import AISyncCore

    /// Reads one answer from a connection: its head, then its body as the head frames it, into
    /// an ``AnswerSink``. Reads happen only as fast as the sink takes the bytes, so memory stays
    /// one read buffer whatever the server sends. Throws ``SocketFailure`` for the network and
    /// `AISyncError` for an answer that breaks HTTP or its limit.
    struct AnswerReader {
        let socket: Socket
        let limits: SocketLimits
        /// Bytes read from the socket and not used yet.
        private var pending: [UInt8] = []
        private var scratch: [UInt8] = []

        init(socket: Socket, limits: SocketLimits) {
            self.socket = socket
            self.limits = limits
        }

        /// True when nothing past the answer was read (otherwise the connection is not reused).
        var isDrained: Bool { pending.isEmpty }

        /// The answer's head, skipping interim 1xx answers; nil when the server closed the
        /// connection without sending anything.
        mutating func head() throws -> HTTPWire.Head? {
            while true {
                guard let end = try readHead() else { return nil }
                let head = try HTTPWire.parseHead(pending[..<end])
                pending.removeFirst(end)
                if (100..<200).contains(head.status), head.status != 101 { continue }
                return head
            }
        }

        /// Reads until `pending` holds a whole head; returns where it ends.
        private mutating func readHead() throws -> Int? {
            while true {
                if let end = pending.withUnsafeBytes({ HTTPWire.headEnd(in: $0) }) { return end }
                guard pending.count < HTTPWire.maxHeadBytes else {
                    throw HTTPWire.malformed("an answer head longer than 64 KiB")
                }
                let n = try fill()
                if n == 0 {
                    if pending.isEmpty { return nil }
                    throw SocketFailure.lost("closed in the middle of the answer's head")
                }
            }
        }

        /// Reads the body into `sink`; true when it was read to its end (so the connection can
        /// carry another request), false when reading stopped early or ran to the close.
        mutating func body(_ framing: HTTPWire.Head.Framing, into sink: inout AnswerSink) throws -> Bool {
            switch framing {
            case .none:
                return true
            case .length(let length):
                guard sink.accepts(length: length) else { throw AnswerSink.tooLarge }
                return try counted(length, into: &sink)
            case .chunked:
                return try chunked(into: &sink)
            case .untilClose:
                while true {
                    if try take(pending[...], into: &sink) == .full { return false }
                    pending.removeAll(keepingCapacity: true)
                    if try fill() == 0 {
                        // Over TLS only close_notify proves the end: a bare close could be
                        // someone between cutting the answer short.
                        if socket.endedUncleanly {
                            throw SocketFailure.lost("closed without TLS's close_notify: the answer may be cut short")
                        }
                        return false
                    }
                }
            }
        }

        private mutating func counted(_ length: Int64, into sink: inout AnswerSink) throws -> Bool {
            var left = length
            while true {
                let n = Int(min(Int64(pending.count), left))
                if try take(pending[..<n], into: &sink) == .full { return false }
                pending.removeFirst(n)
                left -= Int64(n)
                if left == 0 { return true }
                if try fill() == 0 {
                    throw SocketFailure.lost("closed after \(length - left) of the \(length) bytes it announced")
                }
            }
        }

        private mutating func chunked(into sink: inout AnswerSink) throws -> Bool {
            var decoder = ChunkedDecoder()
            while true {
                var full = false
                let used = try pending.withUnsafeBytes { raw in
                    Result { () throws(AISyncError) in
                        try decoder.decode(raw) { (piece) throws(AISyncError) in
                            if !full, try sink.take(piece) == .full { full = true }
                        }
                    }
                }.get()
                if full { return false }
                pending.removeFirst(used)
                if decoder.isDone { return true }
                if try fill() == 0 {
                    throw SocketFailure.lost("closed before the end of its chunked answer")
                }
            }
        }

        private func take(_ bytes: ArraySlice<UInt8>, into sink: inout AnswerSink) throws(AISyncError)
            -> AnswerSink.Outcome
        {
            guard !bytes.isEmpty else { return .more }
            let result = bytes.withUnsafeBytes { raw in Result { () throws(AISyncError) in try sink.take(raw) } }
            return try result.get()
        }

        /// One read from the socket (up to 256 KiB) appended to `pending`; returns its size, 0 at close.
        private mutating func fill() throws(SocketFailure) -> Int {
            if scratch.isEmpty { scratch = [UInt8](repeating: 0, count: 256 << 10) }
            let socket = socket
            let limits = limits
            let n = try scratch.withUnsafeMutableBytes { raw in
                Result { () throws(SocketFailure) in try socket.receive(into: raw, limits: limits) }
            }.get()
            pending.append(contentsOf: scratch[0..<n])
            return n
        }
    }
#endif
