import AISync
import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncRemote
@testable import AISyncStore
@testable import AISyncSync
@testable import AISyncTesting

/// Sync through an encrypted remote (issue 12): the server holds only ciphertext, and every
/// way it can lie — a changed, cut, moved, replayed or unencrypted file — fails closed with
/// its own error code and leaves the store as it was.
@Suite("Encrypted remotes")
struct EncryptedSyncTests {
    typealias T = SyncEngineTests

    static func keys(_ seed: UInt8) -> RemoteKeys {
        RemoteKeys(remoteID: String(repeating: "5e", count: 16), master: [UInt8](repeating: seed, count: 32))
    }

    static func encrypted(_ raw: InMemoryRemote, keys: RemoteKeys = keys(1)) -> EncryptedRemote {
        EncryptedRemote(raw, keys: keys, environment: T.environment())
    }

    /// Every path and byte the server holds, concatenated.
    static func everything(_ raw: InMemoryRemote) async -> [UInt8] {
        var all: [UInt8] = []
        for path in await raw.paths { all += Array(path.utf8) + (await raw.contents(path) ?? []) }
        return all
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count, let first = needle.first else { return false }
        var i = 0
        while i <= haystack.count - needle.count {
            if haystack[i] == first, Array(haystack[i..<(i + needle.count)]) == needle { return true }
            i += 1
        }
        return false
    }

    @Test("two devices sync chats and a picture; the server sees no title, text, picture byte or sha256")
    func roundTrip() async throws {
        let dir = T.makeDirectory("enc-roundtrip")
        defer { T.removeDirectory(dir) }
        let a = try T.makeStore(in: dir, "a")
        let b = try T.makeStore(in: dir, "b")
        let raw = InMemoryRemote()
        let chat = try await a.createChat(title: "Blood pressure worries", model: "gpt-4o")
        try await a.appendMessage(to: chat, role: .user, text: "My reading was 150 over 95 this morning")
        let png = "\(dir)/red.png"
        FileManager.default.createFile(atPath: png, contents: Data(T.pngBytes))
        let image = try await a.addImage(
            fileAt: png, title: "Lily's dragon", prompt: "a dragon for Lily", model: "dall-e-3")
        _ = try await T.engine(a, Self.encrypted(raw)).push()
        let pulled = try await T.engine(b, Self.encrypted(raw)).pull()
        #expect(pulled.blobs == 1)
        let va = try await T.visible(a)
        let vb = try await T.visible(b)
        #expect(va == vb)

        let all = await Self.everything(raw)
        for secret in ["Blood pressure", "150 over 95", "Lily", "dragon", "gpt-4o", chat.rawValue, image.rawValue] {
            #expect(!Self.contains(all, Array(secret.utf8)), "\(secret) is on the server")
        }
        #expect(!Self.contains(all, Array(T.pngBytes.dropFirst(16).prefix(24))), "picture bytes are on the server")
        let digest = SHA256.hash(T.pngBytes)
        #expect(!Self.contains(all, Array(digest.hex.utf8)), "the picture's sha256 names it on the server")
        let objectName = Self.keys(1).objectName(digest)
        #expect(await raw.paths.contains("objects/\(objectName.prefix(2))/\(objectName)"))
        let manifest = try #require(await raw.contents("aisync.json"))
        #expect(String(decoding: manifest, as: UTF8.self).contains("\"encrypted\":true"))
    }

    enum Damage: String, CaseIterable, Sendable {
        case flippedByte, truncated, swapped, plaintext, otherKey
        var code: AISyncError.Code {
            switch self {
            case .flippedByte, .plaintext, .otherKey: .tampered
            case .truncated: .truncated
            case .swapped: .misplaced
            }
        }
    }

    @Test("a damaged segment fails closed with its own code, and nothing is applied", arguments: Damage.allCases)
    func damagedSegment(_ damage: Damage) async throws {
        let dir = T.makeDirectory("enc-damage")
        defer { T.removeDirectory(dir) }
        let a = try T.makeStore(in: dir, "a")
        let b = try T.makeStore(in: dir, "b")
        let raw = InMemoryRemote()
        let eb = T.engine(b, Self.encrypted(raw))
        _ = try await b.createChat(title: "B's", model: nil)
        _ = try await eb.push()
        let ea = T.engine(a, Self.encrypted(raw))
        let chat = try await a.createChat(title: "first", model: nil)
        _ = try await ea.push()
        try await a.appendMessage(to: chat, role: .user, text: "second")
        _ = try await ea.push()
        let one = RemotePath.segmentPath(a.deviceID, 1)
        let two = RemotePath.segmentPath(a.deviceID, 2)
        let original = try #require(await raw.contents(one))
        switch damage {
        case .flippedByte:
            var bad = original
            bad[bad.count / 2] ^= 0x20
            await raw.setContents(one, bad)
        case .truncated:
            await raw.setContents(one, Array(original.dropLast(7)))
        case .swapped:
            await raw.setContents(one, await raw.contents(two))
        case .plaintext:
            await raw.setContents(one, Array("{\"format\":1}\n".utf8))
        case .otherKey:
            let forged = SealedFile.seal(
                Array("{}".utf8), dataKey: Self.keys(2).dataKey, salt: [UInt8](repeating: 1, count: 24),
                binding: SealedFile.Binding(remoteID: Self.keys(1).remoteID, path: one))
            await raw.setContents(one, forged)
        }
        let before = try await T.untouched(b)
        var caught: AISyncError?
        do { _ = try await eb.pull() } catch { caught = error }
        #expect(caught?.code == damage.code, "\(String(describing: caught))")
        #expect(caught?.message.contains(one) == true, "\(String(describing: caught))")
        #expect(try await T.untouched(b) == before)
        await raw.setContents(one, original)
        #expect(try await eb.pull().pulled == 2)
    }

    @Test("an old head served again after a newer one was seen is a replay; the device's own too")
    func replayedHead() async throws {
        let dir = T.makeDirectory("enc-replay")
        defer { T.removeDirectory(dir) }
        let a = try T.makeStore(in: dir, "a")
        let b = try T.makeStore(in: dir, "b")
        let raw = InMemoryRemote()
        let ea = T.engine(a, Self.encrypted(raw))
        let eb = T.engine(b, Self.encrypted(raw))
        let chat = try await a.createChat(title: "one", model: nil)
        _ = try await ea.push()
        let head = RemotePath.headPath(a.deviceID)
        let old = try #require(await raw.contents(head))
        try await a.appendMessage(to: chat, role: .user, text: "two")
        _ = try await ea.push()
        _ = try await eb.pull()
        let current = try #require(await raw.contents(head))
        await raw.setContents(head, old)
        let before = try await T.untouched(b)
        var caught: AISyncError?
        do { _ = try await eb.pull() } catch { caught = error }
        #expect(caught?.code == .replayed, "\(String(describing: caught))")
        #expect(try await T.untouched(b) == before)
        // The writer itself notices its own head went back.
        try await a.appendMessage(to: chat, role: .user, text: "three")
        caught = nil
        do { _ = try await ea.push() } catch { caught = error }
        #expect(caught?.code == .replayed, "\(String(describing: caught))")
        await raw.setContents(head, current)
        _ = try await ea.push()
        _ = try await eb.pull()
        #expect(try await T.visible(a) == T.visible(b))
    }

    @Test("a manifest that drops encryption or names another remote is refused before anything is sent")
    func strippedManifest() async throws {
        let dir = T.makeDirectory("enc-manifest")
        defer { T.removeDirectory(dir) }
        let a = try T.makeStore(in: dir, "a")
        let raw = InMemoryRemote()
        _ = try await a.createChat(title: "one", model: nil)
        _ = try await T.engine(a, Self.encrypted(raw)).push()
        let manifest = try #require(await raw.contents("aisync.json"))
        let text = String(decoding: manifest, as: UTF8.self)
        for forged in [
            text.replacingOccurrences(of: ",\"encrypted\":true", with: "").replacingOccurrences(
                of: "\"format\":4", with: "\"format\":2"),
            text.replacingOccurrences(of: String(repeating: "5e", count: 16), with: String(repeating: "6f", count: 16)),
        ] {
            await raw.setContents("aisync.json", Array(forged.utf8))
            _ = try await a.createChat(title: "more", model: nil)
            await raw.resetRequests()
            var caught: AISyncError?
            do { _ = try await T.engine(a, Self.encrypted(raw)).push() } catch { caught = error }
            #expect(caught?.code == .tampered, "\(forged): \(String(describing: caught))")
            let puts = await raw.requests.filter { $0.method == "PUT" }
            #expect(puts.isEmpty, "\(puts)")
        }
    }

    @Test("a device without the key that meets an encrypted remote is told so, not handed garbage")
    func plainDeviceMeetsEncryptedRemote() async throws {
        let dir = T.makeDirectory("enc-plain")
        defer { T.removeDirectory(dir) }
        let a = try T.makeStore(in: dir, "a")
        let b = try T.makeStore(in: dir, "b")
        let raw = InMemoryRemote()
        _ = try await b.createChat(title: "b", model: nil)
        _ = try await a.createChat(title: "a", model: nil)
        _ = try await T.engine(a, Self.encrypted(raw)).push()
        var caught: AISyncError?
        do { _ = try await T.engine(b, raw).pull() } catch { caught = error }
        #expect(caught?.code == .configuration)
        #expect(caught?.message.contains("encrypted") == true, "\(String(describing: caught))")
        #expect(try await b.list().count == 1)
    }
}
