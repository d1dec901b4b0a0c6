// SchemaTests.swift — tables, columns, indexes and primary keys: adding, finding, renaming, removing, the errors
// for duplicates and bad names, and persistence across a reopen.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class SchemaTests: DatabaseTestCase {
    override var databaseName: String { "schema" }

    private let longestName = String(repeating: "n", count: 63)
    private let tooLongName = String(repeating: "n", count: 64)

    // MARK: Tables

    func testTablesCanBeAddedFoundRenamedAndRemoved() throws {
        let (people, pets) = try db.write { txn -> (TableID, TableID) in
            let people = try txn.addTable("people")
            let pets = try txn.addTable("pets")
            XCTAssertNotEqual(people, pets)
            XCTAssertEqual(try txn.findTable("people"), people)
            XCTAssertEqual(try txn.findTable("pets"), pets)
            XCTAssertEqual(try txn.tableCount(), 2)
            return (people, pets)
        }
        try db.write { txn in
            try txn.renameTable(people, to: "persons")
            XCTAssertEqual(try txn.findTable("persons"), people)
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.findTable("people"), "the old name is gone")
            XCTAssertEqual(try txn.tableName(people), "persons")
            try txn.removeTable(pets)
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.findTable("pets"))
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.tableInfo(pets), "a removed table keeps its id")
            XCTAssertEqual(try txn.tableCount(), 2, "table ids of removed tables are not reused")
        }
        try reopen()
        try db.read { txn in
            XCTAssertEqual(try txn.findTable("persons"), people)
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.findTable("pets"))
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.tableInfo(pets))
            XCTAssertVerifies(txn)
        }
        // A name freed by a removal can be used again, for a new id.
        try db.write { txn in
            let again = try txn.addTable("pets")
            XCTAssertNotEqual(again, pets)
        }
    }

    func testDuplicateTableNamesAreRejected() throws {
        try db.write { txn in
            let table = try txn.addTable("things")
            XCTAssertEngineError(COLUMNAR_EEXISTS, try txn.addTable("things"))
            let other = try txn.addTable("others")
            XCTAssertEngineError(COLUMNAR_EEXISTS, try txn.renameTable(other, to: "things"))
            XCTAssertEqual(try txn.findTable("things"), table)
        }
    }

    func testBadTableNamesAreRejectedWithEMISUSE() throws {
        try db.write { txn in
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.addTable(""), "empty name")
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.addTable(tooLongName), "64-byte name")
            let table = try txn.addTable(longestName)
            XCTAssertEqual(try txn.tableName(table), longestName, "63 bytes is the longest name")
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.renameTable(table, to: ""))
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.renameTable(table, to: tooLongName))
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.renameTable(table + 100, to: "x"))
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.removeTable(table + 100))
        }
    }

    func testSchemaChangesNeedAWriteTransaction() throws {
        let table = try db.write { try $0.addTable("t") }
        try db.read { txn in
            XCTAssertFalse(txn.isWrite)
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.addTable("u"))
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.addColumn(table, "c", COLUMNAR_TYPE_INT))
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.createObject(table))
        }
    }

    func testReadOnlyDatabaseRefusesWrites() throws {
        try db.write { _ = try $0.addTable("t") }
        db.close()
        db = try TestDatabase(path: path, flags: [.readOnly])
        XCTAssertEngineError(COLUMNAR_EREADONLY, try db.beginWrite())
        try db.read { XCTAssertEqual(try $0.tableCount(), 1) }
    }

    func testTableLinkedFromAnotherCannotBeRemoved() throws {
        try db.write { txn in
            let target = try txn.addTable("target")
            let origin = try txn.addTable("origin")
            let link = try txn.addColumn(origin, "to", COLUMNAR_TYPE_LINK, nullable: true, target: target)
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.removeTable(target), "a link column points at it")
            try txn.removeColumn(origin, link)
            try txn.removeTable(target)
        }
    }

    // MARK: Columns

    func testColumnsCanBeAddedFoundRenamedAndRemoved() throws {
        let (table, columns) = try db.write { txn -> (TableID, [ColumnID]) in
            let table = try txn.addTable("t")
            let columns = [
                try txn.addColumn(table, "a", COLUMNAR_TYPE_INT),
                try txn.addColumn(table, "b", COLUMNAR_TYPE_STRING, nullable: true),
                try txn.addColumn(table, "c", COLUMNAR_TYPE_DOUBLE, collection: COLUMNAR_COLLECTION_LIST),
            ]
            XCTAssertEqual(Set(columns).count, 3)
            for (name, column) in zip(["a", "b", "c"], columns) {
                XCTAssertEqual(try txn.findColumn(table, name), column)
            }
            let info = try txn.columnInfo(table, columns[1])
            XCTAssertEqual(info.type, COLUMNAR_TYPE_STRING)
            XCTAssertEqual(info.collection, COLUMNAR_COLLECTION_NONE)
            XCTAssertTrue(info.nullable)
            XCTAssertFalse(info.indexed)
            XCTAssertFalse(info.is_primary_key)
            XCTAssertEqual(try txn.columnInfo(table, columns[2]).collection, COLUMNAR_COLLECTION_LIST)
            XCTAssertEqual(try txn.tableInfo(table).column_count, 3)
            return (table, columns)
        }
        try db.write { txn in
            try txn.renameColumn(table, columns[0], to: "alpha")
            XCTAssertEqual(try txn.findColumn(table, "alpha"), columns[0])
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.findColumn(table, "a"))
            try txn.removeColumn(table, columns[1])
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.findColumn(table, "b"))
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.columnInfo(table, columns[1]))
            XCTAssertEqual(try txn.tableInfo(table).column_count, 3, "removed column ids stay reserved")
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.removeColumn(table, 99))
        }
        try reopen()
        try db.read { txn in
            XCTAssertEqual(try txn.columnName(table, columns[0]), "alpha")
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.columnInfo(table, columns[1]))
            XCTAssertEqual(try txn.columnInfo(table, columns[2]).type, COLUMNAR_TYPE_DOUBLE)
            XCTAssertVerifies(txn)
        }
    }

    func testDuplicateAndBadColumnSpecsAreRejected() throws {
        try db.write { txn in
            let table = try txn.addTable("t")
            let a = try txn.addColumn(table, "a", COLUMNAR_TYPE_INT)
            let b = try txn.addColumn(table, "b", COLUMNAR_TYPE_INT)
            XCTAssertEngineError(COLUMNAR_EEXISTS, try txn.addColumn(table, "a", COLUMNAR_TYPE_STRING))
            XCTAssertEngineError(COLUMNAR_EEXISTS, try txn.renameColumn(table, b, to: "a"))
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.addColumn(table, "", COLUMNAR_TYPE_INT), "empty name")
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.addColumn(table, tooLongName, COLUMNAR_TYPE_INT))
            XCTAssertEqual(try txn.columnName(table, try txn.addColumn(table, longestName, COLUMNAR_TYPE_INT)),
                           longestName)
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.addColumn(table, "zero", columnar_type(rawValue: 0)),
                                 "type 0 is reserved")
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.addColumn(table, "thirteen", columnar_type(rawValue: 13),
                                                                      nullable: true), "no type 13")
            XCTAssertEngineError(COLUMNAR_EMISUSE,
                                 try txn.addColumn(table, "kind", COLUMNAR_TYPE_INT,
                                                   collection: columnar_collection_kind(rawValue: 9)))
            XCTAssertEngineError(COLUMNAR_ENOTFOUND,
                                 try txn.addColumn(table, "dangling", COLUMNAR_TYPE_LINK, nullable: true, target: 999),
                                 "link to a table that does not exist")
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.addColumn(table, "fi", COLUMNAR_TYPE_DOUBLE, indexed: true),
                                 "DOUBLE cannot be indexed")
            let ratio = try txn.addColumn(table, "ratio", COLUMNAR_TYPE_FLOAT)
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.setIndexed(table, ratio, true), "FLOAT cannot be indexed")
            try txn.setIndexed(table, a, true)
            XCTAssertTrue(try txn.columnInfo(table, a).indexed)
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.addColumn(999, "x", COLUMNAR_TYPE_INT))
        }
    }

    func testAddedColumnGivesExistingObjectsNullOrTheZeroValue() throws {
        try db.write { txn in
            let table = try txn.addTable("t")
            let keys = try (0..<300).map { _ in try txn.createObject(table) }
            let nullable = try txn.addColumn(table, "maybe", COLUMNAR_TYPE_STRING, nullable: true)
            let required = try txn.addColumn(table, "count", COLUMNAR_TYPE_INT)
            let flag = try txn.addColumn(table, "flag", COLUMNAR_TYPE_BOOL)
            let text = try txn.addColumn(table, "text", COLUMNAR_TYPE_STRING)
            let list = try txn.addColumn(table, "list", COLUMNAR_TYPE_INT, collection: COLUMNAR_COLLECTION_LIST)
            for key in keys {
                XCTAssertEqual(try txn.get(table, key, nullable), .null)
                XCTAssertEqual(try txn.get(table, key, required), .int(0))
                XCTAssertEqual(try txn.get(table, key, flag), .bool(false))
                XCTAssertEqual(try txn.get(table, key, text), .string(""))
                XCTAssertEqual(try txn.size(table, key, list), 0)
            }
        }
    }

    func testValuesOfTheWrongTypeOrNullAreRejected() throws {
        try db.write { txn in
            let table = try txn.addTable("t")
            let required = try txn.addColumn(table, "required", COLUMNAR_TYPE_INT)
            let optional = try txn.addColumn(table, "optional", COLUMNAR_TYPE_INT, nullable: true)
            let list = try txn.addColumn(table, "list", COLUMNAR_TYPE_INT, collection: COLUMNAR_COLLECTION_LIST)
            let key = try txn.createObject(table)
            XCTAssertEngineError(COLUMNAR_ETYPE, try txn.set(table, key, required, .string("3")))
            XCTAssertEngineError(COLUMNAR_ETYPE, try txn.set(table, key, required, .double(3)))
            XCTAssertEngineError(COLUMNAR_ENULL, try txn.set(table, key, required, .null))
            try txn.set(table, key, optional, .null)
            XCTAssertEqual(try txn.get(table, key, optional), .null)
            XCTAssertEqual(try txn.getInt(table, key, optional), nil)
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.get(table, key, list), "single read of a collection")
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.get(table, key + 1, required), "no such object")
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.get(table, key, 77), "no such column")
            XCTAssertEngineError(COLUMNAR_EEXISTS, try txn.createObject(table, key: key), "key in use")
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.createObject(table, key: -1), "negative key")
            try txn.createObject(table, key: 1_000_000)
            XCTAssertTrue(try txn.exists(table, 1_000_000))
            let next = try txn.createObject(table)
            XCTAssertNotEqual(next, key)
            XCTAssertNotEqual(next, 1_000_000)
        }
    }

    // MARK: Indexes

    func testIndexCanBeTurnedOnAndOffWithoutChangingLookups() throws {
        let (table, name) = try db.write { txn -> (TableID, ColumnID) in
            let table = try txn.addTable("people")
            let name = try txn.addColumn(table, "name", COLUMNAR_TYPE_STRING)
            for index in 0..<2_000 {
                let key = try txn.createObject(table)
                try txn.set(table, key, name, .string("person \(index % 1_000)"))
            }
            return (table, name)
        }
        func assertLookups(_ stage: String) throws {
            try db.read { txn in
                for index in stride(from: 0, to: 1_000, by: 37) {
                    let key = try txn.findFirst(table, name, .string("person \(index)"))
                    XCTAssertNotNil(key, "\(stage): person \(index)")
                    if let key { XCTAssertEqual(try txn.get(table, key, name), .string("person \(index)"), stage) }
                }
                XCTAssertNil(try txn.findFirst(table, name, .string("nobody")), stage)
                XCTAssertVerifies(txn, stage)
            }
        }
        try assertLookups("without index")
        try db.write { try $0.setIndexed(table, name, true) }
        try db.read { XCTAssertTrue(try $0.columnInfo(table, name).indexed) }
        try assertLookups("with index")
        // The index follows changes: a renamed value is found under its new value only.
        try db.write { txn in
            let key = try txn.findFirst(table, name, .string("person 5"))!
            try txn.set(table, key, name, .string("renamed"))
            XCTAssertEqual(try txn.findFirst(table, name, .string("renamed")), key)
            let other = try txn.findFirst(table, name, .string("person 5"))
            XCTAssertNotNil(other, "the second person 5 is still there")
            XCTAssertNotEqual(other, key)
        }
        try reopen()
        try db.read { XCTAssertTrue(try $0.columnInfo(table, name).indexed, "index survives reopen") }
        try assertLookups("with index after reopen")
        try db.write { try $0.setIndexed(table, name, false) }
        try db.read { XCTAssertFalse(try $0.columnInfo(table, name).indexed) }
        try assertLookups("after dropping the index")
    }

    // MARK: Primary keys

    func testPrimaryKeyFindsObjectsAndRejectsDuplicates() throws {
        let (table, code) = try db.write { txn -> (TableID, ColumnID) in
            let table = try txn.addTable("products")
            let code = try txn.addColumn(table, "code", COLUMNAR_TYPE_STRING)
            let price = try txn.addColumn(table, "price", COLUMNAR_TYPE_DOUBLE)
            try txn.setPrimaryKey(table, column: code)
            let info = try txn.tableInfo(table)
            XCTAssertEqual(info.primary_key, code)
            XCTAssertTrue(try txn.columnInfo(table, code).is_primary_key)
            for index in 0..<500 {
                let key = try txn.createObject(table, primaryKey: .string("P\(index)"))
                try txn.set(table, key, price, .double(Double(index)))
            }
            XCTAssertEngineError(COLUMNAR_EEXISTS, try txn.createObject(table, primaryKey: .string("P7")))
            // An object created without a value takes the default primary key (""), once: a second one collides.
            let defaulted = try txn.createObject(table)
            XCTAssertEqual(try txn.findPrimaryKey(table, .string("")), defaulted)
            XCTAssertEngineError(COLUMNAR_EEXISTS, try txn.createObject(table), "the default primary key is taken")
            try txn.deleteObject(table, defaulted)
            let p8 = try txn.findPrimaryKey(table, .string("P8"))!
            XCTAssertEngineError(COLUMNAR_EEXISTS, try txn.set(table, p8, code, .string("P9")), "changing to a used value")
            try txn.set(table, p8, code, .string("P8b"))
            XCTAssertNil(try txn.findPrimaryKey(table, .string("P8")))
            XCTAssertEqual(try txn.findPrimaryKey(table, .string("P8b")), p8)
            XCTAssertEngineError(COLUMNAR_ETYPE, try txn.createObject(table, primaryKey: .int(3)))
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.removeColumn(table, code), "the primary key column")
            return (table, code)
        }
        try reopen()
        try db.read { txn in
            XCTAssertEqual(try txn.tableInfo(table).primary_key, code)
            for index in stride(from: 0, to: 500, by: 13) where index != 8 {
                let key = try txn.findPrimaryKey(table, .string("P\(index)"))
                XCTAssertNotNil(key, "P\(index)")
                if let key { XCTAssertEqual(try txn.get(table, key, code), .string("P\(index)")) }
            }
            XCTAssertNil(try txn.findPrimaryKey(table, .string("P500")))
            XCTAssertVerifies(txn)
        }
        try db.write { txn in
            try txn.setPrimaryKey(table, column: COLUMNAR_NO_COLUMN)
            XCTAssertEqual(try txn.tableInfo(table).primary_key, COLUMNAR_NO_COLUMN)
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.findPrimaryKey(table, .string("P1")), "no primary key")
        }
    }

    func testObjectsCreatedWithAPrimaryKeyAreIndexedUnderTheirValueOnly() throws {
        // columnar_obj_create_with_primary_key gives the new row its value and puts only that value in the index:
        // the column's default (0) is never taken, before or after a commit, and every value finds its object.
        let (table, id) = try db.write { txn -> (TableID, ColumnID) in
            let table = try txn.addTable("items")
            let id = try txn.addColumn(table, "id", COLUMNAR_TYPE_INT)
            try txn.setPrimaryKey(table, column: id)
            for value in 1...3_000 {
                let key = try txn.createObject(table, primaryKey: .int(value))
                XCTAssertEqual(try txn.get(table, key, id), .int(value))
            }
            XCTAssertNil(try txn.findPrimaryKey(table, .int(0)), "the default value is not in the index")
            XCTAssertEngineError(COLUMNAR_EEXISTS, try txn.createObject(table, primaryKey: .int(1_500)))
            XCTAssertVerifies(txn)
            return (table, id)
        }
        try reopen()
        try db.write { txn in
            XCTAssertNil(try txn.findPrimaryKey(table, .int(0)))
            for value in stride(from: 1, through: 3_000, by: 7) {
                let key = try txn.findPrimaryKey(table, .int(value))
                XCTAssertNotNil(key, "\(value)")
                if let key { XCTAssertEqual(try txn.get(table, key, id), .int(value)) }
            }
            // The default value is free: one object may take it, a second collides.
            let defaulted = try txn.createObject(table)
            XCTAssertEqual(try txn.findPrimaryKey(table, .int(0)), defaulted)
            XCTAssertEngineError(COLUMNAR_EEXISTS, try txn.createObject(table), "the default primary key is taken")
            XCTAssertVerifies(txn)
        }
    }

    func testPrimaryKeyCannotBeSetOnAColumnWithDuplicatesOrOfTheWrongKind() throws {
        try db.write { txn in
            let table = try txn.addTable("t")
            let number = try txn.addColumn(table, "number", COLUMNAR_TYPE_INT)
            let list = try txn.addColumn(table, "list", COLUMNAR_TYPE_INT, collection: COLUMNAR_COLLECTION_LIST)
            let ratio = try txn.addColumn(table, "ratio", COLUMNAR_TYPE_DOUBLE)
            for value in [1, 2, 2] {
                let key = try txn.createObject(table)
                try txn.set(table, key, number, .int(value))
            }
            XCTAssertEngineError(COLUMNAR_EEXISTS, try txn.setPrimaryKey(table, column: number), "values 1, 2, 2")
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.setPrimaryKey(table, column: list), "a collection")
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.setPrimaryKey(table, column: ratio), "DOUBLE")
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.setPrimaryKey(table, column: 55))
            XCTAssertEqual(try txn.tableInfo(table).primary_key, COLUMNAR_NO_COLUMN)
        }
    }

    func testSchemaOfEveryKindPersistsAcrossReopen() throws {
        let fixture = try db.write { try AllTypesFixture.create(in: $0, seed: 1) }
        try reopen()
        try db.read { txn in
            let found = try AllTypesFixture.find(in: txn, seed: 1)
            XCTAssertEqual(found.table, fixture.table)
            XCTAssertEqual(found.scalars.map(\.id), fixture.scalars.map(\.id))
            for column in fixture.scalars {
                let info = try txn.columnInfo(fixture.table, column.id)
                XCTAssertEqual(info.type, column.type, column.name)
                XCTAssertEqual(info.nullable, column.nullable, column.name)
                XCTAssertEqual(info.collection, COLUMNAR_COLLECTION_NONE, column.name)
            }
            let link = try txn.columnInfo(fixture.table, fixture.link)
            XCTAssertEqual(link.type, COLUMNAR_TYPE_LINK)
            XCTAssertEqual(link.target_table, fixture.targetTable)
            XCTAssertEqual(try txn.columnInfo(fixture.table, fixture.list).collection, COLUMNAR_COLLECTION_LIST)
            XCTAssertEqual(try txn.columnInfo(fixture.table, fixture.set).collection, COLUMNAR_COLLECTION_SET)
            XCTAssertEqual(try txn.columnInfo(fixture.table, fixture.dict).collection, COLUMNAR_COLLECTION_DICT)
            XCTAssertEqual(try txn.columnInfo(fixture.table, fixture.dict).type, COLUMNAR_TYPE_DOUBLE)
            XCTAssertEqual(try txn.count(fixture.targetTable), 16)
            XCTAssertVerifies(txn)
        }
    }
}
