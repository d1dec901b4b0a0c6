// NSPredicateTests: RealmSwift's NSPredicate forms of queries work on Linux, where swift-corelibs-foundation has no
// `NSPredicate(format:)`: Columnar supplies it, and every query method RealmSwift offers with an NSPredicate takes
// it (filter, index(matching:), RLMArray's objects(with:) and indexOfObject(with:)), including NSCompoundPredicate's
// AND, OR and NOT and NSPredicate(value:). The differential query test runs random NSPredicate-built queries too.

@testable import Columnar
import Foundation
import XCTest

final class NSPredicateTests: RealmTestCase {
    private func seedPets(_ realm: Realm) throws {
        try realm.write {
            let ann = realm.create(Owner.self, value: ["name": "Ann"])
            for (id, name, age) in [(1, "Rex", 3), (2, "Fido", 7), (3, "Rover", 12), (4, "Bella", 1)] {
                let pet = realm.create(Pet.self, value: ["id": id, "name": name, "age": age])
                if id % 2 == 1 { pet.owner = ann }
            }
        }
    }

    private func ids(_ results: Results<Pet>) -> [Int] { results.map(\.id).sorted() }

    /// RealmSwift: `realm.objects(T.self).filter(NSPredicate(format:…))` selects what the same format string does.
    func testFormatPredicatesSelectWhatTheirFormatStringSelects() throws {
        let realm = try openRealm()
        try seedPets(realm)
        let pets = realm.objects(Pet.self)
        XCTAssertEqual(ids(pets.filter(NSPredicate(format: "age > %@", 2))), [1, 2, 3])
        XCTAssertEqual(ids(pets.filter(NSPredicate(format: "age > %d AND name BEGINSWITH %s", 2, "R"))), [1, 3])
        XCTAssertEqual(ids(pets.filter(NSPredicate(format: "%K == %@", "owner.name", "Ann"))), [1, 3])
        XCTAssertEqual(ids(pets.filter(NSPredicate(format: "age < 5", argumentArray: nil))), [1, 4])
        XCTAssertEqual(ids(pets.filter(NSPredicate(format: "age BETWEEN %@", argumentArray: [[3, 7]]))), [1, 2])
        // Arguments beyond those the placeholders take are ignored, as NSPredicate ignores them.
        XCTAssertEqual(ids(pets.filter(NSPredicate(format: "age == %d", 12, "unused"))), [3])
        XCTAssertEqual(ids(pets.filter(NSPredicate(value: true))), [1, 2, 3, 4])
        XCTAssertEqual(ids(pets.filter(NSPredicate(value: false))), [])
        // A filter on a filter, and a string filter on an NSPredicate filter.
        XCTAssertEqual(ids(pets.filter(NSPredicate(format: "age > 2")).filter("name CONTAINS 'o'")), [2, 3])
    }

    /// RealmSwift accepts NSCompoundPredicate: AND and OR of any number of subpredicates, NOT of one, nested, each
    /// subpredicate keeping its own arguments; an empty AND is true and an empty OR false.
    func testCompoundPredicatesCombineTheirSubpredicatesWithTheirOwnArguments() throws {
        let realm = try openRealm()
        try seedPets(realm)
        let pets = realm.objects(Pet.self)
        let older = NSPredicate(format: "age > %d", 2, "ignored extra argument")
        let rNames = NSPredicate(format: "%K BEGINSWITH %@", "name", "R")
        let owned = NSPredicate(format: "owner != nil")
        XCTAssertEqual(ids(pets.filter(NSCompoundPredicate(andPredicateWithSubpredicates: [older, rNames]))), [1, 3])
        XCTAssertEqual(ids(pets.filter(NSCompoundPredicate(orPredicateWithSubpredicates: [rNames, NSPredicate(format: "age == %lld", 1)]))),
                       [1, 3, 4])
        XCTAssertEqual(ids(pets.filter(NSCompoundPredicate(notPredicateWithSubpredicate: older))), [4])
        let nested = NSCompoundPredicate(andPredicateWithSubpredicates: [
            NSCompoundPredicate(orPredicateWithSubpredicates: [owned, NSPredicate(format: "age == %d", 7)]),
            NSCompoundPredicate(notPredicateWithSubpredicate: NSPredicate(format: "name == %@", "Rex")),
            older,
        ])
        XCTAssertEqual(ids(pets.filter(nested)), [2, 3])
        XCTAssertEqual(ids(pets.filter(NSCompoundPredicate(andPredicateWithSubpredicates: []))), [1, 2, 3, 4])
        XCTAssertEqual(ids(pets.filter(NSCompoundPredicate(orPredicateWithSubpredicates: []))), [])
        XCTAssertEqual(ids(pets.filter(NSCompoundPredicate(andPredicateWithSubpredicates: [NSPredicate(value: true), owned]))),
                       [1, 3])
    }

    /// RealmSwift's `index(matching: NSPredicate)` and RLMArray's `objects(with:)` / `indexOfObject(with:)` (NSNotFound
    /// when nothing matches), on Results, List, MutableSet and LinkingObjects, and `filter` on Map.
    func testEveryCollectionTakesNSPredicates() throws {
        let realm = try openRealm()
        try realm.write {
            let kennel = realm.create(Kennel.self, value: ["name": "K"])
            for name in ["a", "bb", "ccc"] {
                let dog = realm.create(KennelDog.self, value: ["name": name])
                kennel.dogs.append(dog)
                kennel.dogSet.insert(dog)
                kennel.dogsByName[name] = dog
            }
            let holder = realm.create(CollectionHolder.self, value: ["name": "h"])
            holder.intList.append(objectsIn: [5, 1, 9])
            holder.intMap["x"] = 4
            holder.intMap["y"] = 8
        }
        let kennel = realm.objects(Kennel.self).first!
        let notA = NSPredicate(format: "name != %s", "a")
        XCTAssertEqual(kennel.dogs.filter(notA).map(\.name), ["bb", "ccc"])
        XCTAssertEqual(kennel.dogs.index(matching: notA), 1)
        XCTAssertEqual(kennel.dogs.objects(with: notA).count, 2)
        XCTAssertEqual(kennel.dogs.indexOfObject(with: notA), 1)
        XCTAssertEqual(kennel.dogs.indexOfObject(with: NSPredicate(format: "name == 'zzz'")), UInt(NSNotFound))
        XCTAssertEqual(Set(kennel.dogSet.filter(notA).map(\.name)), ["bb", "ccc"])
        XCTAssertNotNil(kennel.dogSet.index(matching: notA))
        XCTAssertEqual(Set(kennel.dogsByName.filter(notA).compactMap { $0?.name }), ["bb", "ccc"])
        let dog = realm.objects(KennelDog.self).filter(NSPredicate(format: "name == %@", "bb")).first!
        XCTAssertEqual(dog.kennels.filter(NSPredicate(format: "name == %c", "K")).count, 1)
        XCTAssertEqual(dog.kennels.index(matching: NSPredicate(value: false)), nil)
        XCTAssertEqual(realm.objects(KennelDog.self).index(matching: notA), 1)
        XCTAssertEqual(realm.objects(KennelDog.self).indexOfObject(with: notA), 1)
        XCTAssertEqual(realm.objects(KennelDog.self).objects(with: notA).count, 2)

        let holder = realm.objects(CollectionHolder.self).first!
        XCTAssertEqual(Array(holder.intList.filter(NSPredicate(format: "self > %d", 4))), [5, 9])
        XCTAssertEqual(Array(holder.intMap.filter(NSPredicate(format: "self > %d", 5))), [8])

        // Code generic over RealmCollection reaches the same methods.
        func countMatching<C: RealmCollection>(_ collection: C, _ predicate: NSPredicate) -> Int {
            collection.filter(predicate).count
        }
        XCTAssertEqual(countMatching(kennel.dogs, notA), 2)
        XCTAssertEqual(countMatching(realm.objects(KennelDog.self), notA), 2)
    }

    /// RealmSwift answers index(matching:) on an unmanaged list (its other queries need a managed one): with a
    /// format string, an NSPredicate or a typed query, through links, and nil when nothing matches; the list
    /// and its objects are left as they were.
    func testIndexMatchingWorksOnAnUnmanagedList() throws {
        let pets = List<Pet>()
        let ann = Owner(value: ["name": "Ann"])
        for (id, name, age) in [(1, "Rex", 3), (1, "Fido", 7), (3, "Rover", 12)] {   // a repeated primary key too
            let pet = Pet(value: ["id": id, "name": name, "age": age])
            if age > 5 { pet.owner = ann }
            pet.toys.append(Toy(value: ["brand": name, "price": Double(age)]))
            pets.append(pet)
        }
        XCTAssertEqual(pets.index(matching: "age > %d", 5), 1)
        XCTAssertEqual(pets.index(matching: NSPredicate(format: "owner.name == %@ AND name BEGINSWITH 'R'", "Ann")), 2)
        XCTAssertEqual(pets.index(matching: { $0.toys.price > 10 }), 2)
        XCTAssertEqual(pets.index(matching: "ANY toys.brand == 'Fido'"), 1)
        XCTAssertNil(pets.index(matching: "age > 100"))
        XCTAssertEqual(pets.count, 3)
        XCTAssertNil(pets[0].realm)
        XCTAssertNil(ann.realm)
        XCTAssertEqual(pets.indexOfObject(with: NSPredicate(format: "name == 'zzz'")), UInt(NSNotFound))
        let set = MutableSet<Toy>()
        set.insert(Toy(value: ["brand": "x", "price": 2.0]))
        XCTAssertEqual(set.index(matching: "price == 2"), 0)
    }

    /// Mistakes in an NSPredicate are reported as in a format string, with the offset in the text the query
    /// joined from the compound's parts; a block predicate, which cannot run in the database, is refused.
    func testMalformedAndBlockPredicatesAreRefusedWithAMessage() throws {
        let realm = try openRealm()
        try seedPets(realm)
        let pets = realm.objects(Pet.self)
        func message(_ predicate: NSPredicate) -> String {
            do {
                _ = try pets.filter(checking: predicate)
                return "no error"
            } catch let error as ColumnarError {
                return error.message
            } catch {
                return "\(error)"
            }
        }
        XCTAssertTrue(message(NSPredicate(format: "age > %d", "x")).contains("for %d at argument index 0"))
        let joined = message(NSCompoundPredicate(andPredicateWithSubpredicates: [
            NSPredicate(format: "age > 1"), NSPredicate(format: "nosuch == %@", 1),
        ]))
        XCTAssertTrue(joined.contains("nosuch"), joined)
        XCTAssertTrue(joined.contains("(age > 1) AND (nosuch == %@)"), joined)
        let missing = message(NSCompoundPredicate(orPredicateWithSubpredicates: [
            NSPredicate(format: "age == %@ OR age == %@", 1), NSPredicate(format: "age == %@", 2),
        ]))
        XCTAssertTrue(missing.contains("placeholder '%@' at argument index 1, but only 1 argument was given"), missing)
        XCTAssertTrue(message(NSPredicate { _, _ in true }).contains("init(block:) cannot be used in a query"))
        XCTAssertTrue(message(NSCompoundPredicate(type: .not, subpredicates: [NSPredicate(value: true), NSPredicate(value: true)]))
            .contains("exactly one subpredicate"))
    }
}

/// Each `index(matching:)` on an unmanaged list opens short-lived in-memory Realms; the registry of open Realms
/// sweeps released ones, so a program doing it often does not grow it without bound.
final class UnmanagedIndexMatchingRegistryTests: RealmTestCase {
    func testRepeatedUnmanagedIndexMatchingLeavesTheRealmRegistryBounded() {
        let toys = List<Toy>()
        toys.append(objectsIn: [Toy(value: ["brand": "a", "price": 1.0]), Toy(value: ["brand": "b", "price": 2.0])])
        for _ in 0 ..< 500 { XCTAssertEqual(toys.index(matching: "price > 1.5"), 1) }
        let counts = RealmRegistry.entryCounts
        XCTAssertLessThan(counts.files, 100, "\(counts)")
        XCTAssertLessThan(counts.cores, 100, "\(counts)")
    }
}
