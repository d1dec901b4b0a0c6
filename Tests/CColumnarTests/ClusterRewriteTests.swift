// ClusterRewriteTests.swift — changing one value of an object copies its whole cluster into memory (every column
// of every row) and writes it again, so a value the transaction never touched passes through the decoder that
// materialises clusters and the encoder that writes them. Those neighbours must come back exactly as they were:
// checked here against a plain Swift model after many small commits, for a column of every scalar type (nullable
// and not), and for an int column whose clusters hold values of every packed width, with and without a base.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class ClusterRewriteTests: DatabaseTestCase {
    override var databaseName: String { "cluster-rewrite" }
    /// Small clusters: 160 objects make ten of them, each rewritten many times.
    override var clusterSize: UInt32 { 16 }

    private static let rowCount: UInt64 = 160
    private static let commitCount = 300

    /// The ranged column's value for generator row `row`: null for one row in eleven; else a value whose range is
    /// set by the row's group of 16 (two, four and sixteen values; hundreds; tens of thousands; two billion), so
    /// a cluster first filled from one group packs at one width, and every odd group lies four billion above zero,
    /// so its clusters carry a base.
    private static func rangedValue(_ row: UInt64) -> Int64? {
        if row % 11 == 0 { return nil }
        let group = row / 16
        let hash = SeededGenerator.mix(row &* 0x9E37_79B9_7F4A_7C15)
        let offset: Int64 = group % 2 == 1 ? 4_000_000_000 : 0
        switch group % 6 {
        case 0: return offset + Int64(hash % 2)
        case 1: return offset + Int64(hash % 4)
        case 2: return offset + Int64(hash % 16)
        case 3: return offset - 100 + Int64(hash % 201)
        case 4: return offset - 30_000 + Int64(hash % 60_001)
        default: return offset - 1_000_000_000 + Int64(hash % 2_000_000_001)
        }
    }

    private static func rangedCValue(_ row: UInt64) -> columnar_value {
        var value = columnar_value()
        value.type = COLUMNAR_TYPE_INT
        if let number = rangedValue(row) { value.as.i = number } else { value.is_null = true }
        return value
    }

    /// What each object holds: for every scalar column of the fixture and for the ranged column (last), the
    /// generator row whose value it was given.
    private typealias Model = [ObjectKey: [UInt64]]

    /// Reads every object's every checked value and compares it with the model; returns how many differ and the
    /// first ten.
    private func differences(_ txn: Transaction, fixture: AllTypesFixture, ranged: ColumnID, model: Model,
                             scratch: ValueScratch) throws -> (count: Int, first: [String]) {
        var found: [String] = []
        var count = 0
        func note(_ what: @autoclosure () -> String) {
            count += 1
            if found.count < 10 { found.append(what()) }
        }
        var expected = columnar_value()
        var actual = columnar_value()
        for (key, sources) in model.sorted(by: { $0.key < $1.key }) {
            for (index, column) in fixture.scalars.enumerated() {
                fixture.expectedValue(column, row: sources[index], into: &expected, scratch: scratch.bytes)
                try check(columnar_obj_get(txn.handle, fixture.table, key, column.id, &actual), "get \(column.name)")
                if !cValuesEqual(expected, actual) {
                    note("object \(key) \(column.name): expected \(Value(expected)), read \(Value(actual))")
                }
            }
            expected = Self.rangedCValue(sources[fixture.scalars.count])
            try check(columnar_obj_get(txn.handle, fixture.table, key, ranged, &actual), "get ranged")
            if !cValuesEqual(expected, actual) {
                note("object \(key) ranged: expected \(Value(expected)), read \(Value(actual))")
            }
        }
        return (count, found)
    }

    func testUntouchedValuesOfRewrittenClustersStayExact() throws {
        var random = makeSeededGenerator()
        let scratch = ValueScratch()
        var model: Model = [:]
        var fixture: AllTypesFixture!
        var ranged: ColumnID = 0
        try db.write { txn in
            fixture = try AllTypesFixture.create(in: txn, seed: random.next())
            ranged = try txn.addColumn(fixture.table, "ranged", COLUMNAR_TYPE_INT, nullable: true)
            for row in 0..<Self.rowCount {
                let key = try fixture.insertRow(row, txn: txn.handle, scratch: scratch)
                var value = Self.rangedCValue(row)
                try check(columnar_obj_set(txn.handle, fixture.table, key, ranged, &value), "set ranged")
                model[key] = Array(repeating: row, count: fixture.scalars.count + 1)
            }
        }
        let keys = model.keys.sorted()
        var value = columnar_value()
        for commit in 1...Self.commitCount {
            try db.write { txn in
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let key = keys.randomElement(using: &random)!
                    // Another generator row's value: rows beyond the table's spread the ranged column's groups
                    // (and so its widths and bases) over clusters first filled from other groups.
                    let source = UInt64.random(in: 0..<(2 * Self.rowCount), using: &random)
                    let index = Int.random(in: 0...fixture.scalars.count, using: &random)
                    if index == fixture.scalars.count {
                        value = Self.rangedCValue(source)
                        try check(columnar_obj_set(txn.handle, fixture.table, key, ranged, &value), "set ranged")
                    } else {
                        let column = fixture.scalars[index]
                        fixture.expectedValue(column, row: source, into: &value, scratch: scratch.bytes)
                        try check(columnar_obj_set(txn.handle, fixture.table, key, column.id, &value),
                                  "set \(column.name)")
                    }
                    model[key]![index] = source
                }
            }
            if commit % 25 == 0 || commit == Self.commitCount {
                try db.read { txn in
                    let found = try differences(txn, fixture: fixture, ranged: ranged, model: model, scratch: scratch)
                    XCTAssertEqual(found.count, 0, "after commit \(commit), values differ: \(found.first)")
                    XCTAssertVerifies(txn, "after commit \(commit)")
                }
            }
        }
        try reopen()
        try db.read { txn in
            let found = try differences(txn, fixture: fixture, ranged: ranged, model: model, scratch: scratch)
            XCTAssertEqual(found.count, 0, "after a reopen, values differ: \(found.first)")
        }
    }
}
