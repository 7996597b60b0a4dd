#if canImport(Glibc) || canImport(Musl)
    #if canImport(Glibc)
        @preconcurrency import Glibc
    #else
        @preconcurrency import Musl
    #endif
    import Synchronization
    import AISyncCore

    /// One transport's TLS settings: an OpenSSL client context that verifies the server's
    /// certificate chain against the system's trusted certificates (and those of its
    /// ``TLSTrust``) and its name against the URL's host, TLS 1.2 or newer only, no
    /// renegotiation; and the last session of each server, so the next connection of a sync
    /// resumes it instead of a full handshake.
    final class TLSContext: Sendable {
        let library: TLSLibrary
        let trust: TLSTrust
        /// The `SSL_CTX`'s address (OpenSSL's context is safe to share between threads). Where
        /// the system keeps its CAs in a hashed folder (Debian's /etc/ssl/certs), this context
        /// finds them there one by one as a chain needs them; reading the whole bundle instead
        /// took 31 ms of a 20 ms sync (docs/PERFORMANCE.md).
        private let address: UInt
        /// A second context with the system's whole CA bundle loaded (OpenSSL's default paths),
        /// made when a chain could not be completed from the folder alone; nil inside until then.
        private let complete = Mutex<UInt?>(nil)
        /// True when `address` trusts the hashed folder only (so `complete` may add to it).
        let folderOnly: Bool
        /// Hosts whose chain needed the whole bundle: their connections start there.
        private let needBundle = Mutex<Set<String>>([])
        /// The newest resumable session per `host:port` (each holds a reference), as the
        /// address of its `SSL_SESSION`.
        private let sessions = Mutex<[String: UInt]>([:])

        /// A context for `trust`; nil when `library` cannot make one.
        ///
        /// - Throws: `.configuration` when a trusted certificate cannot be read by OpenSSL.
        init?(library: TLSLibrary, trust: TLSTrust) throws(AISyncError) {
            let folder = Self.hashedFolder(library)
            guard let context = try Self.make(library: library, trust: trust, folder: folder) else { return nil }
            self.library = library
            self.trust = trust
            address = UInt(bitPattern: context)
            folderOnly = folder != nil
        }

        /// An `SSL_CTX` that verifies against `folder` (looked up lazily) or, when nil, the
        /// system's default paths, plus `trust`'s certificates.
        private static func make(library: TLSLibrary, trust: TLSTrust, folder: String?) throws(AISyncError)
            -> OpaquePointer?
        {
            guard let context = library.contextNew(library.clientMethod()) else { return nil }
            library.contextSetVerify(context, TLSLibrary.verifyPeer, nil)
            if let folder {
                _ = library.contextLoadFolder(context, folder)
            } else {
                _ = library.contextDefaultPaths(context)
            }
            guard library.contextControl(context, TLSLibrary.controlMinimumVersion, TLSLibrary.tls12, nil) == 1 else {
                library.contextFree(context)
                return nil
            }
            // AUTO_RETRY is OpenSSL's default since 1.1.1, named so it stays: with read-ahead, a
            // read that processed only a ticket must not stop while records wait in the buffer.
            _ = library.contextControl(
                context, TLSLibrary.controlMode,
                TLSLibrary.modePartialWrite | TLSLibrary.modeMovingBuffer | TLSLibrary.modeAutoRetry, nil)
            // Records are read ahead, a socket read at a time, not two reads (header, body) each.
            _ = library.contextControl(context, TLSLibrary.controlReadAhead, 1, nil)
            library.contextReadBufferLength(context, TLSLibrary.readAheadBytes)
            // A close without close_notify stays an error to OpenSSL (no IGNORE_UNEXPECTED_EOF):
            // `TLSSession.receive` reports it as an unclean end, which an answer framed by the
            // close does not survive (someone between could have cut it).
            _ = library.contextSetOptions(context, TLSLibrary.optionNoRenegotiation)
            do throws(AISyncError) {
                if let pem = trust.certificates { try add(pem, to: context, library: library) }
            } catch {
                library.contextFree(context)
                throw error
            }
            library.errorClear()
            return context
        }

        private static func add(_ pem: String, to context: OpaquePointer, library: TLSLibrary) throws(AISyncError) {
            let store = library.contextCertStore(context)
            let certificates: [[UInt8]]
            do throws(AISyncError) {
                certificates = try TLSTrust.certificates(inPEM: pem)
            } catch {
                // Read from the store's configuration, not from a file the user just gave.
                throw AISyncError(
                    .configuration, "the certificates kept for this remote cannot be read (\(error.message))",
                    hint: "Give the remote its CA's certificate again, in PEM form")
            }
            for der in certificates {
                let certificate = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
                    var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                    return library.certificateFromDER(nil, &cursor, buffer.count)
                }
                guard let certificate else {
                    library.errorClear()
                    throw AISyncError(
                        .configuration, "a certificate the remote trusts cannot be read by the TLS library",
                        hint: "Give the remote its CA's certificate again, in PEM form")
                }
                _ = library.storeAdd(store, certificate)
                library.certificateFree(certificate)
            }
        }

        /// The system's CA folder (`SSL_CERT_DIR`, else OpenSSL's default) when it is hashed
        /// (`c_rehash`: names like `3513523f.0`); nil otherwise. Trust is the same either way:
        /// a chain the folder cannot complete is tried again against the default paths, which
        /// add the CA file (`SSL_CERT_FILE`, else the system bundle) to the folder.
        static func hashedFolder(_ library: TLSLibrary) -> String? {
            let folder =
                getenv("SSL_CERT_DIR").map { String(cString: $0) }
                ?? library.defaultCertificateFolder().map { String(cString: $0) }
            guard let folder, !folder.contains(":"), let listing = opendir(folder) else { return nil }
            defer { closedir(listing) }
            while let entry = readdir(listing) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                let parts = name.split(separator: ".")
                if parts.count == 2, parts[0].count == 8, parts[0].allSatisfy(\.isHexDigit),
                    parts[1].allSatisfy(\.isNumber)
                {
                    return folder
                }
            }
            return nil
        }

        deinit {
            for session in sessions.withLock({ Array($0.values) }) {
                library.sessionFree(OpaquePointer(bitPattern: session))
            }
            library.contextFree(OpaquePointer(bitPattern: address))
            if let full = complete.withLock({ $0 }) { library.contextFree(OpaquePointer(bitPattern: full)) }
        }

        /// The context a connection to `key` uses: the one with the whole bundle once `key`
        /// needed it (made then), else the lazy one.
        private func context(for key: String, bundle: Bool) -> OpaquePointer? {
            guard bundle || needBundle.withLock({ $0.contains(key) }) else { return OpaquePointer(bitPattern: address) }
            if !bundle { return fullContext() }
            needBundle.withLock { _ = $0.insert(key) }
            return fullContext()
        }

        private func fullContext() -> OpaquePointer? {
            if let made = complete.withLock({ $0 }) { return OpaquePointer(bitPattern: made) }
            guard let made = try? Self.make(library: library, trust: trust, folder: nil) else { return nil }
            let address = UInt(bitPattern: made)
            let winner = complete.withLock { current -> UInt in
                if let current { return current }
                current = address
                return address
            }
            if winner != address { library.contextFree(made) }
            return OpaquePointer(bitPattern: winner)
        }

        /// A new connection's TLS state on `fd`, set to check `host` and to resume the last
        /// session with `key`; with `bundle`, verified against the system's whole CA bundle
        /// (after the hashed folder alone could not complete the chain).
        func session(fd: Int32, host: String, key: String, bundle: Bool = false) throws(TLSRefusal) -> TLSSession {
            guard let (name, address) = Self.checkedName(host) else {
                throw .handshake("\(host) is neither a host name nor an IP address in standard form")
            }
            guard let context = context(for: key, bundle: bundle), let ssl = library.new(context) else {
                throw .handshake(library.lastError() ?? "TLS could not be set up")
            }
            _ = library.setFD(ssl, fd)
            let checked: Bool
            if address {
                // No SNI for an address (RFC 6066 §3); the certificate must name the address.
                checked = name.withCString { library.setIP(library.verifyParameters(ssl), $0) } == 1
            } else {
                let sni = name.withCString {
                    library.control(ssl, TLSLibrary.controlHostName, 0, UnsafeMutableRawPointer(mutating: $0))
                }
                checked = sni == 1 && name.withCString { library.setHost(ssl, $0) } == 1
                // A wildcard matches a whole label only ("*.example.com", never "f*.example.com"),
                // as browsers and RFC 6125 §6.4.3 ask.
                library.setHostFlags(ssl, TLSLibrary.noPartialWildcards)
            }
            // A name OpenSSL would not check is never connected to unchecked.
            guard checked else {
                library.free(ssl)
                throw .handshake("\(host) cannot be checked against a certificate")
            }
            // Set while the lock is held: a newer session may replace (and free) it at any time.
            sessions.withLock { all in
                if let saved = all[key] { _ = library.setSession(ssl, OpaquePointer(bitPattern: saved)) }
            }
            return TLSSession(ssl: ssl, context: self, key: key)
        }

        /// Keeps the session of a connection that is done with, for the next one to `key`.
        func remember(_ ssl: OpaquePointer, key: String) {
            guard let session = library.session(ssl) else { return }
            guard library.sessionResumable(session) == 1 else {
                library.sessionFree(session)
                return
            }
            let address = UInt(bitPattern: session)
            let old = sessions.withLock { all -> UInt? in
                defer { all[key] = address }
                return all[key]
            }
            if let old { library.sessionFree(OpaquePointer(bitPattern: old)) }
        }

        /// Whether a refusal with this `X509_V_ERR_*` code may only mean that the issuer was
        /// not found (in the hashed folder), so the whole bundle could still complete the chain.
        static func incomplete(_ code: Int) -> Bool {
            [TLSLibrary.unableToGetIssuer, TLSLibrary.unableToGetLocalIssuer, TLSLibrary.selfSignedInChain].contains(
                code)
        }

        static func isAddress(_ host: String) -> Bool {
            var v4 = in_addr()
            var v6 = in6_addr()
            return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
        }

        /// The name a certificate must carry for `host` (brackets of an IPv6 literal removed)
        /// and whether it is an address; nil for a host that is not one in standard form:
        /// empty, or an address only `inet_aton` reads (`127.1`, `2130706433`, `1.2.3.010`),
        /// which the resolver connects to as one address while a certificate check would
        /// read another.
        static func checkedName(_ host: String) -> (name: String, address: Bool)? {
            let bracketed = host.hasPrefix("[") && host.hasSuffix("]") && host.count > 2
            let name = bracketed ? String(host.dropFirst().dropLast()) : host
            guard !name.isEmpty, !name.hasPrefix("["), !name.hasSuffix("]") else { return nil }
            if isAddress(name) { return (name, true) }
            var loose = in_addr()
            guard inet_aton(name, &loose) == 0 else { return nil }
            return (name, false)
        }
    }

    /// Why a TLS connection was refused before any request went over it.
    enum TLSRefusal: Error, Equatable {
        /// The certificate failed its checks: OpenSSL's `X509_V_ERR_*` code and reason.
        case certificate(code: Int, reason: String)
        /// The chain was good but the server's key is none of the pinned ones: this one.
        case pin(String)
        /// The handshake failed for another reason (protocol, version, cipher).
        case handshake(String)
    }

    /// One connection's TLS state (an OpenSSL `SSL`), used by one thread at a time through its
    /// ``Socket`` (not Sendable: it travels only inside the socket). Its session is kept for
    /// the next connection when the socket is released.
    final class TLSSession {
        let ssl: OpaquePointer
        let context: TLSContext
        let key: String
        private var library: TLSLibrary { context.library }
        private var established = false
        /// A fatal error ended the connection (OpenSSL must not be asked to close it), or it
        /// ended without close_notify: neither is closed with TLS nor resumed.
        private var failed = false
        /// The server closed the connection without TLS's close_notify.
        private(set) var endedUncleanly = false

        init(ssl: OpaquePointer, context: TLSContext, key: String) {
            self.ssl = ssl
            self.context = context
            self.key = key
        }

        deinit {
            if established && !failed {
                context.remember(ssl, key: key)
                // close_notify, once, without waiting: a session closed without it would not
                // be offered again.
                let ssl = ssl
                let library = library
                BrokenPipe.suppressed {
                    library.errorClear()
                    _ = library.shutdown(ssl)
                    library.errorClear()
                }
            }
            library.free(ssl)
        }

        /// The handshake, then the pin check; waits through `socket` within `limits`.
        func handshake(socket: Socket, limits: SocketLimits) throws(SocketFailure) {
            while true {
                library.errorClear()
                errno = 0
                let result = library.connect(ssl)
                if result == 1 { break }
                let code = library.error(ssl, result)
                switch code {
                case TLSLibrary.wantRead: try socket.wait(for: Int16(POLLIN), limits: limits)
                case TLSLibrary.wantWrite: try socket.wait(for: Int16(POLLOUT), limits: limits)
                default:
                    failed = true
                    let verify = library.verifyResult(ssl)
                    if verify != 0 {
                        library.errorClear()
                        throw .refused(.certificate(code: verify, reason: library.reason(verify)))
                    }
                    if code == TLSLibrary.syscall {
                        let why = errno == 0 ? "closed during the TLS handshake" : String(cString: strerror(errno))
                        library.errorClear()
                        throw .lost(why)
                    }
                    throw .refused(.handshake(library.lastError() ?? "TLS error \(code)"))
                }
            }
            // Verified, and with a certificate: a cipher without one (aNULL, should a system's
            // configuration allow it) passes SSL_VERIFY_PEER with nothing to verify.
            let verify = library.verifyResult(ssl)
            guard verify == 0, let certificate = library.peerCertificate(ssl) else {
                failed = true
                throw .refused(
                    .certificate(
                        code: verify == 0 ? 50 : verify, reason: verify == 0 ? "no certificate" : library.reason(verify)
                    ))
            }
            library.certificateFree(certificate)
            if !context.trust.pins.isEmpty {
                let digest = serverKeyDigest()
                guard let digest, context.trust.pinned(digest) else {
                    throw .refused(.pin(digest.map(TLSTrust.pinText) ?? "unknown"))
                }
            }
            // Only now is the session worth resuming.
            established = true
        }

        /// SHA-256 of the server certificate's SubjectPublicKeyInfo (DER).
        func serverKeyDigest() -> [UInt8]? {
            guard let certificate = library.peerCertificate(ssl) else { return nil }
            defer { library.certificateFree(certificate) }
            let key = library.publicKey(certificate)
            let length = library.publicKeyDER(key, nil)
            guard length > 0 else { return nil }
            var der = [UInt8](repeating: 0, count: Int(length))
            let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var cursor = buffer.baseAddress
                return library.publicKeyDER(key, &cursor)
            }
            guard written == length else { return nil }
            return SHA256.hash(der).bytes
        }

        /// Sends every byte of `bytes`.
        func send(_ bytes: UnsafeRawBufferPointer, socket: Socket, limits: SocketLimits) throws(SocketFailure) {
            var done = 0
            while done < bytes.count {
                library.errorClear()
                errno = 0
                let n = library.write(ssl, bytes.baseAddress! + done, Int32(min(bytes.count - done, 1 << 30)))
                if n > 0 {
                    done += Int(n)
                    try limits.moved(Int(n))
                    continue
                }
                try wait(after: n, socket: socket, limits: limits)
            }
        }

        /// Reads what has arrived into `buffer` (every record already here, up to its size),
        /// waiting for something; 0 when the server closed the connection (with close_notify,
        /// or without it: then ``endedUncleanly``).
        func receive(into buffer: UnsafeMutableRawBufferPointer, socket: Socket, limits: SocketLimits)
            throws(SocketFailure) -> Int
        {
            var total = 0
            while total < buffer.count {
                library.errorClear()
                errno = 0
                let n = library.read(ssl, buffer.baseAddress! + total, Int32(min(buffer.count - total, 1 << 30)))
                if n > 0 {
                    total += Int(n)
                    try limits.moved(Int(n))
                    continue
                }
                let code = library.error(ssl, n)
                if code == TLSLibrary.zeroReturn { return total }
                if total > 0 && code == TLSLibrary.wantRead {
                    library.errorClear()
                    return total
                }
                if isUncleanEnd(code) {
                    endedUncleanly = true
                    failed = true
                    return total
                }
                try wait(after: n, socket: socket, limits: limits)
            }
            return total
        }

        /// Whether an error is the server's close without close_notify: OpenSSL 3's
        /// `SSL_R_UNEXPECTED_EOF_WHILE_READING` (an `SSL_ERROR_SSL` whose queued reason is 294),
        /// or a bare EOF reported as `SSL_ERROR_SYSCALL` with no errno (OpenSSL 1.1's way).
        private func isUncleanEnd(_ code: Int32) -> Bool {
            if code == TLSLibrary.syscall && errno == 0 { return true }
            guard code == TLSLibrary.sslError else { return false }
            let queued = library.errorPeek()
            guard (queued >> 23) & 0xFF == TLSLibrary.libraryCodeSSL,
                queued & 0x7F_FFFF == TLSLibrary.reasonUnexpectedEOF
            else { return false }
            library.errorClear()
            return true
        }

        /// After a read or write that moved nothing: waits for what OpenSSL wants, or throws
        /// why the connection is over.
        private func wait(after result: Int32, socket: Socket, limits: SocketLimits) throws(SocketFailure) {
            let code = library.error(ssl, result)
            switch code {
            case TLSLibrary.wantRead: try socket.wait(for: Int16(POLLIN), limits: limits)
            case TLSLibrary.wantWrite: try socket.wait(for: Int16(POLLOUT), limits: limits)
            case TLSLibrary.zeroReturn: throw .lost("closed by the server")
            case TLSLibrary.syscall:
                failed = true
                let why = errno == 0 ? "closed without a TLS close" : String(cString: strerror(errno))
                library.errorClear()
                throw .lost(why)
            default:
                failed = true
                throw .lost(library.lastError() ?? "TLS error \(code)")
            }
        }

        /// True when nothing but TLS's own messages (session tickets) arrived since the last
        /// answer, and the server has not closed: the connection can carry another request.
        func isIdle(socket: Socket) -> Bool {
            for _ in 0..<8 {
                if library.pending(ssl) > 0 { return false }
                // Bytes read ahead but not yet processed are in OpenSSL's buffer, not the socket.
                if library.hasPending(ssl) == 0 {
                    var entry = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
                    if poll(&entry, 1, 0) == 0 { return true }
                }
                var byte: UInt8 = 0
                library.errorClear()
                let n = library.peek(ssl, &byte, 1)
                if n > 0 { return false }
                guard library.error(ssl, n) == TLSLibrary.wantRead else {
                    library.errorClear()
                    return false
                }
            }
            return false
        }
    }
#endif
