// swift-tools-version:6.1
// GRDBPeer: Columnar's object API against GRDB (SQLite through its record API, what a Swift developer picks today)
// on the object suite's workloads, in one process. A package of its own so that the main harness and the tests do
// not build GRDB; `make bench-grdb` runs it. See docs/ObjectAPI.md ("GRDB").
import Foundation
import PackageDescription

/// The Columnar checkout two levels up. SwiftPM names a package found by path after its folder, which is whatever
/// the clone is called, so the product below names it the same way.
let columnarRoot = URL(fileURLWithPath: Context.packageDirectory)
    .deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "GRDBPeer",
    dependencies: [
        .package(path: columnarRoot.path),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "grdb-peer",
            dependencies: [
                .product(name: "Columnar", package: columnarRoot.lastPathComponent),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ]
)
