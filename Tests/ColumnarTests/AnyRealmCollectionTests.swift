// AnyRealmCollectionTests: RealmSwift's type-erased collection wraps a Results, List, MutableSet or LinkingObjects and
// answers every member as the wrapped collection does: each answer below is compared with the wrapped collection's
// own, for managed and unmanaged collections.

import Columnar
import Foundation
import XCTest

final class AnyRealmCollectionTests: RealmTestCase {
    private func assertSameAnswers<C: RealmCollection>(_ erased: AnyRealmCollection<Pet>, _ pets: C,
                                                       file: StaticString = #filePath, line: UInt = #line)
        where C.Element == Pet {
        XCTAssertEqual(erased.count, pets.count, file: file, line: line)
        XCTAssertEqual(erased.map(\.id), pets.map(\.id), file: file, line: line)
        XCTAssertEqual(erased.first?.id, pets.first?.id, file: file, line: line)
        XCTAssertEqual(erased.last?.id, pets.last?.id, file: file, line: line)
        XCTAssertEqual(erased.min(ofProperty: "age") as Int?, pets.min(ofProperty: "age") as Int?, file: file, line: line)
        XCTAssertEqual(erased.sum(ofProperty: "age") as Int, pets.sum(ofProperty: "age") as Int, file: file, line: line)
        XCTAssertEqual(erased.average(ofProperty: "age") as Double?, pets.average(ofProperty: "age") as Double?,
                       file: file, line: line)
        XCTAssertEqual(erased.value(forKey: "name") as? [String], pets.value(forKey: "name") as? [String],
                       file: file, line: line)
        XCTAssertEqual(erased.index(matching: "age > %d", 5), pets.index(matching: "age > %d", 5), file: file, line: line)
        if let second = pets.dropFirst().first {
            XCTAssertEqual(erased.index(of: second), pets.index(of: second), file: file, line: line)
        }
        XCTAssertEqual(erased.isInvalidated, pets.isInvalidated, file: file, line: line)
        XCTAssertTrue(erased.realm == pets.realm, file: file, line: line)
    }

    private func populated() throws -> (Realm, Kennel) {
        let realm = try openRealm()
        let kennel = try realm.write { () -> Kennel in
            for (id, name, age) in [(1, "Rex", 3), (2, "Fido", 7), (3, "Bella", 12), (4, "Max", 1)] {
                realm.create(Pet.self, value: ["id": id, "name": name, "age": age])
            }
            let kennel = realm.create(Kennel.self, value: ["name": "k"])
            for name in ["b", "a"] { kennel.dogs.append(realm.create(KennelDog.self, value: ["name": name])) }
            return kennel
        }
        return (realm, kennel)
    }

    func testItAnswersAsTheWrappedCollection() throws {
        let (realm, kennel) = try populated()
        let results = realm.objects(Pet.self).sorted(byKeyPath: "age")
        assertSameAnswers(AnyRealmCollection(results), results)

        let list = List<Pet>()
        list.append(objectsIn: [Pet(value: ["id": 9, "name": "Unmanaged", "age": 6]), Pet(value: ["id": 8, "age": 2])])
        assertSameAnswers(AnyRealmCollection(list), list)

        // Queries through the wrapper.
        let erased = AnyRealmCollection(results)
        XCTAssertEqual(erased.filter("name BEGINSWITH %@", "R").map(\.id), [1])
        XCTAssertEqual(erased.filter(NSPredicate(format: "age < %d", 5)).map(\.id).sorted(), [1, 4])
        XCTAssertEqual(erased.where { $0.age > 5 }.count, 2)
        XCTAssertEqual(erased.sorted(byKeyPath: "name").map(\.name), ["Bella", "Fido", "Max", "Rex"])
        XCTAssertEqual(erased.distinct(by: ["age"]).count, 4)
        XCTAssertEqual(erased.sectioned(by: \.name).allKeys, ["Bella", "Fido", "Max", "Rex"])
        XCTAssertEqual(erased[2].id, results[2].id)
        XCTAssertEqual(erased.value(forKeyPath: "@sum.age") as? Int, 23)

        // Lists, sets and linking objects of a managed object; equality follows the wrapped collection.
        let dogs = AnyRealmCollection(kennel.dogs)
        XCTAssertEqual(dogs.map(\.name), ["b", "a"])
        XCTAssertEqual(dogs.sorted(byKeyPath: "name").map(\.name), ["a", "b"])
        XCTAssertTrue(dogs == AnyRealmCollection(kennel.dogs))
        XCTAssertFalse(dogs == AnyRealmCollection(kennel.dogSet))
        let fans = AnyRealmCollection(kennel.dogs[0].kennels)
        XCTAssertEqual(fans.map(\.name), ["k"])
        try realm.write { erased.setValue(5, forKey: "age") }
        XCTAssertEqual(Set(results.map(\.age)), [5])

        // Code written against the erased type accepts any of them.
        func names(_ collection: AnyRealmCollection<KennelDog>) -> [String] { collection.map(\.name) }
        XCTAssertEqual(names(AnyRealmCollection(realm.objects(KennelDog.self).sorted(byKeyPath: "name"))), ["a", "b"])
    }
}
