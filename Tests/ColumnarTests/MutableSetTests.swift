// MutableSetTests: MutableSet unmanaged and managed — uniqueness, the engine's value order, set algebra, objects,
// Codable, and persistence across reopening.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class MutableSetTests: RealmTestCase {
    func testUnmanagedSetKeepsUniqueElementsInInsertionOrder() {
        let set = MutableSet<Int>()
        XCTAssertTrue(set.isEmpty)
        XCTAssertNil(set.first)
        XCTAssertNil(set.last)
        XCTAssertNil(set.realm)
        XCTAssertFalse(set.isInvalidated)
        XCTAssertNil(set.objectClassName)
        set.insert(3)
        set.insert(1)
        set.insert(3)
        set.insert(objectsIn: [2, 1, 5])
        XCTAssertEqual(Array(set), [3, 1, 2, 5])
        XCTAssertEqual(set.count, 4)
        XCTAssertEqual(set.first, 3)
        XCTAssertEqual(set.last, 5)
        XCTAssertEqual(set[2], 2)
        XCTAssertTrue(set.contains(5))
        XCTAssertFalse(set.contains(4))
        set.remove(1)
        set.remove(42)
        XCTAssertEqual(Array(set), [3, 2, 5])
        set.removeAll()
        XCTAssertTrue(set.isEmpty)
    }

    func testManagedSetIsLiveAndOrderedByValue() throws {
        let realm = try openRealm()
        let holder = CollectionHolder()
        holder.intSet.insert(objectsIn: [5, -2, 9])
        try realm.write { realm.add(holder) }
        let set = holder.intSet
        XCTAssertEqual(set.realm, realm)
        XCTAssertFalse(set.isInvalidated)
        XCTAssertEqual(Array(set), [-2, 5, 9])
        try realm.write {
            set.insert(0)
            set.insert(5)
            set.insert(objectsIn: [100, -7, 0])
        }
        XCTAssertEqual(Array(set), [-7, -2, 0, 5, 9, 100])
        XCTAssertEqual(set.count, 6)
        XCTAssertEqual(set.first, -7)
        XCTAssertEqual(set.last, 100)
        XCTAssertEqual(set[3], 5)
        XCTAssertTrue(set.contains(9))
        XCTAssertFalse(set.contains(10))
        XCTAssertEqual(Array(holder.intSet), Array(set), "another read of the property sees the same column")
        try realm.write {
            set.remove(5)
            set.remove(12345)
        }
        XCTAssertEqual(Array(set), [-7, -2, 0, 9, 100])
        try realm.write { set.removeAll() }
        XCTAssertTrue(set.isEmpty)
        XCTAssertNil(set.first)
        XCTAssertNil(set.last)
    }

    func testStringAndOptionalSetsFollowTheEngineOrder() throws {
        let realm = try openRealm()
        let holder = CollectionHolder()
        try realm.write {
            realm.add(holder)
            holder.stringSet.insert(objectsIn: ["pear", "Apple", "apple", "", "äpfel", "pear"])
            holder.optionalIntSet.insert(objectsIn: [3, nil, -1, nil])
            holder.doubleSet.insert(objectsIn: [2.5, -0.5, 1e300])
        }
        let expectedStrings = ["pear", "Apple", "apple", "", "äpfel"]
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        XCTAssertEqual(Array(holder.stringSet), expectedStrings)
        XCTAssertEqual(Array(holder.optionalIntSet), [nil, -1, 3], "null sorts first")
        XCTAssertTrue(holder.optionalIntSet.contains(nil))
        try realm.write { holder.optionalIntSet.remove(nil) }
        XCTAssertFalse(holder.optionalIntSet.contains(nil))
        XCTAssertEqual(Array(holder.doubleSet), [-0.5, 2.5, 1e300])
    }

    func testSetAlgebraManagedAndUnmanaged() throws {
        let realm = try openRealm()
        let holder = CollectionHolder()
        try realm.write { realm.add(holder) }
        let unmanaged = MutableSet<Int>()
        unmanaged.insert(objectsIn: [2, 4, 6])
        let disjoint = MutableSet<Int>()
        disjoint.insert(objectsIn: [7, 8])
        try realm.write {
            holder.intSet.insert(objectsIn: [1, 2, 3, 4])
            holder.otherIntSet.insert(objectsIn: [2, 3])
        }
        let set = holder.intSet, other = holder.otherIntSet
        XCTAssertTrue(set.intersects(unmanaged))
        XCTAssertTrue(unmanaged.intersects(set))
        XCTAssertFalse(set.intersects(disjoint))
        XCTAssertFalse(MutableSet<Int>().intersects(set), "an empty set intersects nothing")
        XCTAssertTrue(other.isSubset(of: set))
        XCTAssertFalse(set.isSubset(of: other))
        XCTAssertTrue(MutableSet<Int>().isSubset(of: other), "the empty set is a subset of every set")
        XCTAssertTrue(set.isSubset(of: set))

        try realm.write { set.formUnion(unmanaged) }
        XCTAssertEqual(Array(set), [1, 2, 3, 4, 6])
        try realm.write { set.formIntersection(other) }
        XCTAssertEqual(Array(set), [2, 3])
        try realm.write { set.formUnion(disjoint) }
        try realm.write { set.subtract(other) }
        XCTAssertEqual(Array(set), [7, 8])
        try realm.write { set.formIntersection(set) }
        XCTAssertEqual(Array(set), [7, 8], "intersecting a set with itself keeps it")
        try realm.write { set.subtract(set) }
        XCTAssertTrue(set.isEmpty, "subtracting a set from itself empties it")

        // Unmanaged with a managed operand.
        unmanaged.formUnion(other)
        XCTAssertEqual(Set(unmanaged), [2, 3, 4, 6])
        unmanaged.subtract(other)
        XCTAssertEqual(Array(unmanaged), [4, 6])
        unmanaged.formIntersection(disjoint)
        XCTAssertTrue(unmanaged.isEmpty)
    }

    func testSetOfObjectsAddsUnmanagedObjectsAndForgetsDeletedOnes() throws {
        let realm = try openRealm()
        let kennel = Kennel()
        let rex = KennelDog(value: ["name": "Rex"])
        kennel.dogSet.insert(rex)
        kennel.dogSet.insert(rex)
        XCTAssertEqual(kennel.dogSet.count, 1)
        XCTAssertEqual(kennel.dogSet.objectClassName, "KennelDog")
        try realm.write { realm.add(kennel) }
        XCTAssertEqual(realm.objects(KennelDog.self).count, 1)
        let fido = KennelDog(value: ["name": "Fido"])
        XCTAssertFalse(kennel.dogSet.contains(fido), "an unmanaged object is not an element of a managed set")
        try realm.write {
            kennel.dogSet.insert(fido)
            kennel.dogSet.insert(fido)
        }
        XCTAssertTrue(fido.realm != nil, "the inserted object was added to the Realm")
        XCTAssertEqual(kennel.dogSet.count, 2)
        XCTAssertTrue(kennel.dogSet.contains(rex))
        XCTAssertTrue(kennel.dogSet.contains(realm.objects(KennelDog.self)[1]), "managed objects compare by row")
        XCTAssertEqual(Set(kennel.dogSet.map(\.name)), ["Rex", "Fido"])
        try realm.write { realm.delete(rex) }
        XCTAssertEqual(kennel.dogSet.map(\.name), ["Fido"])
        try realm.write { kennel.dogSet.remove(KennelDog()) }   // an unmanaged object: nothing to remove
        XCTAssertEqual(kennel.dogSet.count, 1)
    }

    func testAssigningASetReplacesTheColumn() throws {
        let realm = try openRealm()
        let holder = CollectionHolder()
        try realm.write {
            realm.add(holder)
            holder.intSet.insert(objectsIn: [1, 2])
        }
        let replacement = MutableSet<Int>()
        replacement.insert(objectsIn: [9, 8])
        try realm.write { holder.intSet = replacement }
        XCTAssertEqual(Array(holder.intSet), [8, 9])
        try realm.write { holder.intSet = holder.intSet }
        XCTAssertEqual(Array(holder.intSet), [8, 9], "assigning a set to its own property keeps it")
        try realm.write { holder.otherIntSet = holder.intSet }
        XCTAssertEqual(Array(holder.otherIntSet), [8, 9])

        let fromValue = CollectionHolder(value: ["intSet": [3, 3, 1]])
        XCTAssertEqual(Array(fromValue.intSet), [3, 1])
    }

    func testSetInvalidatedWithItsObject() throws {
        let realm = try openRealm()
        let holder = CollectionHolder()
        try realm.write { realm.add(holder) }
        let set = holder.intSet
        XCTAssertFalse(set.isInvalidated)
        try realm.write { realm.delete(holder) }
        XCTAssertTrue(set.isInvalidated)
    }

    func testSetDescription() throws {
        let set = MutableSet<String>()
        set.insert(objectsIn: ["b", "a"])
        XCTAssertEqual(set.description, "MutableSet<String> <2 elements> (\n\t[0] \"b\",\n\t[1] \"a\"\n)")
        let realm = try openRealm()
        let holder = CollectionHolder()
        try realm.write {
            realm.add(holder)
            holder.stringSet.insert(objectsIn: ["b", "a"])
        }
        XCTAssertEqual(holder.stringSet.description,
                       "MutableSet<String> <2 elements> (\n\t[0] \"a\",\n\t[1] \"b\"\n)")
    }

    func testSetCodableAsAnArray() throws {
        let realm = try openRealm()
        let holder = CollectionHolder()
        try realm.write {
            realm.add(holder)
            holder.intSet.insert(objectsIn: [3, 1, 2])
        }
        let json = try JSONEncoder().encode(holder.intSet)
        XCTAssertEqual(String(decoding: json, as: UTF8.self), "[1,2,3]")
        let decoded = try JSONDecoder().decode(MutableSet<Int>.self, from: Data("[5,4,5]".utf8))
        XCTAssertEqual(Array(decoded), [5, 4])
        XCTAssertNil(decoded.realm)
    }

    func testSetsSurviveReopening() throws {
        let realm = try openRealm()
        let holder = CollectionHolder()
        holder.stringSet.insert(objectsIn: ["x", "y"])
        holder.optionalIntSet.insert(objectsIn: [nil, 4])
        try realm.write { realm.add(holder) }
        let url = configuration.fileURL!
        let reread = Locked<Result<[String], Error>>(.success([]))
        runOnThreads(1) { _ in
            reread.withLock { result in
                result = Result {
                    let object = try Realm(fileURL: url).objects(CollectionHolder.self)[0]
                    return [Array(object.stringSet).description, Array(object.optionalIntSet).description]
                }
            }
        }
        XCTAssertEqual(try reread.value.get(), [["x", "y"].description, [nil, 4 as Int?].description])
    }
}
