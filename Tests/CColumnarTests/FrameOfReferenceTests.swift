// FrameOfReferenceTests.swift — packed ints with a base (format version 4; FileFormat.md, "Frame of reference"):
// object keys, ids and index keys far from zero are stored as small elements plus a base, and every reader adds it
// back. Checked against a plain Swift model through row reads, primary-key lookups, the scan kernels and verify,
// before and after a reopen; a file of format version 2 is still written without bases, and a base in one is
// damage; so is a base where the format allows none.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class FrameOfReferenceTests: DatabaseTestCase {
    override var databaseName: String { "frame-of-reference" }

    private static let firstId: Int64 = 50_000_000
    private static let objectCount = 3_000

    private struct Schema {
        var table: TableID = 0, id: ColumnID = 0, score: ColumnID = 0, maybe: ColumnID = 0
    }

    /// A table whose int primary key `id` runs up from 50,000,000, with a `score` near -3,000,000 and a nullable
    /// `maybe`; returns the model of each object's values.
    private func fill(_ database: TestDatabase, _ random: inout SeededGenerator) throws
        -> (Schema, [ObjectKey: [Int64?]]) {
        var schema = Schema()
        var model: [ObjectKey: [Int64?]] = [:]
        try database.write { txn in
            schema.table = try txn.addTable("items")
            schema.id = try txn.addColumn(schema.table, "id", COLUMNAR_TYPE_INT)
            try txn.setPrimaryKey(schema.table, column: schema.id)
            schema.score = try txn.addColumn(schema.table, "score", COLUMNAR_TYPE_INT)
            schema.maybe = try txn.addColumn(schema.table, "maybe", COLUMNAR_TYPE_INT, nullable: true)
            for i in 0..<Self.objectCount {
                let id = Self.firstId + Int64(i)
                let key = try txn.createObject(schema.table, primaryKey: .int(id))
                let score = -3_000_000 + Int64.random(in: 0...200, using: &random)
                let maybe: Int64? = Int.random(in: 0..<5, using: &random) == 0
                    ? nil : 700_000 + Int64.random(in: 0...60_000, using: &random)
                try txn.set(schema.table, key, schema.score, .int(score))
                try txn.set(schema.table, key, schema.maybe, maybe.map(Value.int) ?? .null)
                model[key] = [id, score, maybe]
            }
        }
        return (schema, model)
    }

    /// Every object's values through row reads, the primary-key index and the scan kernels' decoding, and the
    /// kernels' comparisons and aggregates, against the model.
    private func assertMatches(_ database: TestDatabase, _ schema: Schema, _ model: [ObjectKey: [Int64?]],
                               _ context: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let columns = [schema.id, schema.score, schema.maybe]
        try database.read { txn in
            XCTAssertEqual(try txn.keys(schema.table), model.keys.sorted(), context, file: file, line: line)
            for (key, values) in model {
                for (column, value) in zip(columns, values) {
                    XCTAssertEqual(try txn.get(schema.table, key, column), value.map(Value.int) ?? .null,
                                   "\(context): object \(key) column \(column)", file: file, line: line)
                }
                XCTAssertEqual(try txn.findPrimaryKey(schema.table, .int(values[0]!)), key,
                               "\(context): lookup of \(values[0]!)", file: file, line: line)
            }
            for absent: Int64 in [Self.firstId - 1, Self.firstId + Int64(Self.objectCount) + 10, 0, .min, .max,
                                  Self.firstId - 129, Self.firstId + 1 << 31] {
                XCTAssertNil(try txn.findPrimaryKey(schema.table, .int(absent)), "\(context): \(absent) is absent",
                             file: file, line: line)
            }
            // The kernels, cluster by cluster: decode, compare with constants around each value, aggregate.
            var scanned: [ColumnID: [ObjectKey: Int64?]] = [:]
            var sums: [ColumnID: Int128] = [:], counts: [ColumnID: UInt64] = [:]
            var minimums: [ColumnID: Int64] = [:], maximums: [ColumnID: Int64] = [:]
            var scanPointer: OpaquePointer?
            try check(columnar_scan_open(txn.handle, schema.table, &scanPointer), "columnar_scan_open")
            let scan = scanPointer!
            defer { columnar_scan_close(scan) }
            var cluster = columnar_cluster()
            while columnar_scan_next(scan, &cluster) == COLUMNAR_OK {
                let rows = Int(cluster.row_count)
                let keys = (0..<rows).map { columnar_array_get_int(&cluster.keys, UInt64($0)) }
                for column in columns {
                    var view = columnar_column_view()
                    try check(columnar_scan_column(scan, column, &view), "columnar_scan_column")
                    var values = [Int64](repeating: 0, count: rows), nulls = [UInt8](repeating: 0, count: rows)
                    columnar_view_decode_int(&view, &values, &nulls)
                    for row in 0..<rows {
                        scanned[column, default: [:]][keys[row]] = .some(nulls[row] != 0 ? nil : values[row])
                    }
                    let present = (0..<rows).compactMap { nulls[$0] != 0 ? nil : values[$0] }
                    let near = present.prefix(3) + present.suffix(2).map { $0 &+ 1 }
                        + present.prefix(1).map { $0 &- 200 }
                    for constant in Set(near) {
                        var mask = [UInt8](repeating: 9, count: rows)
                        columnar_kernel_compare_int(&view, COLUMNAR_COMPARE_LT, constant, false, &mask)
                        let expected = (0..<rows).map { nulls[$0] == 0 && values[$0] < constant ? UInt8(1) : 0 }
                        XCTAssertEqual(mask, expected, "\(context): column \(column) < \(constant)", file: file,
                                       line: line)
                        columnar_kernel_compare_int(&view, COLUMNAR_COMPARE_EQ, constant, false, &mask)
                        XCTAssertEqual(mask, (0..<rows).map { nulls[$0] == 0 && values[$0] == constant ? 1 : 0 },
                                       "\(context): column \(column) == \(constant)", file: file, line: line)
                    }
                    var aggregate = columnar_aggregate()
                    columnar_kernel_aggregate(&view, nil, &aggregate)
                    counts[column, default: 0] += aggregate.count
                    if aggregate.count > 0 {
                        sums[column, default: 0] += Int128(aggregate.int_sum_high) << 64 | Int128(aggregate.int_sum_low)
                        minimums[column] = Swift.min(minimums[column] ?? .max, aggregate.int_min)
                        maximums[column] = Swift.max(maximums[column] ?? .min, aggregate.int_max)
                    }
                }
            }
            for (index, column) in columns.enumerated() {
                let expected = model.mapValues { $0[index] }
                XCTAssertEqual(scanned[column], expected, "\(context): column \(column) decoded", file: file,
                               line: line)
                let present = expected.values.compactMap { $0 }
                XCTAssertEqual(counts[column], UInt64(present.count), "\(context): count", file: file, line: line)
                XCTAssertEqual(sums[column], present.reduce(Int128(0)) { $0 + Int128($1) }, "\(context): sum",
                               file: file, line: line)
                XCTAssertEqual(minimums[column], present.min(), "\(context): min", file: file, line: line)
                XCTAssertEqual(maximums[column], present.max(), "\(context): max", file: file, line: line)
            }
            XCTAssertVerifies(txn, context, file: file, line: line)
        }
    }

    /// Every live packed-int node of the file at `path` with its base.
    private func packedNodes(_ path: String) throws -> [(node: LiveNode, base: Int32)] {
        let structure = try FileStructure.read(path)
        XCTAssertTrue(structure.damage.isEmpty, "\(structure.damage)")
        var opened: OpaquePointer?
        try check(columnar_inspector_open(path, &opened), "columnar_inspector_open")
        defer { columnar_inspector_close(opened) }
        return try structure.nodes.filter { $0.encoding == COLUMNAR_ENCODING_PACKED_INT }.map { node in
            var detail = columnar_inspect_node_detail()
            try check(columnar_inspect_node_decode(opened, node.ref, &detail), "decode \(node.ref)")
            return (node, detail.base)
        }
    }

    private func formatVersion(_ path: String) throws -> UInt8 { try FileSurgery.read(path, at: 8, count: 1)[0] }

    func testKeysAndValuesFarFromZeroAreStoredNarrowWithABaseAndReadBack() throws {
        var random = makeSeededGenerator()
        let (schema, filled) = try fill(db, &random)
        var model = filled
        XCTAssertEqual(try formatVersion(path), 4)
        try assertMatches(db, schema, model, "after the insert")

        let nodes = try packedNodes(path)
        let clusterKeys = nodes.filter { $0.node.what == "cluster keys" && !$0.node.inIndex && $0.node.count > 1 }
        XCTAssertFalse(clusterKeys.isEmpty)
        // Keys 0 ..< 3,000 need 16 bits plainly from the second cluster on; each cluster's 256 fit in 8 with a base.
        XCTAssertTrue(clusterKeys.allSatisfy { $0.node.width <= 8 }, "\(clusterKeys.map { $0.node.width })")
        XCTAssertGreaterThan(clusterKeys.filter { $0.base != 0 }.count, 5)
        // The ids (50,000,000 and up) need 32 bits plainly; a cluster's 256 consecutive ids fit in 8 with a base.
        let ids = nodes.filter { $0.node.table == schema.table && $0.node.column == schema.id && !$0.node.inIndex
            && $0.node.what == "values" }
        XCTAssertFalse(ids.isEmpty)
        XCTAssertTrue(ids.allSatisfy { $0.node.width == 8 && $0.base != 0 }, "\(ids.map { ($0.node.width, $0.base) })")
        // The primary-key index's keys are the ids too.
        let indexKeys = nodes.filter { $0.node.inIndex && $0.node.role == 12 && $0.node.parentRole == 11
            && $0.node.count > 1 }
        XCTAssertFalse(indexKeys.isEmpty)
        XCTAssertTrue(indexKeys.allSatisfy { $0.node.width == 8 && $0.base != 0 })
        // No base outside what the format allows: keys and the values of Int columns.
        for (node, base) in nodes where base != 0 {
            let intValues = node.role == 14 && node.roleDetail == UInt8(COLUMNAR_TYPE_INT.rawValue)
            XCTAssertTrue(node.role == 12 || intValues, "a base on \(node.what) (role \(node.role))")
            XCTAssertTrue([8, 16, 32].contains(node.width))
        }

        // Values that no longer fit a base (Int64.max beside small ones), deletions, and values near the edges of a
        // based node's range.
        try db.write { txn in
            let keys = model.keys.sorted()
            for (n, key) in keys.enumerated() where n % 7 == 0 {
                try txn.deleteObject(schema.table, key)
                model[key] = nil
            }
            for key in keys where model[key] != nil && key % 11 == 0 {
                let score: Int64 = key % 22 == 0 ? .max : .min
                try txn.set(schema.table, key, schema.score, .int(score))
                model[key]![1] = score
            }
            for key in keys where model[key] != nil && key % 13 == 0 {
                try txn.set(schema.table, key, schema.maybe, .int(-3_000_000 + 255))
                model[key]![2] = -3_000_000 + 255
            }
        }
        try assertMatches(db, schema, model, "after the changes")
        try reopen()
        try assertMatches(db, schema, model, "after a reopen")
    }

    /// Makes the test's new file a version 2 file: its identity says 2 (its first version holds no node a base
    /// could narrow), and it is open again.
    private func makeVersionTwo() throws {
        db.close()
        var identity = try FileSurgery.read(path, at: 0, count: 512)
        XCTAssertEqual(identity[8], 4)
        identity[8] = 2
        let crc = Self.crc32c(identity[0..<508])
        identity.replaceSubrange(508..<512, with: (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) })
        try FileSurgery.write(path, at: 0, identity)
        try reopen()
    }

    /// The first live packed-int node of the test file that is `what` ("values", "null bitmap") of `column`.
    private func packedNode(_ what: String, of column: ColumnID, in schema: Schema) throws -> LiveNode {
        let found = try packedNodes(path).first {
            $0.node.table == schema.table && $0.node.column == column && $0.node.what == what
        }
        return try XCTUnwrap(found, "no \(what) node of column \(column)").node
    }

    /// Writes `base` into the header of `node` and makes its checksum right again, so that only the base is wrong.
    private func setBase(_ base: Int32, of node: LiveNode) throws {
        try FileSurgery.write(path, at: node.ref + 12, (0..<4).map { UInt8(truncatingIfNeeded: base >> (8 * $0)) })
        let covered = try FileSurgery.read(path, at: node.ref + 4, count: 12 + Int(node.payloadBytes))
        let crc = Self.crc32c(ArraySlice(covered))
        try FileSurgery.write(path, at: node.ref, (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) })
    }

    func testAVersionTwoFileIsWrittenWithoutBases() throws {
        try makeVersionTwo()
        var random = makeSeededGenerator()
        let (schema, model) = try fill(db, &random)
        try assertMatches(db, schema, model, "a version 2 file")
        db.close()
        XCTAssertEqual(try formatVersion(path), 2, "the file keeps its version")
        let based = try packedNodes(path).filter { $0.base != 0 }
        XCTAssertTrue(based.isEmpty, "a version 2 file got bases: \(based.map { $0.node.what })")
        try reopen()
        try assertMatches(db, schema, model, "a version 2 file, reopened")
    }

    func testABaseInAVersionTwoFileIsDamage() throws {
        // In a version 2 file the header bytes a base occupies were reserved and zero, even where version 4 would
        // allow a base (an Int column's values): a non-zero value there is damage, not a base to add to every value,
        // even with the node's checksum made to match (ordinary reads do not compute it).
        try makeVersionTwo()
        try assertBaseRefused(7, in: "values", of: \.score, readError: "format version 2 or 3", finding: "base 7")
    }

    func testABaseWhereTheFormatAllowsNoneIsDamage() throws {
        // The nullable column's null flags: a base there would change which rows read as null.
        try assertBaseRefused(1, in: "null bitmap", of: \.maybe, readError: "base 1", finding: "base")
    }

    /// Fills the table, writes `base` into the header of the `what` node of one of its columns (its checksum made
    /// right again, so that only the base is wrong), and asserts that reads and verify refuse it.
    private func assertBaseRefused(_ base: Int32, in what: String, of column: KeyPath<Schema, ColumnID>,
                                   readError: String, finding: String, file: StaticString = #filePath,
                                   line: UInt = #line) throws {
        var random = makeSeededGenerator()
        let (schema, model) = try fill(db, &random)
        // The file is changed under the open handle, whose mapping sees the change: a reopen would instead find
        // the version's commit record failing and open the version before it (CommitPath.md, "Recovery").
        let node = try packedNode(what, of: schema[keyPath: column], in: schema)
        try setBase(base, of: node)
        try assertRefused(node, column: schema[keyPath: column], schema: schema, keys: model.keys.sorted(),
                          readError: readError, finding: finding, file: file, line: line)
    }

    /// Asserts that reading `column` of every object fails with COLUMNAR_ECORRUPT mentioning `readError` (the
    /// damaged `node` is among its leaves), that other columns still read, and that verify reports the node with a
    /// finding mentioning `finding`.
    private func assertRefused(_ node: LiveNode, column: ColumnID, schema: Schema, keys: [ObjectKey],
                               readError: String, finding: String, file: StaticString = #filePath,
                               line: UInt = #line) throws {
        XCTAssertThrowsError(try db.read { txn in
            for key in keys { _ = try txn.get(schema.table, key, column) }
        }, file: file, line: line) { error in
            let engine = error as? EngineError
            XCTAssertEqual(engine?.code, COLUMNAR_ECORRUPT, "\(error)", file: file, line: line)
            XCTAssertTrue(engine?.message.contains(readError) ?? false, engine?.message ?? "", file: file, line: line)
        }
        try db.read { txn in
            let key = try XCTUnwrap(keys.first, file: file, line: line)
            XCTAssertEqual(try txn.get(schema.table, key, schema.id), .int(Self.firstId), "other columns still read",
                           file: file, line: line)
            let report = txn.verify()
            XCTAssertTrue(report.findings.contains { $0.ref == node.ref && $0.what.contains(finding) }, "\(report)",
                          file: file, line: line)
        }
    }

    /// CRC-32C (Castagnoli), as the file's checksums use it.
    private static func crc32c(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return ~crc
    }
}
