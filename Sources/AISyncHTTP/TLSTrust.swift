import AISyncCore
import AISyncFiles
import Foundation

/// Which servers an `https://` connection accepts beyond what the system trusts: certificates
/// of private CAs (or a self-signed server's own), and pinned keys. Never a way to accept a
/// certificate that fails its checks: a pin is checked in addition to them, as curl's
/// `--pinnedpubkey` is.
public struct TLSTrust: Sendable, Hashable {
    /// Certificates trusted beside the system's, as PEM text (one or more
    /// `-----BEGIN CERTIFICATE-----` blocks); nil for the system's alone.
    public var certificates: String?
    /// SHA-256 digests of server keys (of the DER SubjectPublicKeyInfo, as curl's `sha256//`
    /// pins and HPKP); when there are any, the server's key must be one of them.
    public var pins: [[UInt8]]

    /// What the system trusts, nothing more.
    public static let system = TLSTrust()

    /// Trust in `certificates` (PEM) beside the system's, and in servers whose key is pinned.
    public init(certificates: String? = nil, pins: [[UInt8]] = []) {
        self.certificates = certificates
        self.pins = pins
    }

    /// True when nothing is added to the system's trust.
    public var isSystem: Bool { certificates == nil && pins.isEmpty }

    /// The most PEM text a remote keeps (a bundle of a few hundred certificates).
    public static let maxCertificateBytes = 1 << 20

    /// Trust as a user gives it: the certificates in the PEM file at `certificateFile` (a
    /// CA's, or a self-signed server's own; other blocks in it, a key included, are not
    /// kept) and pins as curl writes them (``pins(from:)``).
    ///
    /// - Throws: `.io` when the file cannot be read; `.usage` when it holds no certificate or
    ///   a pin is not one.
    public static func reading(certificateFile: String?, pins pinTexts: [String]) throws(AISyncError) -> TLSTrust {
        var pem: String?
        if let certificateFile {
            let bytes = try FileIO.read(certificateFile, limit: Int64(maxCertificateBytes) + 1)
            guard bytes.count <= maxCertificateBytes else {
                throw AISyncError(
                    .usage, "\(certificateFile) is larger than 1 MiB: not a certificate file",
                    hint: "Give the CA's certificate alone, in PEM form")
            }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw AISyncError(
                    .usage, "\(certificateFile) is not a PEM file (DER or another binary form?)",
                    hint: "Convert it with: openssl x509 -inform der -in FILE -out FILE.pem")
            }
            pem = try cleanPEM(text)
        }
        var pins: [[UInt8]] = []
        for text in pinTexts { pins += try Self.pins(from: text) }
        return TLSTrust(certificates: pem, pins: pins)
    }

    /// The DER bytes of each certificate in `pem`, in order.
    ///
    /// - Throws: `.usage` when the text holds no certificate, a block that is not base64, or
    ///   is larger than ``maxCertificateBytes``.
    public static func certificates(inPEM pem: String) throws(AISyncError) -> [[UInt8]] {
        guard pem.utf8.count <= maxCertificateBytes else {
            throw AISyncError(
                .usage, "the certificate file is larger than 1 MiB", hint: "Give the CA's certificate alone")
        }
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        var found: [[UInt8]] = []
        var rest = Substring(pem)
        while let start = rest.range(of: begin) {
            guard let stop = rest[start.upperBound...].range(of: end) else {
                throw AISyncError(
                    .usage, "the certificate file has a BEGIN CERTIFICATE line without its END line",
                    hint: "Give the certificate in PEM form, as the server or the CA exported it")
            }
            let body = rest[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
            guard let der = Data(base64Encoded: String(body)), der.count > 16, der.first == 0x30 else {
                throw AISyncError(
                    .usage, "certificate \(found.count + 1) in the file is not valid PEM",
                    hint: "Give the certificate in PEM form, as the server or the CA exported it")
            }
            found.append([UInt8](der))
            rest = rest[stop.upperBound...]
        }
        guard !found.isEmpty else {
            throw AISyncError(
                .usage, "the file holds no certificate (no -----BEGIN CERTIFICATE----- block)",
                hint: "Give the CA's certificate (or the server's own, if it signed it itself) in PEM form")
        }
        return found
    }

    /// Pins as curl writes them: `sha256//BASE64` or the bare base64 of a 32-byte SHA-256,
    /// several separated by `;`.
    ///
    /// - Throws: `.usage` for anything else (a file name, a hex digest, another hash).
    public static func pins(from text: String) throws(AISyncError) -> [[UInt8]] {
        var pins: [[UInt8]] = []
        for part in text.split(separator: ";") {
            var value = part.trimmingCharacters(in: .whitespaces)
            if value.lowercased().hasPrefix("sha256//") { value = String(value.dropFirst(8)) }
            guard let digest = Data(base64Encoded: value), digest.count == 32 else {
                throw AISyncError(
                    .usage, "'\(value.prefix(60))' is not a SHA-256 key pin (the base64 of 32 bytes)",
                    hint:
                        "Make it with: openssl x509 -in server.pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64"
                )
            }
            pins.append([UInt8](digest))
        }
        guard !pins.isEmpty else { throw AISyncError(.usage, "no key pin given") }
        return pins
    }

    /// `pem`'s certificates alone, re-encoded as PEM from their DER: whatever else the text
    /// held (a private key given by mistake, comments) is left out.
    ///
    /// - Throws: as ``certificates(inPEM:)``.
    public static func cleanPEM(_ pem: String) throws(AISyncError) -> String {
        try certificates(inPEM: pem).map(Self.pem).joined()
    }

    /// One certificate's DER as a PEM block, with its line break.
    public static func pem(_ der: [UInt8]) -> String {
        let text = Data(der).base64EncodedString()
        var lines = ["-----BEGIN CERTIFICATE-----"]
        var start = text.startIndex
        while start < text.endIndex {
            let end = text.index(start, offsetBy: 64, limitedBy: text.endIndex) ?? text.endIndex
            lines.append(String(text[start..<end]))
            start = end
        }
        lines.append("-----END CERTIFICATE-----\n")
        return lines.joined(separator: "\n")
    }

    /// What a remote's config says it trusts: its PEM text and its `sha256//` pins.
    ///
    /// - Throws: `.damagedData` for a pin that is not one (the config was edited by hand).
    public init(certificates: String?, pinTexts: [String]) throws(AISyncError) {
        var pins: [[UInt8]] = []
        for text in pinTexts {
            do { pins += try Self.pins(from: text) } catch {
                throw AISyncError.damaged(
                    "a remote's pinned key in config.json is not sha256//BASE64: \(error.message)")
            }
        }
        self.init(certificates: certificates, pins: pins)
    }

    /// A pin as curl writes it: `sha256//` and the digest in base64.
    public static func pinText(_ digest: [UInt8]) -> String { "sha256//" + Data(digest).base64EncodedString() }

    /// True when `digest` (the server key's) is one of the pins; every pin is compared in
    /// full, in time that does not depend on where they differ.
    func pinned(_ digest: [UInt8]) -> Bool {
        var matched = false
        for pin in pins where pin.count == digest.count {
            var difference: UInt8 = 0
            for i in 0..<pin.count { difference |= pin[i] ^ digest[i] }
            matched = matched || difference == 0
        }
        return matched
    }
}
