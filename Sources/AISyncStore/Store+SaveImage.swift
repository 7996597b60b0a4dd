import AISyncCore
import AISyncFiles

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Getting a picture's original bytes out of the store: to a file (never replacing one
/// unless asked) or to an open descriptor such as standard output.
extension Store {
    /// Writes an image record's original bytes to `path` (an existing directory gets a file
    /// named by the id and its type's extension, `image-….png`), verified against their hash, through a temp file renamed into place,
    /// so a failure leaves nothing behind. An existing file is a usage error unless `force`.
    /// Errors name `path` and what to do about it, never the temp file. Returns the file written.
    @discardableResult
    public func saveImage(_ id: RecordID, to path: String, force: Bool = false) throws(AISyncError) -> String {
        let image = try imageBody(id)
        let digest = image.sha256
        var target = path
        if let existing = Platform.stat(path) {
            if existing.isDirectory {
                let ext = ImageSniffer.fileExtension(mediaType: image.mediaType).map { ".\($0)" } ?? ""
                target =
                    "\(path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path)/\(id.rawValue)\(ext)"
            }
            if target != path || !existing.isDirectory, Platform.stat(target) != nil, !force {
                throw AISyncError(
                    .usage, "\(target) already exists", hint: "Allow replacing it, or choose another path",
                    remedy: .allowReplacing(folder: false))
            }
        }
        do { try objects.export(digest, to: target) } catch {
            throw Self.destinationError(error, target: target)
        }
        return target
    }

    /// Streams an image record's original bytes to the open descriptor `fd` (the CLI's
    /// `image save ID -` writes to standard output), hashing them on the way; damaged bytes
    /// are reported after they were written, since a stream cannot be taken back.
    public func writeImage(_ id: RecordID, toFileDescriptor fd: Int32) throws(AISyncError) {
        let digest = try imageDigest(id)
        let source = objects.path(of: digest)
        let input = Platform.open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else {
            throw ObjectStore.missing(digest)
        }
        defer { Platform.close(input) }
        let copied = try FileIO.streamCopy(
            input, to: fd, source: source, destination: "standard output", durable: false)
        guard copied.digest == digest else {
            throw ObjectStore.damaged(source)
        }
    }

    /// An error writing `target` (outside the store) told as such: the temp file's name is
    /// replaced by the target's, and the hint is about the destination, not the store.
    static func destinationError(_ error: AISyncError, target: String) -> AISyncError {
        var clean = error
        if let range = clean.message.range(of: "\(target).aisync-tmp-") {
            let end =
                clean.message[range.upperBound...].firstIndex(where: { $0 == " " || $0 == ":" })
                ?? clean.message.endIndex
            clean.message.replaceSubrange(range.lowerBound..<end, with: target)
        }
        let folder = FileIO.parentDirectory(of: target)
        switch error.code {
        case .permission: clean.hint = "Check that you may write to \(folder), or choose another path"
        case .notFound:
            clean.message = "cannot write \(target): the folder \(folder) does not exist"
            clean.hint = "Create it first, or choose another path"
        default: break
        }
        return clean
    }
}
