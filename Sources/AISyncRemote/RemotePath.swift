import AISyncCore

/// Remote paths are built by aisync from validated parts; this checks them once more, so no
/// path can climb out of the remote's root or the store (`..`, absolute, empty parts).
package enum RemotePath {
    package static func validate(_ path: String) throws(AISyncError) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        let ok =
            !path.isEmpty
            && parts.allSatisfy { part in
                !part.isEmpty && part != "." && part != ".."
                    && part.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") }
            }
        guard ok else { throw AISyncError(.other, "refusing unsafe remote path \"\(path.prefix(100))\"") }
    }

    /// Whether `name`, found in a server's listing, is a file name aisync writes: lowercase
    /// letters, digits, `.` and `-`, not `.` or `..` (listings are untrusted).
    package static func isFileName(_ name: Substring) -> Bool {
        !name.isEmpty && name != "." && name != ".."
            && name.utf8.allSatisfy {
                ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
            }
    }

    package static func objectPath(_ digest: SHA256Digest) -> String { "objects/\(digest.hex.prefix(2))/\(digest.hex)" }
    package static func headPath(_ device: DeviceID) -> String { "heads/\(device.rawValue).json" }
    package static func segmentPath(_ device: DeviceID, _ seq: Int64) -> String {
        "segments/\(device.rawValue)/\(seq).seg"
    }
    /// One part of a device's snapshot (`SnapshotInfo`).
    package static func snapshotPath(_ device: DeviceID, _ seq: Int64, part: Int64) -> String {
        "snapshots/\(device.rawValue)/\(seq)-\(part).snap"
    }
    package static let manifest = "aisync.json"
    package static let devicesIndex = "devices.json"
}
