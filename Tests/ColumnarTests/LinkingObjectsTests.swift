// LinkingObjectsTests: the inverse side of links — through a link, a list, a set and a map; live as links change;
// empty for unmanaged objects; in the schema, descriptions and across reopening.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class LinkingObjectsTests: RealmTestCase {
    func testUnmanagedObjectHasNoLinkingObjects() {
        let dog = KennelDog(value: ["name": "Rex"])
        let kennel = Kennel(value: ["name": "A"])
        kennel.dogs.append(dog)
        kennel.favorite = dog
        let kennels = dog.kennels
        XCTAssertEqual(kennels.count, 0)
        XCTAssertTrue(kennels.isEmpty)
        XCTAssertNil(kennels.first)
        XCTAssertNil(kennels.last)
        XCTAssertNil(kennels.realm)
        XCTAssertFalse(kennels.isInvalidated)
        XCTAssertNil(kennels.index(of: kennel))
        XCTAssertEqual(kennels.objectClassName, "Kennel")
        XCTAssertEqual(Array(dog.fans), [])
        XCTAssertEqual(kennels.description, "LinkingObjects<Kennel> <0 elements> (\n\n)")
    }

    func testLinkingObjectsOfEachKindOfLink() throws {
        let realm = try openRealm()
        let rex = KennelDog(value: ["name": "Rex"])
        let fido = KennelDog(value: ["name": "Fido"])
        let first = Kennel(value: ["name": "First"])
        first.dogs.append(rex)
        first.favorite = rex
        let second = Kennel(value: ["name": "Second"])
        second.dogs.append(objectsIn: [fido, rex])
        second.dogSet.insert(rex)
        second.dogsByName["rex"] = rex
        second.dogsByName["also rex"] = rex
        try realm.write {
            realm.add(first)
            realm.add(second)
        }
        XCTAssertEqual(rex.kennels.map(\.name), ["First", "Second"])
        XCTAssertEqual(rex.kennels.count, 2)
        XCTAssertEqual(rex.kennels.first?.name, "First")
        XCTAssertEqual(rex.kennels.last?.name, "Second")
        XCTAssertTrue(rex.kennels[1].isSameObject(as: second), "Kennel has no primary key: compared by isSameObject")
        XCTAssertEqual(rex.kennels.index(of: second), 1)
        XCTAssertNil(rex.kennels.index(of: Kennel()))
        XCTAssertEqual(rex.kennels.realm, realm)
        XCTAssertFalse(rex.kennels.isInvalidated)
        XCTAssertEqual(rex.fans.map(\.name), ["First"])
        XCTAssertEqual(rex.setKennels.map(\.name), ["Second"])
        XCTAssertEqual(rex.namingKennels.map(\.name), ["Second", "Second"], "one entry per link")
        XCTAssertEqual(fido.kennels.map(\.name), ["Second"])
        XCTAssertTrue(fido.fans.isEmpty)
        XCTAssertTrue(fido.setKennels.isEmpty)
    }

    func testLinkingObjectsAreLive() throws {
        let realm = try openRealm()
        let rex = KennelDog(value: ["name": "Rex"])
        let first = Kennel(value: ["name": "First"])
        let second = Kennel(value: ["name": "Second"])
        try realm.write {
            realm.add(rex)
            realm.add(first)
            realm.add(second)
        }
        let kennels = rex.kennels
        XCTAssertTrue(kennels.isEmpty)
        try realm.write {
            second.dogs.append(rex)
            first.dogs.append(rex)
            first.favorite = rex
        }
        XCTAssertEqual(kennels.map(\.name), ["Second", "First"], "in the order the links were made")
        XCTAssertEqual(rex.fans.count, 1)
        try realm.write {
            second.dogs.removeAll()
            first.favorite = nil
        }
        XCTAssertEqual(kennels.map(\.name), ["First"])
        XCTAssertTrue(rex.fans.isEmpty)
        try realm.write { realm.delete(first) }
        XCTAssertTrue(kennels.isEmpty, "a deleted origin no longer links")
        try realm.write { realm.delete(rex) }
        XCTAssertTrue(kennels.isInvalidated)
    }

    func testLinkingObjectsInSchemaDescriptionAndSubscript() throws {
        let realm = try openRealm()
        let rex = KennelDog(value: ["Rex"])   // an array of values skips linking-objects properties
        let kennel = Kennel(value: ["name": "First"])
        kennel.dogs.append(rex)
        try realm.write { realm.add(kennel) }

        let property = try XCTUnwrap(rex.objectSchema["kennels"])
        XCTAssertEqual(property.type, .linkingObjects)
        XCTAssertEqual(property.objectClassName, "Kennel")
        XCTAssertEqual(property.linkOriginPropertyName, "dogs")
        XCTAssertEqual(rex.objectSchema["fans"]?.linkOriginPropertyName, "favorite")

        let bySubscript = try XCTUnwrap(rex["kennels"] as? LinkingObjects<Kennel>)
        XCTAssertEqual(bySubscript.map(\.name), ["First"])
        XCTAssertEqual((rex["fans"] as? LinkingObjects<Kennel>)?.count, 0)
        XCTAssertTrue(rex.description.contains("kennels = LinkingObjects<Kennel> <1 elements> ("), rex.description)
        XCTAssertTrue(rex.description.contains("fans = LinkingObjects<Kennel> <0 elements> ("), rex.description)
        XCTAssertTrue(rex.description.contains("<Maximum depth exceeded>"),
                      "the cycle dog -> kennels -> dogs -> dog ... ends at RealmSwift's depth limit")
    }

    func testLinkingObjectsSurviveReopening() throws {
        let realm = try openRealm()
        let rex = KennelDog(value: ["name": "Rex"])
        let kennel = Kennel(value: ["name": "First"])
        kennel.dogSet.insert(rex)
        kennel.dogsByName["r"] = rex
        try realm.write { realm.add(kennel) }
        let url = configuration.fileURL!
        let reread = Locked<Result<[[String]], Error>>(.success([]))
        runOnThreads(1) { _ in
            reread.withLock { result in
                result = Result {
                    let dog = try Realm(fileURL: url).objects(KennelDog.self)[0]
                    return [dog.setKennels.map(\.name), dog.namingKennels.map(\.name), dog.kennels.map(\.name)]
                }
            }
        }
        XCTAssertEqual(try reread.value.get(), [["First"], ["First"], []])
    }
}
