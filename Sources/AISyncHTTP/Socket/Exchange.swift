#if canImport(Glibc) || canImport(Musl)
    import Foundation
    import AISyncCore
    import AISyncFiles

    /// One request and its answer over one connection: a kept-alive one when the pool has it
    /// (and, if that connection turns out to be closed before any answer, once more on a fresh
    /// one, body and all), else a new one.
    struct Exchange {
        /// What ``SocketTransport`` does next.
        enum Result: Sendable {
            /// The server's answer.
            case answer(HTTPResponse)
            /// A followed redirect to a URL this transport does not serve (https).
            case elsewhere(HTTPRequest)
        }

        let request: HTTPRequest
        let target: HTTPTarget
        let pool: ConnectionPool
        /// The TLS settings for an `https://` target (nil for `http://`).
        let tls: TLSContext?
        let limits: SocketLimits
        /// The overall deadline in seconds, for its error message.
        let seconds: Double

        private var key: String { "\(target.secure ? "https" : "http")://\(target.host):\(target.port)" }

        func run(file: HashingFileWriter?, maxBytes: Int64) throws(AISyncError) -> HTTPResponse {
            // A POST never rides a reused connection: if that broke, the server may have acted on it.
            if request.method != "POST", let socket = pool.take(key),
                let response = try over(socket, reused: true, file: file, maxBytes: maxBytes)
            {
                return response
            }
            let socket: Socket
            do {
                socket = try connect(bundle: false)
            } catch .refused(.certificate(let code, _)) where tls?.folderOnly == true && TLSContext.incomplete(code) {
                // The system's hashed CA folder could not complete the chain: once more, on a
                // fresh connection, against its whole bundle.
                do { socket = try connect(bundle: true) } catch { throw failure(error, answering: false) }
            } catch {
                throw failure(error, answering: false)
            }
            // A fresh connection never comes back nil.
            return try over(socket, reused: false, file: file, maxBytes: maxBytes)!
        }

        /// A new connection to the target, TLS when it is `https://`.
        private func connect(bundle: Bool) throws(SocketFailure) -> Socket {
            let socket = try Socket.connect(host: target.host, port: target.port, limits: limits)
            if let tls { try socket.secure(tls, host: target.host, key: key, bundle: bundle, limits: limits) }
            return socket
        }

        /// Sends the request on `socket` and reads the answer. Nil when `reused` and the
        /// connection was found closed before any of the answer arrived.
        private func over(_ socket: Socket, reused: Bool, file: HashingFileWriter?, maxBytes: Int64) throws(AISyncError)
            -> HTTPResponse?
        {
            var sendFailure: SocketFailure?
            do { try sendRequest(on: socket) } catch .lost(let why) { sendFailure = .lost(why) } catch {
                throw failure(error, answering: false)
            }
            var reader = AnswerReader(socket: socket, limits: limits)
            let head: HTTPWire.Head
            do {
                guard let read = try reader.head() else {
                    if reused { return nil }
                    throw failure(sendFailure ?? .lost("closed without answering"), answering: false)
                }
                head = read
            } catch let error as SocketFailure {
                if reused, case .lost = error { return nil }
                throw failure(sendFailure ?? error, answering: false)
            } catch let error as AISyncError {
                throw error
            } catch {
                throw failure(.lost("\(error)"), answering: false)
            }
            var sink = sink(for: head.status, file: file, maxBytes: maxBytes)
            let complete: Bool
            do {
                complete = try reader.body(head.framing(method: request.method), into: &sink)
            } catch let error as SocketFailure {
                throw failure(error, answering: true)
            } catch let error as AISyncError {
                throw error == AnswerSink.tooLarge ? tooLarge(maxBytes) : error
            } catch {
                throw failure(.lost("\(error)"), answering: true)
            }
            if complete, sendFailure == nil, head.keepsAlive, reader.isDrained { pool.put(socket, key) }
            return HTTPResponse(status: head.status, headers: head.headers, body: sink.body)
        }

        /// Where the answer's body goes: a 2xx download to its file; the answer to a file upload
        /// and a refused download only for their first 64 KiB (read for the status and message).
        private func sink(for status: Int, file: HashingFileWriter?, maxBytes: Int64) -> AnswerSink {
            if let file, (200..<300).contains(status) { return AnswerSink(file: file, limit: maxBytes) }
            if file != nil { return AnswerSink(limit: 65536, truncating: true) }
            if case .file = request.body { return AnswerSink(limit: min(maxBytes, 65536), truncating: true) }
            return AnswerSink(limit: maxBytes, truncating: false)
        }

        /// Sends the head and the body; a small body goes in the same write as the head.
        private func sendRequest(on socket: Socket) throws(SocketFailure) {
            switch request.body {
            case .none:
                let length: Int64? = ["PUT", "POST", "PROPFIND", "PROPPATCH"].contains(request.method) ? 0 : nil
                try send(head(length), on: socket)
            case .bytes(let bytes):
                try send(head(Int64(bytes.count)) + bytes, on: socket)
            case .file(let path):
                try sendFile(path, on: socket)
            }
        }

        private func head(_ length: Int64?) throws(SocketFailure) -> [UInt8] {
            do {
                return try HTTPWire.requestHead(
                    method: request.method, target: target.target, host: target.authority,
                    headers: request.headers, bodyLength: length)
            } catch {
                throw .local(error.message)
            }
        }

        private func send(_ bytes: [UInt8], on socket: Socket) throws(SocketFailure) {
            try bytes.withUnsafeBytes { raw in
                Swift.Result { () throws(SocketFailure) in try socket.send(raw, limits: limits) }
            }.get()
        }

        /// Streams a file body from disk a MiB at a time; the length sent is the file's size
        /// when it was opened. Read and sent, not sendfile(2): the receiver gets fewer, larger
        /// writes, and it measured faster (docs/PERFORMANCE.md).
        private func sendFile(_ path: String, on socket: Socket) throws(SocketFailure) {
            let fd = Platform.open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw .local("cannot read \(path): \(Platform.describe(Platform.errno))") }
            defer { Platform.close(fd) }
            guard let size = Platform.size(of: fd) else { throw .local("cannot read \(path)") }
            try send(head(size), on: socket)
            var buffer = [UInt8](repeating: 0, count: min(Int(size), 1 << 20))
            var sent: Int64 = 0
            while sent < size {
                let n = buffer.withUnsafeMutableBytes {
                    Platform.read(
                        fd, into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<min($0.count, Int(size - sent))]))
                }
                guard let n, n > 0 else { throw .local("\(path) changed while it was being sent") }
                try buffer.withUnsafeBytes { raw in
                    Swift.Result { () throws(SocketFailure) in
                        try socket.send(UnsafeRawBufferPointer(rebasing: raw[0..<n]), limits: limits)
                    }
                }.get()
                sent += Int64(n)
            }
        }

        /// The error for a TLS connection refused before any request went over it: the server
        /// is there, and trying again will not help until the certificate, the pin or the
        /// server's TLS is set right.
        static func refused(_ refusal: TLSRefusal, host: String) -> AISyncError {
            switch refusal {
            case .certificate(TLSLibrary.hostnameMismatch, _), .certificate(TLSLibrary.ipAddressMismatch, _):
                return AISyncError(
                    .configuration, "the TLS certificate of \(host) is for another name",
                    hint: "Use the name the certificate was issued for in the remote's URL")
            case .certificate(let code, let reason):
                let expired = code == TLSLibrary.certificateExpired || code == TLSLibrary.certificateNotYetValid
                return URLSessionTransport.untrusted(host, because: reason, trustable: !expired)
            case .pin(let found):
                return AISyncError(
                    .configuration, "the TLS key of \(host) is not the one pinned for this remote (it is \(found))",
                    hint:
                        "Do not sync until you know why: someone may be between this device and the server; if its key was changed on purpose, pin the new one",
                    remedy: .checkPinnedKey)
            case .handshake(let why):
                return AISyncError(
                    .configuration, "cannot make a secure connection to \(host) (\(why))",
                    hint: "Check that the server speaks HTTPS on this port, with TLS 1.2 or newer")
            }
        }

        private func tooLarge(_ maxBytes: Int64) -> AISyncError {
            AISyncError(
                .damagedData, "\(target.target) is larger than allowed (over \(maxBytes) bytes): reading stopped there",
                hint: "No device wrote it; check what the server at \(target.host) serves")
        }

        /// The error for a socket failure; `answering` when the answer had begun to arrive.
        private func failure(_ failure: SocketFailure, answering: Bool) -> AISyncError {
            let host = target.host
            switch failure {
            case .cannotConnect(let why):
                return AISyncError(
                    .unavailable, "cannot reach \(host)", hint: "Check that the server is running and the URL is right",
                    cause: why)
            case .lost(let why):
                // The request may have reached the server: like a timeout, not like a server
                // that could not be reached.
                return AISyncError(
                    .temporary,
                    "the connection to \(host) was lost \(answering ? "in the middle of its answer" : "before it answered")",
                    hint: "Try again later", cause: why, remedy: .retryLater)
            case .inactive:
                return AISyncError(
                    .temporary, "\(host) did not answer in time", hint: "Try again later", remedy: .retryLater)
            case .overdue:
                return AISyncError(
                    .temporary, "\(host) answered too slowly: gave up after \(Int(seconds.rounded(.up))) s",
                    hint: "Try again later", remedy: .retryLater)
            case .tooSlow(let moved):
                return limits.pace?.error(host: host, moved: moved)
                    ?? AISyncError(.temporary, "\(host) is too slow", hint: "Try again later", remedy: .retryLater)
            case .cancelled:
                return .cancelled
            case .refused(let refusal):
                return Self.refused(refusal, host: host)
            case .local(let why):
                return AISyncError(
                    .io, "cannot send the request to \(host): \(why)", hint: "Check the file and try again")
            }
        }
    }
#endif
