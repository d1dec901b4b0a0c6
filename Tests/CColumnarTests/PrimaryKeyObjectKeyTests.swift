// PrimaryKeyObjectKeyTests.swift — int primary keys as object keys. A new object whose int primary key lies at
// or above the table's next key (and not far above it) takes that value as its key, so a lookup can find it with
// one table descent; every other object takes the next key. Checked here: which keys new objects get, that keys
// are never reused and still follow creation order, and that lookups find exactly the objects a plain Swift model
// (primary key -> object key) holds whatever key an object has: after deletes, after primary keys are changed, for
// nulls, negative and far-apart values, in write transactions and after commits and reopens.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class PrimaryKeyObjectKeyTests: DatabaseTestCase {
    override var databaseName: String { "primary-key-object-key" }
    /// Clusters of 4 rows: tables of a few hundred objects have inner nodes.
    override var clusterSize: UInt32 { 4 }

    /// The largest distance above the next key at which a primary key is still taken as the object's key.
    private static let largestGap: Int64 = 1 << 32

    private func makeTable(_ txn: Transaction, nullable: Bool = false) throws -> (TableID, ColumnID, ColumnID) {
        let table = try txn.addTable("items")
        let id = try txn.addColumn(table, "id", COLUMNAR_TYPE_INT, nullable: nullable)
        try txn.setPrimaryKey(table, column: id)
        let payload = try txn.addColumn(table, "payload", COLUMNAR_TYPE_INT)
        return (table, id, payload)
    }

    func testNewObjectsTakeTheirIdAsKeyOnlyAtOrAboveTheNextKey() throws {
        try db.write { txn in
            let (table, _, _) = try makeTable(txn)
            // Ascending ids, with gaps, become the keys.
            XCTAssertEqual(try txn.createObject(table, primaryKey: .int(1)), 1)
            XCTAssertEqual(try txn.createObject(table, primaryKey: .int(2)), 2)
            XCTAssertEqual(try txn.createObject(table, primaryKey: .int(40)), 40)
            // An id below the next key takes the next key: key 3 was never used, but 41 is next.
            XCTAssertEqual(try txn.createObject(table, primaryKey: .int(3)), 41)
            XCTAssertEqual(try txn.createObject(table, primaryKey: .int(-7)), 42)
            // Exactly the largest gap above the next key (43) is taken; one more is not.
            XCTAssertEqual(try txn.createObject(table, primaryKey: .int(43 + Self.largestGap)), 43 + Self.largestGap)
            let next = 44 + Self.largestGap
            XCTAssertEqual(try txn.createObject(table, primaryKey: .int(next + Self.largestGap + 1)), next)
            XCTAssertEqual(try txn.createObject(table, primaryKey: .int(Int64.max)), next + 1)
            XCTAssertEqual(try txn.createObject(table, primaryKey: .int(Int64.min)), next + 2)
            XCTAssertVerifies(txn)
        }
    }

    func testNullAndStringPrimaryKeysTakeTheNextKey() throws {
        try db.write { txn in
            let (table, _, _) = try makeTable(txn, nullable: true)
            XCTAssertEqual(try txn.createObject(table, primaryKey: .null), 0)
            XCTAssertEqual(try txn.createObject(table, primaryKey: .int(5)), 5)
            XCTAssertEqual(try txn.findPrimaryKey(table, .null), 0)
            XCTAssertEqual(try txn.findPrimaryKey(table, .int(5)), 5)
            XCTAssertNil(try txn.findPrimaryKey(table, .int(0)))
            let coded = try txn.addTable("coded")
            let code = try txn.addColumn(coded, "code", COLUMNAR_TYPE_STRING)
            try txn.setPrimaryKey(coded, column: code)
            XCTAssertEqual(try txn.createObject(coded, primaryKey: .string("7")), 0)
            XCTAssertEqual(try txn.createObject(coded, primaryKey: .string("1")), 1)
        }
    }

    /// A deleted object's key is not given to a new object with the same id: a held key of a deleted object must
    /// keep naming no object.
    func testADeletedIdCreatedAgainGetsANewKey() throws {
        let (table, _, _) = try db.write { txn in try makeTable(txn) }
        let first = try db.write { txn in try txn.createObject(table, primaryKey: .int(10)) }
        XCTAssertEqual(first, 10)
        try db.write { txn in try txn.deleteObject(table, first) }
        let second = try db.write { txn in try txn.createObject(table, primaryKey: .int(10)) }
        XCTAssertEqual(second, 11)
        try db.read { txn in
            XCTAssertFalse(try txn.exists(table, first))
            XCTAssertEqual(try txn.findPrimaryKey(table, .int(10)), second)
            XCTAssertNil(try txn.findPrimaryKey(table, .int(11)))
        }
    }

    /// The object whose key is a looked-for id may hold another id: its own was changed, or it took a sequential
    /// key. A lookup must not take it.
    func testAnObjectWhoseKeyIsTheIdButWhoseIdDiffersIsNotFound() throws {
        let (table, id, _) = try db.write { txn in try makeTable(txn) }
        try db.write { txn in
            XCTAssertEqual(try txn.createObject(table, primaryKey: .int(0)), 0)
            XCTAssertEqual(try txn.createObject(table, primaryKey: .int(1)), 1)
            try txn.set(table, 1, id, .int(100))
            XCTAssertNil(try txn.findPrimaryKey(table, .int(1)))
            XCTAssertEqual(try txn.findPrimaryKey(table, .int(100)), 1)
            // Id 1 again: key 1 is taken (by the object with id 100), so it gets key 2.
            XCTAssertEqual(try txn.createObject(table, primaryKey: .int(1)), 2)
            // Id 3 below the next key: key 3 is next, so it is taken; then id 2 gets key 4.
            XCTAssertEqual(try txn.createObject(table, primaryKey: .int(3)), 3)
            XCTAssertEqual(try txn.createObject(table, primaryKey: .int(2)), 4)
            for (value, key) in [(0, 0), (1, 2), (2, 4), (3, 3), (100, 1)] as [(Int64, ObjectKey)] {
                XCTAssertEqual(try txn.findPrimaryKey(table, .int(value)), key, "id \(value)")
            }
        }
        try db.read { txn in
            for (value, key) in [(0, 0), (1, 2), (2, 4), (3, 3), (100, 1)] as [(Int64, ObjectKey)] {
                XCTAssertEqual(try txn.findPrimaryKey(table, .int(value)), key, "id \(value)")
            }
            XCTAssertNil(try txn.findPrimaryKey(table, .int(4)))
            XCTAssertVerifies(txn)
        }
    }

    /// Objects created without a primary key and given one later have sequential keys.
    func testIdsSetAfterCreationAreFound() throws {
        let (table, id, _) = try db.write { txn in try makeTable(txn) }
        try db.write { txn in
            for value in [5, 0, 1, 2] as [Int64] {
                let key = try txn.createObject(table, primaryKey: .int(1000 + value))
                try txn.set(table, key, id, .int(value))
            }
        }
        try db.read { txn in
            for (value, key) in [(5, 1005), (0, 1006), (1, 1007), (2, 1008)] as [(Int64, ObjectKey)] {
                XCTAssertEqual(try txn.findPrimaryKey(table, .int(value)), key, "id \(value)")
            }
        }
    }

    /// Random creates (ascending, shuffled, negative and far-apart ids), deletes, id changes and lookups of
    /// present and absent ids, checked against a model inside each write transaction and in a read transaction
    /// after its commit. New keys must increase in creation order and never repeat a key used before.
    func testLookupsMatchAModelWhateverKeysObjectsHave() throws {
        var generator = makeSeededGenerator()
        let note = generator.replayNote
        let (table, id, payload) = try db.write { txn in try makeTable(txn) }
        var model: [Int64: ObjectKey] = [:]      // id -> key
        var payloads: [ObjectKey: Int64] = [:]
        var creationOrder: [ObjectKey] = []
        var nextAscending: Int64 = 0

        func randomID(_ generator: inout SeededGenerator) -> Int64 {
            switch Int.random(in: 0 ..< 10, using: &generator) {
            case 0 ..< 5:
                nextAscending += Int64.random(in: 1 ... 3, using: &generator)
                return nextAscending
            case 5, 6: return Int64.random(in: 0 ... nextAscending + 50, using: &generator)
            case 7: return Int64.random(in: -1000 ... -1, using: &generator)
            case 8: return Int64.random(in: Int64.min ... Int64.max, using: &generator)
            default: return nextAscending + Int64.random(in: Self.largestGap - 2 ... Self.largestGap + 2,
                                                         using: &generator)
            }
        }

        func checkLookups(_ txn: Transaction, _ context: String) throws {
            for (value, key) in model {
                XCTAssertEqual(try txn.findPrimaryKey(table, .int(value)), key, "id \(value), \(context), \(note)")
            }
            for _ in 0 ..< 60 {
                let value = randomID(&generator)
                XCTAssertEqual(try txn.findPrimaryKey(table, .int(value)), model[value],
                               "id \(value), \(context), \(note)")
            }
        }

        for round in 0 ..< 12 {
            try db.write { txn in
                for _ in 0 ..< 60 {
                    switch Int.random(in: 0 ..< 10, using: &generator) {
                    case 0 ..< 6:
                        let value = randomID(&generator)
                        if model[value] != nil { continue }
                        let key = try txn.createObject(table, primaryKey: .int(value))
                        XCTAssertTrue(creationOrder.last.map { $0 < key } ?? true, "keys follow creation, \(note)")
                        XCTAssertNil(payloads[key], "key \(key) reused, \(note)")
                        model[value] = key
                        payloads[key] = Int64.random(in: 0 ..< 1_000_000, using: &generator)
                        try txn.set(table, key, payload, .int(payloads[key]!))
                        creationOrder.append(key)
                    case 6, 7:
                        guard let (value, key) = model.randomElement(using: &generator) else { continue }
                        try txn.deleteObject(table, key)
                        model[value] = nil
                        creationOrder.removeAll { $0 == key }
                    default:
                        guard let (value, key) = model.randomElement(using: &generator) else { continue }
                        let newValue = randomID(&generator)
                        if model[newValue] != nil { continue }
                        try txn.set(table, key, id, .int(newValue))
                        model[value] = nil
                        model[newValue] = key
                    }
                }
                try checkLookups(txn, "round \(round), write transaction")
            }
            if round % 4 == 3 { try reopen() }
            try db.read { txn in
                try checkLookups(txn, "round \(round), after commit")
                for (value, key) in model {
                    XCTAssertEqual(try txn.getInt(table, key, payload), payloads[key], "id \(value), \(note)")
                }
            }
        }
        try db.read { txn in
            XCTAssertEqual(try txn.count(table), UInt64(model.count))
            XCTAssertEqual(creationOrder, creationOrder.sorted(), note)
            XCTAssertVerifies(txn)
        }
    }
}
