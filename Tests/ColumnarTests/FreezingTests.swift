// FreezingTests: frozen snapshots — readable from many threads at once while a writer commits, immutable, queried
// at their version, pinning that version's space only while a frozen value of it exists, and thawed back to live
// values (or nil for deleted objects).

import CColumnar
import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class FreezingTests: RealmTestCase {
    private func makeDogs(_ realm: Realm, _ count: Int) throws -> NoteOwner {
        try realm.write {
            let owner = realm.create(NoteOwner.self, value: ["name": "o"])
            for index in 0 ..< count {
                owner.dogs.append(realm.create(NoteDog.self, value: ["name": "d\(index)", "age": index % 50]))
            }
            return owner
        }
    }

    /// The oldest version any reader of the file pins, from a second engine handle.
    private func oldestPinnedVersion() throws -> (oldest: UInt64, latest: UInt64) {
        var options = columnar_open_options()
        options.durability = COLUMNAR_DURABILITY_FULL
        var db: OpaquePointer?
        XCTAssertEqual(columnar_open(configuration.fileURL!.path, &options, &db), COLUMNAR_OK)
        defer { columnar_close(db) }
        var stats = columnar_db_stats()
        XCTAssertEqual(columnar_db_stats_get(db, &stats), COLUMNAR_OK)
        return (stats.oldest_pinned, stats.version)
    }

    /// Acceptance: a frozen Results read on 8 threads while a writer commits 1,000 versions returns the same data
    /// throughout.
    func testFrozenResultsReadOnEightThreadsWhileAWriterCommitsStayTheSame() throws {
        let realm = try openRealm()
        _ = try makeDogs(realm, 300)
        let frozen = realm.objects(NoteDog.self).filter("age < 40").sorted(byKeyPath: "name").freeze()
        XCTAssertTrue(frozen.isFrozen)
        let expected = frozen.map(\.name)
        let expectedYoung = frozen.filter("age < 10").count
        let box = FrozenBox(frozen)
        let writerDone = DispatchSemaphore(value: 0)
        let configuration = self.configuration!
        Thread {
            let writer = try! Realm(configuration: configuration)
            for version in 0 ..< 1_000 {
                try! writer.write {
                    let dogs = writer.objects(NoteDog.self)
                    dogs[version % dogs.count].age = version % 60
                    if version % 10 == 0 { writer.create(NoteDog.self, value: ["name": "new\(version)", "age": 1]) }
                    if version % 15 == 0 { writer.delete(dogs[0]) }
                }
            }
            writerDone.signal()
        }.start()
        let group = DispatchGroup()
        let mismatches = Counter()
        for _ in 0 ..< 8 {
            group.enter()
            Thread {
                var rounds = 0
                repeat {
                    let results = box.results
                    if results.map(\.name) != expected || results.count != expected.count
                        || results.filter("age < 10").count != expectedYoung
                        || results.first?.name != expected.first {
                        mismatches.add()
                    }
                    rounds += 1
                } while !box.isDone || rounds < 3
                group.leave()
            }.start()
        }
        writerDone.wait()
        box.isDone = true
        XCTAssertEqual(group.wait(timeout: .now() + 120), .success)
        XCTAssertEqual(mismatches.value, 0)
        realm.refresh()
        XCTAssertNotEqual(realm.objects(NoteDog.self).filter("age < 40").sorted(byKeyPath: "name").map(\.name), expected,
                          "the live results moved on")
    }

    func testFrozenValuesAreImmutableAndQueryAtTheirVersion() throws {
        let realm = try openRealm()
        let owner = try makeDogs(realm, 5)
        let frozenOwner = owner.freeze()
        let frozenRealm = realm.freeze()
        XCTAssertTrue(frozenOwner.isFrozen)
        XCTAssertTrue(frozenRealm.isFrozen)
        XCTAssertFalse(owner.isFrozen)
        XCTAssertTrue(frozenOwner.dogs.isFrozen)
        XCTAssertTrue(owner.dogs.freeze().isFrozen)
        try realm.write {
            owner.name = "changed"
            owner.dogs.removeAll()
            realm.create(NoteDog.self, value: ["name": "late"])
        }
        XCTAssertEqual(frozenOwner.name, "o")
        XCTAssertEqual(frozenOwner.dogs.count, 5)
        XCTAssertEqual(frozenRealm.objects(NoteDog.self).count, 5)
        let filtered = frozenRealm.objects(NoteDog.self).filter("age >= 2")
        XCTAssertTrue(filtered.isFrozen)
        XCTAssertEqual(filtered.count, 3)
        XCTAssertEqual(filtered.sorted(byKeyPath: "age", ascending: false).first?.age, 4)
        XCTAssertEqual(frozenRealm.objects(NoteDog.self).max(ofProperty: "age") as Int?, 4)
        XCTAssertTrue(frozenRealm.freeze() == frozenRealm, "a frozen Realm freezes to itself")
        XCTAssertTrue(realm.freeze() != frozenRealm, "a newer version freezes to a newer snapshot")
        let frozenDog = try XCTUnwrap(frozenRealm.objects(NoteDog.self).first)
        let sections = frozenRealm.objects(NoteDog.self).sectioned(by: \.age)
        XCTAssertEqual(sections.count, 5)
        XCTAssertEqual(AnyRealmCollection(owner.dogs).freeze().isFrozen, true)
        XCTAssertEqual(frozenDog.owners.count, 1, "linking objects at the frozen version")
    }

    func testThawGivesTheLiveValueOrNilWhenDeleted() throws {
        let realm = try openRealm()
        let owner = try makeDogs(realm, 3)
        let frozenDog = owner.dogs[0].freeze()
        let frozenDogs = owner.dogs.freeze()
        let live = try XCTUnwrap(frozenDog.thaw())
        XCTAssertFalse(live.isFrozen)
        try realm.write { live.age = 77 }
        XCTAssertEqual(frozenDog.age, 0)
        XCTAssertEqual(frozenDogs.thaw()?.first?.age, 77)
        try realm.write { realm.delete(live) }
        XCTAssertNil(frozenDog.thaw())
        XCTAssertEqual(frozenDogs.thaw()?.count, 2)
        XCTAssertEqual(realm.freeze().thaw(), realm)
    }

    /// RealmSwift's `realm.freeze(_:)` and `realm.thaw(_:)` for objects and collections, and code generic over
    /// RealmCollection that freezes.
    func testRealmFreezesAndThawsObjectsAndCollectionsAndGenericCodeCanToo() throws {
        let realm = try openRealm()
        let owner = try makeDogs(realm, 3)
        let frozenDog = realm.freeze(owner.dogs[1])
        let frozenDogs = realm.freeze(owner.dogs)
        let frozenResults = realm.freeze(realm.objects(NoteDog.self).sorted(byKeyPath: "name"))
        XCTAssertTrue(frozenDog.isFrozen && frozenDogs.isFrozen && frozenResults.isFrozen)
        func frozenNames<C: RealmCollection>(_ collection: C) -> [String] where C.Element == NoteDog {
            let frozen = collection.freeze()
            XCTAssertTrue(frozen.isFrozen)
            return frozen.map(\.name)
        }
        XCTAssertEqual(frozenNames(owner.dogs), ["d0", "d1", "d2"])
        try realm.write { owner.dogs[1].name = "renamed" }
        XCTAssertEqual(frozenDog.name, "d1", "a snapshot")
        XCTAssertEqual(realm.thaw(frozenDog)?.name, "renamed")
        XCTAssertEqual(realm.thaw(frozenDogs)?.map(\.name), ["d0", "renamed", "d2"])
        XCTAssertEqual(frozenResults.map(\.name), ["d0", "d1", "d2"])
        try realm.write { realm.delete(owner) }
        XCTAssertNil(realm.thaw(frozenDogs), "the list's owner was deleted")
    }

    /// maximumNumberOfActiveVersions counts frozen versions: a write that would exceed it throws, and releasing the
    /// frozen values lets writes go on.
    func testTheActiveVersionCapCountsFrozenVersions() throws {
        configuration.maximumNumberOfActiveVersions = 2
        let realm = try openRealm()
        var frozen: [Realm] = []
        for index in 0 ..< 2 {
            try realm.write { realm.create(NoteDog.self, value: ["name": "d\(index)"]) }
            frozen.append(realm.freeze())
        }
        XCTAssertThrowsError(try realm.write { realm.create(NoteDog.self) }) { error in
            XCTAssertTrue("\(error)".contains("versions live"), "\(error)")
        }
        XCTAssertEqual(frozen.map { $0.objects(NoteDog.self).count }, [1, 2])
        frozen.removeAll()
        try realm.write { realm.create(NoteDog.self) }
        XCTAssertEqual(realm.objects(NoteDog.self).count, 3)
    }

    /// A frozen value keeps its version's space from reuse until the last frozen value of it is released.
    func testAFrozenValueKeepsItsVersionUntilReleased() throws {
        let realm = try openRealm()
        _ = try makeDogs(realm, 3)
        var frozen: Results<NoteDog>? = realm.objects(NoteDog.self).freeze()
        var frozenDog: NoteDog? = frozen!.first
        let frozenVersion = try oldestPinnedVersion().latest
        // Read the frozen values on other threads too: each gets its own transaction at the version.
        let done = expectation(description: "readers")
        done.expectedFulfillmentCount = 2
        let box = FrozenBox(frozen!)
        for _ in 0 ..< 2 { Thread { _ = box.results.map(\.name); done.fulfill() }.start() }
        wait(for: [done], timeout: 10)
        for _ in 0 ..< 5 { try realm.write { realm.objects(NoteDog.self).first!.age += 1 } }
        XCTAssertEqual(try oldestPinnedVersion().oldest, frozenVersion, "pinned while frozen values exist")
        frozen = nil
        XCTAssertEqual(try oldestPinnedVersion().oldest, frozenVersion, "the object still holds it")
        XCTAssertNotNil(frozenDog)
        frozenDog = nil
        box.release()
        try realm.write { realm.objects(NoteDog.self).first!.age += 1 }
        let after = try oldestPinnedVersion()
        XCTAssertGreaterThan(after.oldest, frozenVersion, "released: the version's space can be reused")
    }
}

/// Frozen results shared by reader threads.
final class FrozenBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Results<NoteDog>?
    private var done = false
    init(_ results: Results<NoteDog>) { stored = results }
    var results: Results<NoteDog> { lock.withLock { stored! } }
    var isDone: Bool {
        get { lock.withLock { done } }
        set { lock.withLock { done = newValue } }
    }
    func release() { lock.withLock { stored = nil } }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// Writing a frozen value and observing one stop with RealmSwift's messages (child processes, DeathTest.swift).
final class FreezingMisuseTests: RealmTestCase, DeathCaseTable {
    static let deathCaseRunner = "ColumnarTests.FreezingMisuseTests/testRunDeathCase"

    var deathCases: [String: () throws -> Void] {
        [
            "writing a frozen object": {
                let realm = try self.openRealm()
                let dog = try realm.write { realm.create(NoteDog.self) }.freeze()
                try realm.write { dog.name = "x" }
            },
            "a write transaction on a frozen Realm": {
                let realm = try self.openRealm().freeze()
                try realm.write {}
            },
            "observing frozen results": {
                let realm = try self.openRealm()
                _ = realm.objects(NoteDog.self).freeze().observe { _ in }
            },
        ]
    }

    func testRunDeathCase() throws {
        try runDeathCase()
    }

    func testMisuseStopsWithAMessage() {
        assertStops("writing a frozen object",
                    "Attempting to modify a frozen object - call thaw on the Object instance first.")
        assertStops("a write transaction on a frozen Realm", "Can't perform transactions on a frozen Realm")
        assertStops("observing frozen results", "Frozen Realms do not change and do not have change notifications.")
    }
}
