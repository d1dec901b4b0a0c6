// RealmBasicsTests: the documented basics — models, writes, reads, primary keys, links, lists, deletes.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class RealmBasicsTests: RealmTestCase {
    func testDocumentationQuickStartStoresAndReadsADog() throws {
        // As in RealmSwift's documentation, with only the import changed.
        let myDog = Dog()
        myDog.name = "Rex"
        myDog.age = 1
        XCTAssertEqual(myDog.name, "Rex")
        XCTAssertNil(myDog.realm)

        let realm = try openRealm()
        try realm.write {
            realm.add(myDog)
        }
        XCTAssertEqual(myDog.realm, realm)
        XCTAssertEqual(myDog.name, "Rex")
        let dogs = realm.objects(Dog.self)
        XCTAssertEqual(dogs.count, 1)
        XCTAssertEqual(dogs[0].name, "Rex")
        XCTAssertEqual(dogs.first?.age, 1)

        try realm.write { myDog.age = 2 }
        XCTAssertEqual(dogs[0].age, 2)
    }

    func testValuesOfEveryTypeSurviveReopening() throws {
        let realm = try openRealm()
        let defaults = AllTypes()
        let changed = AllTypes()
        changed.bool = false
        changed.int = -123_456_789_012
        changed.int8 = -8
        changed.int16 = -16_000
        changed.int32 = -2_000_000_000
        changed.int64 = .min
        changed.float = -1.25
        changed.double = .pi
        changed.string = "grüße, 世界"
        changed.data = Data((0..<300).map { UInt8($0 % 256) })
        changed.date = Date(timeIntervalSince1970: -86_400.25)
        changed.decimal = Decimal128(floatLiteral: -12.5)
        changed.objectId = ObjectId.generate()
        changed.uuid = UUID()
        changed.optionalBool = true
        changed.optionalInt = 42
        changed.optionalFloat = 0.5
        changed.optionalDouble = -0.0
        changed.optionalString = ""
        changed.optionalData = Data()
        changed.optionalDate = Date(timeIntervalSince1970: 1_700_000_000)
        changed.optionalDecimal = 1
        changed.optionalObjectId = ObjectId()
        changed.optionalUUID = UUID()
        changed.intList.append(objectsIn: [3, 1, 2])
        changed.optionalStringList.append(objectsIn: ["a", nil, "c"])
        try realm.write {
            realm.add(defaults)
            realm.add(changed)
        }
        let expected = [Self.snapshot(defaults), Self.snapshot(changed)]
        XCTAssertEqual(realm.objects(AllTypes.self).map(Self.snapshot), expected)

        // A second Realm on another thread's terms: a fresh file handle after everything above is released.
        let path = configuration.fileURL!
        let reread = try reopenedSnapshots(path)
        XCTAssertEqual(reread, expected)
    }

    private func reopenedSnapshots(_ url: URL) throws -> [[String]] {
        // Open on another thread, so the Realm is not the one this thread already has open.
        let result = Locked<Result<[[String]], Error>>(.success([]))
        runOnThreads(1) { _ in
            result.withLock { $0 = Result { try Realm(fileURL: url).objects(AllTypes.self).map(Self.snapshot) } }
        }
        return try result.value.get()
    }

    /// Every property rendered as text, for comparisons.
    private static func snapshot(_ object: AllTypes) -> [String] {
        object.objectSchema.properties.map { "\($0.name)=\(String(describing: object[$0.name]))" }
            + ["intList=\(Array(object.intList))", "optionalStringList=\(Array(object.optionalStringList))"]
    }

    func testPrimaryKeyLookupAndUpdatePolicies() throws {
        let realm = try openRealm()
        try realm.write {
            realm.add(Pet(value: ["id": 1, "name": "Rex", "age": 3]))
            realm.add(Pet(value: ["id": 2, "name": "Fido", "age": 5]))
        }
        XCTAssertEqual(realm.object(ofType: Pet.self, forPrimaryKey: 2)?.name, "Fido")
        XCTAssertNil(realm.object(ofType: Pet.self, forPrimaryKey: 3))

        try realm.write { realm.add(Pet(value: ["id": 2, "name": "Fido II", "age": 6]), update: .modified) }
        XCTAssertEqual(realm.objects(Pet.self).count, 2)
        XCTAssertEqual(realm.object(ofType: Pet.self, forPrimaryKey: 2)?.name, "Fido II")
        try realm.write { realm.add(Pet(value: [2, "Fido III", 7, nil, [] as [Toy]]), update: .all) }
        XCTAssertEqual(realm.object(ofType: Pet.self, forPrimaryKey: 2)?.age, 7)
        XCTAssertEqual(realm.objects(Pet.self).count, 2)
    }

    func testLinksAndListsOfObjects() throws {
        let realm = try openRealm()
        let pet = Pet(value: ["id": 7, "name": "Rex", "age": 2])
        pet.owner = Owner(value: ["name": "Alice"])
        pet.toys.append(Toy(value: ["brand": "ball", "price": 2.5]))
        pet.toys.append(Toy(value: ["brand": "bone", "price": 4.0]))
        try realm.write { realm.add(pet) }

        XCTAssertEqual(realm.objects(Owner.self).count, 1, "the linked owner was added with the pet")
        XCTAssertEqual(realm.objects(Toy.self).count, 2)
        XCTAssertEqual(pet.owner?.name, "Alice")
        XCTAssertEqual(pet.toys.map(\.brand), ["ball", "bone"])

        try realm.write {
            pet.toys.insert(Toy(value: ["brand": "rope"]), at: 1)
            pet.toys.move(from: 0, to: 2)
            pet.toys.swapAt(0, 1)
        }
        XCTAssertEqual(pet.toys.map(\.brand), ["bone", "rope", "ball"])

        let owner = pet.owner!
        try realm.write { realm.delete(owner) }
        XCTAssertTrue(owner.isInvalidated)
        XCTAssertNil(pet.owner, "a link to a deleted object reads nil")

        let toy = pet.toys[0]
        try realm.write { realm.delete(toy) }
        XCTAssertEqual(pet.toys.map(\.brand), ["rope", "ball"], "a deleted object leaves the lists that held it")
    }

    func testWriteRollsBackWhenTheBlockThrows() throws {
        struct Failure: Error {}
        let realm = try openRealm()
        XCTAssertThrowsError(try realm.write {
            realm.add(Dog(value: ["name": "Ghost"]))
            throw Failure()
        })
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
        XCTAssertTrue(realm.isEmpty)
    }

    func testInMemoryRealmsWithOneIdentifierShareData() throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "shared-\(UUID())")
        XCTAssertNil(configuration.fileURL)
        let first = try Realm(configuration: configuration)
        try first.write { first.add(Dog(value: ["name": "Mem", "age": 4])) }
        let second = try Realm(configuration: configuration)
        XCTAssertEqual(second.objects(Dog.self).first?.name, "Mem")
    }

    func testObjectInitialisersAndSubscript() throws {
        let fromDictionary = Dog(value: ["name": "A", "age": 3])
        let fromArray = Dog(value: ["B", 4])
        let copy = Dog(value: fromArray)
        XCTAssertEqual([fromDictionary.name, fromArray.name, copy.name], ["A", "B", "B"])
        XCTAssertEqual(copy["age"] as? Int, 4)
        copy["age"] = 9
        XCTAssertEqual(copy.age, 9)

        let realm = try openRealm()
        try realm.write { realm.add(copy) }
        XCTAssertEqual(copy["name"] as? String, "B")
        try realm.write { copy["name"] = "C" }
        XCTAssertEqual(copy.name, "C")
        XCTAssertTrue(copy.isSameObject(as: realm.objects(Dog.self).first))
        XCTAssertFalse(copy.isSameObject(as: fromDictionary))
    }

    /// RealmSwift's `init(value:)` and `create(_:value:)` with an array: the values go to the properties in
    /// declaration order, and an array shorter than the property list leaves the rest at their defaults (only more
    /// values than properties is an error).
    /// RealmSwift: `create(_:value:update:)` with `.modified` or `.all` on an existing primary key changes only the
    /// properties the value names (a partial dictionary or a shorter array); the others keep their stored values.
    /// A new object still gets defaults for what the value leaves out.
    func testCreateWithUpdateChangesOnlyTheNamedProperties() throws {
        let realm = try openRealm()
        try realm.write {
            let pet = realm.create(Pet.self, value: ["id": 1, "name": "Rex", "age": 3])
            pet.owner = realm.create(Owner.self, value: ["name": "Ann"])
            pet.toys.append(realm.create(Toy.self, value: ["brand": "b", "price": 2.0]))
        }
        for policy in [Realm.UpdatePolicy.modified, .all] {
            let updated = try realm.write { realm.create(Pet.self, value: ["id": 1, "age": 4], update: policy) }
            XCTAssertEqual(updated.name, "Rex", "\(policy)")
            XCTAssertEqual(updated.age, 4, "\(policy)")
            XCTAssertEqual(updated.owner?.name, "Ann", "\(policy)")
            XCTAssertEqual(updated.toys.count, 1, "\(policy)")
        }
        try realm.write { realm.create(Pet.self, value: [1, "Max"], update: .modified) }
        let pet = realm.object(ofType: Pet.self, forPrimaryKey: 1)!
        XCTAssertEqual(pet.name, "Max")
        XCTAssertEqual(pet.age, 4)
        XCTAssertEqual(pet.owner?.name, "Ann")
        // An object as the value updates every property; a new key gets defaults.
        try realm.write { realm.create(Pet.self, value: Pet(value: ["id": 1, "name": "Whole"]), update: .all) }
        XCTAssertEqual(pet.age, 0)
        XCTAssertNil(pet.owner)
        let fresh = try realm.write { realm.create(Pet.self, value: ["id": 2, "age": 9], update: .modified) }
        XCTAssertEqual(fresh.name, "")
        XCTAssertEqual(realm.objects(Pet.self).count, 2)
    }

    /// RealmSwift's defaults are each type's `init()`: a `UUID` property gets a fresh random UUID and a `Date` the
    /// current moment, kept by the object (read before and after it is added alike).
    func testUUIDAndDatePropertiesDefaultToAFreshUUIDAndTheCurrentDate() throws {
        final class Stamped: Object {
            @Persisted var id: UUID
            @Persisted var created: Date
        }
        let before = Date()
        let first = Stamped(), second = Stamped()
        XCTAssertNotEqual(first.id, second.id)
        XCTAssertEqual(first.id, first.id)
        XCTAssertGreaterThanOrEqual(first.created, before.addingTimeInterval(-1))
        XCTAssertLessThanOrEqual(first.created, Date().addingTimeInterval(1))
        let id = first.id, created = first.created
        let realm = try openRealm()
        try realm.write { realm.add(first) }
        XCTAssertEqual(first.id, id)
        XCTAssertEqual(first.created.timeIntervalSince1970, created.timeIntervalSince1970, accuracy: 1e-6)
    }

    func testAnArrayShorterThanThePropertiesLeavesTheRestAtTheirDefaults() throws {
        let toy = Toy(value: ["Lego"])
        XCTAssertEqual(toy.brand, "Lego")
        XCTAssertEqual(toy.price, 0.0)
        let allTypes = AllTypes(value: [false, 42])
        XCTAssertFalse(allTypes.bool)
        XCTAssertEqual(allTypes.int, 42)
        XCTAssertEqual(allTypes.int8, 2, "a property past the array keeps its declared default")
        XCTAssertEqual(Toy(value: [] as [Any]).brand, "")

        let realm = try openRealm()
        try realm.write {
            realm.add(Pet(value: [1]))
            realm.create(Pet.self, value: [2, "Rex"])
            realm.create(Pet.self, value: [3, "Fido", 4, Owner(value: ["Ann"])])
        }
        let pets = realm.objects(Pet.self).sorted(byKeyPath: "id")
        XCTAssertEqual(pets.map(\.id), [1, 2, 3])
        XCTAssertEqual(pets.map(\.name), ["", "Rex", "Fido"])
        XCTAssertEqual(pets.map(\.age), [0, 0, 4])
        XCTAssertEqual(pets.map { $0.owner?.name }, [nil, nil, "Ann"])
        XCTAssertTrue(pets.allSatisfy { $0.toys.isEmpty })
    }

    /// RealmSwift gives an `ObjectId` property a freshly generated id by default, so objects whose primary key is
    /// an `ObjectId` need no explicit key; each object keeps the id it was given, before and after it is added.
    func testAnObjectIdPropertyDefaultsToAFreshIdThatTheObjectKeeps() throws {
        let first = QBPerson()
        let second = QBPerson()
        XCTAssertNotEqual(first.id, second.id)
        XCTAssertNotEqual(first.id, ObjectId(), "not the all-zero id")
        XCTAssertEqual(first.id, first.id, "read twice, the same id")
        let firstId = first.id
        let third = QBPerson(value: ["name": "never read before it was added"])
        let realm = try openRealm()
        try realm.write {
            realm.add([first, second, third])
            realm.create(QBPerson.self, value: ["name": "created"])
        }
        XCTAssertEqual(first.id, firstId, "adding keeps the id that was read before")
        let ids = Set(realm.objects(QBPerson.self).map(\.id))
        XCTAssertEqual(ids.count, 4)
        XCTAssertNotNil(realm.object(ofType: QBPerson.self, forPrimaryKey: third.id))
    }

    /// RealmSwift's value dictionaries and arrays spell nil as `NSNull`.
    func testNSNullInValueDictionariesAndArraysMeansNil() throws {
        let fromDictionary = Person(value: ["name": "Ann", "picture": NSNull()])
        XCTAssertNil(fromDictionary.picture)
        let fromArray = Person(value: ["Bob", NSNull()])
        XCTAssertNil(fromArray.picture)
        let pet = Pet(value: ["id": 1, "owner": NSNull()])
        XCTAssertNil(pet.owner)
        let realm = try openRealm()
        try realm.write {
            realm.add(fromDictionary)
            fromDictionary.picture = Data([1, 2])
        }
        try realm.write { fromDictionary["picture"] = NSNull() }
        XCTAssertNil(fromDictionary.picture)
    }

    func testDeletingObjectsInvalidatesThemAndUpdatesResults() throws {
        let realm = try openRealm()
        let dogs = (0..<10).map { Dog(value: ["name": "d\($0)", "age": $0]) }
        try realm.write { realm.add(dogs) }
        let results = realm.objects(Dog.self)
        XCTAssertEqual(results.count, 10)
        try realm.write { realm.delete(results.filterAges { $0 % 2 == 0 }) }
        XCTAssertEqual(results.count, 5, "results are live")
        XCTAssertEqual(results.map(\.age), [1, 3, 5, 7, 9])
        XCTAssertTrue(dogs[0].isInvalidated)
        XCTAssertFalse(dogs[1].isInvalidated)
        XCTAssertEqual(results.value(forKey: "name") as? [String?], ["d1", "d3", "d5", "d7", "d9"])
        try realm.write { realm.deleteAll() }
        XCTAssertTrue(results.isEmpty)
        XCTAssertTrue(realm.isEmpty)
    }
}

private extension Results where Element == Dog {
    func filterAges(_ keep: (Int) -> Bool) -> [Dog] { filter { keep($0.age) } }
}
