import AISyncCore

/// The story JSON storybook apps produce: `{title, moral, story: [sentences], imagePrompts}`
/// (or a list of them). Sentences go two to a page, as those apps lay them out.
///
/// A story has no id of its own, so its record id derives from its title and sentences:
/// importing the same story again changes nothing, a rewritten story is a new record.
enum StorybookImporter {
    static func read(_ document: ImportInput.Document, now: Timestamp, into batch: inout ImportBatch)
        throws(AISyncError)
    {
        let stories: [JSONValue]
        switch document.value {
        case .array(let items): stories = items
        case .object: stories = [document.value]
        default: throw Import.notAn("a story", document, expected: "an object with a title and a story list")
        }
        for (n, story) in stories.enumerated() {
            guard case .array(let items)? = story["story"] else {
                batch.skip("#\(n + 1)", "it has no story list")
                continue
            }
            let sentences = items.compactMap(\.stringValue).map(\.trimmingSpaces).filter { !$0.isEmpty }
            guard sentences.count == items.count else {
                batch.skip("#\(n + 1)", "its story list holds something other than sentences")
                continue
            }
            guard !sentences.isEmpty else {
                batch.skip("#\(n + 1)", "its story is empty")
                continue
            }
            let title = ImportIDs.title(story["title"]?.stringValue, fallback: "Untitled story")
            let key = "storybook:" + ([title] + sentences).joined(separator: "\u{0}")
            let pages = stride(from: 0, to: sentences.count, by: 2).map { start in
                let text = sentences[start..<min(start + 2, sentences.count)].joined(separator: " ")
                let position = start / 2 + 1
                return StoryBody.Page(
                    id: ImportIDs.element("page", key: key, source: "\(position)"), position: Int64(position),
                    text: text)
            }
            let prompts = story["imagePrompts"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let body = StoryBody(
                title: title, moral: story["moral"]?.stringValue, pages: pages, prompts: prompts, created: now,
                updated: now)
            batch.add(ImportIDs.record(.story, key: key), .story(body))
        }
    }
}
