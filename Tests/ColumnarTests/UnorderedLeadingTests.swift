// UnorderedLeadingTests: `first` and `prefix(_:)` of filtered, unsorted results stop at the first matches; what
// they give is the start of what iterating all the results gives, through scans, index seeks and index ranges,
// and again after writes change which objects match.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class UnorderedLeadingTests: RealmTestCase {
    private static let formats = [
        "int > %@", "int == %@", "string == %@", "optInt < %@", "double >= %@ AND bool == true", "NOT (int == %@)",
        "string BEGINSWITH %@", "optInt == nil OR int > %@", "ANY ints == %@",
    ]

    private func argument(for format: String, _ generator: inout SeededGenerator) -> Any {
        if format.hasPrefix("string") { return ["a", "b", "ab", "zz"][Int(generator.next() % 4)] }
        return Int(generator.next() % 9) - 1
    }

    func testFirstAndPrefixOfUnsortedResultsAreTheStartOfTheResults() throws {
        let realm = try openRealm()
        var generator = SeededGenerator.fromEnvironment()
        func writeRandomItems(_ count: Int, from start: Int) throws {
            try realm.write {
                for id in start..<(start + count) {
                    let item = QDItem()
                    item.id = id
                    item.int = Int(generator.next() % 8)
                    item.string = ["a", "b", "ab", "ba", ""][Int(generator.next() % 5)]
                    item.optInt = generator.next() % 3 == 0 ? nil : Int(generator.next() % 8)
                    item.double = Double(generator.next() % 100) / 10
                    item.bool = generator.next() % 2 == 0
                    item.ints.append(objectsIn: (0..<Int(generator.next() % 3)).map { _ in Int(generator.next() % 8) })
                    realm.add(item)
                }
            }
        }
        // Over 256 objects, so that scans cross clusters.
        try writeRandomItems(700, from: 0)
        var nextID = 700
        for round in 0..<200 {
            let format = Self.formats[Int(generator.next() % UInt64(Self.formats.count))]
            let value = argument(for: format, &generator)
            // Separate Results for each read, so that none reuses what another computed.
            func results() -> Results<QDItem> { realm.objects(QDItem.self).filter(format, value) }
            let all = Array(results()).map(\.id)
            let limit = Int(generator.next() % 40)
            let leading = results().prefix(limit).map(\.id)
            let first = results().first?.id
            let context = "round \(round), seed \(generator.seed): \(format) with \(value), prefix \(limit)"
            XCTAssertEqual(leading, Array(all.prefix(limit)), context)
            XCTAssertEqual(first, all.first, context)
            if round % 10 == 9 {
                // Writes between reads: deletions and new objects change which objects come first.
                try realm.write {
                    let victims = realm.objects(QDItem.self).filter("id < %@", Int(generator.next() % 700))
                    realm.delete(Array(victims.prefix(Int(generator.next() % 30))))
                }
                try writeRandomItems(20, from: nextID)
                nextID += 20
                // Results made before the writes read the new state too.
                let kept = results()
                _ = kept.first
                try realm.write {
                    let item = QDItem()
                    item.id = nextID
                    item.int = 3
                    item.string = "ab"
                    realm.add(item)
                }
                nextID += 1
                let allAfter = Array(results()).map(\.id)
                XCTAssertEqual(kept.first?.id, allAfter.first, context + ", after writes")
                XCTAssertEqual(results().prefix(5).map(\.id), Array(allAfter.prefix(5)), context + ", after writes")
            }
        }
    }
}
