import AISync
import AISyncTesting
import Foundation
import Synchronization

/// Library-level fixtures shared by the suites of every layer: temp stores on a shared manual
/// clock, an engine over any remote, a tiny real PNG.
package enum Scratch {
    /// A 3x2 red PNG (made with Pillow).
    package static let pngBytes: [UInt8] = hexBytes(
        "89504e470d0a1a0a0000000d49484452000000030000000208020000001216f14d0000001049444154789c63fccf00054c3006030013290103f0d807840000000049454e44ae426082"
    )

    package static func hexBytes(_ hex: String) -> [UInt8] {
        let u = Array(hex.utf8)
        func v(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : c - 87 }
        return stride(from: 0, to: u.count - 1, by: 2).map { v(u[$0]) << 4 | v(u[$0 + 1]) }
    }

    /// Every device of the suites reads one test clock, the way devices share the world's time.
    package static let clock = ManualClock()
    /// The last seed handed out: each store gets the next, so no two share a device id.
    private static let lastSeed = Atomic<UInt64>(0)

    /// A seeded environment (`AISyncEnvironment.test`) on the shared clock; backoff sleeps
    /// return at once, so tests stay fast.
    package static func environment() -> AISyncEnvironment {
        .test(seed: lastSeed.add(1, ordering: .relaxed).newValue, clock: clock)
    }

    /// Stores fsync every object; these tests are about sync, not durability, so they use a
    /// RAM-backed temp dir (/dev/shm) when there is one: 10,000 chats take ~1 s instead of ~55 s.
    private static let scratchRoot: String = {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory), isDirectory.boolValue,
            FileManager.default.isWritableFile(atPath: "/dev/shm")
        {
            return "/dev/shm"
        }
        return FileManager.default.temporaryDirectory.path
    }()

    /// A new empty directory for one test; remove it with `removeDirectory`.
    package static func makeDirectory(_ label: String) -> String {
        let path = scratchRoot + "/aisync-sync-\(label)-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    package static func removeDirectory(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

    /// A new store named `name` (also its device name) inside `directory`.
    package static func makeStore(in directory: String, _ name: String) throws -> Store {
        try Store.create(at: "\(directory)/\(name)", deviceName: name, environment: environment())
    }

    /// A sync engine between `store` and `remote`, under the remote name "mem".
    package static func engine(_ store: Store, _ remote: any RemoteStorage) -> SyncEngine {
        SyncEngine(store: store, remote: remote, name: "mem")
    }
}

/// An `HTTPRemote` over AISyncTesting's scripted transport, with recorded sleeps and fixed
/// jitter: the remote's retry and status handling without a network.
package enum ScriptedRemote {
    package static let base = "https://dav.example.com/dav/aisync"
    package static let device = String(repeating: "0123456789abcdef", count: 2)

    package static func make(
        _ transport: ScriptedTransport, sleeps: SleepRecorder, url: String = base, plain: Bool = false,
        credentials: Credentials? = nil, maxAttempts: Int = 4
    ) throws -> HTTPRemote {
        let location = try RemoteLocation(url: url, plain: plain, insecure: false)
        // Sleeps are recorded; random is fixed at 2^63 (jitter unit 0.5) so delays are exact.
        var environment = AISyncEnvironment.test(seed: 1)
        environment.sleep = { ms in await sleeps.record(ms) }
        environment.random = { 1 << 63 }
        return HTTPRemote(
            location: location, transport: transport, credentials: credentials, maxAttempts: maxAttempts,
            environment: environment)
    }

    /// One scripted answer: a status, headers and a body.
    package static func status(_ code: Int, _ headers: [String: String] = [:], _ body: String = "")
        -> ScriptedTransport.Step
    {
        .respond(HTTPResponse(status: code, headers: headers, body: Array(body.utf8)))
    }
}
