import AISyncCore

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// Finds the system's OpenSSL 3 `libcrypto` with dlopen/dlsym and hands its SHA-256 and
/// ChaCha20-Poly1305 to AISyncCore, which checks them before use (see `SystemCrypto` there:
/// Core does no I/O, so the lookup lives here).
///
/// Installed when the live environment is first used and when a file is first hashed; an app
/// that hashes or seals without either calls ``install()`` itself. Linux only: elsewhere, and
/// without the library, the portable Swift code runs and gives the same bytes.
public enum SystemCryptoLoader {
    /// Looks the library up once per process and installs what it has (later calls return the
    /// first answer at once). Returns whether the system's SHA-256 is now in use.
    @discardableResult
    public static func install() -> Bool { installed }

    private static let installed: Bool = SystemCrypto.install(sha256: sha256Update(), aead: { loadAEAD() })

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

    /// `SHA256_Update` alone (Core checks it against SHA-256("abc")). Kept apart from the
    /// cipher, which is fetched only on the first seal or open.
    private static func sha256Update() -> SystemCrypto.Transform? {
        #if canImport(Glibc)
            guard case .some(let handle) = library(), let found = dlsym(handle, "SHA256_Update") else { return nil }
            return unsafeBitCast(found, to: SystemCrypto.Transform.self)
        #else
            return nil
        #endif
    }

    /// The AEAD functions and the fetched ChaCha20-Poly1305 cipher, or nil when the library
    /// lacks one of them (Core runs RFC 8439's vector before using them).
    private static func loadAEAD() -> SystemCrypto? {
        #if canImport(Glibc)
            guard case .some(let handle) = library() else { return nil }
            func symbol<T>(_ name: String, as type: T.Type) -> T? {
                dlsym(handle, name).map { unsafeBitCast($0, to: type) }
            }
            guard let new = symbol("EVP_CIPHER_CTX_new", as: SystemCrypto.ContextNew.self),
                let free = symbol("EVP_CIPHER_CTX_free", as: SystemCrypto.ContextFree.self),
                let fetch = symbol("EVP_CIPHER_fetch", as: SystemCrypto.CipherFetch.self),
                let encryptInit = symbol("EVP_EncryptInit_ex", as: SystemCrypto.CipherInit.self),
                let encryptUpdate = symbol("EVP_EncryptUpdate", as: SystemCrypto.CipherUpdate.self),
                let encryptFinal = symbol("EVP_EncryptFinal_ex", as: SystemCrypto.CipherFinal.self),
                let decryptInit = symbol("EVP_DecryptInit_ex", as: SystemCrypto.CipherInit.self),
                let decryptUpdate = symbol("EVP_DecryptUpdate", as: SystemCrypto.CipherUpdate.self),
                let decryptFinal = symbol("EVP_DecryptFinal_ex", as: SystemCrypto.CipherFinal.self),
                let control = symbol("EVP_CIPHER_CTX_ctrl", as: SystemCrypto.CipherControl.self),
                let cipher = fetch(nil, "ChaCha20-Poly1305", nil)
            else { return nil }
            return SystemCrypto(
                contextNew: new, contextFree: free, encryptInit: encryptInit, encryptUpdate: encryptUpdate,
                encryptFinal: encryptFinal, decryptInit: decryptInit, decryptUpdate: decryptUpdate,
                decryptFinal: decryptFinal, control: control, cipher: cipher)
        #else
            return nil
        #endif
    }
}
