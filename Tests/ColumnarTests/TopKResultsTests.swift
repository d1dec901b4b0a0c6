// TopKResultsTests: `first` and `prefix(k)` of sorted Results (answered by a top-k selection that does not sort
// the rest) against a plain Swift stable sort of the same rows: one to three sort keys, ascending and descending,
// many ties, nulls in doubles and strings, over tables and filtered results; the same live Results after writes
// that change, add and delete objects; and a loop over sorted results that writes while it runs.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class RankedEntry: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var group = 0
    @Persisted var score: Double?
    @Persisted var label: String?
}

final class TopKResultsTests: RealmTestCase {
    private struct Row {
        var id: Int
        var group: Int
        var score: Double?
        var label: String?
    }

    private static let keyPaths = ["group", "score", "label", "id"]

    /// Nulls first, then values, as the engine sorts; descending reverses both.
    private static func compare<T: Comparable>(_ left: T?, _ right: T?) -> Int {
        switch (left, right) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case let (l?, r?): return l < r ? -1 : (l > r ? 1 : 0)
        }
    }

    private static func compare(_ left: Row, _ right: Row, by keyPath: String) -> Int {
        switch keyPath {
        case "group": return compare(left.group, right.group)
        case "score": return compare(left.score, right.score)
        case "label": return compare(left.label, right.label)
        default: return compare(left.id, right.id)
        }
    }

    /// The rows in the sort's order; ties keep table order (the order the objects were created in).
    private static func reference(_ rows: [Row], _ descriptors: [Columnar.SortDescriptor]) -> [Int] {
        rows.enumerated().sorted { left, right in
            for descriptor in descriptors {
                let order = compare(left.element, right.element, by: descriptor.keyPath)
                if order != 0 { return descriptor.ascending ? order < 0 : order > 0 }
            }
            return left.offset < right.offset
        }.map(\.element.id)
    }

    private func randomRow(id: Int, _ generator: inout SeededGenerator) -> Row {
        let score: Double? = generator.next() % 5 == 0 ? nil : Double(generator.next() % 7) / 2
        let label: String? = generator.next() % 6 == 0 ? nil : ["ant", "bee", "cat", "dog", "eel"][Int(generator.next() % 5)]
        return Row(id: id, group: Int(generator.next() % 4), score: score, label: label)
    }

    private func add(_ row: Row, to realm: Realm) {
        realm.create(RankedEntry.self, value: ["id": row.id, "group": row.group, "score": row.score as Any,
                                               "label": row.label as Any])
    }

    private func randomDescriptors(_ generator: inout SeededGenerator) -> [Columnar.SortDescriptor] {
        var paths = Self.keyPaths.shuffled(using: &generator)
        paths.removeLast(Int(generator.next() % 3) + 1)   // one to three keys
        return paths.map { Columnar.SortDescriptor(keyPath: $0, ascending: generator.next() % 2 == 0) }
    }

    private func assertLeading(_ results: Results<RankedEntry>, _ expected: [Int], _ context: String,
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(results.first?.id, expected.first, "\(context): first", file: file, line: line)
        for k in [1, 5, 37] {
            XCTAssertEqual(Array(results.prefix(k)).map(\.id), Array(expected.prefix(k)), "\(context): prefix(\(k))",
                           file: file, line: line)
        }
        XCTAssertEqual(results.count, expected.count, "\(context): count", file: file, line: line)
    }

    func testFirstAndPrefixOfSortedResultsMatchAStableSortAcrossWrites() throws {
        var generator = makeSeededGenerator()
        let realm = try openRealm()
        var rows: [Row] = []
        var nextID = 0
        try realm.write {
            for _ in 0..<600 {
                rows.append(randomRow(id: nextID, &generator))
                add(rows.last!, to: realm)
                nextID += 1
            }
        }
        for round in 0..<30 {
            let descriptors = randomDescriptors(&generator)
            let filtered = generator.next() % 2 == 0
            let results = filtered ? realm.objects(RankedEntry.self).filter("group != 2").sorted(by: descriptors)
                                   : realm.objects(RankedEntry.self).sorted(by: descriptors)
            let visible = { filtered ? rows.filter { $0.group != 2 } : rows }
            let context = "round \(round), \(descriptors.map { "\($0.keyPath) \($0.ascending ? "asc" : "desc")" }), "
                + (filtered ? "filtered" : "table") + ", seed \(generator.seed)"
            assertLeading(results, Self.reference(visible(), descriptors), context)

            // Writes that move objects into and out of the leading places: the same live Results follow them.
            try realm.write {
                for _ in 0..<8 {
                    let index = Int(generator.next() % UInt64(rows.count))
                    let object = realm.object(ofType: RankedEntry.self, forPrimaryKey: rows[index].id)!
                    switch generator.next() % 4 {
                    case 0:
                        realm.delete(object)
                        rows.remove(at: index)
                    case 1:
                        rows[index].score = generator.next() % 3 == 0 ? nil : -Double(generator.next() % 3)
                        object.score = rows[index].score
                    case 2:
                        rows[index].label = generator.next() % 3 == 0 ? nil : "aa"
                        object.label = rows[index].label
                    default:
                        rows.append(randomRow(id: nextID, &generator))
                        add(rows.last!, to: realm)
                        nextID += 1
                    }
                }
            }
            assertLeading(results, Self.reference(visible(), descriptors), "\(context), after writes")
            XCTAssertEqual(results.map { $0.id }, Self.reference(visible(), descriptors), "\(context): all")
        }
    }

    /// A loop over sorted results yields the order the loop began with; objects deleted before their turn are left
    /// out, and objects added or re-ranked by the loop's own writes do not move it.
    func testALoopOverSortedResultsKeepsItsOrderWhileItWrites() throws {
        var generator = makeSeededGenerator()
        let realm = try openRealm()
        var rows: [Row] = []
        try realm.write {
            for id in 0..<200 {
                rows.append(randomRow(id: id, &generator))
                add(rows.last!, to: realm)
            }
        }
        let descriptors = [Columnar.SortDescriptor(keyPath: "score", ascending: false), Columnar.SortDescriptor(keyPath: "label")]
        let results = realm.objects(RankedEntry.self).sorted(by: descriptors)
        let before = Self.reference(rows, descriptors)
        XCTAssertEqual(results.first?.id, before.first)   // the top-k answer is made, then the loop starts
        var visited: [Int] = []
        var deleted: Set<Int> = []
        try realm.write {
            for (position, entry) in results.enumerated() {
                visited.append(entry.id)
                guard position % 10 == 0 else { continue }
                // Delete an object further down, re-rank one to the top, add one that would lead.
                let here = before.firstIndex(of: entry.id)!
                let later = before[min(before.count - 1, here + 5)]
                if !deleted.contains(later), later != entry.id,
                   let object = realm.object(ofType: RankedEntry.self, forPrimaryKey: later) {
                    realm.delete(object)
                    deleted.insert(later)
                }
                entry.score = 100
                realm.create(RankedEntry.self, value: ["id": 1000 + position, "score": 200.0])
            }
        }
        XCTAssertEqual(visited, before.filter { !deleted.contains($0) })
        XCTAssertEqual(results.first?.id, 1000, "after the loop the results lead with the highest score")
        XCTAssertEqual(Array(results.prefix(3)).map(\.id), [1000, 1010, 1020], "ties keep creation order")
    }
}
