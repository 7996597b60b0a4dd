import AISync
import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncHTTP
@testable import AISyncImgur
@testable import AISyncRemote
@testable import AISyncStore
@testable import AISyncSync
@testable import AISyncTesting

/// Issue 8, "the CLI holds no policy": what an app gets from the library without the CLI.
/// Errors carry a code, a remedy and (for rate limits) `retryAfter`; `SyncEngine.configured`
/// wires remotes and Imgur from config and environment and reports warnings as values;
/// remotes are checked by the store; secrets are redacted by the model; Imgur's `removed.png`
/// rule is a redirect policy the transport is given.
///
/// Note (Swift 6.3.1 miscompile): no closures inside `#expect` nested in other closures; errors
/// are caught by `failure(_:)` and checked afterwards.
@Suite("AppPolicyTests")
struct AppPolicyTests {
    /// The error `body` throws, or nil when it succeeds.
    static func failure<T>(_ body: () async throws(AISyncError) -> T) async -> AISyncError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Rate limits carry retryAfter

    struct StatusCase: Sendable, CustomTestStringConvertible {
        var status: Int
        var headers: [String: String]
        var code: AISyncError.Code
        var retryAfter: Duration?
        var testDescription: String { "\(status) \(headers)" }
    }

    static let statusCases: [StatusCase] = [
        StatusCase(status: 429, headers: ["retry-after": "120"], code: .temporary, retryAfter: .seconds(120)),
        StatusCase(status: 429, headers: ["retry-after": " 5000 "], code: .temporary, retryAfter: .seconds(5000)),
        StatusCase(status: 429, headers: [:], code: .temporary, retryAfter: nil),
        StatusCase(status: 429, headers: ["retry-after": "99999999999"], code: .temporary, retryAfter: nil),
        StatusCase(
            status: 429, headers: ["retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"], code: .temporary, retryAfter: nil),
        StatusCase(status: 503, headers: ["retry-after": "7"], code: .unavailable, retryAfter: .seconds(7)),
        StatusCase(status: 423, headers: [:], code: .temporary, retryAfter: nil),
    ]

    /// A 429/503 from the in-process server (the scripted transport HTTPRemoteTests use):
    /// the code, the `.retryLater` remedy, and the server's Retry-After as a duration.
    @Test(arguments: statusCases)
    func httpRateLimitCarriesRetryAfter(_ c: StatusCase) async throws {
        let transport = ScriptedTransport([ScriptedRemote.status(c.status, c.headers)])
        let remote = try ScriptedRemote.make(transport, sleeps: SleepRecorder(), maxAttempts: 1)
        let error = await Self.failure { () async throws(AISyncError) in try await remote.read("aisync.json") }
        #expect(error?.code == c.code)
        #expect(error?.remedy == .retryLater)
        #expect(error?.retryAfter == c.retryAfter)
    }

    /// A 429 from the loopback Imgur stand-in, through the live transport: the error says when
    /// the spent budgets reset (the later of the user window, 600 s, and the POST one, 900 s).
    @Test(.tags(.python), .needsPython) func imgurRateLimitCarriesRetryAfter() async throws {
        let imgur = try ImgurStandIn.start(["--user-window", "600", "--post-window", "900"])
        defer { imgur.stop() }
        let dir = Scratch.makeDirectory("imgur-429")
        defer { Scratch.removeDirectory(dir) }
        let png = CLIFixtures.write(CLIFixtures.png, in: dir)
        try imgur.fail(["shape": "rate_limited", "match": "upload", "count": 1])
        let client = ImgurClient(
            apiBase: imgur.url, credential: .clientID(ImgurStandIn.clientID),
            transport: LiveTransport.make(redirects: .imgur))
        var caught: ImgurError?
        do {
            _ = try await client.upload(fileAt: png, mediaType: "image/png", title: nil, description: nil)
        } catch {
            caught = error
        }
        let error = try #require(caught, "the upload should be rate limited")
        #expect(error.retryAt != nil)
        #expect(error.aisyncError.code == .temporary)
        #expect(error.aisyncError.remedy == .retryLater)
        let after = try #require(
            error.aisyncError.retryAfter, "a 429 with reset headers should carry retryAfter: \(error)")
        #expect(after >= .seconds(890) && after <= .seconds(900), "\(after)")
    }

    // MARK: - Imgur's removed.png is a redirect policy

    /// With `.imgur` the transport hands the `removed.png` hop back and the client reports
    /// `.removed`; with the neutral default it follows it like any same-host redirect.
    @Test(.tags(.python), .needsPython) func removedPlaceholderStopsOnlyWithTheImgurPolicy() async throws {
        let imgur = try ImgurStandIn.start()
        defer { imgur.stop() }
        let dir = Scratch.makeDirectory("imgur-removed")
        defer { Scratch.removeDirectory(dir) }
        let png = CLIFixtures.write(CLIFixtures.png, in: dir)
        let client = ImgurClient(
            apiBase: imgur.url, credential: .clientID(ImgurStandIn.clientID),
            transport: LiveTransport.make(redirects: .imgur))
        let uploaded = try await client.upload(fileAt: png, mediaType: "image/png", title: nil, description: nil).upload
        try imgur.remove(uploaded.id)

        let stopped = try await client.download(link: uploaded.link, to: "\(dir)/stopped", maxBytes: 1 << 20)
        #expect(stopped == .removed)
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/stopped"))

        let neutral = ImgurClient(
            apiBase: imgur.url, credential: .clientID(ImgurStandIn.clientID), transport: LiveTransport.make())
        let followed = try await neutral.download(link: uploaded.link, to: "\(dir)/followed", maxBytes: 1 << 20)
        guard case .downloaded = followed else {
            Issue.record("the neutral policy should follow the same-host redirect to the placeholder: \(followed)")
            return
        }
    }

    @Test func redirectPolicyNeverLeavesTheHost() throws {
        let from = try #require(URL(string: "https://I.imgur.com/a.png"))
        let sameHost = try #require(URL(string: "https://i.imgur.com/b.png"))
        let removed = try #require(URL(string: "https://i.imgur.com/removed.png"))
        let elsewhere = try #require(URL(string: "https://evil.example/b.png"))
        #expect(RedirectPolicy.sameHost.follows(from: from, to: sameHost))
        #expect(RedirectPolicy.sameHost.follows(from: from, to: removed))
        #expect(!RedirectPolicy.sameHost.follows(from: from, to: elsewhere))
        #expect(RedirectPolicy.imgur.follows(from: from, to: sameHost))
        #expect(!RedirectPolicy.imgur.follows(from: from, to: removed))
        let anything = RedirectPolicy { _, _ in true }
        #expect(!anything.follows(from: from, to: elsewhere), "no policy sends credentials to another host")
        // Nor from https down to plain http on the same host (credentials in the clear, the
        // remote's certificates and pins no longer applied); up from http is followed.
        let plain = try #require(URL(string: "http://i.imgur.com/b.png"))
        #expect(!anything.follows(from: from, to: plain))
        #expect(!RedirectPolicy.sameHost.follows(from: from, to: plain))
        #expect(RedirectPolicy.sameHost.follows(from: plain, to: sameHost))
    }

    // MARK: - SyncEngine.configured

    @Test func configuredWarnsWhenImgurIsEnabledWithoutCredential() async throws {
        let dir = Scratch.makeDirectory("configured")
        defer { Scratch.removeDirectory(dir) }
        let store = try Scratch.makeStore(in: dir, "a")
        try await store.addRemote(name: "origin", url: "file://\(dir)/remote")

        // Imgur never enabled: download-only, no warning.
        let plain = try await SyncEngine.configured(store: store, environment: [:])
        #expect(plain.warnings.isEmpty && !plain.engine.uploadsToImgur && plain.engine.imgur != nil)
        #expect(plain.engine.name == "origin")

        let enabled = try await store.enableImgur(api: "http://127.0.0.1:9", environment: [:])
        #expect(enabled.warnings == [.imgurEnabledWithoutCredential] && enabled.retried == 0)
        let without = try await SyncEngine.configured(store: store, remote: "origin", environment: [:])
        #expect(without.warnings == [.imgurEnabledWithoutCredential])
        #expect(!without.engine.uploadsToImgur)

        let credential = ["AISYNC_IMGUR_CLIENT_ID": "abc123"]
        let with = try await SyncEngine.configured(store: store, environment: credential)
        #expect(with.warnings.isEmpty && with.engine.uploadsToImgur)
        #expect(try await store.enableImgur(environment: credential).warnings.isEmpty)

        let badAPI = await Self.failure { () async throws(AISyncError) in
            try await SyncEngine.configured(
                store: store, environment: credential.merging(["AISYNC_IMGUR_API": "ftp://x"]) { $1 })
        }
        #expect(badAPI?.code == .configuration)

        try await store.disableImgur()
        let disabled = try await SyncEngine.configured(store: store, environment: [:])
        #expect(disabled.warnings.isEmpty && !disabled.engine.uploadsToImgur)
        let status = try await store.imgurStatus()
        #expect(!status.enabled && status.images == .imgur)
    }

    // MARK: - Remotes

    @Test func remoteChecksLiveInTheLibrary() async throws {
        let dir = Scratch.makeDirectory("remotes")
        defer { Scratch.removeDirectory(dir) }
        let store = try Scratch.makeStore(in: dir, "a")

        let none = await Self.failure { () async throws(AISyncError) in
            try await SyncEngine.configured(store: store, environment: [:])
        }
        #expect(none?.code == .configuration && none?.remedy == .addRemote)
        let unknownEmpty = await Self.failure { () async throws(AISyncError) in try await store.removeRemote("origin") }
        #expect(unknownEmpty?.code == .notFound && unknownEmpty?.remedy == .chooseRemote([]))

        let added = try await store.addRemote(name: "origin", url: "https://dav.example.com/dav/aisync/")
        #expect(added == StoreConfig.Remote(name: "origin", url: "https://dav.example.com/dav/aisync/", type: "webdav"))
        let badName = await Self.failure { () async throws(AISyncError) in
            try await store.addRemote(name: "Bad Name", url: "file:///tmp/x")
        }
        #expect(badName?.code == .usage)
        let secretURL = await Self.failure { () async throws(AISyncError) in
            try await store.addRemote(name: "b", url: "https://me:pw@dav.example.com/x")
        }
        #expect(secretURL?.code == .usage && secretURL?.message.contains("pw") == false)
        let twice = await Self.failure { () async throws(AISyncError) in
            try await store.addRemote(name: "origin", url: "file:///tmp/x")
        }
        #expect(twice?.code == .usage && twice?.remedy == .removeRemote("origin"))

        try await store.addRemote(name: "usb", url: "file://\(dir)/usb")
        let which = await Self.failure { () async throws(AISyncError) in
            try await SyncEngine.configured(store: store, environment: [:])
        }
        #expect(which?.code == .usage && which?.remedy == .chooseRemote(["origin", "usb"]))
        let unknown = await Self.failure { () async throws(AISyncError) in
            try await SyncEngine.configured(store: store, remote: "nas", environment: [:])
        }
        #expect(unknown?.code == .notFound && unknown?.remedy == .chooseRemote(["origin", "usb"]))

        FileManager.default.createFile(atPath: "\(store.root)/sync/usb.json", contents: Data("{}".utf8))
        try await store.removeRemote("usb")
        #expect(try await store.currentConfig().remotes.map(\.name) == ["origin"])
        #expect(
            !FileManager.default.fileExists(atPath: "\(store.root)/sync/usb.json"),
            "the checkpoint goes with the remote")
    }

    // MARK: - Records

    @Test func deletedAndUnknownRecordsSayWhatToDo() async throws {
        let dir = Scratch.makeDirectory("records")
        defer { Scratch.removeDirectory(dir) }
        let store = try Scratch.makeStore(in: dir, "a")
        let id = try await store.createChat(title: "gone", model: nil)
        #expect(try await store.visibleRecord(id).body.title == "gone")
        try await store.delete(id)
        let deleted = await Self.failure { () async throws(AISyncError) in try await store.visibleRecord(id) }
        #expect(deleted?.code == .notFound && deleted?.remedy == .restoreRecord(id))
        let unknownID = try #require(RecordID("chat-00000000000000ff"))
        let unknown = await Self.failure { () async throws(AISyncError) in try await store.visibleRecord(unknownID) }
        #expect(unknown?.code == .notFound)
        let asOf = try #require(try await store.history(id).last).id.hex
        let deleting = await Self.failure { () async throws(AISyncError) in
            try await store.visibleRecord(id, asOf: asOf)
        }
        #expect(deleting?.code == .notFound && deleting?.remedy == .listVersions(id))
    }

    @Test func redactingSecretsDropsOnlyTheDeletehash() throws {
        let digest = try #require(SHA256Digest(hex: String(repeating: "ab", count: 32)))
        let time = Timestamp(milliseconds: 1_764_417_600_000)
        let location = ImageBody.ImgurLocation(
            id: "MUkssj6", link: "https://i.imgur.com/MUkssj6.png", deletehash: "s3cr3tDeleteHash")
        let image = RecordBody.image(
            ImageBody(
                title: "fox", sha256: digest, size: 10, mediaType: "image/png", imgur: location,
                created: time, updated: time))
        guard case .image(let redacted) = image.redactingSecrets() else {
            Issue.record("not an image")
            return
        }
        #expect(redacted.imgur?.deletehash == nil)
        #expect(redacted.imgur?.id == "MUkssj6" && redacted.imgur?.link == location.link && redacted.title == "fox")
        let chat = RecordBody.chat(ChatBody(title: "c", model: nil, messages: [], created: time, updated: time))
        #expect(chat.redactingSecrets() == chat)
    }

    // MARK: - The CLI words remedies as commands

    @Test func cliAddsTheCommandToARemedy() throws {
        let a = try CLIHarness.makeStore()
        defer { a.remove() }
        let push = a.run(["push"])
        CLIExpect.cleanError(push, code: 78, mentioning: ["this store has no remote", "`aisync remote add NAME URL`"])
        let remove = a.run(["remote", "remove", "nope"])
        CLIExpect.cleanError(remove, code: 66, mentioning: ["no remote named 'nope'", "`aisync remote add NAME URL`"])
        try a.ok(["remote", "add", "origin", "file://\(a.directory)/remote"])
        let twice = a.run(["remote", "add", "origin", "file://\(a.directory)/other"])
        CLIExpect.cleanError(twice, code: 64, mentioning: ["`aisync remote remove origin`"])
        let chat = try a.ok(["chat", "new", "--title", "t"])
        try a.ok(["rm", chat])
        CLIExpect.cleanError(a.run(["show", chat]), code: 66, mentioning: ["`aisync restore \(chat)`"])
        CLIExpect.cleanError(a.run(["log", "chat-00000000000000ff"]), code: 66, mentioning: ["`aisync list`"])
    }
}
