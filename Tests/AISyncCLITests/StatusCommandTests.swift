import AISyncTestSupport
import Foundation
import Testing

/// `aisync status` per remote (issue 28): in sync or why not, the last success, a failed
/// attempt's error, from what every sync noted in the store; read with no network.
@Suite("Status per remote")
struct StatusCommandTests {
    @Test func statusSaysWhetherEachRemoteIsInSyncAndWhy() async throws {
        let store = try CLIHarness.makeStore()
        defer { store.remove() }
        let remote = "\(store.directory)/usb"
        try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
        try await store.invokeOK(["remote", "add", "usb", "file://\(remote)"])
        try await store.invokeOK(["chat", "new", "--title", "kept"])
        var out = try await store.invokeOK(["status"])
        #expect(out.contains("sync       usb: not in sync (never synced, 1 version not pushed)"), "\(out)")

        try await store.invokeOK(["sync"])
        out = try await store.invokeOK(["status"])
        #expect(out.contains("sync       usb: in sync; last synced just now (sync)"), "\(out)")

        // The USB stick is gone: the failure is what status shows, with the last success kept.
        try await store.invokeOK(["chat", "new", "--title", "while away"])
        try FileManager.default.moveItem(atPath: remote, toPath: remote + "-away")
        #expect(await store.invoke(["sync"]).exitCode == 69)
        out = try await store.invokeOK(["status"])
        #expect(
            out.contains(
                "sync       usb: not in sync (the last sync failed, 1 version not pushed); last synced just now (sync); sync failed just now: the folder remote \(remote) does not exist or is not mounted"
            ), "\(out)")
        let document = try CLIJSON.object(await store.invoke(["status", "--json"]))
        let sync = try #require((document["sync"] as? [[String: Any]])?.first)
        #expect(sync["inSync"] as? Bool == false && sync["unpushedVersions"] as? Int == 1, "\(sync)")
        #expect((sync["lastAttempt"] as? [String: Any])?["error"] != nil, "\(sync)")

        try FileManager.default.moveItem(atPath: remote + "-away", toPath: remote)
        try await store.invokeOK(["sync"])
        out = try await store.invokeOK(["status"])
        #expect(out.contains("sync       usb: in sync; last synced just now (sync)"), "\(out)")
    }
}
