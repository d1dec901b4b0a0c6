// StorageBenchmarks: microbenchmarks of the storage engine's C API (ordo-one/package-benchmark).
//
// Run: `swift package benchmark` (release build). Each benchmark creates its database once in its setup hook (so
// neither creating nor closing it is measured) and passes results through blackHole. For comparisons with SQLite
// use the columnar-bench harness instead.

import Benchmark
import CColumnar
import Foundation

/// A temporary database with one table of `rowCount` objects of one int column.
private final class BenchDatabase: @unchecked Sendable {
    let directory: String
    let db: OpaquePointer
    var table: columnar_table_id = 0
    var column: columnar_col_id = 0
    private(set) var keys: [columnar_key] = []

    init(rowCount: Int, durability: columnar_durability) {
        directory = NSTemporaryDirectory() + "columnar-benchmarks-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var options = columnar_open_options()
        options.flags = COLUMNAR_OPEN_CREATE.rawValue
        options.durability = durability
        var handle: OpaquePointer?
        precondition(columnar_open(directory + "/bench.columnar", &options, &handle) == COLUMNAR_OK)
        db = handle!
        write { txn in
            precondition(columnar_table_add(txn, "Item", &table) == COLUMNAR_OK)
            var spec = columnar_column_spec()
            "value".withCString { name in
                spec.name = name
                spec.type = COLUMNAR_TYPE_INT
                precondition(columnar_column_add(txn, table, &spec, &column) == COLUMNAR_OK)
            }
            for index in 0..<rowCount {
                var key: columnar_key = 0
                precondition(columnar_obj_create(txn, table, &key) == COLUMNAR_OK)
                var value = columnar_value()
                value.type = COLUMNAR_TYPE_INT
                value.as.i = Int64(index)
                precondition(columnar_obj_set(txn, table, key, column, &value) == COLUMNAR_OK)
                keys.append(key)
            }
        }
    }

    func write(_ body: (OpaquePointer) -> Void) {
        var txn: OpaquePointer?
        precondition(columnar_txn_begin_write(db, &txn) == COLUMNAR_OK)
        body(txn!)
        precondition(columnar_txn_commit(txn) == COLUMNAR_OK)
    }

    func read(_ body: (OpaquePointer) -> Void) {
        var txn: OpaquePointer?
        precondition(columnar_txn_begin_read(db, &txn) == COLUMNAR_OK)
        body(txn!)
        columnar_txn_rollback(txn)
    }

    deinit {
        columnar_close(db)
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// One write transaction per iteration, each setting one int property of one object.
private func updateOneObjectPerCommit(_ benchmark: Benchmark, _ database: BenchDatabase) {
    for iteration in benchmark.scaledIterations {
        database.write { txn in
            var value = columnar_value()
            value.type = COLUMNAR_TYPE_INT
            value.as.i = Int64(iteration)
            let key = database.keys[iteration % database.keys.count]
            blackHole(columnar_obj_set(txn, database.table, key, database.column, &value))
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput, .mallocCountTotal],
                                           maxDuration: .seconds(3), maxIterations: 100_000)

    // One object updated per write transaction, no fdatasync: the CPU cost of a commit.
    Benchmark("Commit.singleObjectUnsafe") { benchmark, database in
        updateOneObjectPerCommit(benchmark, database)
    } setup: {
        BenchDatabase(rowCount: 10_000, durability: COLUMNAR_DURABILITY_UNSAFE)
    }

    // The same with durability FULL: two fdatasyncs per commit.
    Benchmark("Commit.singleObjectDurable", configuration: .init(maxDuration: .seconds(3), maxIterations: 2_000)) {
        benchmark, database in
        updateOneObjectPerCommit(benchmark, database)
    } setup: {
        BenchDatabase(rowCount: 10_000, durability: COLUMNAR_DURABILITY_FULL)
    }

    // Point reads of one int property, 10,000 per iteration, in one read transaction.
    Benchmark("Read.getIntOfTenThousandObjects") { benchmark, database in
        for _ in benchmark.scaledIterations {
            database.read { txn in
                var sum: Int64 = 0
                for key in database.keys.prefix(10_000) {
                    var value: Int64 = 0
                    var isNull = false
                    _ = columnar_obj_get_int(txn, database.table, key, database.column, &value, &isNull)
                    sum &+= value
                }
                blackHole(sum)
            }
        }
    } setup: {
        BenchDatabase(rowCount: 100_000, durability: COLUMNAR_DURABILITY_UNSAFE)
    }

    // Walking every cluster of a 100,000-object table through the scan interface.
    Benchmark("Scan.clustersOfHundredThousandObjects") { benchmark, database in
        for _ in benchmark.scaledIterations {
            database.read { txn in
                var iterator = columnar_cluster_iter()
                precondition(columnar_cluster_iter_init(txn, database.table, &iterator) == COLUMNAR_OK)
                var cluster = columnar_cluster()
                var rows: UInt64 = 0
                while columnar_cluster_iter_next(&iterator, &cluster) == COLUMNAR_OK { rows += cluster.row_count }
                blackHole(rows)
            }
        }
    } setup: {
        BenchDatabase(rowCount: 100_000, durability: COLUMNAR_DURABILITY_UNSAFE)
    }

    // Beginning and ending a read transaction (reader-table registration and the version handshake).
    Benchmark("Transaction.beginAndEndRead") { benchmark, database in
        for _ in benchmark.scaledIterations {
            database.read { txn in blackHole(columnar_txn_version(txn)) }
        }
    } setup: {
        BenchDatabase(rowCount: 10, durability: COLUMNAR_DURABILITY_UNSAFE)
    }
}
