import AISync
import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncImgur
@testable import AISyncRemote
@testable import AISyncStore
@testable import AISyncSync
@testable import AISyncTesting

// The folder remote against what a USB stick or a shared folder can hold: leftovers of killed
// writes, and files that are not files.

@Suite("Folder remote")
struct FolderRemoteTests {
    @Test func tempFilesLiveApartAndOldLeftoversAreSwept() async throws {
        let dir = Scratch.makeDirectory("folder-tmp")
        defer { Scratch.removeDirectory(dir) }
        let root = "\(dir)/remote"
        let tmp = "\(root)/\(FolderRemote.temporaryDirectory)"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        // What killed writes left: one two hours old, one from a moment ago (maybe in flight).
        FileManager.default.createFile(atPath: "\(tmp)/old", contents: Data())
        FileManager.default.createFile(atPath: "\(tmp)/recent", contents: Data("x".utf8))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: "\(tmp)/old")

        let store = try Scratch.makeStore(in: dir, "a")
        _ = try await store.createChat(title: "one", model: nil)
        let png = CLIFixtures.write(CLIFixtures.png, in: dir)
        _ = try await store.addImage(fileAt: png, title: nil, prompt: nil, model: nil)
        _ = try await Scratch.engine(store, FolderRemote(root: root)).push()

        let left = try FileManager.default.contentsOfDirectory(atPath: tmp)
        #expect(left == ["recent"], "the old leftover is swept, the recent one kept: \(left)")
        let all = FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []
        #expect(!all.contains { $0.contains(".tmp-") }, "no temp file beside the remote's files: \(all)")
        #expect(all.contains { $0.hasPrefix("objects/") }, "the image went up: \(all)")
    }

    @Test(arguments: ["aisync.json", "segments/SELF/1.seg"])
    func aFIFOWhereAFileBelongsIsAClearErrorNotAHang(_ site: String) async throws {
        let dir = Scratch.makeDirectory("folder-fifo")
        defer { Scratch.removeDirectory(dir) }
        let root = "\(dir)/remote"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let a = try Scratch.makeStore(in: dir, "a")
        _ = try await a.createChat(title: "one", model: nil)
        _ = try await Scratch.engine(a, FolderRemote(root: root)).push()
        let path = "\(root)/\(site.replacingOccurrences(of: "SELF", with: a.deviceID.rawValue))"
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o644) == 0)

        let b = try Scratch.makeStore(in: dir, "b")
        var caught: AISyncError?
        do { _ = try await Scratch.engine(b, FolderRemote(root: root)).pull() } catch { caught = error }
        let error = try #require(caught)
        #expect(error.code == .damagedData)
        #expect(error.message.contains("not a regular file"), "\(error)")
        #expect(try await b.list().isEmpty)
    }
}
