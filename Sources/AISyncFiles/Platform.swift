import AISyncCore

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
#if canImport(Security)
    import Security
#endif

/// Every libc call the library makes lives behind this one file (house style: one Platform file).
package enum Platform {
    package static var errno: Int32 {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
            return sysErrno()
        #endif
    }

    package static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// Opens (or creates, with `mode` less the umask: the owner's alone unless asked) a file.
    package static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0o600) -> Int32 {
        path.withCString { sysOpen($0, flags, mode) }
    }

    package static func close(_ fd: Int32) { _ = sysClose(fd) }

    package static func fsync(_ fd: Int32) -> Bool { sysFsync(fd) == 0 }

    /// Writes all bytes, retrying on EINTR and short writes.
    package static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < buffer.count {
            let n = sysWrite(fd, buffer.baseAddress! + done, buffer.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            done += n
        }
        return true
    }

    /// Reads up to `count` bytes; returns nil on error, an empty array at end of file.
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        while true {
            let n = sysRead(fd, buffer.baseAddress!, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            return n
        }
    }

    package static func lseek(_ fd: Int32, _ offset: Int64, _ whence: Int32) -> Int64 {
        Int64(sysLseek(fd, off_t(offset), whence))
    }

    package static func ftruncate(_ fd: Int32, _ size: Int64) -> Bool { sysFtruncate(fd, off_t(size)) == 0 }

    package static func rename(_ from: String, _ to: String) -> Bool { sysRename(from, to) == 0 }

    package static func unlink(_ path: String) -> Bool { sysUnlink(path) == 0 }

    package static func mkdir(_ path: String, mode: mode_t = 0o700) -> Int32 {
        if sysMkdir(path, mode) == 0 { return 0 }
        return errno
    }

    /// Size and kind of a path, or nil when it does not exist (or cannot be stat'ed).
    package static func stat(_ path: String) -> (size: Int64, isDirectory: Bool, isRegular: Bool)? {
        guard let st = statInfo(path) else { return nil }
        return (st.size, st.isDirectory, st.isRegular)
    }

    /// The size of an open file, or nil (a pipe or FIFO has none worth trusting).
    package static func size(of fd: Int32) -> Int64? {
        var st = sysStatStruct()
        guard sysFstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(st.st_size)
    }

    package struct StatInfo {
        package var size: Int64
        package var isDirectory: Bool
        package var isRegular: Bool
        package var modifiedNanoseconds: Int64
        package var inode: UInt64
    }

    package static func statInfo(_ path: String) -> StatInfo? {
        var st = sysStatStruct()
        guard sysStat(path, &st) == 0 else { return nil }
        let type = st.st_mode & S_IFMT
        #if canImport(Darwin)
            let mtime = Int64(st.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(st.st_mtimespec.tv_nsec)
        #else
            let mtime = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        #endif
        return StatInfo(
            size: Int64(st.st_size), isDirectory: type == S_IFDIR, isRegular: type == S_IFREG,
            modifiedNanoseconds: mtime, inode: UInt64(st.st_ino))
    }

    /// Creates `to` as a hard link to `from`; fails with EEXIST when `to` exists (an atomic
    /// create-only rename for the folder remote).
    package static func link(_ from: String, _ to: String) -> Int32 { sysLink(from, to) == 0 ? 0 : errno }

    /// Takes an exclusive advisory lock without blocking; false when another process holds it.
    package static func tryLockExclusive(_ fd: Int32) -> Bool { sysFlock(fd, LOCK_EX | LOCK_NB) == 0 }

    package static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Maps a whole regular file read-only: its address and size, and the open file (for
    /// ``pread(_:into:at:)``; the caller closes it), or nil when it is missing, empty or
    /// cannot be mapped. The size comes from the open file, not the path, so a file renamed
    /// over it meanwhile cannot make the mapping longer than its file.
    package static func mapReadOnly(_ path: String) -> (address: UInt, count: Int, fd: Int32)? {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            guard let size = size(of: fd), size > 0, size < Int64(Int.max / 2),
                let mapped = mmap(nil, Int(size), PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED
            else {
                close(fd)
                return nil
            }
            return (UInt(bitPattern: mapped), Int(size), fd)
        #else
            return nil
        #endif
    }

    /// Reads up to `buffer.count` bytes at `offset` without moving the file position; nil on
    /// error, fewer bytes only at the end of the file.
    package static func pread(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int? {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
            var done = 0
            while done < buffer.count {
                let n = sysPread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    return nil
                }
                if n == 0 { break }
                done += n
            }
            return done
        #else
            return nil
        #endif
    }

    /// Where the first `byte` in `buffer[from..<limit]` is, or nil: `memchr`, which looks
    /// at many bytes per step where a Swift loop looks at one (finding the lines of an index
    /// of 100,000 records).
    package static func firstIndex(of byte: UInt8, in buffer: UnsafeRawBufferPointer, from: Int, limit: Int) -> Int? {
        guard from < limit, let base = buffer.baseAddress else { return nil }
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
            guard let found = memchr(base + from, Int32(byte), limit - from) else { return nil }
            return UnsafeRawPointer(found) - base
        #else
            return buffer[from..<limit].firstIndex(of: byte)
        #endif
    }

    /// Undoes ``mapReadOnly(_:)``.
    package static func unmap(_ address: UInt, _ count: Int) {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
            _ = munmap(UnsafeMutableRawPointer(bitPattern: address), count)
        #endif
    }

    /// Drops the whole pages inside `range` of a read-only mapping from this process's
    /// memory (MADV_DONTNEED: they are read back from the page cache if touched again).
    package static func dropPages(_ address: UInt, _ range: Range<Int>) {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            guard page > 0 else { return }
            let start = (range.lowerBound + page - 1) / page * page
            let end = range.upperBound / page * page
            guard start < end else { return }
            _ = madvise(UnsafeMutableRawPointer(bitPattern: address + UInt(start)), end - start, MADV_DONTNEED)
        #endif
    }

    /// Gives the allocator's free pages back to the system (glibc keeps them, per thread
    /// arena, so a long pull's peak RSS would be every batch's garbage, not one batch's).
    /// A no-op where the allocator does this itself.
    package static func releaseFreeMemory() {
        #if canImport(Glibc)
            // Looked up at run time: Glibc's module map leaves out malloc.h.
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
            typealias Trim = @convention(c) (Int) -> Int32
            _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }

    /// The system's host name (gethostname), without a domain; nil when unset.
    package static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let short = name.split(separator: ".").first.map(String.init) ?? name
        return short.isEmpty || short == "localhost" ? nil : short
    }

    /// Wall-clock time (CLOCK_REALTIME) in milliseconds since the Unix epoch, the live `now`.
    package static func currentTimeMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// `$TMPDIR` when set, else `/tmp`: the live environment's temporary directory.
    package static func temporaryDirectory() -> String {
        guard let dir = environment("TMPDIR"), !dir.isEmpty else { return "/tmp" }
        return dir
    }

    package static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    /// Sets a variable of this process's environment (for code that reads it, Foundation's).
    package static func setEnvironment(_ name: String, _ value: String) { _ = setenv(name, value, 1) }

    package static func access(_ path: String, writable: Bool) -> Bool { sysAccess(path, writable ? W_OK : R_OK) == 0 }
    /// Whether the last failed call was refused for permissions (EACCES), not a missing file.
    package static var lastErrorIsPermission: Bool { errno == EACCES }

    /// A path's mode bits (permissions, set-id and sticky bits), whether it is a folder or a
    /// symbolic link (not followed), and its owner; nil when it does not exist.
    package static func permissions(_ path: String) -> (
        mode: UInt32, isDirectory: Bool, isLink: Bool, owner: UInt32
    )? {
        var st = sysStatStruct()
        guard sysLstat(path, &st) == 0 else { return nil }
        let type = st.st_mode & S_IFMT
        return (UInt32(st.st_mode & 0o7777), type == S_IFDIR, type == S_IFLNK, UInt32(st.st_uid))
    }

    /// Opens `name` in the folder open as `directory` (or a path, with `directory` nil) to
    /// look at and change its mode, never through a symbolic link (a link that replaced an
    /// entry after it was listed is refused, not followed), and never blocking on a FIFO.
    /// The descriptor, or -1 with `errno` set (ELOOP for a link).
    package static func openEntry(_ name: String, in directory: Int32?, followLink: Bool = false) -> Int32 {
        let flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (followLink ? 0 : O_NOFOLLOW)
        return name.withCString { sysOpenat(directory ?? AT_FDCWD, $0, flags) }
    }

    /// The mode bits, kind and owner of an open file.
    package static func permissions(of fd: Int32) -> (mode: UInt32, isDirectory: Bool, owner: UInt32)? {
        var st = sysStatStruct()
        guard sysFstat(fd, &st) == 0 else { return nil }
        return (UInt32(st.st_mode & 0o7777), st.st_mode & S_IFMT == S_IFDIR, UInt32(st.st_uid))
    }

    /// Sets an open file's mode bits (`fchmod`); 0, or the error number.
    package static func setPermissions(of fd: Int32, _ mode: UInt32) -> Int32 {
        sysFchmod(fd, mode_t(mode)) == 0 ? 0 : errno
    }

    /// The entries of the folder open as `fd` (which stays open), or nil.
    package static func listDirectory(of fd: Int32) -> [String]? {
        let copy = dup(fd)
        guard copy >= 0 else { return nil }
        guard let dir = fdopendir(copy) else {
            _ = sysClose(copy)
            return nil
        }
        defer { closedir(dir) }
        return entryNames(dir)
    }

    /// The user this process acts as.
    package static var effectiveUser: UInt32 { UInt32(geteuid()) }

    /// Lists a directory's entries (without `.` and `..`), or nil when it cannot be read.
    package static func listDirectory(_ path: String) -> [String]? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        return entryNames(dir)
    }

    #if canImport(Darwin)
        private typealias DirectoryStream = UnsafeMutablePointer<DIR>
    #else
        private typealias DirectoryStream = OpaquePointer
    #endif

    private static func entryNames(_ dir: DirectoryStream) -> [String] {
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    package static func sleep(milliseconds: Int) { usleep(useconds_t(milliseconds * 1000)) }

    /// `count` bytes from the operating system's CSPRNG: `getrandom(2)` on Linux (looked up
    /// at run time, since Glibc's module does not export it; the standard library's
    /// generator, which reads the same source, when it is missing), `SecRandomCopyBytes` on
    /// Apple platforms. Keys and salts come only from here, never from a seeded generator.
    package static func secureRandomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        #if canImport(Security)
            let status = bytes.withUnsafeMutableBytes { SecRandomCopyBytes(kSecRandomDefault, count, $0.baseAddress!) }
            precondition(status == errSecSuccess, "the system's secure random generator failed")
        #else
            var filled = 0
            if let getrandom = linuxGetrandom {
                while filled < count {
                    let n = bytes.withUnsafeMutableBytes { getrandom($0.baseAddress! + filled, count - filled, 0) }
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { break }
                    filled += n
                }
            }
            if filled < count {
                var generator = SystemRandomNumberGenerator()
                for i in filled..<count { bytes[i] = generator.next() }
            }
        #endif
        return bytes
    }
}

#if !canImport(Security) && (canImport(Glibc) || canImport(Musl))
    private typealias GetRandom = @convention(c) (UnsafeMutableRawPointer?, Int, UInt32) -> Int
    /// `getrandom(2)` from the C library, looked up once.
    private let linuxGetrandom: GetRandom? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "getrandom") else { return nil }
        return unsafeBitCast(symbol, to: GetRandom.self)
    }()
#endif

// Thin renames so the enum's method names can match libc's without recursion.
#if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
    private func sysErrno() -> Int32 { errno }
    private func sysOpen(_ p: UnsafePointer<CChar>, _ f: Int32, _ m: mode_t) -> Int32 { open(p, f, m) }
    private func sysClose(_ fd: Int32) -> Int32 { close(fd) }
    private func sysFsync(_ fd: Int32) -> Int32 { fsync(fd) }
    private func sysWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { write(fd, p, n) }
    private func sysRead(_ fd: Int32, _ p: UnsafeMutableRawPointer, _ n: Int) -> Int { read(fd, p, n) }
    private func sysPread(_ fd: Int32, _ p: UnsafeMutableRawPointer, _ n: Int, _ o: off_t) -> Int { pread(fd, p, n, o) }
    private func sysLseek(_ fd: Int32, _ o: off_t, _ w: Int32) -> off_t { lseek(fd, o, w) }
    private func sysFtruncate(_ fd: Int32, _ s: off_t) -> Int32 { ftruncate(fd, s) }
    private func sysRename(_ a: String, _ b: String) -> Int32 { rename(a, b) }
    private func sysUnlink(_ a: String) -> Int32 { unlink(a) }
    private func sysMkdir(_ a: String, _ m: mode_t) -> Int32 { mkdir(a, m) }
    private func sysStatStruct() -> stat { stat() }
    private func sysStat(_ p: String, _ st: inout stat) -> Int32 { stat(p, &st) }
    private func sysLstat(_ p: String, _ st: inout stat) -> Int32 { lstat(p, &st) }
    private func sysChmod(_ p: String, _ m: mode_t) -> Int32 { chmod(p, m) }
    private func sysFchmod(_ fd: Int32, _ m: mode_t) -> Int32 { fchmod(fd, m) }
    private func sysOpenat(_ d: Int32, _ p: UnsafePointer<CChar>, _ f: Int32) -> Int32 { openat(d, p, f) }
    private func sysFstat(_ fd: Int32, _ st: inout stat) -> Int32 { fstat(fd, &st) }
    private func sysFlock(_ fd: Int32, _ op: Int32) -> Int32 { flock(fd, op) }
    private func sysLink(_ a: String, _ b: String) -> Int32 { link(a, b) }
    private func sysAccess(_ p: String, _ m: Int32) -> Int32 { access(p, m) }
#endif
