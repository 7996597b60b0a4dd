import AISyncCore
import AISyncFiles

/// A storybook export as given: the story JSON and what lies beside it, in the same folder
/// or the same zip folder: picture files, and OpenAI Images responses (DALL·E) whose pictures
/// illustrate the pages.
///
/// Everything beside is untrusted: in a folder only regular files directly in it are read
/// (a symbolic link is never followed), a zip entry's name is only compared and shown, never
/// used as a path, and a picture is an image only when its bytes say so (``ImageSniffer``),
/// whatever its extension.
struct StorybookInput {
    /// One picture found beside the story, not yet hashed.
    struct Picture {
        /// Where its bytes are.
        enum Bytes {
            /// A regular file in the story's folder (streamed into the store).
            case file(String)
            /// A zip entry or a decoded `b64_json`, already in memory.
            case memory([UInt8])
        }
        /// The file or entry name (`page-2.png`, `response.json #1`), for notes.
        var name: String
        /// The page its name gives (``pageNumber(_:)``); nil for name order.
        var page: Int?
        /// Where its bytes are.
        var bytes: Bytes
        /// Its type and size, sniffed from its first bytes.
        var info: ImageInfo
        /// A DALL·E response's `revised_prompt`.
        var revisedPrompt: String?
    }

    /// The story documents (each an object or a list of stories).
    var documents: [ImportInput.Document] = []
    /// Picture files beside the story, in natural name order (`p2` before `p10`).
    var files: [Picture] = []
    /// Pictures of DALL·E responses beside the story: responses in name order, entries in order.
    var dalle: [Picture] = []
    /// Names of files beside the story that are neither an image, a story nor an Images response.
    var notImages: [String] = []
    /// DALL·E entries given only as an expiring `url` (nothing to use).
    var urlOnly = 0
    /// Other story files beside the story file given (not imported; they make the pictures
    /// beside ambiguous).
    var otherStories = 0

    /// Largest JSON file (story or Images response) read beside a story.
    static let jsonLimit = 256 << 20

    /// Stories with nothing beside them.
    init(documents: [ImportInput.Document]) { self.documents = documents }

    /// Reads the story at `path`: a story JSON file (what else is in its folder lies beside
    /// it), a folder, or a zip (top level or one folder: the one holding its story JSON).
    /// Finds no documents (and no pictures) when none of the JSON files is a story.
    init(at path: String) throws(AISyncError) {
        guard let st = Platform.stat(path) else {
            throw AISyncError(.notFound, "no such file or folder: \(path)", hint: "Check the path of the story")
        }
        if path.lowercased().hasSuffix(".zip") {
            readZip(try ImportInput.archive(at: path), path: path)
        } else if st.isDirectory {
            readFolder(path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path, story: nil)
        } else {
            documents = [try ImportInput.read(path)]
            readFolder(FileIO.parentDirectory(of: path), story: String(path.split(separator: "/").last ?? ""))
        }
        files.sort { Self.naturalOrder($0.name, $1.name) }
    }

    /// Reads the regular files directly in `folder`: story JSONs (`story` names the file of
    /// the one given, nil for a folder given), Images responses, pictures.
    private mutating func readFolder(_ folder: String, story: String?) {
        for name in (Platform.listDirectory(folder) ?? []).sorted() where !name.hasPrefix(".") && name != story {
            let path = "\(folder)/\(name)"
            guard ChatGPTAssets.isPlain(path, .typeRegular) else { continue }
            if name.lowercased().hasSuffix(".json") {
                guard let bytes = try? FileIO.read(path, limit: Int64(Self.jsonLimit)) else {
                    notImages.append(name)
                    continue
                }
                addJSON(bytes, name: name, path: path, keepStories: story == nil)
            } else if let info = ImageSniffer.sniff(fileAt: path) {
                files.append(Picture(name: name, page: Self.pageNumber(name), bytes: .file(path), info: info))
            } else {
                notImages.append(name)
            }
        }
    }

    /// Reads the zip's story JSONs and what lies beside them: the entries of the folder (in the
    /// zip) holding the first story JSON, top level first.
    private mutating func readZip(_ zip: ZipArchive, path: String) {
        let jsons = zip.names.filter { $0.lowercased().hasSuffix(".json") && !$0.hasSuffix("/") }
        let stories = jsons.filter { name in
            (try? zip.read(name, limit: Self.jsonLimit)).flatMap { try? JSONParser.parse($0) }.map(Self.isStory) == true
        }
        guard
            let first = stories.min(by: { ($0.split(separator: "/").count, $0) < ($1.split(separator: "/").count, $1) })
        else { return }
        let folder = first.contains("/") ? String(first[...(first.lastIndex(of: "/") ?? first.startIndex)]) : ""
        for entry in zip.names.sorted() where entry.hasPrefix(folder) && entry != folder {
            let name = String(entry.dropFirst(folder.count))
            guard !name.contains("/"), !name.hasPrefix("."), !name.isEmpty else { continue }
            guard let bytes = try? zip.read(entry, limit: Self.jsonLimit) else {
                notImages.append(name)
                continue
            }
            if name.lowercased().hasSuffix(".json") {
                addJSON(bytes, name: name, path: "\(path):\(entry)", keepStories: true)
            } else if let info = ImageSniffer.sniff(Array(bytes.prefix(ImageSniffer.maxHeaderLength))) {
                files.append(Picture(name: name, page: Self.pageNumber(name), bytes: .memory(bytes), info: info))
            } else {
                notImages.append(name)
            }
        }
    }

    /// A JSON file beside the story: a story (kept as a document when `keepStories`, else
    /// counted), an Images response, or neither (noted).
    private mutating func addJSON(_ bytes: [UInt8], name: String, path: String, keepStories: Bool) {
        guard let value = try? JSONParser.parse(bytes) else {
            // The bytes decide, not the name: a picture saved as `.json` is still a picture.
            if let info = ImageSniffer.sniff(Array(bytes.prefix(ImageSniffer.maxHeaderLength))) {
                files.append(Picture(name: name, page: Self.pageNumber(name), bytes: .memory(bytes), info: info))
            } else {
                notImages.append(name)
            }
            return
        }
        if Self.isStory(value) {
            if keepStories {
                documents.append(ImportInput.Document(path: path, value: value))
            } else {
                otherStories += 1
            }
            return
        }
        guard case .array(let data)? = value["data"] else {
            notImages.append(name)
            return
        }
        for (n, entry) in data.enumerated() {
            guard let text = entry["b64_json"]?.stringValue else {
                if entry["url"] != nil { urlOnly += 1 }
                continue
            }
            guard let decoded = Base64.decode(text),
                let info = ImageSniffer.sniff(Array(decoded.prefix(ImageSniffer.maxHeaderLength)))
            else {
                notImages.append("\(name) #\(n + 1)")
                continue
            }
            dalle.append(
                Picture(
                    name: "\(name) #\(n + 1)", page: nil, bytes: .memory(decoded), info: info,
                    revisedPrompt: entry["revised_prompt"]?.stringValue))
        }
    }

    /// Whether a document has a story's shape: an object with a `story` list, or a list of them.
    static func isStory(_ value: JSONValue) -> Bool {
        let sample = value.arrayValue?.first { $0.objectValue != nil } ?? value
        return sample["story"]?.arrayValue != nil
    }

    /// The page a picture's file name gives: the number at the end of its name (before the
    /// extension), when the name is only that number or the number follows `page`, `pg` or
    /// `p` (any case) that starts the name or follows a separator, with at most one `-`, `_`,
    /// `.` or space between: `3.png`, `p3.webp`, `page-03.jpg`, `story_page_2.png`,
    /// `Page 4.png`. Nil for other names (`fox.png`, `shop3.png`, `img-2.png`), and for 0.
    static func pageNumber(_ name: String) -> Int? {
        var stem = Substring(name)
        if let dot = stem.lastIndex(of: "."), dot != stem.startIndex { stem = stem[..<dot] }
        let digits = stem.reversed().prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 6, let number = Int(String(digits.reversed())), number > 0 else {
            return nil
        }
        var rest = stem.dropLast(digits.count).lowercased()
        if let last = rest.last, "-_. ".contains(last) { rest.removeLast() }
        guard !rest.isEmpty else { return number }
        for word in ["page", "pg", "p"] where rest.hasSuffix(word) {
            let before = rest.dropLast(word.count)
            if before.isEmpty || before.last.map({ "-_. ".contains($0) }) == true { return number }
        }
        return nil
    }

    /// Natural order: runs of digits compare as numbers (`p2` before `p10`), the rest by bytes.
    static func naturalOrder(_ a: String, _ b: String) -> Bool {
        func runs(_ s: String) -> [(Bool, String)] {
            var out: [(Bool, String)] = []
            for c in s {
                let digit = c.isASCII && c.isNumber
                if let last = out.last, last.0 == digit {
                    out[out.count - 1].1.append(c)
                } else {
                    out.append((digit, String(c)))
                }
            }
            return out
        }
        for (x, y) in zip(runs(a), runs(b)) where x.1 != y.1 {
            if x.0, y.0, let m = Int(x.1.prefix(18)), let n = Int(y.1.prefix(18)), m != n { return m < n }
            return x.1 < y.1
        }
        return a.count != b.count ? a.count < b.count : a < b
    }
}
