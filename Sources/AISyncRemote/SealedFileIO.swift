import AISyncCore
import AISyncFiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// ``SealedFile`` between files, a MiB at a time: a 200 MB picture is sealed and opened in
/// constant memory.
enum SealedFileIO {
    /// Seals the file at `source` into `destination` (created or truncated).
    static func seal(
        _ source: String, to destination: String, keys: RemoteKeys, salt: [UInt8], binding: SealedFile.Binding
    ) throws(AISyncError) {
        let input = try openFile(source, O_RDONLY, action: "read")
        defer { Platform.close(input) }
        guard let size = Platform.size(of: input) else { throw FileIO.ioError("read", source, errno: Platform.errno) }
        let output = try openFile(destination, O_WRONLY | O_CREAT | O_TRUNC, action: "write")
        defer { Platform.close(output) }
        var sealer = SealedFile.Sealer(dataKey: keys.dataKey, salt: salt, binding: binding, plainSize: size)
        try write(sealer.header, to: output, destination)
        var left = size
        while left > 0 {
            let piece = try readExactly(input, count: Int(min(left, 1 << 20)), source)
            guard !piece.isEmpty else {
                throw AISyncError(.io, "\(source) changed while it was being encrypted", hint: "Try again")
            }
            left -= Int64(piece.count)
            try write(sealer.add(piece), to: output, destination)
        }
        try write(sealer.finish(), to: output, destination)
    }

    /// Opens the sealed file at `source` into `destination`, chunk by chunk, each checked
    /// before it is written; returns the plaintext's SHA-256 when `hashing`.
    static func open(
        _ source: String, to destination: String, keys: RemoteKeys, binding: SealedFile.Binding, shown: String,
        hashing: Bool
    ) throws(AISyncError) -> SHA256Digest? {
        let input = try openFile(source, O_RDONLY, action: "read")
        defer { Platform.close(input) }
        guard let size = Platform.size(of: input) else { throw FileIO.ioError("read", source, errno: Platform.errno) }
        let header = try readExactly(input, count: SealedFile.headerBytes, source)
        var opener = try SealedFile.Opener(
            header: header, storedSize: size, dataKey: keys.dataKey, binding: binding, shown: shown)
        let output = try openFile(destination, O_WRONLY | O_CREAT | O_TRUNC, action: "write")
        defer { Platform.close(output) }
        var hasher = SHA256()
        while let next = opener.nextChunkBytes {
            let plain = try opener.open(try readExactly(input, count: next, source))
            if hashing { hasher.update(plain) }
            try write(plain, to: output, destination)
        }
        try opener.finish()
        return hashing ? hasher.finalize() : nil
    }

    private static func openFile(_ path: String, _ flags: Int32, action: String) throws(AISyncError) -> Int32 {
        let fd = Platform.open(path, flags | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileIO.ioError(action, path, errno: Platform.errno) }
        return fd
    }

    /// `count` bytes, fewer only at the end of the file.
    private static func readExactly(_ fd: Int32, count: Int, _ path: String) throws(AISyncError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = buffer.withUnsafeMutableBytes {
                Platform.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...]))
            }
            guard let n else { throw FileIO.ioError("read", path, errno: Platform.errno) }
            if n == 0 { break }
            filled += n
        }
        if filled < count { buffer.removeLast(count - filled) }
        return buffer
    }

    private static func write(_ bytes: [UInt8], to fd: Int32, _ path: String) throws(AISyncError) {
        guard !bytes.isEmpty else { return }
        guard bytes.withUnsafeBytes({ Platform.writeAll(fd, $0) }) else {
            throw FileIO.ioError("write", path, errno: Platform.errno)
        }
    }
}
