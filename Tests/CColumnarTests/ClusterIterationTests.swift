// ClusterIterationTests.swift — iterating a table from a key (columnar_cluster_iter_init_from) and the table's next
// key (columnar_table_info.next_key), which the object API uses to read a loop's keys a cluster at a time: checked
// against a model of the table's keys, on committed clusters and on clusters a write transaction changed.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class ClusterIterationTests: DatabaseTestCase {
    override var databaseName: String { "cluster-iteration" }
    /// Small clusters, so a thousand objects make many.
    override var clusterSize: UInt32 { 16 }

    /// The keys from `from` on, as columnar_cluster_iter_init_from reports them (keys below `from` in the first
    /// cluster left out), and whether every cluster reported holds a key at or above `from`.
    private func keys(_ txn: Transaction, _ table: TableID,
                      from: ObjectKey) throws -> (keys: [ObjectKey], tight: Bool) {
        var iterator = columnar_cluster_iter()
        try check(columnar_cluster_iter_init_from(txn.handle, table, from, &iterator), "init_from \(from)")
        var keys: [ObjectKey] = []
        var tight = true
        while true {
            var cluster = columnar_cluster()
            let rc = columnar_cluster_iter_next(&iterator, &cluster)
            if rc == COLUMNAR_ENOTFOUND { break }
            try check(rc, "columnar_cluster_iter_next")
            let clusterKeys = (0..<cluster.row_count).map { columnar_array_get_int(&cluster.keys, $0) }
            if clusterKeys.last.map({ $0 < from }) ?? true { tight = false }
            keys += clusterKeys.filter { $0 >= from }
        }
        return (keys, tight)
    }

    private func nextKey(_ txn: Transaction, _ table: TableID) throws -> Int64 {
        var info = columnar_table_info()
        try check(columnar_table_info_get(txn.handle, table, &info), "columnar_table_info_get")
        return info.next_key
    }

    func testIteratingFromAnyKeyGivesTheKeysFromThereOnAndTheNextKeyIsPastThemAll() throws {
        var random = makeSeededGenerator()
        var model: [ObjectKey] = []
        let table = try db.write { txn -> TableID in
            let table = try txn.addTable("things")
            XCTAssertEqual(try nextKey(txn, table), 0)
            for _ in 0..<1_000 { model.append(try txn.createObject(table)) }
            XCTAssertEqual(try nextKey(txn, table), 1_000)
            return table
        }
        // Deletions leave gaps, whole clusters among them; the next key stays where it was.
        try db.write { txn in
            for key in model where key % 7 == 3 || (key >= 320 && key < 400) { try txn.deleteObject(table, key) }
            XCTAssertEqual(try nextKey(txn, table), 1_000)
        }
        model.removeAll { $0 % 7 == 3 || ($0 >= 320 && $0 < 400) }
        let starts: [ObjectKey] = [-5, 0, 1, 3, 15, 16, 17, 320, 350, 399, 400, 401, 998, 999, 1_000, 5_000, .max]
            + (0..<30).map { _ in ObjectKey(random.next() % 1_100) }
        try db.read { txn in
            XCTAssertEqual(try nextKey(txn, table), 1_000)
            for from in starts {
                let (keys, tight) = try self.keys(txn, table, from: from)
                XCTAssertEqual(keys, model.filter { $0 >= from }, "from \(from)")
                XCTAssertTrue(tight, "from \(from): a cluster wholly below the key was reported")
            }
        }
        // In a write transaction, over clusters it changed (private) and ones it did not, and past new objects.
        try db.write { txn in
            for key in model where key % 5 == 0 { try txn.set(table, key, try txn.addColumnIfNeeded(table), .int(1)) }
            for _ in 0..<40 { model.append(try txn.createObject(table)) }
            XCTAssertEqual(try nextKey(txn, table), 1_040)
            for from in starts {
                XCTAssertEqual(try self.keys(txn, table, from: from).keys, model.filter { $0 >= from }, "from \(from)")
            }
        }
    }
}

private extension Transaction {
    /// An int column "n" of `table`, added on first use.
    func addColumnIfNeeded(_ table: TableID) throws -> ColumnID {
        if let column = try columnIfPresent(table, "n") { return column }
        return try addColumn(table, "n", COLUMNAR_TYPE_INT)
    }
}
