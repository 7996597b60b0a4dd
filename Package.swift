import Foundation
// swift-tools-version:6.0
import PackageDescription

/// `AISYNC_OPTIMIZE_CORE=1` (set by scripts/test.sh) builds the core optimized even in debug
/// builds: scrypt, ChaCha20 and SHA-256 are 20x slower unoptimized, and the test suite opens
/// real encrypted remotes. Off by default, so apps that depend on this package see no unsafe
/// flags (SwiftPM refuses those in dependencies).
let optimizeCore = ProcessInfo.processInfo.environment["AISYNC_OPTIMIZE_CORE"] == "1"
let coreSettings: [SwiftSetting] = optimizeCore ? [.unsafeFlags(["-O"], .when(configuration: .debug))] : []

/// aisync: an offline-first sync engine for AI chats, storybooks and their images.
/// No package dependencies: only what ships with the Swift toolchain.
let package = Package(
    name: "aisync",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "AISync", targets: ["AISync"]),
        .library(name: "AISyncTesting", targets: ["AISyncTesting"]),
        .executable(name: "aisync", targets: ["aisync"]),
        .executable(name: "aisync-bench", targets: ["aisync-bench"]),
    ],
    targets: [
        // Layers, each depending only on the ones before it (see Sources/AISync/AISync.swift).
        .target(name: "AISyncCore", path: "Sources/AISyncCore", swiftSettings: coreSettings),
        .target(name: "AISyncFiles", dependencies: ["AISyncCore"], path: "Sources/AISyncFiles"),
        .target(name: "AISyncStore", dependencies: ["AISyncCore", "AISyncFiles"], path: "Sources/AISyncStore"),
        .target(name: "AISyncHTTP", dependencies: ["AISyncCore", "AISyncFiles"], path: "Sources/AISyncHTTP"),
        .target(
            name: "AISyncRemote", dependencies: ["AISyncCore", "AISyncFiles", "AISyncHTTP"],
            path: "Sources/AISyncRemote"),
        .target(
            name: "AISyncImgur", dependencies: ["AISyncCore", "AISyncFiles", "AISyncHTTP"], path: "Sources/AISyncImgur"),
        .target(
            name: "AISyncImport",
            dependencies: ["AISyncCore", "AISyncFiles", "AISyncStore", "AISyncHTTP"],
            path: "Sources/AISyncImport"
        ),
        .target(
            name: "AISyncExport", dependencies: ["AISyncCore", "AISyncFiles", "AISyncStore"],
            path: "Sources/AISyncExport"),
        .target(
            name: "AISyncSync",
            dependencies: ["AISyncCore", "AISyncFiles", "AISyncStore", "AISyncHTTP", "AISyncRemote", "AISyncImgur"],
            path: "Sources/AISyncSync"
        ),
        .target(
            name: "AISync",
            dependencies: [
                "AISyncCore", "AISyncFiles", "AISyncStore", "AISyncHTTP", "AISyncRemote", "AISyncImgur",
                "AISyncSync", "AISyncImport", "AISyncExport",
            ],
            path: "Sources/AISync"
        ),
        // Test doubles (an in-memory remote, seeded environments): for tests and SwiftUI previews,
        // never linked into the CLI.
        .target(name: "AISyncTesting", dependencies: ["AISync"], path: "Sources/AISyncTesting"),
        // The command line as a library (parser, commands, output), so its tests run commands
        // in-process; `aisync` is only its main.swift.
        .target(name: "AISyncCLI", dependencies: ["AISync"], path: "Sources/AISyncCLI"),
        .executableTarget(name: "aisync", dependencies: ["AISyncCLI"], path: "Sources/aisync"),
        // What the benchmark scripts need (generated stores, hashing and crypto timings),
        // built beside aisync by scripts/build-release.sh and kept out of the user's binary.
        .executableTarget(name: "aisync-bench", dependencies: ["AISync"], path: "Sources/aisync-bench"),
        // The README's library example, built with everything and run by ExampleTests.
        .executableTarget(name: "aisync-example", dependencies: ["AISync"], path: "Examples/SavedChats"),
        // Tests: one target per layer, each importing only its layer and those below it, so
        // `swift test --skip-build --filter AISyncStoreTests` runs one layer. The CLI's suites run
        // commands in-process; AISyncScenarioTests runs the built binaries against the real
        // servers. AISyncTestSupport holds the harnesses they share (package access).
        .target(
            name: "AISyncTestSupport", dependencies: ["AISync", "AISyncTesting", "AISyncCLI"],
            path: "Tests/AISyncTestSupport"),
        .testTarget(
            name: "AISyncCoreTests", dependencies: ["AISyncCore", "AISyncFiles", "AISyncTesting", "AISyncTestSupport"],
            path: "Tests/AISyncCoreTests"),
        .testTarget(
            name: "AISyncStoreTests",
            dependencies: ["AISyncCore", "AISyncFiles", "AISyncStore", "AISyncTesting", "AISyncTestSupport"],
            path: "Tests/AISyncStoreTests"),
        .testTarget(
            name: "AISyncHTTPTests",
            dependencies: ["AISyncCore", "AISyncFiles", "AISyncHTTP", "AISyncTesting", "AISyncTestSupport"],
            path: "Tests/AISyncHTTPTests"),
        .testTarget(
            name: "AISyncRemoteTests",
            dependencies: [
                "AISyncCore", "AISyncFiles", "AISyncHTTP", "AISyncRemote", "AISyncTesting", "AISyncTestSupport",
            ],
            path: "Tests/AISyncRemoteTests"),
        .testTarget(
            name: "AISyncImgurTests",
            dependencies: [
                "AISyncCore", "AISyncFiles", "AISyncHTTP", "AISyncImgur", "AISyncTesting", "AISyncTestSupport",
            ],
            path: "Tests/AISyncImgurTests"),
        .testTarget(
            name: "AISyncImportTests",
            dependencies: [
                "AISyncCore", "AISyncFiles", "AISyncStore", "AISyncHTTP", "AISyncImport", "AISyncTesting",
                "AISyncTestSupport",
            ],
            path: "Tests/AISyncImportTests"),
        .testTarget(
            name: "AISyncExportTests",
            dependencies: [
                "AISyncCore", "AISyncFiles", "AISyncStore", "AISyncExport", "AISyncTesting", "AISyncTestSupport",
            ],
            path: "Tests/AISyncExportTests"),
        .testTarget(
            name: "AISyncSyncTests",
            dependencies: ["AISync", "AISyncTesting", "AISyncTestSupport", "aisync", "aisync-example"],
            path: "Tests/AISyncSyncTests"),
        .testTarget(
            name: "AISyncCLITests",
            dependencies: ["AISync", "AISyncCLI", "AISyncTesting", "AISyncTestSupport", "aisync", "aisync-bench"],
            path: "Tests/AISyncCLITests"),
        .testTarget(
            name: "AISyncScenarioTests",
            dependencies: ["AISync", "AISyncTesting", "AISyncTestSupport", "aisync", "aisync-bench"],
            path: "Tests/AISyncScenarioTests"),
    ],
    swiftLanguageModes: [.v6]
)
