#if canImport(Glibc) || canImport(Musl)
    #if canImport(Glibc)
        @preconcurrency import Glibc
    #else
        @preconcurrency import Musl
    #endif

    /// The system's OpenSSL 3 (`libssl.so.3` and its `libcrypto.so.3`), found with dlopen/dlsym
    /// at run time as ``SystemCryptoLoader`` finds libcrypto: aisync links no TLS library, and
    /// on a system without one `https://` goes to URLSession. Only the functions the socket
    /// transport's TLS needs, each looked up by name; a missing one means no TLS here.
    struct TLSLibrary: Sendable {
        typealias Pointer = OpaquePointer
        let clientMethod: @convention(c) () -> Pointer?
        let contextNew: @convention(c) (Pointer?) -> Pointer?
        let contextFree: @convention(c) (Pointer?) -> Void
        let contextControl: @convention(c) (Pointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int
        let contextSetVerify: @convention(c) (Pointer?, Int32, UnsafeMutableRawPointer?) -> Void
        let contextDefaultPaths: @convention(c) (Pointer?) -> Int32
        let contextSetOptions: @convention(c) (Pointer?, UInt64) -> UInt64
        let contextCertStore: @convention(c) (Pointer?) -> Pointer?
        let contextLoadFolder: @convention(c) (Pointer?, UnsafePointer<CChar>?) -> Int32
        let defaultCertificateFolder: @convention(c) () -> UnsafePointer<CChar>?
        let new: @convention(c) (Pointer?) -> Pointer?
        let free: @convention(c) (Pointer?) -> Void
        let setFD: @convention(c) (Pointer?, Int32) -> Int32
        let control: @convention(c) (Pointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int
        let setHost: @convention(c) (Pointer?, UnsafePointer<CChar>?) -> Int32
        let setHostFlags: @convention(c) (Pointer?, UInt32) -> Void
        let verifyParameters: @convention(c) (Pointer?) -> Pointer?
        let setIP: @convention(c) (Pointer?, UnsafePointer<CChar>?) -> Int32
        let connect: @convention(c) (Pointer?) -> Int32
        let read: @convention(c) (Pointer?, UnsafeMutableRawPointer?, Int32) -> Int32
        let peek: @convention(c) (Pointer?, UnsafeMutableRawPointer?, Int32) -> Int32
        let write: @convention(c) (Pointer?, UnsafeRawPointer?, Int32) -> Int32
        let pending: @convention(c) (Pointer?) -> Int32
        let hasPending: @convention(c) (Pointer?) -> Int32
        let contextReadBufferLength: @convention(c) (Pointer?, Int) -> Void
        let error: @convention(c) (Pointer?, Int32) -> Int32
        let shutdown: @convention(c) (Pointer?) -> Int32
        let verifyResult: @convention(c) (Pointer?) -> Int
        let peerCertificate: @convention(c) (Pointer?) -> Pointer?
        let session: @convention(c) (Pointer?) -> Pointer?
        let setSession: @convention(c) (Pointer?, Pointer?) -> Int32
        let sessionFree: @convention(c) (Pointer?) -> Void
        let sessionResumable: @convention(c) (Pointer?) -> Int32
        // libcrypto
        let certificateFree: @convention(c) (Pointer?) -> Void
        let certificateFromDER:
            @convention(c) (UnsafeMutablePointer<Pointer?>?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, Int) ->
                Pointer?
        let storeAdd: @convention(c) (Pointer?, Pointer?) -> Int32
        let publicKey: @convention(c) (Pointer?) -> Pointer?
        let publicKeyDER: @convention(c) (Pointer?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
        let verifyReason: @convention(c) (Int) -> UnsafePointer<CChar>?
        let errorGet: @convention(c) () -> UInt
        let errorPeek: @convention(c) () -> UInt
        let errorText: @convention(c) (UInt, UnsafeMutablePointer<CChar>?, Int) -> Void
        let errorClear: @convention(c) () -> Void

        /// The library, or nil when this system has no usable OpenSSL 3 (then `https://` goes
        /// to URLSession). `AISYNC_TLS=urlsession` turns it off, to compare the two.
        static let shared: TLSLibrary? = {
            if let choice = getenv("AISYNC_TLS"), String(cString: choice) == "urlsession" { return nil }
            return load()
        }()

        private static func load() -> TLSLibrary? {
            guard let ssl = dlopen("libssl.so.3", RTLD_NOW | RTLD_LOCAL),
                let crypto = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL),
                let library = try? TLSLibrary(ssl: ssl, crypto: crypto)
            else { return nil }
            // A context that cannot be made (a broken install) is no TLS at all.
            guard let probe = library.contextNew(library.clientMethod()) else { return nil }
            library.contextFree(probe)
            return library
        }

        /// A function the library lacks.
        private struct Missing: Error {}

        /// Every function, looked up by name in `ssl` (libssl) or `crypto` (libcrypto).
        private init(ssl: UnsafeMutableRawPointer, crypto: UnsafeMutableRawPointer) throws(Missing) {
            func f<T>(_ handle: UnsafeMutableRawPointer, _ name: String) throws(Missing) -> T {
                guard let found = dlsym(handle, name) else { throw Missing() }
                return unsafeBitCast(found, to: T.self)
            }
            clientMethod = try f(ssl, "TLS_client_method")
            contextNew = try f(ssl, "SSL_CTX_new")
            contextFree = try f(ssl, "SSL_CTX_free")
            contextControl = try f(ssl, "SSL_CTX_ctrl")
            contextSetVerify = try f(ssl, "SSL_CTX_set_verify")
            contextDefaultPaths = try f(ssl, "SSL_CTX_set_default_verify_paths")
            contextSetOptions = try f(ssl, "SSL_CTX_set_options")
            contextCertStore = try f(ssl, "SSL_CTX_get_cert_store")
            contextLoadFolder = try f(ssl, "SSL_CTX_load_verify_dir")
            defaultCertificateFolder = try f(crypto, "X509_get_default_cert_dir")
            new = try f(ssl, "SSL_new")
            free = try f(ssl, "SSL_free")
            setFD = try f(ssl, "SSL_set_fd")
            control = try f(ssl, "SSL_ctrl")
            setHost = try f(ssl, "SSL_set1_host")
            setHostFlags = try f(ssl, "SSL_set_hostflags")
            verifyParameters = try f(ssl, "SSL_get0_param")
            setIP = try f(crypto, "X509_VERIFY_PARAM_set1_ip_asc")
            connect = try f(ssl, "SSL_connect")
            read = try f(ssl, "SSL_read")
            peek = try f(ssl, "SSL_peek")
            write = try f(ssl, "SSL_write")
            pending = try f(ssl, "SSL_pending")
            hasPending = try f(ssl, "SSL_has_pending")
            contextReadBufferLength = try f(ssl, "SSL_CTX_set_default_read_buffer_len")
            error = try f(ssl, "SSL_get_error")
            shutdown = try f(ssl, "SSL_shutdown")
            verifyResult = try f(ssl, "SSL_get_verify_result")
            peerCertificate = try f(ssl, "SSL_get1_peer_certificate")
            session = try f(ssl, "SSL_get1_session")
            setSession = try f(ssl, "SSL_set_session")
            sessionFree = try f(ssl, "SSL_SESSION_free")
            sessionResumable = try f(ssl, "SSL_SESSION_is_resumable")
            certificateFree = try f(crypto, "X509_free")
            certificateFromDER = try f(crypto, "d2i_X509")
            storeAdd = try f(crypto, "X509_STORE_add_cert")
            publicKey = try f(crypto, "X509_get_X509_PUBKEY")
            publicKeyDER = try f(crypto, "i2d_X509_PUBKEY")
            verifyReason = try f(crypto, "X509_verify_cert_error_string")
            errorGet = try f(crypto, "ERR_get_error")
            errorPeek = try f(crypto, "ERR_peek_error")
            errorText = try f(crypto, "ERR_error_string_n")
            errorClear = try f(crypto, "ERR_clear_error")
        }

        /// The oldest error OpenSSL queued for this thread, in its words, and the queue emptied.
        func lastError() -> String? {
            let code = errorGet()
            defer { errorClear() }
            guard code != 0 else { return nil }
            var text = [CChar](repeating: 0, count: 256)
            errorText(code, &text, text.count)
            // "error:0A00010B:SSL routines::wrong version number" → its reason.
            let full = text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return full.split(separator: ":", omittingEmptySubsequences: false).last.map(String.init) ?? full
        }

        /// The reason OpenSSL gives for a certificate check result (`X509_V_ERR_*`).
        func reason(_ code: Int) -> String {
            verifyReason(code).map { String(cString: $0) } ?? "verification error \(code)"
        }

        // The OpenSSL constants used (from ssl.h, tls1.h, x509_vfy.h, prov_ssl.h).
        static let verifyPeer: Int32 = 1
        static let controlMode: Int32 = 33
        static let controlMinimumVersion: Int32 = 123
        static let controlReadAhead: Int32 = 41
        static let noPartialWildcards: UInt32 = 0x4
        /// How much a read-ahead connection asks the socket for at once: a plain connection's
        /// receive buffer, so TLS makes about as many reads as HTTP does (PERFORMANCE.md §3.12).
        static let readAheadBytes = 256 * 1024
        static let controlHostName: Int32 = 55
        static let tls12: Int = 0x0303
        static let modePartialWrite = 0x1
        static let modeMovingBuffer = 0x2
        static let modeAutoRetry = 0x4
        static let optionNoRenegotiation: UInt64 = 1 << 30
        static let wantRead: Int32 = 2
        static let wantWrite: Int32 = 3
        static let sslError: Int32 = 1
        static let syscall: Int32 = 5
        static let zeroReturn: Int32 = 6
        /// `ERR_LIB_SSL`, and `SSL_R_UNEXPECTED_EOF_WHILE_READING` (OpenSSL 3).
        static let libraryCodeSSL: UInt = 20
        static let reasonUnexpectedEOF: UInt = 294
        static let unableToGetIssuer = 2
        static let selfSignedInChain = 19
        static let unableToGetLocalIssuer = 20
        static let certificateNotYetValid = 9
        static let certificateExpired = 10
        static let hostnameMismatch = 62
        static let ipAddressMismatch = 64
    }
#endif
