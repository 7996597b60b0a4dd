import AISyncCore
import AISyncFiles

/// Where the body of an answer goes as it is read: into memory up to a limit (past it the
/// answer is too large, or with `truncating` the rest is not read), or, for a 2xx download,
/// into a file that hashes it as it is written.
struct AnswerSink {
    enum Outcome: Equatable {
        /// Keep reading.
        case more
        /// A truncating sink is full: stop reading (the connection is not reused).
        case full
    }

    private let limit: Int64
    private let truncating: Bool
    private let file: HashingFileWriter?
    private(set) var body: [UInt8] = []
    private(set) var received: Int64 = 0

    /// Keeps at most `limit` bytes in memory.
    init(limit: Int64, truncating: Bool) {
        self.limit = limit
        self.truncating = truncating
        file = nil
    }

    /// Writes everything to `file`, up to `limit` bytes.
    init(file: HashingFileWriter, limit: Int64) {
        self.limit = limit
        truncating = false
        self.file = file
    }

    /// Whether an announced length can be accepted before any of it is read.
    func accepts(length: Int64) -> Bool { truncating || length <= limit }

    /// Takes the next piece of the body.
    mutating func take(_ bytes: UnsafeRawBufferPointer) throws(AISyncError) -> Outcome {
        guard received + Int64(bytes.count) <= limit else {
            guard truncating else { throw AnswerSink.tooLarge }
            body.append(contentsOf: bytes.prefix(Int(limit - received)))
            received = limit
            return .full
        }
        received += Int64(bytes.count)
        if let file {
            guard file.write(bytes) else {
                throw AISyncError(
                    .io, "cannot write the download to \(file.path)",
                    hint: "Check the free space and the permissions of the store directory")
            }
        } else {
            body.append(contentsOf: bytes)
        }
        return .more
    }

    /// Thrown when an answer is longer than allowed; ``SocketTransport`` adds the path.
    static let tooLarge = AISyncError(.damagedData, "answer larger than allowed")
}
