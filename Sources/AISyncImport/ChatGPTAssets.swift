import AISyncCore
import AISyncFiles
import Foundation

/// The picture files of a ChatGPT export (an unzipped folder or the zip itself), found by
/// the file ids its messages point at (`file-service://file-…`, `sediment://file_…`).
///
/// Export paths are untrusted: nothing is read by a name taken from the JSON. Only the
/// export's top level, its `dalle-generations/` and `user-…/` folders are looked in, a file
/// matches when its listed name is the id or starts with the id and `-` or `.`, and in a
/// folder only regular files are read (a symbolic link could point outside the export).
/// `conversation_asset_file_names.json`, when present, may name a pointer's file (`file-<id>.dat`
/// or any other name); a listed name is used only when it is one of those files.
struct ChatGPTAssets {
    /// Where a picture's bytes are.
    enum Asset {
        /// A file in the export folder.
        case file(String)
        /// An entry of the export zip, already read.
        case bytes([UInt8], name: String)
    }

    /// Candidate names relative to the export's top, sorted so a match is the same on every run.
    let files: [String]
    /// File names by file id, from `conversation_asset_file_names.json`.
    var listed: [String: String] = [:]
    private let folder: String?
    private let zip: ZipArchive?

    init(folder: String) {
        self.folder = folder
        zip = nil
        let top = (Platform.listDirectory(folder) ?? []).sorted()
        var files = top
        for sub in top where Self.isAssetFolder(sub) && Self.isPlain("\(folder)/\(sub)", .typeDirectory) {
            files += (Platform.listDirectory("\(folder)/\(sub)") ?? []).sorted().map { "\(sub)/\($0)" }
        }
        self.files = files
        if Self.isPlain("\(folder)/\(Self.namesFile)", .typeRegular),
            let bytes = try? FileIO.read("\(folder)/\(Self.namesFile)"), bytes.count <= Self.namesLimit
        {
            listed = Self.names(bytes)
        }
    }

    init(zip: ZipArchive) {
        folder = nil
        self.zip = zip
        files = zip.names.filter { name in
            let parts = name.split(separator: "/", omittingEmptySubsequences: false)
            return parts.count == 1 || (parts.count == 2 && Self.isAssetFolder(String(parts[0])))
        }.sorted()
        if let bytes = try? zip.read(Self.namesFile, limit: Self.namesLimit) { listed = Self.names(bytes) }
    }

    static let namesFile = "conversation_asset_file_names.json"
    static let namesLimit = 16 << 20

    /// The file-id → name map of `conversation_asset_file_names.json`: an object whose keys
    /// are pointers or file ids and whose values are file names, or a list of objects with
    /// `asset_pointer`/`file_id` and `file_name`/`name`. Anything else is ignored.
    static func names(_ bytes: [UInt8]) -> [String: String] {
        guard let value = try? JSONParser.parse(bytes) else { return [:] }
        var names: [String: String] = [:]
        func add(_ key: String?, _ name: String?) {
            guard let key, let name, let id = fileID(key) ?? fileID("file-service://" + key) else { return }
            names[id] = name
        }
        switch value {
        case .object(let members):
            for (key, name) in members { add(key, name.stringValue) }
        case .array(let items):
            for item in items {
                add(
                    item["asset_pointer"]?.stringValue ?? item["file_id"]?.stringValue,
                    item["file_name"]?.stringValue ?? item["name"]?.stringValue)
            }
        default: break
        }
        return names
    }

    static func isAssetFolder(_ name: String) -> Bool { name == "dalle-generations" || name.hasPrefix("user-") }

    /// The file id of a pointer (`file-service://file-abc` → `file-abc`); nil for other
    /// schemes or ids with characters outside `[A-Za-z0-9_-]`.
    static func fileID(_ pointer: String) -> String? {
        guard let range = pointer.range(of: "://"),
            ["file-service", "sediment"].contains(String(pointer[..<range.lowerBound]))
        else { return nil }
        let id = String(pointer[range.upperBound...])
        let allowed = id.utf8.allSatisfy {
            ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) || $0 == 45 || $0 == 95
        }
        return id.isEmpty || !allowed ? nil : id
    }

    /// The picture a pointer names, or nil when the export does not hold it.
    func find(_ pointer: String) -> Asset? {
        guard let id = Self.fileID(pointer) else { return nil }
        let listedName = listed[id]
        for relative in files {
            let name = relative.split(separator: "/").last.map(String.init) ?? relative
            guard
                name == id || name.hasPrefix(id + "-") || name.hasPrefix(id + ".") || name == listedName
                    || relative == listedName
            else { continue }
            if let folder, Self.isPlain("\(folder)/\(relative)", .typeRegular) { return .file("\(folder)/\(relative)") }
            if let zip, let bytes = try? zip.read(relative, limit: 1 << 28) { return .bytes(bytes, name: name) }
        }
        return nil
    }

    /// Whether `path` itself (not what a symbolic link there points to) is of `type`.
    static func isPlain(_ path: String, _ type: FileAttributeType) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType == type
    }
}
