import AISyncCore
import AISyncTestSupport
import Foundation
import Testing

/// `--encrypt` end to end on real servers (issue 12): two devices and a fresh restore sync
/// through Apache, rclone, nginx and a folder; the server's raw files hold no title, message
/// text or picture bytes; each way the server can lie has its own exit code.
@Suite("Encrypted remotes on real servers", .tags(.servers, .python), .needsServers, .needsPython)
struct EncryptedRemoteScenarioTests {
    static let passphrase = "correct horse battery staple"

    /// A device whose remote `origin` is added with `--encrypt`.
    static func encryptedDevice(_ label: String, remote: TestRemote) async throws -> Device {
        var device = try await Device.make(label, remote: remote)
        try await device.ok(["remote", "remove", "origin"])
        try await device.ok(remote.addArguments() + ["--encrypt"])
        device.environment["AISYNC_PASSPHRASE"] = passphrase
        return device
    }

    /// A device on an already encrypted remote that knows the passphrase (from its
    /// environment, as a user's shell would set it).
    static func deviceWithPassphrase(_ label: String, remote: TestRemote) async throws -> Device {
        var device = try await Device.make(label, remote: remote)
        device.environment["AISYNC_PASSPHRASE"] = passphrase
        return device
    }

    /// Every file under `folder`, concatenated with its path.
    static func rawBytes(_ folder: String) throws -> Data {
        var all = Data()
        let files = FileManager.default.subpaths(atPath: folder) ?? []
        #expect(!files.isEmpty, "nothing under \(folder)")
        for file in files {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: "\(folder)/\(file)", isDirectory: &isDirectory),
                !isDirectory.boolValue
            else { continue }
            all += Data(file.utf8) + (FileManager.default.contents(atPath: "\(folder)/\(file)") ?? Data())
        }
        return all
    }

    @Test(
        "two devices and a fresh restore sync; the server's files show nothing of the store",
        arguments: RemoteKind.allCases)
    func twoDevicesAndARestore(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("encrypted")
        let laptop = try await Self.encryptedDevice("laptop", remote: remote)
        // The phone adds the remote without --encrypt: its first sync finds out.
        var phone = try await Device.make("phone", remote: remote)
        var tablet = try await Device.make("tablet", remote: remote)
        defer {
            laptop.remove()
            phone.remove()
            tablet.remove()
        }

        let chat = try await laptop.ok([
            "chat", "new", "--title", "Questions about my thyroid results", "--model", "gpt-4o",
        ])
        try await laptop.ok(["chat", "say", chat, "--role", "user", "My TSH came back at 7.9 mIU/L, should I worry?"])
        let png = CLIHarness.makeTemporaryDirectory() + "/dragon.png"
        let pictureBytes = Data(Scratch.pngBytes)
        try pictureBytes.write(to: URL(fileURLWithPath: png))
        try await laptop.ok(["image", "add", png, "--prompt", "a green dragon for Maya's birthday"])
        try await laptop.sync("push")

        // Without the passphrase a device is told how to give it (no terminal here), and
        // nothing is applied; with a wrong one it is exit 80.
        let none = await phone.run(["pull"])
        #expect(none.exitCode == 78 && none.stderr.contains("AISYNC_PASSPHRASE"), "\(kind): \(none)")
        let wrong = await phone.run(["pull"], environment: ["AISYNC_PASSPHRASE": "not the passphrase"])
        #expect(wrong.exitCode == 80 && wrong.stderr.contains("passphrase"), "\(kind): \(wrong)")
        #expect(try await phone.ok(["list"]).hasPrefix("No records"))
        // --remember keeps the key: the next syncs need no passphrase.
        let first = await phone.run(["sync", "--remember"], environment: ["AISYNC_PASSPHRASE": Self.passphrase])
        #expect(first.succeeded, "\(kind): \(first)")
        phone.environment["AISYNC_PASSPHRASE"] = nil
        try await phone.ok([
            "chat", "say", chat, "--role", "assistant",
            "A TSH of 7.9 is mildly high; ask your doctor about a repeat test.",
        ])
        try await phone.sync()
        try await laptop.sync()

        // A snapshot through the encryption: the fresh restore starts from it.
        let compacted = try CLIJSON.object(await laptop.run(["compact", "--grace", "0", "--json"]))
        #expect(compacted["removedSegments"] as? Int ?? 0 >= 1, "\(kind): \(compacted)")
        // The sweep judges keyed names: the sealed picture is named, not an orphan.
        #expect(
            compacted["sweptOrphans"] as? Bool == (kind != .nginx) && compacted["removedOrphans"] as? Int == 0,
            "\(kind): \(compacted)")
        // A fresh restore on a new machine asks once and brings everything back.
        tablet.environment["AISYNC_PASSPHRASE"] = Self.passphrase
        let restored = try await tablet.sync("pull")
        #expect(
            restored["pulled"] as? Int == compacted["versions"] as? Int,
            "\(kind): restored from the snapshot: \(restored) vs \(compacted)")
        try await Converge.expectIdentical([laptop, phone, tablet], "\(kind): encrypted")
        for d in [laptop, phone, tablet] { try await d.ok(["fsck"]) }
        let remoteList = try await phone.ok(["remote", "list"])
        #expect(remoteList.contains("encrypted"), "\(remoteList)")

        // What the server's admin sees.
        let raw = try Self.rawBytes(try await remote.rawFolder())
        // Each secret is 5 bytes or more: a shorter one turns up in random ciphertext now and
        // then, and "7.9" alone once matched the fraction of a second in keys.json's plain
        // `created` time.
        for secret in ["thyroid", "TSH came", "mIU/L", "doctor", "dragon", "Maya's", "gpt-4o", chat] {
            #expect(raw.range(of: Data(secret.utf8)) == nil, "\(kind): \"\(secret)\" is on the server")
        }
        #expect(raw.range(of: pictureBytes.subdata(in: 16..<48)) == nil, "\(kind): picture bytes are on the server")
        #expect(
            raw.range(of: Data(SHA256.hash(Array(pictureBytes)).hex.utf8)) == nil,
            "\(kind): the picture's sha256 names it on the server")
        await remote.remove()
    }

    @Test("the server lying: each lie has its own exit code and leaves the store as it was")
    func exitCodes() async throws {
        let remote = try await TestServer.require(.folder).freshRemote("encrypted-lies")
        let laptop = try await Self.encryptedDevice("laptop", remote: remote)
        let phone = try await Self.deviceWithPassphrase("phone", remote: remote)
        defer {
            laptop.remove()
            phone.remove()
        }
        let chat = try await laptop.ok(["chat", "new", "--title", "one"])
        try await laptop.sync("push")
        try await phone.sync("pull")
        let folder = try await remote.rawFolder()
        let headPath = try #require(
            FileManager.default.subpaths(atPath: "\(folder)/heads")?.first.map { "\(folder)/heads/\($0)" })
        let oldHead = try Data(contentsOf: URL(fileURLWithPath: headPath))
        try await laptop.ok(["chat", "say", chat, "--role", "user", "two"])
        try await laptop.sync("push")
        try await laptop.ok(["chat", "say", chat, "--role", "user", "three"])
        try await laptop.sync("push")
        let segments = try #require(
            FileManager.default.subpaths(atPath: "\(folder)/segments")?.first { !$0.contains("/") })
        let seg2 = "\(folder)/segments/\(segments)/2.seg"
        let seg3 = "\(folder)/segments/\(segments)/3.seg"
        let good2 = try Data(contentsOf: URL(fileURLWithPath: seg2))
        let good3 = try Data(contentsOf: URL(fileURLWithPath: seg3))
        let before = try await phone.ok(["list", "--json"])

        var flipped = good2
        flipped[flipped.count / 2] ^= 1
        let lies: [(String, Data, Int32)] = [
            ("tampered", flipped, 81), ("truncated", good2.prefix(good2.count - 9), 82), ("swapped", good3, 83),
        ]
        for (lie, bytes, code) in lies {
            try bytes.write(to: URL(fileURLWithPath: seg2))
            let r = await phone.run(["pull"])
            #expect(
                r.exitCode == code && r.stderr.contains("2.seg") && r.stderr.split(separator: "\n").count == 1,
                "\(lie): \(r)")
            #expect(try await phone.ok(["list", "--json"]) == before, "\(lie)")
        }
        try good2.write(to: URL(fileURLWithPath: seg2))
        try await phone.sync("pull")
        // Replaying the old head once the newer one was seen.
        try oldHead.write(to: URL(fileURLWithPath: headPath))
        let replay = await phone.run(["pull"])
        #expect(replay.exitCode == 84 && replay.stderr.contains("replayed"), "\(replay)")
        await remote.remove()
    }

    @Test("passphrase change: the new one opens, the old one no longer does; Imgur needs --public-images")
    func passphraseChangeAndImgur() async throws {
        let remote = try await TestServer.require(.folder).freshRemote("encrypted-change")
        var laptop = try await Self.encryptedDevice("laptop", remote: remote)
        defer { laptop.remove() }
        try await laptop.ok(["chat", "new", "--title", "one"])
        try await laptop.sync("push")
        let short = await laptop.run(["passphrase", "change"], environment: ["AISYNC_NEW_PASSPHRASE": "short"])
        #expect(short.exitCode == 64, "\(short)")
        let changed = await laptop.run(
            ["passphrase", "change"], environment: ["AISYNC_NEW_PASSPHRASE": "a brand new passphrase"])
        #expect(changed.succeeded, "\(changed)")
        let old = await laptop.run(["pull"])
        #expect(old.exitCode == 80, "\(old)")
        laptop.environment["AISYNC_PASSPHRASE"] = "a brand new passphrase"
        try await laptop.sync("pull")
        let keys = try String(contentsOfFile: "\(try await remote.rawFolder())/keys.json", encoding: .utf8)
        try SchemaValidator.requireAvailable()
        for (schema, file) in [
            ("keys", "\(try await remote.rawFolder())/keys.json"),
            ("remote-manifest", "\(try await remote.rawFolder())/aisync.json"),
            ("config", laptop.store.configPath),
        ] {
            let check = SchemaValidator.validate(schema, files: [file], canonical: true)
            #expect(check.passed, "\(schema): \(check)")
        }
        #expect(keys.components(separatedBy: "\"wrapped\"").count == 2, "one slot left: \(keys)")

        let refused = await laptop.run(["imgur", "enable"])
        #expect(refused.exitCode == 78 && refused.stderr.contains("--public-images"), "\(refused)")
        let remoteOnly = await laptop.run(["imgur", "enable", "--images", "remote"])
        #expect(remoteOnly.exitCode == 0, "pictures kept on the remote only need no consent: \(remoteOnly)")
        let allowed = await laptop.run(["imgur", "enable", "--public-images"])
        #expect(allowed.exitCode == 0, "\(allowed)")
        await remote.remove()
    }

    @Test(
        "aisync encrypt seals a plain remote in place; other devices follow with the passphrase; a run cut off is finished by running it again",
        arguments: [RemoteKind.folder, .apache, .nginx])
    func encryptInPlace(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("encrypt-in-place")
        var laptop = try await Device.make("laptop", remote: remote)
        var phone = try await Device.make("phone", remote: remote)
        var tablet = try await Device.make("tablet", remote: remote)
        defer {
            laptop.remove()
            phone.remove()
            tablet.remove()
        }
        let chat = try await laptop.ok(["chat", "new", "--title", "Divorce lawyer questions"])
        let png = CLIHarness.makeTemporaryDirectory() + "/family.png"
        try Data(Scratch.pngBytes).write(to: URL(fileURLWithPath: png))
        try await laptop.ok(["image", "add", png, "--prompt", "our family at the beach"])
        try await laptop.sync()
        try await phone.sync()
        try await phone.ok(["chat", "say", chat, "--role", "user", "How is custody decided?"])
        try await phone.sync()
        // The laptop's first segment as it is now, plain: put back later, as if a run had been cut off before it.
        let folder = try await remote.rawFolder()
        let firstSegment = try #require(
            FileManager.default.subpaths(atPath: "\(folder)/segments")?.first { name in
                name.hasSuffix("/1.seg")
                    && (try? String(contentsOfFile: "\(folder)/segments/\(name)", encoding: .utf8))?.contains("Divorce")
                        == true
            })
        let plainSegment = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/segments/\(firstSegment)"))

        laptop.environment["AISYNC_PASSPHRASE"] = Self.passphrase
        let done = try await laptop.ok(["encrypt", "--remember"])
        #expect(done.contains("1 picture sealed"), "\(done)")
        let raw = try Self.rawBytes(folder)
        for secret in ["Divorce", "custody", "beach", chat] {
            #expect(raw.range(of: Data(secret.utf8)) == nil, "\(kind): \"\(secret)\" is still on the server")
        }
        #expect(
            raw.range(of: Data(Scratch.pngBytes).subdata(in: 16..<48)) == nil,
            "\(kind): picture bytes are still on the server")

        // The phone, without the key, is told; with the passphrase it carries on.
        let told = await phone.run(["sync"])
        #expect(told.exitCode == 78 && told.stderr.contains("encrypted"), "\(kind): \(told)")
        phone.environment["AISYNC_PASSPHRASE"] = Self.passphrase
        try await phone.ok(["chat", "say", chat, "--role", "assistant", "Courts look at the child's best interests."])
        try await phone.sync()
        try await laptop.sync()
        try await Converge.expectIdentical([laptop, phone], "\(kind): after encrypt")

        // A run cut off before that segment: a new device refuses the plain file; a second run seals it.
        try plainSegment.write(to: URL(fileURLWithPath: "\(folder)/segments/\(firstSegment)"))
        tablet.environment["AISYNC_PASSPHRASE"] = Self.passphrase
        let refused = await tablet.run(["pull"])
        #expect(refused.exitCode == 81 && refused.stderr.contains("not encrypted"), "\(kind): \(refused)")
        // Nothing of the refused segment was applied (the phone's good segments may have been).
        #expect(try await !tablet.ok(["list"]).contains("Divorce"))
        let again = try await laptop.ok(["encrypt"])
        #expect(again.hasPrefix("encrypted: 1 file and 0 pictures sealed"), "\(kind): \(again)")
        try await tablet.sync("pull")
        try await Converge.expectIdentical([laptop, phone, tablet], "\(kind): after the second run")
        await remote.remove()
    }

    @Test(
        "an orphan under a keyed name is removed by a later sweep; the sealed picture records name stays and restores")
    func orphanSweepOnAnEncryptedRemote() async throws {
        let remote = try await TestServer.require(.folder).freshRemote("encrypted-orphans")
        let laptop = try await Self.encryptedDevice("laptop", remote: remote)
        let tablet = try await Self.deviceWithPassphrase("tablet", remote: remote)
        defer {
            laptop.remove()
            tablet.remove()
        }
        let png = CLIHarness.makeTemporaryDirectory() + "/dragon.png"
        try Data(Scratch.pngBytes).write(to: URL(fileURLWithPath: png))
        try await laptop.ok(["image", "add", png, "--prompt", "a green dragon"])
        try await laptop.sync("push")
        let folder = try #require(remote.folderPath)
        func objects() -> Set<String> {
            Set((FileManager.default.subpaths(atPath: "\(folder)/objects") ?? []).filter { $0.count == 67 })
        }
        let sealed = objects()
        #expect(sealed.count == 1, "the picture, under its keyed name: \(sealed)")
        // Sealed bytes under a keyed-looking name no version names (a killed push's leftover).
        let stray = String(repeating: "ab", count: 32)
        try FileManager.default.createDirectory(atPath: "\(folder)/objects/ab", withIntermediateDirectories: true)
        try Data("sealed bytes of a picture nobody kept".utf8).write(
            to: URL(fileURLWithPath: "\(folder)/objects/ab/\(stray)"))
        let first = try CLIJSON.object(await laptop.run(["compact", "--grace", "0", "--json"]))
        #expect(first["removedOrphans"] as? Int == 0 && first["waitingOrphans"] as? Int == 1, "\(first)")
        let second = try CLIJSON.object(await laptop.run(["compact", "--grace", "0", "--json"]))
        #expect(second["removedOrphans"] as? Int == 1 && second["waitingOrphans"] as? Int == 0, "\(second)")
        #expect(objects() == sealed, "only the stray went: \(objects())")
        try await tablet.sync("pull")
        try await Converge.expectIdentical([laptop, tablet], "after the sweep")
        try await tablet.ok(["fsck"])
        await remote.remove()
    }
}
