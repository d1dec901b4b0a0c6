// NotificationTests: change notifications as the references describe them — the initial callback (reflecting a
// write made before delivery), update indices, key-path filtering (`["toys"]` against `["toys.brand"]`), object
// changes with old and new values, tokens on one object firing together, `write(withoutNotifying:)`, invalidation,
// delivery on a queue, from the thread's run loop, and synchronously in `refresh()`, and Realm notifications.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class NoteToy: Object {
    @Persisted var brand = ""
}

final class NoteDog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var adopted = false
    @Persisted var toys: List<NoteToy>
    @Persisted var siblings: List<NoteDog>
    @Persisted var tags: Map<String, String>
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<NoteOwner>
}

final class NoteOwner: Object {
    @Persisted var name = ""
    @Persisted var dogs: List<NoteDog>
    @Persisted var numbers: List<Int>
    @Persisted var dogsByName: Map<String, NoteDog?>
}

final class NotificationTests: RealmTestCase {
    private typealias Update = (deletions: [Int], insertions: [Int], modifications: [Int])

    /// Collects the callbacks of a collection observation.
    private final class Recorder<C>: @unchecked Sendable {
        let lock = NSLock()
        var initial: [C] = []
        var updates: [Update] = []
        func record(_ change: RealmCollectionChange<C>) {
            lock.lock()
            defer { lock.unlock() }
            switch change {
            case .initial(let collection): initial.append(collection)
            case .update(_, let deletions, let insertions, let modifications):
                updates.append((deletions, insertions, modifications))
            case .error(let error): XCTFail("unexpected error \(error)")
            }
        }
        var updateCount: Int { lock.withLock { updates.count } }
    }

    private func addDogs(_ realm: Realm, _ names: [String]) throws -> [NoteDog] {
        try realm.write { names.map { realm.create(NoteDog.self, value: ["name": $0]) } }
    }

    /// Runs `body` with a Realm of the same file on another thread and waits for it.
    private func onAnotherThread(_ body: @escaping @Sendable (Realm) throws -> Void) {
        let configuration = self.configuration!
        let done = expectation(description: "other thread")
        let thread = Thread {
            do { try body(try Realm(configuration: configuration)) } catch { XCTFail("\(error)") }
            done.fulfill()
        }
        thread.start()
        // Waiting spins this thread's run loop, which may deliver notifications; tests that check synchronous
        // delivery turn autorefresh off first.
        wait(for: [done], timeout: 30)
    }

    // MARK: Collections

    /// The reference's example: a write made right after `observe` shows in the initial callback, and no update
    /// follows for it.
    func testInitialCallbackReflectsAWriteMadeBeforeDelivery() throws {
        let realm = try openRealm()
        let dogs = realm.objects(NoteDog.self)
        XCTAssertEqual(dogs.count, 0)
        let recorder = Recorder<Results<NoteDog>>()
        let token = dogs.observe { recorder.record($0) }
        _ = try addDogs(realm, ["Rex"])
        XCTAssertEqual(recorder.initial.count, 1)
        XCTAssertEqual(recorder.initial.first?.count, 1)
        XCTAssertEqual(recorder.updates.count, 0)
        token.invalidate()
    }

    func testUpdatesReportDeletionsInsertionsAndModificationsAtTheRightPositions() throws {
        let realm = try openRealm()
        realm.autorefresh = false
        _ = try addDogs(realm, ["a", "b", "c", "d"])
        let sorted = realm.objects(NoteDog.self).sorted(byKeyPath: "name")
        let recorder = Recorder<Results<NoteDog>>()
        let token = sorted.observe { recorder.record($0) }
        realm.refresh()
        XCTAssertEqual(recorder.initial.count, 1)
        onAnotherThread { other in
            try other.write {
                let all = other.objects(NoteDog.self)
                other.delete(all.filter("name == 'b'"))
                all.filter("name == 'd'").first!.age = 7
                other.create(NoteDog.self, value: ["name": "bb"])
            }
        }
        XCTAssertEqual(recorder.updates.count, 0, "delivered only when this thread refreshes")
        realm.refresh()
        XCTAssertEqual(recorder.updates.count, 1)
        let update = try XCTUnwrap(recorder.updates.first)
        // old: a b c d; new: a bb c d
        XCTAssertEqual(update.deletions, [1])
        XCTAssertEqual(update.insertions, [1])
        XCTAssertEqual(update.modifications, [3])
        token.invalidate()
    }

    func testAWriteThatChangesNothingObservedDoesNotCall() throws {
        let realm = try openRealm()
        _ = try addDogs(realm, ["a"])
        let recorder = Recorder<Results<NoteDog>>()
        let token = realm.objects(NoteDog.self).observe { recorder.record($0) }
        realm.refresh()
        try realm.write { realm.create(NoteOwner.self, value: ["name": "x"]) }
        XCTAssertEqual(recorder.updates.count, 0)
        // Setting a property to the value it holds is a modification, as in RealmSwift.
        try realm.write { realm.objects(NoteDog.self).first!.name = "a" }
        XCTAssertEqual(recorder.updates.count, 1)
        XCTAssertEqual(recorder.updates.last?.modifications, [0])
        try realm.write { realm.objects(NoteDog.self).first!.age = 2 }
        XCTAssertEqual(recorder.updates.count, 2)
        XCTAssertEqual(recorder.updates.last?.modifications, [0])
        token.invalidate()
    }

    /// The reference's key-path rules: `["name"]` ignores other properties; `["toys"]` sees toys added or removed
    /// but not a toy's brand changing; `["toys.brand"]` sees both.
    func testKeyPathFiltering() throws {
        let realm = try openRealm()
        let dog = try addDogs(realm, ["Rex"])[0]
        try realm.write { dog.toys.append(realm.create(NoteToy.self, value: ["brand": "Acme"])) }
        let dogs = realm.objects(NoteDog.self)
        let byName = Recorder<Results<NoteDog>>(), byToys = Recorder<Results<NoteDog>>()
        let byToyBrand = Recorder<Results<NoteDog>>(), byAll = Recorder<Results<NoteDog>>()
        let tokens = [dogs.observe(keyPaths: ["name"]) { byName.record($0) },
                      dogs.observe(keyPaths: ["toys"]) { byToys.record($0) },
                      dogs.observe(keyPaths: ["toys.brand"]) { byToyBrand.record($0) },
                      dogs.observe { byAll.record($0) }]
        realm.refresh()
        try realm.write { dog.age = 3 }
        XCTAssertEqual([byName.updates.count, byToys.updates.count, byToyBrand.updates.count, byAll.updates.count],
                       [0, 0, 0, 1])
        try realm.write { dog.toys[0].brand = "Zeta" }
        XCTAssertEqual([byName.updates.count, byToys.updates.count, byToyBrand.updates.count, byAll.updates.count],
                       [0, 0, 1, 2], "a linked toy's brand: only toys.brand and the default (deep) observation")
        try realm.write { dog.toys.append(realm.create(NoteToy.self)) }
        XCTAssertEqual([byName.updates.count, byToys.updates.count, byToyBrand.updates.count, byAll.updates.count],
                       [0, 1, 2, 3])
        try realm.write { dog.name = "Max" }
        XCTAssertEqual([byName.updates.count, byToys.updates.count, byToyBrand.updates.count, byAll.updates.count],
                       [1, 1, 2, 4])
        XCTAssertEqual(byName.updates.last?.modifications, [0])
        tokens.forEach { $0.invalidate() }
    }

    func testListNotificationsReportMovesAsDeletionAndInsertion() throws {
        let realm = try openRealm()
        let owner = try realm.write { realm.create(NoteOwner.self, value: ["name": "o"]) }
        let dogs = try addDogs(realm, ["a", "b", "c"])
        try realm.write { owner.dogs.append(objectsIn: dogs) }
        let recorder = Recorder<List<NoteDog>>()
        let token = owner.dogs.observe { recorder.record($0) }
        realm.refresh()
        XCTAssertEqual(recorder.initial.first?.count, 3)
        try realm.write { owner.dogs.move(from: 0, to: 2) }   // b c a
        let update = try XCTUnwrap(recorder.updates.last)
        XCTAssertEqual(update.deletions, [0])
        XCTAssertEqual(update.insertions, [2])
        try realm.write { owner.numbers.append(5) }            // another property of the owner: not the list
        XCTAssertEqual(recorder.updates.count, 1)
        try realm.write { realm.delete(owner) }
        XCTAssertEqual(recorder.updates.last?.deletions, [0, 1, 2], "the owner's deletion empties the list")
        token.invalidate()
    }

    func testListOfValuesAndLinkingObjectsAndAnyRealmCollection() throws {
        let realm = try openRealm()
        let owner = try realm.write { realm.create(NoteOwner.self, value: ["name": "o", "numbers": [1, 2, 3]]) }
        let dog = try addDogs(realm, ["Rex"])[0]
        let numbers = Recorder<List<Int>>()
        let any = Recorder<AnyRealmCollection<Int>>()
        let owners = Recorder<LinkingObjects<NoteOwner>>()
        let tokens = [owner.numbers.observe { numbers.record($0) },
                      AnyRealmCollection(owner.numbers).observe { any.record($0) },
                      dog.owners.observe { owners.record($0) }]
        realm.refresh()
        XCTAssertEqual(any.initial.count, 1)
        XCTAssertEqual(owners.initial.first?.count, 0)
        try realm.write { owner.numbers.remove(at: 1) }
        XCTAssertEqual(numbers.updates.last?.deletions, [1])
        XCTAssertEqual(any.updates.last?.deletions, [1])
        XCTAssertEqual(owners.updates.count, 0)
        try realm.write { owner.dogs.append(dog) }
        XCTAssertEqual(owners.updates.last?.insertions, [0])
        try realm.write { owner.name = "renamed" }
        XCTAssertEqual(owners.updates.last?.modifications, [0], "a linking object's own property changed")
        tokens.forEach { $0.invalidate() }
    }

    /// A callback may write; its commit is reported after the round of callbacks that made it, to every
    /// observation.
    func testACallbackThatWritesIsToldAboutItsOwnWriteAfterwards() throws {
        let realm = try openRealm()
        var counts: [Int] = []
        var other: [[Int]] = []
        let writer = realm.objects(NoteDog.self).observe { change in
            guard case .update(let dogs, _, _, _) = change else { return }
            counts.append(dogs.count)
            if dogs.count == 1 { try! realm.write { realm.create(NoteDog.self, value: ["name": "echo"]) } }
        }
        let watcher = realm.objects(NoteDog.self).observe { change in
            if case .update(_, _, let insertions, _) = change { other.append(insertions) }
        }
        realm.refresh()
        _ = try addDogs(realm, ["first"])
        XCTAssertEqual(counts, [1, 2])
        // The other observation may see both inserts in one update (the callback's commit came before its turn).
        XCTAssertEqual(other.flatMap { $0 }.sorted(), [0, 1])
        writer.invalidate()
        watcher.invalidate()
    }

    func testInvalidatingOrReleasingTheTokenStopsNotifications() throws {
        let realm = try openRealm()
        let recorder = Recorder<Results<NoteDog>>(), released = Recorder<Results<NoteDog>>()
        let token = realm.objects(NoteDog.self).observe { recorder.record($0) }
        var releasedToken: NotificationToken? = realm.objects(NoteDog.self).observe { released.record($0) }
        realm.refresh()
        _ = try addDogs(realm, ["a"])
        XCTAssertEqual(recorder.updates.count, 1)
        XCTAssertEqual(released.updates.count, 1)
        token.invalidate()
        releasedToken = nil
        XCTAssertNil(releasedToken)
        _ = try addDogs(realm, ["b"])
        XCTAssertEqual(recorder.updates.count, 1)
        XCTAssertEqual(released.updates.count, 1)
    }

    func testWriteWithoutNotifyingSkipsOnlyThoseTokens() throws {
        let realm = try openRealm()
        let skipped = Recorder<Results<NoteDog>>(), told = Recorder<Results<NoteDog>>()
        let skippedToken = realm.objects(NoteDog.self).observe { skipped.record($0) }
        let toldToken = realm.objects(NoteDog.self).observe { told.record($0) }
        realm.refresh()
        try realm.write(withoutNotifying: [skippedToken]) { realm.create(NoteDog.self, value: ["name": "a"]) }
        XCTAssertEqual(skipped.updates.count, 0)
        XCTAssertEqual(told.updates.count, 1)
        _ = try addDogs(realm, ["b"])
        XCTAssertEqual(skipped.updates.last?.insertions, [1], "the skipped write is not reported later either")
        _ = [skippedToken, toldToken].map { $0.invalidate() }
    }

    // MARK: Objects

    func testObjectChangeNamesPropertiesWithOldAndNewValuesAndReportsDeletion() throws {
        let realm = try openRealm()
        let dog = try addDogs(realm, ["Rex"])[0]
        var changes: [[PropertyChange]] = []
        var deleted = 0
        let token = dog.observe { (change: ObjectChange<NoteDog>) in
            switch change {
            case .change(let object, let properties):
                XCTAssertEqual(object.name, dog.name)
                changes.append(properties)
            case .deleted: deleted += 1
            case .error(let error): XCTFail("\(error)")
            }
        }
        realm.refresh()
        XCTAssertTrue(changes.isEmpty, "no initial callback for objects")
        try realm.write { dog.name = "Max"; dog.age = 4 }
        XCTAssertEqual(changes.last?.map(\.name), ["name", "age"])
        XCTAssertEqual(changes.last?.first?.oldValue as? String, "Rex")
        XCTAssertEqual(changes.last?.first?.newValue as? String, "Max")
        XCTAssertEqual(changes.last?.last?.oldValue as? Int, 0)
        try realm.write { dog.toys.append(realm.create(NoteToy.self)) }
        XCTAssertEqual(changes.last?.map(\.name), ["toys"])
        try realm.write { dog.toys[0].brand = "x" }
        XCTAssertEqual(changes.count, 2, "object notifications are shallow by default")
        try realm.write { dog.age = dog.age }   // self-assignment notifies, as the Object reference says
        XCTAssertEqual(changes.count, 3)
        XCTAssertEqual(changes.last?.map(\.name), ["age"])
        XCTAssertEqual(changes.last?.first?.oldValue as? Int, 4)
        XCTAssertEqual(changes.last?.first?.newValue as? Int, 4)
        try realm.write { realm.delete(dog) }
        XCTAssertEqual(deleted, 1)
        token.invalidate()
    }

    /// The reference's examples: `["adopted"]` ignores `name`; `["siblings"]` ignores a sibling's name;
    /// `["siblings.name"]` sees it. And several tokens on one object do not filter each other.
    func testObjectKeyPathsAndTokensOnOneObjectFiringTogether() throws {
        let realm = try openRealm()
        let dogs = try addDogs(realm, ["Rex", "Sib"])
        let dog = dogs[0]
        try realm.write { dog.siblings.append(dogs[1]) }
        var adopted = 0, siblings = 0, siblingNames = 0
        let tokens = [
            dog.observe(keyPaths: ["adopted"]) { (_: ObjectChange<NoteDog>) in adopted += 1 },
            dog.observe(keyPaths: [\NoteDog.siblings]) { (_: ObjectChange<NoteDog>) in siblings += 1 },
            dogs[1].observe(keyPaths: ["age"]) { (_: ObjectChange<NoteDog>) in },
        ]
        var other = 0
        let otherToken = dogs[1].observe(keyPaths: ["siblings.name"]) { (_: ObjectChange<NoteDog>) in other += 1 }
        let siblingNameToken = dog.observe(keyPaths: ["siblings.name"]) { (_: ObjectChange<NoteDog>) in siblingNames += 1 }
        realm.refresh()
        try realm.write { dogs[1].name = "Sibling" }
        XCTAssertEqual(siblingNames, 1)
        // `adopted` and `siblings` tokens are on the same object as the `siblings.name` one, which fired.
        XCTAssertEqual(adopted, 1)
        XCTAssertEqual(siblings, 1)
        XCTAssertEqual(other, 0)
        siblingNameToken.invalidate()
        try realm.write { dogs[1].name = "Again" }
        XCTAssertEqual([adopted, siblings, siblingNames], [1, 1, 1])
        try realm.write { dog.adopted = true }
        XCTAssertEqual([adopted, siblings], [2, 2])
        tokens.forEach { $0.invalidate() }
        otherToken.invalidate()
    }

    // MARK: Maps and sections

    /// The reference's Map example (the initial callback sees the entry written after `observe`), then keys
    /// removed, added and changed.
    func testMapChangesReportKeys() throws {
        let realm = try openRealm()
        let dog = try addDogs(realm, ["Rex"])[0]
        var initialCount: Int?
        var updates: [(deletions: [String], insertions: [String], modifications: [String])] = []
        let token = dog.tags.observe { change in
            switch change {
            case .initial(let map): initialCount = map.count
            case .update(_, let deletions, let insertions, let modifications):
                updates.append((deletions.sorted(), insertions.sorted(), modifications.sorted()))
            case .error: XCTFail()
            }
        }
        try realm.write { dog.tags["nameOfDog"] = "Rex" }
        XCTAssertEqual(initialCount, 1)
        XCTAssertTrue(updates.isEmpty)
        try realm.write {
            dog.tags["a"] = "1"
            dog.tags["nameOfDog"] = "Max"
        }
        XCTAssertEqual(updates.last?.insertions, ["a"])
        XCTAssertEqual(updates.last?.modifications, ["nameOfDog"])
        try realm.write { dog.tags.removeObject(for: "a") }
        XCTAssertEqual(updates.last?.deletions, ["a"])
        try realm.write { dog.name = "not in the map" }
        XCTAssertEqual(updates.count, 2)
        token.invalidate()
    }

    /// The reference's Map key-path example: a map of dogs observed with `["name"]` is told when an entry is added
    /// or removed and when a dog's name changes, not when another property of a dog changes.
    func testMapOfObjectsWithKeyPaths() throws {
        let realm = try openRealm()
        let owner = try realm.write { realm.create(NoteOwner.self, value: ["name": "o"]) }
        let dog = try addDogs(realm, ["Rex"])[0]
        try realm.write { owner.dogsByName["rex"] = dog }
        var updates: [(insertions: [String], modifications: [String], deletions: [String])] = []
        let token = owner.dogsByName.observe(keyPaths: ["name"]) { change in
            if case .update(_, let deletions, let insertions, let modifications) = change {
                updates.append((insertions, modifications, deletions))
            }
        }
        realm.refresh()
        try realm.write { dog.age = 5 }
        XCTAssertEqual(updates.count, 0, "age is not observed")
        try realm.write { dog.name = "Max" }
        XCTAssertEqual(updates.last?.modifications, ["rex"])
        try realm.write { owner.dogsByName["fido"] = realm.create(NoteDog.self, value: ["name": "Fido"]) }
        XCTAssertEqual(updates.last?.insertions, ["fido"])
        try realm.write { owner.dogsByName.removeObject(for: "rex") }
        XCTAssertEqual(updates.last?.deletions, ["rex"])
        XCTAssertEqual(updates.count, 3)
        token.invalidate()

        // The same with a Swift key path of the map's object values.
        var keyPathModifications: [[String]] = []
        let keyPathToken = owner.dogsByName.observe(keyPaths: [\NoteDog.name]) { change in
            if case .update(_, _, _, let modifications) = change { keyPathModifications.append(modifications) }
        }
        realm.refresh()
        let fido = try XCTUnwrap(owner.dogsByName["fido"] ?? nil)
        try realm.write { fido.age = 3 }
        try realm.write { fido.name = "Fido II" }
        XCTAssertEqual(keyPathModifications, [["fido"]])
        keyPathToken.invalidate()
    }

    /// The reference's sectioned example, then an object moving between sections by changing its section key,
    /// a new section, and a section's own observation.
    func testSectionedResultsReportSectionsAndIndexPaths() throws {
        let realm = try openRealm()
        let sectioned = realm.objects(NoteDog.self).sectioned(by: \.age, ascending: true)
        XCTAssertEqual(sectioned.count, 0)
        var initialSections: Int?
        var updates: [(deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
                       inserted: IndexSet, deleted: IndexSet)] = []
        let token = sectioned.observe { change in
            switch change {
            case .initial(let sections): initialSections = sections.count
            case .update(_, let deletions, let insertions, let modifications, let inserted, let deleted):
                updates.append((deletions, insertions, modifications, inserted, deleted))
            }
        }
        let dogs = try realm.write { [realm.create(NoteDog.self, value: ["name": "a", "age": 1]),
                                      realm.create(NoteDog.self, value: ["name": "b", "age": 1])] }
        XCTAssertEqual(initialSections, 1)
        var sectionChanges: [Update] = []
        let sectionToken = sectioned[0].observe { change in
            if case .update(_, let deletions, let insertions, let modifications) = change {
                sectionChanges.append((deletions, insertions, modifications))
            }
        }
        realm.refresh()
        try realm.write { dogs[1].age = 2 }   // b moves to a new section
        let update = try XCTUnwrap(updates.last)
        XCTAssertEqual(update.inserted, IndexSet([1]))
        XCTAssertEqual(update.deleted, IndexSet())
        XCTAssertEqual(update.deletions, [IndexPath(indexes: [0, 1])])
        XCTAssertTrue(update.insertions.isEmpty, "the new section's elements come with the section")
        XCTAssertEqual(sectionChanges.last?.deletions, [1])
        try realm.write { dogs[0].name = "renamed" }
        XCTAssertEqual(updates.last?.modifications, [IndexPath(indexes: [0, 0])])
        XCTAssertEqual(sectionChanges.last?.modifications, [0])
        try realm.write { realm.delete(dogs[0]) }
        XCTAssertEqual(updates.last?.deleted, IndexSet([0]))
        token.invalidate()
        sectionToken.invalidate()
    }

    // MARK: Delivery

    func testDeliveryOnAQueue() throws {
        let realm = try openRealm()
        _ = try addDogs(realm, ["a"])
        let queue = DispatchQueue(label: "notifications")
        let initial = expectation(description: "initial")
        let update = expectation(description: "update")
        let recorder = Recorder<Results<NoteDog>>()
        let token = realm.objects(NoteDog.self).observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            recorder.record(change)
            switch change {
            case .initial(let results): XCTAssertEqual(results.count, 1); initial.fulfill()
            case .update(let results, _, let insertions, _):
                XCTAssertEqual(results.count, 2)
                XCTAssertEqual(insertions, [1])
                XCTAssertEqual(results[1].name, "b")
                update.fulfill()
            case .error: break
            }
        }
        wait(for: [initial], timeout: 10)
        _ = try addDogs(realm, ["b"])
        wait(for: [update], timeout: 10)
        token.invalidate()
    }

    /// Objects, maps, lists and sectioned results observed on a queue are rebuilt there and report there.
    func testObjectsMapsListsAndSectionsDeliverOnAQueue() throws {
        let realm = try openRealm()
        let owner = try realm.write { realm.create(NoteOwner.self, value: ["name": "o"]) }
        let dog = try addDogs(realm, ["Rex"])[0]
        let queue = DispatchQueue(label: "notifications")
        let seen = SeenChanges()
        let initials = expectation(description: "initial callbacks")
        initials.expectedFulfillmentCount = 3
        let updates = expectation(description: "updates")
        updates.expectedFulfillmentCount = 4
        let tokens = [
            dog.observe(on: queue) { (change: ObjectChange<NoteDog>) in
                dispatchPrecondition(condition: .onQueue(queue))
                if case .change(let object, let properties) = change {
                    seen.append("object \(object.name) \(properties.map(\.name))")
                    updates.fulfill()
                }
            },
            dog.tags.observe(on: queue) { change in
                dispatchPrecondition(condition: .onQueue(queue))
                switch change {
                case .initial: initials.fulfill()
                case .update(let map, _, let insertions, _):
                    seen.append("map \(insertions) \(map["k"] ?? "nil")")
                    updates.fulfill()
                case .error: break
                }
            },
            owner.dogs.observe(on: queue) { change in
                dispatchPrecondition(condition: .onQueue(queue))
                switch change {
                case .initial: initials.fulfill()
                case .update(let dogs, _, let insertions, _):
                    seen.append("list \(insertions) \(dogs.map(\.name))")
                    updates.fulfill()
                case .error: break
                }
            },
            realm.objects(NoteDog.self).sectioned(by: \.age).observe(on: queue) { change in
                dispatchPrecondition(condition: .onQueue(queue))
                switch change {
                case .initial: initials.fulfill()
                case .update(let sections, _, _, _, let inserted, _):
                    seen.append("sections \(Array(inserted)) \(sections.allKeys)")
                    updates.fulfill()
                }
            },
        ]
        wait(for: [initials], timeout: 10)
        try realm.write {
            dog.age = 3
            dog.tags["k"] = "v"
            owner.dogs.append(dog)
        }
        wait(for: [updates], timeout: 10)
        XCTAssertEqual(seen.all.sorted(), ["list [0] [\"Rex\"]", "map [\"k\"] v", "object Rex [\"age\", \"tags\"]",
                                           "sections [0] [3]"].sorted())
        tokens.forEach { $0.invalidate() }
    }

    /// Without a queue, a commit on another thread reaches the observing thread through its run loop
    /// (autorefresh), with no `refresh()` call.
    func testDeliveryFromTheRunLoopAfterAnotherThreadCommits() throws {
        let realm = try openRealm()
        let delivered = expectation(description: "update")
        var insertions: [Int] = []
        let token = realm.objects(NoteDog.self).observe { change in
            if case .update(_, _, let inserted, _) = change {
                insertions = inserted
                delivered.fulfill()
            }
        }
        let configuration = self.configuration!
        Thread {
            let other = try! Realm(configuration: configuration)
            try! other.write { other.create(NoteDog.self, value: ["name": "x"]) }
        }.start()
        wait(for: [delivered], timeout: 10)
        XCTAssertEqual(insertions, [0])
        token.invalidate()
    }

    /// RealmSwift's autorefresh needs no observer: a Realm on a thread whose run loop runs sees another thread's
    /// commit without `refresh()`; with autorefresh off it keeps its version until refreshed.
    func testAutorefreshWithoutObserversMovesARealmOnARunLoopThread() throws {
        let realm = try openRealm()
        let results = realm.objects(NoteDog.self)
        XCTAssertEqual(results.count, 0)
        let configuration = self.configuration!
        func commitElsewhere() {
            let done = expectation(description: "committed on another thread")
            Thread {
                let other = try! Realm(configuration: configuration)
                try! other.write { other.create(NoteDog.self, value: ["name": "x"]) }
                done.fulfill()
            }.start()
            wait(for: [done], timeout: 10)
        }
        commitElsewhere()
        let deadline = Date(timeIntervalSinceNow: 10)
        while results.count == 0 && Date() < deadline {
            RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.01))
        }
        XCTAssertEqual(results.count, 1, "refreshed from the run loop, with nothing observing")

        realm.autorefresh = false
        commitElsewhere()
        RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.3))
        XCTAssertEqual(results.count, 1, "autorefresh off: still the old version")
        realm.refresh()
        XCTAssertEqual(results.count, 2)
    }

    /// A commit made by another process reaches an observer without a `refresh()` call.
    func testDeliveryAfterAnotherProcessCommits() throws {
        let realm = try openRealm()
        let delivered = expectation(description: "update")
        var insertions: [Int] = []
        let token = realm.objects(Dog.self).observe { change in
            if case .update(_, _, let inserted, _) = change {
                insertions = inserted
                delivered.fulfill()
            }
        }
        realm.refresh()
        try WorkerProcess(["realm-write", configuration.fileURL!.path]).waitForSuccess()
        wait(for: [delivered], timeout: 10)
        XCTAssertEqual(insertions, [0, 1, 2])
        token.invalidate()
    }

    /// Another process sets properties to the values they hold: collection and object observers are told, as for a
    /// self-assignment made here (the writes come through the write log in the lock file).
    func testSelfAssignmentInAnotherProcessNotifies() throws {
        let path = configuration.fileURL!.path
        try WorkerProcess(["realm-write", path]).waitForSuccess()
        let realm = try openRealm()
        let dogs = realm.objects(Dog.self).sorted(byKeyPath: "age")
        XCTAssertEqual(dogs.count, 3)
        let collectionUpdate = expectation(description: "collection update")
        let objectChange = expectation(description: "object change")
        var modifications: [Int] = []
        var changedProperties: [String] = []
        var values: [(Int?, Int?)] = []
        let collectionToken = dogs.observe { change in
            if case .update(_, let deletions, let insertions, let modified) = change {
                XCTAssertEqual(deletions, [])
                XCTAssertEqual(insertions, [])
                modifications = modified
                collectionUpdate.fulfill()
            }
        }
        let fido = dogs[1]
        let objectToken = fido.observe { change in
            if case .change(_, let properties) = change {
                changedProperties = properties.map(\.name)
                values = properties.map { ($0.oldValue as? Int, $0.newValue as? Int) }
                objectChange.fulfill()
            }
        }
        realm.refresh()
        try WorkerProcess(["realm-self-assign", path]).waitForSuccess()
        wait(for: [collectionUpdate, objectChange], timeout: 10)
        XCTAssertEqual(modifications, [0, 1, 2])
        XCTAssertEqual(changedProperties, ["age"])
        XCTAssertEqual(values.map(\.0), [3])
        XCTAssertEqual(values.map(\.1), [3])
        collectionToken.invalidate()
        objectToken.invalidate()
    }

    /// `for await change in results.changes`: every change, each with a frozen copy readable in the consuming task.
    func testChangesAsAnAsyncSequenceCarryFrozenCollections() throws {
        let realm = try openRealm()
        let stream = realm.objects(NoteDog.self).sorted(byKeyPath: "name").changes
        let progress = [expectation(description: "initial"), expectation(description: "first update"),
                        expectation(description: "second update")]
        let seen = SeenChanges()
        let consumer = Task.detached {
            for await change in stream {
                switch change {
                case .initial(let dogs):
                    seen.append("initial \(dogs.count) frozen \(dogs.isFrozen)")
                case .update(let dogs, let deletions, let insertions, _):
                    seen.append("update \(dogs.map(\.name)) -\(deletions) +\(insertions)")
                case .error: break
                }
                progress[seen.count - 1].fulfill()
                if seen.count == 3 { break }
            }
        }
        wait(for: [progress[0]], timeout: 10)
        _ = try realm.write { realm.create(NoteDog.self, value: ["name": "b"]) }
        wait(for: [progress[1]], timeout: 10)
        _ = try realm.write { realm.create(NoteDog.self, value: ["name": "a"]) }
        wait(for: [progress[2]], timeout: 10)
        consumer.cancel()
        XCTAssertEqual(seen.all, ["initial 0 frozen true", "update [\"b\"] -[] +[0]", "update [\"a\", \"b\"] -[] +[0]"])
    }

    /// `object.changes`: each change carries the object frozen, a list among the new values frozen too, and the
    /// sequence ends by itself after `.deleted`.
    func testObjectChangesAsAnAsyncSequenceEndAfterDeletion() throws {
        let realm = try openRealm()
        let dog = try realm.write { realm.create(NoteDog.self, value: ["name": "rex"]) }
        let stream = dog.changes
        let seen = SeenChanges()
        let progress = (0 ..< 3).map { expectation(description: "change \($0)") }
        let ended = expectation(description: "the sequence ended after the deletion")
        let consumer = Task.detached {
            for await change in stream {
                switch change {
                case .change(let object, let properties):
                    let values = properties.map { property -> String in
                        if let toys = property.newValue as? List<NoteToy> {
                            return "\(property.name) \(toys.count) frozen \(toys.isFrozen)"
                        }
                        return "\(property.name) \(property.oldValue ?? "nil") -> \(property.newValue ?? "nil")"
                    }
                    seen.append("change \(object.name) frozen \(object.isFrozen): \(values)")
                case .deleted: seen.append("deleted")
                case .error: seen.append("error")
                }
                progress[min(seen.count, 3) - 1].fulfill()
            }
            ended.fulfill()
        }
        // No initial callback for objects: give the observation (registered on the stream's queue) time to start,
        // then write in three steps, each after the previous one was seen (changes that wait coalesce).
        Thread.sleep(forTimeInterval: 0.5)
        try realm.write { dog.name = "max" }
        wait(for: [progress[0]], timeout: 10)
        try realm.write { dog.toys.append(NoteToy(value: ["brand": "acme"])) }
        wait(for: [progress[1]], timeout: 10)
        try realm.write { realm.delete(dog) }
        wait(for: [progress[2], ended], timeout: 10)
        consumer.cancel()
        XCTAssertEqual(seen.all, ["change max frozen true: [\"name rex -> max\"]",
                                  "change max frozen true: [\"toys 1 frozen true\"]", "deleted"])
    }

    /// `map.changes` and `sectioned.changes`: the keys and index paths of each write, with frozen collections (a new
    /// section's elements come with the section, not as insertions).
    func testMapAndSectionedChangesAsAsyncSequences() throws {
        let realm = try openRealm()
        let owner = try realm.write { realm.create(NoteOwner.self, value: ["name": "o"]) }
        let mapStream = owner.dogsByName.changes
        let sectionedStream = realm.objects(NoteDog.self).sectioned(by: \.age, ascending: true).changes
        let seen = SeenChanges()
        let progress = (0 ..< 4).map { expectation(description: "change \($0)") }
        let mapConsumer = Task.detached {
            for await change in mapStream {
                switch change {
                case .initial(let map): seen.append("map initial \(map.count) frozen \(map.isFrozen)")
                case .update(let map, let deletions, let insertions, let modifications):
                    seen.append("map update \(Array(map.keys)) frozen \(map.isFrozen) -\(deletions) +\(insertions) ~\(modifications)")
                case .error: break
                }
                progress[seen.count - 1].fulfill()
            }
        }
        wait(for: [progress[0]], timeout: 10)
        let sectionedConsumer = Task.detached {
            for await change in sectionedStream {
                switch change {
                case .initial(let sections): seen.append("sections initial \(sections.count) frozen \(sections.isFrozen)")
                case .update(let sections, _, let insertions, _, let sectionsToInsert, _):
                    seen.append("sections update \(sections.allKeys) frozen \(sections.isFrozen) +\(insertions.map { [$0[0], $0[1]] }) sections +\(Array(sectionsToInsert))")
                }
                progress[seen.count - 1].fulfill()
            }
        }
        wait(for: [progress[1]], timeout: 10)
        try realm.write { owner.dogsByName["a"] = realm.create(NoteDog.self, value: ["name": "a", "age": 3]) }
        wait(for: [progress[2], progress[3]], timeout: 10)
        mapConsumer.cancel()
        sectionedConsumer.cancel()
        XCTAssertEqual(Set(seen.all), ["map initial 0 frozen true", "sections initial 0 frozen true",
                                       "map update [\"a\"] frozen true -[] +[\"a\"] ~[]",
                                       "sections update [3] frozen true +[] sections +[0]"])
    }

    /// `realm.changes`: a `.didChange` for a commit of this thread and one of another process.
    func testRealmChangesAsAnAsyncSequence() throws {
        let realm = try openRealm()
        let stream = realm.changes
        let seen = SeenChanges()
        let progress = (0 ..< 2).map { expectation(description: "change \($0)") }
        let consumer = Task.detached {
            for await notification in stream {
                seen.append(notification.rawValue)
                progress[min(seen.count, 2) - 1].fulfill()
            }
        }
        _ = try addDogs(realm, ["a"])
        wait(for: [progress[0]], timeout: 10)
        try WorkerProcess(["realm-write", configuration.fileURL!.path]).waitForSuccess()
        wait(for: [progress[1]], timeout: 10)
        consumer.cancel()
        XCTAssertEqual(seen.all.prefix(2), ["RLMRealmDidChangeNotification", "RLMRealmDidChangeNotification"])
    }

    func testRealmNotificationsAndRefreshRequired() throws {
        let realm = try openRealm()
        var notes: [Realm.Notification] = []
        let token = realm.observe { note, _ in notes.append(note) }
        _ = try addDogs(realm, ["a"])
        XCTAssertEqual(notes, [.didChange])
        realm.autorefresh = false
        let required = expectation(description: "refresh required")
        let second = realm.observe { note, _ in if note == .refreshRequired { required.fulfill() } }
        let configuration = self.configuration!
        Thread {
            let other = try! Realm(configuration: configuration)
            try! other.write { other.create(NoteDog.self, value: ["name": "x"]) }
        }.start()
        wait(for: [required], timeout: 10)
        XCTAssertEqual(realm.objects(NoteDog.self).count, 1, "autorefresh off: still the old version")
        realm.refresh()
        XCTAssertEqual(realm.objects(NoteDog.self).count, 2)
        XCTAssertEqual(notes.last, .didChange)
        token.invalidate()
        second.invalidate()
    }

    // MARK: Property test

    /// Random write sequences against a live filtered and sorted Results and a List: applying every delivered
    /// change set to the previous snapshot gives the new one exactly, and modifications name exactly the kept
    /// objects whose observed values changed.
    func testApplyingEveryChangeSetReproducesTheNewSnapshot() throws {
        let realm = try openRealm()
        let owner = try realm.write { realm.create(NoteOwner.self, value: ["name": "o"]) }
        let results = realm.objects(NoteDog.self).filter("age < 50").sorted(byKeyPath: "age")
        var generator = SystemRandomNumberGenerator()
        for seed in 0 ..< 3 {
            var random = SplitMix(seed: UInt64(seed) &+ UInt64.random(in: 0 ... 1_000, using: &generator))
            var resultsSnapshot: [String] = []
            var listSnapshot: [String] = []
            var resultsAges: [String: Int] = [:]
            var checkedUpdates = 0
            func names<C: Sequence>(_ collection: C) -> [String] where C.Element == NoteDog { collection.map(\.name) }
            let resultsToken = results.observe { change in
                switch change {
                case .initial(let collection):
                    resultsSnapshot = names(collection)
                    resultsAges = Dictionary(uniqueKeysWithValues: collection.map { ($0.name, $0.age) })
                case .update(let collection, let deletions, let insertions, let modifications):
                    let now = names(collection)
                    let rebuilt = OrderedApply.apply(old: resultsSnapshot, deletions: deletions, insertions: insertions,
                                                     new: now)
                    XCTAssertEqual(rebuilt, now, "seed \(seed)")
                    let changedAges = Set(collection.enumerated().compactMap { position, dog in
                        resultsAges[dog.name].map { $0 != dog.age ? position : -1 }
                    }.filter { $0 >= 0 })
                    XCTAssertTrue(changedAges.isSubset(of: Set(modifications).union(insertions)), "seed \(seed)")
                    resultsSnapshot = now
                    resultsAges = Dictionary(uniqueKeysWithValues: collection.map { ($0.name, $0.age) })
                    checkedUpdates += 1
                case .error: XCTFail()
                }
            }
            let listToken = owner.dogs.observe { change in
                switch change {
                case .initial(let list): listSnapshot = names(list)
                case .update(let list, let deletions, let insertions, _):
                    let now = names(list)
                    XCTAssertEqual(OrderedApply.apply(old: listSnapshot, deletions: deletions, insertions: insertions,
                                                      new: now), now, "seed \(seed)")
                    listSnapshot = now
                case .error: XCTFail()
                }
            }
            realm.refresh()
            var counter = 0
            for _ in 0 ..< 60 {
                try realm.write {
                    for _ in 0 ..< Int(random.next() % 4) + 1 {
                        let dogs = realm.objects(NoteDog.self)
                        switch random.next() % 6 {
                        case 0, 1:
                            counter += 1
                            let dog = realm.create(NoteDog.self, value: ["name": "s\(seed)d\(counter)",
                                                                         "age": Int(random.next() % 60)])
                            owner.dogs.insert(dog, at: Int(random.next() % UInt64(owner.dogs.count + 1)))
                        case 2 where !dogs.isEmpty:
                            realm.delete(dogs[Int(random.next() % UInt64(dogs.count))])
                        case 3 where !dogs.isEmpty:
                            dogs[Int(random.next() % UInt64(dogs.count))].age = Int(random.next() % 60)
                        case 4 where owner.dogs.count > 1:
                            owner.dogs.move(from: Int(random.next() % UInt64(owner.dogs.count)),
                                            to: Int(random.next() % UInt64(owner.dogs.count)))
                        case 5 where !owner.dogs.isEmpty:
                            owner.dogs.remove(at: Int(random.next() % UInt64(owner.dogs.count)))
                        default: break
                        }
                    }
                }
            }
            XCTAssertEqual(resultsSnapshot, names(results))
            XCTAssertEqual(listSnapshot, names(owner.dogs))
            XCTAssertGreaterThan(checkedUpdates, 10)
            resultsToken.invalidate()
            listToken.invalidate()
            try realm.write { realm.delete(realm.objects(NoteDog.self)) }
        }
    }
}

extension NotificationTests {
    /// Random write sequences against a live SectionedResults and a Map: applying every delivered change (section
    /// deletions and insertions with their index paths; map keys removed, added and changed) to the previous
    /// snapshot gives the new one exactly.
    func testApplyingEverySectionedAndMapChangeReproducesTheNewSnapshot() throws {
        let realm = try openRealm()
        let holder = try addDogs(realm, ["holder"])[0]
        let sectioned = realm.objects(NoteDog.self).filter("name != 'holder'").sectioned(by: \.age, ascending: true)
        var random = SplitMix(seed: UInt64.random(in: 0 ... 1_000_000))
        let seed = random.state
        func snapshot(_ sections: SectionedResults<Int, NoteDog>) -> [[String]] { sections.map { $0.map(\.name) } }
        var sections: [[String]] = []
        var map: [String: String] = [:]
        var updates = 0
        let sectionedToken = sectioned.observe { change in
            switch change {
            case .initial(let now): sections = snapshot(now)
            case .update(let now, let deletions, let insertions, _, let inserted, let deleted):
                let new = snapshot(now)
                var rebuilt = sections
                for path in deletions.sorted(by: >) { rebuilt[path[0]].remove(at: path[1]) }
                for index in deleted.reversed() { rebuilt.remove(at: index) }
                for index in inserted { rebuilt.insert(new[index], at: index) }
                for path in insertions.sorted() { rebuilt[path[0]].insert(new[path[0]][path[1]], at: path[1]) }
                XCTAssertEqual(rebuilt, new, "seed \(seed)")
                sections = new
                updates += 1
            }
        }
        let mapToken = holder.tags.observe { change in
            switch change {
            case .initial(let now): map = Dictionary(uniqueKeysWithValues: now.asKeyValueSequence().map { ($0.key, $0.value) })
            case .update(let now, let deletions, let insertions, let modifications):
                var rebuilt = map
                for key in deletions { rebuilt[key] = nil }
                for key in insertions + modifications { rebuilt[key] = now[key] }
                let new = Dictionary(uniqueKeysWithValues: now.asKeyValueSequence().map { ($0.key, $0.value) })
                XCTAssertEqual(rebuilt, new, "seed \(seed)")
                map = new
            case .error: XCTFail()
            }
        }
        realm.refresh()
        var counter = 0
        for _ in 0 ..< 80 {
            try realm.write {
                for _ in 0 ..< Int(random.next() % 3) + 1 {
                    let dogs = realm.objects(NoteDog.self).filter("name != 'holder'")
                    switch random.next() % 7 {
                    case 0, 1:
                        counter += 1
                        realm.create(NoteDog.self, value: ["name": "d\(counter)", "age": Int(random.next() % 6)])
                    case 2 where !dogs.isEmpty: realm.delete(dogs[Int(random.next() % UInt64(dogs.count))])
                    case 3 where !dogs.isEmpty: dogs[Int(random.next() % UInt64(dogs.count))].age = Int(random.next() % 6)
                    case 4: holder.tags["k\(random.next() % 8)"] = "v\(random.next() % 4)"
                    case 5: holder.tags.removeObject(for: "k\(random.next() % 8)")
                    default: break
                    }
                }
            }
        }
        XCTAssertEqual(sections, snapshot(sectioned))
        XCTAssertGreaterThan(updates, 10)
        sectionedToken.invalidate()
        mapToken.invalidate()
    }
}

final class SeenChanges: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func append(_ item: String) { lock.withLock { items.append(item) } }
    var count: Int { lock.withLock { items.count } }
    var all: [String] { lock.withLock { items } }
}

/// Rebuilds a new snapshot from the old one and a change set (elements inserted are taken from the new one).
enum OrderedApply {
    static func apply<T>(old: [T], deletions: [Int], insertions: [Int], new: [T]) -> [T] {
        var result = old
        for position in deletions.sorted().reversed() { result.remove(at: position) }
        for position in insertions.sorted() where position <= result.count { result.insert(new[position], at: position) }
        return result
    }
}

/// A small seeded generator (the seed is in each failure message).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Misuse of `observe` stops with RealmSwift's messages (each case in a child process, DeathTest.swift).
final class NotificationMisuseTests: RealmTestCase, DeathCaseTable {
    static let deathCaseRunner = "ColumnarTests.NotificationMisuseTests/testRunDeathCase"

    var deathCases: [String: () throws -> Void] {
        [
            "observing inside a write": {
                let realm = try self.openRealm()
                try realm.write { _ = realm.objects(NoteDog.self).observe { _ in } }
            },
            "observing an unknown key path": {
                let realm = try self.openRealm()
                _ = realm.objects(NoteDog.self).observe(keyPaths: ["nope"]) { _ in }
            },
            "observing an unmanaged object": {
                _ = NoteDog().observe { (_: ObjectChange<NoteDog>) in }
            },
        ]
    }

    func testRunDeathCase() throws {
        try runDeathCase()
    }

    func testMisuseStopsWithAMessage() {
        assertStops("observing inside a write", "Cannot register notification blocks from within write transactions.")
        assertStops("observing an unknown key path", "Property 'nope' not found in object of type 'NoteDog'")
        assertStops("observing an unmanaged object", "Only objects which are managed by a Realm support change "
                        + "notifications")
    }
}
