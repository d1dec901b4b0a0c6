// ReadManyTests.swift — columnar_obj_get_many and columnar_obj_get_many_int read one column of many objects in one
// call, whatever the order of their keys: each answer must equal what columnar_obj_get gives for the same key, in
// a read transaction and in a write transaction whose private clusters sit between committed ones; a missing
// object, a collection column, a negative key and a column of the wrong type are refused with their error.

import CColumnar
import ColumnarTestSupport
import XCTest

final class ReadManyTests: DatabaseTestCase {
    override var databaseName: String { "read-many" }
    /// Small clusters, so that a few thousand objects make many of them.
    override var clusterSize: UInt32 { 32 }

    private struct Fixture {
        let table: TableID
        let number: ColumnID
        let flag: ColumnID
        let name: ColumnID
        let tags: ColumnID
        var keys: [ObjectKey]
    }

    /// 3,000 objects (every seventh deleted), numbers with nulls, flags, names; one object at a huge key.
    private func makeFixture(_ generator: inout SeededGenerator) throws -> Fixture {
        try db.write { txn -> Fixture in
            let table = try txn.addTable("items")
            let number = try txn.addColumn(table, "number", COLUMNAR_TYPE_INT, nullable: true)
            let flag = try txn.addColumn(table, "flag", COLUMNAR_TYPE_BOOL)
            let name = try txn.addColumn(table, "name", COLUMNAR_TYPE_STRING)
            let tags = try txn.addColumn(table, "tags", COLUMNAR_TYPE_INT, collection: COLUMNAR_COLLECTION_LIST)
            var keys: [ObjectKey] = []
            for index in 0 ..< 3_000 {
                let key = try txn.createObject(table)
                if Int.random(in: 0 ..< 10, using: &generator) > 0 {
                    try txn.set(table, key, number, .int(Int64.random(in: -1_000_000 ... 1_000_000, using: &generator)))
                }
                try txn.set(table, key, flag, .bool(index % 3 == 0))
                try txn.set(table, key, name, .string("name \(index) " + String(repeating: "x", count: index % 40)))
                keys.append(key)
            }
            for index in stride(from: 0, to: keys.count, by: 7) { try txn.deleteObject(table, keys[index]) }
            keys = keys.enumerated().filter { $0.offset % 7 != 0 }.map(\.element)
            // A key too large to pack beside a position: the keys are then ordered by comparison.
            let huge = ObjectKey(Int64.max - 3)
            try txn.createObject(table, key: huge)
            try txn.set(table, huge, number, .int(42))
            try txn.set(table, huge, name, .string("far away"))
            keys.append(huge)
            return Fixture(table: table, number: number, flag: flag, name: name, tags: tags, keys: keys)
        }
    }

    /// Orders of keys to read: in key order, reversed, shuffled, with repeats, a few, one, none.
    private func orders(of keys: [ObjectKey], _ generator: inout SeededGenerator) -> [(String, [ObjectKey])] {
        let small = keys.filter { $0 < 1 << 40 }
        return [
            ("key order", keys),
            ("reversed", keys.reversed()),
            ("shuffled", keys.shuffled(using: &generator)),
            ("shuffled, small keys only", small.shuffled(using: &generator)),
            ("repeats", (0 ..< 2_000).map { _ in keys.randomElement(using: &generator)! }),
            ("a few", Array(keys.shuffled(using: &generator).prefix(5))),
            ("one", [keys[keys.count / 2]]),
            ("none", []),
        ]
    }

    private func assertReadsMatch(_ txn: Transaction, _ fixture: Fixture, _ generator: inout SeededGenerator,
                                  _ phase: String) throws {
        for (name, keys) in orders(of: fixture.keys, &generator) {
            for column in [fixture.number, fixture.flag, fixture.name] {
                let expected = try keys.map { try txn.get(fixture.table, $0, column) }
                XCTAssertEqual(try txn.getMany(fixture.table, keys, column), expected,
                               "\(phase), \(name), column \(column)")
            }
            for column in [fixture.number, fixture.flag] {
                let expected = try keys.map { try txn.getInt(fixture.table, $0, column) }
                XCTAssertEqual(try txn.getManyInt(fixture.table, keys, column), expected,
                               "\(phase), \(name), int form, column \(column)")
            }
        }
    }

    func testReadingManyObjectsAtOnceMatchesReadingEachOne() throws {
        var generator = makeSeededGenerator()
        var fixture = try makeFixture(&generator)
        try db.read { txn in try assertReadsMatch(txn, fixture, &generator, "committed") }
        // Inside a write: some clusters private (changed, grown, shrunk), the rest committed.
        try db.write { txn in
            for _ in 0 ..< 200 {
                let key = fixture.keys.randomElement(using: &generator)!
                try txn.set(fixture.table, key, fixture.number, .int(Int64.random(in: 0 ... 9, using: &generator)))
            }
            // Explicit keys: the huge key leaves columnar_obj_create only two keys above it.
            for key in ObjectKey(5_000) ..< 5_050 {
                try txn.createObject(fixture.table, key: key)
                fixture.keys.append(key)
            }
            for _ in 0 ..< 50 {
                let index = Int.random(in: 0 ..< fixture.keys.count - 1, using: &generator)
                try txn.deleteObject(fixture.table, fixture.keys.remove(at: index))
            }
            try assertReadsMatch(txn, fixture, &generator, "inside a write")
        }
        try db.read { txn in try assertReadsMatch(txn, fixture, &generator, "after the write") }
    }

    func testMissingObjectsAndUnsuitableColumnsAreRefused() throws {
        var generator = makeSeededGenerator()
        let fixture = try makeFixture(&generator)
        let deleted = ObjectKey(7)   // every seventh object was deleted, starting with key 0
        XCTAssertFalse(fixture.keys.contains(deleted))
        try db.read { txn in
            var keys = Array(fixture.keys.shuffled(using: &generator).prefix(100))
            keys.insert(deleted, at: 37)
            var failed: UInt64 = 0
            XCTAssertEngineError(COLUMNAR_ENOTFOUND,
                                 try txn.getMany(fixture.table, keys, fixture.number, failedIndex: &failed))
            XCTAssertEqual(failed, 37, "the position of the missing object")
            failed = 0
            XCTAssertEngineError(COLUMNAR_ENOTFOUND,
                                 try txn.getManyInt(fixture.table, keys, fixture.number, failedIndex: &failed))
            XCTAssertEqual(failed, 37, "the position of the missing object, int form")
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.getMany(fixture.table, [Int64.max], fixture.number),
                                 "a key past every cluster")
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.getMany(fixture.table, [fixture.keys[0], -1],
                                                                   fixture.number), "a negative key")
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.getMany(fixture.table, fixture.keys, fixture.tags),
                                 "a list column")
            XCTAssertEngineError(COLUMNAR_ETYPE, try txn.getManyInt(fixture.table, fixture.keys, fixture.name),
                                 "a string column read as integers")
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.getMany(fixture.table, fixture.keys, 99),
                                 "a column that does not exist")
        }
    }
}
