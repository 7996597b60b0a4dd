import AISyncCore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Tells when a file in a folder may have changed (written, appended, replaced), so a
/// scheduler notices what other processes wrote to a store: inotify on Linux, a dispatch
/// source on Apple platforms. `onChange` may be called more often than the file changes (and
/// from any thread): the caller compares what it cares about. Nil where neither works; then
/// poll.
package final class FileWatcher: Sendable {
    private let stopped = StopFlag()
    #if canImport(Darwin)
        /// Set once in `init` and only cancelled after (`cancel` is thread-safe); dispatch
        /// sources are not marked Sendable in every SDK, hence the unchecked isolation.
        nonisolated(unsafe) private let source: any DispatchSourceFileSystemObject
    #endif

    /// Watches `name` in `directory`, calling `onChange` after each change.
    package init?(directory: String, name: String, onChange: @escaping @Sendable () -> Void) {
        #if canImport(Glibc)
            let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
            guard fd >= 0 else { return nil }
            let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_ATTRIB)
            guard inotify_add_watch(fd, directory, mask) >= 0 else {
                close(fd)
                return nil
            }
            let stopped = stopped
            let thread = Thread {
                Self.readEvents(fd, name: name, stopped: stopped, onChange: onChange)
                close(fd)
            }
            thread.name = "aisync-watch"
            thread.start()
        #elseif canImport(Darwin)
            // The file's own descriptor: appends and writes to it. A file replaced (renamed
            // over) is no longer this one; the scheduler's poll, which stays on beside this,
            // notices that.
            let fd = open("\(directory)/\(name)", O_EVTONLY)
            guard fd >= 0 else { return nil }
            let source = DispatchSource.makeFileSystemObjectSource(
                fileDescriptor: fd, eventMask: [.write, .extend, .attrib, .delete, .rename],
                queue: .global(qos: .utility))
            source.setEventHandler { onChange() }
            source.setCancelHandler { close(fd) }
            source.resume()
            self.source = source
        #else
            return nil
        #endif
    }

    #if canImport(Glibc)
        /// Waits for events (half a second at a time, to notice `stop`) and reports those
        /// naming `name` (or an overflow, which may have hidden one).
        private static func readEvents(
            _ fd: Int32, name: String, stopped: StopFlag, onChange: @Sendable () -> Void
        ) {
            var buffer = [UInt8](repeating: 0, count: 8192)
            let header = MemoryLayout<inotify_event>.size
            while !stopped.value.load(ordering: .relaxed) {
                var pending = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&pending, 1, 500) > 0 else { continue }
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { continue }
                var offset = 0
                var hit = false
                buffer.withUnsafeBytes { raw in
                    while offset + header <= n {
                        let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                        let nameBytes = raw[(offset + header)..<min(offset + header + Int(event.len), n)]
                        let eventName = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                        if eventName == name || event.mask & UInt32(IN_Q_OVERFLOW) != 0 { hit = true }
                        offset += header + Int(event.len)
                    }
                }
                if hit { onChange() }
            }
        }
    #endif

    /// Stops watching (at most half a second later on Linux); `onChange` is not called after
    /// the watcher's thread has seen it.
    package func stop() {
        guard !stopped.value.exchange(true, ordering: .relaxed) else { return }
        #if canImport(Darwin)
            source.cancel()
        #endif
    }

    deinit { stop() }
}

/// Set once to stop a watcher's thread.
private final class StopFlag: Sendable {
    let value = Atomic<Bool>(false)
}
