// PrimaryKeyObjectKeyTests.swift — int primary keys as object keys. A new object whose int primary key lies at
// or above the table's next key (and not far above it) takes that value as its key, so a lookup can find it with
// one table descent; every other object takes the next key. Checked here: which keys new objects get, that keys
// are never reused and still follow creation order, and that lookups find exactly the objects a plain Swift model
// (primary key -> object key) holds whatever key an object has: after deletes, after primary keys are changed, for
// nulls, negative and far-apart values, in write transactions and after commits and reopens. A table whose every
// object is keyed by its id is marked (columnar_table_info.keys_are_primary_keys), and its lookups trust the key
// alone: checked here are when the mark starts, keeps and ends, that lookups and duplicate checks of a marked table
// agree with a model, that a copy keeps it, and that verify finds a mark the objects do not bear out.

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

    private func makeTable(_ txn: Transaction, nullable: Bool = false,
                           name: String = "items") throws -> (TableID, ColumnID, ColumnID) {
        let table = try txn.addTable(name)
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

    // MARK: Tables whose every object is keyed by its id

    private func isMarked(_ txn: Transaction, _ table: TableID) throws -> Bool {
        try txn.tableInfo(table).keys_are_primary_keys
    }

    /// Lookups of every id in `present` find the object keyed by it; ids around them that are not present are not
    /// found, nor are negative and extreme ones; creating any present id again fails.
    private func checkKeyedLookups(_ txn: Transaction, _ table: TableID, present: Set<Int64>, _ context: String,
                                   file: StaticString = #filePath, line: UInt = #line) throws {
        let upper = (present.max() ?? 0) + 3
        for value in ([-3, -1, Int64.min, Int64.max, Int64.max - 1] + Array(0 ... upper)) {
            XCTAssertEqual(try txn.findPrimaryKey(table, .int(value)), present.contains(value) ? value : nil,
                           "id \(value), \(context)", file: file, line: line)
        }
        if txn.isWrite {
            for value in present {
                XCTAssertEngineError(COLUMNAR_EEXISTS, try txn.createObject(table, primaryKey: .int(value)),
                                     "id \(value), \(context)", file: file, line: line)
            }
        }
    }

    /// Writes a copy of the latest version and checks that its table "items" is marked and answers lookups of
    /// `present` (and of the ids around them) by the key alone.
    private func checkMarkedCopy(_ name: String, present: Set<Int64>, file: StaticString = #filePath,
                                 line: UInt = #line) throws {
        let copyPath = directory.file(name)
        try db.read { txn in try check(columnar_write_copy(txn.handle, copyPath, nil), "columnar_write_copy") }
        let copy = try TestDatabase(path: copyPath, flags: [], durability: COLUMNAR_DURABILITY_UNSAFE)
        defer { copy.close() }
        try copy.read { txn in
            let copied = try txn.findTable("items")
            XCTAssertTrue(try isMarked(txn, copied), name, file: file, line: line)
            try checkKeyedLookups(txn, copied, present: present, name, file: file, line: line)
            XCTAssertVerifies(txn, name, file: file, line: line)
        }
    }

    func testATableIsMarkedWhileEveryObjectIsKeyedByItsId() throws {
        let (table, id, payload) = try db.write { txn in try makeTable(txn) }
        try db.write { txn in
            XCTAssertFalse(try isMarked(txn, table), "no object yet")
            for value in [1, 2, 5, 9] as [Int64] { XCTAssertEqual(try txn.createObject(table, primaryKey: .int(value)), value) }
            XCTAssertTrue(try isMarked(txn, table))
            try checkKeyedLookups(txn, table, present: [1, 2, 5, 9], "write transaction")
            // Changing an object's id to its own value, other columns and deletes keep the mark.
            try txn.set(table, 5, id, .int(5))
            try txn.set(table, 5, payload, .int(77))
            try txn.deleteObject(table, 2)
            XCTAssertTrue(try isMarked(txn, table))
            try checkKeyedLookups(txn, table, present: [1, 5, 9], "after a delete")
        }
        try reopen()
        try db.read { txn in
            XCTAssertTrue(try isMarked(txn, table), "kept in the file")
            try checkKeyedLookups(txn, table, present: [1, 5, 9], "after reopening")
            XCTAssertEqual(try txn.getInt(table, 5, payload), 77)
            XCTAssertVerifies(txn)
        }
        // A copy holds the same keys and ids, and keeps the mark.
        try checkMarkedCopy("copy.columnar", present: [1, 5, 9])
        // Id 2 created again takes the next key (10): the mark ends, and lookups go through the index again.
        try db.write { txn in
            XCTAssertEqual(try txn.createObject(table, primaryKey: .int(2)), 10)
            XCTAssertFalse(try isMarked(txn, table))
            XCTAssertEqual(try txn.findPrimaryKey(table, .int(2)), 10)
            XCTAssertNil(try txn.findPrimaryKey(table, .int(10)))
        }
        try reopen()
        try db.read { txn in
            XCTAssertFalse(try isMarked(txn, table))
            for (value, key) in [(1, 1), (2, 10), (5, 5), (9, 9)] as [(Int64, ObjectKey)] {
                XCTAssertEqual(try txn.findPrimaryKey(table, .int(value)), key, "id \(value)")
            }
            XCTAssertNil(try txn.findPrimaryKey(table, .int(10)))
            XCTAssertVerifies(txn)
        }
        // Emptied, the table is marked again by its next object keyed by its id.
        try db.write { txn in
            for key in [1, 5, 9, 10] as [ObjectKey] { try txn.deleteObject(table, key) }
            XCTAssertEqual(try txn.createObject(table, primaryKey: .int(20)), 20)
            XCTAssertTrue(try isMarked(txn, table))
            try checkKeyedLookups(txn, table, present: [20], "emptied and filled again")
        }
        // Setting the primary key again clears it, even to the same column.
        try db.write { txn in
            try txn.setPrimaryKey(table, column: id)
            XCTAssertFalse(try isMarked(txn, table))
        }
        try reopen()
        try db.read { txn in
            XCTAssertFalse(try isMarked(txn, table))
            XCTAssertEqual(try txn.findPrimaryKey(table, .int(20)), 20)
            XCTAssertVerifies(txn)
        }
        // A copy looks at the objects themselves: the one left is keyed by its id, so the copy is marked.
        try checkMarkedCopy("second-copy.columnar", present: [20])
    }

    /// Each way an object can be keyed otherwise than by its id ends the mark, in the transaction that makes it
    /// and for good; lookups stay right.
    func testEveryObjectKeyedOtherwiseEndsTheMark() throws {
        /// Breaks the mark; returns the id (nil: null) and key of the object that did.
        typealias Breaker = (Transaction, TableID, ColumnID) throws -> (value: Int64?, key: ObjectKey)
        let breakers: [(String, Breaker)] = [
            ("an id below the next key", { txn, table, _ in (0, try txn.createObject(table, primaryKey: .int(0))) }),
            ("a null id", { txn, table, _ in (nil, try txn.createObject(table, primaryKey: .null)) }),
            ("an id far above the next key", { txn, table, _ in
                let value = 100 + 2 * Self.largestGap
                return (value, try txn.createObject(table, primaryKey: .int(value)))
            }),
            ("an object without an id", { txn, table, _ in (nil, try txn.createObject(table)) }),
            ("an object created with a key", { txn, table, _ in
                try txn.createObject(table, key: 50)
                return (nil, 50)
            }),
            ("an id changed to another value", { txn, table, id in
                try txn.set(table, 7, id, .int(1_000))
                return (1_000, 7)
            }),
            ("an id changed to null", { txn, table, id in
                try txn.set(table, 7, id, .null)
                return (nil, 7)
            }),
        ]
        for (index, (name, breaker)) in breakers.enumerated() {
            let (table, id, _) = try db.write { txn in try makeTable(txn, nullable: true, name: "items\(index)") }
            try db.write { txn in
                for value in [3, 7, 8] as [Int64] { _ = try txn.createObject(table, primaryKey: .int(value)) }
            }
            let broken = try db.write { txn -> (value: Int64?, key: ObjectKey) in
                XCTAssertTrue(try isMarked(txn, table), name)
                let broken = try breaker(txn, table, id)
                XCTAssertFalse(try isMarked(txn, table), name)
                return broken
            }
            try reopen()
            try db.read { txn in
                XCTAssertFalse(try isMarked(txn, table), name)
                XCTAssertEqual(try txn.findPrimaryKey(table, broken.value.map { .int($0) } ?? .null), broken.key, name)
                for value in [3, 8] as [Int64] { XCTAssertEqual(try txn.findPrimaryKey(table, .int(value)), value, name) }
                XCTAssertVerifies(txn, name)
            }
        }
        // A copy holds the same objects, each table with one keyed otherwise: none is marked.
        let copyPath = directory.file("copy.columnar")
        try db.read { txn in try check(columnar_write_copy(txn.handle, copyPath, nil), "columnar_write_copy") }
        let copy = try TestDatabase(path: copyPath, flags: [], durability: COLUMNAR_DURABILITY_UNSAFE)
        defer { copy.close() }
        try copy.read { txn in
            for (index, (name, _)) in breakers.enumerated() {
                XCTAssertFalse(try isMarked(txn, try txn.findTable("items\(index)")), "the copy, \(name)")
            }
        }
    }

    /// Random writes to a table of ascending ids, mostly keeping the mark, sometimes ending it (an id below the
    /// next key, an id changed) and sometimes emptying the table: the mark and every lookup agree with a model in
    /// each write transaction, after its commit, after reopening, and in a copy of the file.
    func testMarkedTablesAgreeWithAModel() throws {
        var generator = makeSeededGenerator()
        let note = generator.replayNote
        let (table, id, _) = try db.write { txn in try makeTable(txn) }
        var model: [Int64: ObjectKey] = [:]      // id -> key
        var marked = false
        var nextKey: Int64 = 0
        var nextAscending: Int64 = 0

        func checkAll(_ txn: Transaction, _ table: TableID, _ context: String) throws {
            XCTAssertEqual(try isMarked(txn, table), marked, "\(context), \(note)")
            for (value, key) in model {
                XCTAssertEqual(try txn.findPrimaryKey(table, .int(value)), key, "id \(value), \(context), \(note)")
                // The int read of a marked table's id answers from the key; every other table's reads the column.
                XCTAssertEqual(try txn.getInt(table, key, id), value, "id of \(key), \(context), \(note)")
            }
            for _ in 0 ..< 40 {
                let value = Int64.random(in: -2 ... nextAscending + 5, using: &generator)
                XCTAssertEqual(try txn.findPrimaryKey(table, .int(value)), model[value], "id \(value), \(context), \(note)")
            }
        }

        for round in 0 ..< 16 {
            try db.write { txn in
                if Int.random(in: 0 ..< 6, using: &generator) == 0 {
                    for key in model.values { try txn.deleteObject(table, key) }
                    model = [:]
                }
                for _ in 0 ..< 40 {
                    let roll = Int.random(in: 0 ..< 100, using: &generator)
                    if roll < 70 {
                        nextAscending = max(nextAscending, nextKey - 1) + Int64.random(in: 1 ... 4, using: &generator)
                        let value = nextAscending
                        let key = try txn.createObject(table, primaryKey: .int(value))
                        XCTAssertEqual(key, value, note)
                        marked = marked || model.isEmpty
                        model[value] = key
                        nextKey = key + 1
                    } else if roll < 90 {
                        guard let (value, key) = model.randomElement(using: &generator) else { continue }
                        try txn.deleteObject(table, key)
                        model[value] = nil
                    } else if roll < 95 {
                        let value = Int64.random(in: 0 ..< max(1, nextKey), using: &generator)
                        if model[value] != nil {
                            XCTAssertEngineError(COLUMNAR_EEXISTS, try txn.createObject(table, primaryKey: .int(value)))
                            continue
                        }
                        let key = try txn.createObject(table, primaryKey: .int(value))
                        XCTAssertEqual(key, nextKey, note)
                        // Keyed otherwise, except in an empty table whose next key is the id itself (id 0 first).
                        marked = (marked || model.isEmpty) && key == value
                        model[value] = key
                        nextKey = key + 1
                    } else {
                        guard let (value, key) = model.randomElement(using: &generator) else { continue }
                        let newValue = Bool.random(using: &generator) ? value : nextAscending + 1_000
                        if newValue != value && model[newValue] != nil { continue }
                        try txn.set(table, key, id, .int(newValue))
                        model[value] = nil
                        model[newValue] = key
                        if newValue != key { marked = false }
                    }
                }
                try checkAll(txn, table, "round \(round), write transaction")
            }
            if round % 4 == 3 { try reopen() }
            try db.read { txn in
                try checkAll(txn, table, "round \(round), after commit")
                XCTAssertVerifies(txn, note)
            }
        }
        let copyPath = directory.file("copy.columnar")
        try db.read { txn in try check(columnar_write_copy(txn.handle, copyPath, nil), "columnar_write_copy") }
        let copy = try TestDatabase(path: copyPath, flags: [], durability: COLUMNAR_DURABILITY_UNSAFE)
        defer { copy.close() }
        // The copy marks its table by what it copied: every object keyed by its id, however the source's mark ended.
        marked = model.allSatisfy { $0.key == $0.value }
        try copy.read { txn in
            try checkAll(txn, try txn.findTable("items"), "the copy")
            XCTAssertVerifies(txn, note)
        }
    }

    /// A mark the objects do not bear out is damage: verify names it.
    func testVerifyFindsAMarkTheObjectsDoNotBearOut() throws {
        // Durable commits: the latest commit's record then lists only what that commit wrote.
        db.close()
        db = try TestDatabase(path: path, flags: [], durability: COLUMNAR_DURABILITY_FULL, clusterSize: clusterSize)
        let (table, id, _) = try db.write { txn in try makeTable(txn) }
        try db.write { txn in
            for value in [1, 2, 3] as [Int64] { _ = try txn.createObject(table, primaryKey: .int(value)) }
            try txn.set(table, 2, id, .int(40))
            XCTAssertFalse(try isMarked(txn, table))
        }
        // A later commit that leaves the table alone, so that its META is not among the latest commit's ranges.
        try db.write { txn in _ = try txn.addTable("other") }
        db.close()
        let structure = try FileStructure.read(path)
        let meta = try XCTUnwrap(structure.nodes.first { $0.role == 2 && $0.table == table && $0.parentRole == 8 },
                                 "the table's META node")
        XCTAssertFalse(structure.isRecorded(meta))
        XCTAssertEqual(meta.count, 3)
        XCTAssertEqual(try FileSurgery.packedGet(path, ref: meta.ref, width: meta.width, index: 2), 0)
        try FileSurgery.packedSet(path, ref: meta.ref, width: meta.width, index: 2, Int64(id) + 1)
        try FileSurgery.fixChecksum(path, ref: meta.ref)
        db = try TestDatabase(path: path, flags: [], durability: COLUMNAR_DURABILITY_UNSAFE, clusterSize: clusterSize)
        try db.read { txn in
            XCTAssertTrue(try isMarked(txn, table))
            let report = txn.verify()
            XCTAssertTrue(report.findings.contains { $0.what.contains("every object's key is its primary key") },
                          "\(report)")
        }
    }
}
