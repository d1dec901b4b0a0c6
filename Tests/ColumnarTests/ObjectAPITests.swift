// ObjectAPITests: configuration rules, data written by another process, Codable models, enums, thread
// confinement of schema, and the documented description formats.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

enum Size: String, PersistableEnum, Codable {
    case small, medium, large
}

final class Parcel: Object, Codable {
    @Persisted(primaryKey: true) var code: String
    @Persisted var weight: Double
    @Persisted var size: Size
    @Persisted var note: String?
    @Persisted var tags: List<String>
}

final class ObjectAPITests: RealmTestCase {
    func testFileURLAndInMemoryIdentifierClearEachOther() {
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: directory.file("a.realm")))
        configuration.inMemoryIdentifier = "memory"
        XCTAssertNil(configuration.fileURL)
        configuration.fileURL = URL(fileURLWithPath: directory.file("b.realm"))
        XCTAssertNil(configuration.inMemoryIdentifier)
        XCTAssertEqual(configuration.fileURL?.lastPathComponent, "b.realm")
    }

    func testDataWrittenByAnotherProcessIsReadBack() throws {
        let path = directory.file("shared.realm")
        try WorkerProcess(["realm-write", path]).waitForSuccess()
        let realm = try Realm(fileURL: URL(fileURLWithPath: path))
        let people = realm.objects(Person.self)
        XCTAssertEqual(people.count, 1)
        XCTAssertEqual(people.first?.name, "Jane")
        XCTAssertEqual(people.first?.picture, Data([1, 2, 3]))
        XCTAssertEqual(people.first?.dogs.map(\.name), ["Rex", "Fido", "Spot"])
        XCTAssertEqual(realm.objects(Dog.self).map(\.age).sorted(), [1, 3, 5])
    }

    func testEnumsAreStoredByRawValue() throws {
        let realm = try openRealm()
        let parcel = Parcel(value: ["code": "P1", "weight": 2.5, "size": Size.large])
        XCTAssertEqual(Parcel().size, .small, "an enum property starts at its first case")
        try realm.write { realm.add(parcel) }
        XCTAssertEqual(realm.object(ofType: Parcel.self, forPrimaryKey: "P1")?.size, .large)
        try realm.write { parcel.size = .medium }
        XCTAssertEqual(realm.objects(Parcel.self).first?.size, .medium)
    }

    func testCodableModelsRoundTripUnmanagedAndEncodeManagedValues() throws {
        let json = #"{"code":"P9","weight":1.5,"size":"medium","tags":["fragile","urgent"]}"#
        let parcel = try JSONDecoder().decode(Parcel.self, from: Data(json.utf8))
        XCTAssertEqual(parcel.code, "P9")
        XCTAssertEqual(parcel.size, .medium)
        XCTAssertNil(parcel.note, "a key missing from the input keeps the default")
        XCTAssertEqual(Array(parcel.tags), ["fragile", "urgent"])

        let realm = try openRealm()
        try realm.write { realm.add(parcel) }
        try realm.write { parcel.weight = 3 }
        let managed = realm.object(ofType: Parcel.self, forPrimaryKey: "P9")!
        let encoded = try JSONDecoder().decode([String: AnyDecodable].self, from: JSONEncoder().encode(managed))
        XCTAssertEqual(encoded["weight"]?.value as? Double, 3, "a managed object encodes its stored values")
        XCTAssertEqual(encoded["tags"]?.value as? [String], ["fragile", "urgent"])
    }

    func testSchemaDescribesTheModelClasses() throws {
        let realm = try openRealm()
        try realm.write { realm.add(Pet(value: ["id": 1, "name": "Rex", "age": 2])) }
        let schema = try XCTUnwrap(realm.schema["Pet"])
        XCTAssertEqual(schema.properties.map(\.name), ["id", "name", "age", "owner", "toys"])
        XCTAssertEqual(schema.primaryKeyProperty?.name, "id")
        XCTAssertTrue(schema["age"]!.isIndexed)
        XCTAssertEqual(schema["owner"]?.type, .object)
        XCTAssertEqual(schema["owner"]?.objectClassName, "Owner")
        XCTAssertTrue(schema["owner"]!.isOptional)
        XCTAssertTrue(schema["toys"]!.isArray)
        XCTAssertNotNil(realm.schema["Toy"], "classes reached through links are part of the schema")
        let pet = realm.objects(Pet.self)[0]
        XCTAssertTrue(pet.description.hasPrefix("Pet {"), pet.description)
        XCTAssertTrue(pet.description.contains("name = Rex;"), pet.description)
    }

    func testReadOnlyRealmReadsButRefusesNothingItCannotDo() throws {
        let realm = try openRealm()
        try realm.write { realm.add(Dog(value: ["name": "Rex", "age": 1])) }
        let path = configuration.fileURL!
        let result = Locked<Result<[String], Error>>(.success([]))
        runOnThreads(1) { _ in
            result.withLock {
                $0 = Result {
                    let readOnly = try Realm(configuration: Realm.Configuration(fileURL: path, readOnly: true))
                    return readOnly.objects(Dog.self).map(\.name) + readOnly.objects(Toy.self).map(\.brand)
                }
            }
        }
        XCTAssertEqual(try result.value.get(), ["Rex"], "a class absent from a read-only file has no objects")
    }

    func testRefreshSeesCommitsOfAnotherThread() throws {
        let realm = try openRealm()
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
        let path = configuration.fileURL!
        runOnThreads(1) { _ in
            let other = try! Realm(fileURL: path)
            try! other.write { other.add(Dog(value: ["name": "Other", "age": 9])) }
        }
        XCTAssertEqual(realm.objects(Dog.self).count, 0, "a read transaction keeps its version until refresh")
        XCTAssertTrue(realm.refresh())
        XCTAssertEqual(realm.objects(Dog.self).first?.name, "Other")
    }

    /// Objects with ascending int primary keys take them as their keys inside the engine. What a user sees must
    /// not change: a held object whose id is deleted and created again stays invalidated, lookups find the
    /// object that holds the id (also after its id would have named another object's key), and unsorted results
    /// list objects in creation order whatever their ids.
    func testPrimaryKeysDeletedAndCreatedAgainAndResultsInCreationOrder() throws {
        let realm = try openRealm()
        let ids = [5, 6, 2, 100, 7, -3, 101]
        try realm.write {
            for id in ids { realm.add(Pet(value: ["id": id, "name": "pet \(id)", "age": id])) }
        }
        XCTAssertEqual(realm.objects(Pet.self).map(\.id), ids, "unsorted results keep creation order")
        let held = try XCTUnwrap(realm.object(ofType: Pet.self, forPrimaryKey: 6))
        try realm.write { realm.delete(held) }
        XCTAssertTrue(held.isInvalidated)
        try realm.write { realm.add(Pet(value: ["id": 6, "name": "again", "age": 1])) }
        XCTAssertTrue(held.isInvalidated, "a deleted object does not come back when its id is created again")
        XCTAssertEqual(realm.object(ofType: Pet.self, forPrimaryKey: 6)?.name, "again")
        XCTAssertEqual(realm.objects(Pet.self).map(\.id), [5, 2, 100, 7, -3, 101, 6])
        for id in ids {
            XCTAssertEqual(realm.object(ofType: Pet.self, forPrimaryKey: id)?.age, id == 6 ? 1 : id, "id \(id)")
        }
        for absent in [0, 1, 3, 8, 102, -1] {
            XCTAssertNil(realm.object(ofType: Pet.self, forPrimaryKey: absent), "id \(absent)")
        }
    }
}

/// Decodes any JSON value (for inspecting encoded objects).
struct AnyDecodable: Decodable {
    let value: Any

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let double = try? container.decode(Double.self) { value = double }
        else if let string = try? container.decode(String.self) { value = string }
        else if let strings = try? container.decode([String].self) { value = strings }
        else if container.decodeNil() { value = Optional<Int>.none as Any }
        else { value = "unsupported" }
    }
}
