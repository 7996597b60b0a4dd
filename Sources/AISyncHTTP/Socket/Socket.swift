#if canImport(Glibc) || canImport(Musl)
    #if canImport(Glibc)
        @preconcurrency import Glibc
    #else
        @preconcurrency import Musl
    #endif
    import Synchronization

    /// Why a socket call gave up. ``SocketTransport`` turns these into `AISyncError`s that name
    /// the host.
    enum SocketFailure: Error, Equatable {
        /// No connection could be made (refused, unreachable, unknown host); the description says why.
        case cannotConnect(String)
        /// The connection broke (reset, closed, write failed); the description says why.
        case lost(String)
        /// Nothing moved for the inactivity timeout.
        case inactive
        /// The request's overall deadline passed.
        case overdue
        /// A stretch of the request moved fewer bytes than its ``SpeedFloor`` allows: this many.
        case tooSlow(Int64)
        /// The caller cancelled.
        case cancelled
        /// Not the network: the request could not be made (a body file unreadable, a header
        /// that cannot be sent); the description says why.
        case local(String)
    }

    /// When blocking socket calls give up: after `inactivity` nanoseconds without progress, at
    /// the monotonic time `deadline`, when `pace` says a stretch moved too little, or as soon
    /// as `stop` is set (checked every 100 ms).
    struct SocketLimits: Sendable {
        var inactivity: UInt64
        var deadline: UInt64
        let stop: StopFlag
        var pace: PaceMeter? = nil

        /// Counts `bytes` moved, and fails when the speed floor is not kept.
        func moved(_ bytes: Int) throws(SocketFailure) {
            guard let pace else { return }
            let now = Self.now()
            pace.add(bytes, now: now)
            if let slow = pace.check(now: now) { throw .tooSlow(slow) }
        }

        func checkPace() throws(SocketFailure) {
            if let pace, let slow = pace.check(now: Self.now()) { throw .tooSlow(slow) }
        }

        /// Nanoseconds on the monotonic clock.
        static func now() -> UInt64 {
            var ts = timespec()
            clock_gettime(CLOCK_MONOTONIC, &ts)
            return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
        }
    }

    /// Set once, from any thread, to stop a request's blocking calls.
    final class StopFlag: Sendable {
        private let flag = Atomic<Bool>(false)
        func stop() { flag.store(true, ordering: .releasing) }
        var isStopped: Bool { flag.load(ordering: .acquiring) }
    }

    /// One TCP connection with non-blocking I/O and bounded waits. Every libc socket call of the
    /// socket transport lives here. Closed when released.
    final class Socket: Sendable {
        let fd: Int32

        private init(fd: Int32) { self.fd = fd }

        deinit { _ = close(fd) }

        /// Connects to `host` (a name, an IPv4 or a bracketed or bare IPv6 address) on `port`,
        /// trying each address it resolves to.
        static func connect(host: String, port: Int, limits: SocketLimits) throws(SocketFailure) -> Socket {
            let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(name, String(port), &hints, &list)
            guard status == 0, let first = list else {
                throw .cannotConnect(status == 0 ? "no address" : String(cString: gai_strerror(status)))
            }
            defer { freeaddrinfo(first) }
            var failure = SocketFailure.cannotConnect("no address")
            var next: UnsafeMutablePointer<addrinfo>? = first
            while let info = next {
                next = info.pointee.ai_next
                do {
                    return try attempt(info.pointee, limits: limits)
                } catch .cannotConnect(let why) {
                    failure = .cannotConnect(why)
                } catch {
                    throw error
                }
            }
            throw failure
        }

        private static func attempt(_ info: addrinfo, limits: SocketLimits) throws(SocketFailure) -> Socket {
            let fd = socket(
                info.ai_family,
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw .cannotConnect(describe(errno)) }
            let socket = Socket(fd: fd)
            var one: Int32 = 1
            // The head and a small body go out at once; no 40 ms wait for a delayed ACK.
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if Glibc.connect(fd, info.ai_addr, info.ai_addrlen) != 0 {
                guard errno == EINPROGRESS else { throw .cannotConnect(describe(errno)) }
                do {
                    try socket.wait(for: Int16(POLLOUT), limits: limits)
                } catch .inactive {
                    throw .cannotConnect("no answer to the connection request")
                }
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                guard error == 0 else { throw .cannotConnect(describe(error)) }
            }
            return socket
        }

        /// Sends every byte of `bytes`.
        func send(_ bytes: UnsafeRawBufferPointer, limits: SocketLimits) throws(SocketFailure) {
            var done = 0
            while done < bytes.count {
                let n = Glibc.send(fd, bytes.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL))
                if n > 0 {
                    done += n
                    try limits.moved(n)
                } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                    try wait(for: Int16(POLLOUT), limits: limits)
                } else {
                    throw .lost(describe(errno))
                }
            }
        }

        /// Reads what has arrived into `buffer`, waiting for something; 0 means the server
        /// closed the connection.
        func receive(into buffer: UnsafeMutableRawBufferPointer, limits: SocketLimits) throws(SocketFailure) -> Int {
            while true {
                let n = recv(fd, buffer.baseAddress!, buffer.count, 0)
                if n > 0 { try limits.moved(n) }
                if n >= 0 { return n }
                guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { throw .lost(describe(errno)) }
                try wait(for: Int16(POLLIN), limits: limits)
            }
        }

        /// True when the connection is idle and open: nothing to read, no hang-up. A kept-alive
        /// connection the server closed (or wrote junk on) is not used again.
        var isIdle: Bool {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, 0) == 0
        }

        /// Waits until the socket is ready for `events`, in 100 ms slices so a stop is seen soon.
        private func wait(for events: Int16, limits: SocketLimits) throws(SocketFailure) {
            let start = SocketLimits.now()
            while true {
                if limits.stop.isStopped { throw .cancelled }
                let now = SocketLimits.now()
                if now >= limits.deadline { throw .overdue }
                if now - start >= limits.inactivity { throw .inactive }
                try limits.checkPace()
                let left = min(limits.deadline - now, limits.inactivity - (now - start), 100_000_000)
                var entry = pollfd(fd: fd, events: events, revents: 0)
                let ready = poll(&entry, 1, Int32(max(1, left / 1_000_000)))
                if ready > 0 { return }
                if ready < 0 && errno != EINTR { throw .lost(Self.describe(errno)) }
            }
        }

        private static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
        private func describe(_ code: Int32) -> String { Self.describe(code) }
    }
#endif
