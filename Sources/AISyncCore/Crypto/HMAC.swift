/// HMAC-SHA-256 (RFC 2104, vectors in RFC 4231), HKDF-SHA-256 (RFC 5869) and
/// PBKDF2-HMAC-SHA-256 (RFC 8018), on aisync's own SHA-256.
public struct HMACSHA256: Sendable {
    private var inner = SHA256()
    private var outer = SHA256()

    /// Starts a MAC under `key` (hashed first when longer than a block).
    public init(key: [UInt8]) {
        var k = key.count > 64 ? SHA256.hash(key).bytes : key
        k += [UInt8](repeating: 0, count: 64 - k.count)
        inner.update(k.map { $0 ^ 0x36 })
        outer.update(k.map { $0 ^ 0x5c })
    }

    /// Absorbs `bytes`.
    public mutating func update(_ bytes: [UInt8]) { inner.update(bytes) }

    /// The 32-byte MAC.
    public consuming func finalize() -> [UInt8] {
        outer.update(inner.finalize().bytes)
        return outer.finalize().bytes
    }

    /// The MAC of `message` under `key`, at once.
    public static func authenticate(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        var mac = HMACSHA256(key: key)
        mac.update(message)
        return mac.finalize()
    }
}

/// HKDF-SHA-256 (RFC 5869): keys for separate purposes derived from one secret.
public enum HKDF {
    /// `length` bytes (at most 255 × 32) of key material from `secret`, `salt` and `info`.
    public static func derive(secret: [UInt8], salt: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        precondition(length <= 255 * 32, "HKDF-SHA-256 gives at most 8160 bytes")
        let prk = HMACSHA256.authenticate(secret, key: salt.isEmpty ? [UInt8](repeating: 0, count: 32) : salt)
        var out: [UInt8] = []
        var previous: [UInt8] = []
        var counter: UInt8 = 1
        while out.count < length {
            previous = HMACSHA256.authenticate(previous + info + [counter], key: prk)
            out += previous
            counter &+= 1
        }
        return Array(out.prefix(length))
    }
}

/// PBKDF2 with HMAC-SHA-256 (RFC 8018 §5.2): used by scrypt at both ends.
public enum PBKDF2 {
    /// `length` bytes derived from `password` and `salt` with `iterations` rounds.
    public static func derive(password: [UInt8], salt: [UInt8], iterations: Int, length: Int) -> [UInt8] {
        precondition(iterations >= 1 && length >= 1, "PBKDF2 needs at least one iteration and one byte")
        // The keyed inner and outer states are computed once, not per iteration.
        let keyed = HMACSHA256(key: password)
        var out: [UInt8] = []
        out.reserveCapacity(length + 32)
        var block: UInt32 = 1
        while out.count < length {
            var mac = keyed
            mac.update(salt + withUnsafeBytes(of: block.bigEndian, Array.init))
            var u = mac.finalize()
            var t = u
            if iterations > 1 {
                for _ in 1..<iterations {
                    var next = keyed
                    next.update(u)
                    u = next.finalize()
                    for i in 0..<32 { t[i] ^= u[i] }
                }
            }
            out += t
            block += 1
        }
        return Array(out.prefix(length))
    }
}
