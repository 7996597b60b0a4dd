import AISyncFiles
import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore

/// aisync's hand-written cryptography (issue 12): every test vector of RFC 8439 (ChaCha20,
/// Poly1305, the AEAD), the XChaCha20 draft, RFC 4231 (HMAC-SHA-256), RFC 5869 (HKDF) and
/// RFC 7914 (PBKDF2-HMAC-SHA-256 and scrypt; its 1 GiB vector runs in scripts/bench-crypto.sh),
/// then thousands of random cases against Python's `cryptography` and `hashlib`.
@Suite("Cryptography", .tags(.python), .needsPython)
struct CryptoTests {
    /// The system backend is what AISyncFiles installs (as the live environment does).
    init() { SystemCryptoLoader.install() }

    static func hex(_ s: String) -> [UInt8] {
        let digits = s.utf8.compactMap { c -> UInt8? in
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x61...0x66: c - 0x61 + 10
            case 0x41...0x46: c - 0x41 + 10
            default: nil
            }
        }
        return stride(from: 0, to: digits.count - 1, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }

    static func hex(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }

    static let sunscreen = Array(
        "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."
            .utf8)

    @Test("RFC 8439 §2.3.2 and §2.4.2: the ChaCha20 block function and encryption")
    func chacha20() {
        let key = Array(0..<32).map(UInt8.init)
        #expect(
            Self.hex(ChaCha20.block(key: key, nonce: Self.hex("000000090000004a00000000"), counter: 1))
                == "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4ed2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"
        )
        var text = Self.sunscreen
        ChaCha20.xor(&text, key: key, nonce: Self.hex("000000000000004a00000000"), counter: 1)
        #expect(
            Self.hex(text)
                == "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab77937365af90bbf74a35be6b40b8eedf2785e42874d"
        )
        ChaCha20.xor(&text, key: key, nonce: Self.hex("000000000000004a00000000"), counter: 1)
        #expect(text == Self.sunscreen)
    }

    @Test("RFC 8439 §2.5.2: Poly1305, at once and fed in pieces")
    func poly1305() {
        let key = Self.hex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b")
        let message = Array("Cryptographic Forum Research Group".utf8)
        #expect(Self.hex(Poly1305.authenticate(message, key: key)) == "a8061dc1305136c6c22b8baf0c0127a9")
        var mac = Poly1305(key: key)
        for piece in [0..<1, 1..<17, 17..<20, 20..<34] { mac.update(Array(message[piece])) }
        #expect(Self.hex(mac.finalize()) == "a8061dc1305136c6c22b8baf0c0127a9")
    }

    @Test(
        "RFC 8439 §2.8.2: ChaCha20-Poly1305 seals to the vector and opens only with the right key, nonce, aad and bytes",
        arguments: CryptoBackend.allCases)
    func chachaPoly(backend: CryptoBackend) {
        let key = Array(0x80..<0xa0).map(UInt8.init)
        let nonce = Self.hex("070000004041424344454647")
        let aad = Self.hex("50515253c0c1c2c3c4c5c6c7")
        let sealed = ChaChaPoly.seal(Self.sunscreen, key: key, nonce: nonce, aad: aad, backend: backend)
        #expect(Self.hex(Array(sealed.prefix(16))) == "d31a8d34648e60db7b86afbc53ef7ec2")
        #expect(Self.hex(Array(sealed.suffix(16))) == "1ae10b594f09e26a7e902ecbd0600691")
        #expect(ChaChaPoly.open(sealed, key: key, nonce: nonce, aad: aad, backend: backend) == Self.sunscreen)
        var flipped = sealed
        flipped[5] ^= 1
        #expect(ChaChaPoly.open(flipped, key: key, nonce: nonce, aad: aad, backend: backend) == nil)
        #expect(ChaChaPoly.open(sealed, key: key, nonce: nonce, aad: aad + [0], backend: backend) == nil)
        #expect(ChaChaPoly.open(Array(sealed.dropLast()), key: key, nonce: nonce, aad: aad, backend: backend) == nil)
        #expect(ChaChaPoly.open([1, 2, 3], key: key, nonce: nonce, aad: aad, backend: backend) == nil)
        // Empty plaintext and empty aad: a tag alone.
        let empty = ChaChaPoly.seal([], key: key, nonce: nonce, aad: [], backend: backend)
        #expect(empty.count == 16 && ChaChaPoly.open(empty, key: key, nonce: nonce, aad: [], backend: backend) == [])
    }

    @Test("the system's libcrypto is found and used on Linux, where Foundation's networking already loads it")
    func systemBackendIsUsed() {
        #if os(Linux)
            #expect(CryptoBackend.systemIsAvailable, "libcrypto.so.3 (Debian's libssl3) should be in the process")
        #endif
    }

    @Test(
        "the system's and the portable ChaCha20-Poly1305 and SHA-256 agree on thousands of random inputs, and each opens the other's"
    )
    func backendsAgree() {
        var rng = SystemRandomNumberGenerator()
        // Eight bytes per draw: byte by byte, an unoptimized test build spends most of a minute here.
        func bytes(_ n: Int) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: (n + 7) / 8 * 8)
            out.withUnsafeMutableBytes { raw in
                for i in 0..<raw.count / 8 { raw.storeBytes(of: rng.next(), toByteOffset: i * 8, as: UInt64.self) }
            }
            return Array(out.prefix(n))
        }
        for round in 0..<1500 {
            let length = round < 300 ? round : Int.random(in: 0...70_000, using: &rng)
            let key = bytes(32)
            let nonce = bytes(12)
            let xnonce = bytes(24)
            let aad = bytes(Int.random(in: 0...80, using: &rng))
            let text = bytes(length)
            let system = ChaChaPoly.seal(text, key: key, nonce: nonce, aad: aad, backend: .system)
            let portable = ChaChaPoly.seal(text, key: key, nonce: nonce, aad: aad, backend: .portable)
            #expect(system == portable, "length \(length)")
            #expect(ChaChaPoly.open(portable, key: key, nonce: nonce, aad: aad, backend: .system) == text)
            #expect(ChaChaPoly.open(system, key: key, nonce: nonce, aad: aad, backend: .portable) == text)
            var tampered = system
            tampered[Int.random(in: 0..<tampered.count, using: &rng)] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
            #expect(ChaChaPoly.open(tampered, key: key, nonce: nonce, aad: aad, backend: .system) == nil)
            #expect(ChaChaPoly.open(tampered, key: key, nonce: nonce, aad: aad, backend: .portable) == nil)
            if round % 10 == 0 {
                let x = XChaChaPoly.seal(text, key: key, nonce: xnonce, aad: aad, backend: .system)
                #expect(x == XChaChaPoly.seal(text, key: key, nonce: xnonce, aad: aad, backend: .portable))
                #expect(XChaChaPoly.open(x, key: key, nonce: xnonce, aad: aad, backend: .portable) == text)
            }
            var a = SHA256(backend: .system)
            var b = SHA256(backend: .portable)
            let split = Int.random(in: 0...length, using: &rng)
            a.update(text[..<split])
            a.update(text[split...])
            b.update(text)
            #expect(a.finalize() == b.finalize(), "length \(length) split \(split)")
        }
    }

    @Test("draft-irtf-cfrg-xchacha-03: HChaCha20 (§2.2.1) and XChaCha20-Poly1305 (§A.3.1)")
    func xchacha() {
        #expect(
            Self.hex(
                ChaCha20.hchacha20(
                    key: Array(0..<32).map(UInt8.init), nonce16: Self.hex("000000090000004a0000000031415927")))
                == "82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc")
        let key = Array(0x80..<0xa0).map(UInt8.init)
        let nonce = Self.hex("404142434445464748494a4b4c4d4e4f5051525354555657")
        let aad = Self.hex("50515253c0c1c2c3c4c5c6c7")
        let sealed = XChaChaPoly.seal(Self.sunscreen, key: key, nonce: nonce, aad: aad)
        #expect(
            Self.hex(Array(sealed.dropLast(16)))
                == "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e"
        )
        #expect(Self.hex(Array(sealed.suffix(16))) == "c0875924c1c7987947deafd8780acf49")
        #expect(XChaChaPoly.open(sealed, key: key, nonce: nonce, aad: aad) == Self.sunscreen)
        var otherNonce = nonce
        otherNonce[23] ^= 0x80
        #expect(XChaChaPoly.open(sealed, key: key, nonce: otherNonce, aad: aad) == nil)
    }

    @Test(
        "RFC 4231 test cases 1-7: HMAC-SHA-256",
        arguments: [
            (
                "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657265",
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
            ),
            (
                "4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
            ),
            (
                String(repeating: "aa", count: 20), String(repeating: "dd", count: 50),
                "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
            ),
            (
                "0102030405060708090a0b0c0d0e0f10111213141516171819", String(repeating: "cd", count: 50),
                "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
            ),
            (
                String(repeating: "0c", count: 20), "546573742057697468205472756e636174696f6e",
                "a3b6167473100ee06e0c796c2955552b"
            ),
            (
                String(repeating: "aa", count: 131),
                "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
            (
                String(repeating: "aa", count: 131),
                CryptoTests.hex(
                    Array(
                        "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."
                            .utf8)),
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
            ),
        ])
    func hmac(_ key: String, _ data: String, _ expected: String) {
        // Case 5 compares the first 128 bits only (the RFC's truncated output).
        #expect(Self.hex(HMACSHA256.authenticate(Self.hex(data), key: Self.hex(key))).hasPrefix(expected))
    }

    @Test("RFC 5869 test cases 1-3: HKDF-SHA-256")
    func hkdf() {
        let ikm = [UInt8](repeating: 0x0b, count: 22)
        #expect(
            Self.hex(
                HKDF.derive(
                    secret: ikm, salt: Array(0..<13).map(UInt8.init), info: Array(0xf0..<0xfa).map(UInt8.init),
                    length: 42))
                == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
        #expect(
            Self.hex(
                HKDF.derive(
                    secret: Array(0..<0x50).map(UInt8.init), salt: Array(0x60..<0xb0).map(UInt8.init),
                    info: Array(0xb0..<0x100).map(UInt8.init), length: 82))
                == "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87"
        )
        #expect(
            Self.hex(HKDF.derive(secret: ikm, salt: [], info: [], length: 42))
                == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }

    @Test("RFC 7914 §11: PBKDF2-HMAC-SHA-256")
    func pbkdf2() {
        #expect(
            Self.hex(PBKDF2.derive(password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1, length: 64))
                == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
        )
        #expect(
            Self.hex(
                PBKDF2.derive(password: Array("Password".utf8), salt: Array("NaCl".utf8), iterations: 80000, length: 64)
            )
                == "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"
        )
    }

    @Test("RFC 7914 §12: scrypt vectors 1-3; parameters outside the RFC's bounds are refused")
    func scrypt() {
        #expect(
            Scrypt.derive(password: [], salt: [], parameters: .init(n: 16, r: 1, p: 1), length: 64).map(Self.hex)
                == "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906"
        )
        #expect(
            Scrypt.derive(
                password: Array("password".utf8), salt: Array("NaCl".utf8), parameters: .init(n: 1024, r: 8, p: 16),
                length: 64
            ).map(Self.hex)
                == "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
        )
        #expect(
            Scrypt.derive(
                password: Array("pleaseletmein".utf8), salt: Array("SodiumChloride".utf8),
                parameters: .init(n: 16384, r: 8, p: 1), length: 64
            ).map(Self.hex)
                == "7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887"
        )
        for bad in [
            Scrypt.Parameters(n: 1000, r: 8, p: 1), .init(n: 1, r: 8, p: 1), .init(n: 16, r: 0, p: 1),
            .init(n: 1 << 23, r: 8, p: 1),
        ] {
            #expect(Scrypt.derive(password: [], salt: [], parameters: bad, length: 32) == nil)
        }
    }

    @Test("constant-time comparison: equal only for the same bytes and length")
    func constantTime() {
        #expect(ConstantTime.equal([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equal([], []))
    }

    /// Runs `scripts/crypto_reference.py` and returns its cases.
    static func referenceCases(seed: Int, count: Int) throws -> [[String: Any]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "\(CLIHarness.packageRoot)/scripts/crypto_reference.py", String(seed), String(count),
        ]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(
            process.terminationStatus == 0, "crypto_reference.py failed (is Python's cryptography package installed?)")
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test("random cases agree with Python's cryptography and hashlib (a fresh seed each run, printed on failure)")
    func crossCheck() throws {
        let seed = Int.random(in: 1...1_000_000)
        let cases = try Self.referenceCases(seed: seed, count: 300)
        #expect(cases.count == 300 * 8)
        for c in cases {
            let b = { (k: String) in Self.hex(c[k] as? String ?? "") }
            let expected = c["expected"] as? String ?? ""
            let got: String
            switch c["kind"] as? String {
            case "chacha20":
                var data = b("input")
                ChaCha20.xor(&data, key: b("key"), nonce: b("nonce"), counter: UInt32(c["counter"] as? Int ?? 0))
                got = Self.hex(data)
            case "chachapoly":
                let sealed = ChaChaPoly.seal(b("input"), key: b("key"), nonce: b("nonce"), aad: b("aad"))
                #expect(ChaChaPoly.open(sealed, key: b("key"), nonce: b("nonce"), aad: b("aad")) == b("input"))
                got = Self.hex(sealed)
            case "xchachapoly":
                let sealed = XChaChaPoly.seal(b("input"), key: b("key"), nonce: b("nonce"), aad: b("aad"))
                #expect(XChaChaPoly.open(sealed, key: b("key"), nonce: b("nonce"), aad: b("aad")) == b("input"))
                got = Self.hex(sealed)
            case "poly1305": got = Self.hex(Poly1305.authenticate(b("input"), key: b("key")))
            case "hmac": got = Self.hex(HMACSHA256.authenticate(b("input"), key: b("key")))
            case "hkdf":
                got = Self.hex(
                    HKDF.derive(secret: b("key"), salt: b("salt"), info: b("info"), length: c["length"] as? Int ?? 0))
            case "pbkdf2":
                got = Self.hex(
                    PBKDF2.derive(
                        password: b("key"), salt: b("salt"), iterations: c["iterations"] as? Int ?? 1,
                        length: c["length"] as? Int ?? 1))
            case "scrypt":
                let p = Scrypt.Parameters(n: c["n"] as? Int ?? 0, r: c["r"] as? Int ?? 0, p: c["p"] as? Int ?? 0)
                got =
                    Scrypt.derive(password: b("key"), salt: b("salt"), parameters: p, length: 64).map(Self.hex)
                    ?? "refused"
            default: got = "unknown kind"
            }
            #expect(got == expected, "seed \(seed): \(c["kind"] ?? "?") case differs")
        }
    }
}
