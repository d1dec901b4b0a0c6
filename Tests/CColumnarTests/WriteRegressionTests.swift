// WriteRegressionTests: write-transaction sequences that once damaged data, each checked with columnar_verify.

import CColumnar
import ColumnarTestSupport
import XCTest

final class WriteRegressionTests: DatabaseTestCase {
    override var databaseName: String { "regressions" }

    /// A write to a missing object copies the path to where it would be; the commit must still rewrite the table
    /// (the copied nodes are on the to-free list), or live nodes end up on the free list and get overwritten.
    func testFailedWriteToMissingObjectLeavesTheFileSound() throws {
        let (table, column, key) = try db.write { txn -> (TableID, ColumnID, ObjectKey) in
            let table = try txn.addTable("items")
            let column = try txn.addColumn(table, "value", COLUMNAR_TYPE_INT)
            let key = try txn.createObject(table)
            try txn.set(table, key, column, .int(7))
            return (table, column, key)
        }
        try db.write { txn in
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.set(table, key + 1_000, column, .int(1)))
        }
        // Later commits reuse freed space; with the bug they overwrote the live cluster.
        for round in 0..<20 {
            try db.write { txn in
                let other = try txn.createObject(table)
                try txn.set(table, other, column, .int(Int64(round)))
            }
        }
        try db.read { txn in
            XCTAssertEqual(try txn.getInt(table, key, column), 7)
            XCTAssertVerifies(txn)
        }
    }

    /// An object read (and so cached) before a column is added, then written through the new column in the same
    /// transaction, must get the column: the cached private leaf predates it.
    func testColumnAddedAfterAReadCanBeWrittenInTheSameTransaction() throws {
        let (table, key) = try db.write { txn -> (TableID, ObjectKey) in
            let table = try txn.addTable("items")
            _ = try txn.addColumn(table, "value", COLUMNAR_TYPE_INT)
            return (table, try txn.createObject(table))
        }
        let list = try db.write { txn -> ColumnID in
            let list = try txn.addColumn(table, "numbers", COLUMNAR_TYPE_INT, collection: COLUMNAR_COLLECTION_LIST)
            XCTAssertEqual(try txn.size(table, key, list), 0)
            try txn.listAppend(table, key, list, .int(42))
            let name = try txn.addColumn(table, "name", COLUMNAR_TYPE_STRING, nullable: true)
            XCTAssertEqual(try txn.get(table, key, name), .null)
            try txn.set(table, key, name, .string("after"))
            return list
        }
        try reopen()
        try db.read { txn in
            XCTAssertEqual(try txn.size(table, key, list), 1)
            XCTAssertVerifies(txn)
        }
    }

    /// An object at key INT64_MAX made the table's next key 2^63, which the file's signed field stored as a
    /// negative number: the committed file then failed to open as corrupt, and the next object got a negative key.
    /// Keys now stop at INT64_MAX - 1, and a table whose largest key is taken refuses new keys.
    func testTheLargestObjectKeyLeavesTheFileSound() throws {
        let (table, column) = try db.write { txn -> (TableID, ColumnID) in
            let table = try txn.addTable("items")
            let column = try txn.addColumn(table, "value", COLUMNAR_TYPE_INT)
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.createObject(table, key: Int64.max))
            try txn.createObject(table, key: Int64.max - 1)
            try txn.set(table, Int64.max - 1, column, .int(5))
            XCTAssertEngineError(COLUMNAR_ETOOBIG, try txn.createObject(table))
            try txn.createObject(table, key: 3)
            return (table, column)
        }
        try reopen()
        try db.read { txn in
            XCTAssertEqual(try txn.count(table), 2)
            XCTAssertEqual(try txn.getInt(table, Int64.max - 1, column), 5)
            XCTAssertVerifies(txn)
        }
        try db.write { txn in
            XCTAssertEngineError(COLUMNAR_ETOOBIG, try txn.createObject(table))
            try txn.createObject(table, key: 4)
        }
        try db.read { txn in
            XCTAssertEqual(try txn.count(table), 3)
            XCTAssertVerifies(txn)
        }
    }
}
