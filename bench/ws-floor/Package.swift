// swift-tools-version:6.2
// The floor under DiceHost's served input (issue 32): what Hummingbird's WebSocket layer,
// plain SwiftNIO and the kernel cost per input when nothing else runs (no rules, no store,
// no views). A package of its own, so `make test` never builds it: `make bench-ws-floor`.
import PackageDescription

let package = Package(
    name: "ws-floor",
    platforms: [.macOS(.v14)],
    dependencies: [
        // The versions DiceHost's own Package.resolved pins, so the floor is the same code.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", exact: "2.8.1"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        .executableTarget(
            name: "ws-floor",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
