import AISyncCore
import Foundation
import Synchronization

/// Writes a download to its file as it arrives and hashes it on a thread of its own, reading
/// the file back just behind the writer, so a pulled blob is verified without a second pass.
///
/// Why not hash the chunks in the delegate that writes them: hashing can be slower than
/// URLSession delivers a loopback answer, and corelibs queues chunks for the delegate with no
/// back-pressure, so the difference would pile up in memory. Reading back from the page cache
/// keeps memory constant, and the hash runs beside the transfer instead of after it. The
/// writer never blocks on the hasher.
package final class HashingFileWriter: Sendable {
    private struct State {
        var output: Int32
        var written: Int64 = 0
        /// `written` when the hasher was last woken: it is woken per MiB, not per chunk.
        var announced: Int64 = 0
        /// The writer is done: the hasher finishes once it has caught up.
        var finished = false
        /// Given up: the hasher stops, the file is removed.
        var abandoned = false
        var failure: AISyncError?
        var result: Result<SHA256Digest, AISyncError>?
        var waiter: CheckedContinuation<Result<SHA256Digest, AISyncError>, Never>?
    }

    /// The file being written.
    package let path: String
    private let state: Mutex<State>
    private let progress = DispatchSemaphore(value: 0)

    /// Creates (or truncates) the file at `path` and starts its hasher; throws `.io` when the
    /// file cannot be created or read back.
    package init(path: String) throws(AISyncError) {
        let output = Platform.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, FileIO.privateFile)
        guard output >= 0 else { throw FileIO.ioError("write", path, errno: Platform.errno) }
        let input = Platform.open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else {
            let code = Platform.errno
            Platform.close(output)
            throw FileIO.ioError("read", path, errno: code)
        }
        self.path = path
        state = Mutex(State(output: output))
        let thread = Thread { [self] in hashLoop(input) }
        thread.name = "aisync-hash"
        thread.start()
    }

    /// Appends `bytes`; false when the writer was abandoned or the write failed (the error
    /// is kept and thrown by ``finish()``).
    @discardableResult
    package func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let (ok, wake) = state.withLock { s -> (Bool, Bool) in
            guard !s.abandoned, !s.finished, s.failure == nil else { return (false, false) }
            guard Platform.writeAll(s.output, bytes) else {
                s.failure = FileIO.ioError("write", path, errno: Platform.errno)
                return (false, true)
            }
            s.written += Int64(bytes.count)
            // Woken per MiB: a wake-up per 16 KiB chunk took CPU from the thread that writes.
            guard s.written - s.announced >= Int64(Self.piece) else { return (true, false) }
            s.announced = s.written
            return (true, true)
        }
        if wake { progress.signal() }
        return ok
    }

    /// How much the hasher reads at once, and how much new data wakes it.
    private static let piece = 1 << 20

    /// Appends `data` (a chunk from URLSession), region by region.
    @discardableResult
    package func write(_ data: Data) -> Bool {
        var ok = true
        for region in data.regions where ok {
            ok = region.withUnsafeBytes { write($0) }
        }
        return ok
    }

    /// How many bytes were written so far.
    package var bytesWritten: Int64 { state.withLock { $0.written } }

    /// No more bytes: closes the file and returns the SHA-256 of everything written, once the
    /// hasher has caught up. Throws the write or read error if one happened.
    package func finish() async throws(AISyncError) -> SHA256Digest {
        let failure = state.withLock { s -> AISyncError? in
            if !s.finished, !s.abandoned {
                s.finished = true
                Platform.close(s.output)
            }
            return s.failure
        }
        progress.signal()
        if let failure { throw failure }
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<SHA256Digest, AISyncError>, Never>) in
            let ready = state.withLock { s -> Result<SHA256Digest, AISyncError>? in
                if s.result == nil { s.waiter = continuation }
                return s.result
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return try result.get()
    }

    /// Gives up: closes and removes the file and stops the hasher. Later writes are ignored.
    package func abandon() {
        let (waiter, closed) = state.withLock {
            s -> (CheckedContinuation<Result<SHA256Digest, AISyncError>, Never>?, Bool) in
            defer { s.waiter = nil }
            guard !s.abandoned else { return (nil, false) }
            s.abandoned = true
            if !s.finished { Platform.close(s.output) }
            s.result = s.result ?? .failure(AISyncError(.io, "the download to \(path) was abandoned"))
            return (s.waiter, true)
        }
        if closed { _ = Platform.unlink(path) }
        progress.signal()
        waiter?.resume(returning: .failure(AISyncError(.io, "the download to \(path) was abandoned")))
    }

    /// The hasher: reads what the writer has written, in pieces of up to 1 MiB, until the
    /// writer finished and every byte is hashed, or until the writer is abandoned.
    private func hashLoop(_ input: Int32) {
        defer { Platform.close(input) }
        var hasher = SHA256()
        var hashed: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.piece, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let (written, finished, abandoned) = state.withLock { ($0.written, $0.finished, $0.abandoned) }
            if abandoned { return }
            if hashed < written {
                let piece = UnsafeMutableRawBufferPointer(
                    rebasing: buffer[..<Int(min(Int64(buffer.count), written - hashed))])
                guard let n = Platform.read(input, into: piece), n > 0 else {
                    return deliver(.failure(FileIO.ioError("read", path, errno: Platform.errno)))
                }
                hasher.update(bytes: UnsafeRawBufferPointer(rebasing: piece[..<n]))
                hashed += Int64(n)
            } else if finished {
                return deliver(.success(hasher.finalize()))
            } else {
                progress.wait()
            }
        }
    }

    private func deliver(_ result: Result<SHA256Digest, AISyncError>) {
        let waiter = state.withLock { s -> CheckedContinuation<Result<SHA256Digest, AISyncError>, Never>? in
            guard s.result == nil else { return nil }
            s.result = result
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: result)
    }
}
