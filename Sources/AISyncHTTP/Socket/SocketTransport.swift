#if canImport(Glibc) || canImport(Musl)
    import Foundation
    import Synchronization
    import AISyncCore
    import AISyncFiles

    /// The live transport on Linux: HTTP/1.1 on POSIX sockets, and TLS over them for `https://`
    /// with the system's OpenSSL 3 loaded at run time (``TLSLibrary``), written for aisync
    /// because swift-corelibs-foundation's URLSession cannot give it what a sync engine on a
    /// flaky or hostile network needs (docs/PERFORMANCE.md):
    ///
    /// - **Back-pressure**: corelibs queues whatever libcurl reads for the delegate, so an answer
    ///   without a length (chunked, or until close) piled up in memory before aisync could
    ///   refuse it. Here nothing is read faster than it is taken: an answer is refused at its
    ///   limit with the memory of one 256 KiB buffer.
    /// - **Bodies sent whole on every try**: a request whose kept-alive connection broke is sent
    ///   again, body and all, on a fresh connection (corelibs' rewind sent headers and no body).
    /// - **Uploads at disk speed**: a file body is sent in 1 MiB reads (corelibs: 48 KiB pieces,
    ///   pausing the transfer for each).
    /// - **Nothing outside the store**: no cache, cookie or credential storage exists here.
    /// - **Private servers**: certificates and pinned keys a remote trusts (``TLSTrust``),
    ///   which corelibs cannot be given; TLS sessions resumed across a sync's connections.
    ///
    /// Where no usable libssl is found, `https://` goes to `fallback` (URLSession), which
    /// trusts the system's certificates only. On Apple platforms URLSession is the only
    /// transport.
    public final class SocketTransport: HTTPTransport {
        private let timeout: TimeInterval
        private let redirects: RedirectPolicy
        private let speedFloor: SpeedFloor
        /// Made on first use: creating a URLSession initializes libcurl and its TLS library
        /// (about 1 MB of memory), which a sync over `http://` never needs.
        private let fallbackBox: Mutex<(any HTTPTransport)?>
        private let maxConnections: Int
        private let pool: ConnectionPool
        private let trust: TLSTrust
        /// False to send every `https://` request to `fallback`, as where there is no libssl.
        private let ownTLS: Bool
        /// Made on the first `https://` request: nil inside when this system has no TLS library.
        private let tlsBox = Mutex<TLSContext??>(nil)

        /// A transport with its own connection pool (`maxConnections` idle connections kept per
        /// host). `timeoutSeconds` bounds each wait for the server; every request also has an
        /// overall deadline scaled to the bytes it may move, and ends when it moves less than
        /// `speedFloor`. `trust` adds certificates and pins to the system's trust for
        /// `https://`; `fallback` serves `https://` where this system has no TLS library.
        public convenience init(
            timeoutSeconds: TimeInterval = 30, maxConnections: Int = 4, redirects: RedirectPolicy = .sameHost,
            speedFloor: SpeedFloor = .standard, trust: TLSTrust = .system, fallback: (any HTTPTransport)? = nil
        ) {
            self.init(
                timeoutSeconds: timeoutSeconds, maxConnections: maxConnections, redirects: redirects,
                speedFloor: speedFloor, trust: trust, fallback: fallback, ownTLS: true)
        }

        /// The same, with `ownTLS` false to behave as on a system without libssl (tests).
        init(
            timeoutSeconds: TimeInterval, maxConnections: Int, redirects: RedirectPolicy, speedFloor: SpeedFloor,
            trust: TLSTrust, fallback: (any HTTPTransport)?, ownTLS: Bool
        ) {
            self.ownTLS = ownTLS
            self.trust = trust
            timeout = timeoutSeconds
            self.speedFloor = speedFloor
            self.redirects = redirects
            fallbackBox = Mutex(fallback)
            self.maxConnections = maxConnections
            pool = ConnectionPool(maxIdle: maxConnections)
        }

        /// The transport for `https://`, made the first time one is needed.
        private var fallback: any HTTPTransport {
            fallbackBox.withLock { made in
                if let made { return made }
                let transport = URLSessionTransport(
                    timeoutSeconds: timeout, maxConnections: maxConnections, redirects: redirects,
                    speedFloor: speedFloor)
                made = transport
                return transport
            }
        }

        /// The TLS context, made the first time one is needed; nil when this system has no
        /// usable TLS library.
        private func tlsContext() throws(AISyncError) -> TLSContext? {
            if let made = tlsBox.withLock({ $0 }) { return made }
            var context: TLSContext?
            if ownTLS, let library = TLSLibrary.shared { context = try TLSContext(library: library, trust: trust) }
            return tlsBox.withLock { made in
                if let made { return made }
                made = .some(context)
                return context
            }
        }

        /// Sends `request`; see ``HTTPTransport``.
        public func send(_ request: HTTPRequest, downloadTo: String?, maxBytes: Int64) async throws(AISyncError)
            -> HTTPResponse
        {
            guard let first = HTTPTarget(request.url) else {
                return try await elsewhere(request, downloadTo: downloadTo, maxBytes: maxBytes)
            }
            if first.secure, try tlsContext() == nil {
                return try await elsewhere(request, downloadTo: downloadTo, maxBytes: maxBytes)
            }
            let seconds = URLSessionTransport.deadline(timeout: timeout, bytes: maxBytes + request.body.byteCount)
            let stop = StopFlag()
            let start = SocketLimits.now()
            let limits = SocketLimits(
                inactivity: UInt64(timeout * 1e9), deadline: start + UInt64(seconds * 1e9), stop: stop,
                pace: PaceMeter(speedFloor))
            let file = try downloadTo.map { (target: String) throws(AISyncError) in try HashingFileWriter(path: target)
            }
            let result = await withTaskCancellationHandler {
                await Self.onThread { [self] () throws(AISyncError) -> Exchange.Result in
                    try exchange(request, file: file, maxBytes: maxBytes, limits: limits, seconds: seconds)
                }
            } onCancel: {
                stop.stop()
            }
            do throws(AISyncError) {
                switch try result.get() {
                case .answer(var response):
                    if let file, (200..<300).contains(response.status) {
                        response.bodyDigest = try await file.finish()
                    } else {
                        file?.abandon()
                    }
                    return response
                case .elsewhere(let redirected):
                    file?.abandon()
                    return try await elsewhere(redirected, downloadTo: downloadTo, maxBytes: maxBytes)
                }
            } catch {
                file?.abandon()
                throw error
            }
        }

        /// A request this transport cannot make itself: `https://` without a TLS library (or a
        /// URL that is neither http nor https), sent by URLSession, which cannot be given
        /// certificates or pins to trust.
        private func elsewhere(_ request: HTTPRequest, downloadTo: String?, maxBytes: Int64) async throws(AISyncError)
            -> HTTPResponse
        {
            guard trust.isSystem else {
                throw AISyncError(
                    .configuration,
                    "cannot trust the remote's own certificate or pinned key: this system has no OpenSSL 3 (libssl.so.3)",
                    hint:
                        "Install OpenSSL 3 (e.g. the libssl3 package), or add the server's CA to the system's trusted certificates"
                )
            }
            return try await fallback.send(request, downloadTo: downloadTo, maxBytes: maxBytes)
        }

        /// Runs blocking work on a thread of its own (never on the cooperative pool, whose few
        /// threads an app's UI and other requests need).
        private static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws(AISyncError) -> T) async
            -> Result<T, AISyncError>
        {
            await withCheckedContinuation { continuation in
                let thread = Thread {
                    BrokenPipe.blockOnThisThread()
                    do throws(AISyncError) { continuation.resume(returning: .success(try work())) } catch {
                        continuation.resume(returning: .failure(error))
                    }
                }
                thread.name = "aisync-http"
                thread.start()
            }
        }

        /// The request and the redirects it is allowed to follow (at most 10 hops).
        private func exchange(
            _ request: HTTPRequest, file: HashingFileWriter?, maxBytes: Int64, limits: SocketLimits,
            seconds: TimeInterval
        ) throws(AISyncError) -> Exchange.Result {
            var current = request
            for _ in 0...10 {
                guard let target = HTTPTarget(current.url) else { return .elsewhere(current) }
                let tls = target.secure ? try tlsContext() : nil
                if target.secure && tls == nil { return .elsewhere(current) }
                let response = try Exchange(
                    request: current, target: target, pool: pool, tls: tls, limits: limits, seconds: seconds
                )
                .run(file: file, maxBytes: maxBytes)
                guard let next = redirect(from: request, current: current, response: response) else {
                    return .answer(response)
                }
                current = next
            }
            throw AISyncError(
                .unavailable, "\(HTTPTarget(request.url)?.host ?? "the server") redirected more than 10 times",
                hint: "Check the remote's URL; the server redirects in a loop")
        }

        /// The request a redirect asks for, when the policy follows it; nil to hand the 3xx back.
        private func redirect(from original: HTTPRequest, current: HTTPRequest, response: HTTPResponse) -> HTTPRequest?
        {
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["location"],
                let base = URL(string: current.url), let to = URL(string: location, relativeTo: base)?.absoluteURL,
                let from = URL(string: original.url), redirects.follows(from: from, to: to)
            else { return nil }
            var next = current
            next.url = to.absoluteString
            // 303 always, and 301/302 after a POST, turn into a GET (RFC 9110 §15.4).
            if response.status == 303 || (current.method == "POST" && response.status != 307 && response.status != 308)
            {
                next.method = current.method == "HEAD" ? "HEAD" : "GET"
                next.body = .none
            }
            return next
        }
    }

    /// Idle kept-alive connections by host and port, newest last.
    final class ConnectionPool: Sendable {
        private let idle = Mutex<[String: [Socket]]>([:])
        private let maxIdle: Int

        init(maxIdle: Int) { self.maxIdle = max(1, maxIdle) }

        /// An idle connection to `key` that is still open, if there is one.
        func take(_ key: String) -> Socket? {
            while let socket = idle.withLock({ $0[key]?.popLast() }) {
                if socket.isIdle { return socket }
            }
            return nil
        }

        /// Keeps `socket` for the next request to `key` (the oldest is closed past `maxIdle`).
        func put(_ socket: Socket, _ key: String) {
            idle.withLock { all in
                all[key, default: []].append(socket)
                if all[key]!.count > maxIdle { all[key]!.removeFirst() }
            }
        }
    }
#endif
