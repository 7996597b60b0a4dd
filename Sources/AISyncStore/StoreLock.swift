import AISyncCore
import AISyncFiles

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The advisory lock on `<store>/lock` that keeps two processes from writing at once.
///
/// flock(2) is released by the kernel when the process dies, so a crash never leaves a stale
/// lock behind. A store that cannot be locked because it is read-only can still be read.
package struct StoreLock: ~Copyable {
    private let fd: Int32

    /// Takes the lock, waiting up to `timeoutMilliseconds`. Returns nil when the store is
    /// read-only (reads go on without a lock); throws when another process keeps it.
    static func acquire(root: String, timeoutMilliseconds: Int) throws(AISyncError) -> StoreLock? {
        try acquire(path: "\(root)/lock", what: "the store \(root)", timeoutMilliseconds: timeoutMilliseconds)
    }

    package static func acquire(path: String, what: String, timeoutMilliseconds: Int) throws(AISyncError) -> StoreLock?
    {
        guard let fd = try openLockFile(path) else { return nil }
        var waited = 0
        while !Platform.tryLockExclusive(fd) {
            guard waited < timeoutMilliseconds else {
                Platform.close(fd)
                throw AISyncError.busy(what)
            }
            Platform.sleep(milliseconds: 20)
            waited += 20
        }
        return StoreLock(fd: fd)
    }

    /// Takes the lock without blocking a thread while another process holds it: tries, then
    /// suspends (`Task.sleep`) between tries, so a wait of up to `timeoutMilliseconds` on the
    /// cooperative pool costs no thread, and a cancelled task stops waiting at once.
    package static func acquireAsync(path: String, what: String, timeoutMilliseconds: Int) async throws(AISyncError)
        -> StoreLock?
    {
        guard let fd = try openLockFile(path) else { return nil }
        var waited = 0
        while !Platform.tryLockExclusive(fd) {
            do throws(AISyncError) {
                try AISyncError.checkCancellation()
                guard waited < timeoutMilliseconds else {
                    throw AISyncError.busy(what)
                }
            } catch {
                Platform.close(fd)
                throw error
            }
            try? await Task.sleep(nanoseconds: 20_000_000)
            waited += 20
        }
        return StoreLock(fd: fd)
    }

    /// Opens (creating) the lock file; nil when the store is read-only, so reads go on
    /// without a lock.
    private static func openLockFile(_ path: String) throws(AISyncError) -> Int32? {
        let fd = Platform.open(path, O_RDWR | O_CREAT | O_CLOEXEC, FileIO.privateFile)
        if fd < 0 {
            let code = Platform.errno
            if code == EACCES || code == EROFS || code == EPERM { return nil }
            throw FileIO.ioError("open", path, errno: code)
        }
        return fd
    }

    deinit { Platform.close(fd) }
}
