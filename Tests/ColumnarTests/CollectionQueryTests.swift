// CollectionQueryTests: queries on collections of values (List, MutableSet, a Map's values) through `self`, and on
// maps of objects, managed (inside the write that filled them and again after it commits) and unmanaged.
//
// Every method is checked against a plain Swift computation of the documented rules (docs/QueryVM.md, section 4)
// over the same elements, read back from the collection: filter and `where` against Swift's `filter`, sorting
// against a stable sort that puts nulls first and NaN next, distinct against keeping first occurrences, and the
// aggregates against sums, minima and means that skip nulls (and, for min and max, NaN). The elements are random
// (nulls, NaN, infinities, signed zeros, duplicates and empty collections included); a failure prints the seed
// that replays it (COLUMNAR_TEST_SEED).
//
// The models are this file's own (prefixed CQ) so that other test files can change theirs freely.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

// MARK: - Models

final class CQOwner: Object {
    @Persisted var name = ""
    @Persisted var age = 0
}

final class CQDog: Object {
    @Persisted var name = ""
    @Persisted var age: Int?
    @Persisted var weight = 0.0
    @Persisted var owner: CQOwner?
}

enum CQKind: Int, PersistableEnum {
    case small = 1, medium = 2, large = 3
}

final class CQHolder: Object {
    @Persisted var ints: List<Int>
    @Persisted var optInts: List<Int?>
    @Persisted var optDoubles: List<Double?>
    @Persisted var floats: List<Float>
    @Persisted var optStrings: List<String?>
    @Persisted var optDates: List<Date?>
    @Persisted var intSet: MutableSet<Int?>
    @Persisted var doubleSet: MutableSet<Double?>
    @Persisted var dateSet: MutableSet<Date>
    @Persisted var intMap: Map<String, Int?>
    @Persisted var doubleMap: Map<String, Double>
    @Persisted var dogMap: Map<String, CQDog?>
    @Persisted var decimals: List<Decimal128?>
    @Persisted var kinds: List<CQKind>
}

// MARK: - The reference rules

/// The documented rules for one element type, in plain Swift: what every query is checked against.
private struct Rules<V> {
    var isNull: (V) -> Bool
    var isNaN: (V) -> Bool
    /// The order of two values that are neither null nor NaN.
    var less: (V, V) -> Bool
    /// Whether two elements are one value for distinct (null is one value, NaN another).
    var same: (V, V) -> Bool
    /// Whether a result is exactly the expected element (a zero keeps its sign).
    var identical: (V, V) -> Bool

    private func rank(_ value: V) -> Int { isNull(value) ? 0 : (isNaN(value) ? 1 : 2) }

    /// A stable sort: ascending puts nulls first, then NaN, then values; descending reverses that order, and ties
    /// keep the collection's order either way.
    func sorted(_ values: [V], ascending: Bool) -> [V] {
        let order = values.indices.sorted { left, right in
            let a = values[left], b = values[right]
            var sign = rank(a) == rank(b) ? 0 : (rank(a) < rank(b) ? -1 : 1)
            if sign == 0 && rank(a) == 2 { sign = less(a, b) ? -1 : (less(b, a) ? 1 : 0) }
            if sign != 0 { return ascending ? sign < 0 : sign > 0 }
            return left < right
        }
        return order.map { values[$0] }
    }

    /// The first occurrence of each value.
    func distinct(_ values: [V]) -> [V] {
        var kept: [V] = []
        for value in values where !kept.contains(where: { same($0, value) }) { kept.append(value) }
        return kept
    }

    /// The first smallest and first largest value, nulls and NaN skipped; nil when there is none.
    func extremes(_ values: [V]) -> (min: V, max: V)? {
        let present = values.filter { !isNull($0) && !isNaN($0) }
        guard var low = present.first else { return nil }
        var high = low
        for value in present.dropFirst() {
            if less(value, low) { low = value }
            if less(high, value) { high = value }
        }
        return (low, high)
    }

    func sameElements<S: Sequence>(_ actual: S, _ expected: [V]) -> Bool where S.Element == V {
        let actual = Array(actual)
        return actual.count == expected.count && zip(actual, expected).allSatisfy(identical)
    }
}

private func comparableRules<W: Comparable>(_: W.Type) -> Rules<W> {
    Rules(isNull: { _ in false }, isNaN: { _ in false }, less: { $0 < $1 }, same: { $0 == $1 }, identical: { $0 == $1 })
}

private func optionalRules<W: Comparable>(_: W.Type) -> Rules<W?> {
    Rules(isNull: { $0 == nil }, isNaN: { _ in false }, less: { $0! < $1! }, same: { $0 == $1 },
          identical: { $0 == $1 })
}

private func floatingRules<W: BinaryFloatingPoint>(_: W.Type) -> Rules<W> {
    Rules(isNull: { _ in false }, isNaN: { $0.isNaN }, less: { $0 < $1 },
          same: { ($0.isNaN && $1.isNaN) || $0 == $1 },
          identical: { ($0.isNaN && $1.isNaN) || ($0 == $1 && $0.sign == $1.sign) })
}

private func optionalFloatingRules<W: BinaryFloatingPoint>(_: W.Type) -> Rules<W?> {
    let plain = floatingRules(W.self)
    return Rules(isNull: { $0 == nil }, isNaN: { $0?.isNaN == true }, less: { $0! < $1! },
                 same: { ($0 == nil && $1 == nil) || ($0 != nil && $1 != nil && plain.same($0!, $1!)) },
                 identical: { ($0 == nil && $1 == nil) || ($0 != nil && $1 != nil && plain.identical($0!, $1!)) })
}

/// Whether two aggregates agree (NaN agrees with NaN, nil with nil).
private func sameNumber<W: BinaryFloatingPoint>(_ actual: W?, _ expected: W?) -> Bool {
    if let actual, let expected { return (actual.isNaN && expected.isNaN) || actual == expected }
    return actual == nil && expected == nil
}

/// The documented sum and mean of numbers in plain Swift: nulls skipped, integers summed exactly, floating point
/// in Double in the collection's order, the mean of nothing nil.
private func integerSum(_ values: [Int?]) -> Int { values.compactMap { $0 }.reduce(0, +) }

private func integerMean(_ values: [Int?]) -> Double? {
    let present = values.compactMap { $0 }
    return present.isEmpty ? nil : Double(present.reduce(0, +)) / Double(present.count)
}

private func doubleSum(_ values: [Double?]) -> Double { values.compactMap { $0 }.reduce(0.0, +) }

private func doubleMean(_ values: [Double?]) -> Double? {
    let present = values.compactMap { $0 }
    return present.isEmpty ? nil : present.reduce(0.0, +) / Double(present.count)
}

// MARK: - Random elements

extension SeededGenerator {
    mutating func count(upTo maximum: Int) -> Int {
        // An empty collection one time in six.
        Int.random(in: 0...5, using: &self) == 0 ? 0 : Int.random(in: 1...maximum, using: &self)
    }

    mutating func optionalInt() -> Int? {
        Int.random(in: 0..<5, using: &self) == 0 ? nil : Int.random(in: -20...20, using: &self)
    }

    mutating func double() -> Double {
        let special: [Double] = [.nan, .infinity, -.infinity, 0.0, -0.0, 1.5, -1.5]
        if Int.random(in: 0..<3, using: &self) == 0 { return special.randomElement(using: &self)! }
        return Double(Int.random(in: -40...40, using: &self)) / 4
    }

    mutating func optionalDouble() -> Double? {
        Int.random(in: 0..<5, using: &self) == 0 ? nil : double()
    }

    mutating func optionalString() -> String? {
        let words: [String?] = [nil, "", "a", "A", "ab", "Ab", "abc", "b", "ba", "e", "é", "É", "ée", "bä", "z"]
        return words.randomElement(using: &self)!
    }

    mutating func date() -> Date {
        Date(timeIntervalSince1970: Double(Int.random(in: -400...400, using: &self)) / 4)
    }
}

// MARK: - Tests

final class CollectionQueryTests: RealmTestCase {
    private let rounds = 30

    /// Fills a fresh holder inside a write, runs `check` there (before the commit) and again after the commit.
    private func eachRound(_ realm: Realm, _ generator: inout SeededGenerator,
                           fill: (CQHolder, inout SeededGenerator) -> Void, check: (CQHolder, String) -> Void) throws {
        for round in 0..<rounds {
            let holder = CQHolder()
            try realm.write {
                realm.add(holder)
                fill(holder, &generator)
                check(holder, "round \(round), before commit")
            }
            check(holder, "round \(round), after commit")
        }
    }

    // MARK: Integers

    /// The queries every collection of optional integers answers, checked against `rules` over its elements.
    private func checkOptionalInts<C: QueryableValueCollection>(_ collection: C, _ note: String, pivot: Int,
                                                                 file: StaticString = #filePath, line: UInt = #line)
        where C.Element == Int? {
        let rules = optionalRules(Int.self)
        let elements = Array(collection)
        func expect(_ actual: Results<Int?>, _ expected: [Int?], _ what: String) {
            XCTAssertTrue(rules.sameElements(actual, expected),
                          "\(what), pivot \(pivot), on \(elements), \(note): \(Array(actual)) instead of \(expected)",
                          file: file, line: line)
        }
        expect(collection.filter("self > %@", pivot), elements.filter { $0.map { $0 > pivot } ?? false }, "self > %@")
        expect(collection.filter("self != %@", pivot), elements.filter { $0 != pivot }, "self != %@")
        expect(collection.filter("self == nil"), elements.filter { $0 == nil }, "self == nil")
        expect(collection.filter("self BETWEEN {%@, %@}", pivot - 5, pivot + 5),
               elements.filter { $0.map { abs($0 - pivot) <= 5 } ?? false }, "BETWEEN")
        expect(collection.filter("self IN %@", [pivot, pivot + 1]), elements.filter { $0 == pivot || $0 == pivot + 1 },
               "IN")
        expect(collection.filter("NOT (self < %@) OR self == nil", pivot),
               elements.filter { $0.map { $0 >= pivot } ?? true }, "NOT … OR")
        expect(collection.where { $0 > pivot }, elements.filter { $0.map { $0 > pivot } ?? false }, "where >")
        expect(collection.where { $0 == nil || $0 <= pivot }, elements.filter { $0.map { $0 <= pivot } ?? true },
               "where == nil ||")
        expect(collection.where { $0.contains((pivot - 3)...(pivot + 3)) },
               elements.filter { $0.map { abs($0 - pivot) <= 3 } ?? false }, "where contains(range)")
        expect(collection.where { $0.in([pivot, nil]) }, elements.filter { $0 == pivot || $0 == nil }, "where in")
        expect(collection.where { !($0 != pivot) }, elements.filter { $0 == pivot }, "where !(!=)")
        expect(collection.sorted(ascending: true), rules.sorted(elements, ascending: true), "sorted ascending")
        expect(collection.sorted(ascending: false), rules.sorted(elements, ascending: false), "sorted descending")
        expect(collection.sorted(byKeyPath: "self", ascending: false), rules.sorted(elements, ascending: false),
               "sorted(byKeyPath: self)")
        expect(collection.distinct(), rules.distinct(elements), "distinct")
        expect(collection.filter("self != nil").sorted(ascending: false).distinct(),
               rules.distinct(rules.sorted(elements.filter { $0 != nil }, ascending: false)), "chained")
        XCTAssertEqual(collection.index(matching: "self >= %@", pivot),
                       elements.firstIndex { $0.map { $0 >= pivot } ?? false }, "index(matching:), \(note)",
                       file: file, line: line)
        XCTAssertEqual(collection.index(matching: { $0 == nil }), elements.firstIndex { $0 == nil },
                       "index(matching: {}), \(note)", file: file, line: line)
        let extremes = rules.extremes(elements)
        XCTAssertEqual(collection.min() ?? nil, extremes?.min, "min of \(elements), \(note)", file: file, line: line)
        XCTAssertEqual(collection.max() ?? nil, extremes?.max, "max of \(elements), \(note)", file: file, line: line)
        XCTAssertEqual(collection.sum(), integerSum(elements), "sum of \(elements), \(note)", file: file, line: line)
        XCTAssertEqual(collection.average() as Double?, integerMean(elements), "average of \(elements), \(note)",
                       file: file, line: line)
        XCTAssertEqual(collection.sum(ofProperty: "self") as Int64, Int64(integerSum(elements)), note,
                       file: file, line: line)
        XCTAssertEqual(collection.average(ofProperty: "self") as Int?, integerMean(elements).map { Int($0) }, note,
                       file: file, line: line)
    }

    func testListsAndSetsOfOptionalIntegersAnswerQueriesThroughSelf() throws {
        let realm = try openRealm()
        var generator = makeSeededGenerator()
        try eachRound(realm, &generator, fill: { holder, generator in
            for _ in 0..<generator.count(upTo: 14) {
                let value = generator.optionalInt()
                holder.optInts.append(value)
                holder.intSet.insert(value)
            }
        }, check: { holder, note in
            for pivot in [-5, 0, 7] {
                checkOptionalInts(holder.optInts, "list, \(note)", pivot: pivot)
                checkOptionalInts(holder.intSet, "set, \(note)", pivot: pivot)
            }
        })
    }

    func testListOfIntegersSortsSumsAndFindsExtremes() throws {
        let realm = try openRealm()
        var generator = makeSeededGenerator()
        let rules = comparableRules(Int.self)
        try eachRound(realm, &generator, fill: { holder, generator in
            for _ in 0..<generator.count(upTo: 14) { holder.ints.append(Int.random(in: -9...9, using: &generator)) }
        }, check: { holder, note in
            let elements = Array(holder.ints)
            XCTAssertTrue(rules.sameElements(holder.ints.filter("self > 2"), elements.filter { $0 > 2 }), note)
            XCTAssertTrue(rules.sameElements(holder.ints.where { $0 < 2 && $0 != -3 },
                                             elements.filter { $0 < 2 && $0 != -3 }), note)
            XCTAssertTrue(rules.sameElements(holder.ints.sorted(), rules.sorted(elements, ascending: true)), note)
            XCTAssertTrue(rules.sameElements(holder.ints.distinct(), rules.distinct(elements)), note)
            XCTAssertEqual(holder.ints.min(), elements.min(), note)
            XCTAssertEqual(holder.ints.max(), elements.max(), note)
            XCTAssertEqual(holder.ints.sum(), elements.reduce(0, +), note)
            XCTAssertEqual(holder.ints.average() as Double?,
                           elements.isEmpty ? nil : Double(elements.reduce(0, +)) / Double(elements.count), note)
            // Results of values answer the same value-only methods.
            let positive = holder.ints.filter("self > 0")
            XCTAssertEqual(positive.min(), elements.filter { $0 > 0 }.min(), note)
            XCTAssertEqual(positive.sum(), elements.filter { $0 > 0 }.reduce(0, +), note)
            XCTAssertTrue(rules.sameElements(positive.sorted(ascending: false),
                                             rules.sorted(elements.filter { $0 > 0 }, ascending: false)), note)
        })
    }

    // MARK: Floating point

    private func checkOptionalDoubles<C: QueryableValueCollection>(_ collection: C, _ note: String, pivot: Double,
                                                                    file: StaticString = #filePath,
                                                                    line: UInt = #line)
        where C.Element == Double? {
        let rules = optionalFloatingRules(Double.self)
        let elements = Array(collection)
        func expect(_ actual: Results<Double?>, _ expected: [Double?], _ what: String) {
            XCTAssertTrue(rules.sameElements(actual, expected),
                          "\(what), pivot \(pivot), on \(elements), \(note): \(Array(actual)) instead of \(expected)",
                          file: file, line: line)
        }
        expect(collection.filter("self > %@", pivot), elements.filter { $0.map { $0 > pivot } ?? false }, "self > %@")
        expect(collection.filter("self <= %@", pivot), elements.filter { $0.map { $0 <= pivot } ?? false }, "self <=")
        // NaN is unequal to everything, so `!=` holds for it (and for null).
        expect(collection.filter("self != %@", pivot), elements.filter { $0 != pivot }, "self != %@")
        expect(collection.filter("self == nil"), elements.filter { $0 == nil }, "self == nil")
        expect(collection.where { $0 >= pivot || $0 == nil }, elements.filter { $0.map { $0 >= pivot } ?? true },
               "where >= ||")
        expect(collection.where { $0.contains(-1.0...1.0) },
               elements.filter { $0.map { (-1...1).contains($0) } ?? false }, "where contains(range)")
        expect(collection.sorted(ascending: true), rules.sorted(elements, ascending: true), "sorted ascending")
        expect(collection.sorted(ascending: false), rules.sorted(elements, ascending: false), "sorted descending")
        expect(collection.distinct(), rules.distinct(elements), "distinct")
        XCTAssertEqual(collection.index(matching: "self < %@", pivot),
                       elements.firstIndex { $0.map { $0 < pivot } ?? false }, note, file: file, line: line)
        let extremes = rules.extremes(elements)
        XCTAssertTrue(sameNumber(collection.min() ?? nil, extremes?.min ?? nil),
                      "min of \(elements): \(String(describing: collection.min())), \(note)", file: file, line: line)
        XCTAssertTrue(sameNumber(collection.max() ?? nil, extremes?.max ?? nil),
                      "max of \(elements): \(String(describing: collection.max())), \(note)", file: file, line: line)
        XCTAssertTrue(sameNumber(collection.sum(), doubleSum(elements)),
                      "sum of \(elements): \(String(describing: collection.sum())), \(note)", file: file, line: line)
        let average: Double? = collection.average()
        XCTAssertTrue(sameNumber(average, doubleMean(elements)),
                      "average of \(elements): \(String(describing: average)), \(note)", file: file, line: line)
    }

    func testDoubleCollectionsSortNullsThenNaNAndSkipNaNOnlyInMinAndMax() throws {
        let realm = try openRealm()
        var generator = makeSeededGenerator()
        try eachRound(realm, &generator, fill: { holder, generator in
            for _ in 0..<generator.count(upTo: 14) {
                let value = generator.optionalDouble()
                holder.optDoubles.append(value)
                holder.doubleSet.insert(value)
            }
        }, check: { holder, note in
            for pivot in [-1.5, 0.0, 2.25] {
                checkOptionalDoubles(holder.optDoubles, "list, \(note)", pivot: pivot)
                checkOptionalDoubles(holder.doubleSet, "set, \(note)", pivot: pivot)
            }
        })
    }

    func testFloatListSumsInDoubleAndReturnsFloats() throws {
        let realm = try openRealm()
        var generator = makeSeededGenerator()
        let rules = floatingRules(Float.self)
        try eachRound(realm, &generator, fill: { holder, generator in
            for _ in 0..<generator.count(upTo: 14) { holder.floats.append(Float(generator.double())) }
        }, check: { holder, note in
            let elements = Array(holder.floats)
            let extremes = rules.extremes(elements)
            XCTAssertTrue(sameNumber(holder.floats.min(), extremes?.min), "min of \(elements), \(note)")
            XCTAssertTrue(sameNumber(holder.floats.max(), extremes?.max), "max of \(elements), \(note)")
            let sum = elements.reduce(0.0) { $0 + Double($1) }
            XCTAssertTrue(sameNumber(holder.floats.sum(), Float(sum)), "sum of \(elements), \(note)")
            XCTAssertTrue(sameNumber(holder.floats.average() as Double?,
                                     elements.isEmpty ? nil : sum / Double(elements.count)), note)
            XCTAssertTrue(rules.sameElements(holder.floats.sorted(ascending: false),
                                             rules.sorted(elements, ascending: false)), "\(elements), \(note)")
            XCTAssertTrue(rules.sameElements(holder.floats.filter("self >= 0.5"), elements.filter { $0 >= 0.5 }), note)
        })
    }

    // MARK: Strings and dates

    func testStringListFoldsCaseAndDiacriticsAndSortsBytewise() throws {
        let realm = try openRealm()
        var generator = makeSeededGenerator()
        let rules = Rules<String?>(
            isNull: { $0 == nil }, isNaN: { _ in false },
            less: { $0!.utf8.lexicographicallyPrecedes($1!.utf8) },
            same: { $0.map { Array($0.utf8) } == $1.map { Array($0.utf8) } },
            identical: { $0.map { Array($0.utf8) } == $1.map { Array($0.utf8) } })
        // The words' foldings, written out: `[c]` lowercases (É to é), `[cd]` also drops accents (é to e).
        let foldsToE: Set<String> = ["e", "é", "É"]
        try eachRound(realm, &generator, fill: { holder, generator in
            for _ in 0..<generator.count(upTo: 14) { holder.optStrings.append(generator.optionalString()) }
        }, check: { holder, note in
            let list = holder.optStrings
            let elements = Array(list)
            func expect(_ actual: Results<String?>, _ expected: [String?], _ what: String) {
                XCTAssertTrue(rules.sameElements(actual, expected),
                              "\(what) on \(elements), \(note): \(Array(actual)) instead of \(expected)")
            }
            expect(list.filter("self BEGINSWITH[c] %@", "a"),
                   elements.filter { $0.map { $0.lowercased().hasPrefix("a") } ?? false }, "BEGINSWITH[c]")
            expect(list.filter("self ==[cd] %@", "E"), elements.filter { $0.map(foldsToE.contains) ?? false }, "==[cd]")
            expect(list.filter("self ==[c] %@", "É"), elements.filter { $0 == "é" || $0 == "É" }, "==[c]")
            expect(list.filter("self LIKE %@", "*b"), elements.filter { $0?.hasSuffix("b") ?? false }, "LIKE")
            expect(list.filter("self > %@", "b"),
                   elements.filter { $0.map { "b".utf8.lexicographicallyPrecedes($0.utf8) } ?? false }, "self > 'b'")
            expect(list.filter("self == nil OR self == ''"), elements.filter { $0 == nil || $0 == "" }, "nil or empty")
            expect(list.where { $0.starts(with: "a", options: .caseInsensitive) },
                   elements.filter { $0.map { $0.lowercased().hasPrefix("a") } ?? false }, "where starts(with:)")
            expect(list.where { $0.contains("b") && $0 != "ab" },
                   elements.filter { ($0?.contains("b") ?? false) && $0 != "ab" }, "where contains &&")
            expect(list.where { $0.like("?") }, elements.filter { $0?.unicodeScalars.count == 1 }, "where like")
            expect(list.sorted(), rules.sorted(elements, ascending: true), "sorted")
            expect(list.sorted(ascending: false), rules.sorted(elements, ascending: false), "sorted descending")
            expect(list.distinct(), rules.distinct(elements), "distinct")
            XCTAssertEqual(list.index(matching: "self ENDSWITH %@", "a"),
                           elements.firstIndex { $0?.hasSuffix("a") ?? false }, note)
        })
    }

    func testDateCollectionsFilterSortAndFindExtremes() throws {
        let realm = try openRealm()
        var generator = makeSeededGenerator()
        let setRules = comparableRules(Date.self)
        let listRules = optionalRules(Date.self)
        let pivot = Date(timeIntervalSince1970: 12.5)
        try eachRound(realm, &generator, fill: { holder, generator in
            for _ in 0..<generator.count(upTo: 14) {
                let date = generator.date()
                holder.dateSet.insert(date)
                holder.optDates.append(Int.random(in: 0..<4, using: &generator) == 0 ? nil : date)
            }
        }, check: { holder, note in
            let set = Array(holder.dateSet)
            XCTAssertTrue(setRules.sameElements(holder.dateSet.filter("self < %@", pivot), set.filter { $0 < pivot }),
                          note)
            XCTAssertTrue(setRules.sameElements(holder.dateSet.where { $0 >= pivot }, set.filter { $0 >= pivot }), note)
            XCTAssertTrue(setRules.sameElements(holder.dateSet.sorted(ascending: false),
                                                setRules.sorted(set, ascending: false)), note)
            XCTAssertEqual(holder.dateSet.min(), set.min(), note)
            XCTAssertEqual(holder.dateSet.max(), set.max(), note)
            let list = Array(holder.optDates)
            XCTAssertTrue(listRules.sameElements(holder.optDates.filter("self > %@", pivot),
                                                 list.filter { $0.map { $0 > pivot } ?? false }), note)
            XCTAssertTrue(listRules.sameElements(holder.optDates.sorted(), listRules.sorted(list, ascending: true)),
                          note)
            XCTAssertTrue(listRules.sameElements(holder.optDates.distinct(), listRules.distinct(list)), note)
            XCTAssertEqual(holder.optDates.min() ?? nil, listRules.extremes(list)?.min, note)
            XCTAssertEqual(holder.optDates.max() ?? nil, listRules.extremes(list)?.max, note)
        })
    }

    // MARK: Maps

    func testMapOfValuesQueriesItsValuesInKeyOrder() throws {
        let realm = try openRealm()
        var generator = makeSeededGenerator()
        let intRules = optionalRules(Int.self)
        let doubleRules = floatingRules(Double.self)
        try eachRound(realm, &generator, fill: { holder, generator in
            for _ in 0..<generator.count(upTo: 12) {
                holder.intMap["k\(Int.random(in: 0..<20, using: &generator))"] = .some(generator.optionalInt())
                holder.doubleMap["k\(Int.random(in: 0..<20, using: &generator))"] = generator.double()
            }
        }, check: { holder, note in
            let map = holder.intMap
            let values = map.values
            func expect(_ actual: Results<Int?>, _ expected: [Int?], _ what: String) {
                XCTAssertTrue(intRules.sameElements(actual, expected),
                              "\(what) on \(values), \(note): \(Array(actual)) instead of \(expected)")
            }
            expect(map.filter("self > %@", 3), values.filter { $0.map { $0 > 3 } ?? false }, "filter")
            expect(map.where { $0 <= 3 || $0 == nil }, values.filter { $0.map { $0 <= 3 } ?? true }, "where")
            expect(map.sorted(ascending: false), intRules.sorted(values, ascending: false), "sorted")
            expect(map.sorted(byKeyPath: "self"), intRules.sorted(values, ascending: true), "sorted(byKeyPath:)")
            XCTAssertEqual(map.min() ?? nil, intRules.extremes(values)?.min, note)
            XCTAssertEqual(map.max() ?? nil, intRules.extremes(values)?.max, note)
            XCTAssertEqual(map.sum(), integerSum(values), note)
            XCTAssertEqual(map.average() as Double?, integerMean(values), note)

            let doubles = holder.doubleMap.values
            XCTAssertTrue(doubleRules.sameElements(holder.doubleMap.filter("self < 0"), doubles.filter { $0 < 0 }),
                          note)
            XCTAssertTrue(doubleRules.sameElements(holder.doubleMap.sorted(),
                                                   doubleRules.sorted(doubles, ascending: true)), "\(doubles), \(note)")
            XCTAssertTrue(sameNumber(holder.doubleMap.min(), doubleRules.extremes(doubles)?.min), note)
            XCTAssertTrue(sameNumber(holder.doubleMap.sum(), doubleSum(doubles)), note)
            XCTAssertTrue(sameNumber(holder.doubleMap.average() as Double?, doubleMean(doubles)), note)
        })
    }

    func testMapOfObjectsFiltersSortsAndAggregatesItsObjects() throws {
        let realm = try openRealm()
        var generator = makeSeededGenerator()
        try eachRound(realm, &generator, fill: { holder, generator in
            for index in 0..<generator.count(upTo: 10) {
                let key = "k\(Int.random(in: 0..<12, using: &generator))"
                guard Int.random(in: 0..<5, using: &generator) > 0 else {
                    holder.dogMap[key] = .some(nil)
                    continue
                }
                let dog = CQDog()
                dog.name = "dog\(index)"
                dog.age = generator.optionalInt()
                dog.weight = Double(Int.random(in: 1...80, using: &generator)) / 2
                holder.dogMap[key] = dog
            }
        }, check: { holder, note in
            let map = holder.dogMap
            // The objects the keys hold, in key order; keys holding nil hold no object.
            let dogs = map.values.compactMap { $0 }
            func names(_ results: Results<CQDog?>) -> [String] { results.map { $0!.name } }
            XCTAssertEqual(names(map.filter("age > %@", 3)), dogs.filter { $0.age.map { $0 > 3 } ?? false }.map(\.name),
                           note)
            XCTAssertEqual(names(map.filter("age == nil")), dogs.filter { $0.age == nil }.map(\.name), note)
            XCTAssertEqual(names(map.where { $0.weight < 20 && $0.age != 5 }),
                           dogs.filter { $0.weight < 20 && $0.age != 5 }.map(\.name), note)
            let ages = dogs.map(\.age)
            // Descending: ages from the largest down, then the dogs without an age; ties in key order.
            let expectedByAge = dogs.indices.sorted { left, right in
                let a = dogs[left].age, b = dogs[right].age
                if a != b { return (a ?? .min) > (b ?? .min) }
                return left < right
            }.map { dogs[$0].name }
            XCTAssertEqual(names(map.sorted(byKeyPath: "age", ascending: false)), expectedByAge, note)
            XCTAssertEqual(names(map.sorted(by: \.age, ascending: false)), expectedByAge, note)
            let byWeightThenName: [Columnar.SortDescriptor] = ["weight", "name"]
            XCTAssertEqual(names(map.sorted(by: byWeightThenName)),
                           dogs.sorted { ($0.weight, $0.name) < ($1.weight, $1.name) }.map(\.name), note)
            XCTAssertEqual(map.min(ofProperty: "age") as Int?, ages.compactMap { $0 }.min(), note)
            XCTAssertEqual(map.max(of: \.age) ?? nil, ages.compactMap { $0 }.max(), note)
            XCTAssertEqual(map.sum(ofProperty: "weight") as Double, dogs.map(\.weight).reduce(0, +), note)
            XCTAssertEqual(map.average(ofProperty: "age") as Double?, integerMean(ages), note)
        })
    }

    // MARK: Unmanaged collections

    func testUnmanagedCollectionsAggregateInMemoryWithTheSameRules() throws {
        var generator = makeSeededGenerator()
        let doubleRules = optionalFloatingRules(Double.self)
        for round in 0..<rounds * 3 {
            let note = "round \(round)"
            let ints = List<Int?>()
            let doubles = MutableSet<Double?>()
            let dates = List<Date>()
            let map = Map<String, Double?>()
            for _ in 0..<generator.count(upTo: 14) {
                ints.append(generator.optionalInt())
                doubles.insert(generator.optionalDouble())
                dates.append(generator.date())
                map["k\(Int.random(in: 0..<20, using: &generator))"] = .some(generator.optionalDouble())
            }
            let intValues = Array(ints)
            let intExtremes = optionalRules(Int.self).extremes(intValues)
            XCTAssertEqual(ints.min() ?? nil, intExtremes?.min, note)
            XCTAssertEqual(ints.max() ?? nil, intExtremes?.max, note)
            XCTAssertEqual(ints.sum(), integerSum(intValues), note)
            XCTAssertEqual(ints.average() as Double?, integerMean(intValues), note)
            XCTAssertEqual(ints.sum(ofProperty: "self") as Double, Double(integerSum(intValues)), note)

            let doubleValues = Array(doubles)
            let doubleExtremes = doubleRules.extremes(doubleValues)
            XCTAssertTrue(sameNumber(doubles.min() ?? nil, doubleExtremes?.min ?? nil), "\(doubleValues), \(note)")
            XCTAssertTrue(sameNumber(doubles.max() ?? nil, doubleExtremes?.max ?? nil), "\(doubleValues), \(note)")
            XCTAssertTrue(sameNumber(doubles.sum(), doubleSum(doubleValues)), "\(doubleValues), \(note)")
            XCTAssertTrue(sameNumber(doubles.average() as Double?, doubleMean(doubleValues)), note)

            XCTAssertEqual(dates.min(), Array(dates).min(), note)
            XCTAssertEqual(dates.max(), Array(dates).max(), note)

            let mapValues = map.values
            XCTAssertTrue(sameNumber(map.min() ?? nil, doubleRules.extremes(mapValues)?.min ?? nil), note)
            XCTAssertTrue(sameNumber(map.sum(), doubleSum(mapValues)), note)
            XCTAssertTrue(sameNumber(map.average() as Double?, doubleMean(mapValues)), note)
        }
    }

    func testUnmanagedCollectionsOfObjectsAggregateTheirProperties() throws {
        var generator = makeSeededGenerator()
        for round in 0..<rounds * 3 {
            let note = "round \(round)"
            let list = List<CQDog>()
            let map = Map<String, CQDog?>()
            for index in 0..<generator.count(upTo: 10) {
                let dog = CQDog()
                dog.name = "dog\(index)"
                dog.age = generator.optionalInt()
                dog.weight = generator.double()
                if Int.random(in: 0..<3, using: &generator) > 0 {
                    let owner = CQOwner()
                    owner.age = Int.random(in: 0...90, using: &generator)
                    dog.owner = owner
                }
                list.append(dog)
                map["k\(index)"] = Int.random(in: 0..<4, using: &generator) == 0 ? .some(nil) : dog
            }
            let ages = list.map(\.age)
            XCTAssertEqual(list.min(ofProperty: "age") as Int?, ages.compactMap { $0 }.min(), note)
            XCTAssertEqual(list.max(of: \.age) ?? nil, ages.compactMap { $0 }.max(), note)
            XCTAssertEqual(list.sum(ofProperty: "age") as Int, integerSum(ages), note)
            XCTAssertEqual(list.average(ofProperty: "age") as Double?, integerMean(ages), note)
            let weights = list.map { Optional($0.weight) }
            XCTAssertTrue(sameNumber(list.sum(ofProperty: "weight") as Double, doubleSum(weights)), note)
            XCTAssertTrue(sameNumber(list.min(ofProperty: "weight") as Double?,
                                     optionalFloatingRules(Double.self).extremes(weights)?.min ?? nil), note)
            // A dotted key path follows to-one links; a dog without an owner has no value.
            let ownerAges = list.map { $0.owner?.age }
            XCTAssertEqual(list.max(ofProperty: "owner.age") as Int?, ownerAges.compactMap { $0 }.max(), note)
            XCTAssertEqual(list.average(ofProperty: "owner.age") as Double?, integerMean(ownerAges), note)

            let mapAges = map.values.compactMap { $0 }.map(\.age)
            XCTAssertEqual(map.min(ofProperty: "age") as Int?, mapAges.compactMap { $0 }.min(), note)
            XCTAssertEqual(map.sum(of: \.age), integerSum(mapAges), note)
            XCTAssertEqual(map.average(ofProperty: "age") as Double?, integerMean(mapAges), note)
        }
        // Unmanaged linking objects are empty.
        XCTAssertNil(CQOwner().dogsLinkingHere.min(ofProperty: "age") as Int?)
        XCTAssertEqual(CQOwner().dogsLinkingHere.sum(ofProperty: "weight") as Double, 0)
    }

    // MARK: Results of values

    func testResultsOfValuesAreLiveChainableAndExplained() throws {
        let realm = try openRealm()
        let holder = CQHolder()
        try realm.write {
            realm.add(holder)
            holder.optInts.append(objectsIn: [4, nil, 1, 9, 4, nil, -2])
        }
        let large = holder.optInts.filter("self >= 4")
        let ascending = holder.optInts.sorted()
        XCTAssertEqual(Array(large), [4, 9, 4])
        XCTAssertEqual(Array(ascending), [nil, nil, -2, 1, 4, 4, 9])
        XCTAssertEqual(Array(large.distinct()), [4, 9])
        XCTAssertEqual(Array(large.where { $0 != 9 }.sorted(ascending: false)), [4, 4])
        XCTAssertEqual(large.index(matching: "self > 4"), 1)
        XCTAssertEqual(ascending.index(of: 1), 3)
        XCTAssertEqual(ascending.first, .some(nil))
        XCTAssertEqual(ascending.last, 9)
        XCTAssertEqual(large.sum(), 17)
        XCTAssertEqual(large.max() ?? nil, 9)
        try realm.write {
            holder.optInts.append(12)
            holder.optInts.remove(at: 0)
            XCTAssertEqual(Array(large), [9, 4, 12], "inside the write")
        }
        XCTAssertEqual(Array(large), [9, 4, 12])
        XCTAssertEqual(Array(ascending), [nil, nil, -2, 1, 4, 9, 12])
        XCTAssertEqual(large.count, 3)
        // Iteration reads the values present when it began.
        var seen: [Int?] = []
        for value in large {
            seen.append(value)
            if seen.count == 1 { try realm.write { holder.optInts.removeAll() } }
        }
        XCTAssertEqual(seen, [9, 4, 12])
        XCTAssertEqual(large.count, 0)

        let explained = holder.optInts.filter("self > 3").explain()
        XCTAssertTrue(explained.contains("Keys"), explained)
        XCTAssertTrue(explained.contains("elements of a List<Optional<Int>>"), explained)
        XCTAssertTrue(explained.contains("self > 3"), explained)
    }

    func testDecimalSumsAndAveragesAreExactDecimals() throws {
        // Ten times 0.1, then 0.2, 0.3, a value of 19 digits and a null: in Double (or through Double, whatever
        // the rounding back) the sum loses digits; in Decimal128 it is exact.
        let tenth: Decimal128 = "0.1"
        let values: [Decimal128?] = Array(repeating: tenth, count: 10) + ["0.2", "0.3", "98765432109876.54321", nil]
        let sum: Decimal128 = "98765432109878.04321"
        let mean = sum / Decimal128(exactly: Int64(13))!

        let unmanaged = CQHolder()
        unmanaged.decimals.append(objectsIn: values)
        XCTAssertEqual(unmanaged.decimals.sum(), sum)
        XCTAssertEqual(unmanaged.decimals.average() as Decimal128?, mean)

        let realm = try openRealm()
        let holder = CQHolder()
        try realm.write {
            realm.add(holder)
            holder.decimals.append(objectsIn: values)
            realm.add(CQHolder())   // an empty list
        }
        XCTAssertEqual(holder.decimals.sum(), sum)
        XCTAssertEqual(holder.decimals.average() as Decimal128?, mean)
        XCTAssertEqual(holder.decimals.average() as Double?, mean.doubleValue)
        XCTAssertEqual(holder.decimals.filter("self != nil").sum(), sum)
        // In a query: exactly 1.5, not its nearest Double.
        let holders = realm.objects(CQHolder.self)
        XCTAssertEqual(try holders.filter(checking: "decimals.@sum == '98765432109878.04321'").count, 1)
        XCTAssertEqual(try holders.filter(checking: "decimals.@sum == %@", sum).count, 1)
        XCTAssertEqual(try holders.filter(checking: "decimals.@avg == %@", mean).count, 1)
        XCTAssertEqual(try holders.filter(checking: "decimals.@sum == 0").count, 1)   // the empty list
        XCTAssertEqual(try holders.filter(checking: "decimals.@avg == nil").count, 1)
    }

    func testDecimalAndEnumListsQueryByValue() throws {
        let realm = try openRealm()
        let holder = CQHolder()
        let twoAndAHalf: Decimal128 = "2.50"
        try realm.write {
            realm.add(holder)
            holder.decimals.append(objectsIn: [2.5, nil, -1, 10, twoAndAHalf])
            holder.kinds.append(objectsIn: [.large, .small, .medium, .small])
        }
        XCTAssertEqual(Array(holder.decimals.filter("self > 2")), [2.5, 10, 2.5])
        XCTAssertEqual(Array(holder.decimals.where { $0 < 3 }), [2.5, -1, 2.5])
        XCTAssertEqual(Array(holder.decimals.sorted()), [nil, -1, 2.5, 2.5, 10])
        // 2.5 and 2.50 are one number.
        XCTAssertEqual(Array(holder.decimals.distinct()), [2.5, nil, -1, 10])
        XCTAssertEqual(holder.decimals.min() ?? nil, -1)
        XCTAssertEqual(holder.decimals.max() ?? nil, 10)
        XCTAssertEqual(holder.decimals.sum(), 14)
        XCTAssertEqual(holder.decimals.average() as Double?, 3.5)

        // Enums are queried and sorted by their raw values.
        XCTAssertEqual(Array(holder.kinds.filter("self >= %@", 2)), [.large, .medium])
        XCTAssertEqual(Array(holder.kinds.where { $0 == .small }), [.small, .small])
        XCTAssertEqual(Array(holder.kinds.where { $0.in([CQKind.medium, .large]) }), [.large, .medium])
        XCTAssertEqual(holder.kinds.index(matching: { $0 != .large }), 1)
        XCTAssertEqual(Array(holder.kinds.distinct(by: ["self"])), [.large, .small, .medium])
        XCTAssertEqual(Array(holder.kinds.sorted(byKeyPath: "self")), [.small, .small, .medium, .large])
    }

    func testValueQueriesRefuseOtherKeyPathsAndOperators() throws {
        let realm = try openRealm()
        let holder = CQHolder()
        try realm.write { realm.add(holder) }
        XCTAssertThrowsError(try holder.optInts.filter(checking: "age > 3")) { error in
            XCTAssertTrue("\(error)".contains("property 'age' not found in class List<Optional<Int>>"), "\(error)")
        }
        XCTAssertThrowsError(try holder.optInts.filter(checking: "self BEGINSWITH 3")) { error in
            XCTAssertTrue("\(error)".contains("BEGINSWITH applies to strings"), "\(error)")
        }
        XCTAssertThrowsError(try holder.optStrings.filter(checking: "self > 3")) { error in
            XCTAssertTrue("\(error)".contains("string"), "\(error)")
        }
        XCTAssertThrowsError(try holder.optInts.filter(checking: "ANY self > 3")) { error in
            XCTAssertTrue("\(error)".contains("ANY needs a key path through a list"), "\(error)")
        }
        XCTAssertThrowsError(try holder.intMap.filter(checking: "self.name == 'x'")) { error in
            XCTAssertTrue("\(error)".contains("has no property 'name'"), "\(error)")
        }
        XCTAssertThrowsError(try holder.dogMap.filter(checking: "self > 3")) { error in
            XCTAssertTrue("\(error)".contains("property 'self' not found in class CQDog"), "\(error)")
        }
    }
}

extension CQOwner {
    /// An unmanaged object's linking objects, for the aggregates of empty unmanaged collections.
    var dogsLinkingHere: LinkingObjects<CQDog> { LinkingObjects(fromType: CQDog.self, property: "owner") }
}
