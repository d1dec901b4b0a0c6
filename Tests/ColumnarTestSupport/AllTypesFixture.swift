// AllTypesFixture.swift — a table with a column of every value type, filled with reproducible data.
//
// Table "all" has, for each columnar_type except LINK, a non-nullable column ("int") and a nullable one
// ("int_opt"); a nullable LINK column "link" to table "target"; and three collections: "ints" (LIST of INT),
// "tags" (SET of STRING) and "weights" (DICT of DOUBLE). Every value is a function of (seed, row, column), so a
// test can write a million rows and check them afterwards without keeping the expected data: `insertRow`
// writes row r, `checkRow` regenerates it and compares. The hot paths call the C API directly with
// stack-allocated columnar_values and a reusable byte buffer, because a Swift value per cell would cost more
// than the engine call it checks.

import CColumnar
import Foundation

/// A reusable buffer for generated string and binary values (one per thread).
public final class ValueScratch {
    public static let capacityBytes = 1024
    public let bytes: UnsafeMutableRawPointer

    public init() {
        bytes = UnsafeMutableRawPointer.allocate(byteCount: ValueScratch.capacityBytes, alignment: 16)
    }

    deinit { bytes.deallocate() }
}

public struct AllTypesFixture: Sendable {
    public struct ScalarColumn: Sendable {
        public let id: ColumnID
        public let name: String
        public let typeRawValue: UInt32
        public let nullable: Bool
        /// Position in the fixture's column list; mixed into the value hash.
        public let ordinal: UInt64
        public var type: columnar_type { columnar_type(rawValue: typeRawValue) }
    }

    /// Every type that has a single-valued column pair (LINK has its own, always nullable, column).
    public static let scalarTypes: [columnar_type] = [
        COLUMNAR_TYPE_INT, COLUMNAR_TYPE_BOOL, COLUMNAR_TYPE_FLOAT, COLUMNAR_TYPE_DOUBLE, COLUMNAR_TYPE_STRING,
        COLUMNAR_TYPE_BINARY, COLUMNAR_TYPE_TIMESTAMP, COLUMNAR_TYPE_OBJECTID, COLUMNAR_TYPE_UUID,
        COLUMNAR_TYPE_DECIMAL128,
    ]

    public let seed: UInt64
    public let table: TableID
    public let targetTable: TableID
    /// Keys of the target table's objects, ascending.
    public let targetKeys: [ObjectKey]
    public let scalars: [ScalarColumn]
    public let link: ColumnID
    public let list: ColumnID
    public let set: ColumnID
    public let dict: ColumnID

    private var linkOrdinal: UInt64 { UInt64(scalars.count) }
    private var listOrdinal: UInt64 { UInt64(scalars.count) + 1 }
    private var setOrdinal: UInt64 { UInt64(scalars.count) + 2 }
    private var dictOrdinal: UInt64 { UInt64(scalars.count) + 3 }

    private static func columnName(_ type: columnar_type, nullable: Bool) -> String {
        typeName(type).lowercased() + (nullable ? "_opt" : "")
    }

    /// Creates table `targetName` (INT "id") with `targetCount` objects and table `tableName` with every column.
    public static func create(in txn: Transaction, seed: UInt64, tableName: String = "all",
                              targetName: String = "target", targetCount: Int = 16) throws -> AllTypesFixture {
        let target = try txn.addTable(targetName)
        let idColumn = try txn.addColumn(target, "id", COLUMNAR_TYPE_INT)
        var targetKeys: [ObjectKey] = []
        for index in 0..<targetCount {
            let key = try txn.createObject(target)
            try txn.set(target, key, idColumn, .int(index))
            targetKeys.append(key)
        }
        let table = try txn.addTable(tableName)
        var scalars: [ScalarColumn] = []
        for type in scalarTypes {
            for nullable in [false, true] {
                let name = columnName(type, nullable: nullable)
                let id = try txn.addColumn(table, name, type, nullable: nullable)
                scalars.append(ScalarColumn(id: id, name: name, typeRawValue: type.rawValue, nullable: nullable,
                                            ordinal: UInt64(scalars.count)))
            }
        }
        let link = try txn.addColumn(table, "link", COLUMNAR_TYPE_LINK, nullable: true, target: target)
        let list = try txn.addColumn(table, "ints", COLUMNAR_TYPE_INT, collection: COLUMNAR_COLLECTION_LIST)
        let set = try txn.addColumn(table, "tags", COLUMNAR_TYPE_STRING, collection: COLUMNAR_COLLECTION_SET)
        let dict = try txn.addColumn(table, "weights", COLUMNAR_TYPE_DOUBLE, collection: COLUMNAR_COLLECTION_DICT)
        return AllTypesFixture(seed: seed, table: table, targetTable: target, targetKeys: targetKeys.sorted(),
                               scalars: scalars, link: link, list: list, set: set, dict: dict)
    }

    /// Finds the tables and columns `create` made (after a reopen).
    public static func find(in txn: Transaction, seed: UInt64, tableName: String = "all",
                            targetName: String = "target") throws -> AllTypesFixture {
        let target = try txn.findTable(targetName)
        let table = try txn.findTable(tableName)
        var scalars: [ScalarColumn] = []
        for type in scalarTypes {
            for nullable in [false, true] {
                let name = columnName(type, nullable: nullable)
                let id = try txn.findColumn(table, name)
                scalars.append(ScalarColumn(id: id, name: name, typeRawValue: type.rawValue, nullable: nullable,
                                            ordinal: UInt64(scalars.count)))
            }
        }
        return AllTypesFixture(
            seed: seed, table: table, targetTable: target, targetKeys: try txn.keys(target).sorted(),
            scalars: scalars, link: try txn.findColumn(table, "link"), list: try txn.findColumn(table, "ints"),
            set: try txn.findColumn(table, "tags"), dict: try txn.findColumn(table, "weights"))
    }

    // MARK: Generated values

    @inline(__always)
    private func cell(_ row: UInt64, _ ordinal: UInt64) -> UInt64 { SeededGenerator.hash(seed, row, ordinal) }

    /// Lengths 0 ... 40 (both short-string and long-string leaves), and about one in 512 values of 200 ... 300.
    @inline(__always)
    private static func byteCount(_ hash: UInt64) -> Int {
        let bits = hash >> 24
        if bits % 512 == 0 { return 200 + Int((bits >> 9) % 101) }
        return Int((bits >> 9) % 41)
    }

    /// Fills `count` bytes at `destination` from `hash`: printable ASCII (0x40 ... 0x7f) or any byte.
    @inline(__always)
    private static func fillBytes(_ destination: UnsafeMutableRawPointer, count: Int, hash: UInt64, ascii: Bool) {
        var word = hash
        var offset = 0
        while offset < count {
            word = SeededGenerator.mix(word)
            let bytes = ascii ? (word & 0x3F3F_3F3F_3F3F_3F3F) | 0x4040_4040_4040_4040 : word
            // The scratch buffer has room past any generated length, so whole words may be stored.
            destination.storeBytes(of: bytes, toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
    }

    @inline(__always)
    private static func floatValue(_ hash: UInt64) -> Float {
        switch (hash >> 8) % 64 {
        case 0: return -0.0
        case 1: return .infinity
        case 2: return -.greatestFiniteMagnitude
        case 3: return .leastNonzeroMagnitude
        default: return Float(Int32(truncatingIfNeeded: hash >> 16)) / 1024
        }
    }

    @inline(__always)
    private static func doubleValue(_ hash: UInt64) -> Double {
        switch (hash >> 8) % 64 {
        case 0: return -0.0
        case 1: return -.infinity
        case 2: return .greatestFiniteMagnitude
        case 3: return .leastNonzeroMagnitude
        default: return Double(Int64(bitPattern: hash) >> 11) / 4096
        }
    }

    /// The value of (row, column). String and binary bytes are written to `scratch`.
    @inline(__always)
    public func expectedValue(_ column: ScalarColumn, row: UInt64, into value: inout columnar_value,
                              scratch: UnsafeMutableRawPointer) {
        let hash = cell(row, column.ordinal)
        value = columnar_value()
        value.type = column.type
        value.is_null = column.nullable && hash % 10 == 0
        if value.is_null { return }
        switch column.type {
        case COLUMNAR_TYPE_INT:
            // Shifting by 0 ... 63 bits spreads values over every packed width, negative ones included.
            value.`as`.i = Int64(bitPattern: SeededGenerator.mix(hash)) >> Int64((hash >> 8) & 63)
        case COLUMNAR_TYPE_BOOL:
            value.`as`.b = (hash >> 8) & 1 == 1
        case COLUMNAR_TYPE_FLOAT:
            value.`as`.f = AllTypesFixture.floatValue(hash)
        case COLUMNAR_TYPE_DOUBLE:
            value.`as`.d = AllTypesFixture.doubleValue(hash)
        case COLUMNAR_TYPE_STRING, COLUMNAR_TYPE_BINARY:
            let count = AllTypesFixture.byteCount(hash)
            AllTypesFixture.fillBytes(scratch, count: count, hash: hash, ascii: column.type == COLUMNAR_TYPE_STRING)
            value.`as`.bytes.data = UnsafeRawPointer(scratch)
            value.`as`.bytes.size = count
        case COLUMNAR_TYPE_TIMESTAMP:
            value.`as`.timestamp.seconds = Int64(bitPattern: hash) >> 24
            value.`as`.timestamp.nanoseconds = Int32((hash >> 8) % 1_000_000_000)
        case COLUMNAR_TYPE_OBJECTID:
            withUnsafeMutableBytes(of: &value.`as`.objectid) { bytes in
                bytes.storeBytes(of: SeededGenerator.mix(hash), as: UInt64.self)
                bytes.storeBytes(of: UInt32(truncatingIfNeeded: hash >> 13), toByteOffset: 8, as: UInt32.self)
            }
        case COLUMNAR_TYPE_UUID:
            withUnsafeMutableBytes(of: &value.`as`.uuid) { bytes in
                bytes.storeBytes(of: SeededGenerator.mix(hash), as: UInt64.self)
                bytes.storeBytes(of: SeededGenerator.mix(hash ^ 1), toByteOffset: 8, as: UInt64.self)
            }
        case COLUMNAR_TYPE_DECIMAL128:
            withUnsafeMutableBytes(of: &value.`as`.decimal128) { bytes in
                bytes.storeBytes(of: SeededGenerator.mix(hash ^ 2), as: UInt64.self)
                bytes.storeBytes(of: SeededGenerator.mix(hash ^ 3), toByteOffset: 8, as: UInt64.self)
            }
        default:
            preconditionFailure("no generator for \(typeName(column.type))")
        }
    }

    /// The row's link: null for about one row in eight, else one of the target objects.
    @inline(__always)
    public func expectedLink(row: UInt64, into value: inout columnar_value) {
        let hash = cell(row, linkOrdinal)
        value = columnar_value()
        value.type = COLUMNAR_TYPE_LINK
        value.is_null = hash % 8 == 0 || targetKeys.isEmpty
        if !value.is_null { value.`as`.link = targetKeys[Int((hash >> 8) % UInt64(targetKeys.count))] }
    }

    /// Number of elements of the row's list, set and dictionary (0 ... 3 each).
    @inline(__always)
    public func expectedCounts(row: UInt64) -> (list: Int, set: Int, dict: Int) {
        (Int(cell(row, listOrdinal) % 4), Int(cell(row, setOrdinal) % 4), Int(cell(row, dictOrdinal) % 4))
    }

    @inline(__always)
    public func expectedListElement(row: UInt64, index: Int, into value: inout columnar_value) {
        let hash = SeededGenerator.mix(cell(row, listOrdinal) &+ UInt64(index))
        value = columnar_value()
        value.type = COLUMNAR_TYPE_INT
        value.`as`.i = Int64(bitPattern: hash) >> Int64(index * 20)
    }

    /// Set element `index`: a 1 ... 12 byte string whose first byte is "a" + index, so elements are distinct.
    @inline(__always)
    public func expectedSetElement(row: UInt64, index: Int, into value: inout columnar_value,
                                   scratch: UnsafeMutableRawPointer) {
        let hash = SeededGenerator.mix(cell(row, setOrdinal) &+ UInt64(index))
        let count = 1 + Int(hash % 12)
        AllTypesFixture.fillBytes(scratch, count: count, hash: hash, ascii: true)
        scratch.storeBytes(of: UInt8(ascii: "a") + UInt8(index), as: UInt8.self)
        value = columnar_value()
        value.type = COLUMNAR_TYPE_STRING
        value.`as`.bytes.data = UnsafeRawPointer(scratch)
        value.`as`.bytes.size = count
    }

    /// Dictionary entry `index`: a 1 ... 8 byte key starting with "a" + index (so key order is index order),
    /// written to `scratch`, and a double value. Returns the key's size.
    @inline(__always)
    public func expectedDictEntry(row: UInt64, index: Int, key scratch: UnsafeMutableRawPointer,
                                  value: inout columnar_value) -> Int {
        let hash = SeededGenerator.mix(cell(row, dictOrdinal) &+ UInt64(index))
        let count = 1 + Int(hash % 8)
        AllTypesFixture.fillBytes(scratch, count: count, hash: hash, ascii: true)
        scratch.storeBytes(of: UInt8(ascii: "a") + UInt8(index), as: UInt8.self)
        value = columnar_value()
        value.type = COLUMNAR_TYPE_DOUBLE
        value.`as`.d = AllTypesFixture.doubleValue(SeededGenerator.mix(hash))
        return count
    }

    // MARK: Writing and checking rows

    /// Creates one object holding row `row`'s values and returns its key. `txn` is a write transaction.
    public func insertRow(_ row: UInt64, txn: OpaquePointer, scratch: ValueScratch) throws -> ObjectKey {
        var key: ObjectKey = 0
        try check(columnar_obj_create(txn, table, &key), "columnar_obj_create row \(row)")
        try writeRow(row, key: key, txn: txn, scratch: scratch)
        return key
    }

    /// Writes row `row`'s values into the existing, freshly created object `key`.
    public func writeRow(_ row: UInt64, key: ObjectKey, txn: OpaquePointer, scratch: ValueScratch) throws {
        var value = columnar_value()
        for column in scalars {
            expectedValue(column, row: row, into: &value, scratch: scratch.bytes)
            try check(columnar_obj_set(txn, table, key, column.id, &value), "set row \(row) \(column.name)")
        }
        expectedLink(row: row, into: &value)
        try check(columnar_obj_set(txn, table, key, link, &value), "set row \(row) link")
        let counts = expectedCounts(row: row)
        for index in 0..<counts.list {
            expectedListElement(row: row, index: index, into: &value)
            try check(columnar_list_insert(txn, table, key, list, UInt64(index), &value),
                      "list insert row \(row)")
        }
        for index in 0..<counts.set {
            expectedSetElement(row: row, index: index, into: &value, scratch: scratch.bytes)
            var inserted = false
            try check(columnar_set_insert(txn, table, key, set, &value, &inserted), "set insert row \(row)")
            if !inserted {
                throw TestFailure("row \(row): columnar_set_insert of a new element reported it as present")
            }
        }
        for index in 0..<counts.dict {
            let keySize = expectedDictEntry(row: row, index: index, key: scratch.bytes, value: &value)
            try check(columnar_dict_set(txn, table, key, dict, scratch.bytes, keySize, &value),
                      "dict set row \(row)")
        }
    }

    /// Compares object `key` with row `row`'s values. Returns how many values differ and appends a description
    /// of each (up to `limit` descriptions in total) to `mismatches`. Throws when a call fails.
    public func checkRow(_ row: UInt64, key: ObjectKey, txn: OpaquePointer, scratch: ValueScratch,
                         mismatches: inout [String], limit: Int = 20) throws -> Int {
        var wrong = 0
        func report(_ what: @autoclosure () -> String) {
            wrong += 1
            if mismatches.count < limit { mismatches.append("row \(row) (key \(key)): \(what())") }
        }
        var expected = columnar_value()
        var actual = columnar_value()
        for column in scalars {
            expectedValue(column, row: row, into: &expected, scratch: scratch.bytes)
            try check(columnar_obj_get(txn, table, key, column.id, &actual), "get row \(row) \(column.name)")
            if !cValuesEqual(expected, actual) {
                report("\(column.name): expected \(Value(expected)), read \(Value(actual))")
            }
        }
        expectedLink(row: row, into: &expected)
        try check(columnar_obj_get(txn, table, key, link, &actual), "get row \(row) link")
        if !cValuesEqual(expected, actual) { report("link: expected \(Value(expected)), read \(Value(actual))") }

        let counts = expectedCounts(row: row)
        var size: UInt64 = 0
        try check(columnar_coll_size(txn, table, key, list, &size), "list size row \(row)")
        if size != UInt64(counts.list) {
            report("ints: expected \(counts.list) elements, read \(size)")
        } else {
            for index in 0..<counts.list {
                expectedListElement(row: row, index: index, into: &expected)
                try check(columnar_coll_get(txn, table, key, list, UInt64(index), &actual), "list get row \(row)")
                if !cValuesEqual(expected, actual) {
                    report("ints[\(index)]: expected \(Value(expected)), read \(Value(actual))")
                }
            }
        }

        try check(columnar_coll_size(txn, table, key, set, &size), "set size row \(row)")
        if size != UInt64(counts.set) { report("tags: expected \(counts.set) elements, read \(size)") }
        for index in 0..<counts.set {
            expectedSetElement(row: row, index: index, into: &expected, scratch: scratch.bytes)
            var contains = false
            try check(columnar_coll_contains(txn, table, key, set, &expected, &contains), "set contains row \(row)")
            if !contains { report("tags: missing \(Value(expected))") }
        }

        try check(columnar_coll_size(txn, table, key, dict, &size), "dict size row \(row)")
        if size != UInt64(counts.dict) {
            report("weights: expected \(counts.dict) entries, read \(size)")
        } else {
            for index in 0..<counts.dict {
                let keySize = expectedDictEntry(row: row, index: index, key: scratch.bytes, value: &expected)
                var found = false
                try check(columnar_dict_get(txn, table, key, dict, scratch.bytes, keySize, &actual, &found),
                          "dict get row \(row)")
                if !found || !cValuesEqual(expected, actual) {
                    report("weights[\(index)]: expected \(Value(expected)), read \(found ? "\(Value(actual))" : "nothing")")
                }
                var keyPointer: UnsafeRawPointer?
                var keyRead = 0
                try check(columnar_dict_key_at(txn, table, key, dict, UInt64(index), &keyPointer, &keyRead),
                          "dict key_at row \(row)")
                if keyRead != keySize || (keySize > 0 && (keyPointer == nil || memcmp(keyPointer!, scratch.bytes, keySize) != 0)) {
                    report("weights key \(index): expected \(hex(rawBytes(scratch.bytes, keySize))), read "
                           + hex(rawBytes(keyPointer, keyRead)))
                }
                try check(columnar_coll_get(txn, table, key, dict, UInt64(index), &actual), "dict value row \(row)")
                if !cValuesEqual(expected, actual) {
                    report("weights value \(index) in key order: expected \(Value(expected)), read \(Value(actual))")
                }
            }
        }
        return wrong
    }
}
