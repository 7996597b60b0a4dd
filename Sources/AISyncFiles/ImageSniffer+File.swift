import AISyncCore
import Foundation

extension ImageSniffer {
    /// Reads up to 64 KiB from the start of the file at `path` and sniffs it; nil when unreadable or not an image.
    ///
    /// Only regular files are opened, so a FIFO or device in a synced folder cannot
    /// block or stream forever; the read loops because a single read may return short.
    public static func sniff(fileAt path: String) -> ImageInfo? {
        // A symbolic link is followed, as the copy into the store follows it.
        let path = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let handle = FileHandle(forReadingAtPath: path)
        else { return nil }
        defer { try? handle.close() }
        var header: [UInt8] = []
        header.reserveCapacity(maxHeaderLength)
        do {
            // `read(upToCount:)` signals end of file with nil (corelibs) or empty data
            // (Darwin); a thrown error means the file is unreadable.
            while header.count < maxHeaderLength,
                let chunk = try handle.read(upToCount: maxHeaderLength - header.count),
                !chunk.isEmpty
            {
                header.append(contentsOf: chunk)
            }
        } catch {
            return nil
        }
        return sniff(header)
    }
}
