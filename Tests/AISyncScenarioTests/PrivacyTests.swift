import AISyncTestSupport
import Foundation
import Testing

/// Private chats leave no trace outside the store (issue 10): push, pull and sync write
/// nothing under `$HOME` — no URL cache, no cookie jar, no credential store — whatever the
/// remote.
@Suite("Nothing outside the store", .tags(.servers), .needsServers)
struct PrivacyTests {
    @Test("push, pull and sync with a fresh HOME leave it empty", arguments: RemoteKind.allCases)
    func nothingInHome(_ kind: RemoteKind) async throws {
        let remote = try await TestServer.require(kind).freshRemote("privacy")
        let device = try await Device.make("private", remote: remote)
        defer { device.remove() }
        let home = CLIHarness.makeTemporaryDirectory()
        defer { CLIHarness.removeTree(home) }
        _ = try await device.ok(["chat", "new", "--title", "health question"])
        for verb in ["push", "pull", "sync"] {
            let r = await device.run([verb], environment: ["HOME": home])
            #expect(r.exitCode == 0, "\(kind) \(verb): \(r)")
        }
        let left = FileManager.default.subpaths(atPath: home) ?? []
        #expect(left.isEmpty, "\(kind): \(left) appeared in HOME")
        await remote.remove()
    }
}
