// CheckedTemplateTests: a predicate whose check reuses the check of an earlier predicate of the same parse template
// (same format string, same argument kinds) is checked exactly as a fresh check would: the same checked predicate,
// the same error, the same objects. Also: arguments of other kinds never reuse a template made for one kind, and
// templates are dropped when the bound classes change.

@testable import Columnar
import ColumnarTestSupport
import Foundation
@testable import QueryVM
import XCTest

final class CheckedTemplateTests: RealmTestCase {
    /// Formats over QDItem: comparisons of every kind the reuse accepts, constants on either side, literals beside
    /// arguments, and shapes it leaves to the full check (IN, BETWEEN, aggregates, SUBQUERY, @type).
    private static let formats = [
        "int == %@", "string == %@", "%@ < int", "double >= %@ AND string BEGINSWITH[c] %@", "NOT (optInt == %@)",
        "date > %@ OR optDate == %@", "bool == %@ AND int > 3", "int > 3 AND string == %@", "uuid == %@",
        "objectId == %@", "decimal > %@", "float < %@", "optString == %@", "mixed == %@", "ANY ints == %@",
        "owner == %@", "owner.name == %@", "scores['a'] > %@", "int IN %@", "int BETWEEN {%@, %@}",
        "ints.@count > %@", "SUBQUERY(friends, $f, $f.age > %@).@count > 0", "mixed.@type == %@", "data == %@",
        "price > %@", "label == %@", "int8 == %@ OR int16 != %@", "string CONTAINS %@", "string LIKE %@",
    ]

    private static func argumentPool(owner: QDOwner) -> [Any] {
        [3, -7, Int64.max, 2.5, Float(1.5), Double.nan, "rex", "", "abc", NSNull(), Optional<Int>.none as Any, true,
         false, Date(timeIntervalSince1970: 12), Data([1, 2, 3]), UUID(), ObjectId(), Decimal128(number: 7),
         [1, 2], owner, "2", 1_000, Int8(4)]
    }

    private func outcome(_ body: () throws -> CheckedPredicate) -> String {
        do { return "\(try body())" } catch { return "error: \(error)" }
    }

    func testReusedChecksEqualFreshChecksForRandomArguments() throws {
        let realm = try openRealm()
        let owner = QDOwner(value: ["id": 1, "name": "Ann"])
        try realm.write { realm.add(owner) }
        let items = realm.objects(QDItem.self)
        _ = items.count  // binds the class
        let core = realm.core
        let model = core.queryModel()
        let table = try XCTUnwrap(try core.binding(for: QDItem.self)).table
        let pool = Self.argumentPool(owner: owner)
        var generator = SeededGenerator.fromEnvironment()
        var reusedChecks = 0
        for round in 0..<3_000 {
            let format = Self.formats[Int(generator.next() % UInt64(Self.formats.count))]
            let arguments = (0..<2).map { _ in pool[Int(generator.next() % UInt64(pool.count))] }
            let fresh = outcome {
                try TypeChecker.check(try PredicateParser.parse(format, arguments: arguments), table: table,
                                      model: model, query: format)
            }
            let templated = outcome {
                let (predicate, templateID) = try PredicateParser.parseTemplated(format, arguments: arguments)
                if templateID != nil,
                   core.checkedTemplates.predicates[CheckedTemplateKey(templateID: templateID!, table: table)] != nil {
                    reusedChecks += 1
                }
                return try core.checkedPredicate(predicate, templateID: templateID, table: table, model: model,
                                                 query: format)
            }
            // NaN is not equal to itself, but its text is the same either way.
            XCTAssertEqual(templated, fresh, "round \(round), seed \(generator.seed): \(format) with \(arguments)")
        }
        XCTAssertGreaterThan(reusedChecks, 500, "many rounds should find a template to reuse")
    }

    func testResultsOfReusedChecksMatchThoseOfFreshChecks() throws {
        let realm = try openRealm()
        try realm.write {
            for id in 0..<40 {
                realm.add(QDItem(value: ["id": id, "int": id % 7, "string": ["rex", "abc", "Rover", ""][id % 4],
                                         "double": Double(id) / 4, "optInt": id % 3 == 0 ? nil : id as Int?]))
            }
        }
        let items = realm.objects(QDItem.self)
        for value in [0, 3, 6, 9] {
            XCTAssertEqual(items.filter("int == %@", value).map(\.id), (0..<40).filter { $0 % 7 == value })
            XCTAssertEqual(items.filter("%@ < int", value).map(\.id), (0..<40).filter { value < $0 % 7 })
            XCTAssertEqual(items.filter("optInt == %@ OR double > %@", value, 9.0).map(\.id),
                           (0..<40).filter { ($0 % 3 != 0 && $0 == value) || Double($0) / 4 > 9 })
        }
        for name in ["rex", "abc", "Rover", "", "none"] {
            XCTAssertEqual(items.filter("string == %@", name).map(\.id),
                           (0..<40).filter { ["rex", "abc", "Rover", ""][$0 % 4] == name })
            XCTAssertEqual(items.filter("string BEGINSWITH[c] %@", name.prefix(1).description).count,
                           (0..<40).filter {
                               ["rex", "abc", "Rover", ""][$0 % 4].lowercased().hasPrefix(name.prefix(1).lowercased())
                           }.count)
        }
    }

    func testAnArgumentOfAnotherKindIsCheckedAfresh() throws {
        let realm = try openRealm()
        try realm.write { realm.add(QDItem(value: ["id": 1, "int": 4])) }
        let items = realm.objects(QDItem.self)
        XCTAssertEqual(items.filter("int == %@", 4).count, 1)
        // A string where the template held an int: the full check refuses it, with its usual message.
        XCTAssertThrowsError(try items.filter(checking: "int == %@", "4")) { error in
            XCTAssertTrue("\(error)".contains("int"), "\(error)")
        }
        XCTAssertEqual(items.filter("int == %@", 4.0).count, 1)
        XCTAssertEqual(items.filter("int == %@", NSNull()).count, 0)
        XCTAssertEqual(items.filter("int == %@", 4).count, 1)
        // A value of the template's kind that the conversion refuses falls back to the full check's error.
        XCTAssertEqual(items.filter("bool == %@", 1).count, 0)
        XCTAssertThrowsError(try items.filter(checking: "bool == %@", 7)) { error in
            XCTAssertTrue("\(error)".contains("bool"), "\(error)")
        }
    }

    func testTemplatesAreDroppedWhenTheBindingsChange() throws {
        let realm = try openRealm()
        try realm.write { realm.add(QDItem(value: ["id": 1, "int": 4])) }
        let items = realm.objects(QDItem.self)
        XCTAssertEqual(items.filter("int == %@", 4).count, 1)
        XCTAssertFalse(realm.core.checkedTemplates.predicates.isEmpty)
        let generation = realm.core.checkedTemplates.bindingGeneration
        // A cancelled write drops the bindings (the tables it made may be gone): checks made against them are too.
        realm.beginWrite()
        realm.add(QSDog())
        realm.cancelWrite()
        XCTAssertEqual(items.filter("int == %@", 5).count, 0)
        XCTAssertEqual(items.filter("int == %@", 4).count, 1)
        XCTAssertNotEqual(realm.core.checkedTemplates.bindingGeneration, generation)
    }

    func testTheSameFormatOnFilesWhoseClassesDifferIsCheckedForEach() throws {
        // Each file holds one class, so both are table 0 of their file, and one format reaches a property of
        // another type in each: a template checked against one file's model is never reused for the other's.
        let numbers = try Realm(configuration: Realm.Configuration(
            fileURL: URL(fileURLWithPath: directory.file("numbers.realm")), objectTypes: [CTIntThing.self]))
        let words = try Realm(configuration: Realm.Configuration(
            fileURL: URL(fileURLWithPath: directory.file("words.realm")), objectTypes: [CTStringThing.self]))
        try numbers.write { numbers.add(CTIntThing(value: ["value": 3])) }
        try words.write { words.add(CTStringThing(value: ["value": "3"])) }
        for _ in 0..<3 {
            XCTAssertEqual(numbers.objects(CTIntThing.self).filter("value == %@", 3).count, 1)
            XCTAssertThrowsError(try words.objects(CTStringThing.self).filter(checking: "value == %@", 3))
            XCTAssertEqual(words.objects(CTStringThing.self).filter("value == %@", "3").count, 1)
            XCTAssertThrowsError(try numbers.objects(CTIntThing.self).filter(checking: "value == %@", "3"))
        }
    }
}

final class CTIntThing: Object {
    @Persisted var value = 0
}

final class CTStringThing: Object {
    @Persisted var value = ""
}

final class CheckedTemplateThreadTests: RealmTestCase {
    /// Threads filtering at once, through their own Realms and through one frozen Realm they share, with formats
    /// whose parse templates and checks are kept process-wide and per Realm: every answer is the plain filter's.
    func testFiltersOnManyThreadsAndOnASharedFrozenRealmAgree() throws {
        let realm = try openRealm()
        let ints = (0..<60).map { ($0 * 7) % 11 }
        try realm.write {
            for (id, int) in ints.enumerated() { realm.add(QDItem(value: ["id": id, "int": int, "string": "s\(int)"])) }
        }
        nonisolated(unsafe) let frozen = realm.freeze()
        let configuration = self.configuration!
        let failures = Locked<[String]>([])
        runOnThreads(4) { thread in
            do {
                let live = try Realm(configuration: configuration)
                for round in 0..<300 {
                    let value = (round * 5 + thread) % 12
                    let realm = round % 2 == 0 ? live : frozen
                    let expected = ints.filter { $0 == value }.count
                    let byInt = realm.objects(QDItem.self).filter("int == %@", value).count
                    let byString = realm.objects(QDItem.self).filter("string == %@ OR int > %@", "s\(value)", 20).count
                    let below = realm.objects(QDItem.self).filter("%@ > int", value).count
                    if byInt != expected || byString != expected || below != ints.filter({ $0 < value }).count {
                        failures.withLock { $0.append("thread \(thread) round \(round): \(byInt) \(byString) \(below)") }
                    }
                }
            } catch {
                failures.withLock { $0.append("thread \(thread): \(error)") }
            }
        }
        XCTAssertEqual(failures.value, [])
    }
}
