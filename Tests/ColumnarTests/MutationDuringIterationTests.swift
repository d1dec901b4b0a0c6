// MutationDuringIterationTests: a `for … in` loop over Results, List, MutableSet or LinkingObjects enumerates what
// the collection held when the loop began, as RealmSwift's enumeration of a snapshot does. Deleting the objects
// being iterated visits every one of them (RealmSwift's `for obj in results { realm.delete(obj) }` idiom), removing
// elements does not make the loop skip the ones after them, and appending to a list inside its own loop ends.

import Columnar
import Foundation
import XCTest

final class MutationDuringIterationTests: RealmTestCase {
    private func makeDogs(_ realm: Realm, _ count: Int) throws -> Person {
        try realm.write {
            let person = realm.create(Person.self, value: ["name": "p"])
            for index in 0 ..< count { person.dogs.append(realm.create(Dog.self, value: ["name": "d\(index)", "age": index])) }
            return person
        }
    }

    /// RealmSwift: deleting each object of a Results inside its loop deletes them all.
    func testDeletingEveryObjectOfResultsWhileIteratingVisitsEachOnce() throws {
        let realm = try openRealm()
        _ = try makeDogs(realm, 10)
        var visited: [String] = []
        try realm.write {
            for dog in realm.objects(Dog.self).filter("age >= 0").sorted(byKeyPath: "age") {
                visited.append(dog.name)
                realm.delete(dog)
            }
        }
        XCTAssertEqual(visited, (0 ..< 10).map { "d\($0)" })
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
    }

    /// RealmSwift: a loop over a List enumerates its elements at the start even when the loop deletes them (which
    /// removes them from the list) or removes them from the list.
    func testDeletingOrRemovingListElementsWhileIteratingDoesNotSkipAny() throws {
        let realm = try openRealm()
        let person = try makeDogs(realm, 6)
        var visited: [Int] = []
        try realm.write {
            for dog in person.dogs {
                visited.append(dog.age)
                realm.delete(dog)
            }
        }
        XCTAssertEqual(visited, Array(0 ..< 6))
        XCTAssertEqual(person.dogs.count, 0)
        XCTAssertEqual(realm.objects(Dog.self).count, 0)

        let other = try makeDogs(realm, 5)
        visited = []
        try realm.write {
            for dog in other.dogs {
                visited.append(dog.age)
                other.dogs.remove(at: 0)
            }
        }
        XCTAssertEqual(visited, Array(0 ..< 5))
        XCTAssertEqual(other.dogs.count, 0)
        XCTAssertEqual(realm.objects(Dog.self).count, 5, "removing from a list does not delete the objects")
    }

    /// RealmSwift: appending to a list inside a loop over it ends after the elements it had, which are doubled.
    func testAppendingToAListWhileIteratingItEnds() throws {
        let realm = try openRealm()
        let person = try makeDogs(realm, 3)
        try realm.write {
            for dog in person.dogs { person.dogs.append(dog) }
        }
        XCTAssertEqual(person.dogs.map(\.age), [0, 1, 2, 0, 1, 2])

        let holder = try realm.write { realm.create(CollectionHolder.self, value: ["name": "h"]) }
        try realm.write {
            holder.intList.append(objectsIn: [1, 2, 3])
            for value in holder.intList { holder.intList.append(value * 10) }
            for value in holder.intSet { holder.intSet.insert(value + 1) }   // empty: nothing to enumerate
            holder.intSet.insert(objectsIn: [1, 2])
            for value in holder.intSet { holder.intSet.insert(value + 100) }
        }
        XCTAssertEqual(Array(holder.intList), [1, 2, 3, 10, 20, 30])
        XCTAssertEqual(Set(holder.intSet), [1, 2, 101, 102])

        // An unmanaged list too.
        let unmanaged = List<Int>()
        unmanaged.append(objectsIn: [7, 8])
        for value in unmanaged { unmanaged.append(value) }
        XCTAssertEqual(Array(unmanaged), [7, 8, 7, 8])
    }

    /// An object deleted during the loop before its turn is left out (it could only be read as invalidated);
    /// LinkingObjects and MutableSet enumerate their snapshot the same way.
    func testObjectsDeletedBeforeTheirTurnAreLeftOutOfEveryCollectionsLoop() throws {
        let realm = try openRealm()
        let person = try makeDogs(realm, 4)
        var visited: [Int] = []
        try realm.write {
            for dog in person.dogs {
                visited.append(dog.age)
                if dog.age == 0 { realm.delete(person.dogs[2]) }
            }
        }
        XCTAssertEqual(visited, [0, 1, 3])

        let kennel = try realm.write { () -> Kennel in
            let kennel = realm.create(Kennel.self, value: ["name": "k"])
            for name in ["a", "b", "c"] { kennel.dogSet.insert(realm.create(KennelDog.self, value: ["name": name])) }
            return kennel
        }
        var names: [String] = []
        try realm.write {
            for dog in kennel.dogSet {
                names.append(dog.name)
                kennel.dogSet.remove(dog)
                kennel.dogSet.insert(realm.create(KennelDog.self, value: ["name": dog.name + "2"]))
            }
        }
        XCTAssertEqual(names.sorted(), ["a", "b", "c"])
        XCTAssertEqual(Set(kennel.dogSet.map(\.name)), ["a2", "b2", "c2"])

        let dog = realm.objects(KennelDog.self).filter("name == 'a'").first!
        try realm.write {
            for name in ["k1", "k2", "k3"] { realm.create(Kennel.self, value: ["name": name]).dogs.append(dog) }
        }
        names = []
        try realm.write {
            for kennel in dog.kennels {
                names.append(kennel.name)
                realm.delete(kennel)
                realm.create(Kennel.self, value: ["name": "late"]).dogs.append(dog)
            }
        }
        XCTAssertEqual(names.sorted(), ["k1", "k2", "k3"])
        XCTAssertEqual(dog.kennels.map(\.name), ["late", "late", "late"])
    }

    /// An iterator is a value: a copy advances on its own, whether it was made before or during iteration, for
    /// results of objects, results of values and lists.
    func testCopiesOfAnIteratorAdvanceIndependently() throws {
        let realm = try openRealm()
        let person = try makeDogs(realm, 4)
        func assertIndependent<C: Sequence>(_ collection: C, _ ages: (C.Element) -> Int, _ what: String) {
            var original = collection.makeIterator()
            let untouched = original
            XCTAssertEqual(original.next().map(ages), 0, what)
            var copy = original
            XCTAssertEqual(copy.next().map(ages), 1, what)
            XCTAssertEqual(copy.next().map(ages), 2, what)
            XCTAssertEqual(original.next().map(ages), 1, "\(what): the original is where it was when copied")
            XCTAssertEqual(Array(IteratorSequence(untouched)).map(ages), [0, 1, 2, 3], "\(what): a copy made first")
            XCTAssertEqual(Array(IteratorSequence(copy)).map(ages), [3], what)
            XCTAssertEqual(Array(IteratorSequence(original)).map(ages), [2, 3], what)
        }
        assertIndependent(realm.objects(Dog.self).sorted(byKeyPath: "age"), \.age, "results")
        let holder = try realm.write {
            realm.create(CollectionHolder.self, value: ["name": "h", "intList": [3, 1, 0, 2]])
        }
        assertIndependent(holder.intList.sorted(ascending: true), { $0 }, "results of values")
        assertIndependent(person.dogs, \.age, "list")
    }
}
