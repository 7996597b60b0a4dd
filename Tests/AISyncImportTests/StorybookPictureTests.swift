import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncImport
@testable import AISyncStore

// Issue 26: a story JSON with its pictures beside it (a folder, a zip, a DALL·E response)
// gives a story whose pages carry them. Fixtures: Tests/Fixtures/import/make-storybook-fixtures.py.

/// What a parsed storybook batch holds: its images (in order) and its one story.
struct StoryBatch {
    var batch: ImportBatch
    var images: [ImportBatch.Item]
    var story: StoryBody
    var storyItem: ImportBatch.Item

    init(_ source: Import.Source?, _ name: String) throws {
        let (found, batch) = try ImportFixture.batch(source, name)
        #expect(found == .storybook)
        self.batch = batch
        images = batch.items.filter { $0.item.body.kind == .image }
        let item = try #require(batch.items.first { $0.item.body.kind == .story })
        guard case .story(let story) = item.item.body else { throw AISyncError(.other, "not a story") }
        self.story = story
        storyItem = item
        #expect(batch.items.last?.item.body.kind == .story, "pictures are imported before the story")
    }

    /// The sha256 of a fixture file.
    static func digest(_ name: String) throws -> SHA256Digest { SHA256.hash(try FileIO.read(ImportFixture.path(name))) }

    /// The image body of an item.
    static func image(_ item: ImportBatch.Item) throws -> ImageBody {
        guard case .image(let image) = item.item.body else { throw AISyncError(.other, "not an image") }
        return image
    }
}

/// The owl story's pages, as the fixtures' story.json pairs its sentences.
enum StoryBatchPages {
    static let owl = [
        "An owl lived in an old oak. Every night she counted stars.",
        "One night a cloud hid them all. She waited, and counted the rain instead.",
        "When the sky cleared, she had a new friend. The rain had counted with her.",
    ]
}

@Suite("Import: storybook pictures")
struct StorybookPictureTests {
    static let prompts = [
        "an owl in an oak at night, watercolor", "an owl watching rain, watercolor",
        "an owl and a raindrop friend under the stars, watercolor",
    ]

    @Test(arguments: ["storybook-pictures", "storybook-pictures/story.json"])
    func picturesBesideGoToThePagesInNameOrder(path: String) throws {
        let s = try StoryBatch(path.hasSuffix(".json") ? nil : .storybook, path)
        let files = ["a-forest.png", "b-rain.jpg", "c-stars.png"]
        let digests = try files.map { try StoryBatch.digest("storybook-pictures/\($0)") }
        #expect(s.story.pages.map(\.image) == digests)
        #expect(s.images.count == 3)
        for (n, item) in s.images.enumerated() {
            let image = try StoryBatch.image(item)
            #expect(image.sha256 == digests[n] && image.title == Self.prompts[n] && image.prompt == Self.prompts[n])
            #expect(item.item.id == ImportIDs.record(.image, key: "image:\(digests[n].hex)"), "id from its sha256")
            #expect(item.item.imageFile == ImportFixture.path("storybook-pictures/\(files[n])"))
        }
        #expect(try StoryBatch.image(s.images[1]).mediaType == "image/jpeg")
        let note = try #require(s.batch.notes.first { $0.contains("not images") })
        #expect(
            note.contains("2 file(s)") && note.contains("\"fake.png\"") && note.contains("\"notes.txt\""), "\(note)")
        #expect(s.storyItem.notes[StorybookImporter.barePagesNote] == nil)
    }

    @Test func aPageNumberInTheNameChoosesThePage() throws {
        let s = try StoryBatch(.storybook, "storybook-numbered")
        let digests = try ["p1.webp", "story_page_2.jpg", "page-3.png"].map {
            try StoryBatch.digest("storybook-numbered/\($0)")
        }
        #expect(s.story.pages.map(\.image) == digests)
        #expect(try s.images.map { try StoryBatch.image($0).mediaType } == ["image/webp", "image/jpeg", "image/png"])
        let note = try #require(s.batch.notes.first { $0.contains("not used") })
        #expect(note.hasPrefix("1 picture(s) beside the story not used") && note.contains("page-9.png"), "\(note)")
    }

    @Test func aDalleResponseBesideIllustratesThePagesInOrder() throws {
        let s = try StoryBatch(nil, "storybook-dalle")
        let response = try ImportInput.read(ImportFixture.path("storybook-dalle/response.json"))
        let pictures = try (response.value["data"]?.arrayValue ?? []).map {
            SHA256.hash(try #require(Base64.decode($0["b64_json"]?.stringValue ?? "")))
        }
        #expect(pictures.count == 2)
        #expect(s.story.pages.map(\.image) == [pictures[0], pictures[1], nil])
        #expect(s.storyItem.notes[StorybookImporter.barePagesNote] == 1, "page 3 has no picture: noted")
        let first = try StoryBatch.image(s.images[0])
        #expect(first.prompt == "An owl in an oak, yellow moon" && first.title == "An owl in an oak, yellow moon")
        #expect(s.images.allSatisfy { $0.item.imageBytes != nil })
    }

    @Test func aZippedStoryUsesThePicturesOfItsFolderInTheZip() throws {
        let s = try StoryBatch(.storybook, "storybook.zip")
        let zip = try ZipArchive(bytes: try FileIO.read(ImportFixture.path("storybook.zip")))
        let page1 = SHA256.hash(try zip.read("owl/page-1.jpg", limit: 1 << 20))
        let page2 = SHA256.hash(try zip.read("owl/page-2.png", limit: 1 << 20))
        #expect(s.story.pages.map(\.image) == [page1, page2, nil], "other/page-3.png is in another folder")
        #expect(s.images.count == 2 && s.images.allSatisfy { $0.item.imageBytes != nil })
        #expect(s.batch.notes.contains { $0.contains("\"readme.txt\"") }, "\(s.batch.notes)")
        // Found by shape, with no source named.
        #expect(try ImportFixture.batch(nil, "storybook.zip").0 == .storybook)
    }

    @Test func withoutPromptsAPictureIsTitledByItsStoryAndPage() throws {
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        let story = #"{"title": "Rain", "story": ["It rained.", "Then it stopped.", "The sun came out."]}"#
        try Data(story.utf8).write(to: URL(fileURLWithPath: "\(dir)/rain.json"))
        try Data(Scratch.pngBytes).write(to: URL(fileURLWithPath: "\(dir)/1.png"))
        // The bytes decide, not the extension: a picture saved as .json is a picture.
        try Data(CLIFixtures.gif.bytes).write(to: URL(fileURLWithPath: "\(dir)/2.json"))
        let (_, batch) = try Import.parse(nil, path: "\(dir)/rain.json", now: ImportFixture.now)
        let image = try StoryBatch.image(try #require(batch.items.first))
        #expect(image.title == "Rain, page 1" && image.prompt == nil)
        #expect(try StoryBatch.image(batch.items[1]).mediaType == "image/gif", "\(batch.items.map(\.item.body.title))")
    }

    @Test func aListOfSeveralStoriesLeavesThePicturesBesideAlone() async throws {
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        let stories = #"[{"title": "A", "story": ["One."]}, {"title": "B", "story": ["Two."]}]"#
        try Data(stories.utf8).write(to: URL(fileURLWithPath: "\(dir)/stories.json"))
        try Data(Scratch.pngBytes).write(to: URL(fileURLWithPath: "\(dir)/page-1.png"))
        for path in ["\(dir)/stories.json", dir] {
            let (source, batch) = try Import.parse(nil, path: path, now: ImportFixture.now)
            #expect(source == .storybook && batch.items.count == 2)
            #expect(batch.items.allSatisfy { $0.item.body.kind == .story })
            #expect(
                batch.notes == [
                    "1 picture(s) beside the stories not used: the input holds 2 stories, and pictures go with one"
                ])
        }
        // A list file is read whole, not in slices, so a list of one story gets its pictures too.
        let (store, storeDir) = try ImportFixture.store()
        defer { CLIHarness.removeTree(storeDir) }
        try Data(#"[{"title": "A", "story": ["One."]}]"#.utf8).write(to: URL(fileURLWithPath: "\(dir)/stories.json"))
        let summary = try await Import.run(nil, path: "\(dir)/stories.json", into: store)
        #expect(summary.records.map(\.kind) == [.image, .story] && summary.notes.isEmpty, "\(summary.notes)")
    }

    @Test func importingAgainAddsNothingAndNeverDuplicatesTheStory() async throws {
        let (store, dir) = try ImportFixture.store()
        defer { CLIHarness.removeTree(dir) }
        // First the story alone, as aisync before issue 26 imported it.
        try FileManager.default.createDirectory(atPath: "\(dir)/alone", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: ImportFixture.path("storybook-pictures/story.json"), toPath: "\(dir)/alone/story.json")
        let alone = try await Import.run(.storybook, path: "\(dir)/alone/story.json", into: store)
        #expect(alone.created == 1 && alone.records.map(\.kind) == [.story])
        // Then with its pictures: they come in as images, and the same story record gets them
        // on its pages (an edit of each page that had none), never a second story.
        let pictured = try await Import.run(.storybook, path: ImportFixture.path("storybook-pictures"), into: store)
        #expect(pictured.created == 3 && pictured.extended == 1 && pictured.elementsAdded == 3)
        #expect(pictured.records.last?.id == alone.records[0].id)
        guard case .story(let story)? = try await store.record(alone.records[0].id).body else {
            throw AISyncError(.other, "no story")
        }
        let digests = try ["a-forest.png", "b-rain.jpg", "c-stars.png"].map {
            try StoryBatch.digest("storybook-pictures/\($0)")
        }
        #expect(story.pages.map(\.image) == digests)
        #expect(story.pages.map(\.text) == StoryBatchPages.owl)
        let again = try await Import.run(nil, path: ImportFixture.path("storybook-pictures/story.json"), into: store)
        #expect(again.created == 0 && again.unchanged == 4)
        #expect(try await store.list().filter { $0.kind == .story }.count == 1)
        #expect(try await store.list().filter { $0.kind == .image }.count == 3)
    }

    @Test(
        arguments: [
            ("3.png", 3), ("p3.webp", 3), ("P3.PNG", 3), ("page-03.jpg", 3), ("page03.jpg", 3), ("story_page_2.png", 2),
            ("Page 4.png", 4), ("pg.7.png", 7), ("fox-page-12.jpeg", 12), ("fox.png", nil), ("shop3.png", nil),
            ("img-2.png", nil), ("page-0.png", nil), ("page-.png", nil), ("page--3.png", nil), (".png", nil),
            ("2024-05-01.png", nil), ("p1234567.png", nil),
        ] as [(String, Int?)])
    func pageNumbersInNames(name: String, page: Int?) {
        #expect(StorybookInput.pageNumber(name) == page, "\(name)")
    }

    @Test func unnumberedPicturesSortNaturally() {
        let names = ["fox10.png", "fox2.png", "Fox1.png", "fox1.png", "a.png"]
        #expect(
            names.sorted(by: StorybookInput.naturalOrder) == ["Fox1.png", "a.png", "fox1.png", "fox2.png", "fox10.png"])
    }
}
