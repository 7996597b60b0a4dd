import AISyncCore
import AISyncFiles

/// The story JSON storybook apps produce: `{title, moral, story: [sentences], imagePrompts}`
/// (or a list of them). Sentences go two to a page, as those apps lay them out.
///
/// A story has no id of its own, so its record id derives from its title and sentences:
/// importing the same story again changes nothing, a rewritten story is a new record. Imported
/// again with pictures after once without, it gets them on the pages that have none (the
/// store turns such a page into an edit, see `Store.importRecords`).
///
/// The pictures beside a single story (``StorybookInput``) illustrate its pages: each becomes
/// an image record (its id from its sha256, imported before the story) and its page's
/// `image`. A picture whose name gives a page number (``StorybookInput/pageNumber(_:)``) goes to
/// that page; the others, then a DALL·E response's pictures, fill the pages left in name
/// order. Pictures left over, pages left bare and files that are not images are noted, never
/// fatal. When the input holds several stories no picture is used (noted): which goes where
/// would be a guess.
enum StorybookImporter {
    /// What the summary says about pictures.
    static let barePagesNote = "pages without a picture"

    /// Reads one story document, with nothing beside it.
    static func read(_ document: ImportInput.Document, now: Timestamp, into batch: inout ImportBatch)
        throws(AISyncError)
    {
        try read(StorybookInput(documents: [document]), now: now, into: &batch)
    }

    /// Reads every story of `input`, illustrated with its pictures when it holds one story.
    static func read(_ input: StorybookInput, now: Timestamp, into batch: inout ImportBatch) throws(AISyncError) {
        var stories: [JSONValue] = []
        for document in input.documents {
            switch document.value {
            case .array(let items): stories += items
            case .object: stories.append(document.value)
            default: throw Import.notAn("a story", document, expected: "an object with a title and a story list")
            }
        }
        let pictures = input.files.count + input.dalle.count
        let single = stories.count == 1 && input.otherStories == 0
        for (n, story) in stories.enumerated() {
            guard let sentences = sentences(story, n: n, into: &batch) else { continue }
            let title = ImportIDs.title(story["title"]?.stringValue, fallback: "Untitled story")
            let key = "storybook:" + ([title] + sentences).joined(separator: "\u{0}")
            var pages = stride(from: 0, to: sentences.count, by: 2).map { start in
                let text = sentences[start..<min(start + 2, sentences.count)].joined(separator: " ")
                let position = start / 2 + 1
                return StoryBody.Page(
                    id: ImportIDs.element("page", key: key, source: "\(position)"), position: Int64(position),
                    text: text)
            }
            let prompts = story["imagePrompts"]?.arrayValue?.compactMap(\.stringValue) ?? []
            var notes: [String: Int] = [:]
            if single, pictures > 0 {
                illustrate(&pages, with: input, title: title, prompts: prompts, now: now, into: &batch)
                let bare = pages.filter { $0.image == nil }.count
                if bare > 0 { notes[barePagesNote] = bare }
            }
            let body = StoryBody(
                title: title, moral: story["moral"]?.stringValue, pages: pages, prompts: prompts, created: now,
                updated: now)
            batch.add(ImportIDs.record(.story, key: key), .story(body), notes: notes)
        }
        note(input, used: single, stories: stories.count, into: &batch)
    }

    /// The story's sentences, or nil (skipped, with why) when it has none or something else.
    static func sentences(_ story: JSONValue, n: Int, into batch: inout ImportBatch) -> [String]? {
        guard case .array(let items)? = story["story"] else {
            batch.skip("#\(n + 1)", "it has no story list")
            return nil
        }
        let sentences = items.compactMap(\.stringValue).map(\.trimmingSpaces).filter { !$0.isEmpty }
        guard sentences.count == items.count else {
            batch.skip("#\(n + 1)", "its story list holds something other than sentences")
            return nil
        }
        guard !sentences.isEmpty else {
            batch.skip("#\(n + 1)", "its story is empty")
            return nil
        }
        return sentences
    }

    /// Gives pages their pictures (numbered ones to their page, then the rest in order) and
    /// adds each picture used as an image record; pictures left over are noted.
    static func illustrate(
        _ pages: inout [StoryBody.Page], with input: StorybookInput, title: String, prompts: [String],
        now: Timestamp, into batch: inout ImportBatch
    ) {
        var chosen: [Int: StorybookInput.Picture] = [:]
        var unused: [String] = []
        for picture in input.files {
            guard let page = picture.page else { continue }
            if (1...pages.count).contains(page), chosen[page - 1] == nil {
                chosen[page - 1] = picture
            } else {
                unused.append(picture.name)
            }
        }
        var free = pages.indices.filter { chosen[$0] == nil }[...]
        for picture in input.files.filter({ $0.page == nil }) + input.dalle {
            guard let page = free.popFirst() else {
                unused.append(picture.name)
                continue
            }
            chosen[page] = picture
        }
        var added: Set<RecordID> = []
        for (index, picture) in chosen.sorted(by: { $0.key < $1.key }) {
            let prompt = index < prompts.count ? prompts[index] : picture.revisedPrompt
            guard let item = imageItem(picture, title: "\(title), page \(index + 1)", prompt: prompt, now: now) else {
                unused.append(picture.name)
                continue
            }
            pages[index].image = item.digest
            if added.insert(item.id).inserted {
                batch.add(item.id, .image(item.body), imageBytes: item.bytes, imageFile: item.file)
            }
        }
        if !unused.isEmpty {
            batch.notes.append(
                "\(unused.count) picture(s) beside the story not used (more pictures than pages, a page number past the last page or given twice, or unreadable): \(list(unused))"
            )
        }
    }

    /// One picture as an image record: id from its sha256, titled by its page's prompt or
    /// `fallback`. Nil when its file cannot be read.
    static func imageItem(_ picture: StorybookInput.Picture, title fallback: String, prompt: String?, now: Timestamp)
        -> (id: RecordID, digest: SHA256Digest, body: ImageBody, bytes: [UInt8]?, file: String?)?
    {
        let digest: SHA256Digest
        let size: Int64
        var bytes: [UInt8]?
        var file: String?
        switch picture.bytes {
        case .file(let path):
            guard let hashed = try? SHA256.hash(fileAt: path) else { return nil }
            (digest, size, file) = (hashed.digest, hashed.size, path)
        case .memory(let memory):
            (digest, size, bytes) = (SHA256.hash(memory), Int64(memory.count), memory)
        }
        let body = ImageBody(
            title: ImportIDs.title(prompt, fallback: fallback), sha256: digest, size: size,
            mediaType: picture.info.mediaType, width: picture.info.width.map(Int64.init),
            height: picture.info.height.map(Int64.init), prompt: prompt, model: nil, created: now, updated: now)
        return (ImportIDs.record(.image, key: "image:\(digest.hex)"), digest, body, bytes, file)
    }

    /// The summary's notes on what lay beside the stories.
    static func note(_ input: StorybookInput, used: Bool, stories: Int, into batch: inout ImportBatch) {
        let pictures = input.files.count + input.dalle.count
        if !used, pictures > 0 {
            let why =
                input.otherStories > 0
                ? "other story files lie beside it" : "the input holds \(stories) stories, and pictures go with one"
            batch.notes.append("\(pictures) picture(s) beside the stories not used: \(why)")
        }
        if !input.notImages.isEmpty {
            batch.notes.append(
                "\(input.notImages.count) file(s) beside the story skipped, not images: \(list(input.notImages))")
        }
        if input.urlOnly > 0 {
            batch.notes.append("\(input.urlOnly) DALL·E picture(s) beside the story given only as a URL, not used")
        }
    }

    /// The first few names of a list, for a note.
    static func list(_ names: [String]) -> String {
        names.prefix(3).map(ZipArchive.shown).joined(separator: ", ") + (names.count > 3 ? ", …" : "")
    }
}
