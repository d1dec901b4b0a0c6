// AnyRealmValueAggregateTests: min, max, sum and average of mixed values (AnyRealmValue is MinMaxType and
// AddableType, as in RealmSwift) over lists, sets and maps, managed and unmanaged, and over a mixed property of
// Results (whole table and filtered), against a plain Swift statement of the rules: the sum and average of the numbers
// among the values, the extremes among every value that sorts, in the sort order of mixed values.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class AnyRealmValueAggregateTests: RealmTestCase {
    /// RealmSwift's own expectations: a list of numbers of one kind (or of dates) has those numbers' extremes, and
    /// a sum and an average that read as doubles or decimals.
    func testListsOfOneKindAggregateAsRealmSwiftExpects() throws {
        let realm = try openRealm()
        let item = try realm.write { realm.create(MixedItem.self, value: ["id": 1]) }
        let kinds: [[AnyRealmValue]] = [
            [.int(1), .int(2), .int(3)], [.float(1.5), .float(2.5), .float(3.5)], [.double(-1.25), .double(0), .double(8)],
            [.decimal128(Decimal128(stringLiteral: "1.1")), .decimal128(Decimal128(stringLiteral: "2.2"))],
            [.date(Date(timeIntervalSince1970: -5)), .date(Date(timeIntervalSince1970: 7.5))],
        ]
        for values in kinds {
            let unmanaged = List<AnyRealmValue>()
            try realm.write { item.values.removeAll() }
            XCTAssertNil(unmanaged.min())
            XCTAssertNil(item.values.min())
            XCTAssertNil(item.values.max())
            XCTAssertNil(item.values.average() as AnyRealmValue?)
            XCTAssertEqual(unmanaged.sum().intValue, 0, "\(values)")
            XCTAssertNil(item.values.sum().intValue, "a managed sum is a decimal, as Realm's is")
            unmanaged.append(objectsIn: values.reversed())
            try realm.write { item.values.append(objectsIn: values.reversed()) }
            for list in [unmanaged, item.values] {
                XCTAssertEqual(list.min(), values.first, "\(values)")
                XCTAssertEqual(list.max(), values.last, "\(values)")
                guard case .date = values[0] else {
                    let numbers = values.compactMap(Self.number)
                    XCTAssertEqual(Self.double(list.sum()), numbers.reduce(0, +), accuracy: 1e-9, "\(values)")
                    let average: AnyRealmValue = try XCTUnwrap(list.average())
                    XCTAssertEqual(Self.double(average), numbers.reduce(0, +) / Double(numbers.count), accuracy: 1e-9)
                    continue
                }
            }
        }
    }

    /// Random mixed values of every kind in a list, a set, a map and a property: the aggregates the engine computes
    /// and the ones of the unmanaged collections agree with the plain Swift rules.
    func testRandomMixedValuesAggregateByThePlainSwiftRules() throws {
        var generator = SeededGenerator.fromEnvironment()
        let realm = try openRealm()
        let target = try realm.write { realm.create(MixedTarget.self, value: ["id": 1]) }
        let pool: [AnyRealmValue] = [
            .none, .int(3), .int(-7), .int(Int.max), .float(2.5), .double(-0.5), .double(.nan), .double(1e300),
            .decimal128(Decimal128(stringLiteral: "0.1")), .bool(true), .bool(false), .string("b"), .string("a"),
            .data(Data([1])), .date(Date(timeIntervalSince1970: 12.25)), .date(Date(timeIntervalSince1970: -3)),
            .objectId(ObjectId("0123456789abcdef01234567")), .uuid(UUID(uuidString: "6F9619FF-8B86-D011-B42D-00CF4FC964FF")!),
            .object(target), .fromArray([.int(1)]),
        ]
        var checked = 0
        for round in 0..<60 {
            let values = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pool.randomElement(using: &generator)! }
            let item = try realm.write {
                let item = realm.create(MixedItem.self, value: ["id": 100 + round])
                item.values.append(objectsIn: values)
                for (index, value) in values.enumerated() { item.valueMap["k\(index)"] = value }
                return item
            }
            let unmanaged = List<AnyRealmValue>()
            unmanaged.append(objectsIn: values)
            let expected = Self.reference(values)
            func check(_ what: String, min: AnyRealmValue?, max: AnyRealmValue?, sum: AnyRealmValue, average: AnyRealmValue?) {
                checked += 1
                XCTAssertTrue(Self.same(min, expected.min), "\(what) min of \(values): \(String(describing: min))")
                XCTAssertTrue(Self.same(max, expected.max), "\(what) max of \(values): \(String(describing: max))")
                XCTAssertTrue(Self.close(Self.double(sum), expected.sum), "\(what) sum of \(values): \(sum)")
                XCTAssertEqual(average == nil, expected.average == nil, "\(what) average of \(values)")
                if let average, let wanted = expected.average {
                    XCTAssertTrue(Self.close(Self.double(average), wanted), "\(what) average of \(values): \(average)")
                }
            }
            check("managed list", min: item.values.min(), max: item.values.max(), sum: item.values.sum(),
                  average: item.values.average())
            check("unmanaged list", min: unmanaged.min(), max: unmanaged.max(), sum: unmanaged.sum(),
                  average: unmanaged.average())
            check("map", min: item.valueMap.min(), max: item.valueMap.max(), sum: item.valueMap.sum(),
                  average: item.valueMap.average())
        }
        // Over a property: the whole table and a filter.
        let rows = (0..<200).map { _ in pool.randomElement(using: &generator)! }
        try realm.write {
            for (index, value) in rows.enumerated() { realm.create(MixedItem.self, value: ["id": 1000 + index, "value": value]) }
        }
        let all = realm.objects(MixedItem.self).filter("id >= 1000")
        for (what, results, values) in [("table", all, rows), ("filtered", all.filter("id < 1100"), Array(rows.prefix(100)))] {
            let expected = Self.reference(values)
            checked += 1
            XCTAssertTrue(Self.same(results.min(ofProperty: "value"), expected.min), what)
            XCTAssertTrue(Self.same(results.max(ofProperty: "value"), expected.max), what)
            XCTAssertTrue(Self.close(Self.double(results.sum(ofProperty: "value") as AnyRealmValue), expected.sum), what)
            let average: AnyRealmValue? = results.average(ofProperty: "value")
            XCTAssertTrue(Self.close(Self.double(average ?? .none), expected.average ?? 0), what)
        }
        XCTAssertEqual(checked, 182)
        // Asked for as AnyRealmValue, an Int property's sum and average are those of its numbers.
        let ids = (1000..<1200).reduce(0, +)
        XCTAssertEqual(all.sum(ofProperty: "id") as AnyRealmValue, .int(ids))
        XCTAssertEqual(Self.double(try XCTUnwrap(all.average(ofProperty: "id") as AnyRealmValue?)), Double(ids) / 200)
    }

    func testCollectionOperatorsAggregateListsOfMixedValuesInQueries() throws {
        let realm = try openRealm()
        try realm.write {
            realm.create(MixedItem.self, value: ["id": 1, "values": [AnyRealmValue.int(2), .double(3.5), .string("x")]])
            realm.create(MixedItem.self, value: ["id": 2, "values": [AnyRealmValue.string("only text")]])
            realm.create(MixedItem.self, value: ["id": 3, "values": [AnyRealmValue.int(-1), .decimal128(Decimal128(1))]])
        }
        let all = realm.objects(MixedItem.self)
        func ids(_ format: String) -> [Int] { all.filter(format).map(\.id).sorted() }
        XCTAssertEqual(ids("values.@sum == 5.5"), [1])
        XCTAssertEqual(ids("values.@sum == 0"), [2, 3])
        XCTAssertEqual(ids("values.@avg > 1"), [1])
        XCTAssertEqual(ids("values.@avg == nil"), [2])
        XCTAssertEqual(ids("values.@max == 'x'"), [1])
        XCTAssertEqual(ids("values.@min == -1"), [3])
    }

    // MARK: The plain Swift rules

    /// Sum and average of the numbers; extremes among values that sort (not none, NaN, objects or collections).
    private static func reference(_ values: [AnyRealmValue]) -> (min: AnyRealmValue?, max: AnyRealmValue?, sum: Double,
                                                                 average: Double?) {
        let numbers = values.compactMap(number)
        let ordered = values.filter { value in
            switch value {
            case .none, .object, .list, .dictionary: return false
            case .double(let d): return !d.isNaN
            default: return true
            }
        }
        let sorted = ordered.sorted { MixedReference.sortOrder($0, $1) < 0 }
        let sum = numbers.reduce(0, +)
        return (sorted.first, sorted.last, sum, numbers.isEmpty ? nil : sum / Double(numbers.count))
    }

    private static func number(_ value: AnyRealmValue) -> Double? {
        switch value {
        case .int(let v): return Double(v)
        case .float(let v): return Double(v)
        case .double(let v): return v
        case .decimal128(let v): return v.doubleValue
        default: return nil
        }
    }

    static func double(_ value: AnyRealmValue) -> Double {
        switch value {
        case .double(let d): return d
        case .decimal128(let d): return d.doubleValue
        case .int(let i): return Double(i)
        default: return .nan
        }
    }

    /// Equal, or both NaN, or within a relative 1e-9 (Decimal128 and Double sums round differently).
    private static func close(_ a: Double, _ b: Double) -> Bool {
        if a.isNaN || b.isNaN { return a.isNaN && b.isNaN }
        if a.isInfinite || b.isInfinite { return a == b }
        return abs(a - b) <= 1e-9 * max(1, abs(a), abs(b))
    }

    /// The same extreme: equal values of one case (numbers of different cases with one value are the same extreme
    /// when the order cannot tell them apart).
    private static func same(_ a: AnyRealmValue?, _ b: AnyRealmValue?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a == b || MixedReference.sortOrder(a, b) == 0
    }
}
