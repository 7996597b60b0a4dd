import AISyncTestSupport
import Foundation
import Testing

/// Titles and messages are untrusted: they sync from every other device and every imported
/// export. Human output shows their control characters visibly instead of letting them
/// colour, link or rewrite the terminal; `--json` keeps them exactly (issue 13).
@Suite("Terminal safety")
struct TerminalSafetyTests {
    /// Every C0 control but NUL (argv cannot carry it), DEL, every C1 control, an OSC 8 link,
    /// a colour, a clear-screen and a right-to-left override.
    static let hostile: String = {
        var s = "evil "
        for v in UInt32(1)...0x1F { s.unicodeScalars.append(Unicode.Scalar(v)!) }
        s.unicodeScalars.append(Unicode.Scalar(0x7F)!)
        for v in UInt32(0x80)...0x9F { s.unicodeScalars.append(Unicode.Scalar(v)!) }
        return s
            + "\u{1B}]8;;https://evil.example\u{07}click\u{1B}]8;;\u{07} \u{1B}[31mred\u{1B}[0m \u{1B}[2J \u{202E}txt.exe"
    }()

    /// No control character but newline and tab, no bidi override, in what a terminal gets.
    static func expectSafe(
        _ output: String, _ what: String, showsText: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let bad = output.unicodeScalars.filter { s in
            (s.value < 0x20 && s.value != 0x0A && s.value != 0x09) || (0x7F...0x9F).contains(s.value)
                || (0x202A...0x202E).contains(s.value)
        }
        #expect(
            bad.isEmpty, "\(what) printed raw control characters \(bad.map { String($0.value, radix: 16) })",
            sourceLocation: sourceLocation)
        if showsText {
            #expect(
                output.contains("\\x1b") && output.contains("\\u202e"),
                "\(what) does not show the escape visibly: \(output.prefix(300))", sourceLocation: sourceLocation)
        }
    }

    @Test(
        "hostile titles and messages arriving through a pull are shown escaped by list, show, log and conflicts; --json keeps them exact"
    )
    func escapedThroughAPull() async throws {
        let remote = try await TestServer.require(.folder).freshRemote("terminal")
        let writer = try await Device.make("writer", remote: remote)
        let reader = try await Device.make("reader", remote: remote)
        defer {
            writer.remove()
            reader.remove()
        }
        let chat = try await writer.ok(["chat", "new", "--title", Self.hostile])
        try await writer.ok(
            ["chat", "say", chat, "--role", "user", "-"], stdin: Data(("message " + Self.hostile).utf8))
        try await writer.sync("push")
        try await reader.sync("pull")

        for arguments in [["list"], ["show", chat], ["log", chat]] {
            // Wide enough that list does not shorten the title past its escapes.
            let r = await reader.run(arguments, environment: ["COLUMNS": "4000"])
            #expect(r.succeeded, "\(r)")
            Self.expectSafe(r.stdout, arguments.joined(separator: " "), showsText: arguments[0] != "log")
        }
        // A conflict between two hostile renames.
        try await writer.ok(["rename", chat, "writer " + Self.hostile])
        try await reader.ok(["rename", chat, "reader " + Self.hostile])
        try await writer.sync("push")
        try await reader.sync()
        let conflicts = await reader.run(["conflicts"])
        #expect(conflicts.succeeded && conflicts.stdout.contains("reader"), "\(conflicts)")
        Self.expectSafe(conflicts.stdout, "conflicts")

        // Exact in JSON: the title comes back byte for byte.
        let json = try CLIJSON.object(await reader.run(["show", chat, "--json"]))
        let messages = json["messages"] as? [[String: Any]]
        #expect(messages?.first?["text"] as? String == "message " + Self.hostile)
        await remote.remove()
    }
}

/// A wiped or half-restored store must never empty every other device (issue 13): a push
/// deleting more than max(50, a quarter of the store) stops before sending anything.
@Suite("Mass-delete safeguard", .tags(.servers), .needsServers)
struct MassDeleteTests {
    @Test(
        "deleting 70 of 80 records in one push is refused and names them; nothing reaches the other device; --allow-mass-delete sends it",
        arguments: [RemoteKind.folder] + RemoteKind.s3)
    func refusedUntilAllowed(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("mass-delete")
        let laptop = try await Device.make("laptop", remote: remote)
        let phone = try await Device.make("phone", remote: remote)
        defer {
            laptop.remove()
            phone.remove()
        }
        try await laptop.generate(80)
        try await laptop.sync("push")
        let ids = try CLIJSON.array(await laptop.run(["list", "--json"])).compactMap { $0["id"] as? String }
        try #require(ids.count == 80)
        // 10 deletes: under 50, sent as usual.
        for id in ids.prefix(10) { try await laptop.ok(["rm", id]) }
        try await laptop.sync("push")
        try await phone.sync("pull")
        // 70 more in one push: refused, before anything is sent, for push and sync alike.
        for id in ids.dropFirst(10) { try await laptop.ok(["rm", id]) }
        // A delete undone before the push deletes nothing: 71 deleted, one restored, 70 counted.
        let extra = try await laptop.ok(["chat", "new", "--title", "deleted then restored"])
        try await laptop.ok(["rm", extra])
        try await laptop.ok(["restore", extra])
        let dry = await laptop.run(["push", "--dry-run"])
        #expect(
            dry.exitCode == 0 && dry.stderr.contains("deletes 70 records")
                && dry.stderr.contains("--allow-mass-delete"), "a dry run shows and warns: \(dry)")
        for verb in ["push", "sync"] {
            let refused = await laptop.run([verb])
            #expect(
                refused.exitCode == 64 && refused.stderr.contains("would delete 70 of the 81 records"),
                "\(verb): \(refused)")
            #expect(
                refused.stderr.contains("--allow-mass-delete") && refused.stderr.contains("Generated chat")
                    && !refused.stderr.contains("restored"), "\(verb): \(refused)")
        }
        try await phone.sync("pull")
        #expect(
            try CLIJSON.array(await phone.run(["list", "--json"])).count == 70, "the phone lost records it should keep")
        #expect(try CLIJSON.object(await laptop.run(["push", "--dry-run", "--json"]))["massDelete"] as? Int == 70)
        let allowed = await laptop.run(["push", "--allow-mass-delete"])
        #expect(allowed.succeeded, "\(allowed)")
        try await phone.sync("pull")
        #expect(
            try CLIJSON.array(await phone.run(["list", "--json"])).map { $0["title"] as? String } == [
                "deleted then restored"
            ])
        await remote.remove()
    }
}
