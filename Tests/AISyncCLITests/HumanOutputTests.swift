import AISyncTestSupport
import Foundation
import Testing

/// How people read aisync (issue 13): times local and relative, a list with a header whose
/// rows fit the terminal and keep their place when starred, and help that lines up and wraps.
@Suite("Human output")
struct HumanOutputTests {
    /// The ChatGPT fixture's first chat, "Lisbon trip", was created at 1700000000
    /// (2023-11-14 22:13:20 UTC); it is imported now.
    static func importedStore() throws -> (CLIStore, String) {
        let store = try CLIHarness.makeStore()
        CLIExpect.success(store.run(["import", ImportFixture.path("chatgpt")]))
        let list = try CLIJSON.array(store.run(["list", "--json"]))
        let id = try #require(list.first { $0["title"] as? String == "Lisbon trip" }?["id"] as? String)
        return (store, id)
    }

    @Test(
        "old times are shown in the local time zone (TZ honoured), recent ones as 'just now' or 'N min ago'; --json stays UTC ISO 8601"
    )
    func localAndRelativeTimes() throws {
        let (store, id) = try Self.importedStore()
        defer { store.remove() }
        let utc = store.run(["show", id], environment: ["TZ": "UTC0"])
        let tokyo = store.run(["show", id], environment: ["TZ": "JST-9"])
        let newYork = store.run(["show", id], environment: ["TZ": "EST5"])
        CLIExpect.success(utc)
        #expect(utc.stdout.contains("created 2023-11-14 22:13,"), "\(utc)")
        #expect(tokyo.stdout.contains("created 2023-11-15 07:13,"), "\(tokyo)")
        #expect(newYork.stdout.contains("created 2023-11-14 17:13,"), "\(newYork)")
        #expect(
            !utc.stdout.contains("T22:13:20") && !utc.stdout.contains(".000Z"),
            "no raw ISO times with milliseconds: \(utc)")
        // The list dates an imported chat by the source's last activity (update_time), in the
        // local zone; the log says the version was written just now, whatever the zone.
        let list = store.run(["list"], environment: ["TZ": "JST-9"])
        #expect(list.stdoutLines.first { $0.contains("Lisbon trip") }?.contains("2023-11-15 07:15") == true, "\(list)")
        let log = store.run(["log", id])
        #expect(log.stdoutLines.first?.contains("just now") == true, "\(log)")
        #expect(
            CLIExpect.matches(log.stdoutLines.first ?? "", "^[0-9a-f]{12}  just now +test-device +"),
            "the log names the device: \(log)")
        #expect(
            store.run(["log", "-n1"]).stdoutLines.count == 1 && store.run(["log", "-n", "2"]).stdoutLines.count == 2,
            "-n1 and -n 2 as head takes them")
        CLIExpect.cleanError(store.run(["log", "--limit", "-1"]), code: 64, mentioning: ["0 or more"])
        let json = try CLIJSON.array(store.run(["log", id, "--json"]))
        #expect(
            (json.first?["time"] as? String).map { CLIExpect.matches($0, "^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$") }
                == true, "\(json)")
        let shown = try CLIJSON.object(store.run(["show", id, "--json"]))
        #expect(shown["created"] as? String == "2023-11-14T22:13:20.000Z", "\(shown)")
    }

    @Test("list has a header, shortens long titles to the width, names deleted rows, and a favorite keeps its place")
    func listRows() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let long = String(repeating: "a very long title ", count: 12)
        let old = try #require(await store.invoke(["chat", "new", "--title", "older chat"]).stdoutLines.first)
        let longID = try #require(await store.invoke(["chat", "new", "--title", long]).stdoutLines.first)
        let gone = try #require(await store.invoke(["chat", "new", "--title", "deleted chat"]).stdoutLines.first)
        CLIExpect.success(await store.invoke(["rm", gone]))
        let list = await store.invoke(["list", "--deleted"], environment: ["COLUMNS": "70"])
        CLIExpect.success(list)
        #expect(CLIExpect.matches(list.stdoutLines.first ?? "", "^ID +KIND +UPDATED +TITLE$"), "\(list)")
        #expect(list.stdoutLines.count == 4, "\(list)")
        for line in list.stdoutLines { #expect(line.count <= 70, "a row wider than COLUMNS=70: \(line)") }
        let longRow = try #require(list.stdoutLines.first { $0.hasPrefix(longID) })
        #expect(longRow.hasSuffix("…") && longRow.contains("a very long title"), "\(longRow)")
        let goneRow = try #require(list.stdoutLines.first { $0.hasPrefix(gone) })
        #expect(goneRow.contains("deleted chat") && goneRow.hasSuffix("deleted"), "\(goneRow)")
        let undeleted = await store.invoke(["list"])
        #expect(!undeleted.stdout.contains(gone), "deleted rows only with --deleted")

        // Starring the oldest chat marks it and leaves the order as it was.
        let before = await store.invoke(["list"]).stdoutLines.dropFirst().map {
            String($0.prefix(while: { $0 != " " }))
        }
        CLIExpect.success(await store.invoke(["favorite", old]))
        let after = await store.invoke(["list"])
        #expect(after.stdoutLines.dropFirst().map { String($0.prefix(while: { $0 != " " })) } == before, "\(after)")
        #expect(after.stdoutLines.first { $0.hasPrefix(old) }?.contains("★ older chat") == true, "\(after)")
        let json = try CLIJSON.array(await store.invoke(["list", "--json"]))
        #expect(json.map { $0["id"] as? String } == before.map { Optional($0) }, "\(json)")
        // An edit does move it up.
        CLIExpect.success(await store.invoke(["chat", "say", old, "--role", "user", "back to this one"]))
        #expect(await store.invoke(["list"]).stdoutLines.dropFirst().first?.hasPrefix(old) == true)
        // A whole line of wide characters is cut by columns, not characters.
        CLIExpect.success(await store.invoke(["rename", longID, String(repeating: "絵本", count: 40)]))
        let wide = await store.invoke(["list"], environment: ["COLUMNS": "70"])
        let wideRow = try #require(wide.stdoutLines.first { $0.hasPrefix(longID) })
        let columns = wideRow.reduce(0) { $0 + ($1.unicodeScalars.first!.value >= 0x3000 ? 2 : 1) }
        #expect(columns <= 70 && wideRow.hasSuffix("…"), "\(wideRow) takes \(columns) columns")
    }

    @Test("help: every section of a page starts its descriptions in one column, and lines wrap to COLUMNS")
    func helpLayout() async throws {
        for (args, width) in [
            (["help"], 80), (["help"], 60), (["push", "--help"], 80), (["push", "--help"], 50), (["help", "chat"], 80),
            (["image", "save", "--help"], 64),
        ] {
            let r = await CLIHarness.invoke(args, environment: ["COLUMNS": "\(width)"])
            CLIExpect.success(r)
            var starts = Set<Int>()
            for line in r.stdoutLines {
                #expect(
                    line.count <= width || !line.contains(" ")
                        || line.split(separator: " ").contains { $0.count > width / 2 },
                    "\(args) at \(width) columns: a line of \(line.count): \(line)")
                // A row: two spaces, a name, at least two spaces, a description.
                guard line.hasPrefix("  "), !line.hasPrefix("   "),
                    let gap = line.dropFirst(2).range(of: "  ")
                else { continue }
                let rest = line[gap.upperBound...]
                let column = line.distance(from: line.startIndex, to: gap.upperBound) + rest.prefix { $0 == " " }.count
                starts.insert(column)
            }
            #expect(
                starts.count == 1, "\(args) at \(width): descriptions start at columns \(starts.sorted())\n\(r.stdout)")
        }
    }

    @Test("byte counts are shown as sizes people read")
    func sizes() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let png = CLIFixtures.write(CLIFixtures.png, in: store.directory)
        let image = try #require(await store.invoke(["image", "add", png]).stdoutLines.first)
        let shown = await store.invoke(["show", image])
        #expect(CLIExpect.matches(shown.stdout, "image/png, [0-9.]+ (B|KB)"), "\(shown)")
        CLIExpect.success(await store.invoke(["rm", image]))
        let gc = await store.invoke(["gc"])
        #expect(!gc.stdout.contains(" bytes"), "\(gc)")
    }
}

/// Files aisync may not read or write, as a user without root (setpriv to nobody): the
/// message says which permission is missing (issue 13).
@Suite("Permissions in messages", .tags(.tools), .needsTools("setpriv"))
struct PermissionMessageTests {
    @Test(
        "an unreadable picture, a picture in a closed folder, an unwritable or missing destination each get their own message"
    )
    func permissionMessages() throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let dir = store.directory
        chmod(dir, 0o755)
        _ = CLIHarness.runProcess("/bin/chmod", ["-R", "a+rwX", store.path])
        let readable = CLIFixtures.write(CLIFixtures.png, in: dir)
        chmod(readable, 0o644)
        let image = try #require(
            store.run(["image", "add", readable], asNobody: true).stdoutLines.first, "nobody can add a readable picture"
        )
        let secret = "\(dir)/secret.png"
        try FileManager.default.copyItem(atPath: readable, toPath: secret)
        chmod(secret, 0o600)
        try FileManager.default.createDirectory(atPath: "\(dir)/closed", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: readable, toPath: "\(dir)/closed/inside.png")
        chmod("\(dir)/closed", 0o700)
        try FileManager.default.createDirectory(atPath: "\(dir)/readonly", withIntermediateDirectories: true)
        chmod("\(dir)/readonly", 0o555)
        let journal = store.journalBytes()

        CLIExpect.cleanError(
            store.run(["image", "add", secret], asNobody: true), code: 77,
            mentioning: ["cannot read", "permission denied", "readable by you"])
        CLIExpect.cleanError(
            store.run(["image", "add", "\(dir)/closed/inside.png"], asNobody: true), code: 77,
            mentioning: ["folder", "permissions"])
        let unwritable = store.run(["image", "save", image, "\(dir)/readonly/out.png"], asNobody: true)
        CLIExpect.cleanError(unwritable, code: 77, mentioning: ["cannot write", "readonly"])
        #expect(
            !unwritable.stderr.contains("store directory") && !unwritable.stderr.contains("aisync-tmp"), "\(unwritable)"
        )
        let missing = store.run(["image", "save", image, "\(dir)/nowhere/out.png"], asNobody: true)
        CLIExpect.cleanError(missing, code: 66, mentioning: ["does not exist", "nowhere"])
        #expect(!missing.stderr.contains("aisync-tmp"), "\(missing)")
        #expect(store.journalBytes() == journal)
    }
}
