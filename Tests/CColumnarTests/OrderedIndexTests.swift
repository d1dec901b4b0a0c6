// OrderedIndexTests.swift — ordered search indexes: ranges of int columns (columnar_index_count_range,
// columnar_index_keys_in_range), prefixes of string columns (columnar_index_count_prefix,
// columnar_index_keys_with_prefix), extremes of int and timestamp columns (columnar_index_extreme) and equality
// lookups (columnar_index_find_all), checked against a plain Swift model (object key -> values). Random writes
// are checked inside the write transaction, where the index is read from private leaves, and after the commit
// from committed clusters (now and then after a reopen); then the misuse errors, which columns report an ordered
// index, dropping and rebuilding indexes, primary keys, columns added to filled tables, the keys that nulls share
// with values, and trees of many clusters whose ends are deleted.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class OrderedIndexTests: DatabaseTestCase {
    override var databaseName: String { "ordered-index" }
    /// Clusters of 4 rows: a few hundred distinct values make index trees with inner nodes, so the walks of
    /// ranges and prefixes cross many cluster boundaries.
    override var clusterSize: UInt32 { 4 }

    // MARK: - Model

    /// A timestamp as the engine orders them: by seconds, then nanoseconds.
    private struct Moment: Comparable, Hashable, CustomStringConvertible {
        var seconds: Int64
        var nanoseconds: Int32

        static func < (lhs: Moment, rhs: Moment) -> Bool {
            (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
        }

        var value: Value { .timestamp(seconds: seconds, nanoseconds: nanoseconds) }
        var description: String { "\(seconds)s \(nanoseconds)ns" }
    }

    /// What one object holds. Labels are bytes: the engine does not validate UTF-8, and prefixes compare bytewise.
    private struct Item {
        var maybe: Int64?
        var number: Int64 = 0
        var label: [UInt8]?
        var moment: Moment?
        var flag = false
    }

    private typealias Model = [ObjectKey: Item]

    private enum Field: CaseIterable {
        case maybe, number, label, moment, flag
    }

    /// A table with an indexed column per field: "maybe" (nullable int), "number" (int), "label" (nullable
    /// string), "moment" (nullable timestamp) and "flag" (bool).
    private struct Schema {
        var table: TableID
        var maybe: ColumnID
        var number: ColumnID
        var label: ColumnID
        var moment: ColumnID
        var flag: ColumnID

        var indexedColumns: [ColumnID] { [maybe, number, label, moment, flag] }

        static func create(in txn: Transaction, name: String = "items") throws -> Schema {
            let table = try txn.addTable(name)
            return Schema(
                table: table,
                maybe: try txn.addColumn(table, "maybe", COLUMNAR_TYPE_INT, nullable: true, indexed: true),
                number: try txn.addColumn(table, "number", COLUMNAR_TYPE_INT, indexed: true),
                label: try txn.addColumn(table, "label", COLUMNAR_TYPE_STRING, nullable: true, indexed: true),
                moment: try txn.addColumn(table, "moment", COLUMNAR_TYPE_TIMESTAMP, nullable: true, indexed: true),
                flag: try txn.addColumn(table, "flag", COLUMNAR_TYPE_BOOL, indexed: true))
        }
    }

    private func write(_ txn: Transaction, _ s: Schema, _ key: ObjectKey, _ field: Field, from item: Item) throws {
        switch field {
        case .maybe: try txn.set(s.table, key, s.maybe, item.maybe.map(Value.int) ?? .null)
        case .number: try txn.set(s.table, key, s.number, .int(item.number))
        case .label: try txn.setString(s.table, key, s.label, item.label)
        case .moment: try txn.set(s.table, key, s.moment, item.moment?.value ?? .null)
        case .flag: try txn.set(s.table, key, s.flag, .bool(item.flag))
        }
    }

    private func insert(_ txn: Transaction, _ s: Schema, _ item: Item) throws -> ObjectKey {
        let key = try txn.createObject(s.table)
        for field in Field.allCases { try write(txn, s, key, field, from: item) }
        return key
    }

    private static func copy(_ field: Field, from source: Item, to item: inout Item) {
        switch field {
        case .maybe: item.maybe = source.maybe
        case .number: item.number = source.number
        case .label: item.label = source.label
        case .moment: item.moment = source.moment
        case .flag: item.flag = source.flag
        }
    }

    // MARK: - Random values

    /// Ints at both ends of the range (Int64.min is also the key nulls are filed under), around zero, and a few
    /// others, so values repeat often.
    private static let intPool: [Int64] = [.min, .min + 1, -1_000_000_007, -2, -1, 0, 1, 2, 7, 1 << 40, .max - 1, .max]

    private static func randomInt(_ generator: inout SeededGenerator) -> Int64 {
        switch Int.random(in: 0..<10, using: &generator) {
        case 0..<5: return intPool.randomElement(using: &generator)!
        case 5..<8: return Int64.random(in: -6...6, using: &generator)
        default:
            return Int64.random(in: .min ... .max, using: &generator) >> Int64.random(in: 0...62, using: &generator)
        }
    }

    /// Labels that share long prefixes (an index key keeps six bytes), are shorter than six bytes, are empty,
    /// hold zero bytes (which a short string's key is padded with), multi-byte UTF-8, or 0xFF (the largest byte,
    /// never valid UTF-8, but strings are not validated).
    private static let labelPool: [[UInt8]] = [
        "", "a", "ab", "abc", "abcde", "abcdef", "abcdeg", "abcdefg", "abcdefgh", "abcdefgh-one", "abcdefgh-two",
        "abcdef\0", "abcde\0", "a\0", "a\0b", "\0", "\0\0\0\0\0\0\0", "b", "é", "éé", "日本", "日本語",
        "日本語のテキスト", "\u{7F}", "zzzzzzzzzz",
    ].map { Array($0.utf8) } + [[0xFF], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], [0x61, 0xFF]]

    private static let labelPieces: [[UInt8]] = ["a", "b", "\0", "é", "日", "-"].map { Array($0.utf8) } + [[0xFF]]

    private static func randomLabel(_ generator: inout SeededGenerator) -> [UInt8] {
        var label = labelPool.randomElement(using: &generator)!
        if Int.random(in: 0..<5, using: &generator) < 2 {
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                label += labelPieces.randomElement(using: &generator)!
            }
        }
        return label
    }

    /// Timestamps get exact keys within ±2^33 seconds of 1970 and saturated ones beyond.
    private static let exactSecondsLimit: Int64 = 1 << 33

    /// Seconds at and around the limits of exact keys, far before 1970 (year 1, which is beyond the limit, and
    /// 1900, which is not), far in the future (year 9999, beyond it), and at both ends of Int64.
    private static let secondsPool: [Int64] = [
        .min, -(1 << 40), -exactSecondsLimit - 1, -exactSecondsLimit, -exactSecondsLimit + 1, -62_135_596_800,
        -2_208_988_800, -1, 0, 1, 1_700_000_000, exactSecondsLimit - 1, exactSecondsLimit, exactSecondsLimit + 1,
        253_402_300_799, 1 << 40, .max,
    ]
    private static let nanosecondsPool: [Int32] = [0, 1, 500_000_000, 999_999_999]

    private static func randomMoment(_ generator: inout SeededGenerator) -> Moment {
        let seconds = Int.random(in: 0..<10, using: &generator) < 7
            ? secondsPool.randomElement(using: &generator)!
            : Int64.random(in: -(1 << 35) ... (1 << 35), using: &generator)
        let nanoseconds = Bool.random(using: &generator)
            ? nanosecondsPool.randomElement(using: &generator)!
            : Int32.random(in: 0...999_999_999, using: &generator)
        return Moment(seconds: seconds, nanoseconds: nanoseconds)
    }

    /// Gives `field` of `item` a random value: null for about one in five values of a nullable field.
    private static func randomize(_ field: Field, of item: inout Item, _ generator: inout SeededGenerator) {
        let null = Int.random(in: 0..<5, using: &generator) == 0
        switch field {
        case .maybe: item.maybe = null ? nil : randomInt(&generator)
        case .number: item.number = randomInt(&generator)
        case .label: item.label = null ? nil : randomLabel(&generator)
        case .moment: item.moment = null ? nil : randomMoment(&generator)
        case .flag: item.flag = Bool.random(using: &generator)
        }
    }

    private static func randomItem(_ generator: inout SeededGenerator) -> Item {
        var item = Item()
        for field in Field.allCases { randomize(field, of: &item, &generator) }
        return item
    }

    /// A range bound: often a value objects hold or its neighbour, so bounds fall exactly on index rows.
    private static func randomBound(_ values: [Int64], _ generator: inout SeededGenerator) -> Int64 {
        switch Int.random(in: 0..<6, using: &generator) {
        case 0, 1:
            if let value = values.randomElement(using: &generator) { return value }
        case 2:
            if let value = values.randomElement(using: &generator) {
                return Bool.random(using: &generator) ? value &+ 1 : value &- 1
            }
        case 3:
            return [Int64.min, .max, 0, -1].randomElement(using: &generator)!
        default:
            break
        }
        return randomInt(&generator)
    }

    /// Open and closed, inclusive and exclusive bounds. Bounds drawn in the wrong order are kept so one time in
    /// four (an empty range) and otherwise swapped.
    private static func randomRange(_ values: [Int64], _ generator: inout SeededGenerator) -> IndexRange {
        var lower = Int.random(in: 0..<5, using: &generator) == 0 ? nil : randomBound(values, &generator)
        var upper = Int.random(in: 0..<5, using: &generator) == 0 ? nil : randomBound(values, &generator)
        if let low = lower, let high = upper, low > high, Int.random(in: 0..<4, using: &generator) != 0 {
            (lower, upper) = (high, low)
        }
        return IndexRange(lower: lower.map(Value.int), lowerInclusive: Bool.random(using: &generator),
                          upper: upper.map(Value.int), upperInclusive: Bool.random(using: &generator))
    }

    /// Prefixes: empty, prefixes of the labels objects hold (up to their whole length, or one piece beyond it),
    /// pool labels and random ones (some longer than six bytes, some with zero bytes).
    private static func randomPrefix(_ labels: [[UInt8]], _ generator: inout SeededGenerator) -> [UInt8] {
        switch Int.random(in: 0..<6, using: &generator) {
        case 0:
            return []
        case 1, 2:
            if let label = labels.randomElement(using: &generator) {
                return Array(label.prefix(Int.random(in: 0...label.count, using: &generator)))
            }
        case 3:
            if let label = labels.randomElement(using: &generator) {
                return label + labelPieces.randomElement(using: &generator)!
            }
        default:
            break
        }
        return randomLabel(&generator)
    }

    // MARK: - Comparing the indexes with the model

    /// Checks every query of every indexed column of `s` against `model`: `rangeCount` random ranges per int
    /// column and as many prefixes, extremes, and equality lookups of values held, absent and null.
    private func assertIndexesMatch(_ txn: Transaction, _ s: Schema, _ model: Model, _ generator: inout SeededGenerator,
                                    _ context: String, rangeCount: Int = 16) throws {
        try assertIntColumn(txn, s.table, s.maybe, model.mapValues(\.maybe), &generator, "maybe, \(context)",
                            rangeCount: rangeCount)
        try assertIntColumn(txn, s.table, s.number, model.mapValues { $0.number }, &generator, "number, \(context)",
                            rangeCount: rangeCount)
        try assertStringColumn(txn, s.table, s.label, model.mapValues(\.label), &generator, "label, \(context)",
                               prefixCount: rangeCount)
        try assertTimestampColumn(txn, s.table, s.moment, model.mapValues(\.moment), &generator,
                                  "moment, \(context)")
        for flag in [false, true] {
            XCTAssertEqual(try txn.indexFindAll(s.table, s.flag, .bool(flag)),
                           model.filter { $0.value.flag == flag }.keys.sorted(), "flag \(flag), \(context)")
        }
        try assertOrderedEntries(txn, s.table, s.maybe, model.mapValues { Self.orderedKey($0.maybe) }, "maybe, \(context)")
        try assertOrderedEntries(txn, s.table, s.number, model.mapValues { Self.orderedKey($0.number) },
                                 "number, \(context)")
        try assertOrderedEntries(txn, s.table, s.flag, model.mapValues { Self.orderedKey($0.flag ? 1 : 0) },
                                 "flag, \(context)")
        try assertOrderedEntries(txn, s.table, s.moment, model.mapValues { Self.orderedKey($0.moment) },
                                 "moment, \(context)")
        // A string's key orders its first six bytes; the low 16 bits are a hash, the same for equal strings.
        try assertOrderedEntries(txn, s.table, s.label, model.mapValues { Self.orderedKey($0.label) },
                                 "label, \(context)", shift: 16)
        let labelEntries = try txn.indexOrderedEntries(s.table, s.label, capacity: model.count).entries
        var keyOfLabel: [[UInt8]?: Int64] = [:]
        for entry in labelEntries {
            let label = model[entry.object]?.label
            XCTAssertEqual(keyOfLabel[label, default: entry.indexKey], entry.indexKey,
                           "equal labels under different keys, \(context)")
            keyOfLabel[label] = entry.indexKey
        }
    }

    // The ordered keys the index files values under (docs/FileFormat.md, "Search indexes").
    private static func orderedKey(_ value: Int64?) -> Int64 { value ?? .min }

    private static func orderedKey(_ moment: Moment?) -> Int64 {
        guard let moment else { return .min }
        if moment.seconds <= -(1 << 33) { return .min + 1 }
        if moment.seconds >= 1 << 33 { return .max }
        return Int64(bitPattern: UInt64(bitPattern: moment.seconds) << 30 | UInt64(moment.nanoseconds))
    }

    /// A string's key with its hash bits zero.
    private static func orderedKey(_ label: [UInt8]?) -> Int64 {
        guard let label else { return .min }
        let prefix = (0..<6).reduce(UInt64(0)) { $0 << 8 | UInt64($1 < label.count ? label[$1] : 0) }
        return Int64(bitPattern: (prefix << 16) ^ (1 << 63))
    }

    /// columnar_index_ordered_entries lists every object once, in (index key, object key) order, each under the
    /// key its value is filed under (compared above `shift` bits); with too little room it still counts them all.
    private func assertOrderedEntries(_ txn: Transaction, _ table: TableID, _ column: ColumnID,
                                      _ expectedKeys: [ObjectKey: Int64], _ context: String, shift: Int64 = 0,
                                      file: StaticString = #filePath, line: UInt = #line) throws {
        let listed = try txn.indexOrderedEntries(table, column, capacity: expectedKeys.count + 1)
        XCTAssertEqual(listed.count, expectedKeys.count, "entries, \(context)", file: file, line: line)
        XCTAssertEqual(listed.entries.map(\.object).sorted(), expectedKeys.keys.sorted(),
                       "objects listed, \(context)", file: file, line: line)
        for (index, entry) in listed.entries.enumerated() {
            XCTAssertEqual(entry.indexKey >> shift, expectedKeys[entry.object].map { $0 >> shift },
                           "key of object \(entry.object), \(context)", file: file, line: line)
            if index > 0 {
                let previous = listed.entries[index - 1]
                XCTAssertTrue((previous.indexKey, previous.object) < (entry.indexKey, entry.object),
                              "entries \(index - 1) and \(index) out of order, \(context)", file: file, line: line)
            }
        }
        if !expectedKeys.isEmpty {
            XCTAssertEqual(try txn.indexOrderedEntries(table, column, capacity: expectedKeys.count - 1).count,
                           expectedKeys.count, "count with too little room, \(context)", file: file, line: line)
        }
    }

    private func assertIntColumn(_ txn: Transaction, _ table: TableID, _ column: ColumnID,
                                 _ values: [ObjectKey: Int64?], _ generator: inout SeededGenerator, _ context: String,
                                 rangeCount: Int) throws {
        let held = values.values.compactMap { $0 }
        XCTAssertEqual(try txn.indexExtreme(table, column, maximum: false), held.min().map(Value.int),
                       "minimum, \(context)")
        XCTAssertEqual(try txn.indexExtreme(table, column, maximum: true), held.max().map(Value.int),
                       "maximum, \(context)")
        var ranges = [IndexRange(), IndexRange(lower: .int(Int64.min)), IndexRange(upper: .int(Int64.max))]
        for _ in 0..<rangeCount { ranges.append(Self.randomRange(held, &generator)) }
        for range in ranges {
            let expected = values.filter { $0.value.map(range.contains) ?? false }.keys.sorted()
            XCTAssertEqual(try txn.indexCountRange(table, column, range), UInt64(expected.count),
                           "count of \(range), \(context)")
            try assertKeyList(expected, "keys of \(range), \(context)", &generator) { capacity in
                try txn.indexKeysInRange(table, column, range, capacity: capacity)
            }
        }
        var probes: [Int64?] = [nil, Self.randomInt(&generator)]
        if let value = held.randomElement(using: &generator) { probes.append(value) }
        for probe in probes {
            XCTAssertEqual(try txn.indexFindAll(table, column, probe.map(Value.int) ?? .null),
                           values.filter { $0.value == probe }.keys.sorted(),
                           "objects holding \(probe.map(String.init) ?? "null"), \(context)")
        }
    }

    private func assertStringColumn(_ txn: Transaction, _ table: TableID, _ column: ColumnID,
                                    _ values: [ObjectKey: [UInt8]?], _ generator: inout SeededGenerator,
                                    _ context: String, prefixCount: Int) throws {
        let held = values.values.compactMap { $0 }
        var prefixes: [[UInt8]] = [[]]
        for _ in 0..<prefixCount { prefixes.append(Self.randomPrefix(held, &generator)) }
        for prefix in prefixes {
            let expected = values.filter { $0.value?.starts(with: prefix) ?? false }.keys.sorted()
            XCTAssertEqual(try txn.indexCountPrefix(table, column, prefix), UInt64(expected.count),
                           "count of prefix \(hex(prefix)), \(context)")
            try assertKeyList(expected, "keys with prefix \(hex(prefix)), \(context)", &generator) { capacity in
                try txn.indexKeysWithPrefix(table, column, prefix, capacity: capacity)
            }
        }
        var probes: [[UInt8]?] = [nil, Self.randomLabel(&generator)]
        if let label = held.randomElement(using: &generator) { probes.append(label) }
        for probe in probes {
            XCTAssertEqual(try txn.indexFindAll(table, column, string: probe),
                           values.filter { $0.value == probe }.keys.sorted(),
                           "objects holding \(probe.map { hex($0) } ?? "null"), \(context)")
        }
    }

    private func assertTimestampColumn(_ txn: Transaction, _ table: TableID, _ column: ColumnID,
                                       _ values: [ObjectKey: Moment?], _ generator: inout SeededGenerator,
                                       _ context: String) throws {
        let held = values.values.compactMap { $0 }
        XCTAssertEqual(try txn.indexExtreme(table, column, maximum: false), held.min()?.value, "minimum, \(context)")
        XCTAssertEqual(try txn.indexExtreme(table, column, maximum: true), held.max()?.value, "maximum, \(context)")
        var probes: [Moment?] = [nil, Self.randomMoment(&generator)]
        if let moment = held.randomElement(using: &generator) { probes.append(moment) }
        for probe in probes {
            XCTAssertEqual(try txn.indexFindAll(table, column, probe?.value ?? .null),
                           values.filter { $0.value == probe }.keys.sorted(),
                           "objects holding \(probe.map(String.init(describing:)) ?? "null"), \(context)")
        }
    }

    /// A key list query (`query(capacity)` returns the keys written and the count) lists `expected` exactly when
    /// they fit; with less room it still counts them all and writes only keys among them, each once.
    private func assertKeyList(_ expected: [ObjectKey], _ context: String, _ generator: inout SeededGenerator,
                               file: StaticString = #filePath, line: UInt = #line,
                               _ query: (Int) throws -> (keys: [ObjectKey], count: Int)) throws {
        let fitting = try query(expected.count + Int.random(in: 0...2, using: &generator))
        XCTAssertEqual(fitting.count, expected.count, "count, \(context)", file: file, line: line)
        XCTAssertEqual(fitting.keys, expected, context, file: file, line: line)
        guard !expected.isEmpty else { return }
        let capacity = Int.random(in: 0..<expected.count, using: &generator)
        let partial = try query(capacity)
        XCTAssertEqual(partial.count, expected.count, "count with room for \(capacity), \(context)", file: file,
                       line: line)
        XCTAssertEqual(partial.keys.count, capacity, "keys written with room for \(capacity), \(context)", file: file,
                       line: line)
        XCTAssertTrue(Set(partial.keys).isSubset(of: expected) && Set(partial.keys).count == partial.keys.count,
                      "keys \(partial.keys) with room for \(capacity) are not distinct keys among \(expected), "
                          + context, file: file, line: line)
    }

    // MARK: - Random workload

    func testRandomWritesMatchTheModelInsideAndAfterEveryTransaction() throws {
        var generator = makeSeededGenerator()
        let note = generator.replayNote
        let s = try db.write { try Schema.create(in: $0) }
        var model: Model = [:]
        try db.read { txn in try assertIndexesMatch(txn, s, model, &generator, "empty table, \(note)") }
        let transactionCount = 200
        for transaction in 0..<transactionCount {
            // The first transaction fills the table; later ones change it a little each, and one in five is
            // rolled back.
            let rollBack = transaction > 0 && Int.random(in: 0..<5, using: &generator) == 0
            let stepCount = transaction == 0 ? 150 : Int.random(in: 1...20, using: &generator)
            var next = model
            let txn = try db.beginWrite()
            do {
                for step in 0..<stepCount {
                    try randomOperation(txn, s, &next, &generator)
                    if step % 5 == 4 || step == stepCount - 1 {
                        try assertIndexesMatch(txn, s, next, &generator,
                                               "inside transaction \(transaction) after step \(step), \(note)",
                                               rangeCount: 6)
                    }
                }
            } catch {
                txn.rollback()
                throw error
            }
            if rollBack {
                txn.rollback()
            } else {
                try txn.commit()
                model = next
            }
            if transaction % 15 == 14 { try reopen() }
            try db.read { txn in
                let context = "after transaction \(transaction)\(rollBack ? " (rolled back)" : ""), \(note)"
                try assertIndexesMatch(txn, s, model, &generator, context)
                XCTAssertVerifies(txn, context)
            }
        }
        print("OrderedIndex: \(transactionCount) transactions, \(model.count) objects at the end, \(note)")
    }

    private func randomOperation(_ txn: Transaction, _ s: Schema, _ model: inout Model,
                                 _ generator: inout SeededGenerator) throws {
        let keys = model.keys.sorted()
        let key = keys.randomElement(using: &generator)
        switch Int.random(in: 0..<16, using: &generator) {
        case 0..<5:
            // One in four new objects keeps the values a new object starts with: null, 0 and false.
            if Int.random(in: 0..<4, using: &generator) == 0 {
                let key = try txn.createObject(s.table)
                model[key] = Item()
            } else {
                let item = Self.randomItem(&generator)
                let key = try insert(txn, s, item)
                model[key] = item
            }
        case 5..<10:
            guard let key else { return }
            let field = Field.allCases.randomElement(using: &generator)!
            Self.randomize(field, of: &model[key]!, &generator)
            try write(txn, s, key, field, from: model[key]!)
        case 10:
            guard let key else { return }
            let field = [Field.maybe, .label, .moment].randomElement(using: &generator)!
            switch field {
            case .maybe: model[key]!.maybe = nil
            case .label: model[key]!.label = nil
            default: model[key]!.moment = nil
            }
            try write(txn, s, key, field, from: model[key]!)
        case 11:
            // Many objects take one value: an index row with a long list of further keys, which then shrinks
            // again as they change.
            let field = Field.allCases.randomElement(using: &generator)!
            let source = Self.randomItem(&generator)
            for key in keys.shuffled(using: &generator).prefix(Int.random(in: 1...30, using: &generator)) {
                Self.copy(field, from: source, to: &model[key]!)
                try write(txn, s, key, field, from: model[key]!)
            }
        case 12, 13:
            guard let key else { return }
            try txn.deleteObject(s.table, key)
            model[key] = nil
        case 14 where keys.count < 300:
            // Runs of new objects fill the clusters that deletions empty, up to a few hundred objects.
            for _ in 0..<10 {
                let item = Self.randomItem(&generator)
                let key = try insert(txn, s, item)
                model[key] = item
            }
        case 14:
            for key in keys.shuffled(using: &generator).prefix(30) {
                try txn.deleteObject(s.table, key)
                model[key] = nil
            }
        default:
            for key in keys.shuffled(using: &generator).prefix(Int.random(in: 1...8, using: &generator)) {
                try txn.deleteObject(s.table, key)
                model[key] = nil
            }
        }
    }

    // MARK: - Misuse

    func testQueriesOnColumnsWithoutAnOrderedIndexOrOfAnotherTypeFail() throws {
        try db.write { txn in
            let table = try txn.addTable("kinds")
            let int = try txn.addColumn(table, "int", COLUMNAR_TYPE_INT, indexed: true)
            let plainInt = try txn.addColumn(table, "plain_int", COLUMNAR_TYPE_INT)
            let bool = try txn.addColumn(table, "bool", COLUMNAR_TYPE_BOOL, indexed: true)
            let string = try txn.addColumn(table, "string", COLUMNAR_TYPE_STRING, nullable: true, indexed: true)
            let plainString = try txn.addColumn(table, "plain_string", COLUMNAR_TYPE_STRING)
            let timestamp = try txn.addColumn(table, "timestamp", COLUMNAR_TYPE_TIMESTAMP, indexed: true)
            let plainTimestamp = try txn.addColumn(table, "plain_timestamp", COLUMNAR_TYPE_TIMESTAMP)
            let objectID = try txn.addColumn(table, "object_id", COLUMNAR_TYPE_OBJECTID, indexed: true)
            let uuid = try txn.addColumn(table, "uuid", COLUMNAR_TYPE_UUID, indexed: true)
            let double = try txn.addColumn(table, "double", COLUMNAR_TYPE_DOUBLE)
            let list = try txn.addColumn(table, "list", COLUMNAR_TYPE_INT, collection: COLUMNAR_COLLECTION_LIST)
            let doomed = try txn.addColumn(table, "doomed", COLUMNAR_TYPE_INT, indexed: true)
            for value in [3, 1, 2] {
                let key = try txn.createObject(table)
                try txn.set(table, key, int, .int(value))
                try txn.set(table, key, string, .string("s\(value)"))
            }

            // Which columns report an ordered index: indexed ints, bools, timestamps and strings; not the
            // hash-keyed indexes of ObjectId and UUID columns, nor columns without an index.
            let expectations: [(ColumnID, indexed: Bool, ordered: Bool)] = [
                (int, true, true), (bool, true, true), (string, true, true), (timestamp, true, true),
                (objectID, true, false), (uuid, true, false), (plainInt, false, false), (plainString, false, false),
                (plainTimestamp, false, false), (double, false, false), (list, false, false),
            ]
            for (column, indexed, ordered) in expectations {
                let info = try txn.columnInfo(table, column)
                let name = try txn.columnName(table, column)
                XCTAssertEqual(info.indexed, indexed, "\(name) indexed")
                XCTAssertEqual(info.ordered_index, ordered, "\(name) ordered_index")
            }

            // Ranges: int columns with an ordered index only.
            let everything = IndexRange()
            for column in [plainInt, objectID, uuid, plainString, double, list] {
                let name = try txn.columnName(table, column)
                XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.indexCountRange(table, column, everything), name)
                XCTAssertEngineError(COLUMNAR_EMISUSE,
                                     try txn.indexKeysInRange(table, column, everything, capacity: 4), name)
            }
            for column in [string, bool, timestamp] {
                let name = try txn.columnName(table, column)
                XCTAssertEngineError(COLUMNAR_ETYPE, try txn.indexCountRange(table, column, everything), name)
                XCTAssertEngineError(COLUMNAR_ETYPE,
                                     try txn.indexKeysInRange(table, column, everything, capacity: 4), name)
            }
            XCTAssertEqual(try txn.indexCountRange(table, int, everything), 3)

            // Bounds are non-null ints; a bound that is absent is not looked at.
            for bound in [Value.null, .string("2"), .timestamp(seconds: 2, nanoseconds: 0), .bool(true), .double(2)] {
                let expected = bound.isNull ? COLUMNAR_EMISUSE : COLUMNAR_ETYPE
                for range in [IndexRange(lower: bound), IndexRange(upper: bound),
                              IndexRange(lower: .int(1), upper: bound)] {
                    XCTAssertEngineError(expected, try txn.indexCountRange(table, int, range), "\(range)")
                    XCTAssertEngineError(expected, try txn.indexKeysInRange(table, int, range, capacity: 4),
                                         "\(range)")
                }
            }
            var range = columnar_index_range()
            range.lower.is_null = true
            range.lower.type = COLUMNAR_TYPE_STRING
            range.upper.is_null = true
            var count: UInt64 = 0
            XCTAssertEqual(columnar_index_count_range(txn.handle, table, int, &range, &count), COLUMNAR_OK,
                           "absent bounds that hold a null string")
            XCTAssertEqual(count, 3)

            // Prefixes: string columns with an ordered index only.
            for column in [plainString, objectID, uuid, list] {
                let name = try txn.columnName(table, column)
                XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.indexCountPrefix(table, column, [0x73]), name)
                XCTAssertEngineError(COLUMNAR_EMISUSE,
                                     try txn.indexKeysWithPrefix(table, column, [0x73], capacity: 4), name)
            }
            for column in [int, bool, timestamp] {
                let name = try txn.columnName(table, column)
                XCTAssertEngineError(COLUMNAR_ETYPE, try txn.indexCountPrefix(table, column, [0x73]), name)
                XCTAssertEngineError(COLUMNAR_ETYPE,
                                     try txn.indexKeysWithPrefix(table, column, [0x73], capacity: 4), name)
            }
            XCTAssertEqual(try txn.indexCountPrefix(table, string, Array("s".utf8)), 3)

            // Extremes: int and timestamp columns with an ordered index only.
            for column in [plainInt, plainTimestamp, objectID, uuid, double, list] {
                let name = try txn.columnName(table, column)
                XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.indexExtreme(table, column, maximum: false), name)
            }
            for column in [string, bool] {
                let name = try txn.columnName(table, column)
                XCTAssertEngineError(COLUMNAR_ETYPE, try txn.indexExtreme(table, column, maximum: true), name)
            }
            XCTAssertEqual(try txn.indexExtreme(table, int, maximum: true), .int(3))
            XCTAssertEqual(try txn.indexExtreme(table, timestamp, maximum: true),
                           .timestamp(seconds: 0, nanoseconds: 0), "objects start at the zero timestamp")

            // Missing arguments.
            var openAbove = IndexRange(lower: .int(0)).cRangeOfInts
            var keys = [ObjectKey](repeating: 0, count: 4)
            var keyCount = 0
            XCTAssertEqual(columnar_index_count_range(txn.handle, table, int, nil, &count), COLUMNAR_EMISUSE)
            XCTAssertEqual(columnar_index_count_range(txn.handle, table, int, &openAbove, nil), COLUMNAR_EMISUSE)
            XCTAssertEqual(columnar_index_keys_in_range(txn.handle, table, int, nil, &keys, 4, &keyCount),
                           COLUMNAR_EMISUSE)
            XCTAssertEqual(columnar_index_keys_in_range(txn.handle, table, int, &openAbove, nil, 4, &keyCount),
                           COLUMNAR_EMISUSE, "room for 4 keys at NULL")
            XCTAssertEqual(columnar_index_keys_in_range(txn.handle, table, int, &openAbove, &keys, 4, nil),
                           COLUMNAR_EMISUSE)
            XCTAssertEqual(columnar_index_count_prefix(txn.handle, table, string, nil, 1, &count), COLUMNAR_EMISUSE,
                           "a one-byte prefix at NULL")
            XCTAssertEqual(columnar_index_count_prefix(txn.handle, table, string, nil, 0, &count), COLUMNAR_OK,
                           "an empty prefix may be NULL")
            XCTAssertEqual(count, 3)
            XCTAssertEqual(columnar_index_count_prefix(txn.handle, table, string, nil, 0, nil), COLUMNAR_EMISUSE)
            XCTAssertEqual(columnar_index_keys_with_prefix(txn.handle, table, string, nil, 0, nil, 4, &keyCount),
                           COLUMNAR_EMISUSE, "room for 4 keys at NULL")
            XCTAssertEqual(columnar_index_keys_with_prefix(txn.handle, table, string, nil, 0, &keys, 4, nil),
                           COLUMNAR_EMISUSE)
            var value = columnar_value()
            var found = false
            XCTAssertEqual(columnar_index_extreme(txn.handle, table, int, false, nil, &found), COLUMNAR_EMISUSE)
            XCTAssertEqual(columnar_index_extreme(txn.handle, table, int, false, &value, nil), COLUMNAR_EMISUSE)

            // Tables and columns that do not exist, or no longer do.
            try txn.removeColumn(table, doomed)
            let missingTable = try txn.tableCount() + 5
            for (absentTable, absentColumn) in [(table, doomed), (table, 999), (missingTable, int)] {
                let what = "table \(absentTable) column \(absentColumn)"
                XCTAssertEngineError(COLUMNAR_ENOTFOUND,
                                     try txn.indexCountRange(absentTable, absentColumn, everything), what)
                XCTAssertEngineError(COLUMNAR_ENOTFOUND,
                                     try txn.indexKeysInRange(absentTable, absentColumn, everything, capacity: 4), what)
                XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.indexCountPrefix(absentTable, absentColumn, []), what)
                XCTAssertEngineError(COLUMNAR_ENOTFOUND,
                                     try txn.indexKeysWithPrefix(absentTable, absentColumn, [], capacity: 4), what)
                XCTAssertEngineError(COLUMNAR_ENOTFOUND,
                                     try txn.indexExtreme(absentTable, absentColumn, maximum: false), what)
            }
        }
        try db.read { txn in XCTAssertVerifies(txn, "after removing an indexed column") }
    }

    // MARK: - Dropping and rebuilding indexes

    func testDroppedAndRebuiltIndexesAnswerForTheValuesAtTheirRebuild() throws {
        var generator = makeSeededGenerator()
        let note = generator.replayNote
        var model: Model = [:]
        let s = try db.write { txn -> Schema in
            let s = try Schema.create(in: txn)
            for _ in 0..<200 {
                let item = Self.randomItem(&generator)
                let key = try insert(txn, s, item)
                model[key] = item
            }
            return s
        }
        func changeValues(_ txn: Transaction) throws {
            for key in model.keys.sorted().shuffled(using: &generator).prefix(60) {
                let field = Field.allCases.randomElement(using: &generator)!
                Self.randomize(field, of: &model[key]!, &generator)
                try write(txn, s, key, field, from: model[key]!)
            }
            for key in model.keys.sorted().shuffled(using: &generator).prefix(10) {
                try txn.deleteObject(s.table, key)
                model[key] = nil
            }
            for _ in 0..<10 {
                let item = Self.randomItem(&generator)
                let key = try insert(txn, s, item)
                model[key] = item
            }
        }
        func assertUnindexed(_ txn: Transaction, _ context: String) throws {
            for column in s.indexedColumns {
                let info = try txn.columnInfo(s.table, column)
                XCTAssertFalse(info.indexed || info.ordered_index, "column \(column), \(context)")
            }
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.indexCountRange(s.table, s.number, IndexRange()), context)
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.indexCountPrefix(s.table, s.label, []), context)
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.indexExtreme(s.table, s.moment, maximum: true), context)
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.indexFindAll(s.table, s.flag, .bool(true)), context)
        }
        func setIndexed(_ txn: Transaction, _ indexed: Bool) throws {
            for column in s.indexedColumns { try txn.setIndexed(s.table, column, indexed) }
        }

        // Dropped, values changed while unindexed, and rebuilt, all in one transaction.
        try db.write { txn in
            try setIndexed(txn, false)
            try assertUnindexed(txn, "dropped in this transaction")
            try changeValues(txn)
            try setIndexed(txn, true)
            for column in s.indexedColumns {
                XCTAssertTrue(try txn.columnInfo(s.table, column).ordered_index, "column \(column) rebuilt")
            }
            try assertIndexesMatch(txn, s, model, &generator, "rebuilt in this transaction, \(note)")
        }
        try db.read { txn in
            try assertIndexesMatch(txn, s, model, &generator, "rebuilt and committed, \(note)")
            XCTAssertVerifies(txn, "rebuilt and committed")
        }

        // Dropped in one transaction, values changed in another, rebuilt in a third.
        try db.write { txn in try setIndexed(txn, false) }
        try db.read { txn in
            try assertUnindexed(txn, "dropped and committed")
            XCTAssertVerifies(txn, "dropped and committed")
        }
        try db.write { txn in try changeValues(txn) }
        try db.write { txn in try setIndexed(txn, true) }
        try reopen()
        try db.read { txn in
            try assertIndexesMatch(txn, s, model, &generator, "rebuilt in a later transaction and reopened, \(note)")
            XCTAssertVerifies(txn, "rebuilt in a later transaction")
        }

        // A rebuild that is rolled back leaves the column unindexed.
        try db.write { txn in try setIndexed(txn, false) }
        let txn = try db.beginWrite()
        try setIndexed(txn, true)
        txn.rollback()
        try db.read { txn in try assertUnindexed(txn, "rebuild rolled back") }
    }

    // MARK: - Primary keys and columns added to filled tables

    func testPrimaryKeyColumnsHaveOrderedIndexes() throws {
        var generator = makeSeededGenerator()
        let note = generator.replayNote
        var numbers: [ObjectKey: Int64?] = [:]
        var codes: [ObjectKey: [UInt8]?] = [:]
        let (numbered, id, coded, code) = try db.write { txn -> (TableID, ColumnID, TableID, ColumnID) in
            let numbered = try txn.addTable("numbered")
            let id = try txn.addColumn(numbered, "id", COLUMNAR_TYPE_INT)
            try txn.setPrimaryKey(numbered, column: id)
            let coded = try txn.addTable("coded")
            let code = try txn.addColumn(coded, "code", COLUMNAR_TYPE_STRING)
            try txn.setPrimaryKey(coded, column: code)
            var ids = Set(Self.intPool)
            while ids.count < 300 { ids.insert(Self.randomInt(&generator)) }
            for value in ids.sorted().shuffled(using: &generator) {
                let key = try txn.createObject(numbered, primaryKey: .int(value))
                numbers[key] = value
            }
            var labels: Set<[UInt8]> = []
            while labels.count < 300 { labels.insert(Self.randomLabel(&generator)) }
            for label in labels.sorted(by: { $0.lexicographicallyPrecedes($1) }).shuffled(using: &generator) {
                let key = try withStringValue(label) { value in
                    var key: ObjectKey = 0
                    try check(columnar_obj_create_with_primary_key(txn.handle, coded, value, &key),
                              "create with primary key \(hex(label))")
                    return key
                }
                codes[key] = label
            }
            return (numbered, id, coded, code)
        }
        try db.read { txn in
            for (table, column) in [(numbered, id), (coded, code)] {
                let info = try txn.columnInfo(table, column)
                XCTAssertTrue(info.is_primary_key && info.indexed && info.ordered_index)
            }
            try assertIntColumn(txn, numbered, id, numbers, &generator, "int primary key, \(note)", rangeCount: 60)
            try assertStringColumn(txn, coded, code, codes, &generator, "string primary key, \(note)",
                                   prefixCount: 60)
            XCTAssertVerifies(txn)
        }
    }

    func testAColumnIndexedWhenAddedToAFilledTableFilesTheStartingValues() throws {
        let objectCount = 100
        try db.write { txn in
            let table = try txn.addTable("filled")
            for _ in 0..<objectCount { _ = try txn.createObject(table) }
            let keys = try txn.keys(table)
            let zero = try txn.addColumn(table, "zero", COLUMNAR_TYPE_INT, indexed: true)
            let none = try txn.addColumn(table, "none", COLUMNAR_TYPE_INT, nullable: true, indexed: true)
            let empty = try txn.addColumn(table, "empty", COLUMNAR_TYPE_STRING, indexed: true)
            let noText = try txn.addColumn(table, "no_text", COLUMNAR_TYPE_STRING, nullable: true, indexed: true)
            let epoch = try txn.addColumn(table, "epoch", COLUMNAR_TYPE_TIMESTAMP, indexed: true)
            let never = try txn.addColumn(table, "never", COLUMNAR_TYPE_TIMESTAMP, nullable: true, indexed: true)

            XCTAssertEqual(try txn.indexCountRange(table, zero, IndexRange(lower: .int(0), upper: .int(0))),
                           UInt64(objectCount))
            XCTAssertEqual(try txn.indexKeysInRange(table, zero, IndexRange(), capacity: objectCount).keys, keys)
            XCTAssertEqual(try txn.indexExtreme(table, zero, maximum: false), .int(0))
            XCTAssertEqual(try txn.indexExtreme(table, zero, maximum: true), .int(0))
            // Every object holds null: nothing is in any range and there are no extremes.
            XCTAssertEqual(try txn.indexCountRange(table, none, IndexRange()), 0)
            XCTAssertEqual(try txn.indexCountRange(table, none, IndexRange(upper: .int(Int64.min))), 0,
                           "nulls are filed under Int64.min's key but are not Int64.min")
            XCTAssertNil(try txn.indexExtreme(table, none, maximum: false))
            XCTAssertNil(try txn.indexExtreme(table, none, maximum: true))
            XCTAssertEqual(try txn.indexFindAll(table, none, .null), keys)
            // The empty string is a string: the empty prefix counts it; null is not.
            XCTAssertEqual(try txn.indexCountPrefix(table, empty, []), UInt64(objectCount))
            XCTAssertEqual(try txn.indexKeysWithPrefix(table, empty, [], capacity: objectCount).keys, keys)
            XCTAssertEqual(try txn.indexCountPrefix(table, empty, [0]), 0, "no string holds a zero byte")
            XCTAssertEqual(try txn.indexCountPrefix(table, noText, []), 0)
            XCTAssertEqual(try txn.indexExtreme(table, epoch, maximum: true), .timestamp(seconds: 0, nanoseconds: 0))
            XCTAssertNil(try txn.indexExtreme(table, never, maximum: true))

            // One object leaves the starting values.
            try txn.set(table, keys[7], none, .int(Int64.min))
            try txn.set(table, keys[7], noText, .string(""))
            try txn.set(table, keys[7], never, .timestamp(seconds: Int64.min, nanoseconds: 1))
            XCTAssertEqual(try txn.indexKeysInRange(table, none, IndexRange(), capacity: 4).keys, [keys[7]])
            XCTAssertEqual(try txn.indexExtreme(table, none, maximum: true), .int(Int64.min))
            XCTAssertEqual(try txn.indexKeysWithPrefix(table, noText, [], capacity: 4).keys, [keys[7]])
            XCTAssertEqual(try txn.indexExtreme(table, never, maximum: true),
                           .timestamp(seconds: Int64.min, nanoseconds: 1))
        }
        try db.read { txn in XCTAssertVerifies(txn) }
    }

    // MARK: - Values that share the null key

    /// Nulls are filed under Int64.min, the key of the int Int64.min and, as a string's key is its first six bytes
    /// and 16 bits of a hash, of some strings that start with six zero bytes: ranges, prefixes and extremes must
    /// tell these values from null.
    func testValuesFiledUnderTheNullKeyAreToldFromNull() throws {
        let sharesNullKey = Self.stringFiledUnderTheNullKey()
        let s = try db.write { try Schema.create(in: $0) }
        var model: Model = [:]
        let items = [
            Item(maybe: nil, label: nil), Item(maybe: .min, label: sharesNullKey), Item(maybe: nil, label: nil),
            Item(maybe: .min, label: sharesNullKey), Item(maybe: .min + 1, label: []), Item(maybe: nil, label: [0]),
            Item(maybe: -1, label: Array(sharesNullKey.prefix(6))),
        ]
        func assertAll(_ txn: Transaction, _ context: String) throws {
            var generator = SeededGenerator(seed: 1)
            try assertIndexesMatch(txn, s, model, &generator, context, rangeCount: 40)
            for prefix in [[], [0], [0, 0, 0, 0, 0, 0], Array(sharesNullKey.prefix(7)), sharesNullKey] {
                let expected = model.filter { $0.value.label?.starts(with: prefix) ?? false }.keys.sorted()
                XCTAssertEqual(try txn.indexKeysWithPrefix(s.table, s.label, prefix, capacity: 10).keys, expected,
                               "prefix \(hex(prefix)), \(context)")
            }
        }
        try db.write { txn in
            for item in items {
                let key = try insert(txn, s, item)
                model[key] = item
            }
            try assertAll(txn, "inside the transaction")
        }
        try db.read { txn in
            try assertAll(txn, "committed")
            XCTAssertVerifies(txn)
        }
        // Only nulls and Int64.min remain: the maximum is Int64.min, found in the row nulls share.
        try db.write { txn in
            for (key, item) in model where item.maybe != nil && item.maybe != .min {
                try txn.deleteObject(s.table, key)
                model[key] = nil
            }
            try assertAll(txn, "nulls and Int64.min")
        }
        try db.read { txn in try assertAll(txn, "nulls and Int64.min, committed") }
    }

    /// A string of six zero bytes and three more whose ordered key is the null key: the low 16 bits of the
    /// engine's string hash (index.c, hash_bytes) are zero.
    private static func stringFiledUnderTheNullKey() -> [UInt8] {
        func hash(_ bytes: [UInt8]) -> UInt64 {
            var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
            var index = 0
            while bytes.count - index >= 8 {
                var word: UInt64 = 0
                for byte in 0..<8 { word |= UInt64(bytes[index + byte]) << (8 * UInt64(byte)) }
                h = SeededGenerator.mix(h ^ word)
                index += 8
            }
            var tail: UInt64 = 0
            for byte in 0..<(bytes.count - index) { tail |= UInt64(bytes[index + byte]) << (8 * UInt64(byte)) }
            return SeededGenerator.mix(h ^ tail ^ (UInt64(bytes.count - index) << 56))
        }
        var candidate: [UInt8] = [0, 0, 0, 0, 0, 0, 0x61, 0, 0]
        for counter in 0..<(1 << 24) {
            candidate[6] = 0x61 &+ UInt8(counter & 0x0F)
            candidate[7] = UInt8((counter >> 4) & 0xFF)
            candidate[8] = UInt8((counter >> 12) & 0xFF)
            if hash(candidate) & 0xFFFF == 0 { return candidate }
        }
        preconditionFailure("no nine-byte string with a zero hash tail")
    }

    // MARK: - Many clusters

    /// A table of many objects whose index trees have many clusters: every range, prefix and extreme walks
    /// across cluster boundaries, read from committed clusters (also after a reopen) and from a write
    /// transaction that changed some of them.
    func testQueriesOverManyClustersMatchBeforeAndAfterReopening() throws {
        var generator = makeSeededGenerator()
        let note = generator.replayNote
        let objectCount = 2_000
        var model: Model = [:]
        let s = try db.write { txn -> Schema in
            let s = try Schema.create(in: txn)
            for index in 0..<Int64(objectCount) {
                // Numbers repeat (three objects each); labels share their first six bytes in long runs, so
                // many index rows have one prefix and differ only in their hash bits; seconds run past 2^33.
                let item = Item(
                    maybe: index % 7 == 0 ? nil : index - 1_000, number: (index % 667) * 1_000_003 - 300_000_000,
                    label: Array("item-\(index % 1_500)".utf8),
                    moment: Moment(seconds: (index - 1_000) * 20_000_000, nanoseconds: Int32(index % 3) * 333),
                    flag: index % 3 == 0)
                let key = try insert(txn, s, item)
                model[key] = item
            }
            return s
        }
        let prefixes = ["", "i", "item", "item-", "item-1", "item-12", "item-123", "item-1234", "item-99", "item-9x"]
        func assertAll(_ txn: Transaction, _ context: String) throws {
            try assertIndexesMatch(txn, s, model, &generator, context, rangeCount: 40)
            for prefix in prefixes.map({ Array($0.utf8) }) {
                let expected = model.filter { $0.value.label?.starts(with: prefix) ?? false }.keys.sorted()
                XCTAssertEqual(try txn.indexCountPrefix(s.table, s.label, prefix), UInt64(expected.count),
                               "prefix \(String(decoding: prefix, as: UTF8.self)), \(context)")
                XCTAssertEqual(try txn.indexKeysWithPrefix(s.table, s.label, prefix, capacity: expected.count).keys,
                               expected, "prefix \(String(decoding: prefix, as: UTF8.self)), \(context)")
            }
        }
        try db.read { txn in
            try assertAll(txn, "committed, \(note)")
            XCTAssertVerifies(txn)
        }
        try reopen()
        try db.read { txn in try assertAll(txn, "reopened, \(note)") }
        try db.write { txn in
            for key in model.keys.sorted().shuffled(using: &generator).prefix(objectCount / 5) {
                if Bool.random(using: &generator) {
                    try txn.deleteObject(s.table, key)
                    model[key] = nil
                } else {
                    let field = Field.allCases.randomElement(using: &generator)!
                    Self.randomize(field, of: &model[key]!, &generator)
                    try write(txn, s, key, field, from: model[key]!)
                }
            }
            try assertAll(txn, "inside a transaction that changed a fifth of the objects, \(note)")
        }
        try reopen()
        try db.read { txn in
            try assertAll(txn, "changed and reopened, \(note)")
            XCTAssertVerifies(txn)
        }
    }

    /// Thousands of objects share each of a few values, so each index row lists more further keys than one
    /// collection leaf holds (CF_COLL_LEAF_MAX, 1000): counts come from the count column and keys from collection
    /// trees. A read transaction begun before a change keeps answering for its own version.
    func testValuesHeldByThousandsOfObjects() throws {
        var generator = makeSeededGenerator()
        let note = generator.replayNote
        let objectCount = 3_500
        var model: Model = [:]
        let s = try db.write { txn -> Schema in
            let s = try Schema.create(in: txn)
            for index in 0..<objectCount {
                let value = Int64(index % 3) - 1
                let odd = index % 2 == 1
                let item = Item(maybe: odd ? value : nil, number: value,
                                label: odd ? Array("shared-prefix-\(value)".utf8) : nil,
                                moment: odd ? Moment(seconds: value << 34, nanoseconds: 7) : nil, flag: odd)
                let key = try insert(txn, s, item)
                model[key] = item
            }
            return s
        }
        try reopen()
        try db.read { txn in
            try assertIndexesMatch(txn, s, model, &generator, "committed, \(note)", rangeCount: 24)
            XCTAssertVerifies(txn)
        }
        let before = try db.beginRead()
        defer { before.rollback() }
        let original = model
        try db.write { txn in
            for (index, key) in model.keys.sorted().enumerated() {
                switch index % 10 {
                case 0, 5:
                    try txn.deleteObject(s.table, key)
                    model[key] = nil
                case 3:
                    for field in Field.allCases {
                        Self.randomize(field, of: &model[key]!, &generator)
                        try write(txn, s, key, field, from: model[key]!)
                    }
                default:
                    break
                }
            }
            try assertIndexesMatch(txn, s, model, &generator, "changed inside the transaction, \(note)",
                                   rangeCount: 24)
        }
        try assertIndexesMatch(before, s, original, &generator, "read transaction begun before the change, \(note)",
                               rangeCount: 24)
        try db.read { txn in
            try assertIndexesMatch(txn, s, model, &generator, "changed and committed, \(note)", rangeCount: 24)
            XCTAssertVerifies(txn)
        }
    }

    /// Ordered index trees (with their count column and long further-key lists) are released whole when their
    /// index is dropped, their column removed or their table removed: the file verifies, also after a reopen.
    func testDroppedRemovedAndTableRemovedIndexesLeaveASoundFile() throws {
        let (kept, removed) = try db.write { txn -> (Schema, Schema) in
            let kept = try Schema.create(in: txn, name: "kept")
            let removed = try Schema.create(in: txn, name: "removed")
            for index in 0..<2_500 {
                for s in [kept, removed] {
                    let value = Int64(index % 2)
                    _ = try insert(txn, s, Item(maybe: value, number: value, label: Array("v\(value)".utf8),
                                                moment: Moment(seconds: value, nanoseconds: 0), flag: index % 2 == 0))
                }
            }
            return (kept, removed)
        }
        try db.write { txn in
            try txn.setIndexed(kept.table, kept.maybe, false)
            try txn.removeColumn(kept.table, kept.label)
            try txn.removeTable(removed.table)
        }
        try db.read { txn in
            XCTAssertVerifies(txn, "after the drops")
            XCTAssertEqual(try txn.indexCountRange(kept.table, kept.number, IndexRange(lower: .int(1))), 1_250)
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.indexCountRange(kept.table, kept.maybe, IndexRange()))
            XCTAssertEngineError(COLUMNAR_ENOTFOUND, try txn.indexCountPrefix(kept.table, kept.label, []))
        }
        try reopen()
        try db.read { txn in XCTAssertVerifies(txn, "reopened after the drops") }
    }

    /// Deleting the objects that hold the largest (smallest) values one by one empties the index's last (first)
    /// clusters inside the transaction: the extreme must be found in the clusters that remain.
    func testExtremesFollowDeletionsFromEitherEndOfManyClusters() throws {
        var generator = makeSeededGenerator()
        let note = generator.replayNote
        let objectCount = 400
        var model: Model = [:]
        let s = try db.write { txn -> Schema in
            let s = try Schema.create(in: txn)
            for index in Array(0..<Int64(objectCount)).shuffled(using: &generator) {
                let item = Item(maybe: index % 5 == 0 ? nil : index * 3, number: index / 2,
                                moment: Moment(seconds: (index - 200) * 50_000_000, nanoseconds: Int32(index)))
                let key = try insert(txn, s, item)
                model[key] = item
            }
            return s
        }
        try reopen()
        for maximum in [true, false] {
            let end = maximum ? "largest" : "smallest"
            let txn = try db.beginWrite()
            var remaining = model
            var deleted = 0
            while let target = maximum ? remaining.max(by: { $0.value.number < $1.value.number })
                                       : remaining.min(by: { $0.value.number < $1.value.number }) {
                try txn.deleteObject(s.table, target.key)
                remaining[target.key] = nil
                deleted += 1
                let context = "\(deleted) objects with the \(end) numbers deleted, \(note)"
                let numbers = remaining.values.map(\.number)
                let maybes = remaining.values.compactMap(\.maybe)
                let moments = remaining.values.compactMap(\.moment)
                XCTAssertEqual(try txn.indexExtreme(s.table, s.number, maximum: maximum),
                               (maximum ? numbers.max() : numbers.min()).map(Value.int), context)
                XCTAssertEqual(try txn.indexExtreme(s.table, s.maybe, maximum: maximum),
                               (maximum ? maybes.max() : maybes.min()).map(Value.int), context)
                XCTAssertEqual(try txn.indexExtreme(s.table, s.moment, maximum: maximum),
                               (maximum ? moments.max() : moments.min())?.value, context)
                XCTAssertEqual(try txn.indexCountRange(s.table, s.number, IndexRange()), UInt64(remaining.count),
                               context)
                if deleted % 50 == 0 {
                    try assertIndexesMatch(txn, s, remaining, &generator, context, rangeCount: 8)
                }
            }
            txn.rollback()
            try db.read { txn in
                try assertIndexesMatch(txn, s, model, &generator, "deletions of the \(end) rolled back, \(note)")
            }
        }
        // Everything deleted and committed: an empty tree.
        try db.write { txn in
            for key in model.keys { try txn.deleteObject(s.table, key) }
        }
        try db.read { txn in
            try assertIndexesMatch(txn, s, [:], &generator, "every object deleted, \(note)")
            XCTAssertVerifies(txn)
        }
    }
}

// MARK: - Ordered index queries

/// Bounds of a range for columnar_index_count_range and columnar_index_keys_in_range; a nil bound leaves that
/// side open.
private struct IndexRange: CustomStringConvertible {
    var lower: Value?
    var lowerInclusive = true
    var upper: Value?
    var upperInclusive = true

    init(lower: Value? = nil, lowerInclusive: Bool = true, upper: Value? = nil, upperInclusive: Bool = true) {
        self.lower = lower
        self.lowerInclusive = lowerInclusive
        self.upper = upper
        self.upperInclusive = upperInclusive
    }

    /// Whether `value` is in the range (int bounds only).
    func contains(_ value: Int64) -> Bool {
        if case .int(let low)? = lower, lowerInclusive ? value < low : value <= low { return false }
        if case .int(let high)? = upper, upperInclusive ? value > high : value >= high { return false }
        return true
    }

    /// The C range of int (or absent) bounds, which hold no pointers.
    var cRangeOfInts: columnar_index_range {
        withCRange { $0.pointee }
    }

    /// Lends the engine the range; string bounds' bytes are valid only inside `body`.
    func withCRange<R>(_ body: (UnsafePointer<columnar_index_range>) throws -> R) rethrows -> R {
        try Self.withBound(lower) { low in
            try Self.withBound(upper) { high in
                var range = columnar_index_range()
                if let low {
                    range.lower = low.pointee
                    range.has_lower = true
                }
                if let high {
                    range.upper = high.pointee
                    range.has_upper = true
                }
                range.lower_inclusive = lowerInclusive
                range.upper_inclusive = upperInclusive
                return try body(&range)
            }
        }
    }

    private static func withBound<R>(_ bound: Value?,
                                     _ body: (UnsafePointer<columnar_value>?) throws -> R) rethrows -> R {
        guard let bound else { return try body(nil) }
        return try bound.withCValue(type: COLUMNAR_TYPE_INT) { try body($0) }
    }

    var description: String {
        let low = lower.map { "\($0)" } ?? "-inf"
        let high = upper.map { "\($0)" } ?? "+inf"
        return (lowerInclusive ? "[" : "(") + low + ", " + high + (upperInclusive ? "]" : ")")
    }
}

/// Lends the engine `bytes` as a string value (nil: null), for strings that are not valid UTF-8.
private func withStringValue<R>(_ bytes: [UInt8]?, _ body: (UnsafePointer<columnar_value>) throws -> R) rethrows -> R {
    var value = columnar_value()
    value.type = COLUMNAR_TYPE_STRING
    guard let bytes else {
        value.is_null = true
        return try body(&value)
    }
    return try withNonNullBytes(bytes) { pointer, count in
        value.`as`.bytes.data = pointer
        value.`as`.bytes.size = count
        return try body(&value)
    }
}

extension Transaction {
    /// columnar_obj_set of a string given as bytes (nil: null).
    fileprivate func setString(_ table: TableID, _ key: ObjectKey, _ column: ColumnID, _ bytes: [UInt8]?) throws {
        try withStringValue(bytes) { value in
            try check(columnar_obj_set(handle, table, key, column, value), "columnar_obj_set \(key).\(column)")
        }
    }

    /// columnar_index_find_all, asked once for the count and again with room for every key.
    fileprivate func indexFindAll(_ table: TableID, _ column: ColumnID,
                                  _ value: UnsafePointer<columnar_value>) throws -> [ObjectKey] {
        var count = 0
        try check(columnar_index_find_all(handle, table, column, value, nil, 0, &count), "columnar_index_find_all")
        var keys = [ObjectKey](repeating: -1, count: max(count, 1))
        let capacity = count
        try check(columnar_index_find_all(handle, table, column, value, &keys, capacity, &count),
                  "columnar_index_find_all")
        return Array(keys.prefix(count))
    }

    fileprivate func indexFindAll(_ table: TableID, _ column: ColumnID, _ value: Value) throws -> [ObjectKey] {
        let type = try value.type ?? columnInfo(table, column).type
        return try value.withCValue(type: type) { try indexFindAll(table, column, $0) }
    }

    fileprivate func indexFindAll(_ table: TableID, _ column: ColumnID, string: [UInt8]?) throws -> [ObjectKey] {
        try withStringValue(string) { try indexFindAll(table, column, $0) }
    }

    /// columnar_index_count_range.
    fileprivate func indexCountRange(_ table: TableID, _ column: ColumnID, _ range: IndexRange) throws -> UInt64 {
        var count: UInt64 = 0
        try range.withCRange { range in
            try check(columnar_index_count_range(handle, table, column, range, &count),
                      "columnar_index_count_range")
        }
        return count
    }

    /// columnar_index_keys_in_range with room for `capacity` keys (none: a NULL buffer): the keys written and
    /// the count.
    fileprivate func indexKeysInRange(_ table: TableID, _ column: ColumnID, _ range: IndexRange,
                                      capacity: Int) throws -> (keys: [ObjectKey], count: Int) {
        var count = 0
        var keys = [ObjectKey](repeating: -1, count: capacity)
        try range.withCRange { range in
            let rc = capacity == 0
                ? columnar_index_keys_in_range(handle, table, column, range, nil, 0, &count)
                : columnar_index_keys_in_range(handle, table, column, range, &keys, capacity, &count)
            try check(rc, "columnar_index_keys_in_range")
        }
        return (Array(keys.prefix(count)), count)
    }

    /// columnar_index_ordered_entries: the entries written and the total.
    fileprivate func indexOrderedEntries(_ table: TableID, _ column: ColumnID, capacity: Int) throws
        -> (entries: [(indexKey: Int64, object: ObjectKey)], count: Int) {
        var count = 0
        var indexKeys = [Int64](repeating: 0, count: max(capacity, 1))
        var objects = [ObjectKey](repeating: -1, count: max(capacity, 1))
        try check(columnar_index_ordered_entries(handle, table, column, &indexKeys, &objects, capacity, &count),
                  "columnar_index_ordered_entries")
        let written = min(count, capacity)
        return ((0..<written).map { (indexKeys[$0], objects[$0]) }, count)
    }

    /// columnar_index_count_prefix.
    fileprivate func indexCountPrefix(_ table: TableID, _ column: ColumnID, _ prefix: [UInt8]) throws -> UInt64 {
        var count: UInt64 = 0
        try withNonNullBytes(prefix) { pointer, size in
            try check(columnar_index_count_prefix(handle, table, column, pointer, size, &count),
                      "columnar_index_count_prefix")
        }
        return count
    }

    /// columnar_index_keys_with_prefix with room for `capacity` keys (none: a NULL buffer): the keys written and
    /// the count.
    fileprivate func indexKeysWithPrefix(_ table: TableID, _ column: ColumnID, _ prefix: [UInt8],
                                         capacity: Int) throws -> (keys: [ObjectKey], count: Int) {
        var count = 0
        var keys = [ObjectKey](repeating: -1, count: capacity)
        try withNonNullBytes(prefix) { pointer, size in
            let rc = capacity == 0
                ? columnar_index_keys_with_prefix(handle, table, column, pointer, size, nil, 0, &count)
                : columnar_index_keys_with_prefix(handle, table, column, pointer, size, &keys, capacity, &count)
            try check(rc, "columnar_index_keys_with_prefix")
        }
        return (Array(keys.prefix(count)), count)
    }

    /// columnar_index_extreme: the smallest or largest value, nil when not found.
    fileprivate func indexExtreme(_ table: TableID, _ column: ColumnID, maximum: Bool) throws -> Value? {
        var value = columnar_value()
        var found = false
        try check(columnar_index_extreme(handle, table, column, maximum, &value, &found), "columnar_index_extreme")
        return found ? Value(value) : nil
    }
}
