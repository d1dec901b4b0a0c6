// OrderedIndexQueryTests: queries that read an ordered search index (IndexRange programs, min/max from the index
// ends) give exactly what the same query gives on an unindexed copy of the same values, which always scans.
// Each object holds every value twice: once in an indexed property, once in a plain one.

import ColumnarTestSupport
import Columnar
import Foundation
import XCTest

final class OIRecord: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var number = 0
    @Persisted var plainNumber = 0
    @Persisted(indexed: true) var optNumber: Int?
    @Persisted var plainOptNumber: Int?
    @Persisted(indexed: true) var word = ""
    @Persisted var plainWord = ""
    @Persisted(indexed: true) var day: Date?
    @Persisted var plainDay: Date?
}

final class OrderedIndexQueryTests: RealmTestCase {
    private static let words = ["", "a", "ab", "abc", "abcdef", "abcdefg", "abcdefgh", "abd", "b", "ba", "zz",
                                "ab\u{0}c", "äb", "Ab", "ABC", "abcdefghij", "abcdefghik"]

    private func fill(_ realm: Realm, count: Int, firstID: Int = 0, _ generator: inout SeededGenerator) throws {
        try realm.write {
            for id in firstID ..< firstID + count {
                let record = OIRecord()
                record.id = id
                let number = Int.random(in: -300 ... 300, using: &generator)
                record.number = number
                record.plainNumber = number
                let optional: Int? = Int.random(in: 0 ..< 4, using: &generator) == 0 ? nil
                    : [Int.min, Int.max, 0, -1, Int.random(in: -50 ... 50, using: &generator)]
                        .randomElement(using: &generator)!
                record.optNumber = optional
                record.plainOptNumber = optional
                let word = Self.words.randomElement(using: &generator)! + (Bool.random(using: &generator) ? "" : "x\(id % 7)")
                record.word = word
                record.plainWord = word
                let day: Date? = Int.random(in: 0 ..< 5, using: &generator) == 0 ? nil
                    : Date(timeIntervalSince1970: Double(Int.random(in: -20_000_000_000 ... 20_000_000_000,
                                                                     using: &generator)) / 10)
                record.day = day
                record.plainDay = day
                realm.add(record)
            }
        }
    }

    private func ids(_ results: Results<OIRecord>) -> [Int] { results.map(\.id) }

    /// The query on the indexed properties and the same query on their plain copies.
    private func assertSameAnswer(_ realm: Realm, _ format: String, _ arguments: [Any], seed: UInt64,
                                  file: StaticString = #filePath, line: UInt = #line) {
        let plainFormat = format.replacingOccurrences(of: "optNumber", with: "plainOptNumber")
            .replacingOccurrences(of: "number", with: "plainNumber")
            .replacingOccurrences(of: "word", with: "plainWord")
            .replacingOccurrences(of: "plainOptplainNumber", with: "plainOptNumber")
        let objects = realm.objects(OIRecord.self)
        let indexed = objects.filter(NSPredicateFormat(format, arguments))
        let plain = objects.filter(NSPredicateFormat(plainFormat, arguments))
        let context = "seed \(seed): \(format) \(arguments)"
        XCTAssertEqual(indexed.count, plain.count, context, file: file, line: line)
        XCTAssertEqual(ids(indexed), ids(plain), context, file: file, line: line)
        XCTAssertEqual(ids(indexed.sorted(byKeyPath: "number")), ids(plain.sorted(byKeyPath: "plainNumber")),
                       context, file: file, line: line)
    }

    func testRangesAndPrefixesOnIndexedPropertiesMatchTheUnindexedCopies() throws {
        var generator = SeededGenerator.fromEnvironment()
        let seed = generator.seed
        let realm = try openRealm()
        try fill(realm, count: 2_000, &generator)
        func bound() -> Int {
            [Int.min, Int.max, 0, -1, 300, -300, Int.random(in: -320 ... 320, using: &generator)]
                .randomElement(using: &generator)!
        }
        let operators = ["<", "<=", ">", ">=", "=="]
        func check() {
            for _ in 0 ..< 25 {
                let op = operators.randomElement(using: &generator)!
                assertSameAnswer(realm, "number \(op) %@", [bound()], seed: seed)
                assertSameAnswer(realm, "optNumber \(op) %@", [bound()], seed: seed)
                let (low, high) = (bound(), bound())
                assertSameAnswer(realm, "number BETWEEN {%@, %@}", [low, high], seed: seed)
                assertSameAnswer(realm, "number > %@ AND number <= %@", [low, high], seed: seed)
                assertSameAnswer(realm, "optNumber >= %@ AND number < %@ AND word BEGINSWITH 'a'", [low, high],
                                 seed: seed)
                let word = Self.words.randomElement(using: &generator)!
                let prefix = String(word.prefix(Int.random(in: 0 ... 9, using: &generator)))
                assertSameAnswer(realm, "word BEGINSWITH %@", [prefix], seed: seed)
                assertSameAnswer(realm, "word BEGINSWITH %@ AND number > %@", [prefix, low], seed: seed)
                assertSameAnswer(realm, "word BEGINSWITH[c] %@", [prefix], seed: seed)
            }
        }
        check()
        // Inside a write transaction the index is partly private: changed, added and deleted objects.
        realm.beginWrite()
        let objects = realm.objects(OIRecord.self)
        for record in objects.filter("id < 400") {
            record.number = Int.random(in: -300 ... 300, using: &generator)
            record.plainNumber = record.number
            record.optNumber = Bool.random(using: &generator) ? nil : record.number
            record.plainOptNumber = record.optNumber
            record.word = Self.words.randomElement(using: &generator)!
            record.plainWord = record.word
        }
        realm.delete(objects.filter("id >= 1900"))
        check()
        realm.cancelWrite()
        check()
    }

    func testNarrowRangesReadTheIndexAndWideOnesScan() throws {
        var generator = SeededGenerator(seed: 7)
        let realm = try openRealm()
        try fill(realm, count: 2_000, &generator)
        let objects = realm.objects(OIRecord.self)
        let narrow = objects.filter("number BETWEEN {10, 12}")
        XCTAssertTrue(narrow.explain().hasPrefix("  0  IndexRange number in [10, 12]"), narrow.explain())
        XCTAssertEqual(narrow.count, objects.filter("plainNumber BETWEEN {10, 12}").count)
        let prefixed = objects.filter("word BEGINSWITH 'zz'")
        XCTAssertTrue(prefixed.explain().contains("IndexRange word in BEGINSWITH \"zz\""), prefixed.explain())
        let wide = objects.filter("number > -250")
        XCTAssertTrue(wide.explain().hasPrefix("  0  Scan"), wide.explain())
        XCTAssertEqual(wide.count, objects.filter("plainNumber > -250").count)
        // A condition the index cannot answer is tested on each object the range holds.
        let mixed = objects.filter("number < -290 AND plainWord ENDSWITH '3'")
        XCTAssertTrue(mixed.explain().contains("IndexRange"), mixed.explain())
        XCTAssertEqual(ids(mixed), ids(objects.filter("plainNumber < -290 AND plainWord ENDSWITH '3'")))
    }

    /// Sorting a whole table by an indexed property reads the ordered index (QueryExecutor.indexOrderedKeys); the
    /// answer must be the stable sort the unindexed copy gets, both ways, with ties, nulls next to Int.min, far
    /// dates sharing saturated keys, and strings sharing their first six bytes.
    func testSortingTheWholeTableByAnIndexedPropertyMatchesTheUnindexedCopy() throws {
        var generator = SeededGenerator.fromEnvironment()
        let realm = try openRealm()
        func word() -> String {
            // Over four letters, strings of six or more letters often share the six bytes the key orders by.
            let length = Int.random(in: 0 ... 9, using: &generator)
            return String((0 ..< length).map { _ in "abcé".randomElement(using: &generator)! })
        }
        func day() -> Date? {
            switch Int.random(in: 0 ..< 6, using: &generator) {
            case 0: return nil
            case 1: return Date(timeIntervalSince1970: Double(Int.random(in: 9_000_000_000 ... 9_100_000_000,
                                                                      using: &generator)))   // beyond 2^33 s
            case 2: return Date(timeIntervalSince1970: -Double(Int.random(in: 9_000_000_000 ... 9_100_000_000,
                                                                       using: &generator)))
            default: return Date(timeIntervalSince1970: Double(Int.random(in: -2_000_000 ... 2_000_000,
                                                                       using: &generator)) / 8)
            }
        }
        func add(ids: Range<Int>) {
            for id in ids {
                let number = Int.random(in: -40 ... 40, using: &generator)   // many ties
                let optional: Int? = [nil, Int.min, Int.max, -1, Int.random(in: -5 ... 5, using: &generator)]
                    .randomElement(using: &generator)!
                let text = word(), moment = day()
                realm.add(OIRecord(value: ["id": id, "number": number, "plainNumber": number,
                                           "optNumber": optional as Any, "plainOptNumber": optional as Any,
                                           "word": text, "plainWord": text,
                                           "day": moment as Any, "plainDay": moment as Any]))
            }
        }
        let objects = realm.objects(OIRecord.self)
        func assertSorted(_ context: String) {
            for (indexed, plain) in [("number", "plainNumber"), ("optNumber", "plainOptNumber"),
                                     ("word", "plainWord"), ("day", "plainDay")] {
                for ascending in [true, false] {
                    XCTAssertEqual(ids(objects.sorted(byKeyPath: indexed, ascending: ascending)),
                                   ids(objects.sorted(byKeyPath: plain, ascending: ascending)),
                                   "\(context): \(indexed), ascending \(ascending)")
                }
            }
        }
        assertSorted("seed \(generator.seed), empty")
        try realm.write { add(ids: 0 ..< 2_000) }
        assertSorted("seed \(generator.seed), committed")
        realm.beginWrite()
        realm.delete(objects.filter("id < 300"))
        add(ids: 5_000 ..< 5_400)
        for record in objects.filter("id BETWEEN {1000, 1100}") {
            record.number = 7
            record.plainNumber = 7
            record.optNumber = nil
            record.plainOptNumber = nil
        }
        assertSorted("seed \(generator.seed), inside a write")
        realm.cancelWrite()
        assertSorted("seed \(generator.seed), after cancelling")
    }

    /// When few strings share their first six bytes, the sort reads the index and orders only those runs by their
    /// values (read in one gather). Their order — byte order, null and empty first, a shorter string before its
    /// extensions, ties in key order — must be the unindexed copy's, both ways, committed and inside a write.
    func testSortingByAnIndexedStringWhoseFewSharedPrefixesAreOrderedByValue() throws {
        var generator = SeededGenerator.fromEnvironment()
        let realm = try openRealm()
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        // Tied runs: values sharing "abcdef" or "zzzzzz" that differ after it (or are equal), and empty strings.
        let tied = ["", "abcdef", "abcdef", "abcdefa", "abcdef\u{0}", "abcdefé", "abcdefzz", "abcdefa\u{0}",
                    "zzzzzz", "zzzzzzy", "zzzzzzyy", "zzzzzzé"]
        func word() -> String {
            if Int.random(in: 0 ..< 14, using: &generator) == 0 { return tied.randomElement(using: &generator)! }
            return String((0 ..< 10).map { _ in letters.randomElement(using: &generator)! })
        }
        func add(ids: Range<Int>) {
            for id in ids {
                let text = word()
                realm.add(OIRecord(value: ["id": id, "word": text, "plainWord": text]))
            }
        }
        let objects = realm.objects(OIRecord.self)
        func assertSorted(_ context: String) {
            // The index answers only while the objects in shared-prefix runs stay under an eighth of the table
            // (QueryExecutor.indexOrderInexactShareLimit); past it the general sort runs and this test would not
            // reach the runs' ordering.
            var prefixCounts: [[UInt8]: Int] = [:]
            for record in objects { prefixCounts[Array(record.word.utf8.prefix(6)), default: 0] += 1 }
            let inRuns = prefixCounts.values.filter { $0 > 1 }.reduce(0, +)
            XCTAssertGreaterThan(inRuns, 0, context)
            XCTAssertLessThan(inRuns, objects.count / 8, context)
            for ascending in [true, false] {
                XCTAssertEqual(ids(objects.sorted(byKeyPath: "word", ascending: ascending)),
                               ids(objects.sorted(byKeyPath: "plainWord", ascending: ascending)),
                               "\(context), ascending \(ascending)")
            }
        }
        try realm.write { add(ids: 0 ..< 3_000) }
        assertSorted("seed \(generator.seed), committed")
        realm.beginWrite()
        realm.delete(objects.filter("id < 200"))
        add(ids: 10_000 ..< 10_300)
        for record in objects.filter("id BETWEEN {1000, 1030}") {
            record.word = "abcdefb"
            record.plainWord = "abcdefb"
        }
        assertSorted("seed \(generator.seed), inside a write")
        realm.cancelWrite()
        assertSorted("seed \(generator.seed), after cancelling")
    }

    func testMinAndMaxOverTheWholeTableComeFromTheIndexEnds() throws {
        var generator = SeededGenerator.fromEnvironment()
        let realm = try openRealm()
        let objects = realm.objects(OIRecord.self)
        XCTAssertNil(objects.min(ofProperty: "number") as Int?)
        XCTAssertNil(objects.max(ofProperty: "day") as Date?)
        try realm.write {
            for id in 0 ..< 3 { realm.add(OIRecord(value: ["id": id])) }   // optNumber and day all nil
        }
        XCTAssertNil(objects.min(ofProperty: "optNumber") as Int?)
        XCTAssertNil(objects.max(ofProperty: "day") as Date?)
        try fill(realm, count: 1_500, firstID: 10, &generator)
        func assertExtremes(_ context: String) {
            XCTAssertEqual(objects.min(ofProperty: "number") as Int?, objects.min(ofProperty: "plainNumber") as Int?,
                           context)
            XCTAssertEqual(objects.max(ofProperty: "number") as Int?, objects.max(ofProperty: "plainNumber") as Int?,
                           context)
            XCTAssertEqual(objects.min(ofProperty: "optNumber") as Int?,
                           objects.min(ofProperty: "plainOptNumber") as Int?, context)
            XCTAssertEqual(objects.max(ofProperty: "optNumber") as Int?,
                           objects.max(ofProperty: "plainOptNumber") as Int?, context)
            XCTAssertEqual(objects.min(ofProperty: "day") as Date?, objects.min(ofProperty: "plainDay") as Date?,
                           context)
            XCTAssertEqual(objects.max(ofProperty: "day") as Date?, objects.max(ofProperty: "plainDay") as Date?,
                           context)
        }
        assertExtremes("seed \(generator.seed), committed")
        try realm.write {
            realm.delete(objects.filter("optNumber == %@ OR optNumber == %@", Int.min, Int.max))
            let record = OIRecord(value: ["id": 99_999, "number": 1_000, "plainNumber": 1_000, "optNumber": -7,
                                          "plainOptNumber": -7])
            realm.add(record)
            assertExtremes("seed \(generator.seed), inside a write")
        }
        assertExtremes("seed \(generator.seed), after the write")
    }

    /// The whole-table extremes skip the query machinery; filtered, sorted and distinct results and lists must
    /// not take that way, and a cancelled write must leave nothing behind in what it remembers.
    func testOnlyTheWholeTableTakesTheIndexEndsAndACancelledWriteLeavesNothing() throws {
        var generator = SeededGenerator.fromEnvironment()
        let realm = try openRealm()
        try fill(realm, count: 800, &generator)
        let objects = realm.objects(OIRecord.self)
        let values = objects.map(\.number)
        let context = "seed \(generator.seed)"
        XCTAssertEqual(objects.min(ofProperty: "number") as Int?, values.min(), context)
        XCTAssertEqual(objects.filter("number > 0").min(ofProperty: "number") as Int?,
                       values.filter { $0 > 0 }.min(), context)
        XCTAssertEqual(objects.filter("number < 0").max(ofProperty: "number") as Int?,
                       values.filter { $0 < 0 }.max(), context)
        XCTAssertEqual(objects.sorted(byKeyPath: "word").max(ofProperty: "number") as Int?, values.max(), context)
        XCTAssertEqual(objects.distinct(by: ["word"]).min(ofProperty: "number") as Int?,
                       objects.distinct(by: ["word"]).map(\.number).min(), context)

        let committedMinimum = objects.min(ofProperty: "number") as Int?
        realm.beginWrite()
        let record = OIRecord(value: ["id": 50_000, "number": -1_000_000, "plainNumber": -1_000_000])
        realm.add(record)
        XCTAssertEqual(objects.min(ofProperty: "number") as Int?, -1_000_000, "inside the write")
        XCTAssertEqual(objects.min(ofProperty: "number") as Int?, objects.min(ofProperty: "plainNumber") as Int?)
        realm.cancelWrite()
        XCTAssertEqual(objects.min(ofProperty: "number") as Int?, committedMinimum, "after cancelling the write")
        XCTAssertEqual(objects.max(ofProperty: "number") as Int?, values.max(), "after cancelling the write")
    }
}

/// Builds a predicate-format call from an argument array (the filter takes variadic arguments).
private struct NSPredicateFormat {
    let format: String
    let arguments: [Any]
    init(_ format: String, _ arguments: [Any]) {
        self.format = format
        self.arguments = arguments
    }
}

private extension Results where Element == OIRecord {
    func filter(_ predicate: NSPredicateFormat) -> Results<OIRecord> {
        switch predicate.arguments.count {
        case 0: return filter(predicate.format)
        case 1: return filter(predicate.format, predicate.arguments[0])
        case 2: return filter(predicate.format, predicate.arguments[0], predicate.arguments[1])
        default: preconditionFailure("at most two arguments")
        }
    }
}
