// ObjectEqualityTests: `==` and `hash` as RealmSwift defines them. Objects of a class with a primary key, and
// objects of a frozen Realm, are equal when they are the same stored object; any other object is equal only to
// itself (the same instance), while `isSameObject(as:)` compares stored objects for every class.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class ObjectEqualityTests: RealmTestCase {
    func testObjectsWithoutAPrimaryKeyAreEqualOnlyToThemselves() throws {
        let realm = try openRealm()
        try realm.write { realm.add(Dog(value: ["name": "Rex", "age": 3])) }
        let first = try XCTUnwrap(realm.objects(Dog.self).first)
        let again = try XCTUnwrap(realm.objects(Dog.self).first)
        XCTAssertFalse(first === again, "two accessors of one stored object")
        XCTAssertTrue(first.isSameObject(as: again))
        XCTAssertNotEqual(first, again, "RealmSwift compares instances for classes without a primary key")
        XCTAssertEqual(first, first)
        XCTAssertEqual(Set([first, again, first]).count, 2)
        XCTAssertNotEqual(Dog(value: ["name": "Rex", "age": 3]), Dog(value: ["name": "Rex", "age": 3]),
                          "unmanaged objects with equal values are not equal")
    }

    func testObjectsWithAPrimaryKeyAreEqualWhenTheyAreTheSameStoredObject() throws {
        let realm = try openRealm()
        try realm.write {
            realm.add(Pet(value: ["id": 1, "name": "Rex"]))
            realm.add(Pet(value: ["id": 2, "name": "Rex"]))
        }
        let byKey = try XCTUnwrap(realm.object(ofType: Pet.self, forPrimaryKey: 1))
        let byQuery = try XCTUnwrap(realm.objects(Pet.self).filter("name == 'Rex'").sorted(byKeyPath: "id").first)
        let other = try XCTUnwrap(realm.object(ofType: Pet.self, forPrimaryKey: 2))
        XCTAssertEqual(byKey, byQuery)
        XCTAssertEqual(byKey.hashValue, byQuery.hashValue)
        XCTAssertNotEqual(byKey, other, "equal values, different stored objects")
        XCTAssertEqual(Set([byKey, byQuery, other]).count, 2)
    }

    func testObjectsOfAFrozenRealmAreEqualWhenTheyAreTheSameStoredObject() throws {
        let realm = try openRealm()
        try realm.write { realm.add(Dog(value: ["name": "Rex", "age": 3])) }
        let frozen = realm.freeze()
        let first = try XCTUnwrap(frozen.objects(Dog.self).first)
        let again = try XCTUnwrap(frozen.objects(Dog.self).first)
        XCTAssertEqual(first, again)
        XCTAssertEqual(first.hashValue, again.hashValue)
        XCTAssertNotEqual(try XCTUnwrap(realm.objects(Dog.self).first), first, "a live object and a frozen one")
    }
}
