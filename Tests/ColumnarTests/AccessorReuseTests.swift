// AccessorReuseTests: a loop over Results hands out the accessor object it made for the previous element again,
// re-pointed at the next row, when nothing else references it (AccessorReuse.swift). No code may be able to tell
// a reused object from a new one: every element reads and writes its own row; an object the loop's code keeps,
// strongly, unowned or weakly, keeps its row; a class with a stored property of its own that is not persisted gets
// a fresh object for every element. The values are checked against a plain Swift model of the rows.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class ReusedAccessorItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var score = 0.0
    @Persisted var tags: List<String>
    @Persisted var partner: ReusedAccessorItem?
    @Persisted var friends: List<ReusedAccessorItem>
    @Persisted var circle: MutableSet<ReusedAccessorItem>

    /// How many objects of the class were freed: counts the accessor objects a loop made.
    nonisolated(unsafe) static var freed = 0
    deinit { Self.freed += 1 }
}

/// A model class whose accessor objects hold state of their own: never reused.
final class AccessorWithTransientState: Object {
    @Persisted(primaryKey: true) var id = 0
    var note = ""
}

private final class UnownedHolder {
    unowned let item: ReusedAccessorItem
    init(_ item: ReusedAccessorItem) { self.item = item }
}

private final class WeakHolder {
    weak var item: ReusedAccessorItem?
    init(_ item: ReusedAccessorItem) { self.item = item }
}

final class AccessorReuseTests: RealmTestCase {
    private static let count = 700   // three clusters

    private struct Row: Equatable {
        var id: Int
        var name: String
        var score: Double
        var tags: [String]
        var partner: Int?
    }

    private func row(of item: ReusedAccessorItem) -> Row {
        Row(id: item.id, name: item.name, score: item.score, tags: Array(item.tags), partner: item.partner?.id)
    }

    private func expectedRow(_ id: Int) -> Row {
        Row(id: id, name: "item \(id)", score: Double(id) / 4, tags: (0..<(id % 3)).map { "t\(id)-\($0)" },
            partner: id % 5 == 0 ? nil : (id * 7) % Self.count)
    }

    private func filled() throws -> Realm {
        let realm = try openRealm()
        try realm.write {
            for id in 0..<Self.count {
                let expected = expectedRow(id)
                realm.create(ReusedAccessorItem.self, value: ["id": id, "name": expected.name, "score": expected.score,
                                                              "tags": expected.tags])
            }
            for id in 0..<Self.count {
                guard let partner = expectedRow(id).partner else { continue }
                realm.object(ofType: ReusedAccessorItem.self, forPrimaryKey: id)!.partner =
                    realm.object(ofType: ReusedAccessorItem.self, forPrimaryKey: partner)
            }
        }
        return realm
    }

    func testALoopThatLetsGoOfEachObjectReusesItAndEveryElementReadsItsOwnRow() throws {
        let realm = try filled()
        var visited: [Int] = []
        let freedBefore = ReusedAccessorItem.freed
        // (Reading `partner` makes and frees an object of the class for each element that has one.)
        let partners = (0..<Self.count).filter { expectedRow($0).partner != nil }.count
        for item in realm.objects(ReusedAccessorItem.self) {
            XCTAssertEqual(row(of: item), expectedRow(item.id))
            XCTAssertFalse(item.isInvalidated)
            visited.append(item.id)
        }
        XCTAssertEqual(visited, Array(0..<Self.count))
        XCTAssertLessThanOrEqual(ReusedAccessorItem.freed - freedBefore, partners + 1,
                                 "a loop that lets go of each object made a new one per element")

        // Sorted and filtered results, and a frozen snapshot.
        let sorted = realm.objects(ReusedAccessorItem.self).sorted(byKeyPath: "score", ascending: false)
        XCTAssertEqual(sorted.map { row(of: $0) }, (0..<Self.count).reversed().map(expectedRow))
        let filtered = realm.objects(ReusedAccessorItem.self).filter("id >= 650 AND name ENDSWITH '1'")
        XCTAssertEqual(filtered.map { row(of: $0) }, [651, 661, 671, 681, 691].map(expectedRow))
        let frozen = realm.objects(ReusedAccessorItem.self).freeze()
        var frozenIDs: [Int] = []
        for item in frozen {
            XCTAssertTrue(item.isFrozen)
            XCTAssertEqual(row(of: item), expectedRow(item.id))
            frozenIDs.append(item.id)
        }
        XCTAssertEqual(frozenIDs, Array(0..<Self.count))
    }

    func testObjectsTheLoopKeepsKeepTheirRows() throws {
        let realm = try filled()
        var kept: [ReusedAccessorItem] = []
        for item in realm.objects(ReusedAccessorItem.self) where item.id % 3 == 0 { kept.append(item) }
        XCTAssertEqual(kept.map { row(of: $0) }, stride(from: 0, to: Self.count, by: 3).map(expectedRow))
        XCTAssertEqual(Set(kept.map(ObjectIdentifier.init)).count, kept.count)

        let all = Array(realm.objects(ReusedAccessorItem.self))
        XCTAssertEqual(all.map { row(of: $0) }, (0..<Self.count).map(expectedRow))
        XCTAssertEqual(Set(all.map(ObjectIdentifier.init)).count, Self.count)

        // An element kept in a dictionary by its key, and one kept only while the next is read.
        var byID: [Int: ReusedAccessorItem] = [:]
        var previous: ReusedAccessorItem?
        for item in realm.objects(ReusedAccessorItem.self) {
            if let previous {
                XCTAssertEqual(previous.id, item.id - 1)
                XCTAssertFalse(previous === item)
            }
            if item.id % 100 == 0 { byID[item.id] = item }
            previous = item
        }
        XCTAssertEqual(byID.keys.sorted(), [0, 100, 200, 300, 400, 500, 600])
        for (id, item) in byID { XCTAssertEqual(row(of: item), expectedRow(id)) }
    }

    func testAnObjectReferencedUnownedIsNeverRepointed() throws {
        let realm = try filled()
        var holders: [UnownedHolder] = []
        var identities = Set<ObjectIdentifier>()
        for item in realm.objects(ReusedAccessorItem.self) {
            // An unowned reference keeps the object's memory: its address cannot come back for another object
            // unless the object itself was handed out again.
            XCTAssertTrue(identities.insert(ObjectIdentifier(item)).inserted, "element \(item.id) reused an object "
                              + "that an unowned reference still names")
            holders.append(UnownedHolder(item))
        }
        XCTAssertEqual(holders.count, Self.count)
    }

    func testAnObjectReferencedWeaklyNeverShowsAnotherRow() throws {
        let realm = try filled()
        var holder: WeakHolder?
        var heldID = -1
        for item in realm.objects(ReusedAccessorItem.self) {
            if let earlier = holder?.item {
                XCTAssertEqual(earlier.id, heldID, "an object referenced weakly now shows another row")
                XCTAssertFalse(earlier === item)
            }
            holder = WeakHolder(item)
            heldID = item.id
        }
        // After the loop, only the weak reference is left.
        XCTAssertNil(holder?.item)
    }

    func testAClassWithStateOfItsOwnGetsAFreshObjectPerElement() throws {
        let realm = try openRealm()
        try realm.write { for id in 0..<300 { realm.create(AccessorWithTransientState.self, value: ["id": id]) } }
        var visited = 0
        for item in realm.objects(AccessorWithTransientState.self) {
            XCTAssertEqual(item.note, "", "element \(item.id) sees the state an earlier element's object was given")
            item.note = "seen \(item.id)"
            visited += 1
        }
        XCTAssertEqual(visited, 300)
    }

    func testWritesAndDeletionsInTheLoopReachTheElementsOwnRows() throws {
        let realm = try filled()
        try realm.write {
            for item in realm.objects(ReusedAccessorItem.self) {
                item.score = Double(item.id) * 2
                item.tags.append("seen")
                if item.id % 4 == 1 {
                    realm.delete(item)
                    XCTAssertTrue(item.isInvalidated)
                }
            }
        }
        var visited: [Int] = []
        for item in realm.objects(ReusedAccessorItem.self) {
            XCTAssertFalse(item.isInvalidated)
            var expected = expectedRow(item.id)
            expected.score = Double(item.id) * 2
            expected.tags.append("seen")
            if let partner = expected.partner, partner % 4 == 1 { expected.partner = nil }
            XCTAssertEqual(row(of: item), expected)
            visited.append(item.id)
        }
        XCTAssertEqual(visited, (0..<Self.count).filter { $0 % 4 != 1 })
    }

    func testLoopsOverListsAndSetsOfObjectsReuseTheirObjectsTheSameWay() throws {
        let realm = try filled()
        let hub = try realm.write {
            let hub = realm.create(ReusedAccessorItem.self, value: ["id": Self.count, "name": "hub"])
            // Every object, last first, then the first hundred again (a list may hold an object twice).
            let all = realm.objects(ReusedAccessorItem.self).filter("id < %@", Self.count)
            for id in (0..<Self.count).reversed() { hub.friends.append(all.filter("id == %@", id).first!) }
            for id in 0..<100 { hub.friends.append(all.filter("id == %@", id).first!) }
            for id in stride(from: 0, to: Self.count, by: 7) { hub.circle.insert(all.filter("id == %@", id).first!) }
            return hub
        }
        let expectedFriends = Array((0..<Self.count).reversed()) + Array(0..<100)
        let partners = { (ids: [Int]) in ids.filter { self.expectedRow($0).partner != nil }.count }

        var freedBefore = ReusedAccessorItem.freed
        var visited: [Int] = []
        for friend in hub.friends {
            XCTAssertEqual(row(of: friend), expectedRow(friend.id))
            visited.append(friend.id)
        }
        XCTAssertEqual(visited, expectedFriends)
        XCTAssertLessThanOrEqual(ReusedAccessorItem.freed - freedBefore, partners(expectedFriends) + 1)

        freedBefore = ReusedAccessorItem.freed
        var inCircle: [Int] = []
        for member in hub.circle {
            XCTAssertEqual(row(of: member), expectedRow(member.id))
            inCircle.append(member.id)
        }
        XCTAssertEqual(inCircle.sorted(), Array(stride(from: 0, to: Self.count, by: 7)))
        XCTAssertLessThanOrEqual(ReusedAccessorItem.freed - freedBefore, partners(inCircle) + 1)

        // Kept elements keep their rows; a weakly referenced one never shows another row.
        let kept = Array(hub.friends)
        XCTAssertEqual(kept.map(\.id), expectedFriends)
        XCTAssertEqual(Set(kept.map(ObjectIdentifier.init)).count, kept.count)
        var holder: WeakHolder?
        var heldID = -1
        for friend in hub.circle {
            if let earlier = holder?.item { XCTAssertEqual(earlier.id, heldID) }
            holder = WeakHolder(friend)
            heldID = friend.id
        }
    }

    func testALoopGoesOnAfterTheRealmIsInvalidatedInsideIt() throws {
        let realm = try filled()
        var visited: [Int] = []
        for item in realm.objects(ReusedAccessorItem.self) {
            XCTAssertFalse(item.isInvalidated)
            XCTAssertEqual(row(of: item), expectedRow(item.id))
            visited.append(item.id)
            if item.id == 10 || item.id == 400 { realm.invalidate() }
        }
        XCTAssertEqual(visited, Array(0..<Self.count))
    }

    func testIteratorsCopiedMidwayHandOutTheirOwnObjects() throws {
        let realm = try filled()
        var first = realm.objects(ReusedAccessorItem.self).makeIterator()
        for _ in 0..<10 { _ = first.next() }
        var second = first
        for id in 10..<Self.count {
            let fromFirst = first.next()
            let fromSecond = second.next()
            XCTAssertEqual(fromFirst.map(row(of:)), expectedRow(id))
            XCTAssertEqual(fromSecond.map(row(of:)), expectedRow(id))
            XCTAssertFalse(fromFirst === fromSecond)
        }
        XCTAssertNil(first.next())
        XCTAssertNil(second.next())
    }
}
