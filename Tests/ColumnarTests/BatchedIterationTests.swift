// BatchedIterationTests: a loop over `realm.objects(T.self)` reads the table's keys a cluster at a time
// (TableKeyBatches) instead of collecting them all first, and must visit exactly what a loop over the keys present
// at its start did: the objects that existed then and still exist when the loop reaches them, in key order. Checked
// against a plain Swift model over many clusters, with deletions ahead of the loop and creations during it in a
// write transaction, with another thread's commit taken in by a refresh halfway, for copies of an iterator, and for
// empty tables.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class BatchedItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value = 0

    convenience init(id: Int) {
        self.init()
        self.id = id
        value = id * 3
    }
}

final class BatchedIterationTests: RealmTestCase {
    /// Eight clusters of 256 and a partial one.
    private static let count = 2_100

    private func filled() throws -> Realm {
        let realm = try openRealm()
        try realm.write { for id in 0..<Self.count { realm.add(BatchedItem(id: id)) } }
        return realm
    }

    func testALoopVisitsEveryObjectInKeyOrderAndCanStopAndStartAgain() throws {
        let realm = try filled()
        let results = realm.objects(BatchedItem.self)
        var visited: [Int] = []
        for item in results {
            XCTAssertEqual(item.value, item.id * 3)
            visited.append(item.id)
        }
        XCTAssertEqual(visited, Array(0..<Self.count))
        // A loop that stops inside the third cluster, then a new loop from the start.
        var partial: [Int] = []
        for item in results {
            if item.id == 600 { break }
            partial.append(item.id)
        }
        XCTAssertEqual(partial, Array(0..<600))
        XCTAssertEqual(results.map(\.id), Array(0..<Self.count))
    }

    func testDeletionsAheadOfTheLoopAreSkippedAndObjectsMadeDuringItAreNot() throws {
        let realm = try filled()
        var generator = makeSeededGenerator()
        var alive = Set(0..<Self.count)
        var visited: [Int] = []
        var deletedBeforeVisit = Set<Int>()
        var made = 0
        try realm.write {
            for item in realm.objects(BatchedItem.self) {
                let id = item.id
                visited.append(id)
                // Delete an object at random: often ahead of the loop (in the cluster being read or a later one),
                // sometimes behind it.
                if generator.next() % 3 == 0 {
                    let victim = generator.next() % 2 == 0 ? id + 1 + Int(generator.next() % 300)
                                                          : Int(generator.next() % UInt64(Self.count))
                    if victim != id, alive.contains(victim),
                       let object = realm.object(ofType: BatchedItem.self, forPrimaryKey: victim) {
                        realm.delete(object)
                        alive.remove(victim)
                        if !visited.contains(victim) { deletedBeforeVisit.insert(victim) }
                    }
                }
                // New objects take keys past every existing one: the loop must not reach them.
                if generator.next() % 4 == 0 {
                    realm.add(BatchedItem(id: 1_000_000 + made))
                    made += 1
                }
            }
        }
        XCTAssertGreaterThan(deletedBeforeVisit.count, 100)
        XCTAssertGreaterThan(made, 100)
        XCTAssertEqual(visited, (0..<Self.count).filter { !deletedBeforeVisit.contains($0) })
        // After the transaction, a loop sees the objects as they are now.
        XCTAssertEqual(realm.objects(BatchedItem.self).map(\.id),
                       alive.sorted() + (0..<made).map { 1_000_000 + $0 })
    }

    func testAnotherThreadsCommitTakenInHalfwayDeletesAheadButAddsNothing() throws {
        let realm = try filled()
        var visited: [Int] = []
        let deleted = Set(stride(from: 700, to: Self.count, by: 3)).union([500])   // 500 was visited by then
        for item in realm.objects(BatchedItem.self) {
            visited.append(item.id)
            guard item.id == 600 else { continue }
            let configuration = self.configuration!
            let committed = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                defer { committed.signal() }
                do {
                    let other = try Realm(configuration: configuration)
                    try other.write {
                        for id in deleted {
                            other.delete(other.object(ofType: BatchedItem.self, forPrimaryKey: id)!)
                        }
                        for id in 5_000..<5_300 { other.add(BatchedItem(id: id)) }
                    }
                } catch {
                    XCTFail("the other thread's commit failed: \(error)")
                }
            }
            committed.wait()
            realm.refresh()
        }
        XCTAssertEqual(visited, (0..<Self.count).filter { $0 <= 600 || !deleted.contains($0) })
        XCTAssertEqual(realm.objects(BatchedItem.self).count, Self.count - deleted.count + 300)
    }

    func testCopiesOfAnIteratorGoOnIndependentlyAcrossClusters() throws {
        let realm = try filled()
        var iterator = realm.objects(BatchedItem.self).makeIterator()
        for _ in 0..<300 { _ = iterator.next() }
        var copy = iterator
        let first = (0..<600).compactMap { _ in iterator.next()?.id }
        let second = (0..<600).compactMap { _ in copy.next()?.id }
        XCTAssertEqual(first, Array(300..<900))
        XCTAssertEqual(second, first)
        XCTAssertEqual(iterator.next()?.id, 900)
    }

    func testEmptyTablesAndTablesWhoseObjectsWereAllDeleted() throws {
        let realm = try openRealm()
        try realm.write { realm.add(BatchedItem(id: 1)) }
        try realm.write { realm.delete(realm.objects(BatchedItem.self)) }
        XCTAssertEqual(realm.objects(BatchedItem.self).map(\.id), [])
        let filledRealm = try filled()
        try filledRealm.write {
            for item in filledRealm.objects(BatchedItem.self) where item.id % 256 != 7 { filledRealm.delete(item) }
        }
        XCTAssertEqual(filledRealm.objects(BatchedItem.self).map(\.id), Array(stride(from: 7, to: Self.count, by: 256)))
    }
}
