// ActorRealmTests: a Realm isolated to an actor stays usable across suspensions (the actor resumes on varying
// threads), async writes from many tasks at once all land, in order per Realm, and observation delivered on an
// actor sees other threads' commits.

import Columnar
import Foundation
import XCTest

actor DogStore {
    private var realm: Realm!
    private(set) var updates: [[Int]] = []
    private var token: NotificationToken?

    func open(_ configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    /// `Realm.open`: a Realm isolated to the calling actor, this one.
    func openIsolatedToCaller(_ configuration: Realm.Configuration) async throws -> Int {
        realm = try await Realm.open(configuration: configuration)
        await Task.yield()
        try realm.write { realm.create(NoteDog.self, value: ["name": "opened"]) }
        return realm.objects(NoteDog.self).count
    }

    /// Reads after a suspension, which may resume on another thread.
    func countAfterYield() async -> Int {
        await Task.yield()
        return realm.objects(NoteDog.self).count
    }

    func add(_ name: String) async throws -> Int {
        try await realm.asyncWrite { realm.create(NoteDog.self, value: ["name": name]) }
        return realm.objects(NoteDog.self).count
    }

    func failingWrite() async -> Bool {
        struct Refused: Error {}
        do {
            try await realm.asyncWrite {
                realm.create(NoteDog.self, value: ["name": "never"])
                throw Refused()
            }
            return false
        } catch {
            return error is Refused
        }
    }

    func count(_ predicate: String) -> Int { realm.objects(NoteDog.self).filter(predicate).count }

    func refreshedCount() async -> (changed: Bool, count: Int) {
        let changed = await realm.asyncRefresh()
        return (changed, realm.objects(NoteDog.self).count)
    }

    func startObserving() async {
        token = await realm.objects(NoteDog.self).sorted(byKeyPath: "name").observe(on: self) { store, change in
            if case .update(_, _, let insertions, _) = change { store.updates.append(insertions) }
        }
    }

    /// Starts observing, then, before this actor does anything else, lets another thread commit a dog: a write
    /// committed after `observe(on:)` returns, which the observation must report as a change.
    func startObservingThenLetAnotherThreadWrite(_ configuration: Realm.Configuration) async {
        await startObserving()
        let committed = DispatchSemaphore(value: 0)
        let writer = Thread {
            let other = try? Realm(configuration: configuration)
            try? other?.write { other?.create(NoteDog.self, value: ["name": "b"]) }
            committed.signal()
        }
        writer.start()
        committed.wait()
    }

    func stopObserving() { token?.invalidate() }

    private(set) var listUpdates: [[Int]] = []
    private var listToken: NotificationToken?

    /// Observes an owner's list of dogs on this actor (made here if missing).
    func startObservingList() async throws {
        let owner = try realm.write { realm.create(NoteOwner.self, value: ["name": "list owner"]) }
        listToken = await owner.dogs.observe(on: self) { store, change in
            if case .update(_, _, let insertions, _) = change { store.listUpdates.append(insertions) }
        }
    }

    func stopObservingList() { listToken?.invalidate() }

    private(set) var otherUpdates: [String] = []
    private var otherTokens: [NotificationToken] = []

    /// Observes a map, an AnyRealmCollection (with a Swift key path), sectioned results and one section on this
    /// actor.
    func startObservingMapAndSections() async throws {
        let owner = try realm.write { realm.create(NoteOwner.self, value: ["name": "map owner"]) }
        otherTokens.append(await owner.dogsByName.observe(on: self) { store, change in
            if case .update(_, _, let insertions, _) = change { store.otherUpdates.append("map +\(insertions)") }
        })
        let anyDogs = AnyRealmCollection(realm.objects(NoteDog.self))
        otherTokens.append(await anyDogs.observe(keyPaths: [\NoteDog.name], on: self) { store, change in
            if case .update(let dogs, _, let insertions, _) = change {
                store.otherUpdates.append("any +\(insertions) of \(dogs.count)")
            }
        })
        let sectioned = realm.objects(NoteDog.self).sectioned(by: \.age, ascending: true)
        otherTokens.append(await sectioned.observe(on: self) { store, change in
            if case .update(_, _, let insertions, _, _, _) = change {
                store.otherUpdates.append("sectioned +\(insertions.map { [$0[0], $0[1]] })")
            }
        })
        try realm.write { realm.create(NoteDog.self, value: ["name": "seed", "age": 7]) }
        otherTokens.append(await sectioned[0].observe(on: self) { store, change in
            if case .update(_, _, let insertions, _) = change { store.otherUpdates.append("section +\(insertions)") }
        })
    }

    func stopObservingMapAndSections() { otherTokens.forEach { $0.invalidate() } }
}

final class ActorRealmTests: RealmTestCase {
    /// Acceptance: an actor-isolated Realm used across 1,000 awaits.
    func testAnActorIsolatedRealmWorksAcrossAThousandAwaits() async throws {
        let store = DogStore()
        try await store.open(configuration)
        _ = try await store.add("first")
        for _ in 0 ..< 1_000 {
            let count = await store.countAfterYield()
            XCTAssertEqual(count, 1)
        }
    }

    /// Acceptance: async writes from 8 tasks at once all land.
    func testAsyncWritesFromEightTasksAtOnceAllLand() async throws {
        let store = DogStore()
        try await store.open(configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0 ..< 8 {
                group.addTask {
                    for index in 0 ..< 25 { _ = try await store.add("t\(task)-\(index)") }
                }
            }
            try await group.waitForAll()
        }
        let landed = await store.count("name BEGINSWITH 't'")
        XCTAssertEqual(landed, 200)
        let refused = await store.failingWrite()
        XCTAssertTrue(refused)
        let never = await store.count("name == 'never'")
        XCTAssertEqual(never, 0, "a throwing block's write is rolled back")
        // Another thread's Realm sees them all, and the actor's Realm sees that thread's write after asyncRefresh.
        let configuration = self.configuration!
        try await Task.detached {
            let other = try Realm(configuration: configuration)
            XCTAssertEqual(other.objects(NoteDog.self).count, 200)
            try other.write { other.create(NoteDog.self, value: ["name": "other"]) }
        }.value
        let refreshed = await store.refreshedCount()
        XCTAssertEqual(refreshed.count, 201)
    }

    func testObservationDeliveredOnAnActor() async throws {
        let store = DogStore()
        try await store.open(configuration)
        await store.startObserving()
        let configuration = self.configuration!
        try await Task.detached {
            let other = try Realm(configuration: configuration)
            try other.write { other.create(NoteDog.self, value: ["name": "b"]) }
        }.value
        var updates: [[Int]] = []
        for _ in 0 ..< 200 where updates.isEmpty {
            try await Task.sleep(nanoseconds: 20_000_000)
            updates = await store.updates
        }
        XCTAssertEqual(updates, [[0]])
        await store.stopObserving()
    }

    func testAWriteCommittedRightAfterObserveReturnsIsReportedAsAChange() async throws {
        let store = DogStore()
        try await store.open(configuration)
        await store.startObservingThenLetAnotherThreadWrite(configuration)
        var updates: [[Int]] = []
        for _ in 0 ..< 200 where updates.isEmpty {
            try await Task.sleep(nanoseconds: 20_000_000)
            updates = await store.updates
        }
        XCTAssertEqual(updates, [[0]], "the write was taken into the observation's initial state")
        await store.stopObserving()
    }

    func testListObservationDeliveredOnAnActor() async throws {
        let store = DogStore()
        try await store.open(configuration)
        try await store.startObservingList()
        let configuration = self.configuration!
        // Let the actor deliver the initial state first, then append from another thread.
        try await Task.sleep(nanoseconds: 50_000_000)
        try await Task.detached {
            let other = try Realm(configuration: configuration)
            let owner = try XCTUnwrap(other.objects(NoteOwner.self).filter("name == 'list owner'").first)
            try other.write { owner.dogs.append(other.create(NoteDog.self, value: ["name": "listed"])) }
        }.value
        var updates: [[Int]] = []
        for _ in 0 ..< 200 where updates.isEmpty {
            try await Task.sleep(nanoseconds: 20_000_000)
            updates = await store.listUpdates
        }
        XCTAssertEqual(updates, [[0]])
        await store.stopObservingList()
    }

    func testRealmOpenIsolatesToTheCallingActor() async throws {
        let store = DogStore()
        let count = try await store.openIsolatedToCaller(configuration)
        XCTAssertEqual(count, 1)
        let countAfterYield = await store.countAfterYield()
        XCTAssertEqual(countAfterYield, 1)
    }

    @MainActor
    func testTheMainActorsAsyncInitializer() async throws {
        let realm = try await Realm(configuration: configuration)
        try realm.write { realm.create(NoteDog.self, value: ["name": "main"]) }
        await Task.yield()
        XCTAssertEqual(realm.objects(NoteDog.self).count, 1)
    }

    func testAsyncOpenCallsBackOnItsQueueWithARealmOfThatQueueAndCanBeCancelled() throws {
        let queue = DispatchQueue(label: "async-open")
        let opened = expectation(description: "opened")
        Realm.asyncOpen(configuration: configuration, callbackQueue: queue) { result in
            dispatchPrecondition(condition: .onQueue(queue))
            let realm = try! result.get()
            try! realm.write { realm.create(NoteDog.self, value: ["name": "queued"]) }
            XCTAssertEqual(realm.objects(NoteDog.self).count, 1)
            opened.fulfill()
        }
        wait(for: [opened], timeout: 10)
        let blocked = DispatchSemaphore(value: 0)
        queue.async { blocked.wait() }   // holds the queue so the cancel comes first
        let task = Realm.asyncOpen(configuration: configuration, callbackQueue: queue) { _ in
            XCTFail("a cancelled asyncOpen called back")
        }
        task.cancel()
        blocked.signal()
        queue.sync {}
        var wrongFile = configuration!
        wrongFile.fileURL = URL(fileURLWithPath: "/nonexistent-directory/x.realm")
        let failed = expectation(description: "the error is delivered")
        Realm.asyncOpen(configuration: wrongFile, callbackQueue: queue) { result in
            if case .failure(let error) = result, error is Realm.Error { failed.fulfill() }
        }
        wait(for: [failed], timeout: 10)
    }

    func testMapAnyCollectionAndSectionedObservationDeliveredOnAnActor() async throws {
        let store = DogStore()
        try await store.open(configuration)
        try await store.startObservingMapAndSections()
        let configuration = self.configuration!
        // Let the actor deliver the initial states first (and the seed dog's own update), then write elsewhere.
        try await Task.sleep(nanoseconds: 200_000_000)
        let before = Set(await store.otherUpdates)
        try await Task.detached {
            let other = try Realm(configuration: configuration)
            let owner = try XCTUnwrap(other.objects(NoteOwner.self).filter("name == 'map owner'").first)
            try other.write { owner.dogsByName["b"] = other.create(NoteDog.self, value: ["name": "b", "age": 7]) }
        }.value
        let expected: Set = ["map +[\"b\"]", "any +[1] of 2", "sectioned +[[0, 1]]", "section +[1]"]
        var updates: Set<String> = []
        for _ in 0 ..< 250 where updates != expected {
            try await Task.sleep(nanoseconds: 20_000_000)
            updates = Set(await store.otherUpdates).subtracting(before)
        }
        XCTAssertEqual(updates, expected)
        await store.stopObservingMapAndSections()
    }
}
