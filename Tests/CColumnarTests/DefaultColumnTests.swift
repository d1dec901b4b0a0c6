// DefaultColumnTests.swift — a cluster stores ref 0 for a column whose rows all hold the default (FileFormat.md,
// CLUSTER), and every reader gives those rows the default. Random tables whose clusters hold all-default and mixed
// runs of every kind of column are checked against a plain Swift model through row reads, collection reads and the
// scan kernels' decoding, after commits that turn runs default and back, after a reopen, and by verify; and the
// space a column of defaults takes is measured against one of values.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class DefaultColumnTests: DatabaseTestCase {
    override var databaseName: String { "default-columns" }
    /// Small clusters: a few hundred rows make many clusters, so whole clusters of defaults are common.
    override var clusterSize: UInt32 { 16 }

    /// The columns, each with its default and a generator of other values.
    private struct Columns {
        var count: ColumnID = 0, flag: ColumnID = 0, ratio: ColumnID = 0, label: ColumnID = 0
        var maybeLabel: ColumnID = 0, when: ColumnID = 0, maybeCount: ColumnID = 0, numbers: ColumnID = 0
        var singles: [ColumnID] { [count, flag, ratio, label, maybeLabel, when, maybeCount] }
        /// The columns the engine reads in the integer form (columnar_obj_get_many_int).
        var integers: [ColumnID] { [count, flag, maybeCount] }
    }

    private func addColumns(_ table: TableID, _ txn: Transaction) throws -> Columns {
        var columns = Columns()
        columns.count = try txn.addColumn(table, "count", COLUMNAR_TYPE_INT)
        columns.flag = try txn.addColumn(table, "flag", COLUMNAR_TYPE_BOOL)
        columns.ratio = try txn.addColumn(table, "ratio", COLUMNAR_TYPE_DOUBLE)
        columns.label = try txn.addColumn(table, "label", COLUMNAR_TYPE_STRING)
        columns.maybeLabel = try txn.addColumn(table, "maybeLabel", COLUMNAR_TYPE_STRING, nullable: true)
        columns.when = try txn.addColumn(table, "when", COLUMNAR_TYPE_TIMESTAMP, nullable: true)
        columns.maybeCount = try txn.addColumn(table, "maybeCount", COLUMNAR_TYPE_INT, nullable: true)
        columns.numbers = try txn.addColumn(table, "numbers", COLUMNAR_TYPE_INT, collection: COLUMNAR_COLLECTION_LIST)
        return columns
    }

    private func defaultValue(of column: ColumnID, _ columns: Columns) -> Value {
        switch column {
        case columns.count: return .int(0)
        case columns.flag: return .bool(false)
        case columns.ratio: return .double(0)
        case columns.label: return .string("")
        default: return .null   // maybeLabel, when, maybeCount
        }
    }

    /// A value other than the default, or (one time in four) a value whose bytes are zero but which is not the
    /// default: -0.0 and a non-null empty string or zero timestamp in a nullable column.
    private func otherValue(of column: ColumnID, _ columns: Columns, _ random: inout SeededGenerator) -> Value {
        let tricky = random.next() % 4 == 0
        switch column {
        case columns.count: return .int(Int64(random.next() % 1000) + 1)
        case columns.flag: return .bool(true)
        case columns.ratio: return tricky ? .double(-0.0) : .double(Double(random.next() % 1000) + 0.5)
        case columns.label: return .string("label \(random.next() % 1000)")
        case columns.maybeLabel: return tricky ? .string("") : .string("maybe \(random.next() % 1000)")
        case columns.maybeCount: return tricky ? .int(0) : .int(Int64(random.next() % 1000) + 1)
        default: return tricky ? .timestamp(seconds: 0, nanoseconds: 0)
                               : .timestamp(seconds: Int64(random.next() % 100_000), nanoseconds: 5)
        }
    }

    private struct Row {
        var singles: [ColumnID: Value]
        var numbers: [Int64]
    }

    /// Every row read back equal to the model: one value at a time, the list's elements, the int and bool columns
    /// read for every object at once (the gather's integer form), and through the scan kernels' decoding of each
    /// cluster's view.
    private func assertMatches(_ model: [ObjectKey: Row], table: TableID, columns: Columns, _ context: String,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        try db.read { txn in
            XCTAssertEqual(try txn.keys(table), model.keys.sorted(), context, file: file, line: line)
            for (key, row) in model {
                for column in columns.singles {
                    let value = try txn.get(table, key, column)
                    // -0.0 == 0.0 in Swift: compare doubles by their bits.
                    if case .double(let read) = value, case .double(let expected)? = row.singles[column] {
                        XCTAssertEqual(read.bitPattern, expected.bitPattern, "\(context): \(key).\(column)",
                                       file: file, line: line)
                    } else {
                        XCTAssertEqual(value, row.singles[column], "\(context): \(key).\(column)", file: file,
                                       line: line)
                    }
                }
                XCTAssertEqual(try txn.elements(table, key, columns.numbers), row.numbers.map { .int($0) },
                               "\(context): \(key).numbers", file: file, line: line)
            }
            let keys = model.keys.sorted()
            for column in columns.integers {
                let expected = keys.map { key -> Int64? in
                    switch model[key]!.singles[column]! {
                    case .int(let number): return number
                    case .bool(let flag): return flag ? 1 : 0
                    default: return nil
                    }
                }
                XCTAssertEqual(try txn.getManyInt(table, keys, column), expected, "\(context): gathered .\(column)",
                               file: file, line: line)
            }
            var defaultViews = 0
            try txn.forEachScannedCluster(table) { scan, cluster, keys in
                for column in [columns.count, columns.flag] {
                    var view = columnar_column_view()
                    try check(columnar_scan_column(scan, column, &view), "columnar_scan_column")
                    if view.all_default { defaultViews += 1 }
                    var values = [Int64](repeating: -1, count: Int(cluster.row_count))
                    var nulls = [UInt8](repeating: 1, count: Int(cluster.row_count))
                    columnar_view_decode_int(&view, &values, &nulls)
                    for (row, key) in keys.enumerated() {
                        let expected: Int64
                        switch model[key]!.singles[column]! {
                        case .int(let number): expected = number
                        case .bool(let flag): expected = flag ? 1 : 0
                        default: expected = -1
                        }
                        XCTAssertEqual(values[row], expected, "\(context): decoded \(key).\(column)", file: file,
                                       line: line)
                        XCTAssertEqual(nulls[row], 0, "\(context): decoded \(key).\(column)", file: file, line: line)
                    }
                }
            }
            XCTAssertGreaterThan(defaultViews, 0, "\(context): some cluster stores a column as all default",
                                 file: file, line: line)
            XCTAssertVerifies(txn, file: file, line: line)
        }
    }

    func testRunsOfDefaultsReadBackAsDefaultsThroughEveryReader() throws {
        var random = makeSeededGenerator()
        var columns = Columns()
        var table: TableID = 0
        var model: [ObjectKey: Row] = [:]
        var keys: [ObjectKey] = []
        try db.write { txn in
            table = try txn.addTable("Item")
            columns = try addColumns(table, txn)
            for _ in 0..<400 { keys.append(try txn.createObject(table)) }
        }
        for key in keys {
            model[key] = Row(singles: Dictionary(uniqueKeysWithValues: columns.singles.map {
                ($0, defaultValue(of: $0, columns))
            }), numbers: [])
        }
        try assertMatches(model, table: table, columns: columns, "created with defaults")

        // Rounds of writes: each picks a run of rows (a cluster's worth, give or take) and a column, and either
        // fills the run with other values or sets it back to the default; lists gain and lose their elements.
        for round in 0..<12 {
            try db.write { txn in
                for _ in 0..<10 {
                    let start = Int(random.next() % UInt64(keys.count))
                    let run = keys[start..<min(keys.count, start + Int(random.next() % 40) + 1)]
                    let toDefault = random.next() % 2 == 0
                    if random.next() % 7 == 0 {
                        for key in run {
                            if toDefault {
                                try txn.clear(table, key, columns.numbers)
                                model[key]!.numbers = []
                            } else {
                                let element = Int64(random.next() % 50)
                                try txn.listAppend(table, key, columns.numbers, .int(element))
                                model[key]!.numbers.append(element)
                            }
                        }
                        continue
                    }
                    let column = columns.singles[Int(random.next() % UInt64(columns.singles.count))]
                    for key in run {
                        let value = toDefault ? defaultValue(of: column, columns)
                                              : otherValue(of: column, columns, &random)
                        try txn.set(table, key, column, value)
                        model[key]!.singles[column] = value
                    }
                }
            }
            try assertMatches(model, table: table, columns: columns, "after round \(round)")
        }
        try reopen()
        try assertMatches(model, table: table, columns: columns, "after reopening")
    }

    /// Six columns of defaults cost a table of 4,096 rows little more than their refs in each cluster; the same
    /// columns holding values cost far more.
    func testColumnsOfDefaultsTakeNoLeaves() throws {
        enum Content { case keyOnly, defaults, values }
        /// The bytes one commit of a 4,096-row table adds to a new file.
        func usedBytes(_ content: Content) throws -> UInt64 {
            let path = directory.file("\(content).columnar")
            let database = try TestDatabase(path: path, durability: COLUMNAR_DURABILITY_UNSAFE, clusterSize: 256)
            defer { database.close() }
            let before = try database.stats().used_size_bytes
            try database.write { txn in
                let table = try txn.addTable("Item")
                let key = try txn.addColumn(table, "key", COLUMNAR_TYPE_INT)
                let columns = content == .keyOnly ? nil : try addColumns(table, txn)
                for row in 0..<4096 {
                    let object = try txn.createObject(table)
                    try txn.set(table, object, key, .int(Int64(row)))
                    guard content == .values, let columns else { continue }
                    try txn.set(table, object, columns.count, .int(1))
                    try txn.set(table, object, columns.flag, .bool(true))
                    try txn.set(table, object, columns.ratio, .double(1))
                    try txn.set(table, object, columns.label, .string("a"))
                    try txn.set(table, object, columns.maybeLabel, .string(""))
                    try txn.set(table, object, columns.when, .timestamp(seconds: 1, nanoseconds: 0))
                }
            }
            return try database.stats().used_size_bytes - before
        }
        let keyOnly = try usedBytes(.keyOnly)
        let withDefaults = try usedBytes(.defaults)
        let withValues = try usedBytes(.values)
        let clusters: UInt64 = 4096 / 256
        // Each cluster's CLUSTER node holds one 8-byte ref per column; a leaf is at least a COLUMN node and a
        // VALUES node, 32 bytes or more each. Of the eight columns added, six are filled in the third table.
        let addedColumns: UInt64 = 8, filledColumns: UInt64 = 6
        XCTAssertLessThan(withDefaults + clusters * filledColumns * 48, withValues,
                          "defaults \(withDefaults) bytes, values \(withValues) bytes")
        XCTAssertLessThanOrEqual(withDefaults, keyOnly + clusters * addedColumns * 8 + 4096,
                                 "defaults \(withDefaults) bytes against \(keyOnly) without the columns")
    }
}
