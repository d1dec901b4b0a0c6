// RealmSwiftSignatureTests: pins the public signatures Columnar shares with RealmSwift (the local-only 20.x line).
//
// Each check binds a method or property to a constant whose type is written out as RealmSwift declares it, or
// calls it with fully typed arguments and assigns the result to a typed constant, so a changed label, optionality,
// generic constraint, throws-ness or return type stops this file from compiling. Where it costs little, the same
// test also checks the documented behaviour. The checks are grouped by type; model classes are prefixed `Sig` so
// that other test files can change theirs freely.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

enum SigKind: Int, PersistableEnum {
    case small = 1, medium, large
}

final class SigAddress: EmbeddedObject {
    @Persisted var street = ""
    @Persisted var city = ""
}

/// An embedded class that stores a property under another column name.
final class SigRenamedAddress: EmbeddedObject {
    @Persisted var street = ""

    override class func propertiesMapping() -> [String: String] { ["street": "street_name"] }
}

final class SigDog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var weight: Double?
    @Persisted var kind: SigKind
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<SigOwner>
}

final class SigOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var name = ""
    @Persisted var dogs: List<SigDog>
    @Persisted var dogSet: MutableSet<SigDog>
    @Persisted var dogMap: Map<String, SigDog?>
    @Persisted var ints: List<Int>
    @Persisted var intSet: MutableSet<Int>
    @Persisted var otherIntSet: MutableSet<Int>
    @Persisted var intMap: Map<String, Int>
    @Persisted var address: SigAddress?
    @Persisted var addresses: List<SigAddress>
}

/// A model that renames a property in the file and is Codable through its `@Persisted` properties.
final class SigRenamed: Object, Codable {
    @Persisted var displayName = ""
    @Persisted var count = 0

    override class func propertiesMapping() -> [String: String] { ["displayName": "display_name"] }
}

final class RealmSwiftSignatureTests: RealmTestCase {
    /// A Realm holding one owner (id 1) with three dogs in its list, set and map, and values in its value
    /// collections.
    private func seededRealm() throws -> (Realm, SigOwner) {
        let realm = try openRealm()
        let owner = SigOwner()
        owner.id = 1
        owner.name = "Ann"
        try realm.write {
            realm.add(owner)
            for (name, age) in [("Rex", 3), ("Ace", 7), ("Max", 5)] {
                let dog = SigDog(value: ["name": name, "age": age])
                owner.dogs.append(dog)
                owner.dogSet.insert(dog)
                owner.dogMap[name] = dog
            }
            owner.ints.append(objectsIn: [3, 1, 2])
            owner.intSet.insert(objectsIn: [1, 2, 3])
            owner.intMap["a"] = 1
            owner.intMap["b"] = 2
        }
        return (realm, owner)
    }

    // MARK: Realm

    func testRealmSignatures() throws {
        let openWithConfiguration: (Realm.Configuration) throws -> Realm = { try Realm(configuration: $0) }
        let openDefault: () throws -> Realm = { try Realm() }
        let openFile: (URL) throws -> Realm = Realm.init(fileURL:)
        _ = openDefault
        let realm = try openWithConfiguration(configuration)
        let sameFile = try openFile(configuration.fileURL!)
        XCTAssertEqual(realm, sameFile)

        let configuration: Realm.Configuration = realm.configuration
        let schema: Schema = realm.schema
        let isEmpty: Bool = realm.isEmpty
        XCTAssertEqual(configuration.fileURL, self.configuration.fileURL)
        XCTAssertTrue(isEmpty)
        _ = schema

        let beginWrite: () -> Void = realm.beginWrite
        let commitWrite: ([NotificationToken]) throws -> Void = realm.commitWrite(withoutNotifying:)
        let cancelWrite: () -> Void = realm.cancelWrite
        let refresh: () -> Bool = realm.refresh
        let invalidate: () -> Void = realm.invalidate
        let deleteAll: () -> Void = realm.deleteAll
        let addObject: (Object, Realm.UpdatePolicy) -> Void = realm.add(_:update:)
        let addObjects: ([SigOwner], Realm.UpdatePolicy) -> Void = realm.add(_:update:)
        let deleteObject: (ObjectBase) -> Void = realm.delete(_:)
        let deleteObjects: ([SigDog]) -> Void = realm.delete(_:)
        let deleteResults: (Results<SigDog>) -> Void = realm.delete(_:)
        let deleteList: (List<SigDog>) -> Void = realm.delete(_:)
        let deleteMap: (Map<String, SigDog?>) -> Void = realm.delete(_:)
        let objects: (SigDog.Type) -> Results<SigDog> = realm.objects(_:)
        let objectForKey: (SigOwner.Type, Int) -> SigOwner? = realm.object(ofType:forPrimaryKey:)
        let create: (SigOwner.Type, Any, Realm.UpdatePolicy) -> SigOwner = realm.create(_:value:update:)

        // write(withoutNotifying:_:) returns the block's result and throws; the result may be discarded.
        let written: Int = try realm.write(withoutNotifying: [NotificationToken]()) { () throws -> Int in
            let isInWriteTransaction: Bool = realm.isInWriteTransaction
            XCTAssertTrue(isInWriteTransaction)
            return 42
        }
        XCTAssertEqual(written, 42)
        try realm.write { }
        XCTAssertFalse(realm.isInWriteTransaction)

        let policies: [Realm.UpdatePolicy] = [.error, .modified, .all]
        XCTAssertEqual(policies.map(\.rawValue), [1, 3, 2])

        beginWrite()
        addObject(SigOwner(value: ["id": 1, "name": "Ann"]), .error)
        addObjects([SigOwner(value: ["id": 1, "name": "Bea"])], .modified)
        let created = create(SigOwner.self, ["id": 2, "name": "Cy"], .all)
        realm.create(SigOwner.self, value: ["id": 3], update: .error)   // @discardableResult
        created.dogs.append(SigDog(value: ["name": "Rex"]))
        created.dogMap["rex"] = created.dogs[0]
        try commitWrite([])
        XCTAssertEqual(objectForKey(SigOwner.self, 1)?.name, "Bea")
        XCTAssertNil(objectForKey(SigOwner.self, 9))
        XCTAssertEqual(objects(SigDog.self).count, 1)
        // objects(_:) takes RealmSwift's RealmFetchable constraint, so code generic over it compiles.
        func fetchAll<T: RealmFetchable>(_ type: T.Type, from realm: Realm) -> Results<T> { realm.objects(type) }
        XCTAssertEqual(fetchAll(SigOwner.self, from: realm).count, 3)
        let storedName: () -> String = SigOwner.className
        XCTAssertEqual(storedName(), "SigOwner")

        beginWrite()
        deleteMap(created.dogMap)
        XCTAssertEqual(objects(SigDog.self).count, 0, "deleting a map deletes the objects it holds")
        cancelWrite()
        XCTAssertEqual(objects(SigDog.self).count, 1)

        try realm.write {
            deleteList(created.dogs)
            deleteResults(realm.objects(SigDog.self))
            deleteObjects([])
            deleteObject(created)
        }
        XCTAssertNil(realm.object(ofType: SigOwner.self, forPrimaryKey: 2))
        try realm.write { deleteAll() }
        XCTAssertTrue(realm.isEmpty)

        XCTAssertFalse(refresh())
        realm.refresh()   // @discardableResult
        invalidate()
    }

    // MARK: Realm.Configuration

    func testRealmConfigurationSignatures() throws {
        // RealmSwift 20's initialiser (it has no sync parameters), labels in its order.
        let make: (URL?, String?, Data?, Bool, UInt64, MigrationBlock?, Bool, [ObjectBase.Type]?, URL?)
            -> Realm.Configuration = {
                Realm.Configuration(fileURL: $0, inMemoryIdentifier: $1, encryptionKey: $2, readOnly: $3,
                                    schemaVersion: $4, migrationBlock: $5, deleteRealmIfMigrationNeeded: $6,
                                    shouldCompactOnLaunch: nil, objectTypes: $7, seedFilePath: $8)
            }
        let compacting = Realm.Configuration(fileURL: self.configuration.fileURL,
                                             shouldCompactOnLaunch: { total, used in used < total / 2 })
        let shouldCompact: ((Int, Int) -> Bool)? = compacting.shouldCompactOnLaunch
        XCTAssertEqual(shouldCompact?(100, 10), true)
        XCTAssertNoThrow(try Realm(configuration: compacting), "a Realm opens with a compaction request")
        let defaultConfiguration: Realm.Configuration = Realm.Configuration.defaultConfiguration
        XCTAssertEqual(defaultConfiguration.fileURL?.lastPathComponent, "default.realm")

        var configuration = make(self.configuration.fileURL, nil, nil, false, 3, nil, false,
                                 [SigOwner.self, SigDog.self, SigAddress.self], nil)
        let fileURL: URL? = configuration.fileURL
        let inMemoryIdentifier: String? = configuration.inMemoryIdentifier
        let encryptionKey: Data? = configuration.encryptionKey
        let readOnly: Bool = configuration.readOnly
        let schemaVersion: UInt64 = configuration.schemaVersion
        let migrationBlock: MigrationBlock? = configuration.migrationBlock
        let deleteIfNeeded: Bool = configuration.deleteRealmIfMigrationNeeded
        let objectTypes: [ObjectBase.Type]? = configuration.objectTypes
        let seedFilePath: URL? = configuration.seedFilePath
        let maximumVersions: UInt? = configuration.maximumNumberOfActiveVersions
        XCTAssertEqual(fileURL, self.configuration.fileURL)
        XCTAssertNil(inMemoryIdentifier)
        XCTAssertNil(encryptionKey)
        XCTAssertFalse(readOnly)
        XCTAssertEqual(schemaVersion, 3)
        XCTAssertNil(migrationBlock)
        XCTAssertFalse(deleteIfNeeded)
        XCTAssertEqual(objectTypes?.map { $0.className() }, ["SigOwner", "SigDog", "SigAddress"])
        XCTAssertNil(seedFilePath)
        XCTAssertNil(maximumVersions)

        // Equatable and CustomStringConvertible, as RealmSwift's Configuration is.
        let equal: (Realm.Configuration, Realm.Configuration) -> Bool = (==)
        let description: String = configuration.description
        XCTAssertTrue(equal(configuration, configuration))
        XCTAssertTrue(description.hasPrefix("Realm.Configuration {"), description)
        XCTAssertTrue(description.contains("\tschemaVersion = 3;"), description)
        let realm = try Realm(configuration: configuration)
        XCTAssertEqual(realm.configuration, configuration)
        var newer = configuration
        newer.schemaVersion = 4
        XCTAssertNotEqual(newer, configuration)

        // fileURL and inMemoryIdentifier exclude each other: setting one clears the other.
        configuration.inMemoryIdentifier = "sig"
        XCTAssertNil(configuration.fileURL)
        configuration.fileURL = self.configuration.fileURL
        XCTAssertNil(configuration.inMemoryIdentifier)
        configuration.maximumNumberOfActiveVersions = 8
        configuration.readOnly = true
        XCTAssertEqual(configuration.maximumNumberOfActiveVersions, 8)
        XCTAssertNotEqual(configuration, realm.configuration, "read-only takes part in equality")
    }

    // MARK: Object and EmbeddedObject

    func testObjectSignatures() throws {
        let makeDog: () -> SigDog = SigDog.init
        let makeDogFromValue: (Any) -> SigDog = SigDog.init(value:)
        let dog = makeDogFromValue(["name": "Rex", "age": 3])
        XCTAssertEqual(dog.name, "Rex")
        _ = makeDog

        let realm: Realm? = dog.realm
        let objectSchema: ObjectSchema = dog.objectSchema
        let isInvalidated: Bool = dog.isInvalidated
        let description: String = dog.description
        let isSame: (Object?) -> Bool = dog.isSameObject(as:)
        XCTAssertNil(realm)
        XCTAssertEqual(objectSchema.className, "SigDog")
        XCTAssertFalse(isInvalidated)
        XCTAssertTrue(description.contains("Rex"), description)
        XCTAssertTrue(isSame(dog))
        XCTAssertFalse(isSame(nil))

        let byName: Any? = dog["name"]
        XCTAssertEqual(byName as? String, "Rex")
        dog["age"] = 4
        XCTAssertEqual(dog.age, 4)

        let primaryKey: () -> String? = SigOwner.primaryKey
        let ignored: () -> [String] = SigOwner.ignoredProperties
        let indexed: () -> [String] = SigOwner.indexedProperties
        let mapping: () -> [String: String] = SigRenamed.propertiesMapping
        XCTAssertNil(primaryKey(), "a @Persisted(primaryKey:) key is not reported through the legacy class method")
        XCTAssertEqual(ignored(), [])
        XCTAssertEqual(indexed(), [])
        XCTAssertEqual(mapping(), ["displayName": "display_name"])

        // Codable model classes encode and decode through their @Persisted properties.
        let renamed = SigRenamed(value: ["displayName": "x", "count": 2])
        let decoded = try JSONDecoder().decode(SigRenamed.self, from: JSONEncoder().encode(renamed))
        XCTAssertEqual(decoded.displayName, "x")
        XCTAssertEqual(decoded.count, 2)
    }

    func testEmbeddedObjectSignatures() throws {
        let makeAddress: (Any) -> SigAddress = SigAddress.init(value:)
        let address = makeAddress(["street": "Main", "city": "Oslo"])
        let realm: Realm? = address.realm
        let objectSchema: ObjectSchema = address.objectSchema
        let isInvalidated: Bool = address.isInvalidated
        let description: String = address.description
        let isSame: (EmbeddedObject?) -> Bool = address.isSameObject(as:)
        let ignored: () -> [String] = SigAddress.ignoredProperties
        let mapping: () -> [String: String] = SigAddress.propertiesMapping
        XCTAssertNil(realm)
        XCTAssertTrue(objectSchema.isEmbedded)
        XCTAssertFalse(isInvalidated)
        XCTAssertTrue(description.contains("Oslo"), description)
        XCTAssertTrue(isSame(address))
        XCTAssertFalse(isSame(nil))
        XCTAssertEqual(ignored(), [])
        XCTAssertEqual(mapping(), [:])
        let street: Any? = address["street"]
        XCTAssertEqual(street as? String, "Main")
        address["city"] = "Bergen"
        XCTAssertEqual(address.city, "Bergen")

        XCTAssertEqual(SigRenamedAddress().objectSchema["street"]?.columnName, "street_name",
                       "an embedded class's propertiesMapping() names its columns")

        let (managedRealm, owner) = try seededRealm()
        try managedRealm.write { owner.address = address }
        let first = owner.address!
        let second = owner.address!
        XCTAssertTrue(first.isSameObject(as: second), "two reads of one embedded object are the same object")
        XCTAssertFalse(first.isSameObject(as: SigAddress()))
    }

    func testDynamicAPISignatures() throws {
        let (realm, owner) = try seededRealm()
        let objects: (String) -> Results<DynamicObject> = realm.dynamicObjects(_:)
        let object: (String, Any) -> DynamicObject? = realm.dynamicObject(ofType:forPrimaryKey:)
        let create: (String, Any, Realm.UpdatePolicy) -> DynamicObject = realm.dynamicCreate(_:value:update:)
        let list: (String) -> List<DynamicObject> = owner.dynamicList(_:)
        let set: (String) -> MutableSet<DynamicObject> = owner.dynamicMutableSet(_:)
        let map: Map<String, DynamicObject?> = owner.dynamicMap("dogMap")
        let embeddedList: (String) -> List<DynamicObject> = SigAddress().dynamicList(_:)
        _ = embeddedList
        XCTAssertEqual(objects("SigDog").count, 3)
        XCTAssertEqual(list("dogs").count, 3)
        XCTAssertEqual(set("dogSet").count, 3)
        XCTAssertEqual(map.count, 3)
        let ann = try XCTUnwrap(object("SigOwner", 1))
        let name: Any? = ann["name"]
        let sameName: Any? = ann.name
        XCTAssertEqual(name as? String, "Ann")
        XCTAssertEqual(sameName as? String, "Ann")
        try realm.write {
            let made: DynamicObject = realm.dynamicCreate("SigDog")   // the default value
            XCTAssertEqual(made["name"] as? String, "")
            _ = create("SigDog", ["name": "Bo"], .error)
            ann["name"] = "Bea"
            ann.name = "Cat"
        }
        XCTAssertEqual(owner.name, "Cat")
        XCTAssertEqual(realm.objects(SigDog.self).count, 5)
    }

    func testPersistedAndPersistableEnumSignatures() throws {
        // References only: constructing a wrapper outside a model class is not something programs do.
        let plain: () -> Persisted<Int> = Persisted<Int>.init
        let withValue: (Int) -> Persisted<Int> = Persisted<Int>.init(wrappedValue:)
        let primaryKey: (Bool) -> Persisted<Int> = Persisted<Int>.init(primaryKey:)
        let primaryKeyWithValue: (Int, Bool) -> Persisted<Int> = Persisted<Int>.init(wrappedValue:primaryKey:)
        let indexed: (Bool) -> Persisted<String> = Persisted<String>.init(indexed:)
        let indexedWithValue: (String, Bool) -> Persisted<String> = Persisted<String>.init(wrappedValue:indexed:)
        let origin: (String) -> Persisted<LinkingObjects<SigOwner>> =
            Persisted<LinkingObjects<SigOwner>>.init(originProperty:)
        _ = (plain, withValue, primaryKey, primaryKeyWithValue, indexed, indexedWithValue, origin)

        // PersistableEnum: CaseIterable, RawRepresentable, Comparable by raw value, a default of the first case.
        let defaultKind = SigKind()
        XCTAssertEqual(defaultKind, .small)
        XCTAssertEqual(SigDog().kind, .small)
        XCTAssertTrue(SigKind.small < SigKind.large)
        XCTAssertEqual(SigKind.allCases.max(), .large)
        func requireMinMax<T: MinMaxType>(_: T.Type) {}
        requireMinMax(SigKind.self)

        let realm = try openRealm()
        try realm.write {
            realm.add(SigDog(value: ["name": "a", "kind": SigKind.medium]))
            realm.add(SigDog(value: ["name": "b", "kind": SigKind.large]))
        }
        let dogs = realm.objects(SigDog.self)
        let minimum: SigKind? = dogs.min(ofProperty: "kind")
        let maximum: SigKind? = dogs.max(of: \.kind)
        XCTAssertEqual(minimum, .medium)
        XCTAssertEqual(maximum, .large)
    }

    // MARK: ObjectId and Decimal128

    func testObjectIdSignatures() throws {
        let make: () -> ObjectId = ObjectId.init
        let generate: () -> ObjectId = ObjectId.generate
        let parse: (String) throws -> ObjectId = ObjectId.init(string:)
        let fromParts: (Date, Int, Int) -> ObjectId = ObjectId.init(timestamp:machineId:processId:)
        let literal = ObjectId("0123456789abcdef01234567")
        let parsed = try parse("0123456789abcdef01234567")
        let stringValue: String = parsed.stringValue
        let timestamp: Date = parsed.timestamp
        let description: String = parsed.description
        XCTAssertEqual(literal, parsed)
        XCTAssertEqual(stringValue, "0123456789abcdef01234567")
        XCTAssertEqual(description, stringValue)
        XCTAssertEqual(timestamp, Date(timeIntervalSince1970: 0x0123_4567))
        XCTAssertThrowsError(try parse("not an object id"))
        XCTAssertNotEqual(make(), generate())
        let stamped = fromParts(Date(timeIntervalSince1970: 1000), 1, 2)
        XCTAssertEqual(stamped.timestamp, Date(timeIntervalSince1970: 1000))

        let later = try ObjectId(string: "0123456789abcdef01234568")
        let comparisons: [(ObjectId, ObjectId) -> Bool] = [(<), (<=), (>), (>=), (==), (!=)]
        XCTAssertEqual(comparisons.map { $0(parsed, later) }, [true, true, false, false, false, true])
        let isGreater: (ObjectId?) -> Bool = later.isGreaterThan(_:)
        let isGreaterOrEqual: (ObjectId?) -> Bool = later.isGreaterThanOrEqualTo(_:)
        let isLess: (ObjectId?) -> Bool = later.isLessThan(_:)
        let isLessOrEqual: (ObjectId?) -> Bool = later.isLessThanOrEqualTo(_:)
        XCTAssertEqual([isGreater(parsed), isGreaterOrEqual(later), isLess(parsed), isLessOrEqual(later)],
                       [true, true, false, true])
        XCTAssertFalse(isGreater(nil))

        let encoded = try JSONEncoder().encode([parsed])
        XCTAssertEqual(try JSONDecoder().decode([ObjectId].self, from: encoded), [parsed])
    }

    func testDecimal128Signatures() throws {
        let make: () -> Decimal128 = Decimal128.init
        let fromValue: (Any) -> Decimal128 = Decimal128.init(value:)
        let fromNumber: (NSNumber) -> Decimal128 = Decimal128.init(number:)
        let fromString: (String) throws -> Decimal128 = Decimal128.init(string:)
        let exactly: (Int) -> Decimal128? = Decimal128.init(exactly:)
        XCTAssertEqual(make(), 0)
        XCTAssertEqual(fromValue(2.5), 2.5)
        XCTAssertEqual(fromNumber(NSNumber(value: 7)), 7)
        XCTAssertEqual(try fromString("1.25"), "1.25")
        XCTAssertEqual(exactly(3), 3)
        let minimum: Decimal128 = .min, maximum: Decimal128 = .max
        XCTAssertTrue(minimum < maximum)

        let value: Decimal128 = 10
        let doubleValue: Double = value.doubleValue
        let decimalValue: Decimal = value.decimalValue
        let stringValue: String = value.stringValue
        let isNaN: Bool = value.isNaN
        let isSignaling: Bool = value.isSignaling
        let isSignalingNaN: Bool = value.isSignalingNaN
        let magnitude: Decimal128 = Decimal128(-3).magnitude
        XCTAssertEqual(doubleValue, 10)
        XCTAssertEqual(decimalValue, 10)
        XCTAssertEqual(stringValue, "10")
        XCTAssertEqual([isNaN, isSignaling, isSignalingNaN], [false, false, false])
        XCTAssertEqual(magnitude, 3)

        let arithmetic: [(Decimal128, Decimal128) -> Decimal128] = [(+), (-), (*), (/)]
        XCTAssertEqual(arithmetic.map { $0(value, 4) }, [14, 6, 40, 2.5])
        var product = value
        product *= 3
        XCTAssertEqual(product, 30)
        let distance: Decimal128 = value.distance(to: 15)
        let advanced: Decimal128 = value.advanced(by: 5)
        XCTAssertEqual(distance, 5)
        XCTAssertEqual(advanced, 15)

        let comparisons: [(Decimal128, Decimal128) -> Bool] = [(<), (<=), (>), (>=), (==)]
        XCTAssertEqual(comparisons.map { $0(value, 11) }, [true, true, false, false, false])
        let isGreater: (Decimal128?) -> Bool = value.isGreaterThan(_:)
        let isGreaterOrEqual: (Decimal128?) -> Bool = value.isGreaterThanOrEqualTo(_:)
        let isLess: (Decimal128?) -> Bool = value.isLessThan(_:)
        let isLessOrEqual: (Decimal128?) -> Bool = value.isLessThanOrEqualTo(_:)
        XCTAssertEqual([isGreater(9), isGreaterOrEqual(10), isLess(9), isLessOrEqual(10)], [true, true, false, true])
        XCTAssertFalse(isLess(nil))

        let adding: (Decimal128) -> Decimal128 = value.decimalNumber(byAdding:)
        let subtracting: (Decimal128) -> Decimal128 = value.decimalNumber(bySubtracting:)
        let multiplying: (Decimal128) -> Decimal128 = value.decimalNumber(byMultiplyingBy:)
        let dividing: (Decimal128) -> Decimal128 = value.decimalNumber(byDividingBy:)
        XCTAssertEqual([adding(1), subtracting(1), multiplying(2), dividing(4)], [11, 9, 20, 2.5])

        var negated: Decimal128 = 5
        negated.negate()
        XCTAssertEqual(negated, -5)

        // Numeric, as RealmSwift declares it: generic numeric code accepts Decimal128.
        func total<T: Numeric>(_ values: [T]) -> T { values.reduce(.zero, +) }
        let zero: Decimal128 = .zero
        XCTAssertEqual(total([value, 2.5, zero]), 12.5)

        let encoded = try JSONEncoder().encode([value])
        XCTAssertEqual(try JSONDecoder().decode([Decimal128].self, from: encoded), [value])
    }

    // MARK: List

    func testListSignatures() throws {
        let (realm, owner) = try seededRealm()
        let list = owner.dogs

        let count: Int = list.count
        let first: SigDog? = list.first
        let last: SigDog? = list.last
        let byPosition: SigDog = list[1]
        let slice: Slice<List<SigDog>> = list[0..<2]
        let realmOfList: Realm? = list.realm
        let isInvalidated: Bool = list.isInvalidated
        let description: String = list.description
        // The RLMArray reference's signature (nil when a position is out of range), which wins over RealmSwift's.
        let objectsAt: (IndexSet) -> [SigDog]? = list.objects(at:)
        let indexOf: (SigDog) -> Int? = list.index(of:)
        let startIndex: Int = list.startIndex, endIndex: Int = list.endIndex
        let indexAfter: (Int) -> Int = list.index(after:)
        let indexBefore: (Int) -> Int = list.index(before:)
        var iterator: RLMIterator<SigDog> = list.makeIterator()
        XCTAssertEqual(count, 3)
        XCTAssertEqual(first?.name, "Rex")
        XCTAssertEqual(last?.name, "Max")
        XCTAssertEqual(byPosition.name, "Ace")
        XCTAssertEqual(slice.map(\.name), ["Rex", "Ace"])
        XCTAssertEqual(realmOfList, realm)
        XCTAssertFalse(isInvalidated)
        XCTAssertTrue(description.contains("Ace"), description)
        XCTAssertEqual(objectsAt(IndexSet([0, 2]))?.map(\.name), ["Rex", "Max"])
        XCTAssertNil(objectsAt(IndexSet([0, 3])))
        // RealmSwift's RealmCollection form, chosen where the context asks for an array.
        let objectsAtAsArray: (IndexSet) -> [SigDog] = list.objects(at:)
        XCTAssertEqual(objectsAtAsArray(IndexSet([1])).map(\.name), ["Ace"])
        let unannotated = list.objects(at: IndexSet([0, 3]))
        XCTAssertTrue(type(of: unannotated) == [SigDog]?.self, "an unannotated call picks the reference's form")
        XCTAssertNil(unannotated)
        let elementType: List<SigDog>.ElementType.Type = SigDog.self
        _ = elementType
        XCTAssertEqual(indexOf(byPosition), 1)
        XCTAssertEqual([startIndex, endIndex, indexAfter(0), indexBefore(2)], [0, 3, 1, 1])
        XCTAssertEqual(iterator.next()?.name, "Rex")

        let inferred = list.value(forKey: "name")
        let _: [AnyObject] = inferred   // unannotated, the List's own form is chosen, as in RealmSwift
        let anyValues: Any? = list.value(forKeyPath: "age")
        XCTAssertEqual(anyValues as? [Int], [3, 7, 5])
        let valuesForKey: [AnyObject] = list.value(forKey: "name")
        let valuesForKeyPath: [AnyObject] = list.value(forKeyPath: "name")
        XCTAssertEqual(valuesForKey.compactMap { $0 as? String }, ["Rex", "Ace", "Max"])
        XCTAssertEqual(valuesForKeyPath.compactMap { $0 as? String }, ["Rex", "Ace", "Max"])

        let append: (SigDog) -> Void = list.append(_:)
        let appendAll: ([SigDog]) -> Void = list.append(objectsIn:)
        let insert: (SigDog, Int) -> Void = list.insert(_:at:)
        let insertContents: ([SigDog], Int) -> Void = list.insert(contentsOf:at:)
        let remove: (Int) -> Void = list.remove(at:)
        let removeFirst: (Int) -> Void = list.removeFirst(_:)
        let removeLast: (Int) -> Void = list.removeLast(_:)
        let removeAll: () -> Void = list.removeAll
        let removeOffsets: (IndexSet) -> Void = list.remove(atOffsets:)
        let removeSubrange: (Range<Int>) -> Void = list.removeSubrange(_:)
        let replace: (Int, SigDog) -> Void = list.replace(index:object:)
        let replaceSubrange: (Range<Int>, [SigDog]) -> Void = list.replaceSubrange(_:with:)
        let move: (Int, Int) -> Void = list.move(from:to:)
        let moveOffsets: (IndexSet, Int) -> Void = list.move(fromOffsets:toOffset:)
        let swapAt: (Int, Int) -> Void = list.swapAt(_:_:)

        let (rex, ace, max) = (list[0], list[1], list[2])
        try realm.write {
            swapAt(0, 2)
            XCTAssertEqual(list.map(\.name), ["Max", "Ace", "Rex"])
            move(0, 2)
            XCTAssertEqual(list.map(\.name), ["Ace", "Rex", "Max"])
            moveOffsets(IndexSet([0]), 3)
            XCTAssertEqual(list.map(\.name), ["Rex", "Max", "Ace"])
            replace(1, rex)
            XCTAssertEqual(list.map(\.name), ["Rex", "Rex", "Ace"])
            list[1] = max
            replaceSubrange(0..<1, [ace, ace])
            XCTAssertEqual(list.map(\.name), ["Ace", "Ace", "Max", "Ace"])
            removeSubrange(1..<3)
            XCTAssertEqual(list.map(\.name), ["Ace", "Ace"])
            removeOffsets(IndexSet([0]))
            insert(rex, 0)
            insertContents([max, max], 1)
            append(ace)
            appendAll([rex])
            XCTAssertEqual(list.map(\.name), ["Rex", "Max", "Max", "Ace", "Ace", "Rex"])
            remove(1)
            removeFirst(2)
            XCTAssertEqual(list.map(\.name), ["Ace", "Ace", "Rex"])
            list.removeFirst()
            list.removeLast()
            removeLast(1)
            XCTAssertTrue(list.isEmpty)
            list.append(rex)
            removeAll()
            XCTAssertTrue(list.isEmpty)
        }
    }

    func testUnmanagedListEditsLikeAnArray() {
        let list = List<Int>()
        list.append(objectsIn: [1, 2, 3, 4, 5])
        list.removeFirst(2)
        list.removeLast(2)
        XCTAssertEqual(Array(list), [3])
        list.insert(contentsOf: [1, 2], at: 0)
        list.replaceSubrange(1..<2, with: [7, 8])
        XCTAssertEqual(Array(list), [1, 7, 8, 3])
        list.move(fromOffsets: IndexSet([0, 1]), toOffset: 4)
        XCTAssertEqual(Array(list), [8, 3, 1, 7])
        list.remove(atOffsets: IndexSet([1, 3]))
        XCTAssertEqual(Array(list), [8, 1])
        XCTAssertEqual(list.objects(at: IndexSet([1])), [1])
    }

    // MARK: MutableSet

    func testMutableSetSignatures() throws {
        let (realm, owner) = try seededRealm()
        let set = owner.intSet
        let other = owner.otherIntSet

        let count: Int = set.count
        let first: Int? = set.first
        let byPosition: Int = set[0]
        let realmOfSet: Realm? = set.realm
        let isInvalidated: Bool = set.isInvalidated
        let description: String = set.description
        let objectsAt: (IndexSet) -> [Int]? = set.objects(at:)
        let indexOf: (Int) -> Int? = set.index(of:)
        var iterator: RLMIterator<Int> = set.makeIterator()
        XCTAssertEqual(count, 3)
        XCTAssertNotNil(first)
        XCTAssertTrue([1, 2, 3].contains(byPosition))
        XCTAssertEqual(realmOfSet, realm)
        XCTAssertFalse(isInvalidated)
        XCTAssertFalse(description.isEmpty)
        XCTAssertEqual(objectsAt(IndexSet([0, 1, 2]))?.sorted(), [1, 2, 3])
        let objectsAtAsArray: (IndexSet) -> [Int] = set.objects(at:)
        XCTAssertEqual(objectsAtAsArray(IndexSet([0, 1, 2])).sorted(), [1, 2, 3])
        XCTAssertNotNil(indexOf(2))
        XCTAssertNotNil(iterator.next())
        let names: [AnyObject] = owner.dogSet.value(forKey: "name")
        XCTAssertEqual(names.compactMap { $0 as? String }.sorted(), ["Ace", "Max", "Rex"])

        let insert: (Int) -> Void = set.insert(_:)
        let insertAll: ([Int]) -> Void = set.insert(objectsIn:)
        let remove: (Int) -> Void = set.remove(_:)
        let removeAll: () -> Void = set.removeAll
        let contains: (Int) -> Bool = set.contains(_:)
        let intersects: (MutableSet<Int>) -> Bool = set.intersects(_:)
        let isSubset: (MutableSet<Int>) -> Bool = set.isSubset(of:)
        let formUnion: (MutableSet<Int>) -> Void = set.formUnion(_:)
        let formIntersection: (MutableSet<Int>) -> Void = set.formIntersection(_:)
        let subtract: (MutableSet<Int>) -> Void = set.subtract(_:)

        try realm.write {
            other.insert(objectsIn: [3, 4])
            XCTAssertTrue(intersects(other))
            XCTAssertFalse(isSubset(other))
            formUnion(other)
            XCTAssertEqual(Set(set), [1, 2, 3, 4])
            formIntersection(other)
            XCTAssertEqual(Set(set), [3, 4])
            subtract(other)
            XCTAssertTrue(set.isEmpty)
            insert(5)
            insertAll([6, 7])
            remove(6)
            XCTAssertTrue(contains(7))
            XCTAssertFalse(contains(6))
            removeAll()
            XCTAssertTrue(set.isEmpty)
        }
    }

    // MARK: Map

    func testMapSignatures() throws {
        let (realm, owner) = try seededRealm()
        let map = owner.intMap

        let keys: [String] = map.keys
        let values: [Int] = map.values
        let count: Int = map.count
        let realmOfMap: Realm? = map.realm
        let isInvalidated: Bool = map.isInvalidated
        let description: String = map.description
        let byKey: Int?? = map["a"]
        let objectForKey: (AnyObject) -> AnyObject? = map.object(forKey:)
        let valueForKey: (String) -> AnyObject? = map.value(forKey:)
        let valueForKeyPath: (String) -> AnyObject? = map.value(forKeyPath:)
        let setValue: (Any?, String) -> Void = map.setValue(_:forKey:)
        let containsWhere: (@escaping (String, Int) -> Bool) -> Bool = map.contains(where:)
        var entries: RLMMapIterator<SingleMapEntry<String, Int>> = map.makeIterator()
        var pairs: RLMKeyValueIterator<String, Int> = map.asKeyValueSequence().makeIterator()
        let sequence: Map<String, Int>.KeyValueSequence = map.asKeyValueSequence()
        XCTAssertEqual(keys, ["a", "b"])
        XCTAssertEqual(values, [1, 2])
        XCTAssertEqual(count, 2)
        XCTAssertEqual(realmOfMap, realm)
        XCTAssertFalse(isInvalidated)
        XCTAssertTrue(description.contains("\"b\""), description)
        XCTAssertEqual(byKey, 1)
        XCTAssertEqual(objectForKey("b" as AnyObject) as? Int, 2)
        XCTAssertEqual(valueForKey("a") as? Int, 1)
        XCTAssertEqual(valueForKeyPath("b") as? Int, 2)
        XCTAssertTrue(containsWhere { key, value in key == "b" && value == 2 })
        let entry: SingleMapEntry<String, Int>? = entries.next()
        XCTAssertEqual(entry?.key, "a")
        XCTAssertEqual(entry?.value, 1)
        let pair: (key: String, value: Int)? = pairs.next()
        XCTAssertEqual(pair?.key, "a")
        XCTAssertEqual(Array(sequence).map(\.value), [1, 2])

        let mergeSequence: ([(key: String, value: Int)], (Int, Int) throws -> Int) throws -> Void = map.merge
        let mergeMap: (Map<String, Int>, (Int, Int) throws -> Int) throws -> Void = map.merge
        let updateValue: (Int, String) -> Void = map.updateValue(_:forKey:)
        let removeObject: (String) -> Void = map.removeObject(for:)
        let removeAll: () -> Void = map.removeAll
        try realm.write {
            updateValue(10, "a")
            setValue(20, "b")
            XCTAssertEqual(map.values, [10, 20])
            // merge rethrows: a non-throwing closure needs no `try`.
            map.merge([(key: "a", value: 1), (key: "c", value: 3)]) { old, new in old + new }
            XCTAssertEqual(map.values, [11, 20, 3])
            let other = Map<String, Int>()
            other["c"] = 4
            map.merge(other) { _, new in new }
            XCTAssertEqual(map["c"], 4)
            map["d"] = 5
            map["d"] = nil
            removeObject("c")
            XCTAssertEqual(map.keys, ["a", "b"])
            try mergeSequence([(key: "e", value: 6)]) { _, new in new }
            try mergeMap(other) { old, _ in old }
            XCTAssertEqual(map["e"], 6)
            XCTAssertEqual(map["c"], 4)
            removeObject("e")
            removeObject("c")
            removeAll()
            XCTAssertEqual(map.count, 0)
        }
        let dogs: Map<String, SigDog?> = owner.dogMap
        let dogByKey: SigDog?? = dogs["Rex"]
        XCTAssertEqual(dogByKey??.name, "Rex")

        let unmanaged = Map<String, Int>()
        unmanaged["x"] = 1
        let decoded = try JSONDecoder().decode(Map<String, Int>.self, from: JSONEncoder().encode(unmanaged))
        XCTAssertEqual(decoded["x"], 1)
    }

    // MARK: Results and LinkingObjects

    func testResultsSignatures() throws {
        let (realm, _) = try seededRealm()
        let results: Results<SigDog> = realm.objects(SigDog.self).sorted(byKeyPath: "name")

        let count: Int = results.count
        let first: SigDog? = results.first
        let last: SigDog? = results.last
        let byPosition: SigDog = results[0]
        let slice: Slice<Results<SigDog>> = results[0..<2]
        let realmOfResults: Realm? = results.realm
        let isInvalidated: Bool = results.isInvalidated
        let description: String = results.description
        let indexOf: (SigDog) -> Int? = results.index(of:)
        let objectsAt: (IndexSet) -> [SigDog] = results.objects(at:)
        let startIndex: Int = results.startIndex, endIndex: Int = results.endIndex
        let indexAfter: (Int) -> Int = results.index(after:)
        let indexBefore: (Int) -> Int = results.index(before:)
        let valueForKey: (String) -> Any? = results.value(forKey:)
        let valueForKeyPath: (String) -> Any? = results.value(forKeyPath:)
        let setValue: (Any?, String) -> Void = results.setValue(_:forKey:)
        var iterator: RLMIterator<SigDog> = results.makeIterator()
        XCTAssertEqual(count, 3)
        XCTAssertEqual([first?.name, last?.name, byPosition.name], ["Ace", "Rex", "Ace"])
        XCTAssertEqual(slice.map(\.name), ["Ace", "Max"])
        XCTAssertEqual(realmOfResults, realm)
        XCTAssertFalse(isInvalidated)
        XCTAssertTrue(description.contains("Results<SigDog>"), description)
        XCTAssertEqual(indexOf(byPosition), 0)
        XCTAssertEqual(objectsAt(IndexSet([0, 2])).map(\.name), ["Ace", "Rex"])
        XCTAssertEqual([startIndex, endIndex, indexAfter(0), indexBefore(1)], [0, 3, 1, 0])
        XCTAssertEqual(valueForKey("name") as? [String], ["Ace", "Max", "Rex"])
        XCTAssertEqual(valueForKeyPath("age") as? [Int], [7, 5, 3])
        XCTAssertEqual(iterator.next()?.name, "Ace")
        try realm.write { setValue(1, "age") }
        XCTAssertEqual(results.map(\.age), [1, 1, 1])
        XCTAssertEqual(results, results)

        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(realm.objects(SigOwner.self)
                                                                                      .map(\.ints.count)))
        XCTAssertEqual(encoded as? [Int], [3])
        let intsEncoded = try JSONEncoder().encode(realm.objects(SigOwner.self)[0].ints)
        XCTAssertEqual(String(decoding: intsEncoded, as: UTF8.self), "[3,1,2]")
    }

    func testLinkingObjectsSignatures() throws {
        let (realm, owner) = try seededRealm()
        let owners: LinkingObjects<SigOwner> = owner.dogs[0].owners
        let makeUnmanaged: (SigOwner.Type, String) -> LinkingObjects<SigOwner> =
            LinkingObjects<SigOwner>.init(fromType:property:)
        XCTAssertEqual(makeUnmanaged(SigOwner.self, "dogs").count, 0)

        let count: Int = owners.count
        let first: SigOwner? = owners.first
        let last: SigOwner? = owners.last
        let byPosition: SigOwner = owners[0]
        let realmOfLinks: Realm? = owners.realm
        let isInvalidated: Bool = owners.isInvalidated
        let description: String = owners.description
        let indexOf: (SigOwner) -> Int? = owners.index(of:)
        let objectsAt: (IndexSet) -> [SigOwner] = owners.objects(at:)
        let startIndex: Int = owners.startIndex, endIndex: Int = owners.endIndex
        let indexAfter: (Int) -> Int = owners.index(after:)
        let indexBefore: (Int) -> Int = owners.index(before:)
        let valueForKey: (String) -> Any? = owners.value(forKey:)
        let valueForKeyPath: (String) -> Any? = owners.value(forKeyPath:)
        let setValue: (Any?, String) -> Void = owners.setValue(_:forKey:)
        var iterator: RLMIterator<SigOwner> = owners.makeIterator()
        XCTAssertEqual(count, 1)
        XCTAssertEqual([first?.id, last?.id, byPosition.id], [1, 1, 1])
        XCTAssertEqual(realmOfLinks, realm)
        XCTAssertFalse(isInvalidated)
        XCTAssertTrue(description.contains("SigOwner"), description)
        XCTAssertEqual(indexOf(owner), 0)
        XCTAssertEqual(objectsAt(IndexSet([0])).map(\.id), [1])
        XCTAssertEqual([startIndex, endIndex, indexAfter(0), indexBefore(1)], [0, 1, 1, 0])
        XCTAssertEqual(valueForKey("name") as? [String], ["Ann"])
        XCTAssertEqual(valueForKeyPath("id") as? [Int], [1])
        XCTAssertEqual(iterator.next()?.id, 1)
        try realm.write { setValue("Bo", "name") }
        XCTAssertEqual(owner.name, "Bo")
        XCTAssertEqual(owners, owner.dogs[0].owners)
    }

    // MARK: Queries on every collection

    /// The query methods RealmSwift's RealmCollection protocol gives every collection of objects, checked on one
    /// collection type at a time.
    private func checkObjectQueries<C>(_ collection: C, _ name: String,
                                       filter: (String, Any...) -> Results<SigDog>,
                                       where whereQuery: (((Query<SigDog>) -> Query<Bool>)) -> Results<SigDog>,
                                       indexMatchingFormat: (String, Any...) -> Int?,
                                       indexMatchingQuery: (((Query<SigDog>) -> Query<Bool>)) -> Int?,
                                       sortedByKeyPath: (String, Bool) -> Results<SigDog>,
                                       sortedByDescriptors: ([Columnar.SortDescriptor]) -> Results<SigDog>,
                                       sortedBySwiftKeyPath: (KeyPath<SigDog, String>, Bool) -> Results<SigDog>,
                                       distinctByNames: ([String]) -> Results<SigDog>,
                                       distinctBySwiftKeyPaths: ([PartialKeyPath<SigDog>]) -> Results<SigDog>,
                                       minOfProperty: (String) -> Int?,
                                       maxOfProperty: (String) -> Int?,
                                       sumOfProperty: (String) -> Int,
                                       averageOfProperty: (String) -> Double?,
                                       minOf: (KeyPath<SigDog, Int>) -> Int?,
                                       maxOf: (KeyPath<SigDog, Int>) -> Int?,
                                       sumOf: (KeyPath<SigDog, Int>) -> Int,
                                       averageOf: (KeyPath<SigDog, Int>) -> Int?) {
        XCTAssertEqual(filter("age > %@", 4).count, 2, name)
        XCTAssertEqual(whereQuery { $0.age > 4 }.count, 2, name)
        XCTAssertNotNil(indexMatchingFormat("name == %@", "Ace"), name)
        XCTAssertNil(indexMatchingQuery { $0.name == "Nobody" }, name)
        XCTAssertEqual(sortedByKeyPath("age", false).map(\.age), [7, 5, 3], name)
        XCTAssertEqual(sortedByDescriptors([SortDescriptor(keyPath: "name")]).map(\.name), ["Ace", "Max", "Rex"],
                       name)
        XCTAssertEqual(sortedBySwiftKeyPath(\.name, false).map(\.name), ["Rex", "Max", "Ace"], name)
        XCTAssertEqual(distinctByNames(["name"]).count, 3, name)
        XCTAssertEqual(distinctBySwiftKeyPaths([\SigDog.name]).count, 3, name)
        XCTAssertEqual(minOfProperty("age"), 3, name)
        XCTAssertEqual(maxOfProperty("age"), 7, name)
        XCTAssertEqual(sumOfProperty("age"), 15, name)
        XCTAssertEqual(averageOfProperty("age"), 5, name)
        XCTAssertEqual(minOf(\.age), 3, name)
        XCTAssertEqual(maxOf(\.age), 7, name)
        XCTAssertEqual(sumOf(\.age), 15, name)
        XCTAssertEqual(averageOf(\.age), 5, name)
    }

    func testQueryMethodsOnEveryCollection() throws {
        let (realm, owner) = try seededRealm()
        let results = realm.objects(SigDog.self)
        checkObjectQueries(results, "Results",
                           filter: results.filter, where: results.where, indexMatchingFormat: results.index(matching:_:),
                           indexMatchingQuery: results.index(matching:), sortedByKeyPath: results.sorted(byKeyPath:ascending:),
                           sortedByDescriptors: results.sorted(by:), sortedBySwiftKeyPath: results.sorted(by:ascending:),
                           distinctByNames: results.distinct(by:), distinctBySwiftKeyPaths: results.distinct(by:),
                           minOfProperty: results.min(ofProperty:), maxOfProperty: results.max(ofProperty:),
                           sumOfProperty: results.sum(ofProperty:), averageOfProperty: results.average(ofProperty:),
                           minOf: results.min(of:), maxOf: results.max(of:), sumOf: results.sum(of:),
                           averageOf: results.average(of:))
        let list = owner.dogs
        checkObjectQueries(list, "List",
                           filter: list.filter, where: list.where, indexMatchingFormat: list.index(matching:_:),
                           indexMatchingQuery: list.index(matching:), sortedByKeyPath: list.sorted(byKeyPath:ascending:),
                           sortedByDescriptors: list.sorted(by:), sortedBySwiftKeyPath: list.sorted(by:ascending:),
                           distinctByNames: list.distinct(by:), distinctBySwiftKeyPaths: list.distinct(by:),
                           minOfProperty: list.min(ofProperty:), maxOfProperty: list.max(ofProperty:),
                           sumOfProperty: list.sum(ofProperty:), averageOfProperty: list.average(ofProperty:),
                           minOf: list.min(of:), maxOf: list.max(of:), sumOf: list.sum(of:),
                           averageOf: list.average(of:))
        let set = owner.dogSet
        checkObjectQueries(set, "MutableSet",
                           filter: set.filter, where: set.where, indexMatchingFormat: set.index(matching:_:),
                           indexMatchingQuery: set.index(matching:), sortedByKeyPath: set.sorted(byKeyPath:ascending:),
                           sortedByDescriptors: set.sorted(by:), sortedBySwiftKeyPath: set.sorted(by:ascending:),
                           distinctByNames: set.distinct(by:), distinctBySwiftKeyPaths: set.distinct(by:),
                           minOfProperty: set.min(ofProperty:), maxOfProperty: set.max(ofProperty:),
                           sumOfProperty: set.sum(ofProperty:), averageOfProperty: set.average(ofProperty:),
                           minOf: set.min(of:), maxOf: set.max(of:), sumOf: set.sum(of:),
                           averageOf: set.average(of:))

        // LinkingObjects: the same methods, typed by the linking class.
        let owners = owner.dogs[0].owners
        let linkFilter: Results<SigOwner> = owners.filter("name == %@", "Ann")
        let linkWhere: Results<SigOwner> = owners.where { $0.name == "Ann" }
        let linkIndex: Int? = owners.index(matching: "id == %@", 1)
        let linkQueryIndex: Int? = owners.index(matching: { $0.id == 1 })
        let linkSorted: Results<SigOwner> = owners.sorted(byKeyPath: "name", ascending: false)
        let linkSortedByKeyPath: Results<SigOwner> = owners.sorted(by: \.name, ascending: true)
        let linkDistinct: Results<SigOwner> = owners.distinct(by: ["name"])
        let linkSum: Int = owners.sum(of: \.id)
        XCTAssertEqual([linkFilter.count, linkWhere.count, linkSorted.count, linkSortedByKeyPath.count,
                        linkDistinct.count, linkSum], [1, 1, 1, 1, 1, 1])
        XCTAssertEqual(linkIndex, 0)
        XCTAssertEqual(linkQueryIndex, 0)

        // Collections of values: the `self` forms.
        let ints = owner.ints
        let minimum: Int? = ints.min()
        let maximum: Int? = ints.max()
        let sum: Int = ints.sum()
        let average: Double? = ints.average()
        let sortedValues: Results<Int> = ints.sorted(ascending: false)
        let distinctValues: Results<Int> = ints.distinct()
        XCTAssertEqual([minimum, maximum, sum], [1, 3, 6])
        XCTAssertEqual(average, 2)
        XCTAssertEqual(Array(sortedValues), [3, 2, 1])
        XCTAssertEqual(distinctValues.count, 3)
        let valueResults: Results<Int> = realm.objects(SigOwner.self)[0].ints.where { $0 > 1 }
        XCTAssertEqual(valueResults.min(), 2)

        // Map: queries over the values.
        let dogMap = owner.dogMap
        let mapWhere: Results<SigDog?> = dogMap.where { $0.age > 4 }
        let mapSorted: Results<SigDog?> = dogMap.sorted(byKeyPath: "age", ascending: true)
        let mapSortedByDescriptors: Results<SigDog?> = dogMap.sorted(by: [SortDescriptor(keyPath: "age")])
        let mapSortedByKeyPath: Results<SigDog?> = dogMap.sorted(by: \.age, ascending: true)
        let mapMin: Int? = dogMap.min(ofProperty: "age")
        let mapMax: Int? = dogMap.max(of: \.age)
        let mapSum: Int = dogMap.sum(of: \.age)
        let mapAverage: Double? = dogMap.average(ofProperty: "age")
        XCTAssertEqual(mapWhere.count, 2)
        XCTAssertEqual(mapSorted.map { $0?.age }, [3, 5, 7])
        XCTAssertEqual(mapSortedByDescriptors.count, 3)
        XCTAssertEqual(mapSortedByKeyPath.first??.age, 3)
        XCTAssertEqual([mapMin, mapMax, mapSum], [3, 7, 15])
        XCTAssertEqual(mapAverage, 5)
        let intMap = owner.intMap
        let intMapMin: Int? = intMap.min()
        let intMapSum: Int = intMap.sum()
        let intMapAverage: Double? = intMap.average()
        let intMapSorted: Results<Int> = intMap.sorted(ascending: false)
        XCTAssertEqual([intMapMin, intMapSum], [1, 3])
        XCTAssertEqual(intMapAverage, 1.5)
        XCTAssertEqual(Array(intMapSorted), [2, 1])
    }

    /// Code generic over RealmCollection, as RealmSwift programs write it, works with every collection type.
    private func namesOfDogsOlderThan<C: RealmCollection>(_ age: Int, in dogs: C) -> [String] where C.Element == SigDog {
        let realm: Realm? = dogs.realm
        let isInvalidated: Bool = dogs.isInvalidated
        XCTAssertNotNil(realm)
        XCTAssertFalse(isInvalidated)
        XCTAssertEqual(dogs, dogs)
        var iterator: RLMIterator<SigDog> = dogs.makeIterator()
        XCTAssertNotNil(iterator.next())
        let atPositions: [SigDog] = dogs.objects(at: IndexSet([0, 2]))
        XCTAssertEqual(atPositions.count, 2)
        let total: Int = dogs.sum(ofProperty: "age")
        let oldest: Int? = dogs.max(of: \.age)
        XCTAssertEqual(total, 15)
        XCTAssertEqual(oldest, 7)
        XCTAssertEqual(dogs.index(matching: "age > %@", 100), nil)
        XCTAssertEqual(dogs.filter("age > %@", age).count, dogs.where { $0.age > age }.count)
        return dogs.where { $0.age > age }.sorted(by: \.name, ascending: true).map(\.name)
    }

    func testCodeGenericOverRealmCollection() throws {
        let (realm, owner) = try seededRealm()
        XCTAssertEqual(namesOfDogsOlderThan(4, in: realm.objects(SigDog.self)), ["Ace", "Max"])
        XCTAssertEqual(namesOfDogsOlderThan(4, in: owner.dogs), ["Ace", "Max"])
        XCTAssertEqual(namesOfDogsOlderThan(4, in: owner.dogSet), ["Ace", "Max"])
        let owners: LinkingObjects<SigOwner> = owner.dogs[0].owners
        func count<C: RealmCollection>(_ collection: C) -> Int { collection.count }
        XCTAssertEqual(count(owners), 1)
        func total<C: RealmCollection>(_ collection: C) -> Int where C.Element == Int { collection.sum() }
        XCTAssertEqual(total(owner.ints), 6)
        XCTAssertEqual(owner.dogs, realm.objects(SigOwner.self)[0].dogs, "two reads of one list property are equal")
        XCTAssertNotEqual(owner.dogs, List<SigDog>())
    }

    func testSortDescriptorSignatures() {
        let byName: (String, Bool) -> Columnar.SortDescriptor = Columnar.SortDescriptor.init(keyPath:ascending:)
        let byKeyPath: (PartialKeyPath<SigDog>, Bool) -> Columnar.SortDescriptor =
            Columnar.SortDescriptor.init(keyPath:ascending:)
        let literal: Columnar.SortDescriptor = "age"
        let descriptor = byName("name", false)
        let keyPath: String = descriptor.keyPath
        let ascending: Bool = descriptor.ascending
        let reversed: Columnar.SortDescriptor = descriptor.reversed()
        let description: String = descriptor.description
        XCTAssertEqual(keyPath, "name")
        XCTAssertFalse(ascending)
        XCTAssertTrue(reversed.ascending)
        XCTAssertEqual(byKeyPath(\SigDog.age, true), literal)
        XCTAssertEqual(description, "SortDescriptor(keyPath: name, direction: descending)")
        XCTAssertEqual(Columnar.SortDescriptor(keyPath: \SigDog.name).keyPath, "name")
    }

    func testQueryOperatorSignatures() throws {
        let (realm, _) = try seededRealm()
        let owners = realm.objects(SigOwner.self)
        let dogs = realm.objects(SigDog.self)
        let equal: (Query<Int>, Int) -> Query<Bool> = (==)
        let greater: (Query<Int>, Int) -> Query<Bool> = (>)
        let between: (Query<Int>, Query<Int>) -> Query<Bool> = (<=)
        let and: (Query<Bool>, Query<Bool>) -> Query<Bool> = (&&)
        let or: (Query<Bool>, Query<Bool>) -> Query<Bool> = (||)
        let not: (Query<Bool>) -> Query<Bool> = (!)
        XCTAssertEqual(dogs.where { and(greater($0.age, 3), not(equal($0.age, 7))) }.count, 1)
        XCTAssertEqual(dogs.where { or(between($0.age, $0.age), equal($0.age, 0)) }.count, 3)
        XCTAssertEqual(dogs.where { $0.name.contains("e", options: [.caseInsensitive]) }.count, 2)
        XCTAssertEqual(dogs.where { $0.name.like("?e?", caseInsensitive: true) }.count, 1)
        XCTAssertEqual(dogs.where { $0.name.starts(with: "R") || $0.name.ends(with: "x", options: []) }.count, 2)
        XCTAssertEqual(dogs.where { $0.age.contains(4...7) }.count, 2)
        XCTAssertEqual(dogs.where { $0.age.in([3, 5]) }.count, 2)
        XCTAssertEqual(dogs.where { $0.weight == nil }.count, 3)
        XCTAssertEqual(dogs.where { $0.kind.rawValue == 1 }.count, 3)
        XCTAssertEqual(owners.where { $0.dogs.age.avg > 4 }.count, 1)
        XCTAssertEqual(owners.where { $0.dogs.count == 3 }.count, 1)
        XCTAssertEqual(owners.where { $0.ints.contains(2) && $0.intSet.containsAny(in: [9, 3]) }.count, 1)
        XCTAssertEqual(owners.where { $0.intMap["a"] == 1 && $0.intMap.keys == "b" }.count, 1)
        XCTAssertEqual(owners.where { $0.intMap.values.sum == 3 }.count, 1)
        XCTAssertEqual(owners.where { $0.dogMap.values.name == "Rex" }.count, 1)
        XCTAssertEqual(owners.where { $0.address.city == "Oslo" }.count, 0)
        let options: StringOptions = [.caseInsensitive, .diacriticInsensitive]
        XCTAssertEqual(options.rawValue, 3)
    }

    /// AnyRealmValue's nested collections and aggregates, with the signatures RealmSwift 20 declares.
    func testAnyRealmValueSignatures() throws {
        let position: (Query<AnyRealmValue>, Int) -> Query<AnyRealmValue> = { $0[$1] }
        let key: (Query<AnyRealmValue>, String) -> Query<AnyRealmValue> = { $0[$1] }
        let every: (Query<AnyRealmValue>) -> Query<AnyRealmValue> = { $0.any }
        let fromArray: ([AnyRealmValue]) -> AnyRealmValue = AnyRealmValue.fromArray
        let fromDictionary: ([String: AnyRealmValue]) -> AnyRealmValue = AnyRealmValue.fromDictionary
        let list: (AnyRealmValue) -> List<AnyRealmValue>? = { $0.listValue }
        let dictionary: (AnyRealmValue) -> Map<String, AnyRealmValue>? = { $0.dictionaryValue }
        func minMax<T: MinMaxType>(_: T.Type) {}
        func addable<T: AddableType>(_: T.Type) {}
        minMax(AnyRealmValue.self)
        addable(AnyRealmValue.self)
        let values = List<AnyRealmValue>()
        values.append(objectsIn: [.int(2), .double(0.5)])
        let smallest: AnyRealmValue? = values.min()
        let total: AnyRealmValue = values.sum()
        let mean: AnyRealmValue? = values.average()
        XCTAssertEqual(smallest, .double(0.5))
        XCTAssertEqual(total, .decimal128(Decimal128(stringLiteral: "2.5")))
        XCTAssertEqual(mean, .decimal128(Decimal128(stringLiteral: "1.25")))
        let tree = fromArray([fromDictionary(["k": .int(1)])])
        XCTAssertEqual(list(tree)?.count, 1)
        XCTAssertEqual(list(tree).flatMap { dictionary($0[0]) }?["k"], .int(1))
        _ = (position, key, every)
    }
}
