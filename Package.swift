// swift-tools-version:6.0
import PackageDescription

/// aisync: an offline-first sync engine for AI chats, storybooks and their images.
/// No package dependencies: only what ships with the Swift toolchain.
let package = Package(
    name: "aisync",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "AISync", targets: ["AISync"]),
        .executable(name: "aisync", targets: ["aisync"]),
    ],
    targets: [
        .target(name: "AISync", path: "Sources/AISync"),
        .executableTarget(name: "aisync", dependencies: ["AISync"], path: "Sources/aisync"),
        // The README's library example, built with everything and run by ExampleTests.
        .executableTarget(name: "aisync-example", dependencies: ["AISync"], path: "Examples/SavedChats"),
        .testTarget(
            name: "AISyncTests",
            dependencies: ["AISync", "aisync", "aisync-example"],
            path: "Tests/AISyncTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
