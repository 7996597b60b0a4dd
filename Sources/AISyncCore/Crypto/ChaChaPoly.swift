/// ChaCha20-Poly1305 (RFC 8439 §2.8) and XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha-03),
/// the AEAD that encrypts everything aisync puts on an encrypted remote.
///
/// XChaCha20's 24-byte nonce is what makes random nonces safe: at 2^96 possible values a
/// collision is out of reach however many files a remote holds. Opening checks the tag, in
/// constant time, before a byte of plaintext is produced.
public enum ChaChaPoly {
    /// Tag length in bytes.
    public static let tagBytes = 16

    /// `plaintext` encrypted under `key` (32 bytes) and `nonce` (12 bytes), bound to `aad`;
    /// returns ciphertext followed by the 16-byte tag.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8] = []) -> [UInt8] {
        seal(plaintext, key: key, nonce: nonce, aad: aad, backend: .system)
    }

    /// ``seal(_:key:nonce:aad:)`` on a chosen implementation (the tests compare them).
    package static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8], backend: CryptoBackend)
        -> [UInt8]
    {
        if backend == .system, fitsSystem(plaintext.count, key, nonce, aad), let crypto = SystemCrypto.shared,
            let sealed = crypto.seal(plaintext, key: key, nonce: nonce, aad: aad)
        {
            return sealed
        }
        var out = plaintext
        ChaCha20.xor(&out, key: key, nonce: nonce, counter: 1)
        out += tag(ciphertext: out, key: key, nonce: nonce, aad: aad)
        return out
    }

    /// The plaintext of `sealed` (ciphertext and tag), or nil when the tag does not match:
    /// a wrong key, another `aad`, or any byte changed.
    public static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8] = []) -> [UInt8]? {
        open(sealed, key: key, nonce: nonce, aad: aad, backend: .system)
    }

    /// ``open(_:key:nonce:aad:)`` on a chosen implementation (the tests compare them).
    package static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8], backend: CryptoBackend)
        -> [UInt8]?
    {
        guard sealed.count >= tagBytes else { return nil }
        if backend == .system, fitsSystem(sealed.count, key, nonce, aad), let crypto = SystemCrypto.shared {
            return crypto.open(sealed, key: key, nonce: nonce, aad: aad)
        }
        let ciphertext = Array(sealed.dropLast(tagBytes))
        let expected = tag(ciphertext: ciphertext, key: key, nonce: nonce, aad: aad)
        guard ConstantTime.equal(expected, Array(sealed.suffix(tagBytes))) else { return nil }
        var out = ciphertext
        ChaCha20.xor(&out, key: key, nonce: nonce, counter: 1)
        return out
    }

    /// The system's library takes 32-bit lengths and reads exactly 32 key and 12 nonce bytes.
    private static func fitsSystem(_ count: Int, _ key: [UInt8], _ nonce: [UInt8], _ aad: [UInt8]) -> Bool {
        key.count == 32 && nonce.count == 12 && count < Int(Int32.max) - 64 && aad.count < Int(Int32.max)
    }

    /// Poly1305 over aad, ciphertext and their lengths, keyed by block 0 of the key stream.
    static func tag(ciphertext: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8]) -> [UInt8] {
        let oneTimeKey = Array(ChaCha20.block(key: key, nonce: nonce, counter: 0).prefix(32))
        var mac = Poly1305(key: oneTimeKey)
        let zeros = [UInt8](repeating: 0, count: 16)
        mac.update(aad)
        mac.update(Array(zeros.prefix((16 - aad.count % 16) % 16)))
        mac.update(ciphertext)
        mac.update(Array(zeros.prefix((16 - ciphertext.count % 16) % 16)))
        var lengths: [UInt8] = []
        withUnsafeBytes(of: UInt64(aad.count).littleEndian) { lengths += $0 }
        withUnsafeBytes(of: UInt64(ciphertext.count).littleEndian) { lengths += $0 }
        mac.update(lengths)
        return mac.finalize()
    }
}

/// XChaCha20-Poly1305: HChaCha20 turns the key and the first 16 nonce bytes into a subkey;
/// ChaCha20-Poly1305 runs under it with the last 8 nonce bytes.
public enum XChaChaPoly {
    /// Nonce length in bytes.
    public static let nonceBytes = 24

    /// `plaintext` encrypted under `key` (32 bytes) and `nonce` (24 bytes), bound to `aad`.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8] = []) -> [UInt8] {
        seal(plaintext, key: key, nonce: nonce, aad: aad, backend: .system)
    }

    /// The plaintext, or nil when `sealed` does not authenticate under `key`, `nonce` and `aad`.
    public static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8] = []) -> [UInt8]? {
        open(sealed, key: key, nonce: nonce, aad: aad, backend: .system)
    }

    /// ``seal(_:key:nonce:aad:)`` on a chosen implementation (the tests compare them).
    package static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8], backend: CryptoBackend)
        -> [UInt8]
    {
        let (subkey, inner) = derive(key: key, nonce: nonce)
        return ChaChaPoly.seal(plaintext, key: subkey, nonce: inner, aad: aad, backend: backend)
    }

    /// ``open(_:key:nonce:aad:)`` on a chosen implementation (the tests compare them).
    package static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8], backend: CryptoBackend)
        -> [UInt8]?
    {
        let (subkey, inner) = derive(key: key, nonce: nonce)
        return ChaChaPoly.open(sealed, key: subkey, nonce: inner, aad: aad, backend: backend)
    }

    static func derive(key: [UInt8], nonce: [UInt8]) -> (key: [UInt8], nonce: [UInt8]) {
        precondition(nonce.count == nonceBytes, "XChaCha20 needs a 24-byte nonce")
        return (ChaCha20.hchacha20(key: key, nonce16: Array(nonce.prefix(16))), [0, 0, 0, 0] + nonce.suffix(8))
    }
}

/// Comparisons whose time does not depend on where secret bytes differ.
public enum ConstantTime {
    /// True when `a` and `b` hold the same bytes; the time depends only on their lengths.
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<a.count { diff |= a[i] ^ b[i] }
        return diff == 0
    }
}
