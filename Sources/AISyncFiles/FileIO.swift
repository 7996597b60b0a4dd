import AISyncCore

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Crash-safe file operations with errors that name the path and say what to do.
package enum FileIO {
    package static func ioError(_ action: String, _ path: String, errno code: Int32) -> AISyncError {
        let reason = Platform.describe(code)
        switch code {
        case EACCES, EPERM, EROFS:
            return AISyncError(
                .permission, "cannot \(action) \(path)",
                hint: "Check the permissions of the store directory (is it read-only?)", cause: reason)
        case ENOENT:
            return AISyncError(.notFound, "cannot \(action) \(path): it does not exist", cause: nil)
        case ENOSPC, EDQUOT:
            return AISyncError(
                .io, "cannot \(action) \(path)", hint: "Free some disk space and try again", cause: reason)
        default:
            return AISyncError(.io, "cannot \(action) \(path)", cause: reason)
        }
    }

    /// Reads a whole (small) file.
    package static func read(_ path: String, limit: Int64 = 1 << 31) throws(AISyncError) -> [UInt8] {
        let fd = Platform.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ioError("read", path, errno: Platform.errno) }
        defer { Platform.close(fd) }
        return try readAll(fd, path: path, from: 0, limit: limit)
    }

    /// Reads from `offset` to the end of an open file.
    package static func readAll(_ fd: Int32, path: String, from offset: Int64, limit: Int64 = 1 << 31)
        throws(AISyncError) -> [UInt8]
    {
        guard Platform.lseek(fd, offset, SEEK_SET) == offset else {
            throw ioError("seek in", path, errno: Platform.errno)
        }
        var out: [UInt8] = []
        // Sized from the file, so a 60 MB segment takes 60 MB, not the ~2x of a growing array,
        // and a small file does not pay for a zero-filled 1 MiB buffer.
        let expected = Platform.size(of: fd).map { max(0, $0 - offset) } ?? 0
        out.reserveCapacity(Int(min(expected, limit)) + 1)
        var chunk = [UInt8](repeating: 0, count: Int(min(max(expected + 1, 4096), 1 << 20)))
        while true {
            let n = chunk.withUnsafeMutableBytes { Platform.read(fd, into: $0) }
            guard let n else { throw ioError("read", path, errno: Platform.errno) }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
            if Int64(out.count) > limit {
                throw AISyncError(.damagedData, "\(path) is larger than expected (\(limit) bytes)")
            }
        }
        return out
    }

    /// Reads `count` bytes at `offset` (fewer at end of file).
    package static func readRange(_ path: String, from offset: Int64, count: Int) throws(AISyncError) -> [UInt8] {
        try readRanges(path, [(offset, count)])[0]
    }

    /// Reads into `buffer` from `offset` until it is full or the file ends; how many bytes
    /// were read. For a reader that reuses one buffer (no fresh pages to fault in per read).
    package static func readRange(_ path: String, from offset: Int64, into buffer: UnsafeMutableRawBufferPointer)
        throws(AISyncError) -> Int
    {
        let fd = Platform.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ioError("read", path, errno: Platform.errno) }
        defer { Platform.close(fd) }
        guard Platform.lseek(fd, offset, SEEK_SET) == offset else {
            throw ioError("seek in", path, errno: Platform.errno)
        }
        return try readFully(fd, path: path, into: buffer)
    }

    /// Reads from an open file's position until `buffer` is full or the file ends; how many
    /// bytes were read.
    private static func readFully(_ fd: Int32, path: String, into buffer: UnsafeMutableRawBufferPointer)
        throws(AISyncError) -> Int
    {
        var done = 0
        while done < buffer.count {
            guard let n = Platform.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...])) else {
                throw ioError("read", path, errno: Platform.errno)
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Reads several ranges of one file with one open (fewer bytes at end of file).
    package static func readRanges(_ path: String, _ ranges: [(offset: Int64, count: Int)]) throws(AISyncError)
        -> [[UInt8]]
    {
        var result: [[UInt8]] = []
        result.reserveCapacity(ranges.count)
        try forEachRange(path, ranges) { (bytes: [UInt8]) throws(AISyncError) in result.append(bytes) }
        return result
    }

    /// Reads several ranges of one file with one open, handing each to `body` before the
    /// next is read (so a caller holds one range at a time).
    package static func forEachRange(
        _ path: String, _ ranges: [(offset: Int64, count: Int)],
        _ body: ([UInt8]) throws(AISyncError) -> Void
    ) throws(AISyncError) {
        let fd = Platform.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ioError("read", path, errno: Platform.errno) }
        defer { Platform.close(fd) }
        // A range past the end allocates only what is there (a journal caught up a window at
        // a time must not allocate a whole window to find nothing new).
        let size = Platform.size(of: fd)
        for (offset, wanted) in ranges {
            guard Platform.lseek(fd, offset, SEEK_SET) == offset else {
                throw ioError("seek in", path, errno: Platform.errno)
            }
            let count = size.map { Int(max(0, min(Int64(wanted), $0 - offset))) } ?? wanted
            var out = [UInt8](repeating: 0, count: count)
            let done = try out.withUnsafeMutableBytes { bytes in
                Result { () throws(AISyncError) in try readFully(fd, path: path, into: bytes) }
            }.get()
            if done < count { out.removeLast(count - done) }
            try body(out)
        }
    }

    /// Streams `input` to `output` in 1 MiB chunks, hashing as it goes, then fsyncs
    /// `output`: the one copy loop behind importing, exporting and folder-remote uploads.
    /// `hashing: false` skips the hash (the digest is then that of no bytes).
    package static func streamCopy(
        _ input: Int32, to output: Int32, source: String, destination: String, durable: Bool = true,
        hashing: Bool = true
    ) throws(AISyncError) -> (digest: SHA256Digest, size: Int64) {
        var hasher = SHA256()
        var size: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { Platform.read(input, into: $0) }
            guard let n else { throw ioError("read", source, errno: Platform.errno) }
            if n == 0 { break }
            let ok = buffer.withUnsafeBytes { raw in
                let chunk = UnsafeRawBufferPointer(rebasing: raw[0..<n])
                if hashing { hasher.update(bytes: chunk) }
                return Platform.writeAll(output, chunk)
            }
            guard ok else { throw ioError("write", destination, errno: Platform.errno) }
            size += Int64(n)
        }
        guard !durable || Platform.fsync(output) else { throw ioError("write", destination, errno: Platform.errno) }
        return (hasher.finalize(), size)
    }

    /// Copies a file by streaming it (fsynced, not renamed: callers copy to a temp name).
    /// `scratch` copies neither hash nor fsync: a file read once and removed.
    @discardableResult
    package static func copy(
        _ source: String, to destination: String, scratch: Bool = false, mode: mode_t = privateFile
    ) throws(AISyncError) -> (digest: SHA256Digest, size: Int64) {
        let input = Platform.open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw ioError("read", source, errno: Platform.errno) }
        defer { Platform.close(input) }
        let output = Platform.open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard output >= 0 else { throw ioError("write", destination, errno: Platform.errno) }
        defer { Platform.close(output) }
        return try streamCopy(
            input, to: output, source: source, destination: destination, durable: !scratch, hashing: !scratch)
    }

    package static func exists(_ path: String) -> Bool { Platform.stat(path) != nil }

    /// A store's files and folders are its owner's alone, whatever the umask: these modes
    /// are the defaults of every function here that creates one.
    package static let privateFile: mode_t = 0o600
    package static let privateDirectory: mode_t = 0o700
    /// What the user asks to write elsewhere (an export, a saved picture, a folder remote)
    /// is left to the umask, as for any file a program writes.
    package static let sharedFile: mode_t = 0o666
    package static let sharedDirectory: mode_t = 0o777

    /// `mkdir -p`, each folder made with `mode` (less the umask).
    package static func makeDirectories(_ path: String, mode: mode_t = privateDirectory) throws(AISyncError) {
        if let st = Platform.stat(path) {
            guard st.isDirectory else { throw AISyncError(.io, "\(path) exists and is not a directory") }
            return
        }
        let parent = parentDirectory(of: path)
        if parent != path, !parent.isEmpty { try makeDirectories(parent, mode: mode) }
        let code = Platform.mkdir(path, mode: mode)
        if code != 0, code != EEXIST { throw ioError("create directory", path, errno: code) }
    }

    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// Makes a directory entry durable (after a create or rename in it).
    package static func syncDirectory(_ path: String) {
        let fd = Platform.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = Platform.fsync(fd)
        Platform.close(fd)
    }

    /// Writes `bytes` to a temp file beside `path`, fsyncs it, renames it over `path`, and
    /// fsyncs the directory: after a crash the file is either old or new, never torn.
    /// `temporarySuffix` names the temp file (`<path>.tmp-<suffix>`); callers pass
    /// `environment.temporarySuffix()`, so this file has no randomness of its own and tests
    /// that seed the environment get the same names every run.
    package static func writeAtomically(
        _ path: String, _ bytes: [UInt8], durable: Bool = true,
        temporarySuffix: String, mode: mode_t = privateFile
    ) throws(AISyncError) {
        try writeAtomically(path, durable: durable, temporarySuffix: temporarySuffix, mode: mode) {
            (emit: ([UInt8]) throws(AISyncError) -> Void) throws(AISyncError) in
            try emit(bytes)
        }
    }

    /// The same, with the content handed over in pieces by `body` (through `emit`), so a
    /// large file (the index of 100,000 records) is never built whole in memory.
    package static func writeAtomically(
        _ path: String, durable: Bool = true, temporarySuffix: String, mode: mode_t = privateFile,
        _ body: (_ emit: ([UInt8]) throws(AISyncError) -> Void) throws(AISyncError) -> Void
    ) throws(AISyncError) {
        let temp = "\(path).tmp-\(temporarySuffix)"
        let fd = Platform.open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw ioError("write", path, errno: Platform.errno) }
        do throws(AISyncError) {
            try body { (piece: [UInt8]) throws(AISyncError) in
                guard piece.withUnsafeBytes({ Platform.writeAll(fd, $0) }) else {
                    throw ioError("write", path, errno: Platform.errno)
                }
            }
            guard !durable || Platform.fsync(fd) else { throw ioError("write", path, errno: Platform.errno) }
        } catch {
            Platform.close(fd)
            _ = Platform.unlink(temp)
            throw error
        }
        Platform.close(fd)
        guard Platform.rename(temp, path) else {
            let code = Platform.errno
            _ = Platform.unlink(temp)
            throw ioError("write", path, errno: code)
        }
        if durable { syncDirectory(parentDirectory(of: path)) }
    }
}
