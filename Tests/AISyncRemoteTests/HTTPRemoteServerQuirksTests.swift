import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncRemote
@testable import AISyncTesting

/// HTTPRemote against quirks the real servers showed (ServerScenarioTests): Apache's weak
/// ETags for files changed within the last second, and a remote root that does not exist.
/// Uses the scripted transport of HTTPRemoteTests; no network.
@Suite("HTTPRemoteServerQuirksTests")
struct HTTPRemoteServerQuirksTests {
    typealias Fake = ScriptedTransport

    static let head = "heads/\(ScriptedRemote.device).json"

    static func remote(_ transport: Fake) throws -> HTTPRemote {
        try ScriptedRemote.make(transport, sleeps: SleepRecorder())
    }

    // MARK: - Weak ETags (Apache mod_dav_fs: W/"…" during the first second)

    @Test func replacingWithAWeakETagChecksItWeaklyThenPutsWithoutIfMatch() async throws {
        let transport = Fake([ScriptedRemote.status(200, ["etag": "\"2-5f1\""]), ScriptedRemote.status(204)])
        let remote = try Self.remote(transport)
        let result = try await remote.write(Self.head, [1], condition: .replacing(etag: "W/\"2-5f1\""))
        #expect(result == .written(etag: nil))
        let requests = await transport.requests
        let methods = requests.map(\.method)
        #expect(methods == ["HEAD", "PUT"])
        #expect(requests.last?.headers["If-Match"] == nil, "a weak ETag can never satisfy If-Match (strong comparison)")
        #expect(requests.last?.headers["If-None-Match"] == nil)
    }

    @Test func replacingWithAWeakETagThatNoLongerMatchesIsAPreconditionFailure() async throws {
        let transport = Fake([ScriptedRemote.status(200, ["etag": "W/\"3-777\""])])
        let remote = try Self.remote(transport)
        let result = try await remote.write(Self.head, [1], condition: .replacing(etag: "W/\"2-5f1\""))
        #expect(result == .preconditionFailed)
        let count = await transport.requests.count
        #expect(count == 1, "nothing may be written when the file changed")
    }

    @Test func replacingWithAWeakETagWhenTheFileIsGoneIsAPreconditionFailure() async throws {
        let transport = Fake([ScriptedRemote.status(404)])
        let remote = try Self.remote(transport)
        let result = try await remote.write(Self.head, [1], condition: .replacing(etag: "W/\"2-5f1\""))
        #expect(result == .preconditionFailed)
    }

    @Test func replacingWithAStrongETagSendsIfMatch() async throws {
        let transport = Fake([ScriptedRemote.status(204)])
        let remote = try Self.remote(transport)
        let result = try await remote.write(Self.head, [1], condition: .replacing(etag: "\"2-5f1\""))
        #expect(result == .written(etag: nil))
        let requests = await transport.requests
        #expect(requests.map(\.method) == ["PUT"])
        #expect(requests.first?.headers["If-Match"] == "\"2-5f1\"")
    }

    @Test(arguments: [
        ("\"a\"", "W/\"a\"", true), ("W/\"a\"", "W/\"a\"", true), ("\"a\"", "\"b\"", false),
        ("W/\"a\"", "\"ab\"", false),
    ])
    func weakComparison(a: String, b: String, equal: Bool) {
        #expect(HTTPRemote.weakMatch(a, b) == equal)
        #expect(HTTPRemote.weakMatch(b, a) == equal)
    }

    // MARK: - A remote root that does not exist

    @Test func aMissingRootIsAClearConfigurationError() async throws {
        // Apache answers 409 to a PUT whose parent collection is missing; aisync.json sits
        // at the root, so there is nothing to create below it.
        let transport = Fake(
            [ScriptedRemote.status(409), ScriptedRemote.status(409)], fallback: ScriptedRemote.status(500))
        let remote = try Self.remote(transport)
        var caught: AISyncError?
        do { _ = try await remote.write("aisync.json", [1], condition: .createOnly) } catch { caught = error }
        #expect(caught?.code == .configuration)
        let message = caught?.description ?? ""
        #expect(message.contains("does not exist"), "\(message)")
        let methods = await transport.requests.map(\.method)
        #expect(!methods.contains("MKCOL"), "aisync never creates the remote's root")
    }

    @Test func aMissingRootFoundWhileMakingCollectionsIsAClearConfigurationError() async throws {
        // rclone answers 404 to the PUT, then 409 to MKCOL of the first collection.
        let transport = Fake(
            [ScriptedRemote.status(404), ScriptedRemote.status(409)], fallback: ScriptedRemote.status(500))
        let remote = try Self.remote(transport)
        var caught: AISyncError?
        do { _ = try await remote.write("segments/\(ScriptedRemote.device)/1.seg", [1], condition: .createOnly) } catch
        { caught = error }
        #expect(caught?.code == .configuration)
        let message = caught?.description ?? ""
        #expect(message.contains("does not exist"), "\(message)")
        let count = await transport.requests.count
        #expect(count == 2)
    }
}
