import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncFiles
@testable import AISyncStore
@testable import AISyncTesting

/// The one environment (clock, randomness, sleep, host, temp dir): `.test(seed:)` replays,
/// `.live` reads the system, and a store built on a seeded one is deterministic.
@Suite("EnvironmentTests")
struct EnvironmentTests {
    /// Everything a seeded environment hands out, in one order, for comparing two runs.
    static func draws(_ environment: AISyncEnvironment) -> [String] {
        [
            environment.makeID(), environment.makeDeviceID().rawValue, environment.temporarySuffix(),
            environment.randomHex(bytes: 5), String(environment.random()), String(environment.randomUnit()),
            environment.makeID(),
        ]
    }

    static func makeDirectory() -> String {
        let path = FileManager.default.temporaryDirectory.path + "/aisync-environment-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    // MARK: - .test(seed:)

    @Test("The same seed gives the same ids, device ids, temp names and random numbers")
    func sameSeedReplays() {
        let first = Self.draws(.test(seed: 42))
        let second = Self.draws(.test(seed: 42))
        #expect(first == second)
        #expect(first[0].count == 16 && first[2].count == 16 && first[3].count == 10)
        #expect(DeviceID(first[1]) != nil)
    }

    @Test(
        "Different seeds give different ids and temp names",
        arguments: [(1, 2), (0, 1), (42, 43), (7, UInt64.max)] as [(UInt64, UInt64)])
    func differentSeedsDiffer(_ a: UInt64, _ b: UInt64) {
        let x = Self.draws(.test(seed: a))
        let y = Self.draws(.test(seed: b))
        #expect(x[0] != y[0], "ids")
        #expect(x[1] != y[1], "device ids")
        #expect(x[2] != y[2], "temp names")
    }

    @Test("One seeded environment never repeats itself, and its copies share one sequence")
    func copiesShareTheSequence() {
        let environment = AISyncEnvironment.test(seed: 9)
        let copy = environment
        let ids = (0..<1_000).map { n in n % 2 == 0 ? environment.makeID() : copy.makeID() }
        #expect(Set(ids).count == ids.count)
    }

    @Test("The test clock starts at 2024-01-01, moves 1 ms per reading, and sleeping moves it on")
    func testClock() async {
        let environment = AISyncEnvironment.test(seed: 1)
        let t0 = environment.now()
        let t1 = environment.now()
        await environment.sleep(5_000)
        let t2 = environment.now()
        #expect(t0 == ManualClock.defaultStart)
        #expect(t1 == t0 + 1)
        #expect(t2 == t1 + 1 + 5_000)
    }

    @Test("A shared ManualClock gives several environments one time, and tests can set it")
    func sharedClock() {
        let clock = ManualClock(start: 1_000, step: 0)
        let a = AISyncEnvironment.test(seed: 1, clock: clock)
        let b = AISyncEnvironment.test(seed: 2, clock: clock)
        clock.advance(by: 500)
        #expect(a.now() == 1_500 && b.now() == 1_500)
        clock.set(100)
        #expect(b.now() == 100)
        #expect(a.hostName() == "test-host")
    }

    @Test("randomUnit maps the 64 bits onto [0, 1); randomHex spends 8 bytes per draw")
    func derivedValues() {
        var environment = AISyncEnvironment.test(seed: 1)
        environment.random = { 1 << 63 }
        #expect(environment.randomUnit() == 0.5)
        environment.random = { 0 }
        #expect(environment.randomUnit() == 0)
        environment.random = { UInt64.max }
        #expect(environment.randomUnit() < 1)
        environment.random = { 0x0807_0605_0403_0201 }
        #expect(environment.randomHex(bytes: 10) == "01020304050607080102")
        #expect(environment.randomHex(bytes: 0) == "")
    }

    // MARK: - A store on a seeded environment

    @Test("A store created with .test(seed:) gets the same device id, record ids and temp names every run")
    func seededStoreIsDeterministic() async throws {
        let dir = Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var results: [[String]] = []
        for name in ["one", "two"] {
            let store = try Store.create(at: "\(dir)/\(name)", deviceName: nil, environment: .test(seed: 7))
            let chat = try await store.createChat(title: "hello", model: nil)
            let scratch = try await store.scratchPath()
            let created = store.config.created.milliseconds
            results.append([
                store.deviceID.rawValue, store.config.deviceName, chat.rawValue,
                String(scratch.split(separator: "/").last ?? ""), String(created),
            ])
        }
        #expect(results[0] == results[1])
        // The device id is the first thing the store draws.
        #expect(results[0][0] == AISyncEnvironment.test(seed: 7).makeDeviceID().rawValue)
        #expect(results[0][1] == "test-host")
        #expect(results[0][2].hasPrefix("chat-"))
        #expect(results[0][4] == String(ManualClock.defaultStart))

        let other = try Store.create(at: "\(dir)/three", deviceName: nil, environment: .test(seed: 8))
        #expect(other.deviceID.rawValue != results[0][0])
    }

    // MARK: - .live

    @Test("The live environment reads the system clock and a secure generator")
    func live() {
        let environment = AISyncEnvironment.live
        let wall = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(abs(environment.now() - wall) < 5_000)
        let ids = (0..<100).map { _ in environment.makeID() }
        #expect(Set(ids).count == 100)
        #expect(DeviceID(environment.makeDeviceID().rawValue) != nil)
        let unit = environment.randomUnit()
        #expect(unit >= 0 && unit < 1)
        #expect(!environment.temporaryDirectory.isEmpty)
    }
}
