// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "DiceHost",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Lua", targets: ["Lua"]),
        .library(name: "DiceHost", targets: ["DiceHost"]),
        .library(name: "DiceHostServer", targets: ["DiceHostServer"]),
        .executable(name: "dicehost", targets: ["dicehost"]),
        // `dicehost serve` runs this program (installed beside dicehost): the server stack
        // (Hummingbird, NIO SSL, SQLiteNIO, PostgresNIO) is built only for it, so
        // `swift build --product dicehost` reaches the REPL without compiling any of it.
        .executable(name: "dicehost-server", targets: ["dicehost-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // Exact rationals for dice distributions and exact odds.
        .package(url: "https://github.com/attaswift/BigInt", exact: "6.0.1"),
        // `swift package generate-documentation --target DiceHost` (the DocC catalog in Sources/DiceHost/DiceHost.docc).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", exact: "1.5.0"),
        // FilePath: the command line's file and folder arguments as paths, not strings.
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // The room store (`serve --store FILE`): the SQLite that Vapor's SQLiteNIO builds
        // (its `VaporCSQLite` module; WAL, no system library to match). The store calls that
        // C API itself on its own thread, statements prepared once (Store/SQLiteHandle.swift):
        // SQLiteNIO's per-statement thread hops cost more than the write. Tests still read
        // stores through SQLiteNIO. One SQLite copy per process keeps file locks coherent.
        .package(url: "https://github.com/vapor/sqlite-nio", exact: "1.13.2"),
        // Several processes sharing one room store (`serve --store postgres://…`): Vapor's
        // PostgresNIO, async queries and a connection pool, for the server target only.
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        // The service group Hummingbird runs in: `serve` adds its own service to it so that on
        // SIGTERM its clients are told and let go before the HTTP server waits for them.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The server's tests hand messages to embedded NIO channels (OutboundBatchTests).
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
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
        // The Lua halves of the runtime are .lua files compiled into the binary
        // (`PackageResources`), so an app that embeds the library needs no files at run time.
        .target(name: "Lua", dependencies: ["CLua", "CLuaSupport"], resources: [.embedInCode("dicehost-prelude.lua")]),
        .target(
            name: "DiceHost",
            dependencies: ["Lua", .product(name: "BigInt", package: "BigInt")],
            resources: [
                .embedInCode("Scripting/dicehost-runtime.lua"),
                .embedInCode("Simulation/dicehost-simulation.lua"),
                .embedInCode("Device/dicehost-device.lua"),
                .embedInCode("Analysis/dicehost-odds.lua"),
                .embedInCode("Analysis/dicehost-odds-watch.lua"),
                .embedInCode("Analysis/dicehost-policy.lua"),
                .embedInCode("Analysis/dicehost-explain.lua"),
                .embedInCode("Session/dicehost-state.lua"),
            ]
        ),
        // The multiplayer server (`dicehost serve`): rooms over WebSocket and the browser table.
        // DiceHost never depends on it.
        .target(
            name: "DiceHostServer",
            dependencies: [
                "DiceHost",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Web")],
            // The compiler checks the server's concurrency (rooms, executors, the thread pool, channels).
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // `dicehost serve`'s options, parsed by dicehost (for `dicehost help serve` and
        // usage errors) and by dicehost-server, which it runs.
        .target(
            name: "ServeOptions",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "dicehost",
            dependencies: [
                "DiceHost",
                "ServeOptions",
                "CEditLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "BigInt", package: "BigInt"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            resources: [.embedInCode("Templates/new-game.lua"), .embedInCode("Templates/report.html")]
        ),
        .executableTarget(
            name: "dicehost-server",
            dependencies: [
                "DiceHost",
                "DiceHostServer",
                "ServeOptions",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The embedding example's program: examples/RaceToSpace is a package of its own that
        // depends on this one by path (`make example` builds it so), and is built here too so
        // `make test` checks it against the build `make play` made instead of compiling
        // DiceHost again in another scratch folder (about 2.5 minutes on a shared 2-core machine).
        .executableTarget(
            name: "race-to-space-example",
            dependencies: ["DiceHost"],
            path: "examples/RaceToSpace/Sources/RaceToSpace",
            swiftSettings: [.enableExperimentalFeature("StrictConcurrency")]
        ),
        .executableTarget(name: "bench-calls", dependencies: ["Lua"], path: "bench/calls"),
        .executableTarget(name: "bench-roll", dependencies: ["DiceHost"], path: "bench/roll"),
        // One served input's library work, the input and every seat's look (issue 47).
        .executableTarget(name: "bench-served-input", dependencies: ["DiceHost", "Lua"], path: "bench/served-input"),
        // What one served room's game holds, part by part (`make bench-idle-rooms`, issue 32).
        .executableTarget(name: "bench-room-memory", dependencies: ["DiceHost", "Lua"], path: "bench/room-memory"),
        .testTarget(name: "LuaTests", dependencies: ["Lua"], exclude: ["Fixtures"]),
        .testTarget(name: "DiceHostTests", dependencies: ["DiceHost", .product(name: "BigInt", package: "BigInt")], exclude: ["FuzzFixtures", "EncoderFixtures"]),
        .testTarget(name: "dicehostTests", dependencies: ["dicehost"]),
        .testTarget(
            name: "DiceHostServerTests",
            dependencies: [
                "DiceHost",
                "DiceHostServer",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v5]
)
