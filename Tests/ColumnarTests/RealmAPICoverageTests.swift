// RealmAPICoverageTests: documented behaviour of Realm, Results and List methods not covered elsewhere —
// explicit transactions, shared per-thread state, create, sequence deletes, invalidate, Results key-value coding
// and encoding, List boundaries — and the duplicate-primary-key stop.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class RealmAPICoverageTests: RealmTestCase {
    private static let runner = "ColumnarTests.RealmAPICoverageTests/testRunDeathCase"

    func testExplicitTransactionsCommitAndCancel() throws {
        let realm = try openRealm()
        realm.beginWrite()
        XCTAssertTrue(realm.isInWriteTransaction)
        realm.add(Dog(value: ["name": "Kept", "age": 1]))
        try realm.commitWrite()
        realm.beginWrite()
        realm.add(Dog(value: ["name": "Dropped", "age": 2]))
        realm.cancelWrite()
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(realm.objects(Dog.self).map(\.name), ["Kept"])
        let result = try realm.write { 42 }
        XCTAssertEqual(result, 42, "write returns the block's result")
    }

    func testRealmsOfOneFileOnOneThreadShareState() throws {
        let first = try openRealm()
        let second = try openRealm()
        XCTAssertEqual(first, second)
        first.beginWrite()
        XCTAssertTrue(second.isInWriteTransaction, "the same thread's Realms for a file share one transaction")
        second.add(Dog(value: ["name": "Shared"]))
        try first.commitWrite()
        XCTAssertEqual(second.objects(Dog.self).count, 1)
    }

    func testCreateReturnsAManagedObjectAndHonoursUpdatePolicies() throws {
        let realm = try openRealm()
        let pet = try realm.write { realm.create(Pet.self, value: ["id": 5, "name": "Rex", "age": 1]) }
        XCTAssertNotNil(pet.realm)
        XCTAssertEqual(realm.object(ofType: Pet.self, forPrimaryKey: 5)?.name, "Rex")
        let updated = try realm.write { realm.create(Pet.self, value: ["id": 5, "name": "Max", "age": 2], update: .all) }
        XCTAssertTrue(updated.isSameObject(as: pet))
        XCTAssertEqual(pet.name, "Max")
        XCTAssertEqual(realm.objects(Pet.self).count, 1)
    }

    func testDeleteSequenceAndInvalidate() throws {
        let realm = try openRealm()
        try realm.write { realm.add((0..<6).map { Dog(value: ["name": "d\($0)", "age": $0]) }) }
        let results = realm.objects(Dog.self)
        try realm.write { realm.delete(results.filter { $0.age < 3 }) }
        XCTAssertEqual(results.map(\.age), [3, 4, 5])
        let dog = results[0]
        realm.invalidate()
        XCTAssertTrue(results.isInvalidated)
        XCTAssertEqual(results.count, 0, "invalidated results are empty")
        XCTAssertTrue(dog.isInvalidated)
        XCTAssertEqual(realm.objects(Dog.self).count, 3, "fresh results read the latest version")
    }

    func testResultsIndexingKeyValueCodingAndEncoding() throws {
        let realm = try openRealm()
        let pets = (1...3).map { Pet(value: ["id": $0, "name": "p\($0)", "age": $0 * 10]) }
        pets[1].owner = Owner(value: ["name": "Ann"])
        try realm.write { realm.add(pets) }
        let results = realm.objects(Pet.self)
        XCTAssertEqual(results.startIndex, 0)
        XCTAssertEqual(results.endIndex, 3)
        XCTAssertEqual(results.index(after: 0), 1)
        XCTAssertEqual(results.index(before: 2), 1)
        XCTAssertEqual(results.index(of: pets[2]), 2)
        XCTAssertNil(results.index(of: Pet(value: ["id": 9])), "an unmanaged object is not in the results")
        XCTAssertEqual(results.last?.name, "p3")
        XCTAssertEqual(results.value(forKeyPath: "owner.name") as? [String?], [nil, "Ann", nil])
        try realm.write { results.setValue(7, forKey: "age") }
        XCTAssertEqual(results.map(\.age), [7, 7, 7])
        XCTAssertTrue(results.description.contains("Results<Pet> <3 objects>"), results.description)
        XCTAssertEqual(results.realm, realm)
    }

    func testListBoundariesAndLookups() throws {
        let list = List<Int>()
        XCTAssertNil(list.first)
        XCTAssertNil(list.last)
        list.removeLast()   // no-op on an empty list
        list.append(objectsIn: [5, 6, 7])
        XCTAssertEqual(list.objects(at: IndexSet([0, 2])), [5, 7])
        XCTAssertNil(list.objects(at: IndexSet([1, 3])), "any index out of range gives nil")
        XCTAssertEqual(list.index(of: 6), 1)
        XCTAssertNil(list.index(of: 9))
        list.replace(index: 0, object: 4)
        list.removeLast()
        XCTAssertEqual(Array(list), [4, 6])
        XCTAssertNil(list.realm)
        XCTAssertFalse(list.isInvalidated)

        let realm = try openRealm()
        let holder = AllTypes()
        try realm.write {
            realm.add(holder)
            holder.intList.append(objectsIn: [1, 2, 3])
            holder.intList.removeLast()
        }
        XCTAssertEqual(Array(holder.intList), [1, 2])
        XCTAssertEqual(holder.intList.realm, realm)
        XCTAssertEqual(holder.intList.objects(at: IndexSet([1])), [2])
    }

    func testListIndexOutOfRangeStopsNamingIndexAndCount() {
        assertStops("list index", runnerTest: Self.runner, message: "Index 5 is out of bounds (must be less than 2)")
    }

    func testDuplicatePrimaryKeyWithErrorPolicyStops() {
        assertStops("duplicate primary key", runnerTest: Self.runner,
                    message: "Attempting to create an object of type 'Pet' with an existing primary key value '1'")
    }

    func testChangingAnIntPrimaryKeyStops() {
        assertStops("change primary key", runnerTest: Self.runner,
                    message: "Primary key can't be changed after an object is inserted.")
    }

    func testWritingOutsideATransactionStops() {
        assertStops("write outside", runnerTest: Self.runner, message: "outside of a write transaction")
    }

    /// Performs a death case in a child process (does nothing in an ordinary run).
    func testRunDeathCase() throws {
        switch currentDeathCase {
        case "list index":
            let list = List<Int>()
            list.append(objectsIn: [1, 2])
            _ = list[5]
        case "duplicate primary key":
            let realm = try openRealm()
            try realm.write {
                realm.add(Pet(value: ["id": 1]))
                realm.add(Pet(value: ["id": 1]))
            }
        case "change primary key":
            let realm = try openRealm()
            try realm.write {
                let pet = Pet(value: ["id": 1])
                realm.add(pet)
                pet.id = 1   // the same value is allowed
                pet.age = 3
                pet.id = 2
            }
        case "write outside":
            let realm = try openRealm()
            let dog = Dog()
            try realm.write { realm.add(dog) }
            dog.name = "no transaction"
        default:
            return
        }
    }
}
