import AISyncTestSupport
import Foundation
import Testing

/// Tests of every `aisync` command, run in-process (``CLIHarness/invoke``); the first one
/// checks the built executable, which the other suites run end to end.
@Suite("CLITests", .tags(.python), .needsPython)
struct CLITests {
    static let chatID = "^chat-[0-9a-f]{16}$"
    static let imageID = "^image-[0-9a-f]{16}$"
    static let storyID = "^story-[0-9a-f]{16}$"
    static let time = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$"

    @Test func harnessFindsTheBuiltExecutable() {
        let r = CLIHarness.run(["--version"])
        #expect(CLIHarness.isExecutableFile(CLIHarness.executable), "no aisync executable at \(CLIHarness.executable)")
        if ProcessInfo.processInfo.environment["AISYNC_BIN"] == nil,
            let buildDir = CLIHarness.testBundleDirectories.first,
            CLIHarness.isExecutableFile("\(buildDir)/aisync")
        {
            #expect(
                CLIHarness.executable == "\(buildDir)/aisync", "the aisync next to the test bundle should be preferred")
        }
        CLIExpect.success(r)
        #expect(CLIExpect.matches(r.stdout, "^aisync [0-9]+\\.[0-9]+\\.[0-9]+\n$"), "\(r)")
    }

    // MARK: init

    @Test func initCreatesAStoreWithAName() async throws {
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        let path = "\(dir)/store"
        let r = await CLIHarness.invoke(["init", "--name", "my laptop"], store: path)
        CLIExpect.success(r)
        #expect(r.stdout.contains(path) && r.stdout.contains("my laptop"), "\(r)")
        for file in ["config.json", "journal.jsonl"] {
            #expect(FileManager.default.fileExists(atPath: "\(path)/\(file)"), "init should create \(file)")
        }
        let config = try CLIJSON.parseObject(
            String(decoding: FileManager.default.contents(atPath: "\(path)/config.json") ?? Data(), as: UTF8.self))
        let device = config["device"] as? [String: Any]
        #expect(device?["name"] as? String == "my laptop")
        #expect(CLIExpect.matches(device?["id"] as? String ?? "", "^[0-9a-f]{32}$"))
        #expect(config["format"] as? Int == 2)
        try SchemaValidator.requireAvailable()
        let check = SchemaValidator.validate("config", files: ["\(path)/config.json"], canonical: true)
        #expect(check.passed, "\(check)")

        let status = try CLIJSON.object(await CLIHarness.invoke(["status", "--json"], store: path))
        #expect((status["device"] as? [String: Any])?["name"] as? String == "my laptop")
        #expect((status["device"] as? [String: Any])?["id"] as? String == device?["id"] as? String)
        #expect((status["journal"] as? [String: Any])?["lines"] as? Int == 0)

        // Without --name, and through AISYNC_HOME: a fresh, different device id.
        let other = "\(dir)/other"
        CLIExpect.success(await CLIHarness.invoke(["init"], store: other, via: .environment))
        let otherStatus = try CLIJSON.object(
            await CLIHarness.invoke(["status", "--json"], store: other, via: .environment))
        let otherID = (otherStatus["device"] as? [String: Any])?["id"] as? String
        #expect(otherID != nil && otherID != device?["id"] as? String, "every store gets its own random device id")
        #expect(((otherStatus["device"] as? [String: Any])?["name"] as? String ?? "").isEmpty == false)
    }

    // MARK: chat

    @Test(arguments: [nil, "gpt-4o", "davinci", "curie"] as [String?])
    func chatNewPrintsOnlyTheID(model: String?) async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let title = "Trip ideas ✈️ \"2026\""
        var args = ["chat", "new", "--title", title]
        if let model { args += ["--model", model] }
        let r = await store.invoke(args)
        CLIExpect.success(r)
        #expect(CLIExpect.matches(r.stdout, "^chat-[0-9a-f]{16}\n$"), "chat new must print only the id: \(r)")
        let id = r.trimmedStdout
        let body = try store.show(id)
        #expect(body["kind"] as? String == "chat")
        #expect(body["title"] as? String == title)
        #expect(body["model"] as? String == model)
        #expect((body["messages"] as? [Any])?.isEmpty == true)
        #expect(body["favorite"] as? Bool == false)
        #expect(body["created"] as? String == body["updated"] as? String)
        #expect(CLIExpect.matches(body["created"] as? String ?? "", Self.time))
        let list = try store.list()
        #expect(list.count == 1 && list.first?["id"] as? String == id && list.first?["title"] as? String == title)
    }

    @Test func chatNewMakesDistinctIDs() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let ids = try CLIFixtures.addChats(store, count: 6)
        #expect(Set(ids).count == 6)
        for id in ids { #expect(CLIExpect.matches(id, Self.chatID), "\(id)") }
    }

    @Test func chatSayAddsMessagesInOrderIncludingStandardInput() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let id = try await store.invokeOK(["chat", "new", "--title", "Roles"])
        var versions: [String] = []
        for (role, text) in [
            ("system", "Be brief."), ("user", "Hello, wörld 👋"), ("assistant", "  leading and trailing spaces  "),
        ] {
            let r = await store.invoke(["chat", "say", id, "--role", role, text])
            CLIExpect.success(r)
            #expect(CLIExpect.matches(r.stdout, "^[0-9a-f]{12}\n$"), "chat say prints the new version id: \(r)")
            versions.append(r.trimmedStdout)
        }
        // TEXT "-" reads standard input, verbatim (multi-line, quotes, tabs, non-ASCII).
        let piped = "line one\n\tline \"two\"\nline three — ünïcødé"
        let r = await store.invoke(["chat", "say", id, "--role", "user", "-"], stdin: Data(piped.utf8))
        CLIExpect.success(r)
        versions.append(r.trimmedStdout)
        // A text that merely looks like an option goes after `--`.
        let dashed = await store.invoke(["chat", "say", "--role", "assistant", id, "--", "--not-an-option"])
        CLIExpect.success(dashed)
        versions.append(dashed.trimmedStdout)

        let body = try store.show(id)
        let messages = try #require(body["messages"] as? [[String: Any]])
        #expect(messages.map { $0["role"] as? String } == ["system", "user", "assistant", "user", "assistant"])
        #expect(
            messages.map { $0["text"] as? String } == [
                "Be brief.", "Hello, wörld 👋", "  leading and trailing spaces  ", piped, "--not-an-option",
            ])
        let messageIDs = messages.compactMap { $0["id"] as? String }
        #expect(Set(messageIDs).count == 5, "message ids must be unique: \(messageIDs)")
        let times = messages.compactMap { $0["time"] as? String }
        #expect(times == times.sorted(), "message times must not go backwards: \(times)")
        #expect((body["updated"] as? String ?? "") >= (times.last ?? ""))
        #expect((body["updated"] as? String ?? "") > (body["created"] as? String ?? ""))

        // Each printed version is a prefix of a version in the log, newest first.
        let log = try CLIJSON.array(await store.invoke(["log", id, "--json"]))
        let logged = log.compactMap { $0["version"] as? String }
        #expect(logged.count == 6)
        for (n, v) in versions.reversed().enumerated() {
            #expect(logged[n].hasPrefix(v), "log[\(n)] \(logged[n]) vs printed \(v)")
        }

        // The human view shows every message.
        let text = await store.invoke(["show", id])
        CLIExpect.success(text)
        for needle in ["Roles", "Be brief.", "Hello, wörld 👋", "line three — ünïcødé", "5 message"] {
            #expect(text.stdout.contains(needle), "show should contain \(needle): \(text)")
        }
    }

    // MARK: images

    @Test(arguments: CLIFixtures.allImages)
    func imageAddAndSaveRoundTrip(image: CLIFixtures.ImageFile) async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let path = CLIFixtures.write(image, in: store.directory)
        let expectedHash = try CLIFixtures.sha256(ofFile: path)
        let r = await store.invoke([
            "image", "add", path, "--prompt", "a tiny \(image.mediaType) square", "--model", "dall-e-3",
        ])
        CLIExpect.success(r)
        #expect(CLIExpect.matches(r.stdout, "^image-[0-9a-f]{16}\n$"), "image add must print only the id: \(r)")
        let id = r.trimmedStdout

        let body = try store.show(id)
        #expect(body["kind"] as? String == "image")
        #expect(body["sha256"] as? String == expectedHash)
        #expect(body["size"] as? Int == image.bytes.count)
        #expect(body["mediaType"] as? String == image.mediaType)
        #expect(body["width"] as? Int == image.width)
        #expect(body["height"] as? Int == image.height)
        #expect(body["prompt"] as? String == "a tiny \(image.mediaType) square")
        #expect(body["model"] as? String == "dall-e-3")
        #expect(body["title"] as? String == image.name, "the title defaults to the file name")
        #expect(
            FileManager.default.fileExists(atPath: store.objectPath(expectedHash)),
            "the bytes are stored under objects/")

        // save: byte-identical to a file path, and into a directory under the id and its type's extension.
        let out = "\(store.directory)/saved-\(image.name)"
        let saved = await store.invoke(["image", "save", id, out])
        CLIExpect.success(saved)
        #expect(saved.stdoutData.isEmpty)
        #expect(FileManager.default.contents(atPath: out) == image.bytes, "image save must write the original bytes")
        let folder = "\(store.directory)/folder"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        CLIExpect.success(await store.invoke(["image", "save", id, folder]))
        let ext = ["image/png": "png", "image/jpeg": "jpg", "image/gif": "gif"][image.mediaType] ?? "?"
        #expect(
            FileManager.default.contents(atPath: "\(folder)/\(id).\(ext)") == image.bytes,
            "saved into a folder as ID.\(ext)")
        // An existing file is never replaced without --force; `-` is standard output.
        FileManager.default.createFile(atPath: out, contents: Data("keep me".utf8))
        CLIExpect.cleanError(
            await store.invoke(["image", "save", id, out]), code: 64, mentioning: ["already exists", "--force"])
        CLIExpect.cleanError(
            await store.invoke(["image", "save", id, folder]), code: 64, mentioning: ["already exists"])
        #expect(FileManager.default.contents(atPath: out) == Data("keep me".utf8))
        CLIExpect.success(await store.invoke(["image", "save", id, out, "--force"]))
        #expect(FileManager.default.contents(atPath: out) == image.bytes)
        let piped = await store.invoke(["image", "save", id, "-"])
        CLIExpect.success(piped)
        #expect(piped.stdoutData == image.bytes && !FileManager.default.fileExists(atPath: "\(store.directory)/-"))
        // A missing folder is named as such; the temp file the copy goes through never shows.
        let missing = await store.invoke(["image", "save", id, "\(store.directory)/nowhere/x.png"])
        CLIExpect.cleanError(missing, code: 66, mentioning: ["nowhere", "does not exist"])
        #expect(!missing.stderr.contains("aisync-tmp"), "\(missing)")

        // The human view names the media type, size and hash.
        let text = await store.invoke(["show", id])
        CLIExpect.success(text)
        #expect(
            text.stdout.contains(image.mediaType) && text.stdout.contains(expectedHash)
                && text.stdout.contains("\(image.width)x\(image.height)"), "\(text)")
    }

    @Test func imageAddWithoutPromptOrModelAndWithTitle() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let path = CLIFixtures.write(CLIFixtures.png, in: store.directory)
        let plain = try await store.invokeOK(["image", "add", path])
        let body = try store.show(plain)
        #expect(body["prompt"] == nil && body["model"] == nil)
        let titled = try await store.invokeOK(["image", "add", path, "--title", "My red square"])
        #expect(titled != plain, "the same bytes added twice are two records")
        #expect(try store.show(titled)["title"] as? String == "My red square")
        #expect(try store.show(titled)["sha256"] as? String == body["sha256"] as? String)
    }

    // MARK: stories

    @Test func storyNewIllustratesTheNthPageWithTheNthImage() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        var ids: [String] = []
        var hashes: [String] = []
        for image in [CLIFixtures.gif, CLIFixtures.png] {
            let path = CLIFixtures.write(image, in: store.directory)
            ids.append(try await store.invokeOK(["image", "add", path, "--prompt", "prompt \(image.name)"]))
            hashes.append(try CLIFixtures.sha256(ofFile: path))
        }
        let r = await store.invoke([
            "story", "new", "--title", "The Fox", "--moral", "Be kind",
            "--page", "Page A", "--page", "Page B", "--page", "Page C",
            "--image", ids[0], "--image", ids[1],
        ])
        CLIExpect.success(r)
        #expect(CLIExpect.matches(r.stdout, "^story-[0-9a-f]{16}\n$"), "story new must print only the id: \(r)")
        let story = try store.show(r.trimmedStdout)
        #expect(story["kind"] as? String == "story")
        #expect(story["title"] as? String == "The Fox")
        #expect(story["moral"] as? String == "Be kind")
        let pages = try #require(story["pages"] as? [[String: Any]])
        #expect(pages.map { $0["text"] as? String } == ["Page A", "Page B", "Page C"])
        #expect(pages[0]["image"] as? String == hashes[0], "page 1 shows image 1 (by sha256)")
        #expect(pages[1]["image"] as? String == hashes[1], "page 2 shows image 2 (by sha256)")
        #expect(pages[2]["image"] == nil, "page 3 has no image")
        #expect(story["prompts"] as? [String] == ["prompt green.gif", "prompt red.png"])

        // Without --moral and without images.
        let plain = try await store.invokeOK(["story", "new", "--title", "Plain", "--page", "Only page"])
        let plainBody = try store.show(plain)
        #expect(plainBody["moral"] == nil)
        #expect((plainBody["pages"] as? [[String: Any]])?.count == 1)
        #expect((plainBody["prompts"] as? [Any])?.isEmpty == true)

        let text = await store.invoke(["show", r.trimmedStdout])
        CLIExpect.success(text)
        for needle in ["The Fox", "Be kind", "Page A", "Page C", "page 1", String(hashes[0].prefix(12))] {
            #expect(text.stdout.contains(needle), "story text should contain \(needle): \(text)")
        }
    }

    // MARK: rename, favorite, rm

    @Test func renameFavoriteAndRemove() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let id = try await store.invokeOK(["chat", "new", "--title", "Before"])
        let other = try await store.invokeOK(["chat", "new", "--title", "Other"])

        let renamed = await store.invoke(["rename", id, "After ★"])
        CLIExpect.success(renamed)
        #expect(try store.show(id)["title"] as? String == "After ★")
        #expect(try store.list().first { $0["id"] as? String == id }?["title"] as? String == "After ★")

        CLIExpect.success(await store.invoke(["favorite", id]))
        #expect(try store.show(id)["favorite"] as? Bool == true)
        #expect(try store.list().first { $0["id"] as? String == id }?["favorite"] as? Bool == true)
        #expect(await store.invoke(["list"]).stdout.contains("★"), "the text list marks favorites")

        CLIExpect.success(await store.invoke(["favorite", id, "--off"]))
        #expect(try store.show(id)["favorite"] as? Bool == false)
        #expect(try store.list().first { $0["id"] as? String == id }?["favorite"] as? Bool == false)

        let rm = await store.invoke(["rm", id])
        CLIExpect.success(rm)
        #expect(rm.stdoutData.isEmpty)
        #expect(try store.list().map { $0["id"] as? String } == [other], "a deleted record leaves the list")
        let withDeleted = try store.list(["--deleted"])
        #expect(withDeleted.first { $0["id"] as? String == id }?["deleted"] as? Bool == true)
        CLIExpect.cleanError(await store.invoke(["show", id]), code: 66, mentioning: ["deleted"])
        let log = try CLIJSON.array(await store.invoke(["log", id, "--json"]))
        #expect(log.first?["action"] as? String == "delete" && log.first?["deleted"] as? Bool == true, "\(log)")
        #expect(log.count == 5, "create, rename, favorite, favorite --off, rm: \(log)")
        #expect(try store.show(other)["title"] as? String == "Other", "other records are untouched")
    }

    // MARK: list

    @Test func listFiltersByKindAndSortsNewestFirst() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let session = try CLIFixtures.realisticSession(store)
        let all = try store.list()
        #expect(Set(all.compactMap { $0["id"] as? String }) == Set(session.chats + session.images + [session.story]))
        for item in all {
            for key in ["id", "kind", "title", "updated", "conflict"] {
                #expect(item[key] != nil, "list --json item lacks \(key): \(item)")
            }
            #expect(item["conflict"] as? Bool == false)
            #expect(CLIExpect.matches(item["updated"] as? String ?? "", Self.time))
            #expect(["chat", "story", "image"].contains(item["kind"] as? String ?? ""))
        }
        let updated = all.compactMap { $0["updated"] as? String }
        #expect(updated == updated.sorted(by: >), "newest first: \(updated)")

        for (kind, expected) in [("chat", session.chats), ("image", session.images), ("story", [session.story])] {
            let only = try store.list(["--kind", kind])
            #expect(Set(only.compactMap { $0["id"] as? String }) == Set(expected), "list --kind \(kind)")
            #expect(only.allSatisfy { $0["kind"] as? String == kind })
        }
        #expect(
            try store.list().first { $0["id"] as? String == session.renamed }?["title"] as? String
                == "Old completions (renamed)")

        // The text list: a header, then one line per record, id first.
        let text = await store.invoke(["list"])
        CLIExpect.success(text)
        #expect(text.stdoutLines.count == all.count + 1)
        #expect(
            text.stdoutLines.dropFirst().compactMap { $0.split(separator: " ").first.map(String.init) }
                == all.compactMap { $0["id"] as? String })
        let fresh = try CLIHarness.makeStore()
        defer { fresh.remove() }
        let empty = await fresh.invoke(["list", "--json"])
        #expect(empty.stdout == "[]\n" && empty.exitCode == 0, "\(empty)")
    }

    // MARK: show, log, status, fsck, conflicts

    /// `show --json` prints the record's state as canonical JSON: a pure function of the
    /// journal, so it is the same after the index (a cache) is rebuilt.
    @Test func showPrintsTheRecordAsCanonicalJSON() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let session = try CLIFixtures.realisticSession(store)
        var before: [String: String] = [:]
        for id in session.chats + session.images + [session.story] {
            let r = await store.invoke(["show", id, "--json"])
            CLIExpect.success(r)
            _ = try CLIJSON.object(r)
            // (Canonical form and schema: filesAndOutputsMatchTheSchemas.)
            before[id] = r.stdout
            let text = await store.invoke(["show", id])
            CLIExpect.success(text)
            #expect(text.stdout.hasPrefix("\(id.split(separator: "-")[0]) \(id)"), "\(text)")
        }
        try? FileManager.default.removeItem(atPath: store.indexPath)
        for (id, output) in before {
            #expect(
                await store.invoke(["show", id, "--json"]).stdout == output,
                "show --json of \(id) changed when the index was rebuilt")
        }
    }

    @Test func logListsEveryVersionNewestFirst() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let session = try CLIFixtures.realisticSession(store)
        let journal = store.journalLines()
        let all = await store.invoke(["log"])
        CLIExpect.success(all)
        #expect(all.stdoutLines.count == journal.count, "one log line per journal line")
        let ids = journal.compactMap { try? CLIJSON.parseObject($0)["id"] as? String }
        for (line, version) in zip(all.stdoutLines, ids.reversed()) {
            #expect(
                line.hasPrefix(String(version.prefix(12))), "log line \(line) should start with \(version.prefix(12))")
        }
        let json = try CLIJSON.array(await store.invoke(["log", "--json"]))
        #expect(json.compactMap { $0["version"] as? String } == ids.reversed())
        for entry in json {
            #expect(CLIExpect.matches(entry["version"] as? String ?? "", "^[0-9a-f]{64}$"))
            #expect(CLIExpect.matches(entry["time"] as? String ?? "", Self.time))
            #expect(["create", "edit", "delete"].contains(entry["action"] as? String ?? ""))
        }
        let one = await store.invoke(["log", session.chats[0]])
        CLIExpect.success(one)
        #expect(one.stdoutLines.count == 5, "create + 3 messages + favorite: \(one)")
        #expect(one.stdoutLines.allSatisfy { $0.contains(session.chats[0]) })
        #expect(one.stdoutLines.last?.hasSuffix("created") == true, "\(one)")
        #expect(
            one.stdoutLines.filter { $0.hasSuffix("+1 message") }.count == 3,
            "each message is one version saying so: \(one)")
        #expect(one.stdoutLines.contains { $0.hasSuffix("favorited") }, "\(one)")
    }

    @Test func statusSummarizesTheStore() async throws {
        let store = try CLIHarness.makeStore(deviceName: "desk")
        defer { store.remove() }
        let session = try CLIFixtures.realisticSession(store)
        let status = try CLIJSON.object(await store.invoke(["status", "--json"]))
        let records = status["records"] as? [String: Any]
        #expect(records?["chat"] as? Int == session.chats.count)
        #expect(records?["image"] as? Int == session.images.count)
        #expect(records?["story"] as? Int == 1)
        #expect(status["conflicts"] as? Int == 0)
        #expect((status["journal"] as? [String: Any])?["lines"] as? Int == store.journalLines().count)
        #expect((status["device"] as? [String: Any])?["name"] as? String == "desk")
        #expect((status["objects"] as? Int ?? 0) >= 3, "3 image blobs (small values stay in the journal)")
        #expect((status["bytes"] as? Int ?? 0) > 0)
        #expect(status["store"] as? String == store.path)
        let text = await store.invoke(["status"])
        CLIExpect.success(text)
        for needle in [store.path, "desk", "2 chats", "3 images", "1 stor", "conflicts"] {
            #expect(text.stdout.contains(needle), "status should show \(needle): \(text)")
        }
        // Sizes for people, not raw byte counts.
        #expect(CLIExpect.matches(text.stdout, "objects    [0-9]+ files?, [0-9.]+ (B|KB|MB)\n"), "\(text)")
    }

    @Test func fsckPassesOnASoundStore() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let empty = await store.invoke(["fsck"])
        CLIExpect.success(empty)
        _ = try CLIFixtures.realisticSession(store)
        let r = await store.invoke(["fsck"])
        CLIExpect.success(r)
        #expect(r.stdout.hasPrefix("ok:") && r.stdout.contains("\(store.journalLines().count) journal lines"), "\(r)")
    }

    @Test func conflictsOnAStoreWithoutConflicts() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        _ = try CLIFixtures.realisticSession(store)
        let json = await store.invoke(["conflicts", "--json"])
        CLIExpect.success(json)
        #expect(json.stdout == "[]\n", "\(json)")
        #expect(try CLIJSON.array(json).isEmpty)
        let text = await store.invoke(["conflicts"])
        CLIExpect.success(text)
        #expect(text.stdout == "No conflicts.\n", "\(text)")
    }

    // MARK: help and version

    static let commandPaths: [[String]] = [
        ["init"], ["chat", "new"], ["chat", "say"], ["image", "add"], ["image", "save"], ["story", "new"],
        ["rename"], ["favorite"], ["rm"], ["list"], ["show"], ["log"], ["status"], ["conflicts"], ["resolve"], ["fsck"],
    ]

    @Test func rootHelpListsEveryCommand() async {
        for args in [["help"], ["--help"], ["-h"]] {
            let r = await CLIHarness.invoke(args)
            CLIExpect.success(r)
            for heading in ["OVERVIEW:", "USAGE:", "OPTIONS:", "SUBCOMMANDS:"] {
                #expect(r.stdout.contains(heading), "\(args): \(r)")
            }
            for path in Self.commandPaths {
                #expect(r.stdout.contains("  \(path.joined(separator: " ")) "), "help should list \(path): \(r)")
            }
        }
    }

    @Test(arguments: commandPaths)
    func commandHelp(path: [String]) async {
        let r = await CLIHarness.invoke(path + ["--help"])
        CLIExpect.success(r)
        for heading in ["OVERVIEW:", "USAGE:", "OPTIONS:"] {
            #expect(r.stdout.contains(heading), "\(path) --help lacks \(heading): \(r)")
        }
        #expect(r.stdout.contains("USAGE: aisync \(path.joined(separator: " "))"), "\(r)")
        #expect(r.stdout.contains("--store"), "every command takes --store: \(r)")
        let viaHelp = await CLIHarness.invoke(["help"] + path)
        CLIExpect.success(viaHelp)
        #expect(viaHelp.stdout == r.stdout, "`aisync help \(path.joined(separator: " "))` should equal `--help`")
        let short = await CLIHarness.invoke(path + ["-h"])
        #expect(short.stdout == r.stdout && short.exitCode == 0)
    }

    @Test func groupHelp() async {
        for group in ["chat", "image", "story"] {
            let r = await CLIHarness.invoke([group, "--help"])
            CLIExpect.success(r)
            #expect(r.stdout.contains("SUBCOMMANDS:"), "\(r)")
            #expect(r.stdout.contains("new") || r.stdout.contains("add"), "\(r)")
        }
    }

    @Test(arguments: ["--version", "-v", "-V"])
    func version(_ flag: String) async {
        let r = await CLIHarness.invoke([flag])
        CLIExpect.success(r)
        #expect(CLIExpect.matches(r.stdout, "^aisync [0-9]+\\.[0-9]+\\.[0-9]+(-[0-9A-Za-z.]+)?\n$"), "\(r)")
    }

    @Test("a unique prefix of a record id works wherever an id does, with or without its kind")
    func recordIDPrefixes() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let id = try await store.invokeOK(["chat", "new", "--title", "prefixed"])
        // --json: the plain text says "just now", which a loaded machine can turn into "1 min ago".
        let full = await store.invoke(["show", id, "--json"])
        CLIExpect.success(full)
        let hex = String(id.dropFirst("chat-".count))
        for prefix in [String(id.prefix(9)), String(hex.prefix(6))] {
            let r = await store.invoke(["show", prefix, "--json"])
            CLIExpect.success(r)
            #expect(r.stdout == full.stdout, "\(prefix): \(r)")
        }
        CLIExpect.success(await store.invoke(["rename", String(hex.prefix(6)), "renamed by prefix"]))
        #expect(await store.invoke(["show", id]).stdout.contains("renamed by prefix"))
    }

    @Test("log -n N and --limit N show only the N newest versions")
    func logLimit() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let id = try await store.invokeOK(["chat", "new", "--title", "limited"])
        for n in 1...4 { CLIExpect.success(await store.invoke(["chat", "say", id, "--role", "user", "message \(n)"])) }
        // Compared as JSON: the text says "just now" or "1 min ago", which a loaded machine
        // may see change between two runs.
        func versions(_ arguments: [String]) async throws -> [String] {
            try CLIJSON.array(await store.invoke(arguments + ["--json"])).map { "\($0["version"] ?? "")" }
        }
        let all = try await versions(["log"])
        #expect(all.count == 5 && Set(all).count == 5, "\(all)")
        #expect(try await versions(["log", "-n", "2"]) == Array(all.prefix(2)))
        #expect(try await versions(["log", id, "--limit", "3"]) == Array(all.prefix(3)))
        #expect(await store.invoke(["log", "-n", "2"]).stdoutLines.count == 2, "the text form is limited too")
        #expect(try await versions(["log", "-n", "1"]).count == 1)
    }

    @Test("`aisync remote` alone lists the remotes, like `remote list`")
    func remoteAloneLists() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        CLIExpect.success(await store.invoke(["remote", "add", "usb", "file:///media/usb/aisync"]))
        let alone = await store.invoke(["remote"])
        CLIExpect.success(alone)
        let list = await store.invoke(["remote", "list"])
        #expect(alone.stdout == list.stdout && alone.stdout.contains("usb"), "\(alone)")
    }

    @Test(arguments: [
        (["lst"], "list"), (["statsu"], "status"), (["chat", "nwe"], "chat new"), (["fsk"], "fsck"),
        (["imgae"], "image"), (["shwo"], "show"),
    ])
    func unknownCommandSuggestsTheClosest(args: [String], suggestion: String) async {
        let r = await CLIHarness.invoke(args)
        CLIExpect.cleanError(r, code: 64, mentioning: ["Did you mean '\(suggestion)'"])
    }

    // MARK: store location

    @Test func storeLocationFromOptionEnvironmentAndInlineForm() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let id = try await store.invokeOK(["chat", "new", "--title", "Where"])
        let viaEnv = await CLIHarness.invoke(["list", "--json"], store: store.path, via: .environment)
        CLIExpect.success(viaEnv)
        #expect(viaEnv.stdout.contains(id))
        let inline = await CLIHarness.invoke(["list", "--json", "--store=\(store.path)"])
        CLIExpect.success(inline)
        #expect(inline.stdout == viaEnv.stdout)
        // --store before the command, as the root help's OPTIONS suggest.
        let leading = await CLIHarness.invoke(["--store", store.path, "list", "--json"])
        CLIExpect.success(leading)
        #expect(leading.stdout == viaEnv.stdout, "\(leading)")
        // --store wins over AISYNC_HOME.
        let both = await CLIHarness.invoke(
            ["list", "--json", "--store", store.path], environment: ["AISYNC_HOME": "\(store.directory)/nowhere"])
        #expect(both.stdout == viaEnv.stdout, "\(both)")
    }

    // MARK: JSON output

    @Test func everyJSONOutputIsExactlyOneDocument() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let session = try CLIFixtures.realisticSession(store)
        var commands: [[String]] = [
            ["list", "--json"], ["list", "--json", "--deleted"], ["list", "--kind", "image", "--json"],
            ["log", "--json"], ["status", "--json"], ["conflicts", "--json"],
        ]
        for id in session.chats + session.images + [session.story] {
            commands.append(["show", id, "--json"])
            commands.append(["log", id, "--json"])
        }
        for args in commands {
            let r = await store.invoke(args)
            CLIExpect.success(r)
            #expect(throws: Never.self, "\(args) output is not one JSON document") { _ = try CLIJSON.document(r) }
        }
    }

    // MARK: the index is a cache

    /// docs/DESIGN.md §4.4: "Deleting or garbling the index loses nothing: it is rebuilt."
    @Test func theIndexIsOnlyACache() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        _ = try CLIFixtures.realisticSession(store)
        for title in ["one more", "and another"] { _ = try await store.invokeOK(["chat", "new", "--title", title]) }
        let list = await store.invoke(["list", "--json", "--deleted"])
        let status = await store.invoke(["status", "--json"])
        CLIExpect.success(list)
        CLIExpect.success(status)
        let indexFile = "\(store.indexPath)/records.v2"
        // Rebuilt whole (a few writes leave the index behind the journal; it catches up later).
        try? FileManager.default.removeItem(atPath: store.indexPath)
        CLIExpect.success(await store.invoke(["list"]))
        let good = try #require(FileManager.default.contents(atPath: indexFile))
        try? FileManager.default.removeItem(atPath: store.indexPath)
        #expect(
            await store.invoke(["list", "--json", "--deleted"]).stdout == list.stdout, "deleting index/ changed list")
        #expect(await store.invoke(["status", "--json"]).stdout == status.stdout, "deleting index/ changed status")
        // Whole-file garbage, and a current header over damaged lines (found only when read:
        // lines out of order, a line cut short, a line list that is not one, a missing end).
        let ids = try CLIJSON.array(await store.invoke(["list", "--json"])).compactMap { $0["id"] as? String }
        var lines = String(decoding: good, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init)
        try #require(lines.count >= 4 && lines.last == "", "a header and at least two records: \(lines)")
        lines.removeLast()
        var swapped = lines
        swapped.swapAt(1, 2)
        var cut = lines
        cut[2] = cut[2].split(separator: "\t").prefix(3).joined(separator: "\t")
        var refs = lines
        refs[1] = refs[1].split(separator: "\t").dropLast().joined(separator: "\t") + "\t12.x"
        // Fields a listing reads only when it prints the line (after the store's lock is
        // released): they must still be found damaged while the index can be rebuilt.
        func field(_ n: Int, of line: Int, _ value: String) -> [String] {
            var copy = lines
            var fields = copy[line].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            fields[n] = value
            copy[line] = fields.joined(separator: "\t")
            return copy
        }
        let title = field(2, of: 1, "a bad \\q escape")
        let created = field(3, of: 2, "12x")
        let damaged =
            [swapped, cut, refs, title, created].map { $0.joined(separator: "\n") + "\n" } + [
                lines.joined(separator: "\n")
            ]
        for garbage in [
            "aisync-index\t4\t999999999\t5\t-\t0\t0\t0\t1\t0\n", "not an index at all",
            "aisync-index\t4\t0\t0\t-\t0\t0\nchat-1\tchat\n",
        ] + damaged {
            FileManager.default.createFile(atPath: indexFile, contents: Data(garbage.utf8))
            // One record looked up (by binary search), then everything listed.
            for id in ids { CLIExpect.success(await store.invoke(["show", id, "--json"])) }
            FileManager.default.createFile(atPath: indexFile, contents: Data(garbage.utf8))
            let r = await store.invoke(["list", "--json", "--deleted"])
            CLIExpect.success(r)
            #expect(
                r.stdout == list.stdout,
                "a damaged index must be rebuilt, not trusted: \(garbage.prefix(300).debugDescription)")
            #expect(await store.invoke(["status", "--json"]).stdout == status.stdout)
        }
        CLIExpect.success(await store.invoke(["fsck"]))
    }

    /// A damaged line found while writing (a record's line list garbled in a current index):
    /// the index is rebuilt from the journal and the edit saved exactly once.
    @Test func aDamagedIndexLineFoundByAnEditIsRebuiltAndTheEditSavedOnce() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let first = try await store.invokeOK(["chat", "new", "--title", "First"])
        let second = try await store.invokeOK(["chat", "new", "--title", "Second"])
        try? FileManager.default.removeItem(atPath: store.indexPath)
        CLIExpect.success(await store.invoke(["list"]))
        let indexFile = "\(store.indexPath)/records.v2"
        let lines = try String(contentsOfFile: indexFile, encoding: .utf8).split(separator: "\n").map {
            line -> String in
            guard line.hasPrefix(first + "\t") else { return String(line) }
            return line.split(separator: "\t").dropLast().joined(separator: "\t") + "\t7.x"
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: indexFile, atomically: true, encoding: .utf8)
        CLIExpect.success(await store.invoke(["chat", "say", first, "--role", "user", "said once"]))
        #expect(store.journalLines().count == 3, "two creations and one message: \(store.journalLines().count)")
        let messages = try #require(try store.show(first)["messages"] as? [[String: Any]])
        #expect(messages.count == 1 && messages.first?["text"] as? String == "said once", "\(messages)")
        #expect(try store.list().compactMap { $0["id"] as? String }.sorted() == [first, second].sorted())
        let rebuilt = try String(contentsOfFile: indexFile, encoding: .utf8)
        #expect(!rebuilt.contains("7.x"), "the damaged index was replaced")
        CLIExpect.success(await store.invoke(["fsck"]))
    }

    /// Titles with characters the index escapes (tab, newline, CR, backslash) come back intact
    /// both from a rebuild and from the cached index.
    @Test func titlesSurviveTheIndex() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let titles = ["tab\there", "new\nline", "cr\r", "back\\slash \\t \\n", "“quotes” ünïcødé 🦊", "\\", " padded "]
        var ids: [String: String] = [:]
        for t in titles { ids[try await store.invokeOK(["chat", "new", "--title", t])] = t }
        try? FileManager.default.removeItem(atPath: store.indexPath)
        let rebuilt = try store.list()
        let cached = try store.list()
        for (id, title) in ids {
            #expect(
                rebuilt.first { $0["id"] as? String == id }?["title"] as? String == title,
                "rebuilt: \(title.debugDescription)")
            #expect(
                cached.first { $0["id"] as? String == id }?["title"] as? String == title,
                "cached: \(title.debugDescription)")
            #expect(try store.show(id)["title"] as? String == title)
        }
    }

    // MARK: schemas

    /// A realistic session, then every file and JSON output validated with validate_json.py.
    @Test func filesAndOutputsMatchTheSchemas() async throws {
        try SchemaValidator.requireAvailable()
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let session = try CLIFixtures.realisticSession(store)
        // One more chat with awkward text, to exercise escaping.
        let odd = try await store.invokeOK([
            "chat", "new", "--title", "tab\there \"quotes\" \\ back\u{1}slash", "--model", "ada",
        ])
        try await store.invokeOK(
            ["chat", "say", odd, "--role", "user", "-"], stdin: Data("new\nline\r\n\u{7f} and \u{1f}".utf8))

        var check = SchemaValidator.validate("config", files: [store.configPath], canonical: true)
        #expect(check.passed, "config.json: \(check)")
        check = SchemaValidator.validate("journal-line", files: [store.journalPath], canonical: true)
        #expect(check.passed, "journal.jsonl: \(check)")
        #expect(store.journalBytes().last == 10, "the journal ends with a newline")

        for id in session.chats + session.images + [session.story, odd] {
            let r = await store.invoke(["show", id, "--json"])
            CLIExpect.success(r)
            let kind = String(id.split(separator: "-")[0])
            for schema in [kind, "record"] {
                let c = SchemaValidator.validate(schema, stdin: r.stdoutData, canonical: true)
                #expect(c.passed, "show \(id) --json vs \(schema): \(c)")
            }
        }
        // Every record body object on disk, too.
        for line in store.journalLines() {
            let v = try CLIJSON.parseObject(line)
            guard let body = v["body"] as? String, let kind = v["kind"] as? String else { continue }
            let c = SchemaValidator.validate(kind, files: [store.objectPath(body)], canonical: true)
            #expect(c.passed, "object \(body): \(c)")
        }
        for (args, schema) in [
            (["list", "--json"], "list-output"), (["list", "--json", "--deleted"], "list-output"),
            (["list", "--kind", "story", "--json"], "list-output"),
            (["status", "--json"], "status-output"), (["conflicts", "--json"], "conflicts-output"),
        ] {
            let r = await store.invoke(args)
            CLIExpect.success(r)
            let c = SchemaValidator.validate(schema, stdin: r.stdoutData, canonical: true)
            #expect(c.passed, "\(args) vs \(schema): \(c)")
        }
    }

    @Test func theValidatorRejectsBadInput() async throws {
        // The validator itself must be able to fail, or the schema tests prove nothing.
        try SchemaValidator.requireAvailable()
        let bad = SchemaValidator.validate("list-output", stdin: Data(#"[{"id":"Not An Id","kind":"note"}]"#.utf8))
        #expect(!bad.passed, "\(bad)")
        let notCanonical = SchemaValidator.validate("conflicts-output", stdin: Data("[ ]\n".utf8), canonical: true)
        #expect(!notCanonical.passed, "\(notCanonical)")
    }
}
