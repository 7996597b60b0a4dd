import AISyncCore
import AISyncTestSupport
import Foundation
import Testing

/// Snapshots and compaction (docs/DESIGN.md §5.7) on every kind of remote: a new device
/// restores from the newest snapshot plus what came after it; a device offline across a
/// compaction finds its next segment removed and falls back to the snapshot; two devices
/// compacting at once; nothing lost anywhere (identical stores, fsck clean).
@Suite("Compaction", .tags(.servers), .needsServers)
struct CompactionTests {
    /// Chats renamed many times (most versions superseded), messages added and one removed,
    /// one chat deleted: history with plenty to leave out, and every kind of operation.
    private func makeHistory(on laptop: Device, rounds: Int) async throws -> [String] {
        var chats: [String] = []
        for n in 0..<4 { chats.append(try await laptop.ok(["chat", "new", "--title", "chat \(n)"])) }
        try await laptop.ok(["chat", "say", chats[0], "--role", "user", "a message that stays"])
        try await laptop.ok(["chat", "say", chats[0], "--role", "assistant", "a message that goes"])
        try await laptop.sync("push")
        for round in 0..<rounds {
            for chat in chats { try await laptop.ok(["rename", chat, "chat renamed \(round)"]) }
            try await laptop.sync("push")
        }
        let shown = try await Scenario.show(laptop, chats[0])
        let goes =
            (shown["messages"] as? [[String: Any]] ?? []).first { $0["text"] as? String == "a message that goes" }?[
                "id"] as? String
        try await laptop.ok(["chat", "rm", chats[0], try #require(goes)])
        try await laptop.ok(["rm", chats[3]])
        try await laptop.sync("push")
        return chats
    }

    private func journalLines(_ device: Device) throws -> Int {
        try String(contentsOfFile: "\(device.store.path)/journal.jsonl", encoding: .utf8).split(separator: "\n").count
    }

    @Test(
        "a new device restores from the snapshot; one offline across the compaction falls back to it; nothing lost",
        arguments: RemoteKind.allCases)
    func restoreAndFallBack(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("compact")
        let laptop = try await Device.make("laptop", remote: remote)
        let phone = try await Device.make("phone", remote: remote)
        let tablet = try await Device.make("tablet", remote: remote)
        defer {
            laptop.remove()
            phone.remove()
            tablet.remove()
        }

        try await laptop.ok(["chat", "new", "--title", "before the phone went offline"])
        try await laptop.sync("push")
        try await phone.sync()  // then the phone stays offline for a while
        let chats = try await makeHistory(on: laptop, rounds: 4)

        let report = try CLIJSON.object(await laptop.run(["compact", "--grace", "0", "--json"]))
        #expect(report["removedSegments"] as? Int ?? 0 >= 6, "\(kind): \(report)")
        #expect(report["dropped"] as? Int ?? 0 >= 12, "superseded renames are left out: \(report)")

        // A new device gets only what the state needs.
        let restore = try await tablet.sync()
        #expect(restore["pulled"] as? Int == report["versions"] as? Int, "\(kind): \(restore) vs \(report)")
        #expect(try journalLines(tablet) < journalLines(laptop))
        // The phone's next segment is gone: it merges the snapshot instead, and misses nothing.
        try await phone.sync()
        try await Converge.expectIdentical([laptop, phone, tablet], "\(kind): after the compaction")
        #expect(try await Scenario.show(tablet, chats[0])["title"] as? String == "chat renamed 3")

        // Work goes on after the compaction, in every direction.
        try await tablet.ok(["rename", chats[1], "renamed on the tablet"])
        try await tablet.sync()
        try await phone.ok(["chat", "say", chats[2], "--role", "user", "from the phone"])
        try await phone.sync()
        for d in [laptop, tablet, phone, laptop] { try await d.sync() }
        try await Converge.expectIdentical([laptop, phone, tablet], "\(kind): after more work")
        for d in [laptop, phone, tablet] { try await d.ok(["fsck"]) }
        await remote.remove()
    }

    @Test("within the grace period nothing is removed, and a new device still starts from the snapshot")
    func graceKeepsSegments() async throws {
        let remote = try await TestServer.require(.folder).freshRemote("compact-grace")
        let laptop = try await Device.make("laptop", remote: remote)
        let tablet = try await Device.make("tablet", remote: remote)
        defer {
            laptop.remove()
            tablet.remove()
        }
        _ = try await makeHistory(on: laptop, rounds: 3)
        let folder = try #require(remote.folderPath)
        let segments = try FileManager.default.subpathsOfDirectory(atPath: "\(folder)/segments").filter {
            $0.hasSuffix(".seg")
        }
        let report = try CLIJSON.object(await laptop.run(["compact", "--json"]))
        #expect(report["removedSegments"] as? Int == 0 && report["removedSnapshotParts"] as? Int == 0, "\(report)")
        #expect(
            try FileManager.default.subpathsOfDirectory(atPath: "\(folder)/segments").filter { $0.hasSuffix(".seg") }
                == segments)
        let manifest = try String(contentsOfFile: "\(folder)/aisync.json", encoding: .utf8)
        #expect(manifest.contains("\"format\":3"), "a remote with snapshots tells older aisync to upgrade: \(manifest)")
        // A second compaction past the grace period (0 days) removes the segments and the first snapshot.
        try await laptop.ok([
            "rename", try #require(try await laptop.list(deleted: false).first?["id"] as? String), "one more",
        ])
        let second = try CLIJSON.object(await laptop.run(["compact", "--grace", "0", "--json"]))
        #expect(
            second["snapshot"] as? Int == 2 && second["removedSnapshotParts"] as? Int == 1
                && second["removedSegments"] as? Int ?? 0 > 0, "\(second)")
        let restore = try await tablet.sync()
        #expect(restore["segments"] as? Int == 1, "one snapshot part, no segment: \(restore)")
        try await Converge.expectIdentical([laptop, tablet], "after two compactions")
        try await tablet.ok(["fsck"])
        await remote.remove()
    }

    @Test(
        "a push past AISYNC_AUTO_COMPACT_BYTES writes a snapshot by itself (not the first upload), and the next only once it pushed more than that"
    )
    func automaticSnapshots() async throws {
        let remote = try await TestServer.require(.folder).freshRemote("compact-auto")
        var laptop = try await Device.make("laptop", remote: remote)
        let tablet = try await Device.make("tablet", remote: remote)
        defer {
            laptop.remove()
            tablet.remove()
        }
        laptop.environment["AISYNC_AUTO_COMPACT_BYTES"] = "1"
        let folder = try #require(remote.folderPath)
        func snapshots() -> [String] {
            ((try? FileManager.default.subpathsOfDirectory(atPath: "\(folder)/snapshots")) ?? []).filter {
                $0.hasSuffix(".snap")
            }.sorted()
        }
        let chat = try await laptop.ok(["chat", "new", "--title", "a chat with a long first message"])
        try await laptop.ok(["chat", "say", chat, "--role", "user", String(repeating: "long ", count: 400)])
        try await laptop.sync("push")
        #expect(snapshots().isEmpty, "a history uploaded in one push has nothing superseded: \(snapshots())")
        try await laptop.ok(["chat", "say", chat, "--role", "assistant", String(repeating: "longer ", count: 400)])
        try await laptop.sync("push")
        #expect(snapshots().count == 1, "the second push passed 1 byte: \(snapshots())")
        // A small push is less than the snapshot's size: no new snapshot.
        try await laptop.ok(["rename", chat, "x"])
        try await laptop.sync("push")
        #expect(snapshots().count == 1, "\(snapshots())")
        let head = try String(
            contentsOfFile: try #require(
                FileManager.default.subpathsOfDirectory(atPath: "\(folder)/heads").first.map { "\(folder)/heads/\($0)" }
            ), encoding: .utf8)
        #expect(head.contains("\"snapshot\":{"), "the head still names the snapshot after a push: \(head)")
        try await tablet.sync()
        try await Converge.expectIdentical([laptop, tablet], "after an automatic snapshot")
        // Turned off with 0; a value that is not a number is one clear line.
        laptop.environment["AISYNC_AUTO_COMPACT_BYTES"] = "lots"
        let bad = await laptop.run(["push"])
        #expect(bad.exitCode == 64 && bad.stderr.contains("AISYNC_AUTO_COMPACT_BYTES must be a whole number"), "\(bad)")
        await remote.remove()
    }

    @Test("a store restored from a backup older than its own compaction syncs again, nothing lost")
    func backupOlderThanCompaction() async throws {
        let remote = try await TestServer.require(.folder).freshRemote("compact-backup")
        let laptop = try await Device.make("laptop", remote: remote)
        let phone = try await Device.make("phone", remote: remote)
        defer {
            laptop.remove()
            phone.remove()
        }
        let chat = try await laptop.ok(["chat", "new", "--title", "before the backup"])
        try await laptop.sync("push")
        let backup = "\(laptop.store.directory)/backup"
        try FileManager.default.copyItem(atPath: laptop.store.path, toPath: backup)
        try await laptop.ok(["chat", "say", chat, "--role", "user", "after the backup"])
        try await laptop.sync("push")
        try await laptop.ok(["rename", chat, "renamed after the backup"])
        try await laptop.ok(["compact", "--grace", "0"])
        try FileManager.default.removeItem(atPath: laptop.store.path)
        try FileManager.default.moveItem(atPath: backup, toPath: laptop.store.path)
        try await laptop.ok(["chat", "new", "--title", "written on the restored store"])
        try await laptop.ok(["sync"])
        try await phone.sync()
        try await laptop.ok(["sync"])
        try await Converge.expectIdentical([laptop, phone], "a backup older than a compaction")
        let shown = try await Scenario.show(phone, chat)
        #expect(shown["title"] as? String == "renamed after the backup")
        #expect((shown["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String } == ["after the backup"])
        #expect(
            try await phone.list(deleted: false).contains { $0["title"] as? String == "written on the restored store" })
        for d in [laptop, phone] { try await d.ok(["fsck"]) }
        await remote.remove()
    }

    @Test(
        "two devices compacting at once: both snapshots are valid and every device converges",
        arguments: RemoteKind.allCases)
    func twoDevicesCompactAtOnce(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("compact-race")
        let laptop = try await Device.make("laptop", remote: remote)
        let phone = try await Device.make("phone", remote: remote)
        let tablet = try await Device.make("tablet", remote: remote)
        defer {
            laptop.remove()
            phone.remove()
            tablet.remove()
        }
        let chats = try await makeHistory(on: laptop, rounds: 2)
        try await phone.sync()
        try await phone.ok(["rename", chats[1], "renamed on the phone"])
        try await phone.sync()
        try await laptop.sync()
        async let a = laptop.runNow(["compact", "--grace", "0", "--json"])
        async let b = phone.runNow(["compact", "--grace", "0", "--json"])
        let (ra, rb) = await (a, b)
        #expect(ra.exitCode == 0 && rb.exitCode == 0, "\(kind): \(ra)\n\(rb)")
        try await tablet.sync()
        for d in [laptop, phone, tablet, laptop] { try await d.sync() }
        try await Converge.expectIdentical([laptop, phone, tablet], "\(kind): after compacting at once")
        #expect(try await Scenario.show(tablet, chats[1])["title"] as? String == "renamed on the phone")
        for d in [laptop, phone, tablet] { try await d.ok(["fsck"]) }
        await remote.remove()
    }

    @Test(
        "orphan pictures on the remote are removed only by a later sweep, past the grace period; named ones and odd files stay; a push never sweeps",
        arguments: RemoteKind.allCases)
    func orphanPictures(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("compact-orphans")
        var laptop = try await Device.make("laptop", remote: remote)
        let tablet = try await Device.make("tablet", remote: remote)
        defer {
            laptop.remove()
            tablet.remove()
        }
        let png = CLIHarness.makeTemporaryDirectory() + "/kept.png"
        try Data(Scratch.pngBytes).write(to: URL(fileURLWithPath: png))
        try await laptop.ok(["image", "add", png, "--prompt", "a picture a record names"])
        try await laptop.sync("push")
        let kept =
            "objects/\(SHA256.hash(Scratch.pngBytes).hex.prefix(2))/\(SHA256.hash(Scratch.pngBytes).hex)"
        #expect(try await remote.fileExists(kept), "\(kind): the picture was pushed")
        // What a push killed between its picture and its segment leaves, and a file that is
        // not an object at all.
        let orphanBytes = Array("picture bytes no version names".utf8)
        let orphanHex = SHA256.hash(orphanBytes).hex
        let orphan = "objects/\(orphanHex.prefix(2))/\(orphanHex)"
        let odd = "objects/\(orphanHex.prefix(2))/README.txt"
        try await put(orphan, Data(orphanBytes), on: remote)
        try await put(odd, Data("left by an admin".utf8), on: remote)

        // The snapshot a push writes by itself does not sweep: that push has not pulled.
        laptop.environment["AISYNC_AUTO_COMPACT_BYTES"] = "1"
        try await laptop.ok([
            "rename", try #require(try await laptop.list(deleted: false).first?["id"] as? String), "renamed",
        ])
        try await laptop.sync("push")
        laptop.environment["AISYNC_AUTO_COMPACT_BYTES"] = nil
        let checkpoint = try String(contentsOfFile: "\(laptop.store.path)/sync/origin.json", encoding: .utf8)
        #expect(checkpoint.contains("\"snapshots\"") && !checkpoint.contains("orphan"), "\(kind): \(checkpoint)")

        let first = try CLIJSON.object(await laptop.run(["compact", "--json"]))
        guard kind != .nginx else {
            #expect(
                first["sweptOrphans"] as? Bool == false && first["removedOrphans"] as? Int == 0,
                "plain HTTP cannot list: \(first)")
            #expect(try await remote.fileExists(orphan))
            await remote.remove()
            return
        }
        #expect(
            first["sweptOrphans"] as? Bool == true && first["removedOrphans"] as? Int == 0
                && first["waitingOrphans"] as? Int == 1,
            "\(kind): found, kept for the grace period: \(first)")
        #expect(try await remote.fileExists(orphan))
        // Another orphan appears (a device between its picture and its segment): even with no
        // grace, the sweep that first finds it keeps it.
        let lateBytes = Array("uploaded just before the sweep".utf8)
        let late = "objects/\(SHA256.hash(lateBytes).hex.prefix(2))/\(SHA256.hash(lateBytes).hex)"
        try await put(late, Data(lateBytes), on: remote)
        let second = try CLIJSON.object(await laptop.run(["compact", "--grace", "0", "--json"]))
        #expect(second["removedOrphans"] as? Int == 1 && second["waitingOrphans"] as? Int == 1, "\(kind): \(second)")
        #expect(try await !remote.fileExists(orphan), "\(kind): the orphan is gone")
        #expect(try await remote.fileExists(late), "\(kind): found for the first time, kept")
        let third = try CLIJSON.object(await laptop.run(["compact", "--grace", "0", "--json"]))
        #expect(third["removedOrphans"] as? Int == 1 && third["waitingOrphans"] as? Int == 0, "\(kind): \(third)")
        #expect(try await !remote.fileExists(late), "\(kind): removed by the next sweep")
        #expect(try await remote.fileExists(kept), "\(kind): the named picture stays")
        #expect(try await remote.fileExists(odd), "\(kind): a file that is not an object stays")
        // Nothing the records need went with it.
        try await tablet.sync()
        try await Converge.expectIdentical([laptop, tablet], "\(kind): after the sweep")
        try await tablet.ok(["fsck"])
        await remote.remove()
    }

    /// Writes a file onto the remote without aisync, as the server's own user would.
    private func put(_ path: String, _ bytes: Data, on remote: TestRemote) async throws {
        guard remote.kind.isServer else {
            let full = "\(try #require(remote.folderPath))/\(path)"
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try bytes.write(to: URL(fileURLWithPath: full))
            return
        }
        if remote.kind.isS3 {
            let r = try await remote.server.s3Client.send("PUT", "\(remote.s3Prefix)/\(path)", body: bytes)
            try #require(r.status == 200, "PUT \(path) answered \(r.status): \(r.text)")
            return
        }
        if !remote.kind.isPlain {
            var folder = ""
            for part in path.split(separator: "/").dropLast() {
                folder += "/\(part)"
                // 405 when it exists
                _ = try await RemoteHTTP.send("MKCOL", "\(remote.url)\(folder)/", server: remote.server)
            }
        }
        let r = try await RemoteHTTP.send("PUT", "\(remote.url)/\(path)", server: remote.server, body: bytes)
        try #require((200..<300).contains(r.status), "PUT \(path) answered \(r.status): \(r.text)")
    }
}
