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
        /// The server was reached, and its TLS was refused: a certificate, a pin, a handshake.
        case refused(TLSRefusal)
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

        /// Counts `bytes` moved, and fails when the speed floor is not kept or the caller
        /// cancelled (a fast link may never make a request wait, where a stop is also seen).
        func moved(_ bytes: Int) throws(SocketFailure) {
            if stop.isStopped { throw .cancelled }
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

    /// SIGPIPE, which a write to a connection the server closed raises (OpenSSL writes with
    /// write(2), without MSG_NOSIGNAL), kept from killing the process: an app or a test runner
    /// does not ignore it as the command line does.
    enum BrokenPipe {
        /// Blocks SIGPIPE for the calling thread for good: for the transport's own request
        /// threads, where a broken pipe then comes back as EPIPE (a pending SIGPIPE is
        /// discarded when the thread ends).
        static func blockOnThisThread() {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &set, nil)
        }

        /// Runs `body` with SIGPIPE blocked on this thread, consumes one it raised, and puts
        /// the thread's mask back (curl's way, for writes on threads that are not ours).
        static func suppressed<T>(_ body: () -> T) -> T {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGPIPE)
            var old = sigset_t()
            var pendingBefore = sigset_t()
            pthread_sigmask(SIG_BLOCK, &set, &old)
            sigpending(&pendingBefore)
            let result = body()
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 && sigismember(&pendingBefore, SIGPIPE) == 0 {
                var zero = timespec()
                _ = sigtimedwait(&set, nil, &zero)
            }
            pthread_sigmask(SIG_SETMASK, &old, nil)
            return result
        }
    }

    /// Set once, from any thread, to stop a request's blocking calls.
    final class StopFlag: Sendable {
        private let flag = Atomic<Bool>(false)
        func stop() { flag.store(true, ordering: .releasing) }
        var isStopped: Bool { flag.load(ordering: .acquiring) }
    }

    /// One TCP connection with non-blocking I/O and bounded waits, and TLS over it for
    /// `https://`. Every libc socket call of the socket transport lives here. Closed when
    /// released.
    final class Socket: Sendable {
        let fd: Int32
        /// The connection's TLS, set once by ``secure(_:host:key:limits:)`` before the socket
        /// is shared; nil for plain HTTP.
        nonisolated(unsafe) private(set) var tls: TLSSession?

        private init(fd: Int32) { self.fd = fd }

        deinit {
            tls = nil
            _ = close(fd)
        }

        /// Makes this connection TLS: the handshake with `host`'s certificate checked by
        /// `context` (and its session resumed when `key` had one); `bundle` verifies against
        /// the system's whole CA bundle.
        func secure(_ context: TLSContext, host: String, key: String, bundle: Bool = false, limits: SocketLimits)
            throws(SocketFailure)
        {
            let session: TLSSession
            do { session = try context.session(fd: fd, host: host, key: key, bundle: bundle) } catch {
                throw .refused(error)
            }
            tls = session
            try session.handshake(socket: self, limits: limits)
        }

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
            if let tls { return try tls.send(bytes, socket: self, limits: limits) }
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
            if let tls { return try tls.receive(into: buffer, socket: self, limits: limits) }
            while true {
                let n = recv(fd, buffer.baseAddress!, buffer.count, 0)
                if n > 0 { try limits.moved(n) }
                if n >= 0 { return n }
                guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { throw .lost(describe(errno)) }
                try wait(for: Int16(POLLIN), limits: limits)
            }
        }

        /// The server closed this TLS connection without close_notify (false for plain HTTP).
        var endedUncleanly: Bool { tls?.endedUncleanly ?? false }

        /// True when the connection is idle and open: nothing to read, no hang-up. A kept-alive
        /// connection the server closed (or wrote junk on) is not used again.
        var isIdle: Bool {
            if let tls { return tls.isIdle(socket: self) }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, 0) == 0
        }

        /// Waits until the socket is ready for `events`, in 100 ms slices so a stop is seen soon.
        func wait(for events: Int16, limits: SocketLimits) throws(SocketFailure) {
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
