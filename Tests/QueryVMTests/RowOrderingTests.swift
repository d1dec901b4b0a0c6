// RowOrderingTests: the radix sort and the top-k selection of RowOrdering against a plain stable sort with a
// comparator, on random keys with few distinct values (many ties), classes (null, NaN) and several keys; and the
// words OrderWords makes order numbers as the sort's rules say (null first, then NaN, then values; -0.0 equal to
// 0.0; descending reverses all of it).

@testable import QueryVM
import ColumnarTestSupport
import XCTest

final class RowOrderingTests: XCTestCase {
    /// The reference: rows sorted by (class, word) of each key in turn, ties by row.
    private func plainOrder(_ keys: [OrderWords], rowCount: Int) -> [Int32] {
        (0..<Int32(rowCount)).sorted { left, right in
            for key in keys {
                let lc = key.classes?[Int(left)] ?? 0, rc = key.classes?[Int(right)] ?? 0
                if lc != rc { return lc < rc }
                let lw = key.words[Int(left)], rw = key.words[Int(right)]
                if lw != rw { return lw < rw }
            }
            return left < right
        }
    }

    private func randomKey(_ rowCount: Int, _ generator: inout SeededGenerator) -> OrderWords {
        // Few distinct words (ties), words that differ only in high bytes, or anything.
        let spread = generator.next() % 3
        let words = (0..<rowCount).map { _ -> UInt64 in
            switch spread {
            case 0: return generator.next() % 5
            case 1: return (generator.next() % 7) << 56 | 0x1234
            default: return generator.next()
            }
        }
        let classes = generator.next() % 2 == 0 ? nil : (0..<rowCount).map { _ in UInt8(generator.next() % 3) }
        return OrderWords(classes: classes, words: words)
    }

    func testTheRadixSortAndTheTopKSelectionAgreeWithAStableComparisonSort() {
        var generator = SeededGenerator.fromEnvironment()
        for round in 0..<200 {
            let rowCount = round < 20 ? round : Int(generator.next() % 3_000)
            let keys = (0..<(1 + Int(generator.next() % 3))).map { _ in randomKey(rowCount, &generator) }
            let expected = plainOrder(keys, rowCount: rowCount)
            XCTAssertEqual(RowOrdering.sortedRows(keys, rowCount: rowCount), expected,
                           "round \(round), seed \(generator.seed)")
            for limit in [0, 1, 2, 10, rowCount / 5, rowCount] {
                XCTAssertEqual(RowOrdering.firstRows(keys, rowCount: rowCount, limit: limit),
                               Array(expected.prefix(limit)), "round \(round), limit \(limit), seed \(generator.seed)")
            }
        }
    }

    func testIntegerWordsOrderNullFirstThenValuesAndDescendingReversesIt() {
        let values: [Int64] = [5, .min, 0, -1, .max, 7, 5]
        let nulls = [false, false, true, false, false, false, false]
        let ascending = RowOrdering.sortedRows([.integers(values, nulls: nulls, ascending: true)], rowCount: 7)
        XCTAssertEqual(ascending, [2, 1, 3, 0, 6, 5, 4])
        let descending = RowOrdering.sortedRows([.integers(values, nulls: nulls, ascending: false)], rowCount: 7)
        XCTAssertEqual(descending, [4, 5, 0, 6, 3, 1, 2], "ties keep row order in both directions")
    }

    func testDoubleWordsOrderNullThenNaNThenNumbersWithNegativeZeroEqualToZero() {
        let values: [Double] = [1.5, .nan, 0, -0.0, -.infinity, .infinity, -2.5, 0, -.nan]
        let nulls = [false, false, true, false, false, false, false, false, false]
        let ascending = RowOrdering.sortedRows([.doubles(values, nulls: nulls, ascending: true)], rowCount: 9)
        XCTAssertEqual(ascending, [2, 1, 8, 4, 6, 3, 7, 0, 5])
        let descending = RowOrdering.sortedRows([.doubles(values, nulls: nulls, ascending: false)], rowCount: 9)
        XCTAssertEqual(descending, [5, 0, 3, 7, 6, 4, 1, 8, 2])
    }
}
