// EmbeddedObjectTests: embedded objects are owned by one parent — created with it, deleted with it, deleted when
// replaced or removed from its list, and never given a second parent.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class Address: EmbeddedObject {
    @Persisted var street = ""
    @Persisted var city = ""
}

final class Contact: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var address: Address?
    @Persisted var previousAddresses: List<Address>
}

/// Embedded objects held by a map (a set cannot hold them).
final class AddressBook: Object {
    @Persisted var owner = ""
    @Persisted var entries: Map<String, Address?>
}

final class EmbeddedObjectTests: RealmTestCase {
    private static let runner = "ColumnarTests.EmbeddedObjectTests/testRunDeathCase"

    private func makeContact(_ realm: Realm) throws -> Contact {
        let contact = Contact(value: ["id": 1, "name": "Ann"])
        contact.address = Address(value: ["street": "1 Main St", "city": "Springfield"])
        contact.previousAddresses.append(Address(value: ["street": "2 Elm St", "city": "Shelbyville"]))
        contact.previousAddresses.append(Address(value: ["street": "3 Oak St", "city": "Ogdenville"]))
        try realm.write { realm.add(contact) }
        return contact
    }

    func testEmbeddedObjectsAreStoredWithTheirParent() throws {
        let realm = try openRealm()
        let contact = try makeContact(realm)
        XCTAssertEqual(contact.address?.street, "1 Main St")
        XCTAssertEqual(contact.address?.realm, realm)
        XCTAssertEqual(contact.previousAddresses.map(\.city), ["Shelbyville", "Ogdenville"])
        XCTAssertTrue(realm.schema["Address"]!.isEmbedded)
        try realm.write { contact.address?.city = "Capital City" }
        XCTAssertEqual(realm.object(ofType: Contact.self, forPrimaryKey: 1)?.address?.city, "Capital City")
        XCTAssertEqual(contact.address?["street"] as? String, "1 Main St")
    }

    func testReplacingOrRemovingAnEmbeddedObjectDeletesIt() throws {
        let realm = try openRealm()
        let contact = try makeContact(realm)
        let original = contact.address!
        try realm.write { contact.address = Address(value: ["street": "9 New Rd", "city": "Springfield"]) }
        XCTAssertTrue(original.isInvalidated, "the replaced address is deleted")
        XCTAssertEqual(contact.address?.street, "9 New Rd")

        let first = contact.previousAddresses[0]
        try realm.write { contact.previousAddresses.remove(at: 0) }
        XCTAssertTrue(first.isInvalidated, "an address removed from the list is deleted")

        let second = contact.previousAddresses[0]
        try realm.write { contact.previousAddresses.removeAll() }
        XCTAssertTrue(second.isInvalidated)

        let current = contact.address!
        try realm.write { contact.address = nil }
        XCTAssertTrue(current.isInvalidated, "clearing the link deletes the address")
    }

    func testDeletingTheParentDeletesItsEmbeddedObjects() throws {
        let realm = try openRealm()
        let contact = try makeContact(realm)
        let owned = [contact.address!] + Array(contact.previousAddresses)
        try realm.write { realm.delete(contact) }
        XCTAssertTrue(owned.allSatisfy(\.isInvalidated))
    }

    func testSwappingAndReassigningAListKeepsItsEmbeddedObjects() throws {
        let realm = try openRealm()
        let contact = try makeContact(realm)
        try realm.write { contact.previousAddresses.swapAt(0, 1) }
        XCTAssertEqual(contact.previousAddresses.map(\.street), ["3 Oak St", "2 Elm St"])
        try realm.write { contact.previousAddresses = contact.previousAddresses }
        XCTAssertEqual(contact.previousAddresses.map(\.street), ["3 Oak St", "2 Elm St"])
    }

    func testAManagedEmbeddedObjectCannotGetASecondParent() {
        assertStops("second parent", runnerTest: Self.runner, message: "existing managed embedded object")
        assertStops("second parent through a map", runnerTest: Self.runner,
                    message: "existing managed embedded object")
    }

    private func makeAddressBook(_ realm: Realm) throws -> AddressBook {
        let book = AddressBook(value: ["owner": "Ann"])
        book.entries["home"] = Address(value: ["street": "1 Main St", "city": "Springfield"])
        book.entries["work"] = Address(value: ["street": "5 Plant Rd", "city": "Springfield"])
        book.entries["none"] = .some(nil)
        try realm.write { realm.add(book) }
        return book
    }

    func testAMapOwnsItsEmbeddedObjects() throws {
        let realm = try openRealm()
        let book = try makeAddressBook(realm)
        XCTAssertEqual(book.entries.keys, ["home", "none", "work"])
        XCTAssertEqual(book.entries["home"]??.street, "1 Main St")
        XCTAssertEqual(book.entries["home"]??.realm, realm)
        XCTAssertNil(book.entries["none"]!)
        XCTAssertEqual(realm.objects(AddressBook.self).filter("entries['work'].street == %@", "5 Plant Rd").count, 1)
        XCTAssertEqual(realm.objects(AddressBook.self).filter("ANY entries.city == 'Shelbyville'").count, 0)
        try realm.write { book.entries["home"]??.city = "Capital City" }
        XCTAssertEqual(realm.objects(AddressBook.self).first?.entries["home"]??.city, "Capital City")

        let home = book.entries["home"]!!
        try realm.write { book.entries["home"] = Address(value: ["street": "9 New Rd"]) }
        XCTAssertTrue(home.isInvalidated, "a replaced value is deleted")
        XCTAssertEqual(book.entries["home"]??.street, "9 New Rd")

        let work = book.entries["work"]!!
        try realm.write { book.entries.removeObject(for: "work") }
        XCTAssertTrue(work.isInvalidated, "a removed value is deleted")

        let newHome = book.entries["home"]!!
        try realm.write { book.entries.updateValue(nil, forKey: "home") }
        XCTAssertTrue(newHome.isInvalidated, "a value replaced by nil is deleted")
        XCTAssertEqual(book.entries.count, 2)

        try realm.write { book.entries["x"] = Address(value: ["street": "x"]) }
        let x = book.entries["x"]!!
        try realm.write { book.entries.removeAll() }
        XCTAssertTrue(x.isInvalidated)
        XCTAssertEqual(book.entries.count, 0)
    }

    func testDeletingTheParentDeletesTheEmbeddedObjectsOfItsMap() throws {
        let realm = try openRealm()
        let book = try makeAddressBook(realm)
        let owned = book.entries.values.compactMap { $0 }
        XCTAssertEqual(owned.count, 2)
        try realm.write { realm.delete(book) }
        XCTAssertTrue(owned.allSatisfy(\.isInvalidated))
    }

    func testReassigningAMapKeepsItsEmbeddedObjects() throws {
        let realm = try openRealm()
        let book = try makeAddressBook(realm)
        try realm.write { book.entries = book.entries }
        XCTAssertEqual(book.entries.keys, ["home", "none", "work"])
        XCTAssertEqual(book.entries["work"]??.street, "5 Plant Rd")
        let other = AddressBook(value: ["owner": "Bob"])
        try realm.write {
            realm.add(other)
            other.entries = book.entries   // copies: the embedded objects stay with their first parent
        }
        XCTAssertEqual(other.entries["home"]??.street, "1 Main St")
        try realm.write { other.entries["home"]??.street = "changed in the copy" }
        XCTAssertEqual(book.entries["home"]??.street, "1 Main St")
    }

    /// Performs a death case in a child process (does nothing in an ordinary run).
    func testRunDeathCase() throws {
        if currentDeathCase == "second parent through a map" {
            let realm = try openRealm()
            let book = try makeAddressBook(realm)
            let other = AddressBook(value: ["owner": "Bob"])
            try realm.write {
                realm.add(other)
                other.entries["stolen"] = book.entries["home"]!
            }
            return
        }
        guard currentDeathCase == "second parent" else { return }
        let realm = try openRealm()
        let contact = try makeContact(realm)
        let other = Contact(value: ["id": 2])
        try realm.write {
            realm.add(other)
            other.address = contact.address
        }
    }
}
