extension SealedFile {
    /// Seals a file piece by piece (a 200 MB image never sits whole in memory): `header`
    /// first, then what `add` and `finish` return, in order.
    public struct Sealer: Sendable {
        /// The file's first bytes.
        public let header: [UInt8]
        let key: [UInt8]
        let framed: Int64
        let plainSize: Int64
        var plainSeen: Int64 = 0
        var pending: [UInt8]
        var index: UInt64 = 0

        /// A sealer for `plainSize` bytes with a fresh random `salt` (24 bytes from the
        /// environment's secure generator, never reused).
        public init(dataKey: [UInt8], salt: [UInt8], binding: Binding, plainSize: Int64) {
            precondition(salt.count == 24 && dataKey.count == 32, "SealedFile needs a 32-byte key and a 24-byte salt")
            framed = framedLength(plainSize: plainSize, binding: binding)
            header = magic + salt + littleEndian(UInt64(framed), 8)
            key = fileKey(dataKey: dataKey, salt: salt)
            self.plainSize = plainSize
            let b = binding.bytes
            pending = littleEndian(UInt64(b.count), 4) + b + littleEndian(UInt64(plainSize), 8)
        }

        /// Takes the next plaintext bytes; returns the chunks they completed.
        public mutating func add(_ plain: [UInt8]) -> [UInt8] {
            plainSeen += Int64(plain.count)
            precondition(plainSeen <= plainSize, "more plaintext than the size the sealer was made for")
            pending += plain
            return drain(final: false)
        }

        /// Pads and seals what is left, the last chunk flagged as such.
        public mutating func finish() -> [UInt8] {
            precondition(plainSeen == plainSize, "less plaintext than the size the sealer was made for")
            let sealed = Int64(index) * Int64(chunkBytes) + Int64(pending.count)
            pending += [UInt8](repeating: 0, count: Int(framed - sealed))
            return drain(final: true)
        }

        private mutating func drain(final: Bool) -> [UInt8] {
            var out: [UInt8] = []
            var start = 0
            while pending.count - start >= chunkBytes || (final && start < pending.count) {
                let count = min(chunkBytes, pending.count - start)
                let last = Int64(index + 1) * Int64(chunkBytes) >= framed
                if last && !final { break }
                out += ChaChaPoly.seal(
                    Array(pending[start..<(start + count)]), key: key, nonce: nonce(index, last: last), aad: header)
                index += 1
                start += count
            }
            pending.removeFirst(start)
            return out
        }
    }

    /// Opens a sealed file chunk by chunk; each chunk is authenticated before any of its
    /// bytes is returned, and the first names the place the file was sealed for.
    public struct Opener: Sendable {
        let key: [UInt8]
        let header: [UInt8]
        let framed: Int64
        let chunks: Int64
        let binding: Binding
        let shown: String
        var index: Int64 = 0
        var plainLeft: Int64 = 0
        /// The file's size and the size its header gives, when it is shorter.
        let short: (size: Int64, expected: Int64)?

        /// Checks the header against the file's size: a file longer than its header says is
        /// `.tampered`; one shorter is `.truncated` once the chunks it has were found
        /// authentic (a changed length in the header fails the first chunk instead).
        public init(header: [UInt8], storedSize: Int64, dataKey: [UInt8], binding: Binding, shown: String)
            throws(AISyncError)
        {
            guard header.count == headerBytes, header.starts(with: magic) else {
                throw AISyncError(
                    .tampered, "\(shown) is not encrypted, on a remote where everything is",
                    hint:
                        "Someone other than your devices wrote it; delete it on the server, or push again to replace it"
                )
            }
            framed = Int64(truncatingIfNeeded: readLittleEndian(header[32..<40]))
            guard framed > 12, framed < 1 << 44 else { throw SealedFile.tampered(shown) }
            let expected = SealedFile.storedSize(framed: framed)
            guard storedSize <= expected else { throw SealedFile.tampered(shown) }
            short = storedSize < expected ? (storedSize, expected) : nil
            self.header = header
            self.key = fileKey(dataKey: dataKey, salt: Array(header[8..<32]))
            self.chunks = (framed + Int64(chunkBytes) - 1) / Int64(chunkBytes)
            self.binding = binding
            self.shown = shown
        }

        /// The stored size of the next chunk; nil once all were opened.
        public var nextChunkBytes: Int? {
            guard index < chunks else { return nil }
            return Int(min(Int64(chunkBytes), framed - index * Int64(chunkBytes))) + ChaChaPoly.tagBytes
        }

        /// Authenticates and opens the next chunk (exactly ``nextChunkBytes`` bytes); returns
        /// its plaintext, without framing or padding.
        public mutating func open(_ sealed: [UInt8]) throws(AISyncError) -> [UInt8] {
            guard let size = nextChunkBytes, sealed.count == size else {
                guard let short else { throw SealedFile.tampered(shown) }
                throw AISyncError(
                    .truncated, "\(shown) is cut short (\(short.size) of \(short.expected) bytes)",
                    hint:
                        "An upload was interrupted or the server lost data; the device that wrote it should push again")
            }
            let last = index == chunks - 1
            guard let plain = ChaChaPoly.open(sealed, key: key, nonce: nonce(UInt64(index), last: last), aad: header)
            else {
                throw SealedFile.tampered(shown)
            }
            var from = 0
            if index == 0 { from = try readFraming(plain) }
            index += 1
            let take = Int(min(plainLeft, Int64(plain.count - from)))
            plainLeft -= Int64(take)
            return Array(plain[from..<(from + take)])
        }

        /// Checks the whole file was opened.
        public func finish() throws(AISyncError) {
            guard index == chunks else {
                throw AISyncError(
                    .truncated, "\(shown) is cut short", hint: "The device that wrote it should push again")
            }
        }

        private mutating func readFraming(_ plain: [UInt8]) throws(AISyncError) -> Int {
            guard plain.count >= 4 else { throw SealedFile.tampered(shown) }
            let length = Int(readLittleEndian(plain[0..<4]))
            guard length < 4096, plain.count >= 4 + length + 8,
                let found = Binding(bytes: Array(plain[4..<(4 + length)]))
            else {
                throw SealedFile.tampered(shown)
            }
            guard found == binding else { throw SealedFile.misplaced(shown, found: found, expected: binding) }
            plainLeft = Int64(truncatingIfNeeded: readLittleEndian(plain[(4 + length)..<(12 + length)]))
            guard plainLeft >= 0, Int64(12 + length) + plainLeft <= framed else { throw SealedFile.tampered(shown) }
            return 12 + length
        }
    }

    static func tampered(_ shown: String) -> AISyncError {
        AISyncError(
            .tampered, "\(shown) fails its authentication check: it was changed on the server or damaged",
            hint: "Nothing was applied from it; delete it on the server, and the device that wrote it should push again"
        )
    }

    static func misplaced(_ shown: String, found: Binding, expected: Binding) -> AISyncError {
        let wrongRemote = found.remoteID != expected.remoteID
        let placeText = String(
            found.path.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }.prefix(120).map(Character.init))
        let foundText = wrongRemote ? "a file of another remote" : "the file of \(placeText)"
        return AISyncError(
            .misplaced, "\(shown) holds \(foundText): the server moved or swapped files",
            hint: "Nothing was applied from it; restore the server's files from a backup, or delete it and push again")
    }
}
