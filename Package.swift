// swift-tools-version:5.9
import PackageDescription

let package = Package(
    name: "DiceHost",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "Lua", targets: ["Lua"]),
        .library(name: "DiceHost", targets: ["DiceHost"]),
        .executable(name: "dicehost", targets: ["dicehost"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Exact rationals for dice distributions and exact odds.
        .package(url: "https://github.com/attaswift/BigInt", exact: "6.0.1"),
        // `swift package generate-documentation --target DiceHost` (the DocC catalog in Sources/DiceHost/DiceHost.docc).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", exact: "1.5.0"),
    ],
    targets: [
        // Lua 5.4 from the system (Debian: liblua5.4-dev) plus the C helpers Swift cannot write.
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev", "pkg-config"]), .brew(["lua"])]
        ),
        // libedit from the system (Debian: libedit-dev): line editing for the REPL only.
        .systemLibrary(
            name: "CEditLine",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"]), .brew(["libedit"])]
        ),
        // DiceHost's own C helpers around it, one file per concern (allocator, budget,
        // watchdog, protected calls, sandbox, determinism, patterns, snapshots).
        .target(name: "CLuaSupport", dependencies: ["CLua"]),
        .target(name: "Lua", dependencies: ["CLua", "CLuaSupport"]),
        .target(name: "DiceHost", dependencies: ["Lua", .product(name: "BigInt", package: "BigInt")]),
        .executableTarget(
            name: "dicehost",
            dependencies: [
                "DiceHost",
                "CEditLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "BigInt", package: "BigInt"),
            ]
        ),
        .executableTarget(name: "bench-calls", dependencies: ["Lua"], path: "bench/calls"),
        .executableTarget(name: "bench-roll", dependencies: ["DiceHost"], path: "bench/roll"),
        .testTarget(name: "LuaTests", dependencies: ["Lua"]),
        .testTarget(name: "DiceHostTests", dependencies: ["DiceHost", .product(name: "BigInt", package: "BigInt")]),
        .testTarget(name: "dicehostTests", dependencies: ["dicehost"]),
    ]
)
