import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncImport

// A ChatGPT export read straight from its zip (Tests/Fixtures/import/chatgpt-export.zip, made
// by Python's zipfile: DEFLATE and stored entries, and one entry named ../../…), and the
// DEFLATE decoder and CRC-32 underneath.

@Suite("Import: zip")
struct ImportZipTests {
    @Test func aZippedExportImportsLikeTheFolder() async throws {
        let (source, batch) = try ImportFixture.batch(nil, "chatgpt-export.zip")
        #expect(source == .chatgpt)
        let (_, folder) = try ImportFixture.batch(nil, "chatgpt-images")
        #expect(batch.items.map(\.item.id) == folder.items.map(\.item.id), "same pictures, same chat, same ids")
        #expect(batch.items.prefix(2).allSatisfy { $0.item.imageBytes != nil && $0.item.imageFile == nil })
        let (item, chat) = try ImportFixture.chat(batch, titled: "Pictures")
        #expect(
            chat.messages[0].text.hasSuffix("[image: file-service://file-doc1]"), "the ../../ entry is never matched")
        #expect(item.notes[ChatGPTImages.missingNote] == 3)

        let (store, dir) = try ImportFixture.store()
        defer { CLIHarness.removeTree(dir) }
        let zipped = try await Import.run(nil, path: ImportFixture.path("chatgpt-export.zip"), into: store)
        #expect(zipped.created == 3)
        let saved = "\(dir)/fox.gif"
        try await store.saveImage(zipped.records[1].id, to: saved)
        #expect(try FileIO.read(saved) == Array(CLIFixtures.gif.bytes))
        let unzipped = try await Import.run(nil, path: ImportFixture.path("chatgpt-images"), into: store)
        #expect(unzipped.unchanged == 3)
    }

    @Test func aTruncatedZipIsOneClearError() throws {
        do {
            _ = try ImportFixture.batch(nil, "bad/truncated.zip")
            Issue.record("accepted")
        } catch {
            #expect(
                error.code == .damagedData && error.message.contains("is not a zip archive this version can read"),
                "\(error)"
            )
        }
    }

    @Test func inflateReadsStoredBlocksAndRefusesBadData() throws {
        // One final stored block holding "hi".
        #expect(try Inflate.decompress([0x01, 0x02, 0x00, 0xFD, 0xFF, 0x68, 0x69], limit: 10) == Array("hi".utf8))
        #expect(throws: Inflate.Failure.self) {
            try Inflate.decompress([0x01, 0x02, 0x00, 0xFD, 0xFF, 0x68, 0x69], limit: 1)
        }
        #expect(throws: Inflate.Failure.self) { try Inflate.decompress([0x07], limit: 10) }
        #expect(throws: Inflate.Failure.self) { try Inflate.decompress([0x01, 0x02, 0x00, 0x00, 0x00], limit: 10) }
        #expect(throws: Inflate.Failure.self) { try Inflate.decompress([], limit: 10) }
    }

    @Test func crc32MatchesTheCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
    }
}
