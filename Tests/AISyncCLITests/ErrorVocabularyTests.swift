import AISyncTestSupport
import AISyncTesting
import Foundation
import Testing

@testable import AISyncCLI
@testable import AISyncCore
@testable import AISyncRemote
@testable import AISyncStore
@testable import AISyncSync

/// The library's errors speak to any front end: no `aisync` command, no `--flag`, no
/// backquoted command in a hint; the remedy carries the data, and the CLI alone turns it into
/// a command to type.
@Suite struct ErrorVocabularyTests {
    /// Fails unless the library's words are front-end neutral (not even the product's name,
    /// outside the `paths` the message quotes), and the CLI's words for its remedy name a command.
    static func expectNeutral(
        _ error: AISyncError, remedy: AISyncError.Remedy, cliMentions: String,
        paths: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(error.remedy == remedy, "\(error)", sourceLocation: sourceLocation)
        let hint = error.hint ?? ""
        let description = paths.reduce(error.description) { $0.replacingOccurrences(of: $1, with: "PATH") }
        for word in ["aisync", "--", "`"] {
            #expect(!hint.contains(word), "the hint speaks CLI: \(hint)", sourceLocation: sourceLocation)
            #expect(
                !description.contains(word), "the description speaks CLI: \(description)",
                sourceLocation: sourceLocation)
        }
        let cli = ErrorText.line(error)
        #expect(
            cli.contains(cliMentions) && cli.hasPrefix(error.message), "the CLI's words: \(cli)",
            sourceLocation: sourceLocation)
    }

    @Test func storeErrorsAreNeutralAndTheCLINamesTheCommand() async throws {
        let dir = Scratch.makeDirectory("error-words")
        defer { Scratch.removeDirectory(dir) }
        let missing = try #require(throws: AISyncError.self) { try Store.open(at: "\(dir)/none") }
        Self.expectNeutral(
            missing, remedy: .initStore, cliMentions: "Run `aisync init` to create one", paths: [dir])
        let store = try Scratch.makeStore(in: dir, "a")
        let chat = try await store.createChat(title: "chat", model: nil)
        let renamed = try await store.rename(chat, to: "renamed")
        let noConflict = await #expect(throws: AISyncError.self) {
            _ = try await store.resolve(chat, field: "title", valueOf: renamed.id.hex)
        }
        if let noConflict {
            Self.expectNeutral(noConflict, remedy: .listConflicts(chat), cliMentions: "`aisync conflicts \(chat)`")
        }
        let notImage = await #expect(throws: AISyncError.self) { _ = try await store.imageBody(chat) }
        if let notImage { Self.expectNeutral(notImage, remedy: .listImages, cliMentions: "`aisync list --kind image`") }
    }

    @Test func remoteErrorsAreNeutralAndTheCLINamesTheFlag() async throws {
        let insecure = try #require(throws: AISyncError.self) {
            try RemoteLocation(url: "http://example.com/dav", plain: false, insecure: false)
        }
        Self.expectNeutral(insecure, remedy: .allowInsecureHTTP, cliMentions: "pass --insecure")
        let folderPlain = try #require(throws: AISyncError.self) {
            try RemoteLocation(url: "file:///tmp/x", plain: true, insecure: false)
        }
        #expect(!folderPlain.description.contains("--"), "\(folderPlain)")
        let source = RemoteEncryption.source(environment: [:])
        let noPassphrase = await #expect(throws: AISyncError.self) { _ = try await source(.unlock(remote: "origin")) }
        if let noPassphrase {
            Self.expectNeutral(
                noPassphrase, remedy: .providePassphrase(remote: "origin", new: false),
                cliMentions: "Set AISYNC_PASSPHRASE")
        }
    }

    /// Deleting 60 of 60 pushed records is refused with the count in the remedy.
    @Test func massDeleteIsNeutralAndTheCLINamesTheFlag() async throws {
        let dir = Scratch.makeDirectory("error-words-mass")
        defer { Scratch.removeDirectory(dir) }
        let store = try Scratch.makeStore(in: dir, "a")
        var ids: [RecordID] = []
        for i in 0..<60 { ids.append(try await store.createChat(title: "chat \(i)", model: nil)) }
        let remote = InMemoryRemote()
        _ = try await Scratch.engine(store, remote).push()
        for id in ids { _ = try await store.delete(id) }
        let refused = await #expect(throws: AISyncError.self) {
            _ = try await Scratch.engine(store, remote).push()
        }
        if let refused {
            Self.expectNeutral(refused, remedy: .allowMassDelete(count: 60), cliMentions: "(--allow-mass-delete)")
        }
    }

    /// Every remedy with a command of its own: the CLI's words name it.
    @Test func theCLINamesACommandForEachRemedy() {
        let id = RecordID("c-" + String(repeating: "a", count: 19))!
        let remedies: [AISyncError.Remedy] = [
            .initStore, .useExistingStore, .replaceStoreConfig, .listConflicts(id), .showMessages(id), .listImages,
            .allowReplacing(folder: false), .allowReplacing(folder: true), .giveRemoteURL, .allowInsecureHTTP,
            .addPlainHTTPRemote,
            .allowMassDelete(count: 60), .separateStore, .allowPublicImages, .compactRemote, .replaceRemote("origin"),
            .encryptRemote("origin"), .addEncryptedRemote, .nameImportSource, .listRecords, .restoreRecord(id),
            .useRegion("eu-west-1"),
        ]
        for remedy in remedies {
            let text = ErrorText.hint(for: remedy, libraryHint: nil) ?? ""
            #expect(text.contains("aisync ") || text.contains("--"), "\(remedy): \(text)")
        }
        #expect(
            ErrorText.hint(for: .providePassphrase(remote: "o", new: true), libraryHint: nil)?.contains(
                "AISYNC_NEW_PASSPHRASE") == true)
        #expect(ErrorText.hint(for: .upgrade, libraryHint: "Upgrade to a newer version") == nil)
    }
}
