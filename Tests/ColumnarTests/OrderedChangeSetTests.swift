// OrderedChangeSetTests: the diff behind every collection notification, against random sequences with and without
// repeated values: deleting the deletions and inserting the insertions turns the old sequence into the new one,
// positions are ascending and in range, and elements that kept their place are not reported at all.

@testable import Columnar
import Foundation
import XCTest

final class OrderedChangeSetTests: XCTestCase {
    private func check(_ old: [Int], _ new: [Int], modified: Set<Int> = [], seed: UInt64,
                       file: StaticString = #filePath, line: UInt = #line) {
        let change = OrderedChangeSet.between(old, new, modified: modified)
        XCTAssertEqual(change.applied(to: old) { new[$0] }, new, "seed \(seed): \(old) -> \(new)", file: file, line: line)
        XCTAssertEqual(change.deletions, change.deletions.sorted(), file: file, line: line)
        XCTAssertEqual(change.insertions, change.insertions.sorted(), file: file, line: line)
        XCTAssertTrue(change.deletions.allSatisfy { old.indices.contains($0) }, file: file, line: line)
        XCTAssertTrue(change.insertions.allSatisfy { new.indices.contains($0) }, file: file, line: line)
        // The kept elements are the longest common subsequence's length at least as long as the kept run.
        XCTAssertEqual(old.count - change.deletions.count, new.count - change.insertions.count, file: file, line: line)
        for position in change.modifications {
            XCTAssertTrue(modified.contains(new[position]), file: file, line: line)
            XCTAssertFalse(change.insertions.contains(position), file: file, line: line)
        }
        if old == new { XCTAssertTrue(change.deletions.isEmpty && change.insertions.isEmpty, file: file, line: line) }
    }

    func testRandomSequencesWithAndWithoutRepeats() {
        let seed = UInt64.random(in: 0 ... 1_000_000)
        var random = SplitMix(seed: seed)
        for round in 0 ..< 2_000 {
            let alphabet = round % 2 == 0 ? 6 : 1_000   // many repeats, or almost none
            let old = (0 ..< Int(random.next() % 30)).map { _ in Int(random.next() % UInt64(alphabet)) }
            var new = old
            for _ in 0 ..< Int(random.next() % 6) {
                switch random.next() % 4 {
                case 0: new.insert(Int(random.next() % UInt64(alphabet)), at: Int(random.next() % UInt64(new.count + 1)))
                case 1 where !new.isEmpty: new.remove(at: Int(random.next() % UInt64(new.count)))
                case 2 where new.count > 1:
                    let element = new.remove(at: Int(random.next() % UInt64(new.count)))
                    new.insert(element, at: Int(random.next() % UInt64(new.count + 1)))
                default: break
                }
            }
            let modified = Set(new.filter { _ in random.next() % 5 == 0 })
            check(old, new, modified: modified, seed: seed)
        }
    }

    /// With the movable elements given (patched results), the others stay in place, a movable element that keeps
    /// its place among them stays too, and applying the change gives the new sequence; a hint the sequences do not
    /// honour falls back to the general diff.
    func testMovableElementsHint() {
        let seed = UInt64.random(in: 0 ... .max)
        var random = SplitMix(seed: seed)
        for round in 0 ..< 2_000 {
            let old = (0 ..< Int64(random.next() % 40)).map { $0 }
            var movable = Set(old.filter { _ in random.next() % 6 == 0 })
            // The others keep their order; movable ones are removed, re-placed, or new ones added.
            var new = old.filter { !movable.contains($0) }
            for element in movable.sorted() where random.next() % 3 != 0 {
                new.insert(element, at: Int(random.next() % UInt64(new.count + 1)))
            }
            for added in 0 ..< Int64(random.next() % 3) {
                movable.insert(1_000 + added)
                new.insert(1_000 + added, at: Int(random.next() % UInt64(new.count + 1)))
            }
            let lying = round % 10 == 9 && new.count > 2
            if lying { new.swapAt(0, new.count - 1) }   // breaks the hint's promise (usually)
            let modified = Set(new.filter { _ in random.next() % 5 == 0 })
            let change = OrderedChangeSet.between(old, new, modified: modified, movable: movable.sorted())
            XCTAssertEqual(change.applied(to: old) { new[$0] }, new, "seed \(seed): \(old) -> \(new)")
            XCTAssertEqual(change.deletions, change.deletions.sorted())
            XCTAssertEqual(change.insertions, change.insertions.sorted())
            for position in change.modifications { XCTAssertTrue(modified.contains(new[position])) }
            if !lying {
                XCTAssertTrue(change.deletions.allSatisfy { movable.contains(old[$0]) }, "seed \(seed)")
                XCTAssertTrue(change.insertions.allSatisfy { movable.contains(new[$0]) }, "seed \(seed)")
            }
        }
    }

    func testAMovableElementThatKeepsItsPlaceIsAModificationAndOneThatMovesIsAMove() {
        let old = (0 ..< Int64(10_000)).map { $0 }
        let inPlace = OrderedChangeSet.between(old, old, modified: [5_000], movable: [5_000])
        XCTAssertEqual(inPlace, OrderedChangeSet(deletions: [], insertions: [], modifications: [5_000]))
        var new = old
        new.remove(at: 5_000)
        new.insert(5_000, at: 9_000)
        let moved = OrderedChangeSet.between(old, new, modified: [5_000], movable: [5_000])
        XCTAssertEqual(moved, OrderedChangeSet(deletions: [5_000], insertions: [9_000], modifications: []))
    }

    func testOneMovedElementIsOneDeletionAndOneInsertion() {
        let old = Array(0 ..< 10_000)
        var new = old
        new.remove(at: 10)
        new.insert(10, at: 9_000)
        let change = OrderedChangeSet.between(old, new, modified: [5_000])
        XCTAssertEqual(change.deletions, [10])
        XCTAssertEqual(change.insertions, [9_000])
        XCTAssertEqual(change.modifications, [4_999])
    }
}
