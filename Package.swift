// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Herald",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "herald", targets: ["HeraldCLI"]),
        .executable(name: "herald-bench", targets: ["HeraldBench"]),
        .library(name: "HeraldCore", targets: ["HeraldCore"]),
        .library(name: "HeraldStore", targets: ["HeraldStore"]),
        .library(name: "HeraldStoreSQLite", targets: ["HeraldStoreSQLite"]),
        .library(name: "HeraldStorePostgres", targets: ["HeraldStorePostgres"]),
        .library(name: "HeraldStoreConformance", targets: ["HeraldStoreConformance"]),
        .library(name: "HeraldIntake", targets: ["HeraldIntake"]),
        .library(name: "HeraldServer", targets: ["HeraldServer"]),
        .library(name: "HeraldRuntime", targets: ["HeraldRuntime"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.29.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.10.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.25.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.0.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.36.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.24.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.3.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.21.0"),
    ],
    targets: [
        // Transport-free model: payloads, templates, badge logic, body decoding, ACLs, the provider plug-in protocol.
        .target(
            name: "HeraldCore",
            dependencies: [
                .product(name: "Collections", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The store protocol and its value types: what the pipeline and the server program against. No database in it.
        .target(name: "HeraldStore", dependencies: ["HeraldCore"]),
        // The store on SQLite (GRDB): `SQLiteStore`, its schema and migrations.
        .target(
            name: "HeraldStoreSQLite",
            dependencies: [
                "HeraldCore",
                "HeraldStore",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C interface, for the few hot loops where GRDB's per-statement work dominates.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // The store on PostgreSQL (postgres-nio): `PostgresStore`, shared by several Herald nodes.
        .target(
            name: "HeraldStorePostgres",
            dependencies: [
                "HeraldCore",
                "HeraldStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The store conformance suite, as checks that every backend's test target runs against its own store.
        // A library rather than a test target so that test targets can depend on it; it imports the
        // toolchain's `Testing` module for `#expect` and `#require`.
        .target(name: "HeraldStoreConformance", dependencies: ["HeraldCore", "HeraldStore"]),
        // Configuration: YAML, environment overrides, validation.
        .target(
            name: "HeraldConfiguration",
            dependencies: [
                "HeraldCore",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Collections", package: "swift-collections"),
            ]
        ),
        // Shared outbound TLS and HTTP client plumbing for providers, the egress guard, and the webhook kind.
        .target(
            name: "HeraldWebhook",
            dependencies: [
                "HeraldCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Debian's libhiredis-dev: the C Redis client, as a system library.
        .systemLibrary(name: "CHiredis", path: "Sources/CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"])]),
        // A small async Redis client on hiredis: one thread per connection, pipelining, reconnection (suj-pusher, import).
        .target(
            name: "HeraldRedis",
            dependencies: [
                "CHiredis",
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Taking over other servers' databases (`herald import pushd`): reads rs/pushd's Redis keys in
        // batches and writes them with the store's import operations. No CLI in it, so tests call it.
        .target(
            name: "HeraldImport",
            dependencies: ["HeraldCore", "HeraldStore", "HeraldRedis", .product(name: "Logging", package: "swift-log")]),
        // The durable publish pipeline: fan-out, delivery, retries.
        .target(
            name: "HeraldPipeline",
            dependencies: [
                "HeraldCore",
                "HeraldStore",
                .product(name: "Collections", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // What every front door does: publish, register, raw sends; `IntakeError`; the front-end plug-in seam.
        // No transport in it.
        .target(
            name: "HeraldIntake",
            dependencies: [
                "HeraldCore",
                "HeraldStore",
                "HeraldPipeline",
                "HeraldConfiguration",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // TLS on Herald's own listeners: certificates from the configuration, reloaded on SIGHUP, HTTP/2 by ALPN.
        .target(
            name: "HeraldServerTLS",
            dependencies: [
                "HeraldCore",
                "HeraldConfiguration",
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP2", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The HTTP front (rs/pushd API, admin and raw-send routes), Server-Sent Events and the UDP event port.
        // It knows no provider kind and no store backend.
        .target(
            name: "HeraldServer",
            dependencies: [
                "HeraldCore",
                "HeraldStore",
                "HeraldConfiguration",
                "HeraldPipeline",
                "HeraldIntake",
                "HeraldServerTLS",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // gorush's `POST /api/push` on the main port (compat.md §6), on the intake.
        .target(
            name: "HeraldCompatGorush",
            dependencies: [
                "HeraldCore", "HeraldIntake", "HeraldServer", "HeraldConfiguration",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The Matrix push gateway (compat.md §8): Sygnal's `POST /_matrix/push/v1/notify` on the main port.
        .target(
            name: "HeraldCompatMatrix",
            dependencies: [
                "HeraldCore", "HeraldIntake", "HeraldServer", "HeraldConfiguration", "HeraldStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The Choominator/CodexTextor pushd stand-in (compat.md §5): two UDP ports of plain JSON datagrams.
        .target(
            name: "HeraldCompatChoominator",
            dependencies: [
                "HeraldCore",
                "HeraldStore",
                "HeraldIntake",
                "HeraldConfiguration",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The apns-ms stand-in (compat.md §4): `POST /notification` and `GET /expired-devices` on a port of its own.
        // The UnifiedPush push server (issue 42): ntfy's API for distributors and app servers on a listener of its own.
        .target(
            name: "HeraldUnifiedPush",
            dependencies: [
                "HeraldCore", "HeraldStore", "HeraldIntake", "HeraldConfiguration", "HeraldServerTLS",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "HeraldCompatAPNsMS",
            dependencies: [
                "HeraldCore",
                "HeraldStore",
                "HeraldIntake",
                "HeraldConfiguration",
                "HeraldServerTLS",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // libzmq's C API (Debian's libzmq3-dev), for HeraldZeroMQ only.
        .systemLibrary(name: "CZeroMQ", pkgConfig: "libzmq", providers: [.apt(["libzmq3-dev"])]),
        // A small async layer over libzmq: a context and single-frame sockets, each on a thread of its own.
        .target(name: "HeraldZeroMQ", dependencies: ["CZeroMQ"]),
        // The push2mob stand-in (compat.md §3): two ZeroMQ REP sockets of text commands.
        .target(
            name: "HeraldCompatPush2mob",
            dependencies: [
                "HeraldCore",
                "HeraldStore",
                "HeraldIntake",
                "HeraldConfiguration",
                "HeraldZeroMQ",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The suj-pusher stand-in (compat.md §2): a Redis list and channel, messages with their own credentials.
        .target(
            name: "HeraldCompatSujPusher",
            dependencies: [
                "HeraldCore",
                "HeraldStore",
                "HeraldIntake",
                "HeraldConfiguration",
                "HeraldRedis",
                .product(name: "Collections", package: "swift-collections"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        // The composition root: wires store, providers, pipeline, the HTTP front and the front-ends into one ServiceGroup.
        .target(
            name: "HeraldRuntime",
            dependencies: [
                "HeraldCore",
                "HeraldStore",
                "HeraldStoreSQLite",
                "HeraldStorePostgres",
                "HeraldConfiguration",
                "HeraldPipeline",
                "HeraldIntake",
                "HeraldServer",
                "HeraldServerTLS",
                "HeraldCompatGorush",
                "HeraldCompatMatrix",
                "HeraldCompatChoominator",
                "HeraldCompatAPNsMS",
                "HeraldUnifiedPush",
                "HeraldCompatPush2mob",
                "HeraldCompatSujPusher",
                "HeraldWebhook",
                "HeraldAPNs",
                "HeraldFCM",
                "HeraldHMS",
                "HeraldWebPush",
                "HeraldWNS",
                "HeraldGCMLegacy",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The `herald` command.
        .executableTarget(
            name: "HeraldCLI",
            dependencies: [
                "HeraldServer",
                "HeraldRuntime",
                "HeraldConfiguration",
                "HeraldSimulators",
                "HeraldWebPush",
                "HeraldFCM",
                "HeraldImport",
                "HeraldRedis",
                "HeraldStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // Debian's libnghttp2-dev: HTTP/2 framing, HPACK and flow control in C, for HeraldHTTP2's nghttp2 engine.
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        // Herald's own HTTP/2 client connection pool (APNs, FCM): many multiplexed streams, deadlines, GOAWAY;
        // on one of two engines, swift-nio-http2 or libnghttp2 (`HTTP2Engine`).
        .target(
            name: "HeraldHTTP2",
            dependencies: [
                "CNGHTTP2",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `apns` provider kind.
        .target(
            name: "HeraldAPNs",
            dependencies: [
                "HeraldCore",
                "HeraldHTTP2",
                "HeraldWebhook",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `fcm` provider kind: FCM HTTP v1 over Herald's HTTP/2 pool, OAuth 2 service-account tokens.
        .target(
            name: "HeraldFCM",
            dependencies: [
                "HeraldCore", "HeraldHTTP2", "HeraldWebhook",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `hms` provider kind: Huawei Push Kit server API v1, batched, OAuth 2 client-credentials tokens.
        .target(
            name: "HeraldHMS",
            dependencies: [
                "HeraldCore", "HeraldWebhook",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `wns` and `mpns` provider kinds: Windows Notification Service and the retired Windows Phone service.
        .target(
            name: "HeraldWNS",
            dependencies: [
                "HeraldCore", "HeraldWebhook",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Collections", package: "swift-collections"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `gcm-legacy` provider kind: the legacy GCM HTTP protocol, batched, for old compat clients.
        .target(
            name: "HeraldGCMLegacy",
            dependencies: [
                "HeraldCore", "HeraldWebhook",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Collections", package: "swift-collections"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `webpush` provider kind: Web Push with aes128gcm encryption and VAPID (RFC 8030/8291/8292).
        .target(
            name: "HeraldWebPush",
            dependencies: [
                "HeraldCore", "HeraldWebhook",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Faithful local imitations of the push services (`herald simulate`, tests, benchmarks).
        .target(
            name: "HeraldSimulators",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The fan-out benchmark (BENCHMARKS.md), apart from the tests.
        .executableTarget(
            name: "HeraldBench",
            dependencies: [
                "HeraldCore", "HeraldStore", "HeraldStoreSQLite", "HeraldStorePostgres", "HeraldSimulators", "HeraldAPNs", "HeraldHTTP2",
                "HeraldTestSupport", "HeraldImport", "HeraldRedis", "HeraldIntake", "HeraldServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ],
            path: "Benchmarks/HeraldBench"
        ),
        // Test fixtures: real local receivers (webhook sink, SSE client), test servers (PostgreSQL,
        // Redis, WebDriver), the simulators' test beds, test CAs, ports and temporary directories.
        .target(
            name: "HeraldTestFixtures",
            dependencies: [
                "HeraldSimulators",
                "HeraldRedis",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The application harness: a whole Herald in the test's process (TestHerald); brings the fixtures.
        .target(
            name: "HeraldTestSupport",
            dependencies: [
                "HeraldTestFixtures",
                "HeraldCore",
                "HeraldServer",
                "HeraldRuntime",
                "HeraldConfiguration",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "HeraldCoreTests",
            dependencies: ["HeraldCore", .product(name: "Collections", package: "swift-collections")],
            // Inputs the fuzzer found (scripts/fuzz), read by FuzzRegressionTests from the source tree.
            exclude: ["FuzzInputs"]
        ),
        // The conformance suite against SQLite, and what only SQLite has (migrations, query plans, the file).
        .testTarget(
            name: "HeraldStoreSQLiteTests",
            dependencies: [
                "HeraldTestFixtures",
                "HeraldStoreSQLite", "HeraldStoreConformance", "HeraldStore", "HeraldCore",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The conformance suite against PostgreSQL (a server the tests start), and what only PostgreSQL has.
        .testTarget(
            name: "HeraldStorePostgresTests",
            dependencies: [
                "HeraldStorePostgres", "HeraldStoreConformance", "HeraldStore", "HeraldCore", "HeraldTestFixtures", "HeraldSimulators",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "HeraldConfigurationTests", dependencies: ["HeraldConfiguration", "HeraldCore", "HeraldTestFixtures"]),
        .testTarget(name: "HeraldPipelineTests", dependencies: ["HeraldPipeline", "HeraldCore", "HeraldStore"]),
        .testTarget(
            name: "HeraldIntakeTests",
            dependencies: ["HeraldIntake", "HeraldConfiguration", "HeraldCore", .product(name: "Metrics", package: "swift-metrics")]
        ),
        .testTarget(
            name: "HeraldServerTests",
            dependencies: [
                "HeraldServer", "HeraldRuntime", "HeraldIntake", "HeraldTestSupport", "HeraldWebhook", "HeraldPipeline", "HeraldStore",
                "HeraldSimulators", "HeraldWebPush", "HeraldFCM", "HeraldStoreSQLite", "HeraldStorePostgres", "HeraldCompatAPNsMS",
                "HeraldServerTLS", "HeraldConfiguration", "HeraldCore", "HeraldAPNs", "HeraldHTTP2", "HeraldZeroMQ", "HeraldCompatPush2mob",
                "HeraldRedis", "HeraldCompatSujPusher",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            ]
        ),
        .testTarget(
            name: "HeraldSimulatorsTests",
            dependencies: [
                "HeraldSimulators",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
        .testTarget(
            name: "HeraldHTTP2Tests",
            dependencies: [
                "HeraldHTTP2",
                "CNGHTTP2",
                "HeraldSimulators",
                "HeraldTestFixtures",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "HeraldAPNsTests",
            dependencies: [
                "HeraldTestFixtures",
                "HeraldAPNs", "HeraldCore", "HeraldSimulators", "HeraldHTTP2",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Collections", package: "swift-collections"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "HeraldFCMTests",
            dependencies: [
                "HeraldTestFixtures",
                "HeraldFCM", "HeraldCore", "HeraldSimulators", "HeraldHTTP2",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Collections", package: "swift-collections"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `hms` kind against the HMS simulator over real TLS, its renderer, answer table and misconfiguration
        // detector, and the simulator's own rules.
        .testTarget(
            name: "HeraldHMSTests",
            dependencies: [
                "HeraldTestFixtures",
                "HeraldHMS", "HeraldCore", "HeraldSimulators", "HeraldConfiguration",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Collections", package: "swift-collections"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "HeraldWNSTests",
            dependencies: [
                "HeraldTestFixtures",
                "HeraldWNS", "HeraldCore", "HeraldSimulators", "HeraldWebhook",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Collections", package: "swift-collections"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "HeraldGCMLegacyTests",
            dependencies: [
                "HeraldTestFixtures",
                "HeraldGCMLegacy", "HeraldCore", "HeraldSimulators", "HeraldWebhook",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Collections", package: "swift-collections"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "HeraldWebPushTests",
            dependencies: [
                "HeraldTestFixtures",
                "HeraldWebPush", "HeraldCore", "HeraldSimulators",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Collections", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The Matrix gateway's request decoding and Sygnal's payloads, without a server.
        .testTarget(name: "HeraldCompatMatrixTests", dependencies: ["HeraldCompatMatrix", "HeraldCore"]),
        .testTarget(name: "HeraldRedisTests", dependencies: ["HeraldRedis", "HeraldTestFixtures"]),
        // The rs/pushd import against a real redis-server, checked through a Herald started on the result.
        .testTarget(
            name: "HeraldImportTests",
            dependencies: [
                "HeraldImport", "HeraldRedis", "HeraldStore", "HeraldStoreSQLite", "HeraldCore", "HeraldTestSupport",
                "HeraldConfiguration", "HeraldRuntime", .product(name: "Logging", package: "swift-log"),
                // So that the `herald` binary the command tests run is built with the tests.
                .target(name: "HeraldCLI"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .testTarget(name: "HeraldZeroMQTests", dependencies: ["HeraldZeroMQ"]),
        .testTarget(
            name: "HeraldCLITests",
            dependencies: [
                "HeraldTestSupport", "HeraldSimulators", "HeraldZeroMQ", "HeraldRedis", .target(name: "HeraldCLI"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
    ]
)
