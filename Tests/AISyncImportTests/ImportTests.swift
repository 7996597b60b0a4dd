import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncImport
@testable import AISyncStore

// Imports (issue 9) through the library: ChatGPT trees (branches, broken trees, hidden
// messages, content types), idempotence, newer exports, Claude blocks, storybooks, DALL·E
// responses and bad input. The fixtures are hand-made exports in Tests/Fixtures/import
// (make-fixtures.py writes them).

extension ImportFixture {
    static let now = Timestamp(milliseconds: 1_800_000_000_000)

    static func batch(_ source: Import.Source?, _ name: String, options: Import.Options = Import.Options())
        throws(AISyncError) -> (Import.Source, ImportBatch)
    {
        try Import.parse(source, path: path(name), options: options, now: now)
    }

    static func chat(_ batch: ImportBatch, titled title: String) throws -> (item: ImportBatch.Item, body: ChatBody) {
        let item = try #require(batch.items.first { $0.item.body.title == title })
        guard case .chat(let body) = item.item.body else { throw AISyncError(.other, "\(title) is not a chat") }
        return (item, body)
    }

    /// A new store in a temp directory; remove `directory` when done.
    static func store() throws -> (store: Store, directory: String) {
        let dir = CLIHarness.makeTemporaryDirectory()
        return (try Store.create(at: "\(dir)/store", deviceName: "importer"), dir)
    }
}

@Suite("Import: ChatGPT")
struct ImportChatGPTTests {
    @Test func theTranscriptIsTheCurrentPathWithoutHiddenMessages() throws {
        let (source, batch) = try ImportFixture.batch(nil, "chatgpt")
        #expect(source == .chatgpt)
        let (item, lisbon) = try ImportFixture.chat(batch, titled: "Lisbon trip")
        #expect(
            lisbon.messages.map(\.text) == [
                "Three things to see in Lisbon?",
                "Belém Tower, Alfama, and the LX Factory.",
                "[image: file-service://file-abc123]\n\nWhat is in this photo?",
                "A tram. Let me count the windows.",
                "```python\nprint(6 * 4)\n```",
                "[python output]\n```\n24\n```",
                "[web browsing output]\nLisbon trams: line 28.",
                "[content type some_future_type]",
                "Take tram 28.",
            ])
        #expect(
            lisbon.messages.map(\.role) == [
                .user, .assistant, .user, .assistant, .assistant, .assistant, .assistant, .assistant, .assistant,
            ])
        #expect(lisbon.model == "gpt-4o")
        #expect(lisbon.created == Timestamp(milliseconds: 1_700_000_000_000))
        // Times only go forward, so the order shown is the transcript's (the last has no time).
        #expect(zip(lisbon.messages, lisbon.messages.dropFirst()).allSatisfy { $0.time < $1.time })
        // Regenerated and edited branches are kept as alternatives, never mixed in; each says
        // which transcript message it follows. What the app hides is counted.
        #expect(!lisbon.messages.contains { $0.text.contains("regenerated") || $0.text.contains("went nowhere") })
        #expect(lisbon.messages.allSatisfy { $0.branch == nil })
        #expect(
            lisbon.alternatives.map(\.text) == ["An old answer that was regenerated.", "An edit that went nowhere."])
        #expect(lisbon.alternatives.map(\.role) == [.assistant, .user])
        let question = lisbon.messages[0].id
        let photo = lisbon.messages[2].id
        #expect(lisbon.alternatives.map(\.branch) == [ChatBody.Branch(after: question), ChatBody.Branch(after: photo)])
        #expect(Set(lisbon.alternatives.map(\.id)).isDisjoint(with: lisbon.messages.map(\.id)))
        #expect(item.notes[ChatGPTImporter.otherBranches] == 2)
        #expect(item.notes[ChatGPTMessage.hiddenReason] == 2)
        // Custom instructions go with the chat, not into its transcript.
        #expect(lisbon.instructions == "Be brief.")
        #expect(!lisbon.messages.contains { $0.text.contains("Be brief.") })
        #expect(item.notes[ChatGPTImporter.instructionsNote] == 1)
        #expect(item.notes[ChatGPTMessage.emptyReason] == 1)
        #expect(item.notes[ChatGPTMessage.unknownNote] == 1)
        #expect(lisbon.messages.contains { $0.text == "[content type some_future_type]" })
        #expect(item.notes[ChatGPTImages.missingNote] == 1, "this export folder has no picture files")
    }

    @Test func idsDeriveFromTheSourceIds() throws {
        let (_, first) = try ImportFixture.batch(.chatgpt, "chatgpt/conversations.json")
        let (_, again) = try ImportFixture.batch(.chatgpt, "chatgpt")
        #expect(first.items.map(\.item.id) == again.items.map(\.item.id))
        let id = try #require(first.items.first?.item.id)
        // sha256("chatgpt:<id>") from Python's hashlib; ids stay the same from release to release.
        #expect(id.rawValue == "chat-1be1810615a7d866")
        #expect(
            ImportIDs.hex("chatgpt:c0ffee00-0000-4000-8000-00000000000a")
                == "1be1810615a7d8660400fdc4857fb190b44ed8575597e23c4da16514ff2d5f7d")
        #expect(ImportIDs.hex("chatgpt:c0ffee00-0000-4000-8000-00000000000a", digits: 5) == "1be18")
        let (_, lisbon) = try ImportFixture.chat(first, titled: "Lisbon trip")
        #expect(lisbon.messages.allSatisfy { RecordID.isValid($0.id) && $0.id.hasPrefix("m-") })
        #expect(Set(lisbon.messages.map(\.id)).count == lisbon.messages.count)
    }

    @Test func brokenTreesAreSurvived() throws {
        let (_, batch) = try ImportFixture.batch(.chatgpt, "chatgpt")
        let (brokenItem, broken) = try ImportFixture.chat(batch, titled: "Broken tree")
        #expect(broken.messages.map(\.text) == ["My parent is missing.", "Still here."])
        #expect(brokenItem.notes[ChatGPTImporter.brokenTree] == 1)
        let (cycleItem, cycle) = try ImportFixture.chat(batch, titled: "Cycle")
        #expect(cycle.messages.map(\.text) == ["First.", "Second."])
        #expect(cycleItem.notes[ChatGPTImporter.brokenTree] == 1)
        // No current node: the newest leaf's branch, the other counted.
        let (guessedItem, guessed) = try ImportFixture.chat(batch, titled: "Untitled chat")
        #expect(guessed.messages.map(\.text) == ["Pick one", "Newer leaf"])
        #expect(
            guessed.alternatives.map(\.text) == ["Older leaf"]
                && guessed.alternatives.first?.branch?.after == guessed.messages.first?.id)
        #expect(
            guessedItem.notes[ChatGPTImporter.newestBranch] == 1
                && guessedItem.notes[ChatGPTImporter.otherBranches] == 1)
        // A conversation whose mapping is not an object is skipped whole, with why.
        #expect(
            batch.skipped == [ImportBatch.Skip(source: "damaged-1", reason: "its mapping is missing or not an object")])
    }

    @Test func aShardedExportReadsTheShardsTheManifestNames() throws {
        let (source, batch) = try ImportFixture.batch(nil, "chatgpt-sharded")
        #expect(source == .chatgpt)
        #expect(batch.items.map(\.item.body.title) == ["Lisbon trip", "New chat"])
        #expect(
            try ImportInput.shardNames(in: ImportFixture.path("chatgpt-sharded")) == [
                "conversations-000.json", "conversations-001.json",
            ])
    }

    @Test(arguments: [
        (
            "{\"id\":\"u\",\"author\":{\"role\":\"user\"},\"content\":{\"content_type\":\"text\",\"parts\":[\"hi\"]},\"weight\":0}",
            false
        ),
        (
            "{\"id\":\"u\",\"author\":{\"role\":\"user\"},\"content\":{\"content_type\":\"text\",\"parts\":[\"\",\"  \"]}}",
            false
        ),
        (
            "{\"id\":\"u\",\"author\":{\"role\":\"system\"},\"content\":{\"content_type\":\"text\",\"parts\":[\"x\"]}}",
            false
        ),
        (
            "{\"id\":\"u\",\"author\":{\"role\":\"user\"},\"content\":{\"content_type\":\"text\",\"parts\":[\"hi\"]},\"weight\":1.0}",
            true
        ),
        ("null", false),
    ])
    func whatTheAppHidesIsSkipped(json: String, visible: Bool) throws {
        var reader = ChatGPTMessage(images: ChatGPTImages(assets: nil, created: Timestamp(milliseconds: 0)))
        let reading = JSONTape(try JSONParser.parse(json)).withRoots { reader.read($0[0]) }
        if case .visible = reading { #expect(visible) } else { #expect(!visible) }
    }
}

@Suite("Import: ChatGPT pictures")
struct ImportChatGPTPictureTests {
    @Test func picturesInTheExportBecomeImageRecordsLinkedFromTheChat() throws {
        let (_, batch) = try ImportFixture.batch(nil, "chatgpt-images")
        let images = batch.items.compactMap { item -> ImageBody? in
            if case .image(let b) = item.item.body { b } else { nil }
        }
        // The photo (sent twice, once under user-…/) is one record; the DALL·E picture keeps its prompt.
        #expect(images.map(\.mediaType) == ["image/png", "image/gif"])
        // Titles: the prompt, else the file name without the export's `file-<id>-` prefix.
        #expect(images.map(\.title) == ["photo.png", "a red fox, watercolor"])
        #expect(images.map(\.model) == [nil, "dall-e-3"])
        #expect(images[1].prompt == "a red fox, watercolor")
        #expect(
            batch.items.map(\.item.imageFile).compactMap { $0 }.allSatisfy {
                $0.hasPrefix(ImportFixture.path("chatgpt-images"))
            })
        let (item, chat) = try ImportFixture.chat(batch, titled: "Pictures")
        let photo = batch.items[0].item.id
        let fox = batch.items[1].item.id
        #expect(
            chat.messages[0].text
                == "[image: \(photo)]\n\nDraw a fox like this.\n\n[image: file-service://file-gone]\n\n[image: file-service://file-doc1]"
        )
        #expect(chat.messages[2].text == "[DALL·E output]\n[image: \(fox)]")
        #expect(
            chat.messages[3].text
                == "[image: \(photo)]\n\n[image: file-service://../../etc/passwd]\n\nSame photo again.")
        #expect(item.notes[ChatGPTImages.missingNote] == 2 && item.notes[ChatGPTImages.notImageNote] == 1)
    }

    @Test func datFilesAreFoundByIdOrByTheExportsListOfNames() throws {
        let (_, batch) = try ImportFixture.batch(.chatgpt, "chatgpt-dat")
        let images = batch.items.compactMap { item -> ImageBody? in
            if case .image(let b) = item.item.body { b } else { nil }
        }
        // `file-dat1.dat` by its id; `upload-0002.dat` only through the list; the type from the bytes.
        #expect(images.map(\.mediaType) == ["image/png", "image/gif"])
        #expect(images.map(\.title) == ["file-dat1.dat", "upload-0002.dat"])
        let (item, chat) = try ImportFixture.chat(batch, titled: "Dat files")
        // A listed name outside the export's own files is never read.
        #expect(chat.messages[0].text.contains("[image: file-service://file-evil]"))
        #expect(item.notes[ChatGPTImages.missingNote] == 1)
        #expect(
            batch.items.allSatisfy { $0.item.imageFile.map { $0.hasPrefix(ImportFixture.path("chatgpt-dat")) } ?? true }
        )
    }

    @Test func aSymbolicLinkInTheExportIsNeverFollowed() throws {
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        try FileManager.default.copyItem(atPath: ImportFixture.path("chatgpt-images"), toPath: "\(dir)/export")
        try FileManager.default.removeItem(atPath: "\(dir)/export/file-img1-photo.png")
        try FileManager.default.createSymbolicLink(
            atPath: "\(dir)/export/file-img1-photo.png",
            withDestinationPath: ImportFixture.path("chatgpt-images/file-img1-photo.png"))
        let (_, batch) = try Import.parse(.chatgpt, path: "\(dir)/export", now: ImportFixture.now)
        let (item, chat) = try ImportFixture.chat(batch, titled: "Pictures")
        #expect(chat.messages[0].text.hasPrefix("[image: file-service://file-img1]"))
        #expect(item.notes[ChatGPTImages.missingNote] == 3)
        #expect(batch.items.allSatisfy { $0.item.imageFile?.contains("file-img1") != true })
    }

    @Test func importedPicturesAreStoredOnce() async throws {
        let (store, dir) = try ImportFixture.store()
        defer { CLIHarness.removeTree(dir) }
        let first = try await Import.run(
            nil, path: ImportFixture.path("chatgpt-images/conversations.json"), into: store)
        #expect(first.created == 3)
        #expect(try await store.list(kind: .image).count == 2)
        let saved = "\(dir)/fox.gif"
        try await store.saveImage(first.records[1].id, to: saved)
        #expect(try FileIO.read(saved) == Array(CLIFixtures.gif.bytes))
        let again = try await Import.run(nil, path: ImportFixture.path("chatgpt-images"), into: store)
        #expect(again.unchanged == 3)
    }

    @Test(
        arguments: [
            ("file-service://file-abc", "file-abc"), ("sediment://file_0001", "file_0001"), ("https://x/file-abc", nil),
            ("file-service://../x", nil), ("file-service://", nil), ("file-service://a/b", nil),
        ] as [(String, String?)])
    func pointerFileIDs(pointer: String, id: String?) {
        #expect(ChatGPTAssets.fileID(pointer) == id)
    }
}

@Suite("Import: into a store")
struct ImportStoreTests {
    @Test func importingTwiceAddsNothing() async throws {
        let (store, dir) = try ImportFixture.store()
        defer { CLIHarness.removeTree(dir) }
        let first = try await Import.run(.chatgpt, path: ImportFixture.path("chatgpt"), into: store)
        #expect(first.created == 4 && first.elementsAdded == 18 && first.skipped.count == 1)
        let journal = try FileIO.read("\(dir)/store/journal.jsonl")
        let second = try await Import.run(nil, path: ImportFixture.path("chatgpt"), into: store)
        #expect(second.created == 0 && second.extended == 0 && second.unchanged == 4 && second.elementsAdded == 0)
        #expect(try FileIO.read("\(dir)/store/journal.jsonl") == journal, "a re-import must not write")
    }

    @Test func aNewerExportAddsOnlyTheNewMessages() async throws {
        let (store, dir) = try ImportFixture.store()
        defer { CLIHarness.removeTree(dir) }
        _ = try await Import.run(.chatgpt, path: ImportFixture.path("chatgpt"), into: store)
        let newer = try await Import.run(.chatgpt, path: ImportFixture.path("chatgpt-newer"), into: store)
        #expect(newer.created == 1 && newer.extended == 1 && newer.unchanged == 3 && newer.elementsAdded == 4)
        let lisbonID = ImportIDs.record(.chat, key: "chatgpt:c0ffee00-0000-4000-8000-00000000000a")
        guard case .chat(let lisbon)? = try await store.record(lisbonID).body else {
            Issue.record("no chat")
            return
        }
        #expect(lisbon.messages.count == 11)
        #expect(lisbon.messages.suffix(2).map(\.text) == ["And for dinner?", "Try a tasca in Alfama."])
        #expect(try await store.conflictCount() == 0, "new messages are adds, not conflicts")
        // The version that extended it carries just the two adds.
        let history = try await store.history(lisbonID)
        #expect(
            history.count == 2 && history.contains { $0.changeSummary == "+2 messages" },
            "\(history.map(\.changeSummary))")
    }

    @Test func whatTheUserRemovedOrDeletedStaysThatWay() async throws {
        let (store, dir) = try ImportFixture.store()
        defer { CLIHarness.removeTree(dir) }
        _ = try await Import.run(.chatgpt, path: ImportFixture.path("chatgpt"), into: store)
        let lisbonID = ImportIDs.record(.chat, key: "chatgpt:c0ffee00-0000-4000-8000-00000000000a")
        guard case .chat(let lisbon)? = try await store.record(lisbonID).body else {
            Issue.record("no chat")
            return
        }
        try await store.removeMessage(lisbonID, message: lisbon.messages[0].id)
        try await store.rename(lisbonID, to: "My Lisbon")
        let brokenID = ImportIDs.record(.chat, key: "chatgpt:broken-1")
        try await store.delete(brokenID)
        let again = try await Import.run(.chatgpt, path: ImportFixture.path("chatgpt"), into: store)
        #expect(again.records.first { $0.id == lisbonID }?.outcome == .unchanged)
        #expect(again.records.first { $0.id == brokenID }?.outcome == .deleted)
        guard case .chat(let after)? = try await store.record(lisbonID).body else {
            Issue.record("no chat")
            return
        }
        #expect(after.messages.count == lisbon.messages.count - 1 && after.title == "My Lisbon")
    }

    @Test func aDryRunWritesNothing() async throws {
        let (store, dir) = try ImportFixture.store()
        defer { CLIHarness.removeTree(dir) }
        let dry = try await Import.run(
            nil, path: ImportFixture.path("dalle/response.json"), into: store, options: Import.Options(dryRun: true))
        #expect(dry.dryRun && dry.created == 1)
        #expect(try await store.list().isEmpty)
        #expect(try FileIO.read("\(dir)/store/journal.jsonl").isEmpty)
    }

    @Test func dalleImagesAreDecodedIntoImageRecords() async throws {
        let (store, dir) = try ImportFixture.store()
        defer { CLIHarness.removeTree(dir) }
        let options = Import.Options(prompt: "a red square", model: "dall-e-3")
        let summary = try await Import.run(
            nil, path: ImportFixture.path("dalle/response.json"), into: store, options: options)
        #expect(summary.source == .dalle && summary.created == 1)
        #expect(summary.notes.count == 1 && summary.notes[0].contains("1 image URL(s) not fetched"))
        let id = try #require(summary.records.first?.id)
        guard case .image(let image)? = try await store.record(id).body else {
            Issue.record("no image")
            return
        }
        #expect(
            image.mediaType == "image/png" && image.width == 3 && image.height == 2
                && image.size == Int64(CLIFixtures.png.bytes.count))
        #expect(image.prompt == "a red square" && image.model == "dall-e-3")
        #expect(image.created == Timestamp(milliseconds: 1_700_000_000_000))
        let saved = "\(dir)/saved.png"
        try await store.saveImage(id, to: saved)
        #expect(try FileIO.read(saved) == Array(CLIFixtures.png.bytes))
        let again = try await Import.run(
            .dalle, path: ImportFixture.path("dalle/response.json"), into: store, options: options)
        #expect(again.unchanged == 1 && again.created == 0)
    }
}

@Suite("Import: Claude, storybooks, helpers")
struct ImportOtherSourcesTests {
    @Test func claudeBlocksBecomeText() throws {
        let (source, batch) = try ImportFixture.batch(nil, "claude")
        #expect(source == .claude)
        let (item, fox) = try ImportFixture.chat(batch, titled: "Fox facts")
        #expect(fox.messages.map(\.role) == [.user, .assistant, .user])
        #expect(
            fox.messages.map(\.text) == [
                "Tell me about foxes.\n\n[attachment: notes.txt]\nFoxes eat berries.",
                "[tool call: web_search]\nquery: fox facts\n\n[tool output: web_search]\nFoxes are canids.\n\nFoxes are small canids.\n\n[content type future_block]",
                "Thanks!",
            ])
        #expect(fox.created == Timestamp(iso8601: "2024-03-01T12:00:00.123Z"))
        #expect(fox.messages[1].time == Timestamp(iso8601: "2024-03-01T12:00:02.000Z"), "+02:00 is read as an offset")
        #expect(item.notes[ChatGPTImporter.reasoningLeftOut] == 1 && item.notes[ClaudeImporter.rawNote] == 1)
        #expect(item.notes[ChatGPTMessage.emptyReason] == 1 && item.notes[ClaudeImporter.filesNote] == 1)
        #expect(try ImportFixture.chat(batch, titled: "Untitled chat").body.messages.isEmpty)
    }

    @Test func storySentencesArePairedTwoPerPage() throws {
        let (source, batch) = try ImportFixture.batch(nil, "storybook/story.json")
        #expect(source == .storybook)
        guard case .story(let story)? = batch.items.first?.item.body else {
            Issue.record("no story")
            return
        }
        #expect(story.title == "The Brave Little Fox" && story.moral == "Courage grows when shared.")
        #expect(
            story.pages.map(\.text) == [
                "A little fox lived in the woods. She was afraid of the dark.",
                "One night an owl came by. Together they watched the stars.",
                "She was never afraid again.",
            ])
        #expect(story.pages.map(\.position) == [1, 2, 3])
        #expect(story.prompts.count == 2)
        #expect(story.created == ImportFixture.now)
    }

    @Test(arguments: [
        ("", [UInt8]()), ("Zg==", Array("f".utf8)), ("Zm8=", Array("fo".utf8)), ("Zm9v", Array("foo".utf8)),
        ("Zm9vYg", Array("foob".utf8)), ("Zm9vYmE=", Array("fooba".utf8)), ("Zm9v\nYmFy", Array("foobar".utf8)),
    ])
    func base64MatchesRFC4648(text: String, bytes: [UInt8]) {
        #expect(Base64.decode(text) == bytes)
    }

    @Test(arguments: ["Zm9v!", "Z", "Zg==Zg==", "Zg==="])
    func badBase64IsRefused(text: String) {
        #expect(Base64.decode(text) == nil)
    }

    @Test(arguments: [
        ("2024-03-01T12:00:00Z", "2024-03-01T12:00:00.000Z"),
        ("2024-03-01T12:00:00.123456Z", "2024-03-01T12:00:00.123Z"),
        ("2024-03-01T14:00:00.5+02:00", "2024-03-01T12:00:00.500Z"),
        ("2024-03-01T07:30:00-04:30", "2024-03-01T12:00:00.000Z"),
        ("2024-03-01 12:00:00", "2024-03-01T12:00:00.000Z"),
    ])
    func isoTimesAreReadLeniently(text: String, expected: String) {
        #expect(ImportTime.parse(text) == Timestamp(iso8601: expected))
    }

    @Test(arguments: ["", "yesterday", "2024-13-01T12:00:00Z", "2024-03-01T12:00:00+2"])
    func badTimesAreNil(text: String) {
        #expect(ImportTime.parse(text) == nil)
    }
}

@Suite("Import: bad input")
struct ImportBadInputTests {
    @Test(
        arguments: [
            (nil, "bad/not-an-export.json", AISyncError.Code.damagedData, "is not an export this version knows"),
            (nil, "bad/truncated.json", .damagedData, "is not valid JSON"),
            (nil, "bad/wrong-types.json", .damagedData, "nothing in"),
            (Import.Source.claude, "chatgpt/conversations.json", .damagedData, "nothing in"),
            (Import.Source.chatgpt, "storybook/story.json", .damagedData, "is not a ChatGPT export"),
            (Import.Source.dalle, "claude/conversations.json", .damagedData, "is not an Images API response"),
            (nil, "missing.json", .notFound, "no such file or folder"),
        ] as [(Import.Source?, String, AISyncError.Code, String)])
    func badInputIsOneClearError(source: Import.Source?, name: String, code: AISyncError.Code, message: String) throws {
        do {
            _ = try ImportFixture.batch(source, name)
            Issue.record("\(name) was accepted")
        } catch {
            #expect(error.code == code && error.message.contains(message), "\(error)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func deepNestingAndZipsAreRefused() throws {
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        let deep = "\(dir)/deep.json"
        _ = FileManager.default.createFile(atPath: deep, contents: Data(String(repeating: "[", count: 100_000).utf8))
        #expect(throws: AISyncError.self) { try Import.parse(nil, path: deep, now: ImportFixture.now) }
        do { _ = try Import.parse(nil, path: deep, now: ImportFixture.now) } catch {
            #expect(error.code == .damagedData && error.description.contains("nesting too deep"), "\(error)")
        }
        let zip = "\(dir)/export.zip"
        _ = FileManager.default.createFile(atPath: zip, contents: Data([0x50, 0x4B, 3, 4]))
        do {
            _ = try Import.parse(nil, path: zip, now: ImportFixture.now)
            Issue.record("zip accepted")
        } catch {
            #expect(
                error.code == .damagedData && error.message.contains("is not a zip archive this version can read"),
                "\(error)"
            )
        }
    }

    @Test func aFailedImportWritesNothing() async throws {
        let (store, dir) = try ImportFixture.store()
        defer { CLIHarness.removeTree(dir) }
        await #expect(throws: AISyncError.self) {
            try await Import.run(nil, path: ImportFixture.path("bad/wrong-types.json"), into: store)
        }
        #expect(try FileIO.read("\(dir)/store/journal.jsonl").isEmpty)
    }
}
