// RealmSwiftMisuseTests: misuse that RealmSwift rejects with an Objective-C exception stops the program here with
// RealmSwift's own message text, so the two read alike: listing the base class (`realm.objects(Object.self)`),
// using a class the configuration's `objectTypes` does not list (nor reach through links), modifying an object
// outside a write transaction, adding a deleted object or one of another Realm, and reading a custom persistable
// value that does not convert where nil is impossible. Each case runs in a child process (DeathTest.swift).

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class RealmSwiftMisuseTests: RealmTestCase, DeathCaseTable {
    static let deathCaseRunner = "ColumnarTests.RealmSwiftMisuseTests/testRunDeathCase"

    var deathCases: [String: () throws -> Void] {
        [
            "objects of the base class": {
                let realm = try self.openRealm()
                _ = realm.objects(Object.self).count
            },
            "objects of a class objectTypes does not list": {
                var configuration = self.configuration!
                configuration.objectTypes = [Dog.self]
                let realm = try Realm(configuration: configuration)
                _ = realm.objects(Toy.self).count
            },
            "adding a class objectTypes does not list": {
                var configuration = self.configuration!
                configuration.objectTypes = [Dog.self]
                let realm = try Realm(configuration: configuration)
                try realm.write { realm.add(Owner(value: ["name": "x"])) }
            },
            "adding a deleted object": {
                let realm = try self.openRealm()
                try realm.write {
                    let dog = realm.create(Dog.self, value: ["name": "Rex"])
                    realm.delete(dog)
                    realm.add(dog)
                }
            },
            "adding an object of another Realm": {
                let realm = try self.openRealm()
                let other = try Realm(fileURL: URL(fileURLWithPath: self.directory.file("other.realm")))
                let dog = try other.write { other.create(Dog.self, value: ["name": "Rex"]) }
                try realm.write { realm.add(dog) }
            },
            "reading a custom value that does not convert where nil is impossible": {
                let realm = try self.openRealm()
                let bookmark = try realm.write { realm.create(Bookmark.self, value: ["title": "x"]) }
                try realm.write { bookmark.home = WebLink(unchecked: "gopher://old") }
                _ = bookmark.home
            },
            "modifying outside a write": {
                let realm = try self.openRealm()
                let dog = try realm.write { realm.create(Dog.self, value: ["name": "Rex"]) }
                dog.name = "Max"
            },
        ]
    }

    func testRunDeathCase() throws {
        try runDeathCase()
    }

    func testClassesTheRealmDoesNotManageStopWithRealmSwiftsMessage() {
        assertStops("objects of the base class",
                    "Object type 'RealmSwiftObject' is not managed by the Realm. If using a custom `objectClasses` / "
                        + "`objectTypes` array in your configuration, add `RealmSwiftObject` to the list of "
                        + "`objectClasses` / `objectTypes`.")
        assertStops("objects of a class objectTypes does not list",
                    "Object type 'Toy' is not managed by the Realm. If using a custom `objectClasses` / "
                        + "`objectTypes` array in your configuration, add `Toy` to the list of `objectClasses` / "
                        + "`objectTypes`.")
        assertStops("adding a class objectTypes does not list", "Object type 'Owner' is not managed by the Realm.")
    }

    func testAddingADeletedOrForeignObjectStopsWithRealmSwiftsMessage() {
        assertStops("adding a deleted object", "Adding a deleted or invalidated object to a Realm is not permitted")
        assertStops("adding an object of another Realm",
                    "Object is already managed by another Realm. Use create instead to copy it into this Realm.")
    }

    func testACustomValueThatDoesNotConvertStopsWithRealmSwiftsMessage() {
        assertStops("reading a custom value that does not convert where nil is impossible",
                    "Failed to convert persisted value 'gopher://old' to type 'WebLink' in a non-optional context.")
    }

    func testModifyingOutsideAWriteStopsWithRealmSwiftsMessage() {
        assertStops("modifying outside a write",
                    "Attempting to modify object outside of a write transaction - call beginWriteTransaction on an "
                        + "RLMRealm instance first.")
    }

    /// Classes reached from the listed ones through links are managed too, as RealmSwift requires them listed.
    func testClassesReachedFromListedOnesAreManaged() throws {
        var configuration = self.configuration!
        configuration.objectTypes = [Pet.self]
        let realm = try Realm(configuration: configuration)
        try realm.write {
            let pet = realm.create(Pet.self, value: ["id": 1, "name": "Rex"])
            pet.owner = realm.create(Owner.self, value: ["name": "Ann"])
            pet.toys.append(realm.create(Toy.self, value: ["brand": "b"]))
        }
        XCTAssertEqual(realm.objects(Owner.self).count, 1)
        XCTAssertEqual(realm.objects(Toy.self).count, 1)
    }
}
