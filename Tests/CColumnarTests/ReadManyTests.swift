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

/// Keys that lie in a span at most four times as wide as their count (a sorted table's keys) are read into tables
/// indexed by key: integer columns a cluster's run of consecutive keys at a time, other columns and clusters with
/// gaps row by row. These tests aim at that path: whole clusters, spans that start and end inside a cluster, a
/// column added after some clusters were written, nulls, gaps left by deletions, private clusters and missing keys.
final class ReadManySpanTests: DatabaseTestCase {
    override var databaseName: String { "read-many-span" }
    override var clusterSize: UInt32 { 32 }

    private struct Columns {
        let table: TableID
        let count: ColumnID
        let flag: ColumnID
        let label: ColumnID
        var late: ColumnID? = nil
        var all: [ColumnID] { [count, flag, label] + (late.map { [$0] } ?? []) }
        var integers: [ColumnID] { [count, flag] + (late.map { [$0] } ?? []) }
    }

    /// 2,000 objects with keys 0 ..< 2,000 and no gaps; `count` null for every fifth object.
    private func makeTable(_ generator: inout SeededGenerator) throws -> Columns {
        try db.write { txn -> Columns in
            let table = try txn.addTable("span")
            let count = try txn.addColumn(table, "count", COLUMNAR_TYPE_INT, nullable: true)
            let flag = try txn.addColumn(table, "flag", COLUMNAR_TYPE_BOOL)
            let label = try txn.addColumn(table, "label", COLUMNAR_TYPE_STRING, nullable: true)
            for index in 0 ..< 2_000 {
                let key = try txn.createObject(table)
                if index % 5 != 0 {
                    try txn.set(table, key, count, .int(Int64.random(in: -(1 << 40) ... 1 << 40, using: &generator)))
                }
                try txn.set(table, key, flag, .bool(Bool.random(using: &generator)))
                if index % 3 != 0 { try txn.set(table, key, label, .string("label \(index)")) }
            }
            return Columns(table: table, count: count, flag: flag, label: label)
        }
    }

    private func spans(_ keys: [ObjectKey], _ generator: inout SeededGenerator) -> [(String, [ObjectKey])] {
        let middle = Array(keys[317 ..< 1_411])   // starts and ends inside a 32-row cluster
        return [
            ("every object, shuffled", keys.shuffled(using: &generator)),
            ("every object, in key order", keys),
            ("a middle range, shuffled", middle.shuffled(using: &generator)),
            ("a middle range with repeats", (0 ..< 900).map { _ in middle.randomElement(using: &generator)! }),
            ("a quarter, spread over the table", keys.shuffled(using: &generator).prefix(keys.count / 4 + 1).map { $0 }),
        ]
    }

    private func assertSpansMatch(_ txn: Transaction, _ columns: Columns, _ keys: [ObjectKey],
                                  _ generator: inout SeededGenerator, _ phase: String) throws {
        for (name, asked) in spans(keys, &generator) {
            for column in columns.all {
                let expected = try asked.map { try txn.get(columns.table, $0, column) }
                XCTAssertEqual(try txn.getMany(columns.table, asked, column), expected, "\(phase), \(name), \(column)")
            }
            for column in columns.integers {
                let expected = try asked.map { try txn.getInt(columns.table, $0, column) }
                XCTAssertEqual(try txn.getManyInt(columns.table, asked, column), expected,
                               "\(phase), \(name), int form, \(column)")
            }
        }
    }

    func testReadingASpanMatchesReadingEachObject() throws {
        var generator = makeSeededGenerator()
        var columns = try makeTable(&generator)
        var keys = try db.read { txn in try txn.keys(columns.table) }
        XCTAssertEqual(keys, Array(ObjectKey(0) ..< 2_000), "the keys this test assumes")
        try db.read { txn in try assertSpansMatch(txn, columns, keys, &generator, "committed, no gaps") }

        // A column added now: the clusters already written store no leaf for it, so every row reads the default.
        columns.late = try db.write { txn in try txn.addColumn(columns.table, "late", COLUMNAR_TYPE_INT, nullable: true) }
        try db.write { txn in
            for key in keys.prefix(100) { try txn.set(columns.table, key, columns.late!, .int(key * 3)) }
        }
        try db.read { txn in try assertSpansMatch(txn, columns, keys, &generator, "with a late column") }

        // Gaps: deleted objects leave clusters whose keys do not run without a break.
        try db.write { txn in
            for key in stride(from: ObjectKey(5), to: 2_000, by: 11) { try txn.deleteObject(columns.table, key) }
        }
        keys = try db.read { txn in try txn.keys(columns.table) }
        try db.read { txn in try assertSpansMatch(txn, columns, keys, &generator, "with gaps") }

        // Inside a write: private clusters among committed ones.
        try db.write { txn in
            for _ in 0 ..< 150 {
                let key = keys.randomElement(using: &generator)!
                try txn.set(columns.table, key, columns.count, .null)
                try txn.set(columns.table, key, columns.flag, .bool(true))
            }
            try assertSpansMatch(txn, columns, keys, &generator, "inside a write")
        }
    }

    func testAMissingKeyInsideTheSpanIsReportedWithItsPosition() throws {
        var generator = makeSeededGenerator()
        let columns = try makeTable(&generator)
        try db.write { txn in try txn.deleteObject(columns.table, 1_234) }
        try db.read { txn in
            var asked = Array(ObjectKey(0) ..< 2_000).filter { $0 != 1_234 }.shuffled(using: &generator)
            asked.insert(1_234, at: 999)
            for column in columns.all {
                var failed: UInt64 = 0
                XCTAssertEngineError(COLUMNAR_ENOTFOUND,
                                     try txn.getMany(columns.table, asked, column, failedIndex: &failed))
                XCTAssertEqual(failed, 999, "the position of the deleted object, column \(column)")
            }
            var failed: UInt64 = 0
            XCTAssertEngineError(COLUMNAR_ENOTFOUND,
                                 try txn.getManyInt(columns.table, asked, columns.count, failedIndex: &failed))
            XCTAssertEqual(failed, 999, "the position of the deleted object, int form")
            // A key past the last object, inside the span of the others.
            failed = 0
            XCTAssertEngineError(COLUMNAR_ENOTFOUND,
                                 try txn.getManyInt(columns.table, [10, 2_000, 11], columns.count, failedIndex: &failed))
            XCTAssertEqual(failed, 1, "the position of the key past the last object")
        }
    }
}
