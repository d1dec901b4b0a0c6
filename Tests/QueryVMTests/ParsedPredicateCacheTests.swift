// ParsedPredicateCacheTests: a predicate taken from the cache of parsed formats is the one parsing afresh gives,
// for every format and argument kinds, in any order of calls (so a template made with one argument's kind is never
// used for another's), and a bad argument after good ones still gets the parser's positioned error.

@testable import QueryVM
import ColumnarTestSupport
import Foundation
import XCTest

final class ParsedPredicateCacheTests: XCTestCase {
    private static let formats = [
        "age > %@", "name == %@ AND age >= %@", "NOT (name BEGINSWITH[c] %@) OR ratio < %@", "age == %d",
        "ratio > %f OR age < %i", "name LIKE %s", "%K == %@", "scores[%@] > 3", "age IN %@", "age BETWEEN %@",
        "age BETWEEN {%@, %@}", "age IN {%@, %@, 3}", "SUBQUERY(dogs, $d, $d.age > %@ AND $d.name == %@).@count > 0",
        "ANY dogs.age == %@", "owner == %@", "when < %@", "TRUEPREDICATE", "age > 3 AND name == 'x'", "age > %@ %@",
        "name == %@ OR name == %@ OR name == %@",
    ]

    private static nonisolated(unsafe) let pool: [Any] = [
        5, Int8(3), -7, 2.5, Float(1.5), "rex", "", NSNull(), Optional<Int>.none as Any, true,
        Date(timeIntervalSince1970: 12), Data([1, 2, 3]), [1, 2], [3, 4, 5], ["a", "b"], "name", UUID(),
        Int64.max, Double.nan,
    ]

    private func outcome(_ body: () throws -> QueryPredicate) -> String {
        do { return "\(try body())" } catch { return "error: \(error)" }
    }

    func testCachedParsesEqualFreshParsesForRandomArguments() {
        var generator = SeededGenerator.fromEnvironment()
        for round in 0..<3_000 {
            let format = Self.formats[Int(generator.next() % UInt64(Self.formats.count))]
            let arguments = (0..<Int(generator.next() % 5)).map { _ in Self.pool[Int(generator.next() % UInt64(Self.pool.count))] }
            let fresh = outcome { try PredicateParser.parseAfresh(format, arguments: arguments) }
            let cached = outcome { try PredicateParser.parse(format, arguments: arguments) }
            XCTAssertEqual(cached, fresh, "round \(round), seed \(generator.seed): \(format) with \(arguments)")
            // NaN is not equal to itself, so ASTs holding it are compared by their text above only.
            if let fresh = try? PredicateParser.parseAfresh(format, arguments: arguments),
               let cached = try? PredicateParser.parse(format, arguments: arguments), !"\(fresh)".contains("nan") {
                XCTAssertEqual(cached, fresh, "round \(round): \(format) with \(arguments) (source ranges included)")
            }
        }
    }

    func testAValueOfAnotherKindIsNotPutIntoATemplateMadeForAnother() throws {
        let format = "age == %@"
        _ = try PredicateParser.parse(format, arguments: [3])
        XCTAssertEqual(try PredicateParser.parse(format, arguments: ["x"]),
                       try PredicateParser.parseAfresh(format, arguments: ["x"]))
        XCTAssertEqual(try PredicateParser.parse(format, arguments: [4]),
                       try PredicateParser.parseAfresh(format, arguments: [4]))
        XCTAssertThrowsError(try PredicateParser.parse("age == %d", arguments: ["not a number"])) { error in
            XCTAssertTrue("\(error)".contains("%d at argument index 0"), "\(error)")
        }
    }

    /// The key of a format's templates holds the kind of every argument, the last of fifteen included; a format
    /// with more placeholders than a key can describe is parsed afresh each time (no template number), and still
    /// gives the parser's answer.
    func testArgumentKindsAreKeptForEveryPlaceholderAndLongFormatsAreParsedAfresh() throws {
        for count in [1, 14, 15, 16, 17] {
            let format = (0..<count).map { _ in "age == %@" }.joined(separator: " OR ")
            let ints: [Any] = Array(0..<count)
            var lastIsText = ints
            lastIsText[count - 1] = "x"
            let first = try PredicateParser.parseTemplated(format, arguments: ints)
            let again = try PredicateParser.parseTemplated(format, arguments: ints.map { ($0 as! Int) + 100 })
            let other = try PredicateParser.parseTemplated(format, arguments: lastIsText)
            XCTAssertEqual(first.predicate, try PredicateParser.parseAfresh(format, arguments: ints), "\(count)")
            XCTAssertEqual(other.predicate, try PredicateParser.parseAfresh(format, arguments: lastIsText), "\(count)")
            if count <= 15 {
                XCTAssertNotNil(first.templateID, "\(count) placeholders")
                XCTAssertEqual(again.templateID, first.templateID, "\(count): same kinds, same template")
                XCTAssertNotNil(other.templateID, "\(count) placeholders")
                XCTAssertNotEqual(other.templateID, first.templateID, "\(count): the last argument's kind differs")
            } else {
                XCTAssertNil(first.templateID, "\(count) placeholders")
                XCTAssertNil(other.templateID, "\(count) placeholders")
            }
        }
    }
}
