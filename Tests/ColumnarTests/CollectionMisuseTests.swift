// CollectionMisuseTests: misuse of MutableSet, Map and LinkingObjects stops the program with a message saying what
// was wrong, as RealmSwift raises an exception (each case runs in a child process; see DeathTest.swift).

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

/// A map of objects with non-optional values, which RealmSwift refuses.
final class NonOptionalObjectMapHolder: Object {
    @Persisted var dogs: Map<String, KennelDog>
}

final class CollectionMisuseTests: RealmTestCase, DeathCaseTable {
    static let deathCaseRunner = "ColumnarTests.CollectionMisuseTests/testRunDeathCase"

    /// The misuses, by name; each must stop the process.
    var deathCases: [String: () throws -> Void] {
        [
            "map key with a dot": { Map<String, Int>()["a.b"] = 1 },
            "managed map key starting with a dollar": {
                let realm = try self.openRealm()
                let holder = CollectionHolder()
                try realm.write {
                    realm.add(holder)
                    holder.intMap.updateValue(1, forKey: "$set")
                }
            },
            "merged map key with a dot": {
                Map<String, Int>().merge([(key: "x.y", value: 1)]) { $1 }
            },
            "map key too long": { Map<String, Int>()[String(repeating: "k", count: 253)] = 1 },
            "map changed outside a write": {
                let realm = try self.openRealm()
                let holder = CollectionHolder()
                try realm.write { realm.add(holder) }
                holder.intMap.removeObject(for: "a")
            },
            "set changed outside a write": {
                let realm = try self.openRealm()
                let holder = CollectionHolder()
                try realm.write { realm.add(holder) }
                holder.intSet.insert(1)
            },
            "set index out of bounds": { _ = MutableSet<Int>()[5] },
            "managed set index out of bounds": {
                let realm = try self.openRealm()
                let holder = CollectionHolder()
                try realm.write { realm.add(holder) }
                _ = holder.intSet[0]
            },
            "linking objects assigned": {
                let realm = try self.openRealm()
                let dog = KennelDog()
                try realm.write {
                    realm.add(dog)
                    dog.kennels = LinkingObjects(fromType: Kennel.self, property: "dogs")
                }
            },
            "linking objects index out of bounds": {
                let realm = try self.openRealm()
                let dog = KennelDog()
                try realm.write { realm.add(dog) }
                _ = dog.kennels[0]
            },
            "linking objects with a missing origin property": {
                let realm = try self.openRealm()
                let dog = StrayDog()
                try realm.write { realm.add(dog) }
                _ = dog.owners.count
            },
            "map of non-optional objects": {
                let realm = try self.openRealm()
                try realm.write { realm.add(NonOptionalObjectMapHolder()) }
            },
        ]
    }

    /// Performs the case named by COLUMNAR_DEATH_CASE in a child process; does nothing in an ordinary run.
    func testRunDeathCase() throws {
        try runDeathCase()
    }

    func testRefusedMapKeysStop() {
        assertStops("map key with a dot", "Dictionary::insert: key must not contain '.'")
        assertStops("managed map key starting with a dollar", "Dictionary::insert: key must not start with '$'")
        assertStops("merged map key with a dot", "Dictionary::insert: key must not contain '.'")
        assertStops("map key too long", "Dictionary::insert: key must not be longer than 252 bytes")
    }

    func testChangesOutsideAWriteStop() {
        let message = "Attempting to modify object outside of a write transaction"
        assertStops("map changed outside a write", message)
        assertStops("set changed outside a write", message)
    }

    func testIndexesOutOfBoundsStop() {
        assertStops("set index out of bounds", "Index 5 is out of bounds (must be less than 0).")
        assertStops("managed set index out of bounds", "Index 0 is out of bounds (must be less than 0).")
        assertStops("linking objects index out of bounds", "Index 0 is out of bounds (must be less than 0).")
    }

    func testLinkingObjectsMisuseStops() {
        assertStops("linking objects assigned", "Cannot modify a LinkingObjects property: linking objects are read-only")
        assertStops("linking objects with a missing origin property",
                    "Property 'StrayOwner.noSuchProperty' declared as origin of linking objects property of "
                        + "'StrayDog' does not exist")
    }

    func testMapOfNonOptionalObjectsStops() {
        assertStops("map of non-optional objects", "a map of objects must have optional values")
    }
}
