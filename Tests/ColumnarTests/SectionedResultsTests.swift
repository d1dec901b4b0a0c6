// SectionedResultsTests: `sectioned(by:)` and `sectioned(sortDescriptors:_:)` (RealmSectionedResult reference) give
// the sorted results divided into sections, checked against the same grouping computed in plain Swift over random
// data; the sections are live (they follow writes, including those of the open write transaction); indexing by
// position and by index path; the three forms on Results and on a List.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class SectionedResultsTests: RealmTestCase {
    /// Plain-Swift sections: keys in order of first appearance in `sorted`, each with its elements in order.
    private func expectedSections<Key: Hashable>(_ sorted: [Pet], _ key: (Pet) -> Key) -> [(Key, [Int])] {
        var order: [Key] = []
        var groups: [Key: [Int]] = [:]
        for pet in sorted {
            let k = key(pet)
            if groups[k] == nil { order.append(k) }
            groups[k, default: []].append(pet.id)
        }
        return order.map { ($0, groups[$0]!) }
    }

    private func assertSections<Key: Hashable>(_ sectioned: SectionedResults<Key, Pet>, _ expected: [(Key, [Int])],
                                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(sectioned.count, expected.count, file: file, line: line)
        XCTAssertEqual(sectioned.allKeys, expected.map(\.0), file: file, line: line)
        for (section, (key, ids)) in zip(sectioned, expected) {
            XCTAssertEqual(section.key, key, file: file, line: line)
            XCTAssertEqual(section.map(\.id), ids, file: file, line: line)
        }
    }

    func testSectionsMatchAPlainSwiftGroupingOfTheSortedResults() throws {
        var generator = SeededGenerator.fromEnvironment()
        let realm = try openRealm()
        let names = ["Rex", "Fido", "Bella", "Max", "Luna", "Rover"]
        try realm.write {
            for id in 0 ..< 200 {
                realm.create(Pet.self, value: ["id": id, "name": names.randomElement(using: &generator)!,
                                               "age": Int.random(in: 0 ... 15, using: &generator)])
            }
        }
        let pets = realm.objects(Pet.self)
        // By a key path, ascending and descending; ties keep the results' order (by primary key here).
        for ascending in [true, false] {
            let sorted = pets.sorted(byKeyPath: "name", ascending: ascending)
            assertSections(pets.sectioned(by: \.name, ascending: ascending),
                           expectedSections(Array(sorted), \.name))
        }
        // With sort descriptors, the first being the key path's.
        let descriptors = [SortDescriptor(keyPath: "age", ascending: false), SortDescriptor(keyPath: "name")]
        assertSections(pets.sectioned(by: \.age, sortDescriptors: descriptors),
                       expectedSections(Array(pets.sorted(by: descriptors)), \.age))
        // A computed key: the first letter of the name, sections in order of first appearance.
        let byLetter = pets.filter("age > 3").sectioned(sortDescriptors: [SortDescriptor(keyPath: "name")]) {
            String($0.name.prefix(1))
        }
        assertSections(byLetter, expectedSections(Array(pets.filter("age > 3").sorted(byKeyPath: "name")),
                                                  { String($0.name.prefix(1)) }))
        XCTAssertEqual(byLetter.allKeys, ["B", "F", "L", "M", "R"])
        // Index paths: (section, item).
        let first = byLetter[0]
        XCTAssertEqual(byLetter[IndexPath(indexes: [0, 0])].id, first[0].id)
        XCTAssertEqual(byLetter[IndexPath(indexes: [4, byLetter[4].count - 1])].id, byLetter[4].last!.id)
        XCTAssertTrue(byLetter.realm == realm)
        XCTAssertFalse(byLetter.isInvalidated)
    }

    /// Sections follow writes, inside the write transaction too; a section whose key disappears is empty and
    /// gone from the list; invalidated results are empty.
    func testSectionsAreLive() throws {
        let realm = try openRealm()
        try realm.write {
            for (id, name) in [(1, "Rex"), (2, "Bella"), (3, "Rex")] { realm.create(Pet.self, value: ["id": id, "name": name]) }
        }
        let sectioned = realm.objects(Pet.self).sectioned(by: \.name)
        XCTAssertEqual(sectioned.allKeys, ["Bella", "Rex"])
        let rex = sectioned[1]
        XCTAssertEqual(rex.count, 2)
        try realm.write {
            realm.create(Pet.self, value: ["id": 4, "name": "Ace"])
            XCTAssertEqual(sectioned.allKeys, ["Ace", "Bella", "Rex"])
            realm.delete(realm.objects(Pet.self).filter("name == 'Rex'"))
        }
        XCTAssertEqual(sectioned.allKeys, ["Ace", "Bella"])
        XCTAssertEqual(rex.count, 0)
        realm.invalidate()
        XCTAssertTrue(sectioned.isInvalidated)
        XCTAssertEqual(sectioned.count, 0)
    }

    private static func summary<S: RealmSectionedResult>(_ value: S) -> String {
        let frozen = value.freeze()
        return "\(value.count) \(value.isFrozen ? "frozen" : "live"), frozen copy \(frozen.isFrozen ? "frozen" : "live")"
    }

    /// RealmSwift's RealmSectionedResult protocol: code generic over it runs on sectioned results and on a
    /// section; both can be frozen and handed to another thread.
    func testCodeGenericOverRealmSectionedResultRunsOnBothKinds() throws {
        let realm = try openRealm()
        try realm.write {
            for (id, name) in [(1, "Rex"), (2, "Bella"), (3, "Rex")] { realm.create(Pet.self, value: ["id": id, "name": name]) }
        }
        let sectioned = realm.objects(Pet.self).sectioned(by: \.name)
        XCTAssertEqual(Self.summary(sectioned), "2 live, frozen copy frozen")
        XCTAssertEqual(Self.summary(sectioned[1]), "2 live, frozen copy frozen")
        XCTAssertEqual(sectioned, sectioned)
        XCTAssertEqual(sectioned[1], sectioned[1])
        XCTAssertNotEqual(sectioned[0], sectioned[1])

        let reference = ThreadSafeReference(to: sectioned[1])
        let configuration = self.configuration!
        let resolved = expectation(description: "resolved on another thread")
        let counts = Locked<[Int]>([])
        Thread {
            let other = try! Realm(configuration: configuration)
            if let section = other.resolve(reference) { counts.withLock { $0 = [section.count, section.map(\.id).count] } }
            resolved.fulfill()
        }.start()
        wait(for: [resolved], timeout: 10)
        XCTAssertEqual(counts.value, [2, 2])
    }

    func testListsAreSectionedByTheirElements() throws {
        let realm = try openRealm()
        let kennel = try realm.write { () -> Kennel in
            let kennel = realm.create(Kennel.self, value: ["name": "k"])
            for name in ["b", "a", "b", "c"] { kennel.dogs.append(realm.create(KennelDog.self, value: ["name": name])) }
            return kennel
        }
        let sections = kennel.dogs.sectioned(by: \.name)
        XCTAssertEqual(sections.allKeys, ["a", "b", "c"])
        XCTAssertEqual(sections.map(\.count), [1, 2, 1])
        let computed = kennel.dogs.sectioned(sortDescriptors: []) { $0.name == "b" }
        XCTAssertEqual(computed.allKeys, [true, false])
    }
}
