import AISyncCore

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension SHA256 {
    /// Chunk size for `hash(fileAt:)`: big enough to amortise syscalls, small enough
    /// that memory use is constant however large the file is.
    static let fileChunkSize = 1 << 20

    /// Streams the file at `path` through one fixed 1 MiB buffer, so memory use does not
    /// grow with file size. Returns the digest and the number of bytes read; a file that
    /// cannot be opened or read is an `AISyncError` naming it (not found, permission, I/O).
    public static func hash(fileAt path: String) throws(AISyncError) -> (digest: SHA256Digest, size: Int64) {
        SystemCryptoLoader.install()
        var hasher = SHA256()
        var size: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: fileChunkSize, alignment: 64)
        defer { buffer.deallocate() }
        let fd = Platform.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileIO.ioError("open", path, errno: Platform.errno) }
        defer { Platform.close(fd) }
        while true {
            guard let n = Platform.read(fd, into: buffer) else {
                throw FileIO.ioError("read", path, errno: Platform.errno)
            }
            if n == 0 { break }
            hasher.update(bytes: UnsafeRawBufferPointer(rebasing: buffer[..<n]))
            size += Int64(n)
        }
        return (hasher.finalize(), size)
    }
}
