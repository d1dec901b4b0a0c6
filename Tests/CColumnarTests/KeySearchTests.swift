// KeySearchTests.swift — the searches inside committed clusters and inner nodes. A descent finds its child and its
// row by interpolating between a node's first and last keys before it halves, which is right for keys spread
// evenly and must stay right for any others: keys in runs far apart (a span wider than a multiplication of it by
// a row count can hold), keys growing as cubes, keys drawn from all 63 bits, dense keys with gaps. Each table is
// checked after its commit and after deletions, against a model, by whether each key and its neighbours exist,
// by reading each object's value, and by equality lookups of an indexed int column whose values are just as
// uneven (with the extremes of Int64; Int64.min shares its index key with null). Clusters have the default size,
// so that a search spans up to 256 keys. And a lookup whose key would name another value (a timestamp with
// nanoseconds out of their range) must not be trusted as exact.

import CColumnar
import ColumnarTestSupport
import XCTest

final class KeySearchTests: DatabaseTestCase {
    override var databaseName: String { "key-search" }

    private enum Spread: CaseIterable {
        case denseWithGaps, runsFarApart, cubes, fullRange

        /// Distinct object keys (0 ... Int64.max - 1) spread this way.
        func keys(count: Int, using random: inout SeededGenerator) -> [ObjectKey] {
            var keys = Set<ObjectKey>()
            switch self {
            case .denseWithGaps:
                for key in 0 ..< Int64(count * 2) where random.next() % 2 == 0 { keys.insert(key) }
            case .runsFarApart:
                let starts: [Int64] = [0, 1 << 20, 1 << 40, 1 << 62, Int64.max - 1 - Int64(count / 4)]
                for start in starts {
                    for offset in 0 ..< Int64(count / 5) { keys.insert(start + offset) }
                }
            case .cubes:
                for i in 0 ..< Int64(count) { keys.insert(i * i * i) }
            case .fullRange:
                while keys.count < count { keys.insert(Int64(random.next() % UInt64(Int64.max))) }
            }
            return keys.sorted()
        }
    }

    /// A value for an indexed column, as uneven as the keys: small ints, the extremes, large magnitudes, repeats,
    /// nulls (filed under the same index key as Int64.min).
    private func value(using random: inout SeededGenerator) -> Int64? {
        switch random.next() % 7 {
        case 6: return random.next() % 3 == 0 ? nil : Int64.min
        case 0: return Int64(random.next() % 50)
        case 1: return [Int64.min, Int64.min + 1, Int64.max, Int64.max - 1, -1].randomElement(using: &random)!
        case 2: return Int64(bitPattern: random.next())
        case 3: return -Int64(random.next() % 1_000_000)
        default: return Int64(random.next() % 5_000) * 1_000_003
        }
    }

    func testSearchesFindEveryKeyAndValueWhateverTheirSpread() throws {
        var random = SeededGenerator(seed: 0x6B65_7973)
        for spread in Spread.allCases {
            let name = "\(spread)"
            let keys = spread.keys(count: 6_000, using: &random)
            var model: [ObjectKey: Int64?] = [:]
            let (table, column) = try db.write { txn -> (TableID, ColumnID) in
                let table = try txn.addTable(name)
                let column = try txn.addColumn(table, "value", COLUMNAR_TYPE_INT, nullable: true, indexed: true)
                for key in keys {
                    try txn.createObject(table, key: key)
                    let value = value(using: &random)
                    try txn.set(table, key, column, value.map(Value.int) ?? .null)
                    model[key] = value
                }
                return (table, column)
            }
            try check(table, column, model, spread: name, using: &random)
            try db.write { txn in
                for key in keys where random.next() % 7 == 0 {
                    try txn.deleteObject(table, key)
                    model.removeValue(forKey: key)
                }
            }
            try check(table, column, model, spread: name + " after deletions", using: &random)
        }
    }

    /// A timestamp's ordered key packs its nanoseconds into 30 bits below the seconds, and a key that stands for
    /// one value only is trusted without reading the object back. A lookup given nanoseconds no column holds
    /// (negative here) has a key that names another timestamp: it must find nothing, not that timestamp's object.
    func testALookupOfNanosecondsOutsideTheirRangeFindsNothing() throws {
        let (table, column, stored) = try db.write { txn -> (TableID, ColumnID, ObjectKey) in
            let table = try txn.addTable("moments")
            let column = try txn.addColumn(table, "moment", COLUMNAR_TYPE_TIMESTAMP, indexed: true)
            let key = try txn.createObject(table)
            try txn.set(table, key, column, .timestamp(seconds: 7, nanoseconds: 5))
            return (table, column, key)
        }
        let alias = Value.timestamp(seconds: 4, nanoseconds: -(1 << 30) + 5)   // the key of 7 s 5 ns
        try db.read { txn in
            XCTAssertEqual(try txn.findFirst(table, column, .timestamp(seconds: 7, nanoseconds: 5)), stored)
            let found: ObjectKey?
            do { found = try txn.findFirst(table, column, alias) } catch { found = nil }   // refusing it is right too
            XCTAssertNil(found, "a lookup of 4 s and -2^30 + 5 ns found the object holding 7 s 5 ns")
        }
    }

    private func check(_ table: TableID, _ column: ColumnID, _ model: [ObjectKey: Int64?], spread: String,
                       using random: inout SeededGenerator) throws {
        let keys = model.keys.sorted()
        var smallestKeyOf: [Int64?: ObjectKey] = [:]
        for key in keys where smallestKeyOf[model[key]!] == nil { smallestKeyOf[model[key]!] = key }
        try db.read { txn in
            XCTAssertEqual(try txn.count(table), UInt64(model.count), spread)
            // Every key, in a shuffled order (so no lookup starts from the cluster the previous one found), with
            // its neighbours, which exist only where the model says so.
            for key in keys.shuffled(using: &random) {
                XCTAssertEqual(try txn.getInt(table, key, column), model[key]!, "\(spread): value of \(key)")
                for probe in [key - 1, key + 1] where probe >= 0 && probe < Int64.max {
                    XCTAssertEqual(try txn.exists(table, probe), model[probe] != nil, "\(spread): key \(probe)")
                }
            }
            for probe: ObjectKey in [0, Int64.max - 1, Int64.max / 2, (1 << 40) + 12_345] {
                XCTAssertEqual(try txn.exists(table, probe), model[probe] != nil, "\(spread): key \(probe)")
            }
            for _ in 0 ..< 2_000 {
                let probe = Int64(random.next() % UInt64(Int64.max))
                XCTAssertEqual(try txn.exists(table, probe), model[probe] != nil, "\(spread): key \(probe)")
            }
            // Equality lookups through the ordered index: each value finds the smallest key that holds it, and
            // values next to the held ones find nothing unless they are held too.
            for (value, key) in smallestKeyOf {
                XCTAssertEqual(try txn.findFirst(table, column, value.map(Value.int) ?? .null), key,
                               "\(spread): find \(String(describing: value))")
                guard let value else { continue }
                for near in [value &- 1, value &+ 1] {
                    XCTAssertEqual(try txn.findFirst(table, column, .int(near)), smallestKeyOf[near],
                                   "\(spread): find \(near)")
                }
            }
        }
    }
}
