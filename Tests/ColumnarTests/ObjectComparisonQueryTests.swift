// ObjectComparisonQueryTests: an object compared with a link — `owner == %@` with an owner, `ANY friends == %@`,
// `owner IN %@` with an array or Results of owners, linking objects, and the typed builder's `$0.owner == owner`,
// `$0.friends.contains(owner)` and `$0.owner.in(…)`.
//
// The answers are compared with a plain Swift reference over the same objects, on a table of many clusters (the
// link column's kernel) and inside a write that adds objects (private clusters). An unmanaged object matches no
// link, as in RealmSwift. The refusals are RealmSwift's: a deleted or foreign object, or one of another class than
// the link's, is an error that names it.

import Columnar
import ColumnarTestSupport
import Foundation
import QueryVM
import XCTest

final class ObjectComparisonQueryTests: RealmTestCase {
    private static let ownerCount = 12
    private static let itemCount = 3_000

    /// Owners 1 … ownerCount; items whose owner is random or nil (one in four) and whose friends are 0 … 4 random
    /// owners, repeats allowed.
    private func populated(seed: UInt64 = 0x0B1E_C7) throws -> Realm {
        var generator = SeededGenerator(seed: seed)
        let realm = try openRealm()
        try realm.write {
            var owners: [QDOwner] = []
            for id in 1 ... Self.ownerCount {
                let owner = QDOwner()
                owner.id = id
                owner.age = id * 5
                realm.add(owner)
                owners.append(owner)
            }
            for id in 1 ... Self.itemCount {
                let item = QDItem()
                item.id = id
                item.int = Int.random(in: 0 ..< 10, using: &generator)
                item.owner = Int.random(in: 0 ..< 4, using: &generator) == 0 ? nil : owners.randomElement(using: &generator)
                for _ in 0 ..< Int.random(in: 0 ... 4, using: &generator) {
                    item.friends.append(owners.randomElement(using: &generator)!)
                }
                realm.add(item)
            }
        }
        return realm
    }

    private func owner(_ realm: Realm, _ id: Int) -> QDOwner {
        realm.object(ofType: QDOwner.self, forPrimaryKey: id)!
    }

    /// The ids of the items a query selects, and of those the reference selects, as sets.
    private func assertSameItems(_ results: Results<QDItem>, _ realm: Realm, _ what: String,
                                 file: StaticString = #filePath, line: UInt = #line,
                                 where isIncluded: (QDItem) -> Bool) {
        let expected = Set(realm.objects(QDItem.self).filter(isIncluded).map(\.id))
        let actual = results.map(\.id)
        XCTAssertEqual(actual.count, Set(actual).count, "\(what): an item twice", file: file, line: line)
        let extra = Set(actual).subtracting(expected).sorted(), missing = expected.subtracting(actual).sorted()
        XCTAssertTrue(extra.isEmpty && missing.isEmpty, "\(what): \(extra.count) extra items (first: "
                      + "\(extra.prefix(5))), \(missing.count) missing (first: \(missing.prefix(5)))", file: file, line: line)
        XCTAssertFalse(expected.isEmpty && what.contains("=="), "\(what): the data should hold matches", file: file, line: line)
    }

    // MARK: Answers

    func testLinkComparedWithAnObjectMatchesWhatTheLinkPointsTo() throws {
        let realm = try populated()
        let items = realm.objects(QDItem.self)
        for id in [1, 7, 12] {
            let target = owner(realm, id)
            assertSameItems(items.filter("owner == %@", target), realm, "owner == \(id)") { $0.owner?.id == id }
            assertSameItems(items.filter("owner != %@", target), realm, "owner != \(id)") { $0.owner?.id != id }
            assertSameItems(items.filter("%@ == owner", target), realm, "\(id) == owner") { $0.owner?.id == id }
            assertSameItems(items.filter("int > 4 AND owner == %@", target), realm, "int > 4 AND owner == \(id)") {
                $0.int > 4 && $0.owner?.id == id
            }
            assertSameItems(items.filter("ANY friends == %@", target), realm, "ANY friends == \(id)") {
                $0.friends.contains { $0.id == id }
            }
            assertSameItems(items.filter("%@ IN friends", target), realm, "\(id) IN friends") {
                $0.friends.contains { $0.id == id }
            }
            assertSameItems(items.filter("NONE friends == %@", target), realm, "NONE friends == \(id)") {
                !$0.friends.contains { $0.id == id }
            }
            assertSameItems(items.filter("ALL friends == %@", target), realm, "ALL friends == \(id)") {
                $0.friends.allSatisfy { $0.id == id }
            }
            // The typed builder gives the same answers.
            assertSameItems(items.where { $0.owner == target }, realm, "typed owner == \(id)") { $0.owner?.id == id }
            assertSameItems(items.where { $0.owner != target }, realm, "typed owner != \(id)") { $0.owner?.id != id }
            assertSameItems(items.where { $0.friends.contains(target) }, realm, "typed friends.contains(\(id))") {
                $0.friends.contains { $0.id == id }
            }
            assertSameItems(items.where { $0.friends == target }, realm, "typed friends == \(id)") {
                $0.friends.contains { $0.id == id }
            }
        }
    }

    func testInTakesArraysAndResultsOfObjects() throws {
        let realm = try populated()
        let items = realm.objects(QDItem.self)
        let chosen = [owner(realm, 2), owner(realm, 5), owner(realm, 11)]
        let chosenIds: Set<Int> = [2, 5, 11]
        assertSameItems(items.filter("owner IN %@", chosen), realm, "owner IN array") {
            $0.owner.map { chosenIds.contains($0.id) } ?? false
        }
        let older = realm.objects(QDOwner.self).filter("age > 40")   // ids 9 … 12
        assertSameItems(items.filter("owner IN %@", older), realm, "owner IN Results") {
            ($0.owner?.id ?? 0) > 8
        }
        assertSameItems(items.filter("ANY friends IN %@", chosen), realm, "ANY friends IN array") {
            $0.friends.contains { chosenIds.contains($0.id) }
        }
        assertSameItems(items.where { $0.owner.in(chosen.map { Optional($0) }) }, realm, "typed owner.in") {
            $0.owner.map { chosenIds.contains($0.id) } ?? false
        }
        assertSameItems(items.where { $0.friends.containsAny(in: chosen) }, realm, "typed friends.containsAny") {
            $0.friends.contains { chosenIds.contains($0.id) }
        }
        assertSameItems(items.filter("owner IN %@", [QDOwner]()), realm, "owner IN no objects") { _ in false }
    }

    func testLinkingObjectsAndCollectionsOfObjectsCompareTheirElements() throws {
        let realm = try populated()
        let item = realm.object(ofType: QDItem.self, forPrimaryKey: 40)!
        let friendIds = Set(item.friends.map(\.id))
        // From the other side: the owner of the item, and the owners in its friends list.
        let owners = realm.objects(QDOwner.self)
        XCTAssertEqual(Set(owners.filter("ANY items == %@", item).map(\.id)), Set([item.owner?.id].compactMap { $0 }))
        XCTAssertEqual(Set(owners.filter("ANY fans == %@", item).map(\.id)), friendIds)
        XCTAssertEqual(Set(owners.where { $0.fans.contains(item) }.map(\.id)), friendIds)
        // A List's own filter and a LinkingObjects' filter.
        let target = owner(realm, 3)
        let ownedBy3 = target.items
        XCTAssertEqual(Set(ownedBy3.filter("owner == %@", target).map(\.id)), Set(ownedBy3.map(\.id)))
        XCTAssertEqual(ownedBy3.filter("owner != %@", target).count, 0)
        XCTAssertEqual(Array(item.friends.filter("ANY fans == %@", item).map(\.id)), item.friends.map(\.id))
    }

    func testInsideAWriteNewObjectsAndNewLinksAreCompared() throws {
        let realm = try populated()
        try realm.write {
            let newcomer = QDOwner()
            newcomer.id = 100
            realm.add(newcomer)
            let old = owner(realm, 4)
            for item in realm.objects(QDItem.self).filter("owner == %@", old) where item.id % 2 == 0 {
                item.owner = newcomer
            }
            let added = QDItem()
            added.id = 10_000
            added.owner = newcomer
            added.friends.append(newcomer)
            realm.add(added)
            let items = realm.objects(QDItem.self)
            assertSameItems(items.filter("owner == %@", newcomer), realm, "owner == newcomer") { $0.owner?.id == 100 }
            assertSameItems(items.filter("owner == %@", old), realm, "owner == 4 after moving") { $0.owner?.id == 4 }
            assertSameItems(items.filter("ANY friends == %@", newcomer), realm, "ANY friends == newcomer") {
                $0.friends.contains { $0.id == 100 }
            }
            realm.cancelWrite()
        }
        let items = realm.objects(QDItem.self)
        assertSameItems(items.filter("owner == %@", owner(realm, 4)), realm, "owner == 4 after the cancel") {
            $0.owner?.id == 4
        }
    }

    func testALinkComparisonRunsOnTheLinkColumnsKernel() throws {
        let realm = try populated()
        let program = realm.objects(QDItem.self).filter("owner == %@", owner(realm, 1)).explain()
        XCTAssertTrue(program.contains("CmpInt"), program)
        XCTAssertTrue(program.contains("owner == object"), program)
    }

    // MARK: Refusals

    private func assertRefused(_ message: String, file: StaticString = #filePath, line: UInt = #line,
                               _ body: () throws -> Any) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(message), "\(error)", file: file, line: line)
        }
    }

    /// RealmSwift: comparing a link or a list with an object that was never added matches nothing (and `!=`
    /// everything, nil links included), in predicate strings and typed queries alike, instead of an error.
    func testAnUnmanagedObjectMatchesNoLink() throws {
        let realm = try populated()
        let items = realm.objects(QDItem.self)
        let stranger = QDOwner()
        XCTAssertEqual(try items.filter(checking: "owner == %@", stranger).count, 0)
        XCTAssertEqual(try items.filter(checking: "owner != %@", stranger).count, items.count)
        XCTAssertEqual(try items.filter(checking: "ANY friends == %@", stranger).count, 0)
        XCTAssertEqual(try items.filter(checking: "%@ IN friends", stranger).count, 0)
        XCTAssertEqual(try items.filter(checking: "owner IN %@", [stranger]).count, 0)
        let one = owner(realm, 1)
        XCTAssertEqual(try items.filter(checking: "owner IN %@", [stranger, one]).count,
                       items.filter { $0.owner?.id == 1 }.count)
        XCTAssertEqual(items.where { $0.owner == stranger }.count, 0)
        XCTAssertEqual(items.where { $0.friends.contains(stranger) }.count, 0)
        XCTAssertEqual(items.where { !($0.owner == stranger) }.count, items.count)
    }

    func testObjectsThatCannotMatchAreRefusedWithAMessage() throws {
        let realm = try populated()
        let items = realm.objects(QDItem.self)
        assertRefused("links QDOwner objects, but the value is a QSDog object") {
            try items.filter(checking: "owner == %@", QSDog())
        }
        assertRefused("cannot order") { try items.filter(checking: "owner > %@", self.owner(realm, 1)) }
        assertRefused("but the value") { try items.filter(checking: "int == %@", self.owner(realm, 1)) }

        let doomed = owner(realm, 6)
        try realm.write { realm.delete(doomed) }
        assertRefused("has been deleted or invalidated") { try items.filter(checking: "owner == %@", doomed) }
        assertRefused("has been deleted or invalidated") { try items.filter(checking: "owner IN %@", [doomed]) }

        var elsewhere = configuration!
        elsewhere.fileURL = URL(fileURLWithPath: directory.file("other.realm"))
        let other = try Realm(configuration: elsewhere)
        let foreign = QDOwner()
        foreign.id = 1
        try other.write { other.add(foreign) }
        assertRefused("belongs to another Realm") { try items.filter(checking: "owner == %@", foreign) }
        // The same file opened again shares its keys: its objects are this Realm's objects.
        XCTAssertEqual(try items.filter(checking: "owner == %@", owner(try openRealm(), 1)).count,
                       items.filter { $0.owner?.id == 1 }.count)
    }

    // MARK: Canonical text

    func testTheObjectKeyLiteralPrintsAndParsesBack() throws {
        let parsed = try PredicateParser.parse("owner == objkey(QDOwner, 5) OR ANY friends == objkey( QDOwner ,0 )")
        XCTAssertEqual(parsed.description, "(owner == objkey(QDOwner, 5) OR ANY friends == objkey(QDOwner, 0))")
        XCTAssertEqual(try PredicateParser.parse(parsed.description).description, parsed.description)
        for malformed in ["owner == objkey(QDOwner)", "owner == objkey(QDOwner, -1)", "owner == objkey(1x, 2)",
                          "owner == objkey(QDOwner, unmanaged)", "owner == objkey(QDOwner, 5"] {
            XCTAssertThrowsError(try PredicateParser.parse(malformed), malformed) { error in
                XCTAssertTrue("\(error)".contains("objkey") || "\(error)".contains("')'"), "\(malformed): \(error)")
            }
        }
        // A literal key runs on the database it is given to.
        let realm = try populated()
        let items = realm.objects(QDItem.self)
        let typedText = "\(try PredicateParser.parse("owner == %@", arguments: [owner(realm, 2)]))"
        XCTAssertTrue(typedText.hasPrefix("owner == objkey(QDOwner, "), typedText)
        XCTAssertEqual(Set(try items.filter(checking: typedText).map(\.id)),
                       Set(items.filter { $0.owner?.id == 2 }.map(\.id)))
        assertRefused("links QDOwner objects, but the value is a QSPerson object") {
            try items.filter(checking: "owner == objkey(QSPerson, 1)")
        }
    }
}
