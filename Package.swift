// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "mrq",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "mrq", targets: ["mrq"]),
        .library(name: "Predicates", targets: ["Predicates"]),
        .library(name: "ObjectStore", targets: ["ObjectStore"]),
        .library(name: "ObjectStorePostgres", targets: ["ObjectStorePostgres"]),
        .library(name: "ActiveRecord", targets: ["ActiveRecord"]),
        .library(name: "Shell", targets: ["Shell"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `make docs`: the generate-documentation command; a plugin only,
        // built when that command runs, never linked into mrq.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // PostgreSQL's client library, for the PostgreSQL store.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // libdeflate: inflates a store's model cache in about half zlib's
        // time (zlib still deflates, and explains a stream that fails).
        .systemLibrary(
            name: "CDeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        // The CPU's prefetch hint (a header only), for ObjectStore's saves.
        .systemLibrary(name: "CPrefetch"),
        // SHA-256 on the CPU's SHA instructions (a header only), for
        // ObjectStore's version hashes.
        .systemLibrary(name: "CSHA256"),
        .systemLibrary(
            name: "CEditLine",
            providers: [.apt(["libedit-dev"])]
        ),
        .target(name: "Predicates"),
        .target(
            name: "ObjectStore",
            dependencies: [
                "Predicates", "CSQLite", "CZlib", "CDeflate", "CPrefetch", "CSHA256",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The PostgreSQL store (`PersistentStoreType.postgres`): a library
        // of its own, so that only a program that uses it needs libpq; a
        // program registers its `PostgresEngine` explicitly.
        .target(name: "ObjectStorePostgres", dependencies: ["ObjectStore", "Predicates", "CLibPQ"]),
        .target(name: "ActiveRecord", dependencies: ["ObjectStore", "Predicates"]),
        .target(name: "Shell", dependencies: ["ActiveRecord", "ObjectStore", "ObjectStorePostgres", "Predicates"]),
        .executableTarget(
            name: "mrq",
            dependencies: [
                "Shell", "ObjectStore", "ObjectStorePostgres", "CEditLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Saves in a loop until killed, for the crash tests; opens a store as
        // another user for the permission tests.
        .executableTarget(name: "mrq-crash-worker", dependencies: ["ObjectStore", "ObjectStorePostgres", "Predicates"]),
        // The fuzz targets (predicate, statement, JSON, model): replays the
        // seed corpora of Fuzz/ in the tests; `make fuzz` links it with
        // libFuzzer.
        .executableTarget(name: "mrq-fuzz", dependencies: ["Shell", "ActiveRecord", "ObjectStore", "Predicates"]),
        // The Swift example of Samples/, built and run by the tests.
        .executableTarget(name: "mail-example", dependencies: ["ActiveRecord", "ObjectStore", "Predicates"], path: "Samples/MailExample", exclude: ["output.txt"]),
        .executableTarget(name: "server-example", dependencies: ["ActiveRecord", "ObjectStore", "Predicates"], path: "Samples/ServerExample", exclude: ["output.txt"]),
        // A throwaway PostgreSQL server for the tests of the store and of
        // the shell on it; a library of the tests, never of a product.
        .target(name: "PostgresTestServer", dependencies: ["ObjectStore", "ObjectStorePostgres"], path: "Tests/PostgresTestServer"),
        // Store folders as evidence arrives (hot journals, copied logs, odd
        // files beside the store), made by code; a library of the tests.
        .target(name: "EvidenceFixtures", dependencies: ["ObjectStore"], path: "Tests/EvidenceFixtures"),
        // What the store's tests and PostgreSQL's share: models built in
        // code, the differential model and predicate generator, the crash
        // worker; a library of the tests.
        .target(name: "StoreTestSupport", dependencies: ["ObjectStore", "ObjectStorePostgres", "Predicates", "PostgresTestServer"], path: "Tests/StoreTestSupport"),
        .testTarget(name: "PredicatesTests", dependencies: ["Predicates"]),
        .testTarget(name: "ObjectStoreTests", dependencies: ["ObjectStore", "ObjectStorePostgres", "Predicates", "StoreTestSupport", "EvidenceFixtures"], exclude: ["Fixtures"]),
        // The PostgreSQL store's own tests; each starts or shares a
        // throwaway cluster on loopback.
        .testTarget(name: "PostgresTests", dependencies: ["ObjectStore", "ObjectStorePostgres", "Predicates", "StoreTestSupport"]),
        .testTarget(name: "ActiveRecordTests", dependencies: ["ActiveRecord", "ObjectStore", "ObjectStorePostgres", "PostgresTestServer", "StoreTestSupport"]),
        .testTarget(name: "ShellTests", dependencies: ["Shell", "PostgresTestServer"], exclude: ["Transcripts"]),
        .testTarget(name: "mrqTests", dependencies: ["Shell", "ObjectStore", "PostgresTestServer", "EvidenceFixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
