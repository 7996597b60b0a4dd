import AISyncCore
import AISyncFiles
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Security)
    import Security
#endif

/// The URLSession transport (Apple platforms, and `https://` on Linux, where plain `http://`
/// goes to ``SocketTransport``): one URLSession per remote, so connections are kept alive and reused,
/// with a bounded number per host; requests that send a body use a second session and a fresh
/// connection each (`Connection: close`).
///
/// Bodies never ride a kept-alive connection: libcurl would retry them on a fresh connection
/// after a rewind corelibs does not do, sending no body. On a connection of its own a reset
/// comes back as a lost connection, and ``HTTPRemote`` sends the whole body again.
///
/// aisync sends `Authorization` itself, so a `401` challenge means the credentials were
/// refused: the delegate declines it and the `401` comes back as an ordinary response
/// (corelibs otherwise leaves the task suspended forever, swift-corelibs-foundation#5456).
///
/// A file body goes through `uploadTask(with:fromFile:)`, which streams it, slowly on Linux;
/// a 2xx download is written straight to its target and hashed as it arrives
/// (``HashingFileWriter``). The investigations behind all three: docs/PERFORMANCE.md.
public final class URLSessionTransport: HTTPTransport {
    /// Requests without a body, over kept-alive connections.
    private let session: URLSession
    private let challenges: ChallengeDecliner
    /// Requests with a body (PUT, PROPFIND), each on a connection of its own.
    private let uploads: URLSession
    private let uploadChallenges: ChallengeDecliner
    private let timeout: TimeInterval
    private let speedFloor: SpeedFloor
    private let trust: TLSTrust

    /// A transport with its own ephemeral session: no cookies, cache or stored credentials.
    /// `timeoutSeconds` (seconds, not milliseconds) bounds the wait for each request's data;
    /// `maxConnections` bounds the connections per host; `redirects` says which redirects
    /// the session follows by itself (the others come back as the 3xx response); a request
    /// that moves less than `speedFloor` is ended. `trust` adds certificates to the system's
    /// on Apple platforms (Security's trust evaluation with them as anchors); elsewhere, and
    /// for pinned keys, URLSession cannot be given them and such a request is refused.
    public init(
        timeoutSeconds: TimeInterval = 30, maxConnections: Int = 4, redirects: RedirectPolicy = .sameHost,
        speedFloor: SpeedFloor = .standard, trust: TLSTrust = .system
    ) {
        self.trust = trust
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeoutSeconds
        configuration.httpMaximumConnectionsPerHost = maxConnections
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCredentialStorage = nil
        challenges = ChallengeDecliner(redirects: redirects, trust: trust)
        session = URLSession(configuration: configuration, delegate: challenges, delegateQueue: nil)
        // Task ids are per session: each session has its own decliner.
        uploadChallenges = ChallengeDecliner(redirects: redirects, trust: trust)
        uploads = URLSession(configuration: configuration, delegate: uploadChallenges, delegateQueue: nil)
        timeout = timeoutSeconds
        self.speedFloor = speedFloor
    }

    deinit {
        session.finishTasksAndInvalidate()
        uploads.finishTasksAndInvalidate()
    }

    /// What a task's completion handler saw.
    fileprivate struct Outcome: Sendable {
        var data: Data?
        var response: URLResponse?
        var error: Error?
        /// The answer was longer than the request allows: reading stopped there.
        var tooLarge = false
    }

    /// Sends `request` over the session. A body over `maxBytes` bytes is refused as damaged
    /// data; cancelling the calling task cancels the request and throws `cancelled`. With
    /// `downloadTo`, a 2xx body goes straight to that file and its SHA-256, computed as it
    /// arrived, is the response's `bodyDigest`.
    public func send(_ request: HTTPRequest, downloadTo: String?, maxBytes: Int64) async throws(AISyncError)
        -> HTTPResponse
    {
        guard let url = URL(string: request.url) else {
            throw AISyncError(.configuration, "invalid URL \(request.url.prefix(200))")
        }
        if !Self.canApply(trust) {
            throw AISyncError(
                .configuration,
                "this platform's HTTPS cannot be given the remote's \(trust.pins.isEmpty ? "own certificate" : "pinned key")",
                hint: trust.pins.isEmpty
                    ? "Add the server's CA to the system's trusted certificates"
                    : "Trust the server's certificate (or its CA) instead of pinning its key")
        }
        return try await perform(request, url: url, downloadTo: downloadTo, maxBytes: maxBytes)
    }

    /// One request, as one session task, with its watchdog.
    private func perform(_ request: HTTPRequest, url: URL, downloadTo: String?, maxBytes: Int64)
        async throws(AISyncError) -> HTTPResponse
    {
        let handle = TaskHandle()
        // A server that trickles a byte now and then never trips the inactivity timeout: every
        // request also has an overall deadline, scaled to the bytes it may move.
        let deadline = Self.deadline(timeout: timeout, bytes: maxBytes + request.body.byteCount)
        // On a Dispatch timer, not a task: it must fire even when the cooperative pool is busy.
        let watchdog = DispatchWorkItem { handle.expire() }
        DispatchQueue.global().asyncAfter(deadline: .now() + deadline, execute: watchdog)
        defer { watchdog.cancel() }
        // The speed floor: the delegate counts the bytes sent and received; checked every second.
        let pace = PaceMeter(speedFloor)
        let pacer = DispatchSource.makeTimerSource(queue: .global())
        pacer.schedule(deadline: .now() + 1, repeating: 1)
        pacer.setEventHandler {
            if let slow = pace.check(now: DispatchTime.now().uptimeNanoseconds) { handle.tooSlow(slow) }
        }
        if speedFloor.bytesPerSecond > 0 { pacer.resume() } else { pacer.activate() }
        defer { pacer.cancel() }
        let file = try downloadTo.map { (target: String) throws(AISyncError) in try HashingFileWriter(path: target) }
        var task = self.task(for: request, url: url, file: file, maxBytes: maxBytes)
        task.receiving.pace = pace
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                // Resumed once: by the delegate, or at once when cancelled or past the deadline
                // (corelibs does not always report a task cancelled mid-answer, which would
                // leave this request waiting forever).
                let once = ResumeOnce(continuation)
                handle.onStop { once.resume(Outcome(data: nil, response: nil, error: URLError(.cancelled))) }
                (request.body == .none ? challenges : uploadChallenges).receive(task.task, task.receiving) {
                    // Ended by the server's answer: a deadline or floor check that runs after
                    // this (the awaiting task may resume late on a busy pool) changes nothing.
                    handle.finish()
                    once.resume($0)
                }
                handle.start(task.task)
            }
        } onCancel: {
            handle.cancel()
        }
        let declined = handle.taskID.flatMap { (request.body == .none ? challenges : uploadChallenges).take($0) }
        do throws(AISyncError) {
            if let slow = handle.slow { throw pace.error(host: url.host ?? "the server", moved: slow) }
            if handle.expired {
                throw AISyncError(
                    .temporary,
                    "\(url.host ?? "the server") answered too slowly: gave up after \(Int(deadline.rounded(.up))) s",
                    hint: "Try again later", remedy: .retryLater)
            }
            var response = try finish(outcome, declined: declined, url: url, downloadTo: downloadTo, maxBytes: maxBytes)
            if let file, (200..<300).contains(response.status) {
                response.bodyDigest = try await file.finish()
            } else {
                file?.abandon()
            }
            return response
        } catch {
            file?.abandon()
            throw error
        }
    }

    /// The longest a request may take in all: four inactivity timeouts (room for a loaded
    /// server between bursts) plus the time to move `bytes` at 128 KiB/s, the slowest rate
    /// worth waiting for (a 1 MiB head with the default 30 s: 128 s).
    static func deadline(timeout: TimeInterval, bytes: Int64) -> TimeInterval {
        4 * timeout + Double(max(bytes, 0)) / Double(128 << 10)
    }

    /// The session task for `request` (not resumed yet) and how its answer is received: an
    /// upload (from a file or from bytes), a download into `file`, or a plain data task.
    private func task(for request: HTTPRequest, url: URL, file: HashingFileWriter?, maxBytes: Int64) -> (
        task: URLSessionTask, receiving: Reception
    ) {
        var r = URLRequest(url: url)
        r.httpMethod = request.method
        r.timeoutInterval = timeout
        for (k, v) in request.headers { r.setValue(v, forHTTPHeaderField: k) }
        if request.body != .none {
            // A connection of its own, closed after the answer (see the type's comment).
            r.setValue("close", forHTTPHeaderField: "Connection")
        }
        // Answers are received through the delegate, which stops reading at `maxBytes` (a
        // completion handler would buffer a 200 MB answer before anyone looked).
        switch request.body {
        case .file(let path):
            // The answer to a file upload is only read for its status: its first 64 KiB are enough.
            return (
                uploads.uploadTask(with: r, fromFile: URL(fileURLWithPath: path)),
                Reception(limit: min(maxBytes, 65536), truncating: true)
            )
        case .bytes(let bytes):
            return (uploads.uploadTask(with: r, from: Data(bytes)), Reception(limit: maxBytes))
        case .none:
            return (session.dataTask(with: r), Reception(limit: maxBytes, file: file))
        }
    }

    /// Turns what a finished task saw into the response, or into the one error for it.
    /// `declined` is the 401 of an authentication challenge the delegate declined.
    private func finish(
        _ outcome: Outcome, declined: URLResponse?, url: URL, downloadTo: String?,
        maxBytes: Int64
    ) throws(AISyncError) -> HTTPResponse {
        if outcome.tooLarge {
            throw AISyncError(
                .damagedData, "\(url.path) is larger than allowed (over \(maxBytes) bytes): reading stopped there",
                hint: "No device wrote it; check what the server at \(url.host ?? "this URL") serves")
        }
        if let error = outcome.error {
            // A declined authentication challenge ends the task as cancelled: its 401 is the answer.
            if let declined = declined as? HTTPURLResponse { return Self.response(declined, body: []) }
            // Our caller cancelled: say so, never "cannot reach".
            if Task.isCancelled { throw AISyncError.cancelled }
            if let error = error as? URLError { throw Self.map(error, host: url.host ?? "the server") }
            throw AISyncError(.unavailable, "cannot reach \(url.host ?? "the server")", cause: "\(error)")
        }
        guard let http = (outcome.response ?? declined) as? HTTPURLResponse else {
            throw AISyncError(.unavailable, "\(url.host ?? "server") sent no HTTP response")
        }
        let body = outcome.data ?? Data()
        if downloadTo == nil, Int64(body.count) > maxBytes {
            throw AISyncError(.damagedData, "\(url.path) is larger than allowed (\(body.count) bytes)")
        }
        return Self.response(http, body: Array(body))
    }

    static func response(_ http: HTTPURLResponse, body: [UInt8]) -> HTTPResponse {
        var headers: [String: String] = [:]
        for (k, v) in http.allHeaderFields {
            if let k = k as? String, let v = v as? String { headers[k.lowercased()] = v }
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: body)
    }

    /// Whether URLSession here can check servers with `trust`: the system's trust everywhere;
    /// added certificates on Apple platforms; pinned keys nowhere.
    static func canApply(_ trust: TLSTrust) -> Bool {
        #if canImport(Security)
            trust.pins.isEmpty
        #else
            trust.isSystem
        #endif
    }

    static func map(_ error: URLError, host: String) -> AISyncError {
        switch error.code {
        case .timedOut:
            return AISyncError(
                .temporary, "\(host) did not answer in time", hint: "Try again later", remedy: .retryLater)
        case .networkConnectionLost:
            // The request may have reached the server (a POST may have taken effect): like a
            // timeout, not like a server that could not be reached.
            return AISyncError(
                .temporary, "the connection to \(host) was lost before it answered", hint: "Try again later",
                remedy: .retryLater)
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot:
            return untrusted(host, because: nil)
        case .serverCertificateHasBadDate, .serverCertificateNotYetValid:
            return untrusted(host, because: "certificate has expired or is not yet valid")
        case .secureConnectionFailed:
            return AISyncError(
                .configuration, "cannot establish a secure connection to \(host)",
                hint: "Check the server's TLS certificate")
        default:
            if let tls = certificateProblem(error.localizedDescription, host: host) { return tls }
            return AISyncError(
                .unavailable, "cannot reach \(host)", hint: "Check that the server is running and the URL is right",
                cause: error.localizedDescription)
        }
    }

    /// A refused certificate as libcurl (URLSession on Linux) reports it: a failed check of the
    /// chain is `SSL certificate problem: <OpenSSL's reason>` (`self-signed certificate`,
    /// `unable to get local issuer certificate`, `certificate has expired`, …), a name that
    /// does not match `SSL: no alternative certificate subject name matches target host name
    /// '<host>'` (or `… certificate subject name '<name>' does not match …`). Nil for any
    /// other error: the server was reached, and it is not about its certificate.
    static func certificateProblem(_ description: String, host: String) -> AISyncError? {
        if let range = description.range(of: "SSL certificate problem: ") {
            let reason = description[range.upperBound...].prefix { $0 != ")" && $0 != "\n" }
            return untrusted(host, because: String(reason))
        }
        if description.contains("subject name") && description.contains("target host name") {
            return AISyncError(
                .configuration, "the TLS certificate of \(host) is for another name",
                hint: "Use the name the certificate was issued for in the remote's URL", cause: description)
        }
        return nil
    }

    /// The server's certificate was refused: the server is there, and connecting again will
    /// not help until it is trusted (or renewed, or the clock is right). `trustable` when
    /// giving the remote the certificate to trust would help (not for an expired one).
    static func untrusted(_ host: String, because reason: String?, trustable: Bool? = nil) -> AISyncError {
        let expired = reason.map { $0.contains("expired") || $0.contains("not yet valid") } ?? false
        let canTrust = trustable ?? !expired
        return AISyncError(
            .configuration,
            "the TLS certificate of \(host) is not trusted\(reason.map { " (\($0))" } ?? "")",
            hint: canTrust
                ? "If it is your own server with a private or self-signed certificate, give the remote that certificate (or the CA that signed it) to trust; otherwise check that the URL names the right server"
                : "Check this device's clock; if it is right, the server's certificate must be renewed",
            remedy: canTrust ? .trustServer : nil)
    }
}

/// Resumes a continuation the first time only.
private final class ResumeOnce: Sendable {
    private let continuation: Mutex<CheckedContinuation<URLSessionTransport.Outcome, Never>?>

    init(_ continuation: CheckedContinuation<URLSessionTransport.Outcome, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ outcome: URLSessionTransport.Outcome) {
        continuation.withLock { c -> CheckedContinuation<URLSessionTransport.Outcome, Never>? in
            defer { c = nil }
            return c
        }?.resume(returning: outcome)
    }
}

/// The running task of one `send`, for cancellation and to find its declined challenge.
private final class TaskHandle: Sendable {
    private struct State {
        var task: URLSessionTask?
        var cancelled = false
        /// The task ended with the server's answer: nothing may end it for another reason.
        var finished = false
        var expired = false
        /// What the stretch that broke the speed floor moved (the task was cancelled for it).
        var slow: Int64?
        /// Ends the wait for the task when it is cancelled (see `ResumeOnce`).
        var stop: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    var taskID: Int? { state.withLock { $0.task?.taskIdentifier } }
    /// Whether the overall deadline passed (the task was cancelled for it).
    var expired: Bool { state.withLock { $0.expired } }

    /// What the stretch that broke the speed floor moved, if one did.
    var slow: Int64? { state.withLock { $0.slow } }

    /// A stretch moved only `moved` bytes: cancel the task and remember why (unless the
    /// deadline or the caller ended it first: the first reason is the one reported).
    func tooSlow(_ moved: Int64) {
        let first = state.withLock { s -> Bool in
            guard !s.cancelled, !s.finished else { return false }
            s.slow = moved
            return true
        }
        if first { cancel() }
    }

    /// The task ended with the server's answer (or its failure).
    func finish() { state.withLock { $0.finished = true } }

    /// The overall deadline passed: cancel the task and remember why (unless it already ended
    /// for another reason).
    func expire() {
        let first = state.withLock { s -> Bool in
            guard !s.cancelled, !s.finished else { return false }
            s.expired = true
            return true
        }
        if first { cancel() }
    }

    func start(_ task: URLSessionTask) {
        let cancelled = state.withLock { s -> Bool in
            s.task = task
            return s.cancelled
        }
        task.resume()
        if cancelled { task.cancel() }
    }

    func cancel() {
        let (task, stop) = state.withLock { s -> (URLSessionTask?, (@Sendable () -> Void)?) in
            s.cancelled = true
            return (s.task, s.stop)
        }
        task?.cancel()
        stop?()
    }

    /// What to call when the task is cancelled; called at once when it already was.
    func onStop(_ stop: @escaping @Sendable () -> Void) {
        let cancelled = state.withLock { s -> Bool in
            s.stop = stop
            return s.cancelled
        }
        if cancelled { stop() }
    }
}

/// Declines HTTP authentication challenges (aisync authenticates preemptively) and keeps the
/// refused response per task, so the transport can return the 401. Server-trust and
/// client-certificate challenges get the system's default handling. Also applies the
/// transport's redirect policy.
private final class ChallengeDecliner: NSObject, URLSessionDataDelegate, Sendable {
    private let refused = Mutex<[Int: URLResponse]>([:])
    private let redirects: RedirectPolicy
    private let trust: TLSTrust

    init(redirects: RedirectPolicy, trust: TLSTrust) {
        self.redirects = redirects
        self.trust = trust
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let method = challenge.protectionSpace.authenticationMethod
        let httpAuthentication = [
            NSURLAuthenticationMethodDefault, NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
            NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate, NSURLAuthenticationMethodHTMLForm,
        ]
        #if canImport(Security)
            if method == NSURLAuthenticationMethodServerTrust, let certificates = trust.certificates,
                let serverTrust = challenge.protectionSpace.serverTrust
            {
                // The remote's own certificates as anchors beside the system's; the chain and
                // the name are still checked.
                let anchors = ((try? TLSTrust.certificates(inPEM: certificates)) ?? []).compactMap {
                    SecCertificateCreateWithData(nil, Data($0) as CFData)
                }
                SecTrustSetAnchorCertificates(serverTrust, anchors as CFArray)
                SecTrustSetAnchorCertificatesOnly(serverTrust, false)
                if SecTrustEvaluateWithError(serverTrust, nil) {
                    completionHandler(.useCredential, URLCredential(trust: serverTrust))
                } else {
                    // The system's own evaluation then fails with its own error (untrusted,
                    // expired, another name), which `map` turns into words; cancelling would
                    // read as the user's cancel.
                    completionHandler(.performDefaultHandling, nil)
                }
                return
            }
        #endif
        guard httpAuthentication.contains(method) else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        let response = challenge.failureResponse ?? task.response
        if let response {
            refused.withLock { $0[task.taskIdentifier] = response }
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    /// Follows a redirect only when the policy says so (never to another host, where
    /// credentials would travel); otherwise the 3xx is handed back to the caller.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        if let from = task.originalRequest?.url, let to = request.url, redirects.follows(from: from, to: to) {
            completionHandler(request)
        } else {
            completionHandler(nil)
        }
    }

    /// The refused response of a task, once (and forgotten).
    func take(_ taskID: Int) -> URLResponse? {
        refused.withLock { $0.removeValue(forKey: taskID) }
    }

    // MARK: Answers read through the delegate, up to a limit

    /// An answer being received: at most `limit` bytes are kept; past it, the answer is too
    /// large (the transfer stops), or with `truncating` the rest is dropped. A 2xx answer for
    /// a download goes to `file` instead of memory.
    private struct Receiving {
        var reception: Reception
        var data = Data()
        var received: Int64 = 0
        var response: URLResponse?
        var tooLarge = false
        var done: @Sendable (URLSessionTransport.Outcome) -> Void
    }

    private let receiving = Mutex<[Int: Receiving]>([:])

    /// Receives `task`'s answer as `reception` says (call before resuming it); `done` gets the outcome once.
    fileprivate func receive(
        _ task: URLSessionTask, _ reception: Reception,
        done: @escaping @Sendable (URLSessionTransport.Outcome) -> Void
    ) {
        receiving.withLock { $0[task.taskIdentifier] = Receiving(reception: reception, done: done) }
    }

    /// A length announced over the limit is refused before its body is read. An answer that
    /// is not a 2xx is never written to a download's file: its first 64 KiB are kept instead.
    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let allow = receiving.withLock { all -> Bool in
            guard var r = all[dataTask.taskIdentifier] else { return true }
            r.response = response
            if r.reception.file != nil, !(200..<300).contains((response as? HTTPURLResponse)?.statusCode ?? 0) {
                r.reception = Reception(limit: 65536, truncating: true, pace: r.reception.pace)
            }
            if response.expectedContentLength > r.reception.limit, !r.reception.truncating { r.tooLarge = true }
            all[dataTask.taskIdentifier] = r
            return !r.tooLarge
        }
        completionHandler(allow ? .allow : .cancel)
    }

    /// Bytes past the limit stop the transfer (a chunked or endless answer has no length).
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let (over, file) = receiving.withLock { all -> (Bool, HashingFileWriter?) in
            guard var r = all[dataTask.taskIdentifier], !r.tooLarge else { return (false, nil) }
            let limit = r.reception.limit
            if r.received + Int64(data.count) > limit {
                if r.reception.truncating {
                    r.data.append(data.prefix(Int(limit - r.received)))
                    r.received = limit
                } else {
                    r.tooLarge = true
                    r.data = Data()
                }
            } else {
                r.received += Int64(data.count)
                if r.reception.file == nil { r.data.append(data) }
            }
            r.reception.pace?.add(data.count, now: DispatchTime.now().uptimeNanoseconds)
            all[dataTask.taskIdentifier] = r
            return (r.tooLarge, r.tooLarge ? nil : r.reception.file)
        }
        // Written outside the lock; the delegate queue is serial, so chunks stay in order.
        if let file, !file.write(data) { dataTask.cancel() }
        if over { dataTask.cancel() }
    }

    /// Bytes of a body sent count toward the request's pace.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        receiving.withLock { $0[task.taskIdentifier]?.reception.pace }?.add(
            Int(bytesSent), now: DispatchTime.now().uptimeNanoseconds)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let r = receiving.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        r.done(
            URLSessionTransport.Outcome(
                data: r.data, response: r.response ?? task.response, error: r.tooLarge ? nil : error,
                tooLarge: r.tooLarge))
    }
}

/// How a task's answer is received: kept in memory up to `limit` bytes (or, `truncating`,
/// cut there), or, for a 2xx answer to a download, written to `file`.
struct Reception: Sendable {
    var limit: Int64
    var truncating = false
    var file: HashingFileWriter?
    /// Counts what moves, for the speed floor.
    var pace: PaceMeter?
}
