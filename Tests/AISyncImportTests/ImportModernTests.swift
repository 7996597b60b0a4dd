import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncImport
@testable import AISyncStore

// Issue 26: exports as the apps write them in 2024-2026 (reasoning, tools, voice, canvas,
// custom instructions, DALL·E prompts), single saved conversations, Claude branches, and the
// dates and picture titles people see. Fixtures: make-fixtures.py (chatgpt-2026,
// chatgpt-single, claude-branches, claude-single).

/// Whether text looks like a JSON object or array dumped into a transcript.
func looksLikeJSON(_ text: String) -> Bool {
    text.contains("{\"") || text.contains("\":") || text.contains("[{") || text.contains("content_type")
}

@Suite("Import: ChatGPT exports from 2024-2026")
struct ImportModernChatGPTTests {
    func modern(_ options: Import.Options = Import.Options()) throws -> (ImportBatch.Item, ChatBody, ImportBatch) {
        let (_, batch) = try ImportFixture.batch(nil, "chatgpt-2026", options: options)
        let (item, chat) = try ImportFixture.chat(batch, titled: "Voice, tools and a fox")
        return (item, chat, batch)
    }

    @Test func customInstructionsAreKeptWithTheChatNotInItsTranscript() throws {
        let (item, chat, _) = try modern()
        #expect(chat.instructions == "I am a biologist in Porto.\n\nAnswer in metric units.")
        #expect(!chat.messages.contains { $0.text.contains("biologist") })
        #expect(item.notes[ChatGPTImporter.instructionsNote] == 1)
        // 2023 exports: a hidden system message with metadata.user_context_message_data.
        let (_, _, batch) = try modern()
        let (_, older) = try ImportFixture.chat(batch, titled: "An older chat")
        #expect(older.instructions == "I live in Lisbon.\n\nBe playful.")
        #expect(older.messages.map(\.text) == ["Hello from December.", "Hello!"])
    }

    @Test func everyContentTypeReadsAsTextNeverAsJSON() throws {
        let (item, chat, batch) = try modern()
        let texts = chat.messages.map(\.text)
        for text in texts { #expect(!looksLikeJSON(text), "raw JSON in the transcript: \(text)") }
        let fox = try #require(batch.items.first { $0.item.body.kind == .image }?.item.id)
        #expect(
            texts == [
                "How fast can a red fox run?",
                "About fifty kilometres an hour.",
                "[tool call: web.run]\nsearch_query:\n  -\n    q: red fox top speed\n    recency: 30",
                "[web page: Red fox, https://example.org/fox]\nThe red fox can run at 50 km/h.",
                "[quote]\n> Foxes are fast.\n— Red fox, https://example.org/fox",
                "[tool error (tool_error)]\nError: the page could not be opened.",
                "A red fox runs at up to 50 km/h.",
                "Draw one running.",
                "[DALL·E request]\nprompt: a red fox running through snow, watercolor\nsize: 1024x1024",
                "[DALL·E output]\n[image: \(fox)]",
                "[canvas: fox_notes]\n# Fox notes\nTop speed: 50 km/h.",
                "[canvas update]\n# Fox notes\nTop speed: 50 km/h; they hunt mice.",
                "[content type future_widget]\nFox map",
                "Here is your fox.",
            ])
        // Voice recordings are not in the export's reach: counted, like missing pictures.
        #expect(item.notes[ChatGPTMessage.audioNote] == 2)
        #expect(item.notes[ChatGPTMessage.unknownNote] == 1)
        #expect(chat.model == "o3")
    }

    /// Tools as 2023-2024 exports write them (`chatgpt-tools`): code for the python tool and
    /// its output, searches by the browsing tool in its own call syntax and as JSON arguments,
    /// the page it showed, a canvas document of code and comments on it.
    @Test func toolCallsAndTheirOutputsReadAsWhatTheyAre() throws {
        let (_, batch) = try ImportFixture.batch(nil, "chatgpt-tools")
        let (item, chat) = try ImportFixture.chat(batch, titled: "Code, search and a canvas")
        #expect(
            chat.messages.map(\.text) == [
                "How fast is a red fox in metres per second?",
                "[code: python]\n```python\nspeed_kmh = 50\nprint(round(speed_kmh / 3.6, 1))\n```",
                "[python output]\n```\n13.9\n```",
                "[tool call: browser]\nsearch(\"red fox top speed source\")",
                "[web browsing output]\n# 【0†Red fox†example.org】\nThe red fox reaches 50 km/h.",
                "[tool call: browser.search]\nquery: red fox sprint distance\nrecency_days: 365",
                "[canvas: fox_speed]\n```python\ndef metres_per_second(kmh):\n    return kmh / 3.6\n```",
                "[canvas comments]\n- Name this constant.",
                "About 13.9 m/s.",
            ])
        #expect(chat.messages.map(\.role) == [.user] + Array(repeating: .assistant, count: 8))
        for message in chat.messages { #expect(!looksLikeJSON(message.text), "raw JSON: \(message.text)") }
        #expect(item.notes[ChatGPTMessage.unknownNote] == nil, "every content type here is known")
    }

    @Test func reasoningIsLeftOutAndCountedUnlessAskedFor() throws {
        let (item, chat, _) = try modern()
        #expect(chat.messages.allSatisfy { $0.reasoning == nil })
        #expect(!chat.messages.contains { $0.text.contains("Thought for") || $0.text.contains("50 km/h in short") })
        #expect(item.notes[ChatGPTImporter.reasoningLeftOut] == 2)

        let (kept, withReasoning, _) = try modern(Import.Options(withReasoning: true))
        #expect(kept.notes[ChatGPTImporter.reasoningKept] == 2 && kept.notes[ChatGPTImporter.reasoningLeftOut] == nil)
        // The reasoning goes with the assistant message that follows it (the tool call here),
        // never into any message's text.
        let with = withReasoning.messages.filter { $0.reasoning != nil }
        #expect(with.count == 1)
        #expect(
            with.first?.reasoning
                == "Checking sources\nRed foxes reach 50 km/h in short bursts.\n\nThought for 8 seconds")
        #expect(with.first?.role == .assistant)
        #expect(withReasoning.messages.map(\.text) == chat.messages.map(\.text))
    }

    @Test func dallePicturesCarryTheirPromptModelAndAReadableTitle() throws {
        let (_, _, batch) = try modern()
        let images = batch.items.compactMap { item -> ImageBody? in
            if case .image(let b) = item.item.body { b } else { nil }
        }
        #expect(images.count == 1)
        let fox = try #require(images.first)
        // The picture's own metadata.dalle.prompt (what DALL·E drew) wins over the request's.
        #expect(fox.prompt == "A red fox running through deep snow, watercolor")
        #expect(fox.model == "dall-e-3")
        #expect(fox.title == "A red fox running through deep snow, watercolor")
        #expect(fox.created == Timestamp(milliseconds: 1_767_225_642_000), "the time of the message that showed it")
    }

    @Test func aRequestsPromptIsUsedWhenThePictureHasNone() throws {
        var reader = ChatGPTMessage(
            images: ChatGPTImages(
                assets: ChatGPTAssets(folder: ImportFixture.path("chatgpt-2026")), created: Timestamp(milliseconds: 0)))
        let call = try JSONParser.parse(
            Array(
                #"{"author":{"role":"assistant"},"recipient":"dalle.text2im","content":{"content_type":"code","text":"{\"prompt\":\"a fox\"}"}}"#
                    .utf8))
        let answer = try JSONParser.parse(
            Array(
                #"{"author":{"role":"tool","name":"dalle.text2im"},"content":{"content_type":"multimodal_text","parts":[{"content_type":"image_asset_pointer","asset_pointer":"sediment://file_00000000a1b2c3d4"}]}}"#
                    .utf8))
        let upload = try JSONParser.parse(
            Array(
                #"{"author":{"role":"user"},"content":{"content_type":"multimodal_text","parts":[{"content_type":"image_asset_pointer","asset_pointer":"sediment://file_00000000a1b2c3d4"}]}}"#
                    .utf8))
        JSONTape(call).withRoots { _ = reader.read($0[0]) }
        JSONTape(answer).withRoots { _ = reader.read($0[0]) }
        #expect(reader.images.found.first?.body.prompt == "a fox")
        #expect(reader.images.found.first?.body.model == "dall-e-3")
        // A picture the user sends is no DALL·E picture, whatever was requested before.
        var uploads = ChatGPTMessage(
            images: ChatGPTImages(
                assets: ChatGPTAssets(folder: ImportFixture.path("chatgpt-2026")), created: Timestamp(milliseconds: 0)))
        JSONTape(call).withRoots { _ = uploads.read($0[0]) }
        JSONTape(upload).withRoots { _ = uploads.read($0[0]) }
        #expect(uploads.images.found.first?.body.prompt == nil && uploads.images.found.first?.body.model == nil)
        #expect(
            uploads.images.found.first?.body.title == "5f6e7d8c-0000-4000-8000-000000000001.png",
            "the file name without the export's file_<id>- prefix")
    }

    @Test func updatedIsTheSourcesLastActivity() throws {
        let (item, chat, batch) = try modern()
        #expect(chat.created == Timestamp(milliseconds: 1_767_225_600_000))
        #expect(chat.updated == Timestamp(milliseconds: 1_767_229_200_000), "update_time, later than the last message")
        #expect(item.item.activity == chat.updated)
        let (older, _) = try ImportFixture.chat(batch, titled: "An older chat")
        #expect(older.item.activity == Timestamp(milliseconds: (1_767_225_600 - 86400 * 29) * 1000))
    }

    @Test func aSingleSavedConversationImportsLikeAOneElementExport() throws {
        let (source, batch) = try ImportFixture.batch(nil, "chatgpt-single/conversation.json")
        #expect(source == .chatgpt)
        let (_, single) = try ImportFixture.chat(batch, titled: "Lisbon trip")
        let (_, full) = try ImportFixture.batch(nil, "chatgpt")
        let (_, fromList) = try ImportFixture.chat(full, titled: "Lisbon trip")
        #expect(single == fromList)
        #expect(batch.items.map(\.item.id) == [full.items[0].item.id])
    }
}

@Suite("Import: Claude branches, reasoning and single conversations")
struct ImportModernClaudeTests {
    @Test func theMainPathIsTheTranscriptAndOtherBranchesAreAlternatives() throws {
        let (source, batch) = try ImportFixture.batch(nil, "claude-branches")
        #expect(source == .claude)
        let (item, chat) = try ImportFixture.chat(batch, titled: "Branching")
        #expect(
            chat.messages.map(\.text) == [
                "Write a haiku about foxes.", "Red fox in the snow", "Another?",
                "[artifact: Fox haiku]\nQuiet paws on frost",
                "Lovely.",
            ])
        #expect(chat.alternatives.map(\.text) == ["An answer on another branch.", "A first retry."])
        let key = "claude:5e1f0000-0000-4000-8000-0000000000b1"
        #expect(
            chat.alternatives.map(\.branch?.after) == [
                ImportIDs.element("m", key: key, source: "m1"), ImportIDs.element("m", key: key, source: "m3"),
            ])
        #expect(item.notes[ChatGPTImporter.otherBranches] == 2)
        #expect(item.notes[ChatGPTImporter.reasoningLeftOut] == 1)
        #expect(chat.updated == Timestamp(iso8601: "2025-06-01T09:30:00.000Z"))
        for m in chat.messages + chat.alternatives { #expect(!looksLikeJSON(m.text)) }
    }

    @Test func thinkingIsKeptWithItsMessageWhenAskedFor() throws {
        let (_, batch) = try ImportFixture.batch(
            nil, "claude-branches", options: Import.Options(withReasoning: true))
        let (item, chat) = try ImportFixture.chat(batch, titled: "Branching")
        #expect(chat.messages[1].reasoning == "Five, seven, five syllables.")
        #expect(chat.messages[1].text == "Red fox in the snow")
        #expect(item.notes[ChatGPTImporter.reasoningKept] == 1)
    }

    @Test func anExportWithoutParentsKeepsItsOrder() throws {
        let (_, batch) = try ImportFixture.batch(nil, "claude")
        let (_, fox) = try ImportFixture.chat(batch, titled: "Fox facts")
        #expect(fox.messages.count == 3 && fox.alternatives.isEmpty)
    }

    @Test func aSingleSavedConversationImportsLikeAOneElementExport() throws {
        let (source, batch) = try ImportFixture.batch(nil, "claude-single/conversation.json")
        #expect(source == .claude)
        let (_, full) = try ImportFixture.batch(nil, "claude")
        #expect(
            try ImportFixture.chat(batch, titled: "Fox facts").body
                == ImportFixture.chat(full, titled: "Fox facts").body)
    }
}

@Suite("Import: the store keeps the source's dates")
struct ImportActivityTests {
    @Test func listOrderAndUpdatedFollowTheSourceNotTheMomentOfImport() async throws {
        let (store, dir) = try ImportFixture.store()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try await Import.run(nil, path: ImportFixture.path("chatgpt-2026"), into: store)
        let summaries = try await store.list()
        let chats = summaries.filter { $0.kind == .chat }
        // Newest activity first, as the app listed them; dated 2026-01-01 and 2025-12-03, not today.
        #expect(chats.map(\.title) == ["Voice, tools and a fox", "An older chat"])
        #expect(
            chats.map(\.updated) == [
                Timestamp(milliseconds: 1_767_229_200_000), Timestamp(milliseconds: 1_764_720_000_000),
            ])
        let id = try #require(chats.first?.id)
        guard case .chat(let body)? = try await store.record(id).body else { throw AISyncError(.other, "not a chat") }
        #expect(body.updated == Timestamp(milliseconds: 1_767_229_200_000))
        #expect(body.instructions == "I am a biologist in Porto.\n\nAnswer in metric units.")
        // A change made here is newer than anything imported: the chat moves up and says so.
        _ = try await store.rename(chats[1].id, to: "Renamed")
        let after = try await store.list().filter { $0.kind == .chat }
        #expect(after.first?.title == "Renamed")
        #expect(after.first.map { $0.updated.milliseconds > 1_767_229_200_000 } == true)
    }

    @Test func importingAgainGivesAnOlderImportItsInstructions() async throws {
        let (store, dir) = try ImportFixture.store()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (_, batch) = try ImportFixture.batch(nil, "chatgpt-2026")
        let (item, chat) = try ImportFixture.chat(batch, titled: "Voice, tools and a fox")
        // As an aisync before issue 26 imported it: no instructions.
        var bare = chat
        bare.instructions = nil
        _ = try await store.importRecords([Store.ImportItem(id: item.item.id, body: .chat(bare))])
        let outcomes = try await store.importRecords([item.item])
        #expect(outcomes == [.extended(elements: 0)])
        guard case .chat(let body)? = try await store.record(item.item.id).body else { throw AISyncError(.other, "") }
        #expect(body.instructions == chat.instructions && body.messages == chat.messages)
        #expect(try await store.importRecords([item.item]) == [.unchanged])
        // An export without instructions leaves them be.
        _ = try await store.importRecords([Store.ImportItem(id: item.item.id, body: .chat(bare))])
        guard case .chat(let again)? = try await store.record(item.item.id).body else { throw AISyncError(.other, "") }
        #expect(again.instructions == chat.instructions)
    }
}
