// AnyRealmValueTests: mixed values (RealmSwift's AnyRealmValue) as a property and as List, MutableSet and Map
// elements: every case through commit and reopen, links to objects that are deleted later, conversions from Swift
// values, dynamic access and notifications, and queries against a plain Swift evaluator of Realm's mixed comparison
// rules (numbers of any type by value, every other type only with itself), through the column kernels, through
// links and lists (object by object) and through the typed builder.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class MixedTarget: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

final class MixedItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value: AnyRealmValue
    @Persisted var values: List<AnyRealmValue>
    @Persisted var valueSet: MutableSet<AnyRealmValue>
    @Persisted var valueMap: Map<String, AnyRealmValue>
    @Persisted var next: MixedItem?
}

final class AnyRealmValueTests: RealmTestCase {
    /// One value of every storable case, with edge values.
    private func everyCase(_ target: MixedTarget) -> [AnyRealmValue] {
        [
            .none, .int(0), .int(.min), .int(.max), .bool(true), .bool(false), .float(1.5), .float(-.infinity),
            .double(-0.25), .double(.greatestFiniteMagnitude), .string(""), .string("héllo wörld ✓"),
            .data(Data()), .data(Data((0 ..< 300).map { UInt8($0 % 256) })),
            .date(Date(timeIntervalSince1970: -1_234.5)), .date(Date(timeIntervalSince1970: 1_700_000_000.25)),
            .objectId(ObjectId("0123456789abcdef01234567")), .decimal128(Decimal128(stringLiteral: "-12.345e-6")),
            .uuid(UUID(uuidString: "6F9619FF-8B86-D011-B42D-00CF4FC964FF")!), .object(target),
        ]
    }

    func testEveryCaseRoundTripsThroughCommitAndReopen() throws {
        let count = try scoped { () -> Int in
            let realm = try openRealm()
            let target = try realm.write { realm.create(MixedTarget.self, value: ["id": 7, "name": "t"]) }
            let cases = everyCase(target)
            try realm.write {
                for (index, value) in cases.enumerated() {
                    let item = realm.create(MixedItem.self, value: ["id": index, "value": value])
                    item.values.append(objectsIn: cases)
                    item.valueSet.insert(objectsIn: cases)
                    for (position, element) in cases.enumerated() { item.valueMap["k\(position)"] = element }
                }
            }
            return cases.count
        }
        let realm = try openRealm()
        let target = try XCTUnwrap(realm.object(ofType: MixedTarget.self, forPrimaryKey: 7))
        let cases = everyCase(target)
        XCTAssertEqual(realm.objects(MixedItem.self).count, count)
        for (index, expected) in cases.enumerated() {
            let item = try XCTUnwrap(realm.object(ofType: MixedItem.self, forPrimaryKey: index))
            XCTAssertEqual(item.value, expected, "case \(index)")
            XCTAssertEqual(Array(item.values), cases, "list of case \(index)")
            XCTAssertEqual(Set(item.valueSet), Set(cases), "set of case \(index)")
            XCTAssertEqual(item.valueMap.count, cases.count)
            for (position, element) in cases.enumerated() {
                XCTAssertEqual(item.valueMap["k\(position)"], element, "map entry \(position)")
            }
        }
        let linked = try XCTUnwrap(realm.objects(MixedItem.self).filter("id == %@", cases.count - 1).first)
        XCTAssertEqual(linked.value.object(MixedTarget.self)?.name, "t")
        XCTAssertEqual(linked.value.dynamicObject?["name"] as? String, "t")
        XCTAssertNil(linked.value.object(MixedItem.self))
        XCTAssertEqual(realm.objects(MixedItem.self).first?.objectSchema.properties.first { $0.name == "value" }?.type,
                       .any)
    }

    func testNaNAndTypesThatLookAlikeStayDistinct() throws {
        let realm = try openRealm()
        try realm.write {
            realm.create(MixedItem.self, value: ["id": 1, "value": AnyRealmValue.double(.nan)])
            realm.create(MixedItem.self, value: ["id": 2, "value": AnyRealmValue.int(1)])
            realm.create(MixedItem.self, value: ["id": 3, "value": AnyRealmValue.double(1)])
            realm.create(MixedItem.self, value: ["id": 4, "value": AnyRealmValue.string("1")])
        }
        XCTAssertTrue(realm.object(ofType: MixedItem.self, forPrimaryKey: 1)?.value.doubleValue?.isNaN == true)
        XCTAssertEqual(realm.object(ofType: MixedItem.self, forPrimaryKey: 2)?.value, .int(1))
        XCTAssertEqual(realm.object(ofType: MixedItem.self, forPrimaryKey: 3)?.value, .double(1))
        XCTAssertEqual(realm.object(ofType: MixedItem.self, forPrimaryKey: 4)?.value, .string("1"))
        // Queries compare numbers by value: 1 and 1.0 both match, "1" does not.
        XCTAssertEqual(realm.objects(MixedItem.self).filter("value == 1").map(\.id).sorted(), [2, 3])
        XCTAssertEqual(realm.objects(MixedItem.self).filter("value == '1'").map(\.id), [4])
    }

    func testSwiftValuesConvertToTheirCasesAndNilIsNone() throws {
        let realm = try openRealm()
        let target = try realm.write { realm.create(MixedTarget.self, value: ["id": 1]) }
        try realm.write {
            realm.create(MixedItem.self, value: ["id": 1, "value": 5])
            realm.create(MixedItem.self, value: ["id": 2, "value": "text"])
            realm.create(MixedItem.self, value: ["id": 3, "value": NSNull()])
            realm.create(MixedItem.self, value: ["id": 4, "value": target, "values": [1, "a", 2.5, target]])
            let item = realm.create(MixedItem.self, value: ["id": 5])
            item["value"] = Date(timeIntervalSince1970: 10)
            realm.create(MixedItem.self, value: ["id": 6]).setValue(Int8(3), forKey: "value")
        }
        func value(_ id: Int) -> AnyRealmValue? { realm.object(ofType: MixedItem.self, forPrimaryKey: id)?.value }
        XCTAssertEqual(value(1), .int(5))
        XCTAssertEqual(value(2), .string("text"))
        XCTAssertEqual(value(3), AnyRealmValue.none)
        XCTAssertEqual(value(4), .object(target))
        XCTAssertEqual(value(5), .date(Date(timeIntervalSince1970: 10)))
        XCTAssertEqual(value(6), .int(3), "integers of every width are .int")
        XCTAssertEqual(Array(realm.object(ofType: MixedItem.self, forPrimaryKey: 4)!.values),
                       [.int(1), .string("a"), .double(2.5), .object(target)])
        XCTAssertEqual(MixedItem().value, AnyRealmValue.none, "the default is none")
    }

    func testALinkToADeletedObjectReadsAsNone() throws {
        let realm = try openRealm()
        try realm.write {
            let target = realm.create(MixedTarget.self, value: ["id": 1])
            let item = realm.create(MixedItem.self, value: ["id": 1, "value": AnyRealmValue.object(target)])
            item.values.append(.object(target))
        }
        let item = try XCTUnwrap(realm.object(ofType: MixedItem.self, forPrimaryKey: 1))
        XCTAssertNotNil(item.value.object(MixedTarget.self))
        let items = realm.objects(MixedItem.self)
        XCTAssertEqual(items.filter("value == nil").count, 0)
        try realm.write { realm.delete(realm.objects(MixedTarget.self)) }
        XCTAssertEqual(item.value, AnyRealmValue.none)
        XCTAssertEqual(Array(item.values), [AnyRealmValue.none])
        // Queries see what readers see, through the kernels and object by object.
        XCTAssertEqual(items.filter("value == nil").count, 1)
        XCTAssertEqual(items.filter("value != nil").count, 0)
        XCTAssertEqual(items.filter("value.@type == 'null'").count, 1)
        XCTAssertEqual(items.filter("value.@type == 'object'").count, 0)
        XCTAssertEqual(items.filter("ANY values == nil").count, 1)
        XCTAssertEqual(items.filter("ANY values.@type == 'object'").count, 0)
        try realm.write { realm.create(MixedTarget.self, value: ["id": 2]) }
        XCTAssertEqual(item.value, AnyRealmValue.none, "a new object never takes the deleted one's key")
    }

    func testDynamicAccessAndNotificationsSeeMixedValues() throws {
        let realm = try openRealm()
        let item = try realm.write { realm.create(MixedItem.self, value: ["id": 1, "value": 1]) }
        let dynamic = try XCTUnwrap(realm.dynamicObject(ofType: "MixedItem", forPrimaryKey: 1))
        XCTAssertEqual(dynamic["value"] as? AnyRealmValue, .int(1))
        try realm.write { dynamic["value"] = "changed" }
        XCTAssertEqual(item.value, .string("changed"))

        var changes: [[String]] = []
        let token = item.observe { (change: ObjectChange<MixedItem>) in
            if case .change(_, let properties) = change {
                changes.append(properties.map { "\($0.name) \($0.oldValue ?? "-") \($0.newValue ?? "-")" })
            }
        }
        defer { token.invalidate() }
        try realm.write { item.value = .double(2) }
        try realm.write { item.value = .int(2) }
        try realm.write { item.value = .int(2) }
        XCTAssertEqual(changes, [["value string(changed) double(2.0)"], ["value double(2.0) int(2)"],
                                 ["value int(2) int(2)"]])
    }

    func testCopiesKeepMixedValuesAndTheirLinks() throws {
        let copyURL = URL(fileURLWithPath: directory.file("copy.realm"))
        try scoped {
            let realm = try openRealm()
            try realm.write {
                let target = realm.create(MixedTarget.self, value: ["id": 3, "name": "kept"])
                realm.create(MixedItem.self, value: ["id": 1, "value": AnyRealmValue.object(target),
                                                     "values": [AnyRealmValue.string("s"), .int(4)]])
            }
            try realm.writeCopy(toFile: copyURL)
        }
        let copy = try Realm(fileURL: copyURL)
        let item = try XCTUnwrap(copy.object(ofType: MixedItem.self, forPrimaryKey: 1))
        XCTAssertEqual(item.value.object(MixedTarget.self)?.name, "kept")
        XCTAssertEqual(Array(item.values), [.string("s"), .int(4)])
    }
}

// MARK: - Queries

/// The comparison rules of mixed values, written plainly: what every query over them must select. Numbers compare
/// by value across types, strings and data by bytes with each other, everything else only with its own type.
enum MixedReference {
    enum Op: String, CaseIterable {
        case eq = "==", ne = "!=", lt = "<", le = "<=", gt = ">", ge = ">="
        case beginsWith = "BEGINSWITH", endsWith = "ENDSWITH", contains = "CONTAINS", like = "LIKE"
    }

    private enum Number { case int(Int64), double(Double), decimal(Decimal128) }

    private static func number(_ value: AnyRealmValue) -> Number? {
        switch value {
        case .int(let v): return .int(Int64(v))
        case .float(let v): return .double(Double(v))
        case .double(let v): return .double(v)
        case .decimal128(let v): return .decimal(v)
        default: return nil
        }
    }

    /// -1, 0, 1, or nil when unordered (NaN).
    private static func compare(_ a: Number, _ b: Number) -> Int? {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.int(let x), .double(let y)): return compare(int: x, double: y)
        case (.double(let x), .int(let y)): return compare(int: y, double: x).map { -$0 }
        case (.double(let x), .double(let y)):
            if x.isNaN || y.isNaN { return nil }
            return x < y ? -1 : (x == y ? 0 : 1)
        case (.decimal(let x), _): return compare(decimal: x, b)
        case (_, .decimal(let y)): return compare(decimal: y, a).map { -$0 }
        }
    }

    private static func compare(decimal: Decimal128, _ other: Number) -> Int? {
        let right: Decimal128
        switch other {
        case .int(let v): right = Decimal128(integerLiteral: v)
        case .double(let v):
            if v.isNaN { return nil }
            right = Decimal128(floatLiteral: v)
        case .decimal(let v): right = v
        }
        if decimal.isNaN || right.isNaN { return nil }
        return decimal < right ? -1 : (decimal == right ? 0 : 1)
    }

    private static func compare(int: Int64, double: Double) -> Int? {
        if double.isNaN { return nil }
        if double >= 9_223_372_036_854_775_808.0 { return -1 }
        if double < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = double.rounded(.down)
        let wholeInt = Int64(whole)
        if int != wholeInt { return int < wholeInt ? -1 : 1 }
        return double > whole ? -1 : 0
    }

    private static func bytes(_ value: AnyRealmValue) -> [UInt8]? {
        switch value {
        case .string(let s): return Array(s.utf8)
        case .data(let d): return Array(d)
        default: return nil
        }
    }

    private static func lexicographic(_ a: [UInt8], _ b: [UInt8]) -> Int {
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// The order of two values of types that compare, or nil (types that do not compare, or NaN).
    private static func order(_ row: AnyRealmValue, _ constant: AnyRealmValue) -> Int?? {
        if let a = number(row), let b = number(constant) { return .some(compare(a, b)) }
        switch (row, constant) {
        case (.bool(let a), .bool(let b)): return a == b ? 0 : (a ? 1 : -1)
        case (.string, .string), (.data, .data), (.string, .data), (.data, .string):
            return lexicographic(bytes(row)!, bytes(constant)!)
        case (.date(let a), .date(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.objectId(let a), .objectId(let b)):
            return lexicographic(withUnsafeBytes(of: a.bytes) { Array($0) }, withUnsafeBytes(of: b.bytes) { Array($0) })
        case (.uuid(let a), .uuid(let b)):
            return lexicographic(withUnsafeBytes(of: a.uuid) { Array($0) }, withUnsafeBytes(of: b.uuid) { Array($0) })
        default: return nil
        }
    }

    static func holds(_ row: AnyRealmValue, _ op: Op, _ constant: AnyRealmValue) -> Bool {
        if row == .none || constant == .none {
            let bothNone = row == .none && constant == .none
            switch op {
            case .eq: return bothNone
            case .ne: return !bothNone
            default: return false
            }
        }
        switch op {
        case .beginsWith, .endsWith, .contains, .like:
            guard let haystack = bytes(row), let needle = bytes(constant) else { return false }
            switch op {
            case .beginsWith: return haystack.starts(with: needle)
            case .endsWith: return haystack.reversed().starts(with: needle.reversed())
            case .contains:
                return needle.isEmpty || (0 ... max(0, haystack.count - needle.count)).contains {
                    haystack.count >= needle.count && Array(haystack[$0 ..< $0 + needle.count]) == needle
                }
            default: return like(haystack[...], needle[...])
            }
        default: break
        }
        if case .object(let a) = row, case .object(let b) = constant {
            let same = a.isSameObject(as: b)
            return op == .eq ? same : (op == .ne ? !same : false)
        }
        guard case .some(let ordered) = order(row, constant), let sign = ordered else { return op == .ne }
        switch op {
        case .eq: return sign == 0
        case .ne: return sign != 0
        case .lt: return sign < 0
        case .le: return sign <= 0
        case .gt: return sign > 0
        case .ge: return sign >= 0
        default: return false
        }
    }

    /// The sort order: null, then NaN, then by kind (bools, numbers, strings and data, dates, ObjectIds, UUIDs,
    /// objects), then by value within the kind; -1, 0 or 1.
    static func sortOrder(_ a: AnyRealmValue, _ b: AnyRealmValue) -> Int {
        func rank(_ value: AnyRealmValue) -> Int {
            switch value {
            case .none: return 0
            case .float(let v) where v.isNaN: return 1
            case .double(let v) where v.isNaN: return 1
            case .decimal128(let v) where v.isNaN: return 1
            case .bool: return 2
            case .int, .float, .double, .decimal128: return 3
            case .string, .data: return 4
            case .date: return 5
            case .objectId: return 6
            case .uuid: return 7
            default: return 8
            }
        }
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        if ra <= 1 { return 0 }
        if case .object(let x) = a, case .object(let y) = b {
            let (i, j) = ((x as! MixedTarget).id, (y as! MixedTarget).id)
            return i < j ? -1 : (i == j ? 0 : 1)
        }
        if case .some(.some(let sign)) = order(a, b) { return sign }
        return 0
    }

    /// `*` any run of bytes, `?` one UTF-8 character.
    private static func like(_ text: ArraySlice<UInt8>, _ pattern: ArraySlice<UInt8>) -> Bool {
        guard let first = pattern.first else { return text.isEmpty }
        if first == UInt8(ascii: "*") {
            var rest = text
            while true {
                if like(rest, pattern.dropFirst()) { return true }
                guard !rest.isEmpty else { return false }
                rest = rest.dropFirst()
            }
        }
        guard let head = text.first else { return false }
        if first == UInt8(ascii: "?") {
            var length = 1
            if head >= 0xC0 { length = head >= 0xF0 ? 4 : (head >= 0xE0 ? 3 : 2) }
            return like(text.dropFirst(min(length, text.count)), pattern.dropFirst())
        }
        return head == first && like(text.dropFirst(), pattern.dropFirst())
    }
}

final class AnyRealmValueQueryTests: RealmTestCase {
    private static func pool(_ targets: [MixedTarget]) -> [AnyRealmValue] {
        let ints: [AnyRealmValue] = [-3, -1, 0, 1, 2, 3, 9_007_199_254_740_993, Int.max, Int.min].map { .int($0) }
        let doubles: [AnyRealmValue] = [-1.5, 0, 1, 2, 2.5, .nan, .infinity, -.infinity, 9_007_199_254_740_992,
                                        9_223_372_036_854_775_808].map { .double($0) }
        let others: [AnyRealmValue] = [
            .none, .float(1), .float(2.5), .bool(true), .bool(false), .string(""), .string("a"), .string("abc"),
            .string("b"), .string("é"), .string("1"), .data(Data("abc".utf8)), .data(Data()),
            .date(Date(timeIntervalSince1970: 0)), .date(Date(timeIntervalSince1970: 100.5)),
            .objectId(ObjectId("000000000000000000000001")), .objectId(ObjectId("000000000000000000000002")),
            .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!),
            .decimal128(Decimal128(integerLiteral: 1)), .decimal128(Decimal128(stringLiteral: "2.5")),
        ]
        return ints + doubles + others + targets.map { .object($0) }
    }

    /// Random rows and random comparisons through the column kernels (`value op %@`), object by object through a
    /// link (`next.value op %@`) and over lists (`ANY values op %@`), each against MixedReference.
    func testRandomComparisonsSelectWhatThePlainSwiftRulesSelect() throws {
        var generator = SeededGenerator.fromEnvironment()
        let realm = try openRealm()
        let rowCount = 600
        let targets = try realm.write { (0 ..< 3).map { realm.create(MixedTarget.self, value: ["id": $0]) } }
        let pool = Self.pool(targets)
        var rows: [AnyRealmValue] = []
        var lists: [[AnyRealmValue]] = []
        try realm.write {
            var previous: MixedItem?
            for id in 0 ..< rowCount {
                let value = pool.randomElement(using: &generator)!
                let list = (0 ..< Int.random(in: 0 ... 3, using: &generator)).map { _ in
                    pool.randomElement(using: &generator)!
                }
                rows.append(value)
                lists.append(list)
                let item = realm.create(MixedItem.self, value: ["id": id, "value": value])
                item.values.append(objectsIn: list)
                previous?.next = item
                previous = item
            }
        }
        let all = realm.objects(MixedItem.self)
        var mismatches = 0
        var matched = 0
        for number in 0 ..< 300 {
            let constant = pool.filter { $0 != .none || number % 10 == 0 }.randomElement(using: &generator)!
            let op = MixedReference.Op.allCases.randomElement(using: &generator)!
            let argument: Any = constant == .none ? NSNull() : constant
            let byKernel = all.filter("value \(op.rawValue) %@", argument).map(\.id).sorted()
            let expected = (0 ..< rowCount).filter { MixedReference.holds(rows[$0], op, constant) }
            matched += expected.count
            if byKernel != expected {
                mismatches += 1
                XCTFail("value \(op.rawValue) \(constant): got \(byKernel.count) rows, expected \(expected.count); "
                        + "first differing: \(Set(byKernel).symmetricDifference(expected).sorted().prefix(5).map { rows[$0] }) "
                        + "seed \(generator.seed)")
            }
            let throughLink = all.filter("next.value \(op.rawValue) %@", argument).map(\.id).sorted()
            // The last item has no `next`: the path is null there.
            let expectedThroughLink = (0 ..< rowCount).filter {
                MixedReference.holds($0 + 1 < rowCount ? rows[$0 + 1] : .none, op, constant)
            }
            if throughLink != expectedThroughLink {
                mismatches += 1
                XCTFail("next.value \(op.rawValue) \(constant): got \(throughLink.count), expected "
                        + "\(expectedThroughLink.count), seed \(generator.seed)")
            }
            let overLists = all.filter("ANY values \(op.rawValue) %@", argument).map(\.id).sorted()
            let expectedOverLists = (0 ..< rowCount).filter { id in
                lists[id].contains { MixedReference.holds($0, op, constant) }
            }
            if overLists != expectedOverLists {
                mismatches += 1
                XCTFail("ANY values \(op.rawValue) \(constant): got \(overLists.count), expected "
                        + "\(expectedOverLists.count), seed \(generator.seed)")
            }
        }
        XCTAssertEqual(mismatches, 0, "seed \(generator.seed)")
        XCTAssertGreaterThan(matched, 300 * rowCount / 20, "the random comparisons match some rows")
    }

    /// `@type` against every type name, through the kernel (own column), a link and lists (ANY, ALL, NONE).
    func testTypeNamesSelectTheValuesOfThoseTypes() throws {
        let realm = try openRealm()
        let target = try realm.write { realm.create(MixedTarget.self, value: ["id": 1]) }
        let pool = Self.pool([target])
        try realm.write {
            var previous: MixedItem?
            for (id, value) in pool.enumerated() {
                let item = realm.create(MixedItem.self, value: ["id": id, "value": value])
                item.values.append(objectsIn: [value, pool[(id + 1) % pool.count]])
                previous?.next = item
                previous = item
            }
        }
        func typeName(_ value: AnyRealmValue) -> String {
            switch value {
            case .none: return "null"
            case .int: return "int"
            case .bool: return "bool"
            case .float: return "float"
            case .double: return "double"
            case .string: return "string"
            case .data: return "binary"
            case .date: return "date"
            case .objectId: return "objectId"
            case .decimal128: return "decimal"
            case .uuid: return "uuid"
            case .object: return "object"
            case .list, .dictionary: return "collection"
            }
        }
        let numeric: Set = ["int", "float", "double", "decimal"]
        func named(_ value: AnyRealmValue, _ name: String) -> Bool {
            name == "numeric" ? numeric.contains(typeName(value)) : typeName(value).lowercased() == name.lowercased()
        }
        let all = realm.objects(MixedItem.self)
        let names = ["null", "int", "bool", "float", "double", "decimal", "numeric", "string", "binary", "date",
                     "objectId", "UUID", "object"]
        for name in names {
            let ids = Array(0 ..< pool.count)
            XCTAssertEqual(all.filter("value.@type == %@", name).map(\.id).sorted(),
                           ids.filter { named(pool[$0], name) }, name)
            XCTAssertEqual(all.filter("value.@type != %@", name).map(\.id).sorted(),
                           ids.filter { !named(pool[$0], name) }, "!= \(name)")
            XCTAssertEqual(all.filter("next.value.@type == %@", name).map(\.id).sorted(),
                           ids.filter { named($0 + 1 < pool.count ? pool[$0 + 1] : .none, name) },
                           "next.value \(name)")
            let lists = ids.map { [pool[$0], pool[($0 + 1) % pool.count]] }
            XCTAssertEqual(all.filter("ANY values.@type == %@", name).map(\.id).sorted(),
                           ids.filter { lists[$0].contains { named($0, name) } }, "ANY \(name)")
            XCTAssertEqual(all.filter("ALL values.@type == %@", name).map(\.id).sorted(),
                           ids.filter { lists[$0].allSatisfy { named($0, name) } }, "ALL \(name)")
            XCTAssertEqual(all.filter("NONE values.@type == %@", name).map(\.id).sorted(),
                           ids.filter { !lists[$0].contains { named($0, name) } }, "NONE \(name)")
        }
        XCTAssertEqual(all.filter("value.@type IN {'string', 'binary'}").map(\.id).sorted(),
                       (0 ..< pool.count).filter { ["string", "binary"].contains(typeName(pool[$0])) })
        XCTAssertTrue(all.filter("value.@type == 'int'").explain().contains("MixedType"))
        XCTAssertThrowsError(try all.filter(checking: "value.@type == 'integer'")) { error in
            XCTAssertTrue("\(error)".contains("'integer' is not a type name"), "\(error)")
        }
        XCTAssertThrowsError(try all.filter(checking: "id.@type == 'int'")) { error in
            XCTAssertTrue("\(error)".contains("@type applies to mixed values"), "\(error)")
        }
    }

    /// Sorting by a mixed property (ascending and descending, by name and by key path, the first elements alone)
    /// and sorting a list of mixed values, against `MixedReference.sortOrder` with ties in their previous order.
    func testSortingByAMixedPropertyOrdersByKindThenValue() throws {
        let realm = try openRealm()
        let targets = try realm.write { (0 ..< 3).map { realm.create(MixedTarget.self, value: ["id": $0]) } }
        var pool = Self.pool(targets)
        var generator = SeededGenerator.fromEnvironment()
        pool.shuffle(using: &generator)
        try realm.write {
            for (id, value) in pool.enumerated() { realm.create(MixedItem.self, value: ["id": id, "value": value]) }
            realm.create(MixedItem.self, value: ["id": pool.count, "values": pool])
        }
        func expected(ascending: Bool) -> [Int] {
            pool.indices.sorted { left, right in
                let sign = MixedReference.sortOrder(pool[left], pool[right]) * (ascending ? 1 : -1)
                return sign != 0 ? sign < 0 : left < right
            }
        }
        let items = realm.objects(MixedItem.self).filter("id < %@", pool.count)
        for ascending in [true, false] {
            let wanted = expected(ascending: ascending)
            XCTAssertEqual(items.sorted(byKeyPath: "value", ascending: ascending).map(\.id), wanted,
                           "ascending \(ascending), seed \(generator.seed)")
            XCTAssertEqual(items.sorted(by: \.value, ascending: ascending).map(\.id), wanted)
            XCTAssertEqual(items.sorted(byKeyPath: "value", ascending: ascending).first?.id, wanted.first)
            XCTAssertEqual(Array(items.sorted(byKeyPath: "value", ascending: ascending).prefix(5)).map(\.id),
                           Array(wanted.prefix(5)))
            let list = try XCTUnwrap(realm.object(ofType: MixedItem.self, forPrimaryKey: pool.count)).values
            XCTAssertEqual(Array(list.sorted(ascending: ascending)).map { pool.firstIndex(of: $0) ?? -1 }.count,
                           pool.count)
            XCTAssertEqual(Array(list.sorted(ascending: ascending)).map { "\($0)" },
                           wanted.map { "\(pool[$0])" }, "list, ascending \(ascending)")
        }
    }

    /// Distinct keeps one object per value, where values of different cases are different (`1` and `1.0`).
    func testDistinctMixedValuesAreDistinctCasesAndPayloads() throws {
        let realm = try openRealm()
        let values: [AnyRealmValue] = [.int(1), .double(1), .int(1), .string("a"), .data(Data("a".utf8)), .none,
                                       .none, .double(.nan), .double(.nan)]
        try realm.write {
            for (id, value) in values.enumerated() { realm.create(MixedItem.self, value: ["id": id, "value": value]) }
        }
        XCTAssertEqual(realm.objects(MixedItem.self).distinct(by: ["value"]).map(\.id), [0, 1, 3, 4, 5, 7])
    }

    func testTypedQueriesCompareMixedValues() throws {
        let realm = try openRealm()
        try realm.write {
            for (id, value) in [AnyRealmValue.int(1), .double(2.5), .string("x"), .none, .int(5)].enumerated() {
                realm.create(MixedItem.self, value: ["id": id, "value": value])
            }
        }
        let all = realm.objects(MixedItem.self)
        XCTAssertEqual(all.where { $0.value == .int(1) }.map(\.id), [0])
        XCTAssertEqual(all.where { $0.value > .int(2) }.map(\.id), [1, 4])
        XCTAssertEqual(all.where { $0.value == .none }.map(\.id), [3])
        XCTAssertEqual(all.where { $0.value != .string("x") }.map(\.id), [0, 1, 3, 4])
        XCTAssertEqual(all.filter("value > 2 AND value < 5").map(\.id), [1])
        XCTAssertEqual(all.filter("value BEGINSWITH 'x'").map(\.id), [2])
    }

    func testTheKernelsRunOnTheMixedColumn() throws {
        let realm = try openRealm()
        try realm.write { realm.create(MixedItem.self, value: ["id": 1, "value": 1]) }
        let plan = realm.objects(MixedItem.self).filter("value > 0 AND value CONTAINS 'a'").explain()
        XCTAssertTrue(plan.contains("CmpMixed"), plan)
        XCTAssertTrue(plan.contains("MatchMixed"), plan)
    }
}
