// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets for Herald's input parsers, kept out of the main package so that its
// build never sees the sanitizer flags. Run them with `scripts/fuzz`; see Fuzz/README.md.
//
// The library targets are symbolic links into the real sources, so the fuzzers always
// exercise the code the server runs:
//
// * `HeraldCore` is the whole of Sources/HeraldCore.
// * `HeraldUDPDatagram` is the one file Sources/HeraldServer/UDP/EventDatagram.swift: the
//   rest of HeraldServer (Hummingbird, GRDB, TLS, ...) is not needed to decode a datagram.
// * `FuzzOracles` is Tests/HeraldCoreTests/FuzzRegressionTests.swift built with
//   `HERALD_FUZZ` defined, which leaves out its Swift Testing suite: the fuzzers and the
//   regression tests check the very same invariants.

let package = Package(
    name: "HeraldFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The same requirements as the main Package.swift.
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.4.0"),
    ],
    targets: [
        .target(
            name: "HeraldCore",
            dependencies: [
                .product(name: "Collections", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "HeraldUDPDatagram",
            dependencies: [
                "HeraldCore",
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .target(
            name: "FuzzOracles",
            dependencies: [
                "HeraldCore",
                .product(name: "Collections", package: "swift-collections"),
            ],
            swiftSettings: [.define("HERALD_FUZZ")]
        ),
        // The `main` of every fuzz target (see its header).
        .target(name: "CFuzzerEntry"),
        .executableTarget(name: "FuzzJSONBody", dependencies: ["FuzzOracles", "CFuzzerEntry"]),
        .executableTarget(name: "FuzzFormBody", dependencies: ["FuzzOracles", "CFuzzerEntry"]),
        .executableTarget(name: "FuzzPayload", dependencies: ["FuzzOracles", "CFuzzerEntry"]),
        .executableTarget(name: "FuzzTemplate", dependencies: ["FuzzOracles", "CFuzzerEntry"]),
        .executableTarget(
            name: "FuzzUDPDatagram",
            dependencies: [
                "CFuzzerEntry",
                "HeraldCore",
                "HeraldUDPDatagram",
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: [.define("HERALD_FUZZ")]
        ),
    ]
)
