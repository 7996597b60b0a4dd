import AISyncCore
import AISyncFiles

/// Finding and reading an export's JSON files. Paths inside an export (a manifest's shard
/// names) are untrusted: only plain file names directly in the export folder are read.
enum ImportInput {
    /// One parsed JSON file of an export.
    struct Document {
        /// Where it was read from (for messages).
        var path: String
        /// Its parsed content.
        var value: JSONValue
    }

    /// Where an export's pictures are looked for: the zip itself, the folder given, or the
    /// folder holding the file given.
    static func assets(at path: String) throws(AISyncError) -> ChatGPTAssets {
        if path.lowercased().hasSuffix(".zip") { return ChatGPTAssets(zip: try archive(at: path)) }
        if Platform.stat(path)?.isDirectory == true {
            return ChatGPTAssets(folder: path.hasSuffix("/") ? String(path.dropLast()) : path)
        }
        return ChatGPTAssets(folder: FileIO.parentDirectory(of: path))
    }

    /// The JSON documents at `path`: the file itself, or in a folder `conversations.json`,
    /// else the shards `export_manifest.json` names, else every `conversations-*.json`.
    static func documents(at path: String) throws(AISyncError) -> [Document] {
        guard let st = Platform.stat(path) else {
            throw AISyncError(.notFound, "no such file or folder: \(path)", hint: "Check the path of the export")
        }
        if path.lowercased().hasSuffix(".zip") { return try zipDocuments(try archive(at: path), path: path) }
        return try files(at: path, isDirectory: st.isDirectory).map { (file: String) throws(AISyncError) -> Document in
            try read(file)
        }
    }

    /// The JSON files of an export that is not a zip: the file itself, or in a folder
    /// `conversations.json`, else its shards.
    static func files(at path: String, isDirectory: Bool) throws(AISyncError) -> [String] {
        guard isDirectory else { return [path] }
        let base = path.hasSuffix("/") ? String(path.dropLast()) : path
        if FileIO.exists("\(base)/conversations.json") { return ["\(base)/conversations.json"] }
        return try shardNames(in: base).map { "\(base)/\($0)" }
    }

    /// The zip archive at `path`, read whole; damaged-data when it is not a zip aisync reads,
    /// or when an entry's name is absolute or climbs out with `..` (``ZipArchive/isUnsafe(_:)``):
    /// such an archive was made to attack whoever unpacks it, so nothing of it is imported.
    static func archive(at path: String) throws(AISyncError) -> ZipArchive {
        let bytes = try FileIO.read(path)
        let zip: ZipArchive
        do { zip = try ZipArchive(bytes: bytes) } catch {
            throw AISyncError(
                .damagedData, "\(path) is not a zip archive this version can read",
                hint: "Unzip it and give the folder",
                cause: error.description)
        }
        if let name = zip.unsafeName {
            throw AISyncError(
                .damagedData,
                "\(path) holds an entry named \(ZipArchive.shown(name)) that points outside the archive",
                hint: "This archive is unsafe to unpack; get the export again from the app")
        }
        return zip
    }

    /// The conversation documents of a zipped export: its top-level `conversations.json`, else
    /// the shards its manifest names, else its top-level `conversations-*.json`.
    static func zipDocuments(_ zip: ZipArchive, path: String) throws(AISyncError) -> [Document] {
        var names = zip.entries["conversations.json"] != nil ? ["conversations.json"] : []
        if names.isEmpty, zip.entries["export_manifest.json"] != nil {
            var strings: [String] = []
            collectStrings(
                try parse(try entry(zip, "export_manifest.json", path: path), path: "\(path):export_manifest.json"),
                into: &strings)
            names = strings.filter { isShard($0) && zip.entries[$0] != nil }
        }
        if names.isEmpty { names = zip.names.filter { isShard($0) && !$0.contains("/") }.sorted() }
        var seen: Set<String> = []
        return try names.filter { seen.insert($0).inserted }.map { (name: String) throws(AISyncError) -> Document in
            Document(
                path: "\(path):\(name)", value: try parse(try entry(zip, name, path: path), path: "\(path):\(name)"))
        }
    }

    static func entry(_ zip: ZipArchive, _ name: String, path: String) throws(AISyncError) -> [UInt8] {
        do { return try zip.read(name, limit: 1 << 31) } catch {
            throw AISyncError(
                .damagedData, "\(path) has a damaged entry", hint: "Download the export again", cause: error.description
            )
        }
    }

    /// The shard file names of a sharded export, in order: those the manifest names when there
    /// is one, else the folder's `conversations-*.json`.
    static func shardNames(in folder: String) throws(AISyncError) -> [String] {
        let listed = Set(Platform.listDirectory(folder) ?? [])
        var names: [String] = []
        if listed.contains("export_manifest.json") {
            let manifest = try read("\(folder)/export_manifest.json")
            collectStrings(manifest.value, into: &names)
            names = names.compactMap { $0.split(separator: "/").last.map(String.init) }
                .filter { isShard($0) && listed.contains($0) }
        }
        if names.isEmpty { names = listed.filter(isShard).sorted() }
        var seen: Set<String> = []
        return names.filter { seen.insert($0).inserted }
    }

    static func isShard(_ name: String) -> Bool {
        name.hasPrefix("conversations") && name.hasSuffix(".json") && !name.contains("..")
    }

    private static func collectStrings(_ value: JSONValue, into out: inout [String]) {
        switch value {
        case .string(let s): out.append(s)
        case .array(let items): for item in items { collectStrings(item, into: &out) }
        case .object(let members): for key in members.keys.sorted() { collectStrings(members[key]!, into: &out) }
        default: break
        }
    }

    /// Reads and parses one JSON file; bad JSON (too deep, truncated, not UTF-8) is a
    /// damaged-data error naming the file.
    static func read(_ path: String) throws(AISyncError) -> Document {
        Document(path: path, value: try parse(try FileIO.read(path), path: path))
    }

    static func parse(_ bytes: [UInt8], path: String) throws(AISyncError) -> JSONValue {
        do { return try JSONParser.parse(bytes) } catch { throw notJSON(path, error) }
    }

    /// ``parse(_:path:)`` into a tape.
    static func parse(_ bytes: [UInt8], path: String, into tape: inout JSONTape.Builder) throws(AISyncError) {
        do { try tape.append(document: bytes) } catch { throw notJSON(path, error) }
    }

    private static func notJSON(_ path: String, _ error: JSONParser.Failure) -> AISyncError {
        AISyncError(
            .damagedData, "\(path) is not valid JSON", hint: "Give the export's JSON file as the app wrote it",
            cause: error.description)
    }
}
