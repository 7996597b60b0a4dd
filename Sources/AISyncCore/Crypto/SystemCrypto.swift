import Synchronization

/// Which implementation of SHA-256 and ChaCha20-Poly1305 runs.
///
/// The portable Swift code is correct everywhere, but without CPU-specific instructions it
/// cannot keep up with a 1 GB/s download or a 3 GB/s AEAD: SHA-256 needs the SHA extensions
/// and ChaCha20-Poly1305 AVX2/AVX-512, which Swift cannot emit for a generic target.
/// On Linux the system's OpenSSL 3 `libcrypto` (already in the process: Foundation's
/// networking links libcurl, which links it) has them, chosen at run time for the CPU, so it
/// is used when its symbols are there and the portable code otherwise. Both give the same
/// bytes; the tests check them against each other and against the RFC vectors.
package enum CryptoBackend: Sendable, CaseIterable {
    /// The system's library when present, else ``portable``.
    case system
    /// aisync's own Swift code.
    case portable

    /// Whether ``system`` resolves to the system's library in this process (both SHA-256
    /// and the AEAD).
    package static var systemIsAvailable: Bool { SystemCrypto.shared != nil }
}

/// The few libcrypto functions aisync calls, as a table of C function pointers, and the code
/// that calls them.
///
/// The seam between the layers: AISyncCore does no I/O, so it never looks a library up. It
/// declares this table, calls it, and checks it; AISyncFiles (`SystemCryptoLoader`) finds the
/// functions with dlopen/dlsym (no link-time dependency) and hands them over with
/// ``install(sha256:aead:)`` when the live environment is first used, a file is first hashed,
/// or an app calls `SystemCryptoLoader.install()`. Core trusts a function only once it
/// reproduces a known answer (FIPS 180-4's SHA-256("abc"); RFC 8439 §2.8.2 for the AEAD).
/// Until then, and in a process without libcrypto, the portable Swift code runs: same bytes.
package struct SystemCrypto: Sendable {
    /// `SHA256_Update`: bytes into a `SHA256_CTX`, whose state (h[8]) comes first. Given
    /// whole blocks only, it compresses them all in one call to the CPU-specific code (one
    /// `SHA256_Transform` call per block was much slower; docs/PERFORMANCE.md).
    package typealias Transform = @convention(c) (UnsafeMutableRawPointer, UnsafeRawPointer, Int) -> Int32
    package typealias ContextNew = @convention(c) () -> OpaquePointer?
    package typealias ContextFree = @convention(c) (OpaquePointer?) -> Void
    package typealias CipherFetch =
        @convention(c) (OpaquePointer?, UnsafePointer<CChar>, UnsafePointer<CChar>?) -> OpaquePointer?
    package typealias CipherInit =
        @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?) ->
        Int32
    package typealias CipherUpdate =
        @convention(c) (
            OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int32>, UnsafePointer<UInt8>?, Int32
        ) -> Int32
    package typealias CipherFinal =
        @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int32>) -> Int32
    package typealias CipherControl = @convention(c) (OpaquePointer?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32

    let contextNew: ContextNew
    let contextFree: ContextFree
    let encryptInit: CipherInit
    let encryptUpdate: CipherUpdate
    let encryptFinal: CipherFinal
    let decryptInit: CipherInit
    let decryptUpdate: CipherUpdate
    let decryptFinal: CipherFinal
    let control: CipherControl
    /// The fetched ChaCha20-Poly1305 cipher's address, kept for the life of the process
    /// (fetching it once spares a provider lookup on every message).
    let cipherAddress: UInt
    var chachaPoly: OpaquePointer? { OpaquePointer(bitPattern: cipherAddress) }
    /// Where the state sits in a `SHA256_CTX` (h[8] first) and the struct's size.
    static let sha256ContextBytes = 112
    static let getTag: Int32 = 0x10, setTag: Int32 = 0x11

    /// The table from the library's functions and the fetched ChaCha20-Poly1305 cipher.
    package init(
        contextNew: ContextNew, contextFree: ContextFree, encryptInit: CipherInit, encryptUpdate: CipherUpdate,
        encryptFinal: CipherFinal, decryptInit: CipherInit, decryptUpdate: CipherUpdate, decryptFinal: CipherFinal,
        control: CipherControl, cipher: OpaquePointer
    ) {
        self.contextNew = contextNew
        self.contextFree = contextFree
        self.encryptInit = encryptInit
        self.encryptUpdate = encryptUpdate
        self.encryptFinal = encryptFinal
        self.decryptInit = decryptInit
        self.decryptUpdate = decryptUpdate
        self.decryptFinal = decryptFinal
        self.control = control
        cipherAddress = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(cipher)))
    }

    /// The installed `SHA256_Update`'s address (0: none); read on every compression, so an
    /// atomic word rather than a lock.
    private static let transformAddress = Atomic<UInt>(0)

    /// The installed AEAD: nothing yet, a way to find it (called once, on first use), or the
    /// checked outcome.
    private enum AEAD: Sendable {
        case none
        case pending(@Sendable () -> SystemCrypto?)
        case resolved(SystemCrypto?)
    }
    private static let aead = Mutex<AEAD>(.none)

    /// Hands Core the system's functions (AISyncFiles does this; see the type's comment).
    /// `sha256` is used only if it hashes "abc" right. `aead` is called once, on the first
    /// seal or open, because fetching the cipher loads OpenSSL's providers (2 MB of memory),
    /// which hashing — all a sync with nothing new does — never needs; its table is used only
    /// if it passes RFC 8439's vector. Returns whether the SHA-256 was accepted.
    @discardableResult
    package static func install(sha256: Transform?, aead resolve: @escaping @Sendable () -> SystemCrypto?) -> Bool {
        aead.withLock { if case .none = $0 { $0 = .pending(resolve) } }
        guard let sha256, hashesABC(sha256) else { return false }
        transformAddress.store(UInt(bitPattern: unsafeBitCast(sha256, to: Int.self)), ordering: .releasing)
        return true
    }

    /// The system's `SHA256_Update` once installed and checked, else nil.
    static var sha256Transform: Transform? {
        let address = transformAddress.load(ordering: .acquiring)
        return address == 0 ? nil : unsafeBitCast(Int(bitPattern: address), to: Transform.self)
    }

    /// The system's AEAD functions once installed and checked, else nil.
    static var shared: SystemCrypto? {
        aead.withLock { state in
            switch state {
            case .none: return nil
            case .resolved(let crypto): return crypto
            case .pending(let resolve):
                // Trusted only after it reproduces RFC 8439 §2.8.2.
                let crypto = resolve().flatMap { $0.passesSelfTest() ? $0 : nil }
                state = .resolved(crypto)
                return crypto
            }
        }
    }

    /// Compresses `blocks` 64-byte blocks at `data` into `h` with `transform`.
    static func sha256(
        _ transform: Transform, _ h: inout (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32),
        _ data: UnsafeRawPointer, blocks: Int
    ) {
        withUnsafeTemporaryAllocation(byteCount: sha256ContextBytes, alignment: 16) { context in
            // h, then zeroed counters and an empty buffer: whole blocks go straight through.
            context.initializeMemory(as: UInt8.self, repeating: 0)
            withUnsafeBytes(of: h) { context.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: 32) }
            _ = transform(context.baseAddress!, data, 64 * blocks)
            withUnsafeMutableBytes(of: &h) { $0.baseAddress!.copyMemory(from: context.baseAddress!, byteCount: 32) }
        }
    }

    /// FIPS 180-4's first example: SHA-256("abc"), one block.
    private static func hashesABC(_ transform: Transform) -> Bool {
        var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
        )
        var block = [UInt8](repeating: 0, count: 64)
        block[0] = 0x61
        block[1] = 0x62
        block[2] = 0x63
        block[3] = 0x80
        block[63] = 24
        block.withUnsafeBytes { sha256(transform, &h, $0.baseAddress!, blocks: 1) }
        return h.0 == 0xba78_16bf && h.1 == 0x8f01_cfea && h.6 == 0xb410_ff61 && h.7 == 0xf200_15ad
    }

    /// ChaCha20-Poly1305 sealing: ciphertext then tag, or nil if the library refused.
    func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8]) -> [UInt8]? {
        guard let context = contextNew() else { return nil }
        defer { contextFree(context) }
        var out = [UInt8](repeating: 0, count: plaintext.count + ChaChaPoly.tagBytes)
        var written: Int32 = 0
        var tail: Int32 = 0
        let ok = out.withUnsafeMutableBufferPointer { o -> Bool in
            guard encryptInit(context, chachaPoly, nil, key, nonce) == 1 else { return false }
            if !aad.isEmpty, encryptUpdate(context, nil, &written, aad, Int32(aad.count)) != 1 { return false }
            guard
                plaintext.withUnsafeBufferPointer({
                    encryptUpdate(context, o.baseAddress, &written, $0.baseAddress, Int32($0.count))
                }) == 1,
                encryptFinal(context, o.baseAddress! + Int(written), &tail) == 1, Int(written + tail) == plaintext.count
            else { return false }
            return control(context, Self.getTag, Int32(ChaChaPoly.tagBytes), o.baseAddress! + plaintext.count) == 1
        }
        return ok ? out : nil
    }

    /// ChaCha20-Poly1305 opening: the plaintext, or nil when the tag does not match (the
    /// library compares it in constant time; nothing decrypted is returned then).
    func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8]) -> [UInt8]? {
        guard sealed.count >= ChaChaPoly.tagBytes, let context = contextNew() else { return nil }
        defer { contextFree(context) }
        let length = sealed.count - ChaChaPoly.tagBytes
        var out = [UInt8](repeating: 0, count: max(length, 1))
        var written: Int32 = 0
        var tail: Int32 = 0
        var tag = Array(sealed[length...])
        let ok = out.withUnsafeMutableBufferPointer { o -> Bool in
            guard decryptInit(context, chachaPoly, nil, key, nonce) == 1 else { return false }
            if !aad.isEmpty, decryptUpdate(context, nil, &written, aad, Int32(aad.count)) != 1 { return false }
            guard
                sealed.withUnsafeBufferPointer({
                    decryptUpdate(context, o.baseAddress, &written, $0.baseAddress, Int32(length))
                }) == 1,
                control(context, Self.setTag, Int32(ChaChaPoly.tagBytes), &tag) == 1
            else { return false }
            return decryptFinal(context, o.baseAddress! + Int(written), &tail) == 1 && Int(written + tail) == length
        }
        guard ok else {
            for i in out.indices { out[i] = 0 }
            return nil
        }
        return Array(out.prefix(length))
    }

    /// RFC 8439 §2.8.2's AEAD vector: sealed, opened, and refused once tampered with.
    private func passesSelfTest() -> Bool {
        let key = (0x80...0x9F).map { UInt8($0) }
        let nonce: [UInt8] = [0x07, 0, 0, 0, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47]
        let aad: [UInt8] = [0x50, 0x51, 0x52, 0x53, 0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7]
        let text = Array(
            "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."
                .utf8)
        let tag: [UInt8] = [
            0x1A, 0xE1, 0x0B, 0x59, 0x4F, 0x09, 0xE2, 0x6A, 0x7E, 0x90, 0x2E, 0xCB, 0xD0, 0x60, 0x06, 0x91,
        ]
        guard let sealed = seal(text, key: key, nonce: nonce, aad: aad), Array(sealed.suffix(16)) == tag,
            sealed.prefix(4) == [0xD3, 0x1A, 0x8D, 0x34], open(sealed, key: key, nonce: nonce, aad: aad) == text
        else { return false }
        var tampered = sealed
        tampered[0] ^= 1
        guard open(tampered, key: key, nonce: nonce, aad: aad) == nil else { return false }
        return true
    }
}
