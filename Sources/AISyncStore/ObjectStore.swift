import AISyncCore
import AISyncFiles

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Content-addressed, immutable files under `objects/ab/<sha256>`.
///
/// Objects are written to a temp file, fsynced and renamed, so an object that exists under its
/// name is complete. Reads re-hash what they return, so a flipped bit is an error, not data.
struct ObjectStore: Sendable {
    let directory: String
    /// Names temp files (incoming copies, exports) with random suffixes from the store's
    /// environment, so two writers never share one and seeded tests repeat.
    let environment: AISyncEnvironment

    func path(of digest: SHA256Digest) -> String {
        let hex = digest.hex
        return "\(directory)/\(hex.prefix(2))/\(hex)"
    }

    func contains(_ digest: SHA256Digest) -> Bool { FileIO.exists(path(of: digest)) }

    /// Stores small bytes (a record body); returns their digest.
    @discardableResult
    func put(_ bytes: [UInt8]) throws(AISyncError) -> SHA256Digest {
        let digest = SHA256.hash(bytes)
        let target = path(of: digest)
        if FileIO.exists(target) { return digest }
        try FileIO.makeDirectories(FileIO.parentDirectory(of: target))
        try FileIO.writeAtomically(target, bytes, temporarySuffix: environment.temporarySuffix())
        return digest
    }

    /// Streams a file into the store, hashing as it copies; never holds it whole in memory.
    func put(fileAt source: String) throws(AISyncError) -> (digest: SHA256Digest, size: Int64) {
        try FileIO.makeDirectories(directory)
        let temp = "\(directory)/incoming-\(environment.temporarySuffix())"
        let copied: (digest: SHA256Digest, size: Int64)
        do { copied = try FileIO.copy(source, to: temp) } catch {
            _ = Platform.unlink(temp)
            throw error
        }
        let target = path(of: copied.digest)
        do {
            try FileIO.makeDirectories(FileIO.parentDirectory(of: target))
        } catch {
            _ = Platform.unlink(temp)
            throw error
        }
        if FileIO.exists(target) {
            _ = Platform.unlink(temp)
        } else if !Platform.rename(temp, target) {
            let code = Platform.errno
            _ = Platform.unlink(temp)
            throw FileIO.ioError("write", target, errno: code)
        }
        FileIO.syncDirectory(FileIO.parentDirectory(of: target))
        return copied
    }

    /// Reads an object and checks that its bytes still hash to its name.
    func get(_ digest: SHA256Digest, limit: Int64 = 256 << 20) throws(AISyncError) -> [UInt8] {
        let p = path(of: digest)
        let bytes: [UInt8]
        do { bytes = try FileIO.read(p, limit: limit) } catch  where error.code == .notFound {
            throw AISyncError(
                .damagedData, "object \(digest.hex) is missing from the store (\(p))",
                hint: "Check the store; pull from a remote to restore it", remedy: .checkStore)
        }
        guard SHA256.hash(bytes) == digest else {
            throw AISyncError(
                .damagedData, "object \(p) is damaged: its bytes no longer match its name",
                hint: "Check the store; pull from a remote to restore it", remedy: .checkStore)
        }
        return bytes
    }

    /// Re-hashes an object by streaming it; nil when it is missing.
    func verify(_ digest: SHA256Digest) -> Bool? {
        let p = path(of: digest)
        guard FileIO.exists(p) else { return nil }
        guard let result = try? SHA256.hash(fileAt: p) else { return false }
        return result.digest == digest
    }

    /// Copies an object to `destination` (atomically), verifying the hash while streaming.
    /// The error for a picture whose bytes the store lacks.
    static func missing(_ digest: SHA256Digest) -> AISyncError {
        AISyncError(
            .damagedData, "the image bytes \(digest.hex) are missing from the store",
            hint: "Pull from a remote to restore them, or check the store", remedy: .checkStore)
    }

    /// The error for an object file whose bytes no longer hash to its name.
    static func damaged(_ path: String) -> AISyncError {
        AISyncError(
            .damagedData, "object \(path) is damaged: its bytes no longer match its name",
            hint: "Check the store; pull from a remote to restore it", remedy: .checkStore)
    }

    func export(_ digest: SHA256Digest, to destination: String) throws(AISyncError) {
        let source = path(of: digest)
        guard FileIO.exists(source) else {
            throw Self.missing(digest)
        }
        let temp = "\(destination).aisync-tmp-\(environment.temporarySuffix())"
        do throws(AISyncError) {
            // Outside the store, where the user asked: the umask decides its mode.
            let copied = try FileIO.copy(source, to: temp, mode: FileIO.sharedFile)
            guard copied.digest == digest else {
                throw Self.damaged(source)
            }
        } catch {
            _ = Platform.unlink(temp)
            throw error
        }
        guard Platform.rename(temp, destination) else {
            let code = Platform.errno
            _ = Platform.unlink(temp)
            throw FileIO.ioError("write", destination, errno: code)
        }
    }

    /// Every object digest present on disk, plus names that are not valid digests.
    func allObjects() -> (objects: [SHA256Digest], strays: [String]) {
        var objects: [SHA256Digest] = []
        var strays: [String] = []
        for prefix in (Platform.listDirectory(directory) ?? []).sorted() {
            let sub = "\(directory)/\(prefix)"
            guard Platform.stat(sub)?.isDirectory == true else {
                if !prefix.hasPrefix("incoming-") { strays.append("objects/\(prefix)") }
                continue
            }
            for name in (Platform.listDirectory(sub) ?? []).sorted() {
                if let d = SHA256Digest(hex: name), name.hasPrefix(prefix) {
                    objects.append(d)
                } else if !name.contains(".tmp-") {
                    strays.append("objects/\(prefix)/\(name)")
                }
            }
        }
        return (objects, strays)
    }
}
