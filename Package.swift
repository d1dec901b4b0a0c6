// swift-tools-version:6.1
// Columnar: an embedded object database for Swift on Linux.
// Layers point down only: Columnar -> QueryVM -> CColumnar (see docs/Architecture.md).
import PackageDescription

let package = Package(
    name: "Columnar",
    products: [
        .library(name: "Columnar", targets: ["Columnar"]),
        .library(name: "CColumnar", targets: ["CColumnar"]),
        .executable(name: "columnar-bench", targets: ["columnar-bench"]),
        .executable(name: "columnar-inspect", targets: ["columnar-inspect"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The storage engine in C11: file format, arrays, tables, MVCC, commit path, lock file.
        .target(
            name: "CColumnar",
            cSettings: [
                .define("_GNU_SOURCE"),
                .unsafeFlags(["-Wall", "-Wextra", "-Wno-unused-parameter", "-fno-strict-aliasing"]),
            ],
            linkerSettings: [.linkedLibrary("uring"), .linkedLibrary("pthread"), .linkedLibrary("crypto")]
        ),
        // The system SQLite, for side-by-side benchmarks and differential tests.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The system LMDB, the key-value peer of the object suite's insert, read and lookup workloads.
        .systemLibrary(name: "CLMDB", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"])]),
        // The baselines columnar-bench measures against: plain C loops over an int64_t array (the query suite's
        // scans) and durable writes of a commit's pattern done each way the engine could (the commit suite's
        // reference line and io options probe, hence liburing). The same C settings as CColumnar, so both are
        // compiled alike.
        .target(
            name: "CBenchBaseline",
            cSettings: [
                .define("_GNU_SOURCE"),
                .unsafeFlags(["-Wall", "-Wextra", "-Wno-unused-parameter", "-fno-strict-aliasing"]),
            ],
            linkerSettings: [.linkedLibrary("uring")]
        ),
        .target(name: "QueryVM", dependencies: ["CColumnar"]),
        .target(name: "Columnar", dependencies: ["QueryVM", "CColumnar"]),
        .executableTarget(
            name: "columnar-bench",
            dependencies: [
                "Columnar", "CColumnar", "CSQLite", "CLMDB", "CBenchBaseline",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The read-only file inspection tool: header, schema, tables, nodes, space map, integrity walk.
        .executableTarget(
            name: "columnar-inspect",
            dependencies: ["CColumnar", "QueryVM", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // Test support: temporary databases, seeded random data, child processes.
        .target(name: "ColumnarTestSupport", dependencies: ["CColumnar"], path: "Tests/ColumnarTestSupport"),
        // A child process for crash and multi-process tests (killed at random, run twice at once).
        .executableTarget(
            name: "ColumnarTestWorker", dependencies: ["CColumnar", "Columnar"], path: "Tests/ColumnarTestWorker"),
        .testTarget(
            name: "CColumnarTests",
            dependencies: ["CColumnar", "ColumnarTestSupport", "ColumnarTestWorker"]
        ),
        .testTarget(name: "QueryVMTests", dependencies: ["QueryVM", "ColumnarTestSupport"]),
        .testTarget(name: "ColumnarTests", dependencies: ["Columnar", "ColumnarTestSupport", "ColumnarTestWorker"]),
        // Client code in the Swift 6 language mode with complete concurrency checking, warnings as errors: a
        // missing Sendable annotation or an isolation mistake in the API fails the build.
        .testTarget(
            name: "Swift6ClientTests",
            dependencies: ["Columnar"],
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-warnings-as-errors"])]
        ),
        .testTarget(
            name: "ColumnarInspectTests",
            dependencies: ["CColumnar", "ColumnarTestSupport", "columnar-inspect"]
        ),
        // Microbenchmarks (ordo-one/package-benchmark): `swift package benchmark`. The comparative harness against
        // SQLite is columnar-bench.
        .executableTarget(
            name: "StorageBenchmarks",
            dependencies: ["CColumnar", .product(name: "Benchmark", package: "package-benchmark")],
            path: "Benchmarks/StorageBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ],
    cLanguageStandard: .c11
)
