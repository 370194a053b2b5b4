// swift-tools-version:5.4
// Fuzz targets for DiceHost (libFuzzer). A separate package, so the main package's
// `swift build` and `make test` never see it. Build and run with `make fuzz` from the
// repository root; see fuzz/README.md.
//
// Tools version 5.4 on purpose: from 5.5 on, SwiftPM renames an executable's entry point
// to `<target>_main` and links `main` to it, which leaves no `main` for libFuzzer's own.
import PackageDescription

// SwiftPM names a path dependency after its folder (the checkout's name, e.g. "dicehost"
// or a worktree's), so the product is looked up under that name.
let root = "\(#filePath)".split(separator: "/").dropLast(2).last.map(String.init) ?? "DiceHost"

let targets = ["transcript", "repl", "notation", "set-params", "sim-merge", "script", "replay-log", "sensor-recording", "serve"]

let package = Package(
    name: "DiceHostFuzz",
    platforms: [.macOS("13.0")],
    dependencies: [.package(path: "..")],
    targets: [
        // Shared helpers (byte reader, Lua literal builder): no fuzz entry point.
        .target(name: "FuzzSupport", path: "Sources/FuzzSupport"),
    ] + targets.map { name in
        .executableTarget(
            name: "fuzz-\(name)",
            dependencies: ["FuzzSupport", .product(name: "DiceHost", package: root)]
                + (name == "serve" ? [.product(name: "DiceHostServer", package: root)] : []),
            path: "Sources/\(name)",
            // No main: libFuzzer's runtime provides it (-sanitize=fuzzer).
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    }
)
