// swift-tools-version:6.1
// The benchmark suite: its own package, so GRDB (the Swift peer it is
// measured against) never becomes a dependency of mrq itself.
import PackageDescription

let package = Package(
    name: "mrq-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "mrq", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // The raw SQLite and libpq C baselines, and the seeded data
        // generator that every implementation shares so they all handle
        // the same bytes.
        .target(
            name: "CBaseline",
            linkerSettings: [.linkedLibrary("sqlite3"), .linkedLibrary("pq")]
        ),
        .executableTarget(
            name: "mrq-bench",
            dependencies: [
                "CBaseline",
                .product(name: "ObjectStore", package: "mrq"),
                .product(name: "ObjectStorePostgres", package: "mrq"),
                .product(name: "ActiveRecord", package: "mrq"),
                .product(name: "Predicates", package: "mrq"),
                .product(name: "Shell", package: "mrq"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
