import AISyncTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Musl)
    @preconcurrency import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bad input of every kind: each must end in one clear `Error: ` line on stderr, the documented
/// exit code, nothing on stdout, no crash, and a store that is exactly as readable as before.
@Suite("BadInputTests", .tags(.python, .tools), .needsPython, .needsTools("setpriv"))
struct BadInputTests {
    /// One bad command line. Placeholders are filled in from a small store made for the case:
    /// {chat} {image} {story} {deleted} a live chat, image, story and a deleted chat;
    /// {dir} a scratch directory; {text} a text file; {empty} an empty file;
    /// {nohex} a 6-hex prefix that is not a version of {chat}; {long} a 1001-character title.
    struct Case: Sendable, CustomTestStringConvertible {
        var args: [String]
        var code: Int32
        var mentioning: [String] = []
        var testDescription: String { "aisync \(args.joined(separator: " ")) → \(code)" }
    }

    static let usageErrors: [Case] = [
        Case(args: ["chat", "new"], code: 64, mentioning: ["--title"]),
        Case(args: ["chat", "new", "--title"], code: 64, mentioning: ["--title", "value"]),
        Case(args: ["chat", "new", "--title", "x", "--bogus"], code: 64, mentioning: ["--bogus"]),
        Case(args: ["chat", "new", "--titel", "x"], code: 64, mentioning: ["Did you mean '--title'"]),
        Case(args: ["chat", "new", "--title", "a", "--title", "b"], code: 64, mentioning: ["--title"]),
        Case(args: ["chat", "new", "--title", "x", "extra"], code: 64, mentioning: ["extra"]),
        Case(args: ["chat", "new", "--title", "{long}"], code: 64, mentioning: ["1000"]),
        Case(args: ["chat", "new", "--title", ""], code: 64, mentioning: ["title is empty"]),
        Case(args: ["chat", "new", "--title", " \t "], code: 64, mentioning: ["title is empty"]),
        Case(args: ["rename", "{chat}", ""], code: 64, mentioning: ["title is empty"]),
        Case(args: ["chat", "say", "{chat}", "--role", "user", ""], code: 64, mentioning: ["message is empty"]),
        Case(args: ["chat", "say", "{chat}", "--role", "user", "  "], code: 64, mentioning: ["message is empty"]),
        Case(args: ["story", "new", "--title", " ", "--page", "p"], code: 64, mentioning: ["title is empty"]),
        Case(args: ["chat", "say", "{chat}", "hi"], code: 64, mentioning: ["--role"]),
        Case(args: ["chat", "say", "{chat}", "--role", "bot", "hi"], code: 64, mentioning: ["bot"]),
        Case(args: ["chat", "say", "{chat}", "--role", "user"], code: 64, mentioning: ["TEXT"]),
        Case(args: ["chat", "say", "{chat}", "--role", "user", "a", "b"], code: 64, mentioning: ["'b'"]),
        Case(
            args: ["chat", "say", "{image}", "--role", "user", "hi"], code: 64, mentioning: ["is an image, not a chat"]),
        Case(args: ["chat", "say", "{story}", "--role", "user", "hi"], code: 64, mentioning: ["not a chat"]),
        Case(args: ["show"], code: 64, mentioning: ["ID"]),
        Case(args: ["show", "{chat}", "extra"], code: 64, mentioning: ["extra"]),
        Case(args: ["show", "Bad_ID!"], code: 64, mentioning: ["not a record id"]),
        Case(args: ["show", "CHAT-0123456789ABCDEF"], code: 64, mentioning: ["not a record id"]),
        Case(args: ["show", "-chat"], code: 64),
        Case(args: ["show", "{long}"], code: 64, mentioning: ["not a record id"]),
        Case(args: ["rename", "{chat}"], code: 64, mentioning: ["TITLE"]),
        Case(args: ["rename", "{chat}", "{long}"], code: 64, mentioning: ["1000"]),
        Case(args: ["rename", "not/an/id", "x"], code: 64, mentioning: ["not a record id"]),
        Case(args: ["favorite", "{chat}", "--off=yes"], code: 64, mentioning: ["--off"]),
        Case(args: ["rm", "{chat}", "--force"], code: 64, mentioning: ["--force"]),
        Case(args: ["rm"], code: 64, mentioning: ["ID"]),
        Case(args: ["list", "--kind", "note"], code: 64, mentioning: ["note"]),
        Case(args: ["list", "--jsno"], code: 64, mentioning: ["Did you mean '--json'"]),
        Case(args: ["list", "extra"], code: 64, mentioning: ["extra"]),
        Case(args: ["story", "new", "--title", "S"], code: 64, mentioning: ["--page"]),
        Case(args: ["story", "new", "--page", "p"], code: 64, mentioning: ["--title"]),
        Case(
            args: ["story", "new", "--title", "S", "--page", "a", "--image", "{image}", "--image", "{image}"], code: 64,
            mentioning: ["2 images for 1 page"]),
        Case(
            args: ["story", "new", "--title", "S", "--page", "a", "--image", "{chat}"], code: 64,
            mentioning: ["not an image"]),
        Case(
            args: ["story", "new", "--title", "S", "--page", "a", "--image", "Not_An_Id"], code: 64,
            mentioning: ["not a record id"]),
        Case(args: ["image", "save", "{chat}", "{dir}/out.png"], code: 64, mentioning: ["not an image"]),
        Case(args: ["image", "save", "{image}"], code: 64, mentioning: ["PATH"]),
        Case(args: ["image", "add"], code: 64, mentioning: ["PATH"]),
        Case(args: ["image", "add", "{dir}"], code: 64, mentioning: ["not a regular file"]),
        Case(args: ["resolve", "{chat}"], code: 64, mentioning: ["--keep"]),
        Case(args: ["resolve", "{chat}", "--keep", "abc"], code: 64, mentioning: ["not a version id"]),
        Case(args: ["resolve", "{chat}", "--keep", "zzzzzzzz"], code: 64, mentioning: ["not a version id"]),
        Case(args: ["log", "Bad_ID!"], code: 64, mentioning: ["not a record id"]),
        Case(args: ["fsck", "extra"], code: 64, mentioning: ["extra"]),
        Case(args: ["init", "--name"], code: 64, mentioning: ["--name"]),
        Case(args: ["nosuchcommand"], code: 64, mentioning: ["no such command"]),
        Case(args: ["chat", "nwe"], code: 64, mentioning: ["Did you mean 'chat new'"]),
        Case(args: ["-x"], code: 64),
        Case(args: ["help", "nosuchcommand"], code: 64, mentioning: ["nosuchcommand"]),
    ]

    static let missingThings: [Case] = [
        Case(args: ["show", "chat-0000000000000000"], code: 66, mentioning: ["chat-0000000000000000"]),
        Case(args: ["show", "chat-0000000000000000", "--json"], code: 66, mentioning: ["chat-0000000000000000"]),
        Case(args: ["show", "{deleted}"], code: 66, mentioning: ["deleted"]),
        Case(args: ["rm", "chat-0000000000000000"], code: 66),
        Case(args: ["conflicts", "chat-0000000000000000"], code: 66, mentioning: ["no record chat-0000000000000000"]),
        Case(args: ["show", "chat-"], code: 64, mentioning: ["matches", "records", "more characters"]),
        Case(args: ["show", "zzzz"], code: 66, mentioning: ["no record zzzz"]),
        Case(args: ["log", "-n", "x"], code: 64, mentioning: ["--limit", "whole number"]),
        Case(args: ["log", "--limit", "-3"], code: 64),
        Case(args: ["rm", "{deleted}"], code: 66, mentioning: ["deleted"]),
        Case(args: ["rename", "chat-0000000000000000", "x"], code: 66),
        Case(args: ["rename", "{deleted}", "x"], code: 66),
        Case(args: ["favorite", "chat-0000000000000000"], code: 66),
        Case(args: ["chat", "say", "chat-0000000000000000", "--role", "user", "hi"], code: 66),
        Case(args: ["chat", "say", "{deleted}", "--role", "user", "hi"], code: 66),
        Case(args: ["log", "chat-0000000000000000"], code: 66),
        Case(args: ["image", "save", "image-0000000000000000", "{dir}/x.png"], code: 66),
        Case(args: ["image", "save", "{image}", "{dir}/no/such/dir/x.png"], code: 66),
        Case(args: ["story", "new", "--title", "S", "--page", "p", "--image", "image-0000000000000000"], code: 66),
        Case(args: ["image", "add", "{dir}/no-such-file.png"], code: 66, mentioning: ["no-such-file.png"]),
        Case(args: ["resolve", "{chat}", "--keep", "{nohex}"], code: 66, mentioning: ["{nohex}"]),
        Case(args: ["resolve", "chat-0000000000000000", "--keep", "abcdef"], code: 66),
    ]

    static let damagedInput: [Case] = [
        Case(args: ["image", "add", "{text}"], code: 65, mentioning: ["not an image"]),
        Case(args: ["image", "add", "{empty}"], code: 65, mentioning: ["not an image"]),
    ]

    /// A small store for one case: a chat with a message, an image, a story and a deleted chat.
    struct Small: Sendable {
        var store: CLIStore
        var values: [String: String]
        func fill(_ args: [String]) -> [String] {
            args.map { arg in
                var out = arg
                for (k, v) in values { out = out.replacingOccurrences(of: "{\(k)}", with: v) }
                return out
            }
        }
    }

    static func makeSmallStore(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Small {
        let store = try CLIHarness.makeStore(sourceLocation: sourceLocation)
        do {
            let chat = try await store.invokeOK(["chat", "new", "--title", "Kept", "--model", "gpt-4o"])
            try await store.invokeOK(["chat", "say", chat, "--role", "user", "Hello"])
            // A message over 4 KiB: its value lives in an object (records v2), the one the
            // object-damage cases below damage.
            try await store.invokeOK([
                "chat", "say", chat, "--role", "assistant",
                "Hello! Kept. " + String(repeating: "A long answer. ", count: 400),
            ])
            let image = try await store.invokeOK([
                "image", "add", CLIFixtures.write(CLIFixtures.png, in: store.directory),
            ])
            let story = try await store.invokeOK(["story", "new", "--title", "Tale", "--page", "p1", "--image", image])
            let deleted = try await store.invokeOK(["chat", "new", "--title", "Gone"])
            try await store.invokeOK(["rm", deleted])
            var versions: [String] = []
            for line in store.journalLines() {
                if let o = try? CLIJSON.parseObject(line), o["record"] as? String == chat, let v = o["id"] as? String {
                    versions.append(v)
                }
            }
            var nohex = "abcdef"
            for p in ["abcdef", "012345", "fedcba", "999999"] where !versions.contains(where: { v in v.hasPrefix(p) }) {
                nohex = p
                break
            }
            let dir = "\(store.directory)/scratch"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let text = CLIFixtures.writeFile(Data("just some text, not an image\n".utf8), in: dir, name: "notes.png")
            let empty = CLIFixtures.writeFile(Data(), in: dir, name: "empty.jpg")
            return Small(
                store: store,
                values: [
                    "chat": chat, "image": image, "story": story, "deleted": deleted, "dir": dir,
                    "text": text, "empty": empty, "nohex": nohex, "long": String(repeating: "x", count: 1001),
                ])
        } catch {
            store.remove()
            throw error
        }
    }

    /// Runs one case and checks the error and that the store did not change.
    static func check(_ c: Case, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let small = try await makeSmallStore(sourceLocation: sourceLocation)
        defer { small.store.remove() }
        let store = small.store
        let before = await store.listSnapshotInProcess()
        let journalBefore = store.journalBytes()
        // The store comes from AISYNC_HOME so the command line is exactly the case's (an
        // appended `--store DIR` would become the value of a trailing option).
        let r = await store.invoke(small.fill(c.args), via: .environment)
        CLIExpect.cleanError(r, code: c.code, mentioning: small.fill(c.mentioning), sourceLocation: sourceLocation)
        #expect(
            store.journalBytes() == journalBefore, "a failed command must not write to the journal",
            sourceLocation: sourceLocation)
        let after = await store.invoke(["list", "--json", "--deleted"])
        #expect(
            after.exitCode == 0 && after.stdout == before, "records must stay readable and unchanged: \(after)",
            sourceLocation: sourceLocation)
        let fsck = await store.invoke(["fsck"])
        #expect(fsck.exitCode == 0, "the store must stay sound: \(fsck)", sourceLocation: sourceLocation)
    }

    @Test(arguments: usageErrors)
    func usageError(_ c: Case) async throws { try await Self.check(c) }

    @Test(arguments: missingThings)
    func missingRecordOrFile(_ c: Case) async throws { try await Self.check(c) }

    @Test(arguments: damagedInput)
    func damagedInputFile(_ c: Case) async throws { try await Self.check(c) }

    /// A command group without its subcommand (or no command at all) is a usage error too:
    /// one `Error:` line on stderr, exit 64, stdout left empty for scripts.
    @Test(arguments: [["chat"], ["image"], ["story"], []] as [[String]])
    func missingSubcommand(_ args: [String]) async {
        let r = await CLIHarness.invoke(args)
        CLIExpect.cleanError(r, code: 64)
    }

    // MARK: non-UTF-8 bytes

    /// Arguments and standard input that are not UTF-8 (raw bytes through /bin/sh and printf).
    static let nonUTF8Scripts: [String] = [
        #""$AISYNC" chat new --title "$(printf '\377\376')" --store "$STORE""#,
        #""$AISYNC" chat new --title "ok$(printf '\300')" --model gpt-4o --store "$STORE""#,
        #""$AISYNC" rename "$CHAT" "$(printf 'caf\351')" --store "$STORE""#,
        #""$AISYNC" chat say "$CHAT" --role user "$(printf '\355\240\200')" --store "$STORE""#,
        #""$AISYNC" show "$(printf 'chat-\377')" --store "$STORE""#,
        #""$AISYNC" image add "$DIR/$(printf '\377').png" --store "$STORE""#,
        #""$AISYNC" list --store "$STORE/$(printf '\377')""#,
        #"printf '\377\376 not utf-8' | "$AISYNC" chat say "$CHAT" --role user - --store "$STORE""#,
    ]

    @Test(arguments: nonUTF8Scripts)
    func nonUTF8BytesAreRejected(_ script: String) async throws {
        let small = try await Self.makeSmallStore()
        defer { small.store.remove() }
        let store = small.store
        // A real file with a non-UTF-8 name, so only the encoding can be the problem.
        _ = CLIHarness.shell(#"printf 'x' > "$DIR/$(printf '\377').png""#, environment: ["DIR": small.values["dir"]!])
        let before = await store.listSnapshotInProcess()
        let journalBefore = store.journalBytes()
        let r = CLIHarness.shell(
            script, environment: ["STORE": store.path, "CHAT": small.values["chat"]!, "DIR": small.values["dir"]!])
        CLIExpect.cleanError(r, code: 64, mentioning: ["UTF-8"])
        #expect(store.journalBytes() == journalBefore)
        #expect(await store.listSnapshotInProcess() == before)
    }

    // MARK: the store itself

    @Test(
        arguments: [
            ["list"], ["list", "--json"], ["status"], ["show", "chat-0000000000000000"], ["log"], ["fsck"],
            ["conflicts"], ["chat", "new", "--title", "x"], ["rm", "chat-0000000000000000"],
        ] as [[String]])
    func noStore(_ args: [String]) async throws {
        let dir = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(dir) }
        let missing = "\(dir)/never-initialized"
        for via in [CLIHarness.StoreVia.option, .environment] {
            let r = await CLIHarness.invoke(args, store: missing, via: via)
            CLIExpect.cleanError(r, code: 66, mentioning: ["aisync init", missing])
        }
        #expect(!FileManager.default.fileExists(atPath: missing), "a failed command must not create the store")
        // Default location: $HOME/.aisync (HOME points at an empty directory).
        let home = await CLIHarness.invoke(args, environment: ["HOME": dir])
        CLIExpect.cleanError(home, code: 66, mentioning: ["aisync init", "\(dir)/.aisync"])
    }

    @Test func initTwiceKeepsTheStore() async throws {
        let small = try await Self.makeSmallStore()
        defer { small.store.remove() }
        let store = small.store
        let config = FileManager.default.contents(atPath: store.configPath)
        let before = await store.listSnapshotInProcess()
        for args in [["init"], ["init", "--name", "other"]] {
            let r = await store.invoke(args)
            CLIExpect.cleanError(r, code: 78, mentioning: ["already"])
        }
        #expect(
            FileManager.default.contents(atPath: store.configPath) == config,
            "init must not touch an existing store's config (device id!)")
        #expect(await store.listSnapshotInProcess() == before)
    }

    @Test(
        arguments: [
            ["list"], ["list", "--json"], ["status", "--json"], ["show", "{chat}"], ["log"], ["fsck"],
            ["chat", "new", "--title", "x"], ["chat", "say", "{chat}", "--role", "user", "hi"], ["rm", "{chat}"],
        ] as [[String]])
    func newerStoreFormat(_ args: [String]) async throws {
        let small = try await Self.makeSmallStore()
        defer { small.store.remove() }
        let store = small.store
        let original = try #require(FileManager.default.contents(atPath: store.configPath))
        let newer = String(decoding: original, as: UTF8.self).replacingOccurrences(
            of: "\"format\":2", with: "\"format\":99")
        #expect(newer != String(decoding: original, as: UTF8.self))
        FileManager.default.createFile(atPath: store.configPath, contents: Data(newer.utf8))
        let journal = store.journalBytes()
        let r = await store.invoke(small.fill(args))
        CLIExpect.cleanError(r, code: 78, mentioning: ["upgrade", "99"])
        #expect(store.journalBytes() == journal, "a newer store must not be written to")
        #expect(FileManager.default.contents(atPath: store.configPath) == Data(newer.utf8))
    }

    @Test func damagedConfig() async throws {
        let small = try await Self.makeSmallStore()
        defer { small.store.remove() }
        let store = small.store
        FileManager.default.createFile(atPath: store.configPath, contents: Data("{\"format\":1,".utf8))
        CLIExpect.cleanError(await store.invoke(["list"]), code: 65, mentioning: ["config.json"])
    }

    // MARK: read-only store

    /// A store the user cannot write: reads work, every write fails with 77 and says why.
    /// As root (which ignores permissions) the commands run as `nobody` through setpriv.
    @Test func readOnlyStore() async throws {
        let small = try await Self.makeSmallStore()
        defer { small.store.remove() }
        let store = small.store
        let asNobody = CLIHarness.isRoot
        if asNobody {
            try #require(
                CLIHarness.which("setpriv") != nil,
                "running as root: setpriv (util-linux) is needed to test a read-only store as `nobody`")
            chmod(store.directory, 0o755)
        }
        let before = await store.listSnapshotInProcess()
        let journal = store.journalBytes()
        let image = CLIFixtures.write(CLIFixtures.gif, in: small.values["dir"]!)
        chmod(small.values["dir"]!, 0o755)
        // A store is its owner's alone (issue 30): for `nobody` to read it, it is opened up
        // the way one shares a store read-only on purpose.
        let ro = CLIHarness.runProcess("/bin/chmod", ["-R", asNobody ? "a-w,go+rX" : "a-w", store.path])
        try #require(ro.exitCode == 0, "\(ro)")
        defer { _ = CLIHarness.runProcess("/bin/chmod", ["-R", "u+w", store.path]) }

        let reads: [[String]] = [
            ["list", "--json", "--deleted"], ["list"], ["show", "{chat}"], ["show", "{image}", "--json"],
            ["status", "--json"], ["log"], ["conflicts", "--json"],
        ]
        for args in reads {
            let r = store.run(small.fill(args), asNobody: asNobody)
            #expect(r.exitCode == 0, "reading a read-only store must work: \(r)")
            CLIExpect.noCrash(r)
            if args == ["list", "--json", "--deleted"] { #expect(r.stdout == before) }
        }
        // fsck reads everything too; a store others can read is its one problem then.
        let fsck = store.run(["fsck"], asNobody: asNobody)
        if asNobody {
            #expect(fsck.exitCode == 65 && fsck.stdout.contains("can be read by other accounts"), "\(fsck)")
        } else {
            #expect(fsck.exitCode == 0, "\(fsck)")
        }
        let outDir = "\(small.values["dir"]!)/out"
        try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
        chmod(outDir, 0o777)
        let out = "\(outDir)/saved.png"
        let save = store.run(small.fill(["image", "save", "{image}", out]), asNobody: asNobody)
        #expect(save.exitCode == 0, "image save reads the store and writes elsewhere: \(save)")
        #expect(FileManager.default.contents(atPath: out) == CLIFixtures.png.bytes)

        let writes: [[String]] = [
            ["chat", "new", "--title", "x"], ["chat", "say", "{chat}", "--role", "user", "hi"],
            ["rename", "{chat}", "new"], ["favorite", "{chat}"], ["rm", "{chat}"],
            ["image", "add", image], ["story", "new", "--title", "S", "--page", "p"],
            ["story", "new", "--title", "S", "--page", "p", "--image", "{image}"],
        ]
        for args in writes {
            let r = store.run(small.fill(args), asNobody: asNobody)
            CLIExpect.cleanError(r, code: 77)
            let message = r.stderr.lowercased()
            #expect(
                message.contains("read-only") || message.contains("permission"),
                "the message should say the store cannot be written: \(r)")
            #expect(message.contains(store.path.lowercased()), "the message should name the store: \(r)")
        }
        #expect(store.journalBytes() == journal)
        #expect(store.run(["list", "--json", "--deleted"], asNobody: asNobody).stdout == before)
    }

    // MARK: journal damage

    @Test func tornFinalLineIsDropped() async throws {
        let small = try await Self.makeSmallStore()
        defer { small.store.remove() }
        let store = small.store
        let before = await store.listSnapshotInProcess()
        let journal = store.journalBytes()
        // Half of a line, no newline: what a crash mid-append leaves.
        let torn = Data(#"{"body":"1f2e3d","clock":{"0123"#.utf8)
        let handle = try #require(FileHandle(forWritingAtPath: store.journalPath))
        handle.seekToEndOfFile()
        handle.write(torn)
        try handle.close()

        let list = await store.invoke(["list", "--json", "--deleted"])
        #expect(list.exitCode == 0, "\(list)")
        #expect(list.stdout == before, "the torn line is not a record")
        #expect(store.journalBytes() == journal, "the torn line is dropped from the journal")
        let fsck = await store.invoke(["fsck"])
        CLIExpect.success(fsck)

        let id = try await store.invokeOK(["chat", "new", "--title", "after the crash"])
        try await store.invokeOK(["chat", "say", id, "--role", "user", "still works"])
        #expect(try store.list().contains { $0["id"] as? String == id })
        try SchemaValidator.requireAvailable()
        let check = SchemaValidator.validate("journal-line", files: [store.journalPath], canonical: true)
        #expect(check.passed, "\(check)")
    }

    @Test func tornCompleteLookingLineIsDroppedByFsckAndWrites() async throws {
        // A whole version line that lacks only its "\n" was never reported as saved: it is
        // dropped (fsck says so on stderr), and the next write starts on a clean line.
        let small = try await Self.makeSmallStore()
        defer { small.store.remove() }
        let store = small.store
        let before = await store.listSnapshotInProcess()
        let journal = store.journalBytes()
        let other = try CLIHarness.makeStore()
        defer { other.remove() }
        _ = try await other.invokeOK(["chat", "new", "--title", "never saved"])
        let donor = other.journalLines()[0]
        let handle = try #require(FileHandle(forWritingAtPath: store.journalPath))
        handle.seekToEndOfFile()
        handle.write(Data(donor.utf8))
        try handle.close()

        let fsck = await store.invoke(["fsck"])
        #expect(fsck.exitCode == 0, "\(fsck)")
        #expect(fsck.stderr.contains("torn"), "fsck should say it dropped a torn line: \(fsck)")
        #expect(store.journalBytes() == journal)
        #expect(await store.listSnapshotInProcess() == before)

        let handle2 = try #require(FileHandle(forWritingAtPath: store.journalPath))
        handle2.seekToEndOfFile()
        handle2.write(Data(donor.utf8))
        try handle2.close()
        let id = try await store.invokeOK(["chat", "new", "--title", "next"])
        let lines = store.journalLines()
        #expect(lines.count == String(decoding: journal, as: UTF8.self).split(separator: "\n").count + 1)
        #expect(try store.list().contains { $0["id"] as? String == id })
        let listed = await store.listSnapshotInProcess()
        #expect(!listed.contains("never saved"))
        try SchemaValidator.requireAvailable()
        let check = SchemaValidator.validate("journal-line", files: [store.journalPath], canonical: true)
        #expect(check.passed, "\(check)")
        CLIExpect.success(await store.invoke(["fsck"]))
    }

    /// Replaces journal line `number` (1-based) with `text`.
    static func damageJournalLine(_ store: CLIStore, _ number: Int, with text: String) {
        var lines = store.journalLines()
        lines[number - 1] = text
        FileManager.default.createFile(
            atPath: store.journalPath, contents: Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    @Test(arguments: [#"{"not":"a version"}"#, "garbage that is not JSON", #"{"body":null,"#])
    func damagedMiddleLineIsReportedWithItsLineNumber(_ damage: String) async throws {
        let small = try await Self.makeSmallStore()
        defer { small.store.remove() }
        let store = small.store
        // A store only ever written to has no index yet; the journal is read in full.
        try? FileManager.default.removeItem(atPath: "\(store.indexPath)/records.v2")
        Self.damageJournalLine(store, 2, with: damage)
        for args in [["list"], ["list", "--json"], ["status"], ["show", "{chat}"], ["log"]] {
            let r = await store.invoke(small.fill(args))
            CLIExpect.cleanError(r, code: 65, mentioning: ["journal.jsonl:2"])
        }
        let fsck = await store.invoke(["fsck"])
        #expect(fsck.exitCode == 65, "\(fsck)")
        #expect(fsck.stdout.contains("journal.jsonl:2:"), "fsck names the line: \(fsck)")
        #expect(fsck.stderrLines.count == 1 && fsck.stderr.hasPrefix("Error: "), "\(fsck)")
        CLIExpect.noCrash(fsck)
    }

    /// Silent damage to a journal line an index already covers (same size, same last bytes, as
    /// bit rot would leave it) is found by fsck, and by every read once the index is rebuilt.
    @Test func damagedMiddleLineIsReportedEvenWithAnIndex() async throws {
        let small = try await Self.makeSmallStore()
        defer { small.store.remove() }
        let store = small.store
        // A fresh index covering every line (what any read leaves behind after a rebuild).
        try? FileManager.default.removeItem(atPath: "\(store.indexPath)/records.v2")
        CLIExpect.success(await store.invoke(["list"]))
        let index = String(
            decoding: FileManager.default.contents(atPath: "\(store.indexPath)/records.v2") ?? Data(), as: UTF8.self)
        #expect(
            index.hasPrefix("aisync-index\t4\t\(store.journalBytes().count)\t\(store.journalLines().count)\t"),
            "the index should cover the whole journal: \(index.prefix(80))")
        let size = store.journalBytes().count
        let line2 = store.journalLines()[1]
        let damaged = line2.replacingOccurrences(of: "\"op\":\"add\"", with: "\"op\":\"ad+\"")
        #expect(damaged != line2 && damaged.utf8.count == line2.utf8.count)
        Self.damageJournalLine(store, 2, with: damaged)
        #expect(store.journalBytes().count == size)
        let fsck = await store.invoke(["fsck"])
        #expect(fsck.exitCode == 65 && fsck.stdout.contains("journal.jsonl:2:"), "\(fsck)")
        // While the index covers the line, reads trust the cache (that is its point: opening a
        // store does not re-read the whole journal); fsck above is what finds silent damage.
        // Without the index, every read reports the line.
        try? FileManager.default.removeItem(atPath: "\(store.indexPath)/records.v2")
        for args in [["list"], ["status", "--json"], ["show", "{chat}"]] {
            let r = await store.invoke(small.fill(args))
            CLIExpect.cleanError(r, code: 65, mentioning: ["journal.jsonl:2"])
        }
    }

    // MARK: object damage

    @Test func objectWhoseBytesNoLongerMatchItsName() async throws {
        let small = try await Self.makeSmallStore()
        defer { small.store.remove() }
        let store = small.store
        let chat = small.values["chat"]!
        let hash = try #require(try store.latestBodyHash(of: chat))
        let object = store.objectPath(hash)
        let good = try #require(FileManager.default.contents(atPath: object))
        let bad = String(decoding: good, as: UTF8.self).replacingOccurrences(of: "Hello", with: "Hellp")
        #expect(Data(bad.utf8) != good)
        chmod(object, 0o644)
        FileManager.default.createFile(atPath: object, contents: Data(bad.utf8))

        for args in [["show", chat], ["show", chat, "--json"], ["chat", "edit", chat, "m-", "x"]] {
            let r = await store.invoke(args)
            CLIExpect.cleanError(r, code: 65, mentioning: [object, "damaged"])
        }
        // Records v2: adding a message or renaming does not read the other messages' objects.
        CLIExpect.success(await store.invoke(["chat", "say", chat, "--role", "user", "more"]))
        CLIExpect.success(await store.invoke(["rename", chat, "x"]))
        let fsck = await store.invoke(["fsck"])
        #expect(fsck.exitCode == 65, "\(fsck)")
        #expect(fsck.stdout.contains(object), "fsck names the damaged object: \(fsck)")
        #expect(fsck.stderrLines.count == 1 && fsck.stderr.hasPrefix("Error: "), "\(fsck)")
        CLIExpect.noCrash(fsck)

        // Everything else is still readable.
        for id in [small.values["image"]!, small.values["story"]!] {
            CLIExpect.success(await store.invoke(["show", id, "--json"]))
        }
        let list = await store.invoke(["list", "--json"])
        #expect(list.exitCode == 0 || list.exitCode == 65, "\(list)")
        if list.exitCode == 0 {
            #expect(list.stdout.contains(small.values["image"]!) && list.stdout.contains(small.values["story"]!))
        }
        CLIExpect.success(
            await store.invoke(["image", "save", small.values["image"]!, "\(small.values["dir"]!)/ok.png"]))
        let id = try await store.invokeOK(["chat", "new", "--title", "new records still work"])
        CLIExpect.success(await store.invoke(["show", id]))
    }

    /// Damage must not be hidden by `list`: it either fails (65) or warns on stderr; it must
    /// not print the damaged chat with an empty title as if all were well.
    @Test func listDoesNotSilentlyHideADamagedBody() async throws {
        let small = try await Self.makeSmallStore()
        defer { small.store.remove() }
        let store = small.store
        let chat = small.values["chat"]!
        let object = store.objectPath(try #require(try store.latestBodyHash(of: chat)))
        let good = try #require(FileManager.default.contents(atPath: object))
        FileManager.default.createFile(
            atPath: object,
            contents: Data(String(decoding: good, as: UTF8.self).replacingOccurrences(of: "Kept", with: "Kapt").utf8))
        try? FileManager.default.removeItem(atPath: "\(store.indexPath)/records.v2")
        let r = await store.invoke(["list", "--json"])
        CLIExpect.noCrash(r)
        if r.exitCode == 0 {
            // Records v2 keep the title in the journal, so a damaged message object leaves the
            // listing right; otherwise list must say something about the damage.
            let listed = (try? CLIJSON.array(r))?.first { $0["id"] as? String == chat }
            #expect(
                r.stderr.contains(object) || r.stderr.contains(chat) || listed?["title"] as? String == "Kept",
                "list exits 0 without a word about the damaged object \(object) and shows the chat as \(listed ?? [:]): \(r)"
            )
        } else {
            CLIExpect.cleanError(r, code: 65, mentioning: [object])
        }
    }

    /// The index is a cache: once a damaged object is restored (fsck says all is well), `list`
    /// must show the record as it is, not what it derived while the object was damaged.
    @Test func listRecoversOnceADamagedObjectIsRestored() async throws {
        let small = try await Self.makeSmallStore()
        defer { small.store.remove() }
        let store = small.store
        let chat = small.values["chat"]!
        let object = store.objectPath(try #require(try store.latestBodyHash(of: chat)))
        let good = try #require(FileManager.default.contents(atPath: object))
        let before = try store.list()
        #expect(before.first { $0["id"] as? String == chat }?["title"] as? String == "Kept")
        // Damage it, let `list` (and its index) see the damage, then restore the bytes.
        try? FileManager.default.removeItem(atPath: "\(store.indexPath)/records.v2")
        FileManager.default.createFile(
            atPath: object,
            contents: Data(String(decoding: good, as: UTF8.self).replacingOccurrences(of: "Kept", with: "Kapt").utf8))
        _ = await store.invoke(["list", "--json"])
        FileManager.default.createFile(atPath: object, contents: good)
        CLIExpect.success(await store.invoke(["fsck"]))
        #expect(try store.show(chat)["title"] as? String == "Kept")
        let after = try store.list()
        #expect(
            after.first { $0["id"] as? String == chat }?["title"] as? String == "Kept",
            "list still shows what it derived from the damaged object: \(after.first { $0["id"] as? String == chat } ?? [:])"
        )
    }

    @Test func damagedImageBytes() async throws {
        let small = try await Self.makeSmallStore()
        defer { small.store.remove() }
        let store = small.store
        let image = small.values["image"]!
        let hash = try #require(try store.show(image)["sha256"] as? String)
        let object = store.objectPath(hash)
        var bytes = try #require(FileManager.default.contents(atPath: object))
        bytes[bytes.count / 2] ^= 0xFF
        FileManager.default.createFile(atPath: object, contents: bytes)
        let out = "\(small.values["dir"]!)/out.png"
        let r = await store.invoke(["image", "save", image, out])
        CLIExpect.cleanError(r, code: 65, mentioning: [object])
        #expect(
            !FileManager.default.fileExists(atPath: out), "no damaged or partial file may be left at the destination")
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: small.values["dir"]!)) ?? []
        #expect(!leftovers.contains { $0.hasPrefix("out.png") }, "no temp file left behind: \(leftovers)")
        let fsck = await store.invoke(["fsck"])
        #expect(fsck.exitCode == 65 && fsck.stdout.contains(object), "\(fsck)")
        CLIExpect.success(await store.invoke(["show", small.values["chat"]!]))
    }

    @Test func missingObject() async throws {
        let small = try await Self.makeSmallStore()
        defer { small.store.remove() }
        let store = small.store
        let chat = small.values["chat"]!
        let hash = try #require(try store.latestBodyHash(of: chat))
        try FileManager.default.removeItem(atPath: store.objectPath(hash))
        CLIExpect.cleanError(await store.invoke(["show", chat]), code: 65, mentioning: [hash, "missing"])
        let fsck = await store.invoke(["fsck"])
        #expect(fsck.exitCode == 65 && fsck.stdout.contains(hash) && fsck.stdout.contains("missing"), "\(fsck)")
        CLIExpect.success(await store.invoke(["show", small.values["story"]!]))
    }
}
