// Results queries end to end: filter, sorted, distinct, aggregates and explain on the documentation's models.

import Columnar
import Foundation
import XCTest

final class ResultsQueryTests: RealmTestCase {
    private func seedPets(_ realm: Realm) throws {
        try realm.write {
            let alice = Owner(value: ["name": "Alice"])
            let bob = Owner(value: ["name": "Bob"])
            for (id, name, age, owner) in [(1, "Rex", 3, alice), (2, "rover", 5, bob), (3, "Fido", 3, nil),
                                           (4, "Ruby", 12, alice), (5, "Bella", 1, bob)] as [(Int, String, Int, Owner?)] {
                let pet = Pet()
                pet.id = id
                pet.name = name
                pet.age = age
                pet.owner = owner
                for price in 0..<id { pet.toys.append(Toy(value: ["brand": "b\(price)", "price": Double(price)])) }
                realm.add(pet)
            }
        }
    }

    private func ids(_ results: Results<Pet>) -> [Int] { results.map(\.id) }

    func testFilterWithArgumentsAndCaseInsensitivePrefix() throws {
        let realm = try openRealm()
        try seedPets(realm)
        let pets = realm.objects(Pet.self)
        XCTAssertEqual(ids(pets.filter("age > %@ AND name BEGINSWITH[c] %@", 3, "r")), [2, 4])
        XCTAssertEqual(pets.filter("age == 3").count, 2)
        XCTAssertEqual(ids(pets.filter("owner.name == 'Alice'")), [1, 4])
        XCTAssertEqual(ids(pets.filter("owner == nil")), [3])
        XCTAssertEqual(ids(pets.filter("toys.@count >= 4")), [4, 5])
        XCTAssertEqual(ids(pets.filter("ANY toys.price > 3.5")), [5])
        XCTAssertEqual(ids(pets.filter("SUBQUERY(toys, $t, $t.price > 1).@count == 2")), [4])
    }

    /// `first` and `prefix(_:)` of sorted results pick the first objects without sorting the others; what they pick
    /// follows writes (a new minimum, a deletion, a change in this write transaction) and agrees with the whole sort,
    /// which a later full read computes from scratch.
    func testFirstAndPrefixOfSortedResultsFollowWrites() throws {
        let realm = try openRealm()
        var generator = SystemRandomNumberGenerator()
        try realm.write {
            for id in 1...400 {
                realm.add(Pet(value: ["id": id, "name": "p\(id)", "age": Int.random(in: 0..<20, using: &generator)]))
            }
        }
        let byAge = realm.objects(Pet.self).sorted(by: [SortDescriptor(keyPath: "age", ascending: true),
                                                       SortDescriptor(keyPath: "id", ascending: false)])
        func wholeSort() -> [Int] { realm.objects(Pet.self).map { ($0.age, -$0.id, $0.id) }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2) }
        XCTAssertEqual(byAge.first?.id, wholeSort().first)
        XCTAssertEqual(byAge.prefix(10).map(\.id), Array(wholeSort().prefix(10)))
        XCTAssertEqual(byAge.prefix(10).count, 10)
        XCTAssertEqual(byAge[3].id, wholeSort()[3], "a position the prefix covers")
        XCTAssertEqual(byAge[250].id, wholeSort()[250], "a position it does not")

        try realm.write { realm.object(ofType: Pet.self, forPrimaryKey: 77)!.age = -1 }
        XCTAssertEqual(byAge.first?.id, 77, "a new minimum")
        XCTAssertEqual(byAge.prefix(5).map(\.id), Array(wholeSort().prefix(5)))
        try realm.write {
            realm.delete(realm.object(ofType: Pet.self, forPrimaryKey: 77)!)
            XCTAssertEqual(byAge.first?.id, wholeSort().first, "inside the write transaction")
            realm.add(Pet(value: ["id": 1000, "name": "new", "age": -5]))
            XCTAssertEqual(byAge.prefix(2).map(\.id), Array(wholeSort().prefix(2)))
            XCTAssertEqual(byAge.first?.id, 1000)
        }
        XCTAssertEqual(Array(byAge).map(\.id), wholeSort())
        XCTAssertEqual(byAge.prefix(1_000).map(\.id), wholeSort(), "a prefix longer than the results")
        XCTAssertEqual(byAge.prefix(0).count, 0)
        XCTAssertEqual(realm.objects(Pet.self).filter("age > 100").sorted(byKeyPath: "age").first, nil)
    }

    func testSortedDistinctAndAggregates() throws {
        let realm = try openRealm()
        try seedPets(realm)
        let pets = realm.objects(Pet.self)
        XCTAssertEqual(ids(pets.sorted(byKeyPath: "age")), [5, 1, 3, 2, 4])
        XCTAssertEqual(ids(pets.sorted(byKeyPath: "age", ascending: false)), [4, 2, 1, 3, 5])
        XCTAssertEqual(ids(pets.sorted(by: [Columnar.SortDescriptor(keyPath: "owner.name"), Columnar.SortDescriptor(keyPath: "age")])),
                       [3, 1, 4, 5, 2])
        XCTAssertEqual(ids(pets.distinct(by: ["age"])), [1, 2, 4, 5])
        XCTAssertEqual(pets.sum(ofProperty: "age") as Int, 24)
        XCTAssertEqual(pets.min(ofProperty: "age") as Int?, 1)
        XCTAssertEqual(pets.max(ofProperty: "age") as Int?, 12)
        XCTAssertEqual(pets.average(ofProperty: "age") as Double?, 4.8)
        let none = pets.filter("age > 100")
        XCTAssertEqual(none.sum(ofProperty: "age") as Int, 0)
        XCTAssertNil(none.min(ofProperty: "age") as Int?)
        XCTAssertNil(none.average(ofProperty: "age") as Double?)
        XCTAssertEqual(pets.filter("age == 3").sum(ofProperty: "age") as Int, 6)
    }

    /// Results made before a cancelled write go on answering queries (cancelling drops the Realm's class
    /// bindings, which the query model is built from).
    func testResultsMadeBeforeACancelledWriteStillQuery() throws {
        let realm = try openRealm()
        try seedPets(realm)
        let pets = realm.objects(Pet.self)
        realm.beginWrite()
        realm.delete(pets.filter("id == 1"))
        realm.cancelWrite()
        XCTAssertEqual(ids(pets.sorted(byKeyPath: "age")), [5, 1, 3, 2, 4])
        XCTAssertEqual(ids(pets.filter("age == 3")), [1, 3])
        XCTAssertEqual(pets.max(ofProperty: "age") as Int?, 12)
    }

    func testCollectionsAndLiveness() throws {
        let realm = try openRealm()
        try seedPets(realm)
        let ruby = realm.object(ofType: Pet.self, forPrimaryKey: 4)!
        XCTAssertEqual(ruby.toys.filter("price >= 2").map(\.brand), ["b2", "b3"])
        XCTAssertEqual(ruby.toys.sorted(byKeyPath: "price", ascending: false).first?.brand, "b3")
        XCTAssertEqual(ruby.toys.sum(ofProperty: "price") as Double, 6)
        let old = realm.objects(Pet.self).filter("age >= 5")
        XCTAssertEqual(old.count, 2)
        try realm.write { realm.object(ofType: Pet.self, forPrimaryKey: 1)!.age = 7 }
        XCTAssertEqual(old.count, 3)
        XCTAssertEqual(old.index(matching: "name == 'Ruby'"), 2)
    }

    func testExplainShowsIndexSeekAndKernels() throws {
        let realm = try openRealm()
        try seedPets(realm)
        let scan = realm.objects(Pet.self).filter("name BEGINSWITH 'R' AND owner.name == 'Alice'").explain()
        XCTAssertTrue(scan.contains("Scan"), scan)
        XCTAssertTrue(scan.contains("MatchStr"), scan)
        XCTAssertTrue(scan.contains("RefineRows"), scan)
        let seek = realm.objects(Pet.self).filter("age == 3").explain()
        XCTAssertTrue(seek.contains("IndexSeek"), seek)
        XCTAssertEqual(realm.objects(Pet.self).filter("age == 3").map(\.id), [1, 3])
    }

    func testBadQueriesThrowWithPositions() throws {
        let realm = try openRealm()
        try seedPets(realm)
        XCTAssertThrowsError(try realm.objects(Pet.self).filter(checking: "agee > 3")) { error in
            XCTAssertTrue("\(error)".contains("property 'agee' not found in class Pet"), "\(error)")
            XCTAssertTrue("\(error)".contains("offset 0"), "\(error)")
        }
        XCTAssertThrowsError(try realm.objects(Pet.self).filter(checking: "name > 3")) { error in
            XCTAssertTrue("\(error)".contains("string"), "\(error)")
        }
        XCTAssertThrowsError(try realm.objects(Pet.self).filter(checking: "age > ")) { error in
            XCTAssertTrue("\(error)".contains("offset"), "\(error)")
        }
    }

    func testFoundationPredicatesTranslate() throws {
        let realm = try openRealm()
        try seedPets(realm)
        let pets = realm.objects(Pet.self)
        XCTAssertEqual(ids(pets.filter(#Predicate<Pet> { $0.age > 3 && $0.name.starts(with: "R") })), [4])
        XCTAssertEqual(ids(pets.filter(#Predicate<Pet> { $0.owner?.name == "Alice" })), [1, 4])
        XCTAssertEqual(ids(pets.filter(#Predicate<Pet> { $0.owner == nil || $0.name.contains("over") })), [2, 3])
        XCTAssertEqual(ids(pets.filter(#Predicate<Pet> { $0.toys.count >= 4 })), [4, 5])
        XCTAssertEqual(ids(pets.filter(#Predicate<Pet> { $0.toys.contains { $0.price > 3.5 } })), [5])
        XCTAssertEqual(ids(pets.filter(#Predicate<Pet> { $0.toys.allSatisfy { $0.price < 2 } })), [1, 2])
        XCTAssertEqual(ids(pets.filter(#Predicate<Pet> { [1, 12].contains($0.age) })), [4, 5])
        XCTAssertEqual(ids(pets.filter(#Predicate<Pet> { !($0.age == 3) })), [2, 4, 5])
        XCTAssertThrowsError(try pets.filter(checking: #Predicate<Pet> { $0.age + 1 > 4 })) { error in
            XCTAssertTrue("\(error)".contains("Arithmetic has no translation"), "\(error)")
        }
    }

    func testTypedQueriesAndKeyPathForms() throws {
        let realm = try openRealm()
        try seedPets(realm)
        let pets = realm.objects(Pet.self)
        XCTAssertEqual(ids(pets.where { $0.age > 3 && $0.name.starts(with: "r", options: .caseInsensitive) }), [2, 4])
        XCTAssertEqual(pets.index(matching: { $0.name == "Fido" }), 2)
        XCTAssertEqual(ids(pets.sorted(by: \.name)), [5, 3, 1, 4, 2])
        XCTAssertEqual(pets.sum(of: \.age), 24)
        XCTAssertEqual(pets.max(of: \.age), 12)
        XCTAssertEqual(pets.average(of: \.age) as Int?, 4)
        XCTAssertEqual(ids(pets.distinct(by: [\Pet.age] as [PartialKeyPath<Pet>])), [1, 2, 4, 5])
        let ruby = realm.object(ofType: Pet.self, forPrimaryKey: 4)!
        XCTAssertEqual(ruby.toys.where { $0.price < 2 }.map(\.brand), ["b0", "b1"])
    }

    func testKeyPathSortsTakeOptionalAndBoolProperties() throws {
        let realm = try openRealm()
        try realm.write {
            for (int, flag) in [(5, true), (nil, false), (2, true)] as [(Int?, Bool)] {
                let object = AllTypes()
                object.optionalInt = int
                object.bool = flag
                realm.add(object)
            }
        }
        let all = realm.objects(AllTypes.self)
        XCTAssertEqual(all.sorted(by: \.optionalInt).map(\.optionalInt), [nil, 2, 5])
        XCTAssertEqual(all.sorted(by: \.optionalInt, ascending: false).map(\.optionalInt), [5, 2, nil])
        XCTAssertEqual(all.sorted(by: \.bool).map(\.optionalInt), [nil, 5, 2])
    }
}
