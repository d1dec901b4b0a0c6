// QueryBuilderTests: the typed query builder (`where { $0.age > 3 }`) produces the query AST that RealmSwift's
// predicate string for the same query parses to.
//
// Each case gives the builder's closure, the canonical text of the AST it must produce
// (QueryPredicate+CanonicalText.swift), and the predicate-format string with arguments that RealmSwift's `Query`
// generates for that closure (copied in form from RealmSwift's QueryTests, `%@` and all). Parsing that string
// must give the same canonical text, so the two front ends agree constant by constant. Where Columnar's AST
// deliberately differs from RealmSwift's string (an explicit ANY where RealmSwift leaves it implicit, aggregates
// on nested to-many paths), the string given is the equivalent one and the case says why.
//
// The models are this file's own (prefixed QB) so that other test files can change theirs freely.

import ColumnarTestSupport
import Foundation
import QueryVM
import XCTest

@testable import Columnar

// MARK: - Models

enum QBKind: String, PersistableEnum {
    case small, large
}

enum QBLevel: Int, PersistableEnum {
    case low = 1, high = 3
}

final class QBToy: Object {
    @Persisted var brand = ""
    @Persisted var price = 0.0
}

final class QBAddress: EmbeddedObject {
    @Persisted var city = ""
}

final class QBDog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var isGood = true
    @Persisted var toys: List<QBToy>
    @Persisted var owner: QBPerson?
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<QBPerson>
}

final class QBPerson: Object {
    @Persisted(primaryKey: true) var id: ObjectId
    @Persisted var name = ""
    @Persisted var nickname: String?
    @Persisted var age = 0
    @Persisted var minimumAge = 0
    @Persisted var optionalAge: Int?
    @Persisted var int8: Int8
    @Persisted var int16: Int16
    @Persisted var int32: Int32
    @Persisted var int64: Int64
    @Persisted var height: Float
    @Persisted var weight: Double
    @Persisted var salary: Decimal128
    @Persisted var isActive = false
    @Persisted var isVerified: Bool?
    @Persisted var picture: Data
    @Persisted var birthday: Date
    @Persisted var optionalBirthday: Date?
    @Persisted var uuid: UUID
    @Persisted var kind: QBKind
    @Persisted var level: QBLevel
    @Persisted var optionalLevel: QBLevel?
    @Persisted var dogs: List<QBDog>
    @Persisted var bestFriend: QBDog?
    @Persisted var address: QBAddress?
    @Persisted var scores: List<Int>
    @Persisted var optionalScores: List<Int?>
    @Persisted var levels: List<QBLevel>
    @Persisted var tags: MutableSet<String>
    @Persisted var prices: Map<String, Double>
    @Persisted var nicknames: Map<String, String?>
    @Persisted var dogsByName: Map<String, QBDog?>

    /// Not persisted: reads one persisted property, so only a check of the key path itself tells it apart.
    var displayName: String { name }
    /// Not persisted: reads two persisted properties.
    var summary: String { "\(name) \(age)" }
    /// Not persisted: a plain stored property.
    var scratch = 0
    /// Not persisted, settable, of a persisted property's type: converts what it reads.
    var agePlusOne: Int {
        get { age + 1 }
        set { age = newValue - 1 }
    }
    var shoutedName: String {
        get { name.uppercased() }
        set { name = newValue.lowercased() }
    }
    /// Not persisted, settable: gives back exactly what it reads.
    var nameAlias: String {
        get { name }
        set { name = newValue }
    }
}

class QBBase: Object {
    @Persisted var baseValue = 0
}

final class QBDerived: QBBase {
    @Persisted var derivedValue = ""
}

// MARK: - Tests

final class QueryBuilderTests: XCTestCase {
    /// Asserts that `build` gives the AST whose canonical text is `canonical`, and that RealmSwift's string
    /// `format` with `arguments` parses to the same text.
    private func assertQuery<Root>(
        _ root: Root.Type, _ canonical: String, realm format: String, _ arguments: [Any] = [],
        file: StaticString = #filePath, line: UInt = #line, _ build: (Query<Root>) -> Query<Bool>
    ) {
        let built = Query<Root>._predicate(build)
        XCTAssertEqual(built.description, canonical, "built AST", file: file, line: line)
        do {
            let parsed = try PredicateParser.parse(format, arguments: arguments)
            XCTAssertEqual(parsed.description, canonical, "parsed \(format)", file: file, line: line)
        } catch {
            XCTFail("\(format) did not parse: \(error)", file: file, line: line)
        }
    }

    private func assertPerson(_ canonical: String, realm format: String, _ arguments: Any...,
                              file: StaticString = #filePath, line: UInt = #line,
                              _ build: (Query<QBPerson>) -> Query<Bool>) {
        assertQuery(QBPerson.self, canonical, realm: format, arguments, file: file, line: line, build)
    }

    // MARK: Equality with constants of every type

    func testEqualityWithIntegersStringsAndBools() {
        assertPerson("age == 3", realm: "(age == %@)", 3) { $0.age == 3 }
        assertPerson("age != 3", realm: "(age != %@)", 3) { $0.age != 3 }
        assertPerson("int8 == 8", realm: "(int8 == %@)", Int8(8)) { $0.int8 == 8 }
        assertPerson("int16 == 16", realm: "(int16 == %@)", Int16(16)) { $0.int16 == 16 }
        assertPerson("int32 == 32", realm: "(int32 == %@)", Int32(32)) { $0.int32 == 32 }
        assertPerson("int64 == -64", realm: "(int64 == %@)", Int64(-64)) { $0.int64 == -64 }
        assertPerson("name == \"Rex \\\"the\\\" dog\"", realm: "(name == %@)", "Rex \"the\" dog") {
            $0.name == "Rex \"the\" dog"
        }
        assertPerson("isActive == FALSE", realm: "(isActive == %@)", false) { $0.isActive == false }
        assertPerson("isVerified != TRUE", realm: "(isVerified != %@)", true) { $0.isVerified != true }
    }

    func testEqualityWithFloatingPointDatesIdentifiersDataAndDecimals() {
        assertPerson("height == 1.5", realm: "(height == %@)", Float(1.5)) { $0.height == 1.5 }
        assertPerson("weight == 72.25", realm: "(weight == %@)", 72.25) { $0.weight == 72.25 }
        let date = Date(timeIntervalSince1970: 10.5)
        assertPerson("birthday == T10:500000000", realm: "(birthday == %@)", date) { $0.birthday == date }
        let before1970 = Date(timeIntervalSince1970: -1.25)
        assertPerson("birthday == T-1:-250000000", realm: "(birthday == %@)", before1970) {
            $0.birthday == before1970
        }
        let uuid = UUID(uuidString: "0123E567-E89B-12D3-A456-426614174000")!
        assertPerson("uuid == uuid(0123e567-e89b-12d3-a456-426614174000)", realm: "(uuid == %@)", uuid) {
            $0.uuid == uuid
        }
        let id = ObjectId("0123456789abcdef01234567")
        assertPerson("id == oid(0123456789abcdef01234567)", realm: "(id == %@)", id) { $0.id == id }
        let picture = Data([1, 2, 255])
        assertPerson("picture == B64\"AQL/\"", realm: "(picture == %@)", picture) { $0.picture == picture }
        // Decimal128 constants travel as their exact text, marked as a decimal (QueryConstant.swift).
        let salary = Decimal128(stringLiteral: "1234.5678901234567890123456789")
        assertPerson("salary == decimal128(1234.5678901234567890123456789)", realm: "(salary == %@)", salary) {
            $0.salary == salary
        }
    }

    func testOptionalPropertiesAndLinksCompareWithNil() {
        assertPerson("nickname == NULL", realm: "(nickname == %@)", NSNull()) { $0.nickname == nil }
        assertPerson("nickname != NULL", realm: "(nickname != %@)", NSNull()) { $0.nickname != nil }
        assertPerson("nickname == \"Bo\"", realm: "(nickname == %@)", "Bo") { $0.nickname == "Bo" }
        assertPerson("optionalAge == NULL", realm: "(optionalAge == %@)", NSNull()) { $0.optionalAge == nil }
        assertPerson("optionalBirthday == NULL", realm: "(optionalBirthday == %@)", NSNull()) {
            $0.optionalBirthday == nil
        }
        assertPerson("bestFriend == NULL", realm: "(bestFriend == %@)", NSNull()) { $0.bestFriend == nil }
        assertPerson("address != NULL", realm: "(address != %@)", NSNull()) { $0.address != nil }
    }

    func testPersistableEnumsCompareByRawValue() {
        assertPerson("kind == \"large\"", realm: "(kind == %@)", "large") { $0.kind == .large }
        assertPerson("level == 3", realm: "(level == %@)", 3) { $0.level == .high }
        assertPerson("level > 1", realm: "(level > %@)", 1) { $0.level > .low }
        assertPerson("optionalLevel == NULL", realm: "(optionalLevel == %@)", NSNull()) { $0.optionalLevel == nil }
        assertPerson("optionalLevel <= 1", realm: "(optionalLevel <= %@)", 1) { $0.optionalLevel <= .low }
        assertPerson("kind BEGINSWITH \"la\"", realm: "(kind BEGINSWITH %@)", "la") {
            $0.kind.rawValue.starts(with: "la")
        }
        assertPerson("level IN {1, 3}", realm: "(level IN %@)", [1, 3]) { $0.level.in([.low, .high]) }
    }

    // MARK: Ordering

    func testOrderingOperatorsWithConstants() {
        assertPerson("age > 3", realm: "(age > %@)", 3) { $0.age > 3 }
        assertPerson("age >= 3", realm: "(age >= %@)", 3) { $0.age >= 3 }
        assertPerson("age < 3", realm: "(age < %@)", 3) { $0.age < 3 }
        assertPerson("age <= 3", realm: "(age <= %@)", 3) { $0.age <= 3 }
        assertPerson("optionalAge > 3", realm: "(optionalAge > %@)", 3) { $0.optionalAge > 3 }
        assertPerson("weight < 80.5", realm: "(weight < %@)", 80.5) { $0.weight < 80.5 }
        assertPerson("salary >= decimal128(10)", realm: "(salary >= %@)", Decimal128(10)) { $0.salary >= 10 }
        let date = Date(timeIntervalSince1970: 1_000)
        assertPerson("birthday < T1000:0", realm: "(birthday < %@)", date) { $0.birthday < date }
        assertPerson("name > \"m\"", realm: "(name > %@)", "m") { $0.name > "m" }
        assertPerson("picture <= B64\"AQ==\"", realm: "(picture <= %@)", Data([1])) { $0.picture <= Data([1]) }
    }

    func testComparisonsBetweenTwoProperties() {
        assertPerson("age >= minimumAge", realm: "(age >= minimumAge)") { $0.age >= $0.minimumAge }
        assertPerson("age == minimumAge", realm: "(age == minimumAge)") { $0.age == $0.minimumAge }
        assertPerson("age != minimumAge", realm: "(age != minimumAge)") { $0.age != $0.minimumAge }
        assertPerson("name < bestFriend.name", realm: "(name < bestFriend.name)") { $0.name < $0.bestFriend.name }
        assertPerson("name CONTAINS[c] nickname", realm: "(name CONTAINS[c] nickname)") {
            $0.name.contains($0.nickname, options: .caseInsensitive)
        }
        assertPerson("name BEGINSWITH bestFriend.name", realm: "(name BEGINSWITH bestFriend.name)") {
            $0.name.starts(with: $0.bestFriend.name)
        }
        assertPerson("name ENDSWITH[d] nickname", realm: "(name ENDSWITH[d] nickname)") {
            $0.name.ends(with: $0.nickname, options: .diacriticInsensitive)
        }
        assertPerson("name ==[cd] nickname", realm: "(name ==[cd] nickname)") {
            $0.name.equals($0.nickname, options: [.caseInsensitive, .diacriticInsensitive])
        }
        assertPerson("name != nickname", realm: "(name != nickname)") { $0.name.notEquals($0.nickname) }
        assertPerson("name LIKE[c] nickname", realm: "(name LIKE[c] nickname)") {
            $0.name.like($0.nickname, caseInsensitive: true)
        }
    }

    // MARK: Compound conditions

    func testAndOrNotKeepTheirGrouping() {
        assertPerson("(age > 3 AND name BEGINSWITH[c] \"R\")",
                     realm: "((age > %@) && (name BEGINSWITH[c] %@))", 3, "R") {
            $0.age > 3 && $0.name.starts(with: "R", options: .caseInsensitive)
        }
        assertPerson("(name == \"Foo\" OR (name == \"Bar\" AND age >= 21))",
                     realm: "((name == %@) || ((name == %@) && (age >= %@)))", "Foo", "Bar", 21) {
            $0.name == "Foo" || $0.name == "Bar" && $0.age >= 21
        }
        assertPerson("((name == \"Foo\" OR name == \"Bar\") AND age >= 21)",
                     realm: "(((name == %@) || (name == %@)) && (age >= %@))", "Foo", "Bar", 21) {
            ($0.name == "Foo" || $0.name == "Bar") && $0.age >= 21
        }
        assertPerson("NOT age > 3", realm: "(NOT age > %@)", 3) { !($0.age > 3) }
        assertPerson("(NOT name CONTAINS \"x\" OR NOT age == 3)",
                     realm: "((NOT name CONTAINS %@) || (NOT age == %@))", "x", 3) {
            !$0.name.contains("x") || !($0.age == 3)
        }
    }

    func testBoolPropertyAsConditionComparesWithTrue() {
        assertPerson("isActive == TRUE", realm: "isActive == true") { $0.isActive }
        assertPerson("isActive == FALSE", realm: "isActive == false") { !$0.isActive }
        assertPerson("(age == 0 AND isActive == TRUE)", realm: "((age == %@) && isActive == true)", 0) {
            $0.age == 0 && $0.isActive
        }
        assertPerson("(isActive == FALSE OR age == 0)", realm: "(isActive == false || (age == %@))", 0) {
            !$0.isActive || $0.age == 0
        }
        assertPerson("bestFriend.isGood == TRUE", realm: "bestFriend.isGood == true") { $0.bestFriend.isGood }
        assertPerson("NOT isActive == FALSE", realm: "NOT isActive == false") { !(!$0.isActive) }
        // RealmSwift writes `dogs.isGood == true`, which means the same (a to-many comparison without a quantifier
        // is ANY); the builder says ANY as it does for every comparison through a to-many property.
        assertPerson("ANY dogs.isGood == TRUE", realm: "ANY dogs.isGood == true") { $0.dogs.isGood }
    }

    // MARK: Strings

    func testStringOperatorsAndOptions() {
        assertPerson("name CONTAINS \"ex\"", realm: "(name CONTAINS %@)", "ex") { $0.name.contains("ex") }
        assertPerson("name CONTAINS[c] \"ex\"", realm: "(name CONTAINS[c] %@)", "ex") {
            $0.name.contains("ex", options: .caseInsensitive)
        }
        assertPerson("name BEGINSWITH[d] \"é\"", realm: "(name BEGINSWITH[d] %@)", "é") {
            $0.name.starts(with: "é", options: .diacriticInsensitive)
        }
        assertPerson("name ENDSWITH[cd] \"x\"", realm: "(name ENDSWITH[cd] %@)", "x") {
            $0.name.ends(with: "x", options: [.caseInsensitive, .diacriticInsensitive])
        }
        assertPerson("name ==[c] \"rex\"", realm: "(name ==[c] %@)", "rex") {
            $0.name.equals("rex", options: .caseInsensitive)
        }
        assertPerson("name == \"rex\"", realm: "(name == %@)", "rex") { $0.name.equals("rex") }
        assertPerson("name !=[cd] \"rex\"", realm: "(name !=[cd] %@)", "rex") {
            $0.name.notEquals("rex", options: [.diacriticInsensitive, .caseInsensitive])
        }
        assertPerson("name LIKE \"R?x*\"", realm: "(name LIKE %@)", "R?x*") { $0.name.like("R?x*") }
        assertPerson("name LIKE[c] \"r*\"", realm: "(name LIKE[c] %@)", "r*") {
            $0.name.like("r*", caseInsensitive: true)
        }
        assertPerson("nickname BEGINSWITH \"B\"", realm: "(nickname BEGINSWITH %@)", "B") {
            $0.nickname.starts(with: "B")
        }
        assertPerson("picture CONTAINS B64\"AgM=\"", realm: "(picture CONTAINS %@)", Data([2, 3])) {
            $0.picture.contains(Data([2, 3]))
        }
        XCTAssertEqual(StringOptions.caseInsensitive.rawValue, 1)
        XCTAssertEqual(StringOptions.diacriticInsensitive.rawValue, 2)
    }

    // MARK: IN and ranges

    func testInAndRanges() {
        assertPerson("age IN {1, 2, 3}", realm: "(age IN %@)", [1, 2, 3]) { $0.age.in([1, 2, 3]) }
        assertPerson("name IN {\"a\", \"b\"}", realm: "(name IN %@)", ["a", "b"]) { $0.name.in(["a", "b"]) }
        assertPerson("optionalAge IN {1, NULL}", realm: "(optionalAge IN %@)", [1, NSNull()] as [Any]) {
            $0.optionalAge.in([1, nil])
        }
        assertPerson("(age >= 18 AND age < 65)", realm: "((age >= %@) && (age < %@))", 18, 65) {
            $0.age.contains(18..<65)
        }
        assertPerson("age BETWEEN {18, 65}", realm: "(age BETWEEN {%@, %@})", 18, 65) { $0.age.contains(18...65) }
        assertPerson("optionalAge BETWEEN {1, 2}", realm: "(optionalAge BETWEEN {%@, %@})", 1, 2) {
            $0.optionalAge.contains(1...2)
        }
        assertPerson("(optionalAge >= 1 AND optionalAge < 2)", realm: "((optionalAge >= %@) && (optionalAge < %@))",
                     1, 2) { $0.optionalAge.contains(1..<2) }
        let start = Date(timeIntervalSince1970: 0), end = Date(timeIntervalSince1970: 60)
        assertPerson("birthday BETWEEN {T0:0, T60:0}", realm: "(birthday BETWEEN {%@, %@})", start, end) {
            $0.birthday.contains(start...end)
        }
        assertPerson("name BETWEEN {\"a\", \"m\"}", realm: "(name BETWEEN {%@, %@})", "a", "m") {
            $0.name.contains("a"..."m")
        }
    }

    // MARK: To-many properties

    func testComparisonsThroughToManyPropertiesAreAny() {
        assertPerson("ANY dogs.age > 5", realm: "(ANY dogs.age > %@)", 5) { $0.dogs.age > 5 }
        assertPerson("ANY dogs.name BEGINSWITH[c] \"r\"", realm: "(ANY dogs.name BEGINSWITH[c] %@)", "r") {
            $0.dogs.name.starts(with: "r", options: .caseInsensitive)
        }
        assertPerson("ANY dogs.toys.price > 5.0", realm: "(ANY dogs.toys.price > %@)", 5.0) { $0.dogs.toys.price > 5 }
        assertPerson("ANY dogs.age IN {1, 2}", realm: "(ANY dogs.age IN %@)", [1, 2]) { $0.dogs.age.in([1, 2]) }
        assertPerson("ANY dogs.age BETWEEN {1, 5}", realm: "(ANY dogs.age BETWEEN {%@, %@})", 1, 5) {
            $0.dogs.age.contains(1...5)
        }
        assertPerson("(ANY dogs.age >= 1 AND ANY dogs.age < 5)",
                     realm: "((ANY dogs.age >= %@) && (ANY dogs.age < %@))", 1, 5) { $0.dogs.age.contains(1..<5) }
        assertPerson("ANY scores == 3", realm: "(ANY scores == %@)", 3) { $0.scores == 3 }
        assertPerson("ANY scores != 3", realm: "(ANY scores != %@)", 3) { $0.scores != 3 }
        assertPerson("ANY scores >= 3", realm: "(ANY scores >= %@)", 3) { $0.scores >= 3 }
        assertPerson("ANY tags == \"a\"", realm: "(ANY tags == %@)", "a") { $0.tags == "a" }
        assertPerson("ANY levels == 3", realm: "(ANY levels == %@)", 3) { $0.levels == .high }
        assertPerson("ANY levels > 1", realm: "(ANY levels > %@)", 1) { $0.levels > .low }
        assertPerson("levels.@max == 3", realm: "(levels.@max == %@)", 3) { $0.levels.rawValue.max == 3 }
        assertPerson("ANY bestFriend.toys.brand == \"Lego\"", realm: "(ANY bestFriend.toys.brand == %@)", "Lego") {
            $0.bestFriend.toys.brand == "Lego"
        }
        assertQuery(QBDog.self, "ANY owners.name == \"Ann\"", realm: "(ANY owners.name == %@)", ["Ann"]) {
            $0.owners.name == "Ann"
        }
        assertPerson("\"a\" IN tags", realm: "(%@ IN tags)", "a") { $0.tags.contains("a") }
        assertPerson("3 IN scores", realm: "(%@ IN scores)", 3) { $0.scores.contains(3) }
        assertPerson("1 IN levels", realm: "(%@ IN levels)", 1) { $0.levels.rawValue.contains(1) }
        assertPerson("ANY tags IN {\"a\", \"b\"}", realm: "(ANY tags IN %@)", ["a", "b"]) {
            $0.tags.containsAny(in: ["a", "b"])
        }
        assertPerson("ANY levels IN {1}", realm: "(ANY levels IN %@)", [1]) { $0.levels.containsAny(in: [.low]) }
        assertPerson("NOT \"a\" IN tags", realm: "(NOT %@ IN tags)", "a") { !$0.tags.contains("a") }
    }

    func testToManyPathOnTheRightMovesToTheLeft() {
        // RealmSwift writes `(age < ANY dogs.age)`, which predicate strings cannot say; the mirrored comparison is
        // the same condition.
        assertPerson("ANY dogs.age > age", realm: "(ANY dogs.age > age)") { $0.age < $0.dogs.age }
        assertPerson("ANY dogs.name == name", realm: "(ANY dogs.name == name)") { $0.name == $0.dogs.name }
        // An operator that cannot be mirrored keeps its sides and no quantifier (which the AST defines as ANY).
        assertPerson("name BEGINSWITH dogs.name", realm: "(name BEGINSWITH dogs.name)") {
            $0.name.starts(with: $0.dogs.name)
        }
    }

    // MARK: Aggregates and counts

    func testCollectionCountAndAggregates() {
        assertPerson("scores.@count > 2", realm: "(scores.@count > %@)", 2) { $0.scores.count > 2 }
        assertPerson("dogs.@count == 0", realm: "(dogs.@count == %@)", 0) { $0.dogs.count == 0 }
        assertPerson("tags.@count >= 1", realm: "(tags.@count >= %@)", 1) { $0.tags.count >= 1 }
        assertPerson("scores.@min <= 1", realm: "(scores.@min <= %@)", 1) { $0.scores.min <= 1 }
        assertPerson("scores.@max >= 9", realm: "(scores.@max >= %@)", 9) { $0.scores.max >= 9 }
        assertPerson("scores.@sum == 10", realm: "(scores.@sum == %@)", 10) { $0.scores.sum == 10 }
        assertPerson("scores.@avg > 2", realm: "(scores.@avg > %@)", 2) { $0.scores.avg > 2 }
        assertPerson("optionalScores.@avg == NULL", realm: "(optionalScores.@avg == %@)", NSNull()) {
            $0.optionalScores.avg == nil
        }
        assertPerson("dogs.@avg.age > 3", realm: "(dogs.@avg.age > %@)", 3) { $0.dogs.age.avg > 3 }
        assertPerson("dogs.@min.age >= 1", realm: "(dogs.@min.age >= %@)", 1) { $0.dogs.age.min >= 1 }
        assertPerson("dogs.@max.age < 20", realm: "(dogs.@max.age < %@)", 20) { $0.dogs.age.max < 20 }
        assertPerson("dogs.@sum.age == 12", realm: "(dogs.@sum.age == %@)", 12) { $0.dogs.age.sum == 12 }
        assertPerson("bestFriend.toys.@count > 1", realm: "(bestFriend.toys.@count > %@)", 1) {
            $0.bestFriend.toys.count > 1
        }
        // RealmSwift puts the aggregate after the first step (`bestFriend.@max.toys.price`), which aggregates
        // over a to-one link; the builder puts it after the to-many step.
        assertPerson("bestFriend.toys.@max.price > 3.0", realm: "(bestFriend.toys.@max.price > %@)", 3.0) {
            $0.bestFriend.toys.price.max > 3
        }
        assertQuery(QBDog.self, "owners.@count > 1", realm: "(owners.@count > %@)", [1]) { $0.owners.count > 1 }
        assertPerson("dogs.@count > age", realm: "(dogs.@count > age)") { $0.dogs.count > $0.age }
    }

    func testRangesOnCollectionsBoundEveryElement() {
        assertPerson("(scores.@min >= 1 AND scores.@max <= 5)", realm: "((scores.@min >= %@) && (scores.@max <= %@))",
                     1, 5) { $0.scores.contains(1...5) }
        assertPerson("(scores.@min >= 1 AND scores.@max < 5)", realm: "((scores.@min >= %@) && (scores.@max < %@))",
                     1, 5) { $0.scores.contains(1..<5) }
        assertPerson("(optionalScores.@min >= 1 AND optionalScores.@max < 5)",
                     realm: "((optionalScores.@min >= %@) && (optionalScores.@max < %@))", 1, 5) {
            $0.optionalScores.contains(1..<5)
        }
        assertPerson("(prices.@min >= 1.0 AND prices.@max <= 2.0)",
                     realm: "((prices.@min >= %@) && (prices.@max <= %@))", 1.0, 2.0) { $0.prices.contains(1.0...2.0) }
    }

    // MARK: Maps

    func testMapSubscriptsKeysValuesAndAggregates() {
        assertPerson("prices[\"eur\"] > 3.0", realm: "(prices[%@] > %@)", "eur", 3.0) { $0.prices["eur"] > 3 }
        assertPerson("nicknames[\"home\"] == NULL", realm: "(nicknames[%@] == %@)", "home", NSNull()) {
            $0.nicknames["home"] == nil
        }
        assertPerson("nicknames[\"home\"] CONTAINS[cd] \"bo\"", realm: "(nicknames[%@] CONTAINS[cd] %@)", "home", "bo") {
            $0.nicknames["home"].contains("bo", options: [.caseInsensitive, .diacriticInsensitive])
        }
        assertPerson("dogsByName[\"rex\"].age > 2", realm: "(dogsByName[%@].age > %@)", "rex", 2) {
            $0.dogsByName["rex"].age > 2
        }
        assertPerson("ANY prices.@allKeys == \"eur\"", realm: "(ANY prices.@allKeys == %@)", "eur") {
            $0.prices.keys == "eur"
        }
        assertPerson("ANY nicknames.@allKeys BEGINSWITH[cd] \"h\"",
                     realm: "(ANY nicknames.@allKeys BEGINSWITH[cd] %@)", "h") {
            $0.nicknames.keys.starts(with: "h", options: [.caseInsensitive, .diacriticInsensitive])
        }
        assertPerson("ANY prices.@allValues > 2.0", realm: "(ANY prices.@allValues > %@)", 2.0) {
            $0.prices.values > 2
        }
        assertPerson("ANY dogsByName.@allValues.name == \"Rex\"",
                     realm: "(ANY dogsByName.@allValues.name == %@)", "Rex") { $0.dogsByName.values.name == "Rex" }
        assertPerson("prices.@count == 2", realm: "(prices.@count == %@)", 2) { $0.prices.count == 2 }
        assertPerson("prices.@sum > 10.0", realm: "(prices.@sum > %@)", 10.0) { $0.prices.sum > 10 }
        assertPerson("prices.@avg < 1.5", realm: "(prices.@avg < %@)", 1.5) { $0.prices.avg < 1.5 }
        assertPerson("prices.@min > 0.0", realm: "(prices.@min > %@)", 0.0) { $0.prices.min > 0 }
        assertPerson("prices.@max < 9.0", realm: "(prices.@max < %@)", 9.0) { $0.prices.max < 9 }
        assertPerson("2.5 IN prices", realm: "(%@ IN prices)", 2.5) { $0.prices.contains(2.5) }
        assertPerson("ANY prices IN {1.0, 2.0}", realm: "(ANY prices IN %@)", [1.0, 2.0]) {
            $0.prices.containsAny(in: [1.0, 2.0])
        }
    }

    // MARK: Subqueries

    func testSubqueryCountsElementsMatchingACondition() {
        assertPerson("SUBQUERY(dogs, $col1, $col1.age != 123).@count > 0",
                     realm: "(SUBQUERY(dogs, $col1, ($col1.age != %@)).@count > %@)", 123, 0) {
            ($0.dogs.age != 123).count > 0
        }
        assertPerson("SUBQUERY(dogs, $col1, ($col1.age > 3 AND $col1.name == \"Rex\")).@count > 1",
                     realm: "(SUBQUERY(dogs, $col1, (($col1.age > %@) && ($col1.name == %@))).@count > %@)",
                     3, "Rex", 1) {
            ($0.dogs.age > 3 && $0.dogs.name == "Rex").count > 1
        }
        assertPerson("(age == 5 AND SUBQUERY(dogs, $col1, $col1.name == \"Bar\").@count == 0)",
                     realm: "((age == %@) && (SUBQUERY(dogs, $col1, ($col1.name == %@)).@count == %@))", 5, "Bar", 0) {
            $0.age == 5 && ($0.dogs.name == "Bar").count == 0
        }
        assertPerson("(SUBQUERY(dogs, $col1, $col1.age > 1).@count > 0 OR SUBQUERY(tags, $col2, $col2 == \"x\").@count == 0)",
                     realm: "((SUBQUERY(dogs, $col1, ($col1.age > %@)).@count > %@) || (SUBQUERY(tags, $col2, ($col2 == %@)).@count == %@))",
                     1, 0, "x", 0) {
            ($0.dogs.age > 1).count > 0 || ($0.tags == "x").count == 0
        }
        assertPerson("SUBQUERY(dogs, $col1, $col1.toys.@count >= 2).@count > 0",
                     realm: "(SUBQUERY(dogs, $col1, ($col1.toys.@count >= %@)).@count > %@)", 2, 0) {
            ($0.dogs.toys.count >= 2).count > 0
        }
        // A further to-many step inside the subquery still compares each of its elements.
        assertPerson("SUBQUERY(dogs, $col1, ANY $col1.toys.price > 5.0).@count > 0",
                     realm: "(SUBQUERY(dogs, $col1, (ANY $col1.toys.price > %@)).@count > %@)", 5.0, 0) {
            ($0.dogs.toys.price > 5).count > 0
        }
        assertPerson("SUBQUERY(dogs, $col1, $col1.isGood == TRUE).@count == 2",
                     realm: "(SUBQUERY(dogs, $col1, $col1.isGood == true).@count == %@)", 2) {
            $0.dogs.isGood.count == 2
        }
    }

    // MARK: Roots other than an object

    func testPrimitiveCollectionElementsAreSelf() {
        XCTAssertEqual(Query<Int>._predicate(isPrimitive: true) { $0 > 3 }.description, "self > 3")
        XCTAssertEqual(Query<String>._predicate(isPrimitive: true) { $0.starts(with: "a") }.description,
                       "self BEGINSWITH \"a\"")
        XCTAssertEqual(Query<Int?>._predicate(isPrimitive: true) { $0 == nil || $0.contains(1...2) }.description,
                       "(self == NULL OR self BETWEEN {1, 2})")
    }

    func testOptionalObjectRootReachesItsProperties() {
        // A Map<String, QBDog?> filters its values with a Query<QBDog?>.
        XCTAssertEqual(Query<QBDog?>._predicate { $0.name == "Rex" && $0.toys.count > 0 }.description,
                       "(name == \"Rex\" AND toys.@count > 0)")
    }

    // MARK: Constants agree with `%@` arguments

    func testObjectIdAndDecimal128AreQueryArguments() throws {
        let id = ObjectId("00112233445566778899aabb")
        XCTAssertEqual(try PredicateParser.parse("id == %@", arguments: [id]).description,
                       "id == oid(00112233445566778899aabb)")
        XCTAssertEqual(try PredicateParser.parse("salary == %@", arguments: [Decimal128(2.5)]).description,
                       "salary == decimal128(2.5)")
        XCTAssertEqual(try PredicateParser.parse("level == %@", arguments: [QBLevel.high.rawValue]).description,
                       "level == 3")
    }

    // MARK: Misuse

    private static let runner = "ColumnarTests.QueryBuilderTests/testRunDeathCase"

    /// Queries the types allow but the builder refuses; each must stop the process with a message.
    private var deathCases: [String: () -> Void] {
        [
            "computed property": { _ = Query<QBPerson>._predicate { $0.displayName == "x" } },
            "two to-many sides": { _ = Query<QBPerson>._predicate { $0.dogs.age == $0.bestFriend.owners.age } },
            "subquery without a collection": { _ = Query<QBPerson>._predicate { ($0.age > 3).count > 0 } },
            "subquery over two collections": {
                _ = Query<QBPerson>._predicate { ($0.dogs.age > 3 && $0.scores == 2).count > 0 }
            },
        ]
    }

    /// Performs the case named by COLUMNAR_DEATH_CASE in a child process; does nothing in an ordinary run.
    func testRunDeathCase() throws {
        guard let name = currentDeathCase, name.hasPrefix("query: ") else { return }
        let body = try XCTUnwrap(deathCases[String(name.dropFirst(7))], "no death case named '\(name)'")
        body()
        XCTFail("death case '\(name)' returned")
    }

    private func assertStops(_ name: String, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNotNil(deathCases[name], "no death case named '\(name)'", file: file, line: line)
        assertStops("query: " + name, runnerTest: Self.runner, message: message, file: file, line: line)
    }

    func testMisuseStopsWithAMessageNamingTheProblem() {
        assertStops("computed property", "does not name a @Persisted property of QBPerson")
        assertStops("two to-many sides", "comparing two collection columns is not permitted (dogs.age and bestFriend.owners.age)")
        assertStops("subquery without a collection", "a subquery (.count on a condition) needs a key path through a collection")
        assertStops("subquery over two collections", "a subquery can look into one collection only, but this one uses both dogs and scores")
    }

    // MARK: Key path names

    func testKeyPathNamesOfPersistedProperties() {
        XCTAssertEqual(KeyPathNames.propertyName(for: \QBPerson.name), "name")
        XCTAssertEqual(KeyPathNames.propertyName(for: \QBPerson.nickname), "nickname")
        XCTAssertEqual(KeyPathNames.propertyName(for: \QBPerson.id), "id")
        XCTAssertEqual(KeyPathNames.propertyName(for: \QBPerson.dogs), "dogs")
        XCTAssertEqual(KeyPathNames.propertyName(for: \QBPerson.bestFriend), "bestFriend")
        XCTAssertEqual(KeyPathNames.propertyName(for: \QBPerson.prices), "prices")
        XCTAssertEqual(KeyPathNames.propertyName(for: \QBPerson.kind), "kind")
        XCTAssertEqual(KeyPathNames.propertyName(for: \QBDog.owners), "owners")
        XCTAssertEqual(KeyPathNames.propertyName(for: \QBDerived.derivedValue), "derivedValue")
        XCTAssertEqual(KeyPathNames.propertyName(for: \QBDerived.baseValue), "baseValue")
        XCTAssertEqual(KeyPathNames.propertyName(for: \QBBase.baseValue), "baseValue")
    }

    func testKeyPathNamesFollowLinksAndCollectionElements() {
        XCTAssertEqual(KeyPathNames.propertyNames(for: \QBPerson.bestFriend?.name), ["bestFriend", "name"])
        XCTAssertEqual(KeyPathNames.propertyNames(for: \QBPerson.bestFriend?.owner?.name),
                       ["bestFriend", "owner", "name"])
        XCTAssertEqual(KeyPathNames.propertyNames(for: \QBPerson.address?.city), ["address", "city"])
        XCTAssertEqual(KeyPathNames.propertyNames(for: \QBPerson.dogs[0].name), ["dogs", "name"])
        XCTAssertEqual(KeyPathNames.propertyNames(for: \QBPerson.dogs.first?.toys), ["dogs", "toys"])
        XCTAssertEqual(_name(for: \QBPerson.dogs[0].toys[0].brand), "dogs.toys.brand")
        XCTAssertEqual(_name(for: \QBPerson.age), "age")
        // A longer path is not one property.
        XCTAssertNil(KeyPathNames.propertyName(for: \QBPerson.bestFriend?.name))
    }

    func testKeyPathsWithoutPersistedPropertiesHaveNoNames() {
        XCTAssertNil(KeyPathNames.propertyNames(for: \QBPerson.displayName))
        XCTAssertNil(KeyPathNames.propertyNames(for: \QBPerson.summary))
        XCTAssertNil(KeyPathNames.propertyNames(for: \QBPerson.scratch))
        XCTAssertNil(KeyPathNames.propertyNames(for: \QBPerson.isInvalidated))
        XCTAssertNil(KeyPathNames.propertyNames(for: \QBPerson.self))
    }

    func testSettableComputedPropertiesThatConvertHaveNoNames() {
        XCTAssertNil(KeyPathNames.propertyNames(for: \QBPerson.agePlusOne))
        XCTAssertNil(KeyPathNames.propertyNames(for: \QBPerson.shoutedName))
        // A settable alias reads and writes the property it names, and is taken for it.
        XCTAssertEqual(KeyPathNames.propertyNames(for: \QBPerson.nameAlias), ["name"])
        XCTAssertEqual(KeyPathNames.propertyNames(for: \QBPerson.age), ["age"])
        XCTAssertEqual(KeyPathNames.propertyNames(for: \QBPerson.nickname), ["nickname"])
        XCTAssertEqual(KeyPathNames.propertyNames(for: \QBPerson.optionalAge), ["optionalAge"])
    }

    func testProbingLeavesNoPendingCellsAndIsCached() {
        let state = ThreadLocalState.current
        let pendingBefore = state.pendingCells.count
        XCTAssertEqual(KeyPathNames.propertyNames(for: \QBDog.owner?.dogs[0].toys.first?.price),
                       ["owner", "dogs", "toys", "price"])
        XCTAssertEqual(KeyPathNames.propertyNames(for: \QBDerived.baseValue), ["baseValue"])
        XCTAssertEqual(state.pendingCells.count, pendingBefore)
        XCTAssertNil(state.keyPathProbe)
        // The second lookup is answered from the cache, with the same result.
        XCTAssertEqual(KeyPathNames.propertyNames(for: \QBDog.owner?.dogs[0].toys.first?.price),
                       ["owner", "dogs", "toys", "price"])
        // Ordinary objects made afterwards are not probes and keep their own values.
        let person = QBPerson()
        person.name = "Ann"
        XCTAssertEqual(person.name, "Ann")
        XCTAssertEqual(person.dogs.count, 0)
        XCTAssertNil(person.bestFriend)
    }

    func testKeyPathNamesFromOtherThreads() {
        /// Each thread records through its own ThreadLocalState; the cache is shared under a lock.
        final class Collected: @unchecked Sendable {
            let lock = NSLock()
            var names: [[String]?] = []
        }
        let results = Collected()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let names = KeyPathNames.propertyNames(for: \QBToy.brand)
            results.lock.lock()
            results.names.append(names)
            results.lock.unlock()
        }
        XCTAssertEqual(results.names.count, 4)
        XCTAssertTrue(results.names.allSatisfy { $0 == ["brand"] })
    }
}
