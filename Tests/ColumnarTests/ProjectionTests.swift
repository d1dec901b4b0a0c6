// ProjectionTests: RealmSwift's projections (`Projection`, `@Projected`, `projectTo`, `realm.objects(P.self)`):
// reading and writing through projected key paths, results of projections filtered, sorted, aggregated and
// sectioned by the root's properties and by the projection's key paths, projected collections, observation that
// names the projection's properties, freezing and hand-over, and the misuse that stops the program.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class PJAddress: EmbeddedObject {
    @Persisted var city = ""
    @Persisted var country = ""
}

final class PJTag: Object {
    @Persisted var label = ""
}

final class PJPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var age = 0
    @Persisted var nickname: String?
    @Persisted var address: PJAddress?
    @Persisted var friends: List<PJPerson>
    @Persisted var tags: MutableSet<PJTag>

    /// Not persisted: a projection of it has no root property.
    var shout: String { "HEY" }
}

final class PJPersonProjection: Projection<PJPerson> {
    @Projected(\PJPerson.firstName) var firstName
    @Projected(\PJPerson.lastName.localizedUppercase) var lastNameCaps
    @Projected(\PJPerson.age) var age
    @Projected(\PJPerson.address?.city) var homeCity
    @Projected(\PJPerson.friends.projectTo.firstName) var friendNames: ProjectedCollection<String>
    @Projected(\PJPerson.tags.projectTo.label) var tagLabels: ProjectedCollection<String>
    @Projected(\PJPerson.friends) var friends
}

extension PJPersonProjection: ObjectKeyIdentifiable {}

final class PJBadProjection: Projection<PJPerson> {
    @Projected(\PJPerson.shout) var shout
}

final class ProjectionTests: RealmTestCase {
    /// Five people; person i is `first<i> last<i>`, aged 20 + 10 * (i % 3), living in city<i % 2>; person 1 has
    /// friends 2 and 3 and tags a and b.
    private func populated() throws -> Realm {
        let realm = try openRealm()
        try realm.write {
            for index in 1 ... 5 {
                realm.create(PJPerson.self, value: [
                    "id": index, "firstName": "first\(index)", "lastName": "last\(index)", "age": 20 + 10 * (index % 3),
                    "address": ["city": "city\(index % 2)", "country": "c"],
                ])
            }
            let one = realm.object(ofType: PJPerson.self, forPrimaryKey: 1)!
            one.friends.append(objectsIn: [2, 3].map { realm.object(ofType: PJPerson.self, forPrimaryKey: $0)! })
            one.tags.insert(realm.create(PJTag.self, value: ["label": "a"]))
            one.tags.insert(realm.create(PJTag.self, value: ["label": "b"]))
        }
        return realm
    }

    private func projection(_ realm: Realm, _ id: Int) throws -> PJPersonProjection {
        try XCTUnwrap(realm.objects(PJPersonProjection.self).filter("id == %@", id).first)
    }

    func testResultsOfProjectionsReadAndWriteTheirRootObjects() throws {
        let realm = try populated()
        let people = realm.objects(PJPersonProjection.self)
        XCTAssertEqual(people.count, 5)
        XCTAssertEqual(PJPersonProjection.className(), "PJPerson")
        XCTAssertEqual(people.map(\.firstName), (1 ... 5).map { "first\($0)" })
        XCTAssertEqual(people[1].lastNameCaps, "LAST2")
        XCTAssertEqual(people.map(\.homeCity), (1 ... 5).map { "city\($0 % 2)" })
        XCTAssertEqual(people.first?.age, 30)
        XCTAssertEqual(people.last?.rootObject.id, 5)
        let one = try projection(realm, 1)
        XCTAssertEqual(one.friends.map(\.id), [2, 3])

        try realm.write {
            one.firstName = "Ada"
            one.age = 99
            one.rootObject.address?.city = "Paris"
        }
        let root = try XCTUnwrap(realm.object(ofType: PJPerson.self, forPrimaryKey: 1))
        XCTAssertEqual(root.firstName, "Ada")
        XCTAssertEqual(root.age, 99)
        XCTAssertEqual(root.address?.city, "Paris")
        XCTAssertEqual(people.first?.firstName, "Ada", "results of projections are live")

        // A projection of an unmanaged object reads and writes it.
        let unmanaged = PJPerson(value: ["firstName": "Grace", "lastName": "Hopper"])
        let projected = PJPersonProjection(projecting: unmanaged)
        XCTAssertEqual(projected.lastNameCaps, "HOPPER")
        projected.firstName = "G."
        XCTAssertEqual(unmanaged.firstName, "G.")
        XCTAssertNil(projected.realm)
    }

    func testFiltersSortsAndAggregatesNameTheRootsPropertiesAndKeyPathsMapToThem() throws {
        let realm = try populated()
        let people = realm.objects(PJPersonProjection.self)
        XCTAssertEqual(_name(for: \PJPersonProjection.homeCity), "address.city")
        XCTAssertEqual(_name(for: \PJPersonProjection.lastNameCaps), "lastName")
        XCTAssertEqual(_name(for: \PJPersonProjection.friends[0].firstName), "friends.firstName")

        // The same selections as the root's results, each checked against them.
        let roots = realm.objects(PJPerson.self)
        XCTAssertEqual(people.filter("age > 25").map(\.rootObject.id), roots.filter("age > 25").map(\.id))
        XCTAssertEqual(people.filter(NSPredicate(format: "address.city == %@", "city1")).map(\.rootObject.id),
                       [1, 3, 5])
        XCTAssertEqual(people.sorted(by: \.age, ascending: false).map(\.rootObject.id),
                       roots.sorted(by: [SortDescriptor(keyPath: "age", ascending: false),
                                         SortDescriptor(keyPath: "id")]).map(\.id))
        XCTAssertEqual(people.sorted(by: \.homeCity).map(\.homeCity), ["city0", "city0", "city1", "city1", "city1"])
        XCTAssertEqual(people.sorted(byKeyPath: "lastName", ascending: false).first?.firstName, "first5")
        XCTAssertEqual(people.distinct(by: [\PJPersonProjection.age]).count, 3)
        XCTAssertEqual(people.min(of: \.age), 20)
        XCTAssertEqual(people.max(of: \.age), 40)
        XCTAssertEqual(people.sum(of: \.age), roots.sum(of: \.age))
        XCTAssertEqual(people.average(of: \.age), roots.average(of: \.age))
        XCTAssertEqual(people.index(matching: "firstName == 'first3'"), 2)
        let third = people[2]
        XCTAssertEqual(people.index(of: third), 2)
        XCTAssertEqual(people.index(of: try projection(realm, 4)), 3, "another projection of the same object")

        let sections = people.sectioned(by: \.age, ascending: true)
        XCTAssertEqual(sections.allKeys, [20, 30, 40])
        XCTAssertEqual(sections[1].map(\.rootObject.id), roots.filter("age == 30").map(\.id))
        let byCity = people.sectioned(sortDescriptors: [SortDescriptor(keyPath: "id")]) { $0.homeCity ?? "" }
        XCTAssertEqual(byCity.allKeys, ["city1", "city0"])
    }

    func testProjectedCollectionsReadAndWriteEachObjectsProperty() throws {
        let realm = try populated()
        let one = try projection(realm, 1)
        XCTAssertEqual(Array(one.friendNames), ["first2", "first3"])
        XCTAssertEqual(one.friendNames.count, 2)
        XCTAssertEqual(one.friendNames.index(of: "first3"), 1)
        XCTAssertEqual(one.friendNames.index(matching: NSPredicate(format: "age == 40")), 0)
        XCTAssertEqual(Set(one.tagLabels), ["a", "b"])
        XCTAssertTrue(one.friendNames.description.contains("[1] first3"), one.friendNames.description)
        try realm.write { one.friendNames[0] = "Bo" }
        XCTAssertEqual(realm.object(ofType: PJPerson.self, forPrimaryKey: 2)?.firstName, "Bo")
        try realm.write { one.rootObject.friends.append(realm.object(ofType: PJPerson.self, forPrimaryKey: 5)!) }
        XCTAssertEqual(Array(one.friendNames), ["Bo", "first3", "first5"], "projected collections are live")
        XCTAssertEqual(Array(try projection(realm, 2).friendNames), [])
    }

    func testObservingAProjectionNamesTheProjectedPropertiesThatChanged() throws {
        let realm = try populated()
        let one = try projection(realm, 1)
        var changes: [ObjectChange<PJPersonProjection>] = []
        let token = one.observe { changes.append($0) }
        defer { token.invalidate() }

        try realm.write { one.rootObject.lastName = "Lovelace" }
        try realm.write { one.rootObject.nickname = "not projected" }
        try realm.write { one.rootObject.address?.city = "London" }
        try realm.write { one.rootObject.firstName = "Ada"; one.rootObject.age = 36 }
        XCTAssertEqual(changes.count, 3, "a change of a property no projected property reads does not notify")
        guard changes.count == 3 else { return }
        guard case .change(let projection, let first) = changes[0] else { return XCTFail("\(changes[0])") }
        XCTAssertTrue(projection === one, "on the observing thread the observed projection is reported")
        XCTAssertEqual(first.map(\.name), ["lastNameCaps"])
        XCTAssertEqual(first.first?.oldValue as? String, "LAST1")
        XCTAssertEqual(first.first?.newValue as? String, "LOVELACE")
        guard case .change(_, let second) = changes[1] else { return XCTFail("\(changes[1])") }
        XCTAssertEqual(second.map(\.name), ["homeCity"])
        XCTAssertEqual(second.first?.oldValue as? String, "city1")
        XCTAssertEqual(second.first?.newValue as? String, "London")
        guard case .change(_, let third) = changes[2] else { return XCTFail("\(changes[2])") }
        XCTAssertEqual(Set(third.map(\.name)), ["firstName", "age"])

        try realm.write { realm.delete(one.rootObject) }
        guard case .deleted = changes.last else { return XCTFail("\(String(describing: changes.last))") }
    }

    func testObservingSelectedKeyPathsOfAProjection() throws {
        let realm = try populated()
        let one = try projection(realm, 1)
        var byName: [[String]] = []
        var byKeyPath: [[String]] = []
        let names = one.observe(keyPaths: ["age"]) { change in
            if case .change(_, let properties) = change { byName.append(properties.map(\.name)) }
        }
        let keyPaths = one.observe(keyPaths: [\PJPersonProjection.homeCity]) { change in
            if case .change(_, let properties) = change { byKeyPath.append(properties.map(\.name)) }
        }
        defer { names.invalidate(); keyPaths.invalidate() }
        try realm.write { one.rootObject.firstName = "x" }
        try realm.write { one.rootObject.age = 1 }
        try realm.write { one.rootObject.address?.city = "y" }
        XCTAssertEqual(byName, [["age"]])
        XCTAssertEqual(byKeyPath, [["homeCity"]])
    }

    func testResultsOfProjectionsNotifyFreezeAndHandOver() throws {
        let realm = try populated()
        let people = realm.objects(PJPersonProjection.self).filter("age >= 30")
        var updates: [(deletions: [Int], insertions: [Int], modifications: [Int])] = []
        var initial = 0
        let token = people.observe(keyPaths: [\PJPersonProjection.firstName]) { change in
            switch change {
            case .initial(let results): initial = results.count
            case .update(_, let deletions, let insertions, let modifications):
                updates.append((deletions, insertions, modifications))
            case .error(let error): XCTFail("\(error)")
            }
        }
        defer { token.invalidate() }
        realm.refresh()
        XCTAssertEqual(initial, people.count)
        try realm.write { realm.create(PJPerson.self, value: ["id": 6, "age": 50]) }
        try realm.write { people[0].firstName = "changed" }
        try realm.write { people[0].rootObject.nickname = "not observed" }
        XCTAssertEqual(updates.count, 2)
        XCTAssertEqual(updates.first?.insertions, [people.count - 1])
        XCTAssertEqual(updates.last?.modifications, [0])

        let frozen = people.freeze()
        XCTAssertTrue(frozen.isFrozen)
        let frozenOne = try projection(realm, 1).freeze()
        XCTAssertTrue(frozenOne.isFrozen)
        let reference = ThreadSafeReference(to: try projection(realm, 2))
        let url = configuration.fileURL!
        let count = frozen.count
        // Frozen values may cross threads; the box only carries them past the compiler's check.
        let shared = Locked((frozen, frozenOne, read: [String](), resolved: String?.none))
        runOnThreads(1) { _ in
            shared.withLock { state in
                state.read = state.0.map(\.firstName) + [state.1.firstName]
                let realm = try! Realm(fileURL: url)
                state.resolved = realm.resolve(reference)?.lastNameCaps
            }
        }
        XCTAssertEqual(shared.value.read.count, count + 1)
        XCTAssertEqual(shared.value.read.last, "changed")
        XCTAssertEqual(shared.value.resolved, "LAST2")
        try realm.write { try projection(realm, 1).firstName = "live" }
        XCTAssertEqual(frozenOne.firstName, "changed", "a frozen projection does not change")
        XCTAssertEqual(frozenOne.thaw()?.firstName, "live")
    }

    func testAProjectionObservedOnAQueueIsRebuiltAndReportedThere() throws {
        let realm = try populated()
        let one = try projection(realm, 1)
        let queue = DispatchQueue(label: "projection notifications")
        let registered = expectation(description: "registered")
        let changed = expectation(description: "changed")
        let seen = Locked<[String]>([])
        let token = one.observe(keyPaths: [\PJPersonProjection.lastNameCaps], on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            guard case .change(let projection, let properties) = change else { return }
            seen.withLock {
                $0 = properties.map { "\($0.name) \($0.oldValue ?? "-") \($0.newValue ?? "-") " }
                    + [projection.lastNameCaps, projection === one ? "same" : "rebuilt"]
            }
            changed.fulfill()
        }
        // A registration on the same queue that reports at once: once it has, the projection's is in place too.
        let marker = realm.objects(PJTag.self).observe(on: queue) { if case .initial = $0 { registered.fulfill() } }
        wait(for: [registered], timeout: 10)
        try realm.write { one.rootObject.firstName = "not observed"; one.rootObject.lastName = "Byron" }
        wait(for: [changed], timeout: 10)
        XCTAssertEqual(seen.value, ["lastNameCaps LAST1 BYRON ", "BYRON", "rebuilt"])
        token.invalidate()
        marker.invalidate()
    }

    func testAProjectionObservedOnAnActorIsReportedThere() async throws {
        let store = ProjectionStore()
        try await store.open(configuration)
        let configuration = self.configuration!
        try await Task.detached {
            let other = try Realm(configuration: configuration)
            try other.write { other.object(ofType: PJPerson.self, forPrimaryKey: 1)?.age = 77 }
        }.value
        var seen: [String] = []
        for _ in 0 ..< 200 where seen.isEmpty {
            try await Task.sleep(nanoseconds: 20_000_000)
            seen = await store.seen
        }
        XCTAssertEqual(seen, ["age 30 77"])
        await store.stop()
    }

    func testProjectionsOfOneStoredObjectHaveOneIdentity() throws {
        let realm = try populated()
        XCTAssertEqual(try projection(realm, 1).id, try projection(realm, 1).id)
        XCTAssertNotEqual(try projection(realm, 1).id, try projection(realm, 2).id)
        XCTAssertEqual(try projection(realm, 3).id, realm.objects(PJPersonProjection.self)[2].id)
        let unmanaged = PJPersonProjection(projecting: PJPerson())
        XCTAssertEqual(unmanaged.id, unmanaged.id)
        XCTAssertNotEqual(unmanaged.id, PJPersonProjection(projecting: PJPerson()).id)
    }

    func testProjectionsCompareAndDescribeByTheirRootObjects() throws {
        let realm = try populated()
        let one = try projection(realm, 1)
        let again = try XCTUnwrap(realm.objects(PJPersonProjection.self).first)
        XCTAssertFalse(one === again)
        XCTAssertEqual(one, again, "PJPerson has a primary key: the same stored object")
        XCTAssertEqual(Set([one, again, try projection(realm, 2)]).count, 2)
        XCTAssertTrue(one.description.hasPrefix("PJPersonProjection<PJPerson> {"), one.description)
        XCTAssertTrue(one.description.contains("homeCity(\\.address.city) = city1;"), one.description)
    }
}

/// Observes a projection on this actor.
actor ProjectionStore {
    private var realm: Realm!
    private var token: NotificationToken?
    private(set) var seen: [String] = []

    func open(_ configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
        let person = try realm.write {
            realm.create(PJPerson.self, value: ["id": 1, "age": 30], update: .modified)
        }
        token = await PJPersonProjection(projecting: person).observe(keyPaths: ["age"], on: self) { store, change in
            if case .change(let projection, let properties) = change {
                store.seen += properties.map { "\($0.name) \($0.oldValue ?? "-") \(projection.age)" }
            }
        }
    }

    func stop() { token?.invalidate() }
}

final class ProjectionMisuseTests: RealmTestCase, DeathCaseTable {
    static let deathCaseRunner = "ColumnarTests.ProjectionMisuseTests/testRunDeathCase"

    var deathCases: [String: () throws -> Void] {
        [
            "projected computed property": { _ = PJBadProjection(projecting: PJPerson()) },
            "unknown observed key path": {
                let realm = try self.openRealm()
                let person = try realm.write { realm.create(PJPerson.self, value: ["id": 1]) }
                _ = PJPersonProjection(projecting: person).observe(keyPaths: ["nickname"]) { _ in }
            },
            "read-only projected property written": {
                PJPersonProjection(projecting: PJPerson()).lastNameCaps = "X"
            },
        ]
    }

    func testRunDeathCase() throws {
        try runDeathCase()
    }

    func testMisusedProjectionsStopWithAMessage() {
        assertStops("projected computed property", "@Projected property 'shout' must be a part of Realm object")
        assertStops("unknown observed key path", "'nickname' is not the key path of a projected property")
        assertStops("read-only projected property written", "is not writable")
    }
}
