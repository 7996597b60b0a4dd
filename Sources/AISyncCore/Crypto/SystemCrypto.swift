#if canImport(Glibc)
@preconcurrency import Glibc
#endif

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

/// The few libcrypto functions aisync calls, looked up once with dlsym (no link-time
/// dependency: a process without libcrypto simply uses the portable code).
struct SystemCrypto: Sendable {
    /// `SHA256_Update`: bytes into a `SHA256_CTX`, whose state (h[8]) comes first. Given
    /// whole blocks only, it compresses them all in one call to the CPU-specific code (one
    /// `SHA256_Transform` call per block was much slower; docs/PERFORMANCE.md).
    typealias Transform = @convention(c) (UnsafeMutableRawPointer, UnsafeRawPointer, Int) -> Int32
    typealias ContextNew = @convention(c) () -> OpaquePointer?
    typealias ContextFree = @convention(c) (OpaquePointer?) -> Void
    typealias CipherFetch = @convention(c) (OpaquePointer?, UnsafePointer<CChar>, UnsafePointer<CChar>?) -> OpaquePointer?
    typealias CipherInit = @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?) -> Int32
    typealias CipherUpdate = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int32>, UnsafePointer<UInt8>?, Int32) -> Int32
    typealias CipherFinal = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int32>) -> Int32
    typealias CipherControl = @convention(c) (OpaquePointer?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32

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

    /// The library's functions, or nil when it is not in the process or lacks one of them.
    static let shared: SystemCrypto? = load()

    /// libcrypto's handle: the process itself when Foundation's networking already loaded
    /// it, else the library opened here; nil when this system has none.
    private static func library() -> UnsafeMutableRawPointer?? {
        #if canImport(Glibc)
        let process = UnsafeMutableRawPointer(bitPattern: 0)
        if dlsym(process, "SHA256_Update") != nil { return .some(process) }
        guard let opened = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL) else { return nil }
        return .some(opened)
        #else
        return nil
        #endif
    }

    /// `SHA256_Update` alone, trusted once it reproduces FIPS 180-4's SHA-256("abc").
    /// Kept apart from the cipher: fetching a cipher loads OpenSSL's providers (2 MB of
    /// memory), which hashing — all a sync with nothing new does — never needs.
    static let sha256Transform: Transform? = {
        #if canImport(Glibc)
        guard case .some(let handle) = library(), let found = dlsym(handle, "SHA256_Update") else { return nil }
        let transform = unsafeBitCast(found, to: Transform.self)
        return hashesABC(transform) ? transform : nil
        #else
        return nil
        #endif
    }()

    private static func load() -> SystemCrypto? {
        #if canImport(Glibc)
        guard case .some(let handle) = library(), sha256Transform != nil else { return nil }
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            dlsym(handle, name).map { unsafeBitCast($0, to: type) }
        }
        guard let new = symbol("EVP_CIPHER_CTX_new", as: ContextNew.self),
              let free = symbol("EVP_CIPHER_CTX_free", as: ContextFree.self),
              let fetch = symbol("EVP_CIPHER_fetch", as: CipherFetch.self),
              let encryptInit = symbol("EVP_EncryptInit_ex", as: CipherInit.self),
              let encryptUpdate = symbol("EVP_EncryptUpdate", as: CipherUpdate.self),
              let encryptFinal = symbol("EVP_EncryptFinal_ex", as: CipherFinal.self),
              let decryptInit = symbol("EVP_DecryptInit_ex", as: CipherInit.self),
              let decryptUpdate = symbol("EVP_DecryptUpdate", as: CipherUpdate.self),
              let decryptFinal = symbol("EVP_DecryptFinal_ex", as: CipherFinal.self),
              let control = symbol("EVP_CIPHER_CTX_ctrl", as: CipherControl.self),
              let cipher = fetch(nil, "ChaCha20-Poly1305", nil) else { return nil }
        let crypto = SystemCrypto(contextNew: new, contextFree: free, encryptInit: encryptInit,
                                  encryptUpdate: encryptUpdate, encryptFinal: encryptFinal, decryptInit: decryptInit,
                                  decryptUpdate: decryptUpdate, decryptFinal: decryptFinal, control: control, cipherAddress: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(cipher))))
        // Trusted only after it reproduces RFC 8439 §2.8.2.
        return crypto.passesSelfTest() ? crypto : nil
        #else
        return nil
        #endif
    }

    /// Compresses `blocks` 64-byte blocks at `data` into `h` with `transform`.
    static func sha256(_ transform: Transform, _ h: inout (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32), _ data: UnsafeRawPointer, blocks: Int) {
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
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19)
        var block = [UInt8](repeating: 0, count: 64)
        block[0] = 0x61; block[1] = 0x62; block[2] = 0x63; block[3] = 0x80; block[63] = 24
        block.withUnsafeBytes { sha256(transform, &h, $0.baseAddress!, blocks: 1) }
        return h.0 == 0xba78_16bf && h.1 == 0x8f01_cfea && h.6 == 0xb410_ff61 && h.7 == 0xf200_15ad
    }

    /// ChaCha20-Poly1305 sealing: ciphertext then tag, or nil if the library refused.
    func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8]) -> [UInt8]? {
        guard let context = contextNew() else { return nil }
        defer { contextFree(context) }
        var out = [UInt8](repeating: 0, count: plaintext.count + ChaChaPoly.tagBytes)
        var written: Int32 = 0, tail: Int32 = 0
        let ok = out.withUnsafeMutableBufferPointer { o -> Bool in
            guard encryptInit(context, chachaPoly, nil, key, nonce) == 1 else { return false }
            if !aad.isEmpty, encryptUpdate(context, nil, &written, aad, Int32(aad.count)) != 1 { return false }
            guard plaintext.withUnsafeBufferPointer({ encryptUpdate(context, o.baseAddress, &written, $0.baseAddress, Int32($0.count)) }) == 1,
                  encryptFinal(context, o.baseAddress! + Int(written), &tail) == 1, Int(written + tail) == plaintext.count else { return false }
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
        var written: Int32 = 0, tail: Int32 = 0
        var tag = Array(sealed[length...])
        let ok = out.withUnsafeMutableBufferPointer { o -> Bool in
            guard decryptInit(context, chachaPoly, nil, key, nonce) == 1 else { return false }
            if !aad.isEmpty, decryptUpdate(context, nil, &written, aad, Int32(aad.count)) != 1 { return false }
            guard sealed.withUnsafeBufferPointer({ decryptUpdate(context, o.baseAddress, &written, $0.baseAddress, Int32(length)) }) == 1,
                  control(context, Self.setTag, Int32(ChaChaPoly.tagBytes), &tag) == 1 else { return false }
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
        let text = Array("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
        let tag: [UInt8] = [0x1A, 0xE1, 0x0B, 0x59, 0x4F, 0x09, 0xE2, 0x6A, 0x7E, 0x90, 0x2E, 0xCB, 0xD0, 0x60, 0x06, 0x91]
        guard let sealed = seal(text, key: key, nonce: nonce, aad: aad), Array(sealed.suffix(16)) == tag,
              sealed.prefix(4) == [0xD3, 0x1A, 0x8D, 0x34], open(sealed, key: key, nonce: nonce, aad: aad) == text else { return false }
        var tampered = sealed
        tampered[0] ^= 1
        guard open(tampered, key: key, nonce: nonce, aad: aad) == nil else { return false }
        return true
    }
}
