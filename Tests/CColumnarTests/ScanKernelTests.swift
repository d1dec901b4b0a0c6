// ScanKernelTests.swift — the scan and kernel layer the query VM's inner loops run on (columnar_scan_*,
// columnar_kernel_*, columnar_mask_*, columnar_view_*, columnar_index_find_all), checked differentially.
//
// A table with a column of every type is filled with random values chosen so that every encoding appears: ints in
// blocks that need 0, 1, 2, 4, 8, 16, 32 and 64 bits (negative ones included), strings in blocks of every
// short-string slot width and of the long form, ASCII and non-ASCII text, NaN and infinities, nulls scattered and
// whole clusters of them. Then every kernel runs over every cluster of a scan, and each row's mask byte is compared
// with a plain Swift evaluation of the same condition on the value read back with columnar_obj_get. The same
// check runs on committed clusters, on clusters a write transaction has changed (before its commit), and on
// columns added after the objects existed (stored as nothing: all_default). Aggregates are compared with Swift
// sums (an Int128 for ints), the search index's find_all with a scan, and damaged files must give
// COLUMNAR_ECORRUPT rather than a crash.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class ScanKernelTests: DatabaseTestCase {
    override var databaseName: String { "scan" }
    /// Small clusters give many clusters, and an inner level, from a few thousand rows.
    override var clusterSize: UInt32 { 64 }

    /// Rows per block of one value class: several clusters, so most clusters hold one class only.
    private static let blockRows = 512

    // MARK: - The test table

    private struct TestColumn {
        let id: ColumnID
        let name: String
        let type: columnar_type
        let nullable: Bool
    }

    private struct TestTable {
        let table: TableID
        let target: TableID
        let targetKeys: [ObjectKey]
        let columns: [TestColumn]
        /// A list column: scans refuse collections.
        let list: ColumnID

        func column(_ name: String) -> TestColumn { columns.first { $0.name == name }! }
    }

    private static let columnSpecs: [(String, columnar_type, Bool)] = [
        ("int", COLUMNAR_TYPE_INT, false), ("int_opt", COLUMNAR_TYPE_INT, true),
        ("bool", COLUMNAR_TYPE_BOOL, false), ("bool_opt", COLUMNAR_TYPE_BOOL, true),
        ("float_opt", COLUMNAR_TYPE_FLOAT, true), ("double", COLUMNAR_TYPE_DOUBLE, false),
        ("double_opt", COLUMNAR_TYPE_DOUBLE, true), ("string", COLUMNAR_TYPE_STRING, false),
        ("string_opt", COLUMNAR_TYPE_STRING, true), ("binary_opt", COLUMNAR_TYPE_BINARY, true),
        ("timestamp", COLUMNAR_TYPE_TIMESTAMP, false), ("timestamp_opt", COLUMNAR_TYPE_TIMESTAMP, true),
        ("objectid_opt", COLUMNAR_TYPE_OBJECTID, true), ("uuid", COLUMNAR_TYPE_UUID, false),
        ("decimal_opt", COLUMNAR_TYPE_DECIMAL128, true),
    ]

    private func createTable(_ txn: Transaction, name: String = "rows") throws -> TestTable {
        let target = try txn.addTable(name + "_target")
        var targetKeys: [ObjectKey] = []
        for _ in 0..<20 { targetKeys.append(try txn.createObject(target)) }
        let table = try txn.addTable(name)
        var columns: [TestColumn] = []
        for (columnName, type, nullable) in Self.columnSpecs {
            columns.append(TestColumn(id: try txn.addColumn(table, columnName, type, nullable: nullable),
                                      name: columnName, type: type, nullable: nullable))
        }
        columns.append(TestColumn(id: try txn.addColumn(table, "link", COLUMNAR_TYPE_LINK, nullable: true,
                                                        target: target),
                                  name: "link", type: COLUMNAR_TYPE_LINK, nullable: true))
        let list = try txn.addColumn(table, "list", COLUMNAR_TYPE_INT, collection: COLUMNAR_COLLECTION_LIST)
        return TestTable(table: table, target: target, targetKeys: targetKeys, columns: columns, list: list)
    }

    // MARK: - Random values

    /// Values shared by several rows, so equality constants taken from one row match others.
    private struct Pools {
        var strings: [[String]] = []
        var binaries: [Data] = []
        var ids: [[UInt8]] = []

        init(generator: inout SeededGenerator) {
            for lengthClass in 0..<6 {
                strings.append((0..<8).map { _ in
                    ScanKernelTests.randomString(lengthClass: lengthClass, generator: &generator)
                })
            }
            binaries = (0..<8).map { _ in
                Data(ScanKernelTests.randomBytes(Int.random(in: 0...40, using: &generator), generator: &generator))
            }
            ids = (0..<8).map { index in
                index == 0 ? [UInt8](repeating: 0, count: 16) : ScanKernelTests.randomBytes(16, generator: &generator)
            }
        }
    }

    private static func randomBytes(_ count: Int, generator: inout SeededGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    private static let asciiAlphabet: [String] = ["a", "b", "c", "A", "B", "C", "x", "Z", "0", " ", "*", "?"]
    /// Non-ASCII characters of 2, 3 and 4 bytes, some with ASCII case-fold partners (the Kelvin sign folds to "k").
    private static let otherAlphabet: [String] = ["é", "É", "ß", "\u{212A}", "日", "本", "😀", "ö"]

    /// A string whose UTF-8 length falls in the class's range: 0 ... 3, 4 ... 7, 8 ... 15, 16 ... 31 (the four
    /// short-string slot widths), 32 ... 80 (long form) or anything up to 60.
    private static func randomString(lengthClass: Int, generator: inout SeededGenerator) -> String {
        let ranges = [0...3, 4...7, 8...15, 16...31, 32...80, 0...60]
        let targetBytes = Int.random(in: ranges[lengthClass], using: &generator)
        let ascii = Int.random(in: 0..<10, using: &generator) < 7
        var text = ""
        var bytes = 0
        while bytes < targetBytes {
            var piece = asciiAlphabet.randomElement(using: &generator)!
            if !ascii && Int.random(in: 0..<3, using: &generator) == 0 {
                piece = otherAlphabet.randomElement(using: &generator)!
            }
            if bytes + piece.utf8.count > targetBytes { piece = "q" }
            text += piece
            bytes += piece.utf8.count
        }
        return text
    }

    /// An int of the block's width class: 0 bits, 1, 2, 4 (unsigned), 8, 16, 32, 64 (signed), mixed, or (classes 9
    /// and 10) close to a value far from zero, which the writer stores as small elements plus a base.
    private static func randomInt(widthClass: Int, generator: inout SeededGenerator) -> Int64 {
        switch widthClass {
        case 9: return 1_000_000_000 + Int64.random(in: 0...200, using: &generator)
        case 10: return -3_000_000 + Int64.random(in: 0...60_000, using: &generator)
        case 0: return 0
        case 1: return Int64.random(in: 0...1, using: &generator)
        case 2: return Int64.random(in: 0...3, using: &generator)
        case 3: return Int64.random(in: 0...15, using: &generator)
        case 4: return Int64.random(in: -128...127, using: &generator)
        case 5: return Int64.random(in: Int64(Int16.min)...Int64(Int16.max), using: &generator)
        case 6: return Int64.random(in: Int64(Int32.min)...Int64(Int32.max), using: &generator)
        case 7:
            switch Int.random(in: 0..<10, using: &generator) {
            case 0: return .min
            case 1: return .max
            default: return Int64(bitPattern: generator.next())
            }
        default: return Int64(bitPattern: generator.next()) >> Int64.random(in: 0...63, using: &generator)
        }
    }

    private static func randomFloat(generator: inout SeededGenerator) -> Float {
        switch Int.random(in: 0..<16, using: &generator) {
        case 0: return .nan
        case 1: return .infinity
        case 2: return -.infinity
        case 3: return -0.0
        case 4: return 0
        case 5: return .greatestFiniteMagnitude
        default: return Float(Int.random(in: -2000...2000, using: &generator)) / 8
        }
    }

    private static func randomDouble(generator: inout SeededGenerator) -> Double {
        switch Int.random(in: 0..<16, using: &generator) {
        case 0: return .nan
        case 1: return .infinity
        case 2: return -.infinity
        case 3: return -0.0
        case 4: return 0
        case 5: return -.greatestFiniteMagnitude
        case 6: return 0.1
        default: return Double(Int.random(in: -5000...5000, using: &generator)) / 16
        }
    }

    /// A random value for `column` in row `row` (the row decides the block's classes).
    private static func randomValue(_ column: TestColumn, row: Int, table: TestTable, pools: Pools,
                                    generator: inout SeededGenerator) -> Value {
        let block = row / blockRows
        if column.nullable {
            // Every sixth block is all null in its nullable columns; elsewhere about one value in seven.
            if block % 6 == 5 || Int.random(in: 0..<7, using: &generator) == 0 { return .null }
        }
        let shared = Int.random(in: 0..<4, using: &generator) == 0
        switch column.type {
        case COLUMNAR_TYPE_INT: return .int(randomInt(widthClass: block % 11, generator: &generator))
        case COLUMNAR_TYPE_BOOL: return .bool(block % 9 == 0 ? false : Bool.random(using: &generator))
        case COLUMNAR_TYPE_FLOAT: return .float(randomFloat(generator: &generator))
        case COLUMNAR_TYPE_DOUBLE: return .double(randomDouble(generator: &generator))
        case COLUMNAR_TYPE_STRING:
            let lengthClass = block % 6
            if shared { return .string(pools.strings[lengthClass].randomElement(using: &generator)!) }
            return .string(randomString(lengthClass: lengthClass, generator: &generator))
        case COLUMNAR_TYPE_BINARY:
            if shared { return .binary(pools.binaries.randomElement(using: &generator)!) }
            let count = Int.random(in: 0...(block % 2 == 0 ? 20 : 60), using: &generator)
            return .binary(Data(randomBytes(count, generator: &generator)))
        case COLUMNAR_TYPE_TIMESTAMP:
            let seconds = randomInt(widthClass: (block + 3) % 9, generator: &generator)
            let nanoseconds = block % 2 == 0 ? 0 : Int32.random(in: 0...999_999_999, using: &generator)
            return .timestamp(seconds: seconds, nanoseconds: nanoseconds)
        case COLUMNAR_TYPE_OBJECTID, COLUMNAR_TYPE_UUID, COLUMNAR_TYPE_DECIMAL128:
            var bytes = shared ? pools.ids.randomElement(using: &generator)! : randomBytes(16, generator: &generator)
            if column.type == COLUMNAR_TYPE_OBJECTID { bytes = Array(bytes.prefix(12)) }
            switch column.type {
            case COLUMNAR_TYPE_OBJECTID: return .objectID(bytes)
            case COLUMNAR_TYPE_UUID: return .uuid(bytes)
            default: return .decimal128(bytes)
            }
        case COLUMNAR_TYPE_LINK: return .link(table.targetKeys.randomElement(using: &generator)!)
        default: preconditionFailure("no generator for \(typeName(column.type))")
        }
    }

    private func writeRandomValues(_ txn: Transaction, table: TestTable, key: ObjectKey, row: Int, pools: Pools,
                                   generator: inout SeededGenerator) throws {
        for column in table.columns {
            let value = Self.randomValue(column, row: row, table: table, pools: pools, generator: &generator)
            try txn.set(table.table, key, column.id, value)
        }
    }

    /// Creates the table with `rowCount` rows of random values in one committed transaction (in `database`, by
    /// default the test's).
    private func buildTable(in database: TestDatabase? = nil, rowCount: Int,
                            generator: inout SeededGenerator) throws -> (TestTable, Pools) {
        var pools = Pools(generator: &generator)
        let table = try (database ?? db).write { txn -> TestTable in
            let table = try createTable(txn)
            for row in 0..<rowCount {
                let key = try txn.createObject(table.table)
                try writeRandomValues(txn, table: table, key: key, row: row, pools: pools, generator: &generator)
            }
            return table
        }
        pools.ids.append([UInt8](repeating: 0xFF, count: 16))
        return (table, pools)
    }

    // MARK: - Scanning

    private func view(_ scan: OpaquePointer, _ column: ColumnID) throws -> columnar_column_view {
        var view = columnar_column_view()
        try check(columnar_scan_column(scan, column, &view), "columnar_scan_column \(column)")
        return view
    }

    private static let maxRows = Int(columnar_scan_max_rows())

    // MARK: - The Swift reference

    /// How a row's value relates to the constant; nil when either is null.
    private enum Order { case less, equal, greater, unordered }

    /// The documented null rules and operator meanings, written out once.
    private static func expected(_ op: columnar_compare_op, _ order: Order?, rowIsNull: Bool,
                                 constantIsNull: Bool) -> UInt8 {
        if rowIsNull || constantIsNull {
            let bothNull = rowIsNull && constantIsNull
            switch op {
            case COLUMNAR_COMPARE_EQ: return bothNull ? 1 : 0
            case COLUMNAR_COMPARE_NE: return bothNull ? 0 : 1
            default: return 0
            }
        }
        switch (op, order!) {
        case (COLUMNAR_COMPARE_EQ, let o): return o == .equal ? 1 : 0
        case (COLUMNAR_COMPARE_NE, let o): return o == .equal ? 0 : 1
        case (COLUMNAR_COMPARE_LT, let o): return o == .less ? 1 : 0
        case (COLUMNAR_COMPARE_LE, let o): return o == .less || o == .equal ? 1 : 0
        case (COLUMNAR_COMPARE_GT, let o): return o == .greater ? 1 : 0
        case (COLUMNAR_COMPARE_GE, let o): return o == .greater || o == .equal ? 1 : 0
        default: return 0
        }
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> Order { a < b ? .less : a == b ? .equal : .greater }

    private static func order(_ a: Double, _ b: Double) -> Order {
        a.isNaN || b.isNaN ? .unordered : a < b ? .less : a == b ? .equal : .greater
    }

    private static func order(_ a: [UInt8], _ b: [UInt8]) -> Order {
        a == b ? .equal : a.lexicographicallyPrecedes(b) ? .less : .greater
    }

    /// The int a kernel sees for a value: ints, bools as 0/1, link keys.
    private static func intOf(_ value: Value) -> Int64? {
        switch value {
        case .int(let x), .link(let x): return x
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    private static func doubleOf(_ value: Value) -> Double? {
        switch value {
        case .double(let x): return x
        case .float(let x): return Double(x)
        default: return nil
        }
    }

    private static func bytesOf(_ value: Value) -> [UInt8]? {
        switch value {
        case .string(let text): return Array(text.utf8)
        case .binary(let data): return Array(data)
        case .objectID(let bytes), .uuid(let bytes), .decimal128(let bytes): return bytes
        default: return nil
        }
    }

    private static func foldASCII(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte | 0x20 : byte }

    private static func swapASCIICase(_ byte: UInt8) -> UInt8 {
        (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) ? byte ^ 0x20 : byte
    }

    /// `*` matches any run of characters and `?` one character, over Unicode scalars (the test's strings are
    /// valid UTF-8, so a scalar is one UTF-8 character): dynamic programming, unlike the kernel's backtracking.
    private static func likeMatches(_ text: [Unicode.Scalar], _ pattern: [Unicode.Scalar], fold: Bool) -> Bool {
        func same(_ a: Unicode.Scalar, _ b: Unicode.Scalar) -> Bool {
            if !fold { return a == b }
            return a.isASCII && b.isASCII ? foldASCII(UInt8(a.value)) == foldASCII(UInt8(b.value)) : a == b
        }
        // matches[j]: pattern[..<i] matches text[..<j].
        var matches = [Bool](repeating: false, count: text.count + 1)
        matches[0] = true
        for p in pattern {
            var next = [Bool](repeating: false, count: text.count + 1)
            if p == "*" {
                var any = false
                for j in 0...text.count {
                    any = any || matches[j]
                    next[j] = any
                }
            } else {
                for j in 0..<text.count where matches[j] && (p == "?" || same(p, text[j])) { next[j + 1] = true }
            }
            matches = next
        }
        return matches[text.count]
    }

    private static func expectedString(_ op: columnar_string_op, row: [UInt8]?, needle: [UInt8]?,
                                       fold: Bool) -> UInt8 {
        guard let row, let needle else {
            let bothNull = row == nil && needle == nil
            switch op {
            case COLUMNAR_STRING_EQ: return bothNull ? 1 : 0
            case COLUMNAR_STRING_NE: return bothNull ? 0 : 1
            default: return 0
            }
        }
        if fold && (row.contains { $0 >= 0x80 } || needle.contains { $0 >= 0x80 }) { return 2 }
        let a = fold ? row.map(foldASCII) : row
        let b = fold ? needle.map(foldASCII) : needle
        let o: Order = a == b ? .equal : a.lexicographicallyPrecedes(b) ? .less : .greater
        switch op {
        case COLUMNAR_STRING_EQ: return a == b ? 1 : 0
        case COLUMNAR_STRING_NE: return a == b ? 0 : 1
        case COLUMNAR_STRING_BEGINS_WITH: return a.starts(with: b) ? 1 : 0
        case COLUMNAR_STRING_ENDS_WITH: return a.reversed().starts(with: b.reversed()) ? 1 : 0
        case COLUMNAR_STRING_CONTAINS:
            if b.isEmpty { return 1 }
            if b.count > a.count { return 0 }
            for start in 0...(a.count - b.count) where a[start..<(start + b.count)].elementsEqual(b) { return 1 }
            return 0
        case COLUMNAR_STRING_LIKE:
            let text = Array(String(decoding: row, as: UTF8.self).unicodeScalars)
            let pattern = Array(String(decoding: needle, as: UTF8.self).unicodeScalars)
            return likeMatches(text, pattern, fold: fold) ? 1 : 0
        case COLUMNAR_STRING_LT: return o == .less ? 1 : 0
        case COLUMNAR_STRING_LE: return o != .greater ? 1 : 0
        case COLUMNAR_STRING_GT: return o == .greater ? 1 : 0
        case COLUMNAR_STRING_GE: return o != .less ? 1 : 0
        default: return 0
        }
    }

    // MARK: - The differential check

    /// What a run of the kernel check saw, so tests can assert that the interesting cases occurred.
    private struct Coverage {
        var intWidths = Set<UInt32>()
        var basedIntArrays = 0
        var shortStringWidths = Set<UInt32>()
        var longStringClusters = 0
        var nullArrayWidths = Set<UInt32>()
        var committedClusters = 0
        var privateClusters = 0
        var largestCluster = 0
        var allDefaultViews = 0
        var undecidedRows = 0
        var matchingRows = 0
        var rows = 0
        var masksChecked = 0
    }

    /// Mismatches between kernels and the reference, reported once per test with the first few described.
    private struct Mismatches {
        var count = 0
        var first: [String] = []

        mutating func compare(_ actual: [UInt8], _ expected: [UInt8], rows: Int, keys: [ObjectKey],
                              _ what: @autoclosure () -> String) {
            for row in 0..<rows where actual[row] != expected[row] {
                count += 1
                if first.count < 12 {
                    first.append("\(what()): row \(row) (key \(keys[row])) got \(actual[row]), "
                                 + "expected \(expected[row])")
                }
            }
        }
    }

    /// Runs kernels into a mask and compares each row with the reference, counting what it saw.
    private final class KernelRunner {
        var mask = [UInt8](repeating: 0, count: ScanKernelTests.maxRows)
        var coverage = Coverage()
        var mismatches = Mismatches()

        /// Calls `kernel` with the mask, first filled with 0xEE so that a row the kernel leaves unwritten shows.
        func run(_ context: KernelContext, _ expected: [UInt8], _ what: @autoclosure () -> String,
                 _ kernel: (UnsafeMutablePointer<UInt8>) -> Void) {
            let rows = context.rows
            mask.withUnsafeMutableBufferPointer { buffer in
                for row in 0..<rows { buffer[row] = 0xEE }
                kernel(buffer.baseAddress!)
            }
            coverage.masksChecked += 1
            coverage.matchingRows += mask.prefix(rows).filter { $0 == 1 }.count
            coverage.undecidedRows += mask.prefix(rows).filter { $0 == 2 }.count
            mismatches.compare(mask, expected, rows: rows, keys: context.keys, "\(context.column.name) \(what())")
        }
    }

    /// One column of one cluster: its view and the values columnar_obj_get reads for its rows.
    private struct KernelContext {
        let view: columnar_column_view
        let values: [Value]
        let keys: [ObjectKey]
        let column: TestColumn
        var rows: Int { values.count }
    }

    /// Runs every kernel that applies to each column over every cluster of `table` in `txn` and compares each
    /// row's result with the Swift reference on the values columnar_obj_get reads back.
    private func checkKernels(_ txn: Transaction, _ table: TableID, columns: [TestColumn], pools: Pools,
                              generator: inout SeededGenerator, file: StaticString = #filePath,
                              line: UInt = #line) throws -> Coverage {
        let runner = KernelRunner()
        var scannedKeys: [ObjectKey] = []
        try txn.forEachScannedCluster(table) { scan, cluster, keys in
            let rows = Int(cluster.row_count)
            XCTAssertLessThanOrEqual(rows, Self.maxRows, file: file, line: line)
            runner.coverage.rows += rows
            runner.coverage.largestCluster = max(runner.coverage.largestCluster, rows)
            scannedKeys += keys
            if cluster.ref == 0 {
                runner.coverage.privateClusters += 1
            } else {
                runner.coverage.committedClusters += 1
            }
            for column in columns {
                let values = try keys.map { try txn.get(table, $0, column.id) }
                let view = try self.view(scan, column.id)
                XCTAssertEqual(view.count, cluster.row_count, file: file, line: line)
                XCTAssertEqual(view.type, column.type, file: file, line: line)
                XCTAssertEqual(view.nullable, column.nullable, file: file, line: line)
                if view.all_default { runner.coverage.allDefaultViews += 1 }
                if view.nulls.encoding != columnar_encoding(0) {
                    runner.coverage.nullArrayWidths.insert(view.nulls.width)
                    XCTAssertTrue(values.contains { $0.isNull }, "a NULLS array is present only when a row is null",
                                  file: file, line: line)
                }
                let context = KernelContext(view: view, values: values, keys: keys, column: column)
                var nullView = view
                runner.run(context, values.map { $0.isNull ? 1 : 0 }, "is_null") {
                    columnar_kernel_is_null(&nullView, $0)
                }
                switch column.type {
                case COLUMNAR_TYPE_INT, COLUMNAR_TYPE_BOOL, COLUMNAR_TYPE_LINK:
                    checkIntKernels(context, runner, generator: &generator)
                case COLUMNAR_TYPE_FLOAT, COLUMNAR_TYPE_DOUBLE:
                    checkDoubleKernels(context, runner, generator: &generator)
                case COLUMNAR_TYPE_TIMESTAMP:
                    checkTimestampKernels(context, runner, generator: &generator)
                case COLUMNAR_TYPE_OBJECTID, COLUMNAR_TYPE_UUID, COLUMNAR_TYPE_DECIMAL128:
                    checkFixedKernels(context, runner, pools: pools, generator: &generator)
                case COLUMNAR_TYPE_STRING, COLUMNAR_TYPE_BINARY:
                    try checkStringKernels(context, runner, pools: pools, generator: &generator)
                default:
                    XCTFail("no kernel check for \(typeName(column.type))", file: file, line: line)
                }
            }
        }
        XCTAssertEqual(scannedKeys, try txn.keys(table), "a scan visits the keys cluster iteration visits",
                       file: file, line: line)
        XCTAssertEqual(runner.mismatches.count, 0, "kernel results that differ from the reference:\n"
                       + runner.mismatches.first.joined(separator: "\n"), file: file, line: line)
        return runner.coverage
    }

    /// compare_int with constants at every width's edges, in_int on both sides of its linear / binary-search
    /// threshold, decode_int.
    private func checkIntKernels(_ c: KernelContext, _ runner: KernelRunner, generator: inout SeededGenerator) {
        var view = c.view
        if c.column.type == COLUMNAR_TYPE_INT && !view.all_default {
            runner.coverage.intWidths.insert(view.values.width)
            if view.values.base != 0 { runner.coverage.basedIntArrays += 1 }
        }
        let ints = c.values.map(Self.intOf)
        var constants: [Int64?] = [nil, 0, 1, -1, 2, 15, 16, 127, 128, -128, -129, 32767, 32768, -32769,
                                   Int64(Int32.max), Int64(Int32.max) + 1, Int64(Int32.min) - 1, Int64.min,
                                   Int64.max, 999_999_999, 1_000_000_000, 1_000_000_100, 1_000_000_200,
                                   1_000_000_201, -3_000_001, -3_000_000, -2_970_000, -2_940_000, -2_939_999]
        for _ in 0..<4 { constants.append(ints.randomElement(using: &generator)!.flatMap { $0 } ?? 3) }
        constants.append(Int64(bitPattern: generator.next()))
        for constant in constants {
            for op in KernelOperators.compare {
                let expected = ints.map { value -> UInt8 in
                    Self.expected(op, value.flatMap { v in constant.map { Self.order(v, $0) } },
                                  rowIsNull: value == nil, constantIsNull: constant == nil)
                }
                runner.run(c, expected, "compare_int op \(op.rawValue) \(constant.map(String.init) ?? "null")") {
                    columnar_kernel_compare_int(&view, op, constant ?? 0, constant == nil, $0)
                }
            }
        }
        for size in [0, 1, 3, 8, 9, 20] {
            var set = Set<Int64>()
            while set.count < size {
                // Values of the cluster (often only a few distinct ones) and any ints, so the loop ends.
                let fromCluster = Bool.random(using: &generator)
                set.insert(fromCluster ? (ints.randomElement(using: &generator)!.flatMap { $0 } ?? 0)
                                       : Self.randomInt(widthClass: 8, generator: &generator))
            }
            let constants = set.sorted()
            let matchNull = Bool.random(using: &generator)
            let expected = ints.map { value -> UInt8 in
                value.map { set.contains($0) ? 1 : 0 } ?? (matchNull ? 1 : 0)
            }
            runner.run(c, expected, "in_int \(constants) null \(matchNull)") { mask in
                constants.withUnsafeBufferPointer {
                    columnar_kernel_in_int(&view, $0.baseAddress, constants.count, matchNull, mask)
                }
            }
        }
        var decoded = [Int64](repeating: 7, count: c.rows)
        var nulls = [UInt8](repeating: 7, count: c.rows)
        columnar_view_decode_int(&view, &decoded, &nulls)
        XCTAssertEqual(decoded, ints.map { $0 ?? 0 }, "\(c.column.name) decode_int values")
        XCTAssertEqual(nulls, ints.map { $0 == nil ? 1 : 0 }, "\(c.column.name) decode_int nulls")
    }

    /// compare_double with zeros of both signs, NaN and infinities; decode_double.
    private func checkDoubleKernels(_ c: KernelContext, _ runner: KernelRunner, generator: inout SeededGenerator) {
        var view = c.view
        let doubles = c.values.map(Self.doubleOf)
        var constants: [Double?] = [nil, 0, -0.0, .nan, .infinity, -.infinity, 0.1, 1.5]
        for _ in 0..<3 { constants.append(doubles.randomElement(using: &generator)!.flatMap { $0 } ?? 2) }
        for constant in constants {
            for op in KernelOperators.compare {
                let expected = doubles.map { value -> UInt8 in
                    Self.expected(op, value.flatMap { v in constant.map { Self.order(v, $0) } },
                                  rowIsNull: value == nil, constantIsNull: constant == nil)
                }
                runner.run(c, expected, "compare_double op \(op.rawValue) \(constant.map { "\($0)" } ?? "null")") {
                    columnar_kernel_compare_double(&view, op, constant ?? 0, constant == nil, $0)
                }
            }
        }
        var decoded = [Double](repeating: 7, count: c.rows)
        var nulls = [UInt8](repeating: 7, count: c.rows)
        columnar_view_decode_double(&view, &decoded, &nulls)
        XCTAssertEqual(decoded.map(\.bitPattern), doubles.map { ($0 ?? 0).bitPattern },
                       "\(c.column.name) decode_double")
        XCTAssertEqual(nulls, doubles.map { $0 == nil ? 1 : 0 }, "\(c.column.name) decode_double nulls")
    }

    /// compare_timestamp with constants equal to rows' values and one nanosecond off; decode_timestamp.
    private func checkTimestampKernels(_ c: KernelContext, _ runner: KernelRunner,
                                       generator: inout SeededGenerator) {
        var view = c.view
        let stamps = c.values.map { value -> (Int64, Int32)? in
            if case .timestamp(let s, let n) = value { return (s, n) }
            return nil
        }
        var constants: [(Int64, Int32)?] = [nil, (0, 0), (0, 1), (-1, 999_999_999), (Int64.max, 999_999_999),
                                            (Int64.min, 0)]
        for _ in 0..<4 {
            if let stamp = stamps.randomElement(using: &generator)!.flatMap({ $0 }) {
                constants.append(stamp)
                constants.append((stamp.0, stamp.1 == 0 ? 1 : stamp.1 - 1))
            }
        }
        for constant in constants {
            for op in KernelOperators.compare {
                let expected = stamps.map { value -> UInt8 in
                    let order = value.flatMap { v in
                        constant.map { v.0 != $0.0 ? Self.order(v.0, $0.0) : Self.order(v.1, $0.1) }
                    }
                    return Self.expected(op, order, rowIsNull: value == nil, constantIsNull: constant == nil)
                }
                runner.run(c, expected, "compare_timestamp op \(op.rawValue) \(String(describing: constant))") {
                    columnar_kernel_compare_timestamp(&view, op, constant?.0 ?? 0, constant?.1 ?? 0,
                                                      constant == nil, $0)
                }
            }
        }
        var seconds = [Int64](repeating: 7, count: c.rows)
        var nanos = [Int32](repeating: 7, count: c.rows)
        var nulls = [UInt8](repeating: 7, count: c.rows)
        columnar_view_decode_timestamp(&view, &seconds, &nanos, &nulls)
        XCTAssertEqual(seconds, stamps.map { $0?.0 ?? 0 }, "\(c.column.name) decode_timestamp seconds")
        XCTAssertEqual(nanos, stamps.map { $0?.1 ?? 0 }, "\(c.column.name) decode_timestamp nanoseconds")
        XCTAssertEqual(nulls, stamps.map { $0 == nil ? 1 : 0 }, "\(c.column.name) decode_timestamp nulls")
    }

    /// compare_fixed: bytewise order for ObjectId and UUID, equality only for Decimal128.
    private func checkFixedKernels(_ c: KernelContext, _ runner: KernelRunner, pools: Pools,
                                   generator: inout SeededGenerator) {
        var view = c.view
        let width = c.column.type == COLUMNAR_TYPE_OBJECTID ? 12 : 16
        let ids = c.values.map(Self.bytesOf)
        var constants: [[UInt8]?] = [nil, [UInt8](repeating: 0, count: width)]
        for _ in 0..<3 { constants.append(ids.randomElement(using: &generator)!.flatMap { $0 }) }
        constants.append(Array(pools.ids.randomElement(using: &generator)!.prefix(width)))
        constants.append(Self.randomBytes(width, generator: &generator))
        for constant in constants {
            for op in KernelOperators.compare {
                let ordering = op != COLUMNAR_COMPARE_EQ && op != COLUMNAR_COMPARE_NE
                let expected = ids.map { value -> UInt8 in
                    if ordering && c.column.type == COLUMNAR_TYPE_DECIMAL128 { return 0 }
                    return Self.expected(op, value.flatMap { v in constant.map { Self.order(v, $0) } },
                                         rowIsNull: value == nil, constantIsNull: constant == nil)
                }
                runner.run(c, expected, "compare_fixed op \(op.rawValue) \(constant.map { hex($0) } ?? "null")") {
                    mask in
                    if let constant {
                        constant.withUnsafeBufferPointer {
                            columnar_kernel_compare_fixed(&view, op, $0.baseAddress, false, mask)
                        }
                    } else {
                        columnar_kernel_compare_fixed(&view, op, nil, true, mask)
                    }
                }
            }
        }
    }

    /// view_get_bytes for every row; match_string with every operator, with and without ASCII folding, against
    /// the null needle, the empty one, rows' values, their prefixes, suffixes and case swaps, and LIKE patterns.
    private func checkStringKernels(_ c: KernelContext, _ runner: KernelRunner, pools: Pools,
                                    generator: inout SeededGenerator) throws {
        var view = c.view
        if !view.all_default {
            if view.values.encoding == COLUMNAR_ENCODING_SHORT_STRINGS {
                runner.coverage.shortStringWidths.insert(view.values.width)
            } else {
                runner.coverage.longStringClusters += 1
            }
        }
        let texts = c.values.map(Self.bytesOf)
        for row in 0..<c.rows {
            var data: UnsafeRawPointer?
            var size = 0
            var isNull = false
            try check(columnar_view_get_bytes(&view, UInt64(row), &data, &size, &isNull), "get_bytes")
            XCTAssertEqual(isNull ? nil : Array(rawBytes(data, size)), texts[row],
                           "\(c.column.name) get_bytes row \(row)")
        }
        let isString = c.column.type == COLUMNAR_TYPE_STRING
        var needles: [[UInt8]?] = [nil, []]
        for _ in 0..<2 {
            guard let text = texts.randomElement(using: &generator)!.flatMap({ $0 }) else { continue }
            let cut = text.isEmpty ? 0 : Int.random(in: 0...text.count, using: &generator)
            needles.append(text)
            needles.append(Array(text.prefix(cut)))
            needles.append(Array(text.suffix(text.count - cut)))
            needles.append(text.map(Self.swapASCIICase))
            if isString { needles.append(Self.likePattern(from: text, generator: &generator)) }
        }
        if isString {
            let pool = pools.strings.randomElement(using: &generator)!
            needles.append(Array(pool.randomElement(using: &generator)!.utf8))
            needles += [Array("*".utf8), Array("?".utf8), Array("é".utf8)]
        }
        for needle in needles {
            let shown = needle.map { String(decoding: $0, as: UTF8.self).debugDescription } ?? "null"
            // Binary values need not be UTF-8, where LIKE's characters are undefined.
            for op in KernelOperators.string where isString || op != COLUMNAR_STRING_LIKE {
                for fold in [false, true] {
                    let expected = texts.map { Self.expectedString(op, row: $0, needle: needle, fold: fold) }
                    let flags: UInt32 = fold ? UInt32(COLUMNAR_STRING_FOLD_ASCII_CASE) : 0
                    var rc: Int32 = 0
                    runner.run(c, expected, "match_string op \(op.rawValue) fold \(fold) \(shown)") { mask in
                        if let needle {
                            rc = withNonNullBytes(needle) { pointer, count in
                                columnar_kernel_match_string(&view, op, pointer, count, false, flags, mask)
                            }
                        } else {
                            rc = columnar_kernel_match_string(&view, op, nil, 0, true, flags, mask)
                        }
                    }
                    try check(rc, "columnar_kernel_match_string")
                }
            }
        }
    }

    /// A LIKE pattern that `text` matches: some characters replaced by `?`, some runs by `*`.
    private static func likePattern(from text: [UInt8], generator: inout SeededGenerator) -> [UInt8] {
        var pattern = ""
        var skipping = false
        for scalar in String(decoding: text, as: UTF8.self).unicodeScalars {
            switch Int.random(in: 0..<8, using: &generator) {
            case 0: pattern += "?"; skipping = false
            case 1:
                if !skipping { pattern += "*" }
                skipping = true
            default:
                pattern.unicodeScalars.append(scalar)
                skipping = false
            }
        }
        if Bool.random(using: &generator) { pattern += Bool.random(using: &generator) ? "?" : "x" }
        return Array(pattern.utf8)
    }

    // MARK: - Kernels against the reference

    /// A second database whose clusters (1,500 rows) are larger than a kernel's decoding block (1,024 rows) and
    /// than one 64-bit word of null bits, and not a multiple of either.
    private func largeClusterDatabase() throws -> TestDatabase {
        try TestDatabase(path: directory.file("large.columnar"), durability: COLUMNAR_DURABILITY_UNSAFE,
                         clusterSize: 1_500)
    }

    func testKernelsAgreeWithRowByRowEvaluationOnCommittedClusters() throws {
        var generator = makeSeededGenerator()
        let (table, pools) = try buildTable(rowCount: 11 * Self.blockRows + 100, generator: &generator)
        let coverage = try db.read { txn in
            try checkKernels(txn, table.table, columns: table.columns, pools: pools, generator: &generator)
        }
        XCTAssertEqual(coverage.intWidths, [0, 1, 2, 4, 8, 16, 32, 64], "every packed width was scanned")
        XCTAssertGreaterThan(coverage.basedIntArrays, 0, "int arrays with a base were scanned")
        XCTAssertEqual(coverage.shortStringWidths, [4, 8, 16, 32], "every short-string slot width was scanned")
        XCTAssertGreaterThan(coverage.longStringClusters, 0, "long-form strings were scanned")
        XCTAssertEqual(coverage.nullArrayWidths, [1], "committed null bitmaps are one bit per row")
        XCTAssertGreaterThan(coverage.committedClusters, 50)
        XCTAssertEqual(coverage.privateClusters, 0)
        XCTAssertGreaterThan(coverage.undecidedRows, 0, "case-folded matches on non-ASCII rows are left undecided")
        XCTAssertGreaterThan(coverage.matchingRows, coverage.masksChecked, "the constants match rows")

        let large = try largeClusterDatabase()
        defer { large.close() }
        let (largeTable, largePools) = try buildTable(in: large, rowCount: 3_000, generator: &generator)
        let largeCoverage = try large.read { txn in
            try checkKernels(txn, largeTable.table, columns: largeTable.columns, pools: largePools,
                             generator: &generator)
        }
        XCTAssertGreaterThan(largeCoverage.largestCluster, 1_024, "a cluster spans several decoding blocks")
    }

    /// Changes rows of about a third of the clusters (the others stay committed), deletes some rows there and
    /// appends new ones, then checks the kernels before the commit (and after it, with `afterCommit`). Returns the
    /// coverage before the commit.
    private func checkChangedClusters(in database: TestDatabase, rowCount: Int, appended: Int, afterCommit: Bool,
                                      generator: inout SeededGenerator) throws -> Coverage {
        let (table, pools) = try buildTable(in: database, rowCount: rowCount, generator: &generator)
        let txn = try database.beginWrite()
        defer { txn.rollback() }
        let keys = try txn.keys(table.table)
        let stride = try database.stats().cluster_size
        var changeable = keys.enumerated().filter { ($0.offset / Int(stride)) % 3 == 0 }.map(\.element)
        for _ in 0..<200 {
            let key = changeable.randomElement(using: &generator)!
            try writeRandomValues(txn, table: table, key: key, row: Int.random(in: 0..<rowCount, using: &generator),
                                  pools: pools, generator: &generator)
        }
        for _ in 0..<60 {
            let key = changeable.remove(at: Int.random(in: 0..<changeable.count, using: &generator))
            try txn.deleteObject(table.table, key)
        }
        for row in 0..<appended {
            let key = try txn.createObject(table.table)
            try writeRandomValues(txn, table: table, key: key, row: row, pools: pools, generator: &generator)
        }
        let coverage = try checkKernels(txn, table.table, columns: table.columns, pools: pools,
                                        generator: &generator)
        try txn.commit()
        try database.read { txn in
            if afterCommit {
                let coverage = try checkKernels(txn, table.table, columns: table.columns, pools: pools,
                                                generator: &generator)
                XCTAssertEqual(coverage.privateClusters, 0)
            }
            XCTAssertVerifies(txn)
        }
        return coverage
    }

    func testKernelsAgreeOnClustersChangedInAWriteTransactionBeforeItsCommit() throws {
        var generator = makeSeededGenerator()
        // The appended rows make one private leaf grow past the cluster size and split.
        let coverage = try checkChangedClusters(in: db, rowCount: 11 * Self.blockRows, appended: 1_500,
                                                afterCommit: true, generator: &generator)
        XCTAssertGreaterThan(coverage.privateClusters, 10, "clusters changed by the transaction were scanned")
        XCTAssertGreaterThan(coverage.committedClusters, 10, "untouched committed clusters were scanned")
        XCTAssertTrue(coverage.nullArrayWidths.contains(8), "private null flags are one byte per row")
        XCTAssertTrue(coverage.nullArrayWidths.contains(1))
        XCTAssertEqual(coverage.intWidths, [0, 1, 2, 4, 8, 16, 32, 64])

        let large = try largeClusterDatabase()
        defer { large.close() }
        let largeCoverage = try checkChangedClusters(in: large, rowCount: 4_500, appended: 100, afterCommit: false,
                                                     generator: &generator)
        XCTAssertGreaterThan(largeCoverage.privateClusters, 0)
        XCTAssertGreaterThan(largeCoverage.committedClusters, 0)
        XCTAssertGreaterThan(largeCoverage.largestCluster, 1_024, "a private cluster spans several decoding blocks")
    }

    func testColumnsAddedAfterTheObjectsAreViewedAsAllDefault() throws {
        var generator = makeSeededGenerator()
        let (table, pools) = try buildTable(rowCount: 600, generator: &generator)
        var added: [TestColumn] = []
        let txn = try db.beginWrite()
        defer { txn.rollback() }
        for (name, type, nullable) in Self.columnSpecs {
            let id = try txn.addColumn(table.table, "added_" + name, type, nullable: nullable)
            added.append(TestColumn(id: id, name: "added_" + name, type: type, nullable: nullable))
        }
        // The clusters store nothing for the new columns: every view is all_default.
        var coverage = try checkKernels(txn, table.table, columns: added, pools: pools, generator: &generator)
        XCTAssertEqual(coverage.allDefaultViews, coverage.committedClusters * added.count)
        XCTAssertGreaterThan(coverage.allDefaultViews, 0)
        try checkAggregatesOfDefaults(txn, table.table, added)
        // One changed row makes its cluster private, with default cells for the new columns; other clusters stay
        // all_default.
        let keys = try txn.keys(table.table)
        let changed = keys[keys.count / 2]
        for column in added {
            let value = Self.randomValue(column, row: 100, table: table, pools: pools, generator: &generator)
            try txn.set(table.table, changed, column.id, value)
        }
        coverage = try checkKernels(txn, table.table, columns: added, pools: pools, generator: &generator)
        XCTAssertEqual(coverage.privateClusters, 1)
        XCTAssertGreaterThan(coverage.allDefaultViews, 0)
        try txn.commit()
        try db.read { txn in
            let coverage = try checkKernels(txn, table.table, columns: added, pools: pools, generator: &generator)
            XCTAssertGreaterThan(coverage.allDefaultViews, 0, "untouched clusters still store nothing for them")
            XCTAssertVerifies(txn)
        }
    }

    /// all_default columns aggregate as nothing (nullable) or as zeros.
    private func checkAggregatesOfDefaults(_ txn: Transaction, _ table: TableID, _ columns: [TestColumn]) throws {
        let rowCount = try txn.count(table)
        let aggregated = [COLUMNAR_TYPE_INT, COLUMNAR_TYPE_DOUBLE, COLUMNAR_TYPE_TIMESTAMP]
        for column in columns where aggregated.contains(column.type) {
            var aggregate = columnar_aggregate()
            try txn.forEachScannedCluster(table) { scan, _, _ in
                var view = try self.view(scan, column.id)
                XCTAssertTrue(view.all_default)
                columnar_kernel_aggregate(&view, nil, &aggregate)
            }
            XCTAssertEqual(aggregate.count, column.nullable ? 0 : rowCount, column.name)
            XCTAssertEqual(aggregate.minmax_count, column.nullable ? 0 : rowCount, column.name)
            XCTAssertEqual(aggregate.int_sum_low, 0)
            XCTAssertEqual(aggregate.int_sum_high, 0)
            XCTAssertEqual(aggregate.double_sum, 0)
            XCTAssertEqual(aggregate.int_min, 0)
            XCTAssertEqual(aggregate.int_max, 0)
            XCTAssertEqual(aggregate.seconds_max, 0)
        }
    }

    // MARK: - Aggregates

    /// The reference aggregate of Swift values, in key order.
    private struct ReferenceAggregate {
        var count: UInt64 = 0
        var intSum: Int128 = 0
        var doubleSum: Double = 0
        var intMin: Int64?
        var intMax: Int64?
        var doubleMin: Double?
        var doubleMax: Double?
        var stampMin: (Int64, Int32)?
        var stampMax: (Int64, Int32)?

        mutating func add(_ value: Value) {
            switch value {
            case .null: return
            case .int(let x):
                intSum += Int128(x)
                intMin = min(intMin ?? x, x)
                intMax = max(intMax ?? x, x)
            case .double, .float:
                let x = ScanKernelTests.doubleOf(value)!
                doubleSum += x
                if !x.isNaN {
                    doubleMin = doubleMin.map { x < $0 ? x : $0 } ?? x
                    doubleMax = doubleMax.map { x > $0 ? x : $0 } ?? x
                }
            case .timestamp(let s, let n):
                if stampMin.map({ (s, n) < $0 }) ?? true { stampMin = (s, n) }
                if stampMax.map({ (s, n) > $0 }) ?? true { stampMax = (s, n) }
            default: return
            }
            count += 1
        }
    }

    /// The aggregate of `column` over a scan (rows masked by `filter` when given): columnar_kernel_aggregate, or
    /// columnar_kernel_aggregate_select when only some aggregates are `wanted`.
    private func aggregate(_ txn: Transaction, _ table: TableID, _ column: ColumnID,
                           wanted: UInt32 = COLUMNAR_AGGREGATE_ALL,
                           where filter: ((OpaquePointer, UnsafeMutablePointer<UInt8>) throws -> Void)? = nil)
        throws -> columnar_aggregate {
        var aggregate = columnar_aggregate()
        var mask = [UInt8](repeating: 0, count: Self.maxRows)
        func add(_ view: inout columnar_column_view, _ mask: UnsafePointer<UInt8>?) {
            if wanted == COLUMNAR_AGGREGATE_ALL {
                columnar_kernel_aggregate(&view, mask, &aggregate)
            } else {
                columnar_kernel_aggregate_select(&view, mask, wanted, &aggregate)
            }
        }
        try txn.forEachScannedCluster(table) { scan, _, _ in
            var view = try self.view(scan, column)
            if let filter {
                try mask.withUnsafeMutableBufferPointer { try filter(scan, $0.baseAddress!) }
                add(&view, mask)
            } else {
                add(&view, nil)
            }
        }
        return aggregate
    }

    private func assertAggregate(_ actual: columnar_aggregate, equals reference: ReferenceAggregate,
                                 _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(actual.count, reference.count, "\(what) count", file: file, line: line)
        XCTAssertEqual(actual.int_sum_low, UInt64(truncatingIfNeeded: reference.intSum), "\(what) sum low",
                       file: file, line: line)
        XCTAssertEqual(actual.int_sum_high, Int64(truncatingIfNeeded: reference.intSum >> 64), "\(what) sum high",
                       file: file, line: line)
        if reference.doubleSum.isNaN {
            XCTAssertTrue(actual.double_sum.isNaN, "\(what) double sum \(actual.double_sum)", file: file, line: line)
        } else {
            XCTAssertEqual(actual.double_sum.bitPattern, reference.doubleSum.bitPattern,
                           "\(what) double sum \(actual.double_sum) vs \(reference.doubleSum)", file: file, line: line)
        }
        if let min = reference.intMin, let max = reference.intMax {
            XCTAssertEqual(actual.int_min, min, "\(what) min", file: file, line: line)
            XCTAssertEqual(actual.int_max, max, "\(what) max", file: file, line: line)
        }
        if let min = reference.doubleMin, let max = reference.doubleMax {
            XCTAssertEqual(actual.double_min, min, "\(what) min", file: file, line: line)
            XCTAssertEqual(actual.double_max, max, "\(what) max", file: file, line: line)
        } else if reference.intMin == nil && reference.stampMin == nil {
            XCTAssertEqual(actual.minmax_count, 0, "\(what): no value for min/max", file: file, line: line)
        }
        if let min = reference.stampMin, let max = reference.stampMax {
            XCTAssertEqual(actual.seconds_min, min.0, "\(what) min seconds", file: file, line: line)
            XCTAssertEqual(actual.nanos_min, min.1, "\(what) min nanoseconds", file: file, line: line)
            XCTAssertEqual(actual.seconds_max, max.0, "\(what) max seconds", file: file, line: line)
            XCTAssertEqual(actual.nanos_max, max.1, "\(what) max nanoseconds", file: file, line: line)
        }
    }

    func testAggregatesMatchASwiftReferenceIncludingSumsBeyondInt64() throws {
        var generator = makeSeededGenerator()
        let (table, _) = try buildTable(rowCount: 9 * Self.blockRows, generator: &generator)
        // A column of large values whose sum overflows Int64 both ways.
        let big = try db.write { txn -> ColumnID in
            let big = try txn.addColumn(table.table, "big", COLUMNAR_TYPE_INT, nullable: true)
            for (index, key) in try txn.keys(table.table).enumerated() {
                let value: Value = index % 11 == 0 ? .null
                    : index < 3000 ? .int(Int64.max - Int64.random(in: 0...1_000_000, using: &generator))
                    : .int(Int64.min + Int64.random(in: 0...1_000, using: &generator))
                try txn.set(table.table, key, big, value)
            }
            return big
        }
        try db.read { txn in
            let keys = try txn.keys(table.table)
            let aggregated = [COLUMNAR_TYPE_INT, COLUMNAR_TYPE_FLOAT, COLUMNAR_TYPE_DOUBLE, COLUMNAR_TYPE_TIMESTAMP]
            var columns = table.columns.filter { aggregated.contains($0.type) }
            columns.append(TestColumn(id: big, name: "big", type: COLUMNAR_TYPE_INT, nullable: true))
            let filterColumn = table.column("int")
            let threshold = Self.randomInt(widthClass: 6, generator: &generator)
            for column in columns {
                let values = try keys.map { try txn.get(table.table, $0, column.id) }
                var everything = ReferenceAggregate()
                values.forEach { everything.add($0) }
                assertAggregate(try aggregate(txn, table.table, column.id), equals: everything, column.name)
                // Masked by another column's comparison.
                var masked = ReferenceAggregate()
                for (index, key) in keys.enumerated() {
                    if case .int(let x) = try txn.get(table.table, key, filterColumn.id), x > threshold {
                        masked.add(values[index])
                    }
                }
                let maskedAggregate = try aggregate(txn, table.table, column.id) { scan, mask in
                    var view = try self.view(scan, filterColumn.id)
                    columnar_kernel_compare_int(&view, COLUMNAR_COMPARE_GT, threshold, false, mask)
                }
                assertAggregate(maskedAggregate, equals: masked, "\(column.name) where int > \(threshold)")
            }
            let bigSum = try aggregate(txn, table.table, big)
            XCTAssertNotEqual(bigSum.int_sum_high, 0, "the test's int sum does not fit in an Int64")
            XCTAssertNotEqual(bigSum.int_sum_high, -1)
        }
    }

    func testAggregatesOfNoRowsAndOfOnlyNullsAreEmpty() throws {
        let (table, value) = try db.write { txn -> (TableID, ColumnID) in
            let table = try txn.addTable("nulls")
            let value = try txn.addColumn(table, "value", COLUMNAR_TYPE_DOUBLE, nullable: true)
            return (table, value)
        }
        try db.read { txn in
            let empty = try aggregate(txn, table, value)
            XCTAssertEqual(empty.count, 0)
            XCTAssertEqual(empty.minmax_count, 0)
        }
        try db.write { txn in
            for _ in 0..<300 { _ = try txn.createObject(table) }
            let nan = try txn.createObject(table)
            try txn.set(table, nan, value, .double(.nan))
        }
        try db.read { txn in
            let result = try aggregate(txn, table, value)
            XCTAssertEqual(result.count, 1, "only the NaN is a value")
            XCTAssertTrue(result.double_sum.isNaN, "NaN counts in the sum")
            XCTAssertEqual(result.minmax_count, 0, "NaN is skipped by min and max")
            var empty = columnar_aggregate()
            var mask = [UInt8](repeating: 0, count: Self.maxRows)
            try txn.forEachScannedCluster(table) { scan, _, _ in
                var view = try self.view(scan, value)
                columnar_kernel_aggregate(&view, &mask, &empty)
            }
            XCTAssertEqual(empty.count, 0, "an all-zero mask selects nothing")
        }
    }

    /// columnar_kernel_aggregate_select over real clusters: the aggregates asked for equal the full kernel's, the
    /// others stay as they were, for ints, floats, doubles and timestamps, with and without a mask.
    func testAggregateSelectComputesOnlyTheAggregatesAskedFor() throws {
        var generator = makeSeededGenerator()
        let (table, _) = try buildTable(rowCount: 5 * Self.blockRows, generator: &generator)
        try db.read { txn in
            let aggregated = [COLUMNAR_TYPE_INT, COLUMNAR_TYPE_FLOAT, COLUMNAR_TYPE_DOUBLE, COLUMNAR_TYPE_TIMESTAMP]
            let filterColumn = table.column("int")
            for column in table.columns where aggregated.contains(column.type) {
                for masked in [false, true] {
                    typealias Filter = (OpaquePointer, UnsafeMutablePointer<UInt8>) throws -> Void
                    let filter: Filter? = masked ? { scan, mask in
                        var view = try self.view(scan, filterColumn.id)
                        columnar_kernel_compare_int(&view, COLUMNAR_COMPARE_GT, 0, false, mask)
                    } : nil
                    let full = try aggregate(txn, table.table, column.id, where: filter)
                    for wanted in UInt32(0)...COLUMNAR_AGGREGATE_ALL {
                        let what = "\(column.name) wanted \(wanted)\(masked ? " where int > 0" : "")"
                        let partial = try aggregate(txn, table.table, column.id, wanted: wanted, where: filter)
                        assertSelectedAggregate(partial, full: full, wanted: wanted, what)
                    }
                }
            }
        }
    }

    /// `partial` (computed with `wanted`) has full's values in the fields asked for and zero in the others.
    private func assertSelectedAggregate(_ partial: columnar_aggregate, full: columnar_aggregate, wanted: UInt32,
                                         _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(partial.count, full.count, "\(what) count", file: file, line: line)
        let sum = wanted & COLUMNAR_AGGREGATE_SUM != 0
        XCTAssertEqual(partial.int_sum_low, sum ? full.int_sum_low : 0, "\(what) sum low", file: file, line: line)
        XCTAssertEqual(partial.int_sum_high, sum ? full.int_sum_high : 0, "\(what) sum high", file: file, line: line)
        XCTAssertEqual(partial.double_sum.bitPattern, sum ? full.double_sum.bitPattern : 0, "\(what) double sum",
                       file: file, line: line)
        let wantsMin = wanted & COLUMNAR_AGGREGATE_MIN != 0, wantsMax = wanted & COLUMNAR_AGGREGATE_MAX != 0
        XCTAssertEqual(partial.minmax_count, wantsMin || wantsMax ? full.minmax_count : 0, "\(what) minmax_count",
                       file: file, line: line)
        let extremes = full.minmax_count > 0
        XCTAssertEqual(partial.int_min, wantsMin && extremes ? full.int_min : 0, "\(what) min", file: file, line: line)
        XCTAssertEqual(partial.int_max, wantsMax && extremes ? full.int_max : 0, "\(what) max", file: file, line: line)
        XCTAssertEqual(partial.double_min.bitPattern, wantsMin && extremes ? full.double_min.bitPattern : 0,
                       "\(what) double min", file: file, line: line)
        XCTAssertEqual(partial.double_max.bitPattern, wantsMax && extremes ? full.double_max.bitPattern : 0,
                       "\(what) double max", file: file, line: line)
        XCTAssertEqual(partial.seconds_min, wantsMin && extremes ? full.seconds_min : 0, file: file, line: line)
        XCTAssertEqual(partial.nanos_min, wantsMin && extremes ? full.nanos_min : 0, file: file, line: line)
        XCTAssertEqual(partial.seconds_max, wantsMax && extremes ? full.seconds_max : 0, file: file, line: line)
        XCTAssertEqual(partial.nanos_max, wantsMax && extremes ? full.nanos_max : 0, file: file, line: line)
    }

    // MARK: - Int aggregates of hand-built views

    /// How the rows of a hand-built view are null.
    private enum NullForm: CaseIterable {
        case none, rareBits, halfBits, allBits, rareBytes, halfNibbles
    }

    /// How the rows of a hand-built view are masked.
    private enum MaskForm: CaseIterable {
        case none, allOnes, allNonZero, half, rareZeros, allZero
    }

    /// A PACKED_INT payload of `values` at `width` bits (element i at bit i * width, little-endian). The bits of
    /// the last byte past the last element are set: they belong to no row, and a kernel must not read them as one.
    private static func packed(_ values: [Int64], width: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: (values.count * width + 7) / 8)
        for (index, value) in values.enumerated() where width > 0 {
            if width < 8 {
                let field = UInt8(truncatingIfNeeded: value) & UInt8((1 << width) - 1)
                bytes[index * width / 8] |= field << UInt8(index * width % 8)
            } else {
                for byte in 0..<width / 8 {
                    bytes[index * width / 8 + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte))
                }
            }
        }
        let usedBits = values.count * width % 8
        if usedBits != 0 { bytes[bytes.count - 1] |= UInt8(0xff) << UInt8(usedBits) }
        return bytes
    }

    /// A value that fits `width` bits: unsigned below 8 bits, signed from 8 on, and for 64 bits runs of values near
    /// the extremes, so that sums leave the Int64 range.
    private static func randomValue(width: Int, run: Int, generator: inout SeededGenerator) -> Int64 {
        switch width {
        case 0: return 0
        case 1, 2, 4: return Int64.random(in: 0...(1 << width) - 1, using: &generator)
        case 8: return Int64.random(in: -128...127, using: &generator)
        case 16: return Int64.random(in: Int64(Int16.min)...Int64(Int16.max), using: &generator)
        case 32: return Int64.random(in: Int64(Int32.min)...Int64(Int32.max), using: &generator)
        default:
            switch run % 3 {
            case 0: return .max - Int64.random(in: 0...1000, using: &generator)
            case 1: return .min + Int64.random(in: 0...1000, using: &generator)
            default: return Int64(bitPattern: generator.next())
            }
        }
    }

    /// Every packed width, as INT and as BOOL (which counts any non-zero value as 1), with nulls as 1-bit and 1-byte
    /// flags and as another width, and masks absent, all set, partly set and empty: the kernel's count, exact sum,
    /// min and max equal a Swift reference, for the full kernel and for each selection of aggregates. Row counts
    /// cross the 64-row words of the null bitmap and the kernel's 1024-row blocks.
    func testIntAggregatesOfEveryWidthNullFormAndMaskMatchASwiftReference() {
        var generator = makeSeededGenerator()
        let rowCounts = [0, 1, 7, 63, 64, 65, 256, 1023, 1024, 1025, 2500]
        for type in [COLUMNAR_TYPE_INT, COLUMNAR_TYPE_BOOL] {
            for width in [0, 1, 2, 4, 8, 16, 32, 64] {
                for rowCount in rowCounts {
                    var values: [Int64] = []
                    for row in 0..<rowCount {
                        values.append(Self.randomValue(width: width, run: row / 100, generator: &generator))
                    }
                    // An INT array of 8 to 32 bits may carry a base (a frame of reference) added to every element.
                    let based = type == COLUMNAR_TYPE_INT && [8, 16, 32].contains(width)
                    let bases: [Int64] = based ? [0, Int64(Int32.random(in: .min ... .max, using: &generator))] : [0]
                    for base in bases {
                        for nullForm in NullForm.allCases {
                            for maskForm in MaskForm.allCases {
                                checkIntAggregate(type: type, values: values, base: base, width: width,
                                                  nullForm: nullForm, maskForm: maskForm, generator: &generator)
                            }
                        }
                    }
                }
            }
        }
    }

    private func checkIntAggregate(type: columnar_type, values: [Int64], base: Int64, width: Int, nullForm: NullForm,
                                   maskForm: MaskForm, generator: inout SeededGenerator) {
        let rowCount = values.count
        var isNull = [Bool](repeating: false, count: rowCount)
        for row in 0..<rowCount {
            switch nullForm {
            case .none: break
            case .rareBits, .rareBytes: isNull[row] = Int.random(in: 0..<60, using: &generator) == 0
            case .halfBits, .halfNibbles: isNull[row] = Bool.random(using: &generator)
            case .allBits: isNull[row] = true
            }
        }
        var mask: [UInt8]? = nil
        switch maskForm {
        case .none: break
        case .allOnes: mask = [UInt8](repeating: 1, count: rowCount)
        case .allNonZero: mask = (0..<rowCount).map { _ in UInt8.random(in: 1...255, using: &generator) }
        case .half: mask = (0..<rowCount).map { _ in Bool.random(using: &generator) ? 0 : 2 }
        case .rareZeros: mask = (0..<rowCount).map { _ in Int.random(in: 0..<50, using: &generator) == 0 ? 0 : 1 }
        case .allZero: mask = [UInt8](repeating: 0, count: rowCount)
        }
        // The reference, and the nulls array in the form asked for.
        var count: UInt64 = 0
        var sum: Int128 = 0
        var minimum: Int64?, maximum: Int64?
        for row in 0..<rowCount where !isNull[row] && (mask.map { $0[row] != 0 } ?? true) {
            let value = type == COLUMNAR_TYPE_BOOL ? (values[row] != 0 ? 1 : 0) : values[row] + base
            count += 1
            sum += Int128(value)
            minimum = Swift.min(minimum ?? value, value)
            maximum = Swift.max(maximum ?? value, value)
        }
        let nullFlags = isNull.map { Int64($0 ? 1 : 0) }
        let (nullWidth, nullBytes): (Int, [UInt8]) = switch nullForm {
        case .none: (0, [])
        case .rareBits, .halfBits, .allBits: (1, Self.packed(nullFlags, width: 1))
        case .rareBytes: (8, Self.packed(nullFlags.map { $0 * 7 }, width: 8))
        case .halfNibbles: (4, Self.packed(nullFlags.map { $0 * 9 }, width: 4))
        }
        let payload = Self.packed(values, width: width)
        let what = "\(typeName(type)) width \(width) base \(base), \(rowCount) rows, nulls \(nullForm), "
            + "mask \(maskForm)"
        payload.withUnsafeBytes { payloadBytes in
            nullBytes.withUnsafeBytes { nullPointer in
                var view = columnar_column_view()
                view.type = type
                view.count = UInt64(rowCount)
                view.nullable = nullForm != .none
                view.values = columnar_array(encoding: COLUMNAR_ENCODING_PACKED_INT, width: UInt32(width),
                                             count: UInt64(rowCount), data: payloadBytes.baseAddress, base: base)
                if nullForm != .none {
                    view.nulls = columnar_array(encoding: COLUMNAR_ENCODING_PACKED_INT, width: UInt32(nullWidth),
                                                count: UInt64(rowCount), data: nullPointer.baseAddress, base: 0)
                }
                for wanted in [COLUMNAR_AGGREGATE_ALL, COLUMNAR_AGGREGATE_SUM, COLUMNAR_AGGREGATE_MIN,
                               COLUMNAR_AGGREGATE_MAX, 0] {
                    var result = columnar_aggregate()
                    if wanted == COLUMNAR_AGGREGATE_ALL {
                        // Twice into one aggregate: the second call folds into the first one's result.
                        columnar_kernel_aggregate(&view, mask, &result)
                        columnar_kernel_aggregate(&view, mask, &result)
                    } else {
                        columnar_kernel_aggregate_select(&view, mask, wanted, &result)
                        columnar_kernel_aggregate_select(&view, mask, wanted, &result)
                    }
                    let label = "\(what), wanted \(wanted)"
                    XCTAssertEqual(result.count, 2 * count, "\(label): count")
                    let expectedSum = wanted & COLUMNAR_AGGREGATE_SUM != 0 ? 2 * sum : 0
                    XCTAssertEqual(result.int_sum_low, UInt64(truncatingIfNeeded: expectedSum), "\(label): sum low")
                    XCTAssertEqual(result.int_sum_high, Int64(truncatingIfNeeded: expectedSum >> 64),
                                   "\(label): sum high")
                    let wantsMin = wanted & COLUMNAR_AGGREGATE_MIN != 0, wantsMax = wanted & COLUMNAR_AGGREGATE_MAX != 0
                    XCTAssertEqual(result.minmax_count, wantsMin || wantsMax ? 2 * count : 0, "\(label): minmax_count")
                    XCTAssertEqual(result.int_min, wantsMin ? minimum ?? 0 : 0, "\(label): min")
                    XCTAssertEqual(result.int_max, wantsMax ? maximum ?? 0 : 0, "\(label): max")
                }
            }
        }
    }

    /// FLOAT and DOUBLE views with NaNs, infinities and zeros of both signs, nulls and masks: the sum (added in row
    /// order), count and minmax_count equal a Swift reference bit for bit, and so do min and max, which skip NaN
    /// and keep the first of -0.0 and +0.0 in row order (the kernel compares four running extremes at a time).
    func testDoubleAggregatesOfHandBuiltViewsMatchARowOrderReference() {
        var generator = makeSeededGenerator()
        for isFloat in [false, true] {
            for rowCount in [0, 1, 3, 4, 5, 64, 255, 1024, 1030, 2100] {
                for pool in [[Double.nan, -0.0, 0.0, 1.5, 2], [.nan, -0.0, 0.0, -1.5, -2],
                             [.nan, -0.0, 0.0, .infinity, -.infinity, 0.25, -3], [.nan]] {
                    for nullForm in [NullForm.none, .halfBits, .rareBytes] {
                        for maskForm in [MaskForm.none, .allOnes, .half] {
                            let values = (0..<rowCount).map { _ in pool.randomElement(using: &generator)! }
                            checkDoubleAggregate(values: values, isFloat: isFloat, nullForm: nullForm,
                                                 maskForm: maskForm, generator: &generator)
                        }
                    }
                }
            }
        }
    }

    private func checkDoubleAggregate(values: [Double], isFloat: Bool, nullForm: NullForm, maskForm: MaskForm,
                                      generator: inout SeededGenerator) {
        let rowCount = values.count
        let isNull = (0..<rowCount).map { _ in
            switch nullForm {
            case .none: false
            case .rareBits, .rareBytes: Int.random(in: 0..<8, using: &generator) == 0
            default: Bool.random(using: &generator)
            }
        }
        let mask: [UInt8]? = switch maskForm {
        case .none: nil
        case .allOnes: [UInt8](repeating: 1, count: rowCount)
        default: (0..<rowCount).map { _ in Bool.random(using: &generator) ? 0 : 1 }
        }
        var count: UInt64 = 0, ordered: UInt64 = 0
        var sum = 0.0
        var minimum = Double.infinity, maximum = -Double.infinity
        for row in 0..<rowCount where !isNull[row] && (mask.map { $0[row] != 0 } ?? true) {
            let value = values[row]
            count += 1
            sum += value
            if value.isNaN { continue }
            if ordered == 0 || value < minimum { minimum = value }
            if ordered == 0 || value > maximum { maximum = value }
            ordered += 1
        }
        let nullFlags = isNull.map { Int64($0 ? 1 : 0) }
        let (nullWidth, nullBytes): (Int, [UInt8]) = nullForm == .rareBytes
            ? (8, Self.packed(nullFlags, width: 8)) : (1, Self.packed(nullFlags, width: 1))
        let payload: [UInt8] = isFloat ? values.flatMap { withUnsafeBytes(of: Float($0)) { Array($0) } }
                                       : values.flatMap { withUnsafeBytes(of: $0) { Array($0) } }
        let what = "\(isFloat ? "FLOAT" : "DOUBLE"), \(rowCount) rows, nulls \(nullForm), mask \(maskForm)"
        payload.withUnsafeBytes { payloadBytes in
            nullBytes.withUnsafeBytes { nullPointer in
                var view = columnar_column_view()
                view.type = isFloat ? COLUMNAR_TYPE_FLOAT : COLUMNAR_TYPE_DOUBLE
                view.count = UInt64(rowCount)
                view.nullable = nullForm != .none
                view.values = columnar_array(encoding: isFloat ? COLUMNAR_ENCODING_FLOAT : COLUMNAR_ENCODING_DOUBLE,
                                             width: isFloat ? 32 : 64, count: UInt64(rowCount),
                                             data: payloadBytes.baseAddress, base: 0)
                if nullForm != .none {
                    view.nulls = columnar_array(encoding: COLUMNAR_ENCODING_PACKED_INT, width: UInt32(nullWidth),
                                                count: UInt64(rowCount), data: nullPointer.baseAddress, base: 0)
                }
                for wanted in [COLUMNAR_AGGREGATE_ALL, COLUMNAR_AGGREGATE_MIN | COLUMNAR_AGGREGATE_MAX] {
                    var result = columnar_aggregate()
                    columnar_kernel_aggregate_select(&view, mask, wanted, &result)
                    let label = "\(what), wanted \(wanted)"
                    XCTAssertEqual(result.count, count, "\(label): count")
                    XCTAssertEqual(result.minmax_count, ordered, "\(label): minmax_count")
                    // A NaN's sign and payload depend on the order of an addition's operands: any NaN will do.
                    let expectedSum = wanted & COLUMNAR_AGGREGATE_SUM != 0 ? sum : 0
                    if expectedSum.isNaN {
                        XCTAssertTrue(result.double_sum.isNaN, "\(label): sum \(result.double_sum) vs NaN")
                    } else {
                        XCTAssertEqual(result.double_sum.bitPattern, expectedSum.bitPattern,
                                       "\(label): sum \(result.double_sum) vs \(expectedSum)")
                    }
                    if ordered > 0 {
                        XCTAssertEqual(result.double_min.bitPattern, minimum.bitPattern,
                                       "\(label): min \(result.double_min) vs \(minimum)")
                        XCTAssertEqual(result.double_max.bitPattern, maximum.bitPattern,
                                       "\(label): max \(result.double_max) vs \(maximum)")
                    }
                }
            }
        }
    }

    // MARK: - Masks

    func testMaskOperationsCombineAndCount() {
        var generator = makeSeededGenerator()
        for count in [0, 1, 7, 255, 256, 257, 1000, Self.maxRows] {
            let a = (0..<count).map { _ in UInt8([0, 1, 1, 2].randomElement(using: &generator)!) }
            let b = (0..<count).map { _ in UInt8([0, 1].randomElement(using: &generator)!) }
            XCTAssertEqual(Int(columnar_mask_count(a, UInt64(count))), a.filter { $0 != 0 }.count, "count of \(count)")
            var and = a
            columnar_mask_and(&and, b, UInt64(count))
            XCTAssertEqual(and, zip(a, b).map { $0 != 0 && $1 != 0 ? 1 : 0 })
            var or = a
            columnar_mask_or(&or, b, UInt64(count))
            XCTAssertEqual(or, zip(a, b).map { $0 != 0 || $1 != 0 ? 1 : 0 })
            var not = a
            columnar_mask_not(&not, UInt64(count))
            XCTAssertEqual(not, a.map { $0 == 0 ? 1 : 0 })
        }
    }

    // MARK: - LIKE and case folding, by hand

    func testLikeMatchesWholeValuesWithQuestionMarkAsOneUTF8Character() throws {
        let rows = ["", "a", "abc", "aXc", "é", "€", "日本", "a*c", "a?c", "ABC", "K", "\u{212A}", "héllo", "abcabc",
                    "€a€", "x€a€"]
        let longRow = String(repeating: "x", count: 40) + "abc"
        for includeLong in [false, true] {
            let all = includeLong ? rows + [longRow] : rows
            let (table, column) = try db.write { txn -> (TableID, ColumnID) in
                let table = try txn.addTable(includeLong ? "long" : "short")
                let column = try txn.addColumn(table, "text", COLUMNAR_TYPE_STRING, nullable: true)
                for text in all { try txn.set(table, try txn.createObject(table), column, .string(text)) }
                try txn.set(table, try txn.createObject(table), column, .null)
                return (table, column)
            }
            // Results are keyed by UTF-8 bytes: Swift's String equality would merge "K" with the Kelvin sign,
            // which is canonically equivalent to it but a different value here.
            let nullRow: [UInt8] = [0xFF]
            func matching(_ pattern: String, fold: Bool = false) throws -> [[UInt8]: UInt8] {
                var result: [[UInt8]: UInt8] = [:]
                try db.read { txn in
                    var mask = [UInt8](repeating: 0, count: Self.maxRows)
                    try txn.forEachScannedCluster(table) { scan, _, keys in
                        var view = try self.view(scan, column)
                        XCTAssertEqual(view.values.encoding == COLUMNAR_ENCODING_SHORT_STRINGS, !includeLong)
                        let bytes = Array(pattern.utf8)
                        try check(withNonNullBytes(bytes) {
                            columnar_kernel_match_string(&view, COLUMNAR_STRING_LIKE, $0, $1, false,
                                                         fold ? UInt32(COLUMNAR_STRING_FOLD_ASCII_CASE) : 0, &mask)
                        })
                        for (row, key) in keys.enumerated() {
                            let value = try txn.get(table, key, column)
                            result[Self.bytesOf(value) ?? nullRow] = mask[row]
                        }
                    }
                }
                return result
            }
            func matched(_ result: [[UInt8]: UInt8], _ value: UInt8 = 1) -> Set<[UInt8]> {
                Set(result.filter { $0.value == value }.keys)
            }
            func values(_ texts: [String]) -> Set<[UInt8]> { Set(texts.map { Array($0.utf8) }) }
            let long = includeLong ? [longRow] : []
            XCTAssertEqual(matched(try matching("?")), values(["a", "é", "€", "K", "\u{212A}"]))
            XCTAssertEqual(matched(try matching("??")), values(["日本"]), "é is one character of two bytes")
            XCTAssertEqual(matched(try matching("*??")),
                           values(["abc", "aXc", "日本", "a*c", "a?c", "ABC", "héllo", "abcabc", "€a€", "x€a€"] + long),
                           "€ (three bytes) is one character")
            XCTAssertEqual(matched(try matching("a*c")), values(["abc", "aXc", "a*c", "a?c", "abcabc"]))
            XCTAssertEqual(matched(try matching("a?c")), values(["abc", "aXc", "a*c", "a?c"]))
            XCTAssertEqual(matched(try matching("*")), values(all), "* matches every value, the empty one too")
            XCTAssertEqual(matched(try matching("")), values([""]))
            XCTAssertEqual(matched(try matching("h?llo")), values(["héllo"]))
            XCTAssertEqual(matched(try matching("*abc")), values(["abc", "abcabc"] + long))
            // After a mismatch the `*` takes one more whole character, never part of one: "€a€" has one character
            // before its "a", not two.
            XCTAssertEqual(matched(try matching("*??a?")), values(["x€a€"]))
            XCTAssertEqual(try matching("*")[nullRow], 0, "a null row matches no pattern")
            // ASCII folding: non-ASCII rows are left to the caller.
            let folded = try matching("A*C", fold: true)
            XCTAssertEqual(matched(folded), values(["abc", "aXc", "a*c", "a?c", "ABC", "abcabc"]))
            XCTAssertEqual(matched(folded, 2), values(["é", "€", "日本", "\u{212A}", "héllo", "€a€", "x€a€"]))
            XCTAssertEqual(folded[Array("K".utf8)], 0)
            XCTAssertEqual(folded[nullRow], 0)
            let nonASCIINeedle = try matching("é", fold: true)
            XCTAssertEqual(matched(nonASCIINeedle, 2), values(all), "a non-ASCII pattern leaves every row undecided")
        }
    }

    // MARK: - Search index

    /// The inverse of SplitMix64's finaliser (index.c hashes an int with it): an int whose hash is `hash`.
    private static func unmix(_ hash: UInt64) -> UInt64 {
        func inverse(_ odd: UInt64) -> UInt64 {
            var x = odd
            for _ in 0..<6 { x = x &* (2 &- odd &* x) }
            return x
        }
        var x = hash
        x = x ^ (x >> 31) ^ (x >> 62)
        x = x &* inverse(0x94D0_49BB_1331_11EB)
        x = x ^ (x >> 27) ^ (x >> 54)
        x = x &* inverse(0xBF58_476D_1CE4_E5B9)
        x = x ^ (x >> 30) ^ (x >> 60)
        return x
    }

    /// index.c's hash of a null value.
    private static let nullHash: UInt64 = 0x6E75_6C6C_0000_0001

    func testIndexFindAllReturnsExactlyTheObjectsAScanFinds() throws {
        var generator = makeSeededGenerator()
        let colliding = Int64(bitPattern: Self.unmix(Self.nullHash))
        XCTAssertEqual(SeededGenerator.mix(UInt64(bitPattern: colliding)), Self.nullHash,
                       "the value's hash is the null hash, so both share one index entry")
        let names = ["", "a", "anna", "Anna", String(repeating: "long name ", count: 5), "é"]
        let (table, number, name) = try db.write { txn -> (TableID, ColumnID, ColumnID) in
            let table = try txn.addTable("people")
            let number = try txn.addColumn(table, "number", COLUMNAR_TYPE_INT, nullable: true, indexed: true)
            let name = try txn.addColumn(table, "name", COLUMNAR_TYPE_STRING, indexed: true)
            for _ in 0..<1_500 {
                let key = try txn.createObject(table)
                let choice = Int.random(in: 0..<30, using: &generator)
                let value: Value = choice < 3 ? .null : choice < 6 ? .int(colliding) : .int(Int64(choice % 12))
                try txn.set(table, key, number, value)
                try txn.set(table, key, name, .string(names.randomElement(using: &generator)!))
            }
            return (table, number, name)
        }
        func checkAll(_ txn: Transaction) throws {
            let numbers: [Value] = [.null, .int(colliding), .int(0), .int(5), .int(11), .int(99)]
            for target in numbers {
                try assertFindAll(txn, table, number, target, COLUMNAR_TYPE_INT)
            }
            for target in names + ["absent"] {
                try assertFindAll(txn, table, name, .string(target), COLUMNAR_TYPE_STRING)
            }
        }
        try db.read(checkAll)
        // Within a write transaction, with private index entries and private clusters.
        let txn = try db.beginWrite()
        defer { txn.rollback() }
        for key in try txn.keys(table).shuffled(using: &generator).prefix(200) {
            try txn.set(table, key, number, Bool.random(using: &generator) ? .null : .int(5))
            try txn.set(table, key, name, .string("anna"))
        }
        try checkAll(txn)
        // Misuse: a column without an index, a value of another type.
        let plain = try txn.addColumn(table, "plain", COLUMNAR_TYPE_INT)
        var count = 0
        var value = columnar_value()
        value.type = COLUMNAR_TYPE_INT
        XCTAssertEqual(columnar_index_find_all(txn.handle, table, plain, &value, nil, 0, &count), COLUMNAR_EMISUSE)
        value.type = COLUMNAR_TYPE_STRING
        XCTAssertEqual(columnar_index_find_all(txn.handle, table, number, &value, nil, 0, &count), COLUMNAR_ETYPE)
    }

    /// columnar_index_find_all's keys equal the keys whose value a scan's EQ kernel matches; a buffer that is too
    /// small still reports the full count.
    private func assertFindAll(_ txn: Transaction, _ table: TableID, _ column: ColumnID, _ target: Value,
                               _ type: columnar_type, file: StaticString = #filePath, line: UInt = #line) throws {
        var expected: [ObjectKey] = []
        var mask = [UInt8](repeating: 0, count: Self.maxRows)
        try txn.forEachScannedCluster(table) { scan, _, keys in
            var view = try self.view(scan, column)
            switch target {
            case .null: columnar_kernel_is_null(&view, &mask)
            case .int(let x): columnar_kernel_compare_int(&view, COLUMNAR_COMPARE_EQ, x, false, &mask)
            case .string(let text):
                let bytes = Array(text.utf8)
                try check(withNonNullBytes(bytes) {
                    columnar_kernel_match_string(&view, COLUMNAR_STRING_EQ, $0, $1, false, 0, &mask)
                })
            default: XCTFail("unexpected target \(target)")
            }
            for (row, key) in keys.enumerated() where mask[row] == 1 { expected.append(key) }
        }
        var count = 0
        var keys = [ObjectKey](repeating: -1, count: max(expected.count, 1))
        let capacity = keys.count
        try target.withCValue(type: type) { value in
            try check(columnar_index_find_all(txn.handle, table, column, value, &keys, capacity, &count),
                      "columnar_index_find_all \(target)")
        }
        XCTAssertEqual(count, expected.count, "number of objects with \(target)", file: file, line: line)
        XCTAssertEqual(Array(keys.prefix(count)), expected, "objects with \(target), ascending", file: file, line: line)
        if expected.count > 2 {
            var few = [ObjectKey](repeating: -1, count: 2)
            try target.withCValue(type: type) { value in
                try check(columnar_index_find_all(txn.handle, table, column, value, &few, 2, &count))
            }
            XCTAssertEqual(count, expected.count, "the full count with a small buffer", file: file, line: line)
            XCTAssertEqual(few, Array(expected.prefix(2)), file: file, line: line)
        }
    }

    // MARK: - Limits and misuse

    func testTheLargestPrivateClusterFitsAMaskOfMaxRows() throws {
        let maxRows = Self.maxRows
        XCTAssertEqual(UInt64(maxRows), 4 * UInt64(COLUMNAR_MAX_CLUSTER_SIZE))
        let big = try TestDatabase(path: directory.file("big.columnar"), durability: COLUMNAR_DURABILITY_UNSAFE,
                                   clusterSize: COLUMNAR_MAX_CLUSTER_SIZE)
        defer { big.close() }
        let txn = try big.beginWrite()
        defer { txn.rollback() }
        let table = try txn.addTable("big")
        let column = try txn.addColumn(table, "value", COLUMNAR_TYPE_INT)
        // Appending grows one private leaf up to the split threshold: exactly max_rows rows.
        for _ in 0..<maxRows { _ = try txn.createObject(table) }
        try txn.set(table, 5, column, .int(3))
        func clusterSizes() throws -> [Int] {
            var sizes: [Int] = []
            var mask = [UInt8](repeating: 0, count: maxRows)
            var matches = 0
            try txn.forEachScannedCluster(table) { scan, cluster, _ in
                sizes.append(Int(cluster.row_count))
                var view = try self.view(scan, column)
                columnar_kernel_compare_int(&view, COLUMNAR_COMPARE_EQ, 3, false, &mask)
                matches += Int(columnar_mask_count(mask, view.count))
            }
            XCTAssertEqual(matches, 1)
            return sizes
        }
        XCTAssertEqual(try clusterSizes(), [maxRows], "a private leaf reaches max_rows before it splits")
        _ = try txn.createObject(table)
        let sizes = try clusterSizes()
        XCTAssertEqual(sizes.count, 2, "one more row splits it")
        XCTAssertEqual(sizes.reduce(0, +), maxRows + 1)
    }

    func testScanMisuseAndTheEndOfAScanAreReported() throws {
        var generator = makeSeededGenerator()
        let (table, _) = try buildTable(rowCount: 100, generator: &generator)
        try db.read { txn in
            var scan: OpaquePointer?
            try check(columnar_scan_open(txn.handle, table.table, &scan))
            defer { columnar_scan_close(scan) }
            var view = columnar_column_view()
            XCTAssertEqual(columnar_scan_column(scan, table.column("int").id, &view), COLUMNAR_EMISUSE,
                           "no current cluster yet")
            var cluster = columnar_cluster()
            try check(columnar_scan_next(scan, &cluster))
            XCTAssertEqual(columnar_scan_column(scan, table.list, &view), COLUMNAR_EMISUSE, "a collection column")
            XCTAssertEqual(columnar_scan_column(scan, 999, &view), COLUMNAR_ENOTFOUND)
            while columnar_scan_next(scan, &cluster) == COLUMNAR_OK {}
            XCTAssertEqual(columnar_scan_next(scan, &cluster), COLUMNAR_ENOTFOUND, "the end is reported again")
            XCTAssertEqual(columnar_scan_column(scan, table.column("int").id, &view), COLUMNAR_EMISUSE,
                           "no current cluster after the end")
            var missing: OpaquePointer?
            XCTAssertEqual(columnar_scan_open(txn.handle, 999, &missing), COLUMNAR_ENOTFOUND)
            XCTAssertNil(missing)
        }
        // A table without objects has no clusters.
        let empty = try db.write { try $0.addTable("empty") }
        try db.read { txn in
            var clusters = 0
            try txn.forEachScannedCluster(empty) { _, _, _ in clusters += 1 }
            XCTAssertEqual(clusters, 0)
        }
    }

    // MARK: - Damaged files

    /// Little-endian u64 at `offset` of `bytes`.
    private static func u64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }

    private static func setU64(_ bytes: inout [UInt8], _ offset: Int, _ value: UInt64) {
        for index in 0..<8 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
    }

    /// Child `index` of the REFS node at `ref`.
    private static func child(_ bytes: [UInt8], _ ref: UInt64, _ index: Int) -> UInt64 {
        u64(bytes, Int(ref) + 16 + 8 * index)
    }

    func testDamagedNodesGiveCorruptErrorsNotCrashes() throws {
        var generator = makeSeededGenerator()
        let (table, number, text) = try db.write { txn -> (TableID, ColumnID, ColumnID) in
            let table = try txn.addTable("damaged")
            let number = try txn.addColumn(table, "number", COLUMNAR_TYPE_INT, nullable: true)
            let text = try txn.addColumn(table, "text", COLUMNAR_TYPE_STRING)
            for row in 0..<2_000 {
                let key = try txn.createObject(table)
                try txn.set(table, key, number, row % 5 == 0 ? .null : .int(Int64(row) * 1000))
                // Clusters of short strings, then clusters of long ones (row / 64 picks the form).
                let length = (row / 64) % 2 == 0 ? Int.random(in: 0...10, using: &generator)
                                                : Int.random(in: 40...90, using: &generator)
                try txn.set(table, key, text, .string(String(repeating: "t", count: length)))
            }
            return (table, number, text)
        }
        // Made durable, and one more commit, so the nodes damaged below are not among the ranges the latest commit
        // record lists (this database commits without waiting for syncs): damage there would read as a write torn
        // by a crash, and the file would open at the version before.
        try db.sync()
        try db.write { txn in _ = try txn.addTable("later") }
        // Where the nodes are: the committed clusters (from a scan) and the tree's root (from the file's header).
        var clusterRefs: [UInt64] = []
        try db.read { txn in
            try txn.forEachScannedCluster(table) { _, cluster, _ in clusterRefs.append(cluster.ref) }
        }
        db.close()
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let topRef = try FileHeader.currentTopRef(path: path)
        let tableRef = Self.child(original, Self.child(original, topRef, 2), Int(table))
        let rootRef = Self.child(original, tableRef, 1)
        XCTAssertEqual(original[Int(rootRef) + 6], 10, "the root is an INNER node (role 10)")
        let cluster = clusterRefs[3]
        let numberLeaf = Self.child(original, cluster, Int(number) + 1)
        let numberValues = Self.child(original, numberLeaf, 0)
        let shortLeaf = Self.child(original, clusterRefs[0], Int(text) + 1)
        let longLeaf = Self.child(original, clusterRefs[1], Int(text) + 1)
        XCTAssertEqual(original[Int(Self.child(original, shortLeaf, 0)) + 4], 7, "cluster 0 holds short strings")
        XCTAssertEqual(original[Int(Self.child(original, longLeaf, 0)) + 4], 1, "cluster 1 holds offsets")

        let variants: [(String, (inout [UInt8]) -> Void)] = [
            ("a values node with an invalid encoding", { $0[Int(numberValues) + 4] = 0x63 }),
            ("a column leaf ref pointing into the file header", {
                Self.setU64(&$0, Int(cluster) + 16 + 8 * (Int(number) + 1), 64) }),
            ("a null bitmap with the wrong count", {
                let nulls = Self.child($0, numberLeaf, 1)
                $0[Int(nulls) + 8] = 3 }),
            ("a cluster's keys ref misaligned", {
                let keys = Self.child($0, cluster, 0)
                Self.setU64(&$0, Int(cluster) + 16, keys + 3) }),
            ("an inner node reaching one cluster twice", {
                let first = Self.child($0, rootRef, 1)
                Self.setU64(&$0, Int(rootRef) + 16 + 8 * 3, first) }),
            ("a short string whose length byte is too large", {
                let slots = Self.child($0, shortLeaf, 0)
                let width = Int($0[Int(slots) + 5])
                $0[Int(slots) + 16 + 2 * width - 1] = 0xFF }),
            ("a string end offset past its blob", {
                let offsets = Self.child($0, longLeaf, 0)
                let widthBytes = Int($0[Int(offsets) + 5]) / 8
                // Element 4 becomes the width's largest positive value.
                for index in 0..<widthBytes {
                    $0[Int(offsets) + 16 + 4 * widthBytes + index] = index == widthBytes - 1 ? 0x7F : 0xFF
                }
            }),
        ]
        for (name, damage) in variants {
            var bytes = original
            damage(&bytes)
            let damagedPath = directory.file("damaged.columnar")
            try? FileManager.default.removeItem(atPath: damagedPath)
            try? FileManager.default.removeItem(atPath: damagedPath + ".lock")
            try Data(bytes).write(to: URL(fileURLWithPath: damagedPath))
            let damaged = try TestDatabase(path: damagedPath, flags: [])
            defer { damaged.close() }
            let codes = try damaged.read { txn in scanEverything(txn, table, [number, text]) }
            XCTAssertTrue(codes.contains(COLUMNAR_ECORRUPT), "\(name): got \(codes.map(errorName))")
            XCTAssertTrue(codes.allSatisfy { $0 == COLUMNAR_ECORRUPT }, "\(name): only corruption is reported, got "
                          + "\(codes.map(errorName))")
        }
    }

    /// Scans every cluster and runs a kernel of every kind on each column; returns the error codes met (the scan
    /// stops at an error of columnar_scan_next).
    private func scanEverything(_ txn: Transaction, _ table: TableID, _ columns: [ColumnID]) -> [Int32] {
        var codes: [Int32] = []
        var scan: OpaquePointer?
        let rc = columnar_scan_open(txn.handle, table, &scan)
        if rc != COLUMNAR_OK { return [rc] }
        defer { columnar_scan_close(scan) }
        var mask = [UInt8](repeating: 0, count: Self.maxRows)
        while true {
            var cluster = columnar_cluster()
            let rc = columnar_scan_next(scan, &cluster)
            if rc == COLUMNAR_ENOTFOUND { break }
            if rc != COLUMNAR_OK {
                codes.append(rc)
                var again = columnar_cluster()
                XCTAssertEqual(columnar_scan_next(scan, &again), rc, "a failed scan keeps failing")
                break
            }
            for column in columns {
                var view = columnar_column_view()
                let rc = columnar_scan_column(scan, column, &view)
                if rc != COLUMNAR_OK {
                    codes.append(rc)
                    continue
                }
                var aggregate = columnar_aggregate()
                columnar_kernel_compare_int(&view, COLUMNAR_COMPARE_GT, 5, false, &mask)
                columnar_kernel_is_null(&view, &mask)
                columnar_kernel_aggregate(&view, nil, &aggregate)
                let needle = Array("t*".utf8)
                let stringRC = columnar_kernel_match_string(&view, COLUMNAR_STRING_LIKE, needle, needle.count, false,
                                                            0, &mask)
                if view.type == COLUMNAR_TYPE_STRING && stringRC != COLUMNAR_OK { codes.append(stringRC) }
                for row in 0..<view.count where view.type == COLUMNAR_TYPE_STRING {
                    var data: UnsafeRawPointer?
                    var size = 0
                    var isNull = false
                    let rc = columnar_view_get_bytes(&view, row, &data, &size, &isNull)
                    if rc != COLUMNAR_OK {
                        codes.append(rc)
                        break
                    }
                }
            }
        }
        return codes
    }
}
