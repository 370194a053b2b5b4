// swift-tools-version:5.9
// An app embedding DiceHost: Race to Space against a simulated smart die.
// Build and run from this folder:  swift run RaceToSpace
import PackageDescription

let package = Package(
    name: "RaceToSpace",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "DiceHost", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "RaceToSpace",
            dependencies: [.product(name: "DiceHost", package: "DiceHost")],
            swiftSettings: [.enableExperimentalFeature("StrictConcurrency")]
        ),
    ]
)
