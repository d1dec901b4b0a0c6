// ReadOrderTests.swift — a read transaction remembers the cluster and row it last found, so that reads in key
// order skip the search: reads in any order (forwards, backwards, strided, alternating between clusters, of keys
// that were deleted) return what was written.

import CColumnar
import ColumnarTestSupport
import XCTest

final class ReadOrderTests: DatabaseTestCase {
    override var databaseName: String { "read-order" }
    /// Small clusters: the orders below cross many cluster boundaries.
    override var clusterSize: UInt32 { 16 }

    func testReadsInAnyOrderReturnTheValuesWritten() throws {
        let objectCount = 1_000
        let (table, column, keys) = try db.write { txn -> (TableID, ColumnID, [ObjectKey]) in
            let table = try txn.addTable("numbers")
            let column = try txn.addColumn(table, "value", COLUMNAR_TYPE_INT)
            var keys: [ObjectKey] = []
            for index in 0 ..< objectCount {
                let key = try txn.createObject(table)
                try txn.set(table, key, column, .int(index * 3))
                keys.append(key)
            }
            // Every fifth object goes, so some keys in a cluster's range are missing.
            for index in stride(from: 0, to: objectCount, by: 5) { try txn.deleteObject(table, keys[index]) }
            return (table, column, keys)
        }
        func expected(_ index: Int) -> Int64? { index % 5 == 0 ? nil : Int64(index * 3) }
        let orders: [(String, [Int])] = [
            ("forwards", Array(0 ..< objectCount)),
            ("backwards", Array((0 ..< objectCount).reversed())),
            ("every third", Array(stride(from: 0, to: objectCount, by: 3))),
            ("alternating ends", (0 ..< objectCount / 2).flatMap { [$0, objectCount - 1 - $0] }),
            ("each twice", (0 ..< objectCount).flatMap { [$0, $0] }),
        ]
        try db.read { txn in
            for (name, order) in orders {
                for index in order {
                    guard let value = expected(index) else {
                        XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.getInt(table, keys[index], column),
                                             "\(name): deleted object \(index)")
                        continue
                    }
                    XCTAssertEqual(try txn.getInt(table, keys[index], column), value, "\(name): object \(index)")
                }
            }
        }
    }
}
