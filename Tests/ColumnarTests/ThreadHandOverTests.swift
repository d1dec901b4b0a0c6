// ThreadHandOverTests: live values cross threads through ThreadSafeReference (resolved once, on a Realm moved to
// the reference's version), @ThreadSafe properties (read on any thread), and Realms confined to a serial queue.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class HandOverBox: @unchecked Sendable {
    @ThreadSafe var dog: NoteDog?
    var reference: ThreadSafeReference<NoteDog>?
    var results: ThreadSafeReference<Results<NoteDog>>?
    var list: ThreadSafeReference<List<NoteDog>>?
    var seen: [String] = []
    init() { _dog = ThreadSafe(wrappedValue: nil) }
}

final class ThreadHandOverTests: RealmTestCase {
    private func onAnotherThread(_ body: @escaping @Sendable () throws -> Void) {
        let done = expectation(description: "other thread")
        Thread {
            do { try body() } catch { XCTFail("\(error)") }
            done.fulfill()
        }.start()
        wait(for: [done], timeout: 30)
    }

    func testObjectsResultsAndListsResolveOnAnotherThread() throws {
        let realm = try openRealm()
        let owner = try realm.write {
            let owner = realm.create(NoteOwner.self, value: ["name": "o"])
            for name in ["a", "b", "c"] { owner.dogs.append(realm.create(NoteDog.self, value: ["name": name])) }
            return owner
        }
        let box = HandOverBox()
        box.reference = ThreadSafeReference(to: owner.dogs[1])
        box.results = ThreadSafeReference(to: realm.objects(NoteDog.self).filter("name != 'a'").sorted(byKeyPath: "name"))
        box.list = ThreadSafeReference(to: owner.dogs)
        XCTAssertFalse(box.reference!.isInvalidated)
        let configuration = self.configuration!
        onAnotherThread {
            let other = try Realm(configuration: configuration)
            let dog = try XCTUnwrap(other.resolve(box.reference!))
            box.seen.append(dog.name)
            let results = try XCTUnwrap(other.resolve(box.results!))
            box.seen += results.map(\.name)
            let list = try XCTUnwrap(other.resolve(box.list!))
            box.seen += list.map(\.name)
            try other.write { list.append(other.create(NoteDog.self, value: ["name": "d"])) }
        }
        XCTAssertEqual(box.seen, ["b", "b", "c", "a", "b", "c"])
        XCTAssertTrue(box.reference!.isInvalidated, "resolved once")
        realm.refresh()
        XCTAssertEqual(owner.dogs.count, 4)
    }

    /// A Realm on the other thread still reading an older version is moved to the reference's version, so an
    /// object made after it last refreshed is found.
    func testResolvingMovesTheRealmToTheReferencesVersion() throws {
        let configuration = self.configuration!
        let box = HandOverBox()
        let opened = DispatchSemaphore(value: 0), made = DispatchSemaphore(value: 0)
        let done = expectation(description: "resolved")
        Thread {
            let other = try! Realm(configuration: configuration)
            other.autorefresh = false
            XCTAssertEqual(other.objects(NoteDog.self).count, 0)
            opened.signal()
            made.wait()
            box.seen.append(other.resolve(box.reference!)?.name ?? "nil")
            done.fulfill()
        }.start()
        opened.wait()
        let realm = try openRealm()
        let dog = try realm.write { realm.create(NoteDog.self, value: ["name": "late"]) }
        box.reference = ThreadSafeReference(to: dog)
        made.signal()
        wait(for: [done], timeout: 30)
        XCTAssertEqual(box.seen, ["late"])
    }

    func testADeletedObjectResolvesToNil() throws {
        let realm = try openRealm()
        let dog = try realm.write { realm.create(NoteDog.self, value: ["name": "gone"]) }
        let box = HandOverBox()
        box.reference = ThreadSafeReference(to: dog)
        try realm.write { realm.delete(dog) }
        let configuration = self.configuration!
        onAnotherThread {
            let other = try Realm(configuration: configuration)
            box.seen.append(other.resolve(box.reference!) == nil ? "nil" : "found")
        }
        XCTAssertEqual(box.seen, ["nil"])
    }

    func testThreadSafePropertyReadsOnEveryThread() throws {
        let realm = try openRealm()
        let dog = try realm.write { realm.create(NoteDog.self, value: ["name": "Rex"]) }
        let box = HandOverBox()
        box.dog = dog
        onAnotherThread {
            box.seen.append(box.dog?.name ?? "nil")
            box.seen.append(box.dog?.name ?? "nil")   // any number of reads
        }
        try realm.write { realm.delete(dog) }
        onAnotherThread { box.seen.append(box.dog?.name ?? "nil") }
        XCTAssertEqual(box.seen, ["Rex", "Rex", "nil"])
    }

    /// A queue-confined Realm is used from blocks of its queue, which run on varying threads.
    func testARealmConfinedToAQueueWorksInEveryBlockOfIt() throws {
        let queue = DispatchQueue(label: "confined")
        let configuration = self.configuration!
        let box = HandOverBox()
        let ready = expectation(description: "opened")
        nonisolated(unsafe) var realm: Realm?
        queue.async {
            realm = try! Realm(configuration: configuration, queue: queue)
            ready.fulfill()
        }
        wait(for: [ready], timeout: 10)
        let group = DispatchGroup()
        for index in 0 ..< 20 {
            group.enter()
            // Hop through the global pool so that the queue's blocks run on varying threads.
            DispatchQueue.global().async {
                queue.async {
                    try! realm!.write { realm!.create(NoteDog.self, value: ["name": "d\(index)"]) }
                    box.seen.append("\(realm!.objects(NoteDog.self).count)")
                    group.leave()
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(box.seen.last, "20")
        queue.sync { realm = nil }
    }
}

/// Hand-over misuse stops with RealmSwift's messages (each case in a child process, DeathTest.swift).
final class ThreadHandOverMisuseTests: RealmTestCase, DeathCaseTable {
    static let deathCaseRunner = "ColumnarTests.ThreadHandOverMisuseTests/testRunDeathCase"

    var deathCases: [String: () throws -> Void] {
        [
            "resolving twice": {
                let realm = try self.openRealm()
                let dog = try realm.write { realm.create(NoteDog.self) }
                let reference = ThreadSafeReference(to: dog)
                _ = realm.resolve(reference)
                _ = realm.resolve(reference)
            },
            "a reference to an unmanaged object": { _ = ThreadSafeReference(to: NoteDog()) },
            "opening a queue's Realm off the queue": {
                _ = try Realm(configuration: self.configuration, queue: DispatchQueue(label: "elsewhere"))
            },
        ]
    }

    func testRunDeathCase() throws {
        try runDeathCase()
    }

    func testMisuseStopsWithAMessage() {
        assertStops("resolving twice", "Can only resolve a thread safe reference once.")
        assertStops("a reference to an unmanaged object", "Cannot construct reference to unmanaged object")
        assertStops("opening a queue's Realm off the queue", "Realm opened from incorrect dispatch queue.")
    }
}
