// NestedMixedQueryTests: queries that reach into the lists and dictionaries nested in mixed values
// (`value[0]`, `value['key']`, `value[FIRST]`, `value[LAST]`, `value[*]`, `value.@count`, `@type`), in string
// predicates, with RealmSwift's `%@` and `[%K]`/"#any" spellings and through the typed builder, against a plain
// Swift evaluator of the same paths and of Realm's mixed comparison rules (MixedReference).

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

/// A step of a path into nested collections, with its three spellings.
private enum NestedStep: CaseIterable {
    case first, second, last, keyA, keyB, all

    /// As a string predicate writes it.
    var text: String {
        switch self {
        case .first: return "[FIRST]"
        case .second: return "[1]"
        case .last: return "[LAST]"
        case .keyA: return "['a']"
        case .keyB: return "[\"b\"]"
        case .all: return "[*]"
        }
    }

    /// As RealmSwift's builder writes it: a `%@` or `%K` placeholder and its argument.
    var placeholder: (text: String, argument: Any) {
        switch self {
        case .first: return ("[%@]", 0)
        case .second: return ("[%@]", 1)
        case .last: return ("[LAST]", "")
        case .keyA: return ("[%@]", "a")
        case .keyB: return ("[%@]", "b")
        case .all: return ("[%K]", "#any")
        }
    }

    func typed(_ query: Query<AnyRealmValue>) -> Query<AnyRealmValue>? {
        switch self {
        case .first: return query[0]
        case .second: return query[1]
        case .keyA: return query["a"]
        case .keyB: return query["b"]
        case .all: return query.any
        case .last: return nil
        }
    }

    /// What the step reaches from each of `values`: one value (none when missing) or, for `*`, every element.
    func apply(_ values: [AnyRealmValue]) -> [AnyRealmValue] {
        values.flatMap { value -> [AnyRealmValue] in
            switch (self, value) {
            case (.all, .list(let list)): return Array(list)
            case (.all, .dictionary(let map)): return Array(map.values)
            case (.all, _): return []
            case (.first, .list(let list)): return [list.first ?? .none]
            case (.second, .list(let list)): return [list.count > 1 ? list[1] : .none]
            case (.last, .list(let list)): return [list.last ?? .none]
            case (.keyA, .dictionary(let map)): return [map["a"] ?? .none]
            case (.keyB, .dictionary(let map)): return [map["b"] ?? .none]
            default: return [.none]
            }
        }
    }
}

final class NestedMixedQueryTests: RealmTestCase {
    private static var scalars: [AnyRealmValue] { [
        .none, .int(0), .int(1), .int(5), .int(-3), .double(1.0), .double(2.5), .float(5), .bool(true), .bool(false),
        .string("a"), .string("apple"), .string("b"), .data(Data("a".utf8)),
    ] }

    private func randomTree(depth: Int, using generator: inout SeededGenerator) -> AnyRealmValue {
        let roll = Int.random(in: 0..<10, using: &generator)
        if roll < 4 && depth < 3 {
            return .fromArray((0..<Int.random(in: 0...3, using: &generator)).map { _ in
                randomTree(depth: depth + 1, using: &generator)
            })
        }
        if roll < 7 && depth < 3 {
            var entries: [String: AnyRealmValue] = [:]
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                entries[["a", "b", "c"][Int.random(in: 0..<3, using: &generator)]] =
                    randomTree(depth: depth + 1, using: &generator)
            }
            return .fromDictionary(entries)
        }
        return Self.scalars.randomElement(using: &generator)!
    }

    func testPathsIntoNestedCollectionsSelectWhatThePlainSwiftEvaluatorSelects() throws {
        var generator = SeededGenerator.fromEnvironment()
        let realm = try openRealm()
        let rowCount = 300
        var trees: [AnyRealmValue] = []
        try realm.write {
            for id in 0..<rowCount {
                let tree = randomTree(depth: 0, using: &generator)
                trees.append(tree)
                realm.create(MixedItem.self, value: ["id": id, "value": tree])
            }
        }
        // The reference reads the trees back as unmanaged copies: what was stored, not what Columnar evaluates.
        let all = realm.objects(MixedItem.self)
        let ops: [MixedReference.Op] = [.eq, .ne, .lt, .ge, .beginsWith]
        var mismatches: [String] = []
        var queries = 0
        var matched = 0
        for _ in 0..<250 {
            let steps = (0..<Int.random(in: 1...2, using: &generator)).map { _ in NestedStep.allCases.randomElement(using: &generator)! }
            let op = ops.randomElement(using: &generator)!
            let constant = Self.scalars.randomElement(using: &generator)!
            let argument: Any = constant == .none ? NSNull() : constant
            let expected = (0..<rowCount).filter { id in
                steps.reduce([trees[id]]) { $1.apply($0) }.contains { MixedReference.holds($0, op, constant) }
            }
            matched += expected.count
            func compare(_ what: String, _ got: [Int]) {
                queries += 1
                if got != expected {
                    mismatches.append("\(what) \(constant): \(got.count) rows, expected \(expected.count); first "
                                      + "differing ids \(Set(got).symmetricDifference(expected).sorted().prefix(3))")
                }
            }
            let path = "value" + steps.map(\.text).joined()
            compare(path + " \(op.rawValue) %@", all.filter("\(path) \(op.rawValue) %@", argument).map(\.id).sorted())
            // RealmSwift's spelling: placeholders for positions and keys, "#any" for every element.
            let placeholders = steps.map(\.placeholder)
            let arguments = placeholders.compactMap { $0.text == "[LAST]" ? nil : $0.argument } + [argument]
            let spelled = "value" + placeholders.map(\.text).joined() + " \(op.rawValue) %@"
            compare(spelled, all.filter(NSPredicate(format: spelled, argumentArray: arguments)).map(\.id).sorted())
            // The typed builder, for the steps and operators it has.
            if !steps.contains(.last), [.eq, .ne, .lt, .ge].contains(op) {
                let got = all.where { item in
                    let typedPath = steps.reduce(item.value) { query, step in step.typed(query)! }
                    switch op {
                    case .eq: return typedPath == constant
                    case .ne: return typedPath != constant
                    case .lt: return typedPath < constant
                    default: return typedPath >= constant
                    }
                }
                compare("typed " + path + " \(op.rawValue)", got.map(\.id).sorted())
            }
        }
        XCTAssertEqual(mismatches, [], "seed \(generator.seed)")
        XCTAssertGreaterThan(queries, 600)
        XCTAssertGreaterThan(matched, 250 * rowCount / 50, "the random comparisons match some rows")
        print("nested mixed queries: \(queries) queries, \(matched) rows matched, \(mismatches.count) mismatches, "
              + "seed \(generator.seed)")
    }

    func testTypesAndSizesOfNestedValues() throws {
        let realm = try openRealm()
        try realm.write {
            realm.create(MixedItem.self, value: ["id": 0, "value": AnyRealmValue.fromArray([.int(1), .fromArray([])])])
            realm.create(MixedItem.self, value: ["id": 1, "value": AnyRealmValue.fromDictionary(["a": .string("x")])])
            realm.create(MixedItem.self, value: ["id": 2, "value": AnyRealmValue.int(4)])
            realm.create(MixedItem.self, value: ["id": 3, "value": AnyRealmValue.fromArray([])])
        }
        let all = realm.objects(MixedItem.self)
        func ids(_ format: String, _ args: Any...) -> [Int] {
            all.filter(NSPredicate(format: format, argumentArray: args)).map(\.id).sorted()
        }
        XCTAssertEqual(ids("value.@type == 'list'"), [0, 3])
        XCTAssertEqual(ids("value.@type == 'dictionary'"), [1])
        XCTAssertEqual(ids("value.@type == 'collection'"), [0, 1, 3])
        XCTAssertEqual(ids("value.@type != 'collection'"), [2])
        XCTAssertEqual(ids("value[1].@type == 'array'"), [0])
        XCTAssertEqual(ids("value.@count == 2"), [0])
        XCTAssertEqual(ids("value.@size == 0"), [2, 3])
        XCTAssertEqual(ids("value['a'] == 'x'"), [1])
        XCTAssertEqual(ids("value[%@] == %@", "a", "x"), [1])
        XCTAssertEqual(ids("value['missing'] == nil"), [0, 1, 2, 3])
        // A collection is a value of its own type: equal to no scalar, and ordered after every other kind.
        XCTAssertEqual(ids("value == 4"), [2])
        XCTAssertEqual(ids("value != 4"), [0, 1, 3])
        XCTAssertEqual(all.sorted(byKeyPath: "value").map(\.id).first, 2)
    }

    /// A list or dictionary as the constant (RealmSwift's `anyCol == %@` with `.dictionary(map)`) equals stored
    /// collections of equal contents: the same kind, elements equal as mixed values (numbers by value), keys alike.
    func testCollectionConstantsCompareWithStoredCollectionsByContents() throws {
        let realm = try openRealm()
        let target = try realm.write { realm.create(MixedTarget.self, value: ["id": 1]) }
        let stored: [AnyRealmValue] = [
            .fromArray([.int(1), .string("a")]), .fromArray([.double(1), .string("a")]), .fromArray([.string("a"), .int(1)]),
            .fromDictionary(["k": .decimal128(Decimal128(stringLiteral: "2.5"))]),
            .fromDictionary(["k": .double(2.5), "x": .none]), .fromDictionary(["k": .object(target)]),
            .int(1), .none, .fromArray([.fromArray([.int(1), .string("a")])]),
        ]
        try realm.write {
            for (id, value) in stored.enumerated() { realm.create(MixedItem.self, value: ["id": id, "value": value]) }
        }
        let all = realm.objects(MixedItem.self)
        func ids(_ format: String, _ constant: AnyRealmValue) -> [Int] {
            all.filter(format, constant).map(\.id).sorted()
        }
        let list = AnyRealmValue.fromArray([.int(1), .string("a")])
        XCTAssertEqual(ids("value == %@", list), [0, 1])
        XCTAssertEqual(ids("value != %@", list), [2, 3, 4, 5, 6, 7, 8])
        XCTAssertEqual(ids("value > %@", list), [])
        XCTAssertEqual(ids("value == %@", .fromDictionary(["k": .double(2.5)])), [3])
        XCTAssertEqual(ids("value == %@", .fromDictionary(["k": .double(2.5), "x": .none])), [4])
        XCTAssertEqual(ids("value == %@", .fromDictionary(["k": .object(target)])), [5])
        XCTAssertEqual(ids("value[0] == %@", list), [8])
        XCTAssertEqual(ids("value == %@", .fromArray([])), [])
        // The typed builder takes the same constants.
        XCTAssertEqual(all.where { $0.value == list }.map(\.id).sorted(), [0, 1])
        XCTAssertEqual(all.where { $0.value[0] == list }.map(\.id).sorted(), [8])
        XCTAssertEqual(all.filter("value IN %@", [list, AnyRealmValue.int(1)]).map(\.id).sorted(), [0, 1, 6])
        // A stored collection read back is a constant of its contents too.
        let read = try XCTUnwrap(realm.object(ofType: MixedItem.self, forPrimaryKey: 3)).value
        XCTAssertEqual(ids("value == %@", read), [3])
    }

    func testSubscriptsWhereTheyDoNotApplyAreRefusedWithAMessage() throws {
        let realm = try openRealm()
        let all = realm.objects(MixedItem.self)
        for (format, message) in [("id[0] == 1", "is not a mixed value"),
                                  ("values[0] == 1", "is a collection"),
                                  ("value.@type[0] == 1", "@type must end the key path"),
                                  ("value[-1] == 1", "subscript"),
                                  ("value[%K] == 1", "#any")] {
            XCTAssertThrowsError(try all.filter(checking: format, "other"), format) { error in
                XCTAssertTrue("\(error)".contains(message), "\(format): \(error)")
            }
        }
    }
}
