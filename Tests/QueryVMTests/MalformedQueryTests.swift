// MalformedQueryTests: malformed predicate strings give a ColumnarError with a position, and never crash.
//
// Hand-written cases pin the exact offset of common mistakes. The generated cases take valid queries and damage
// them at random (truncation, deleting, duplicating, swapping or inserting tokens, deleting or inserting
// characters); every damaged string that no longer parses must report an offset inside the string or at its end,
// with the caret under that offset. The seed is printed on failure (COLUMNAR_TEST_SEED replays it).

import ColumnarTestSupport
import Foundation
import QueryVM
import XCTest

final class MalformedQueryTests: XCTestCase {
    /// Valid queries to damage, with the arguments their placeholders take. Tokens are separated by single spaces,
    /// so that splitting on spaces gives the units that deletions, insertions and swaps move around.
    /// (`nonisolated(unsafe)`: the array is never mutated, but `Any` arguments are not Sendable.)
    private nonisolated(unsafe) static let validQueries: [(format: String, arguments: [Any])] = [
        ("age > %@ AND name BEGINSWITH[c] %@", [3, "r"]),
        ("age == 3", []),
        ("age = 3 OR age <> 4", []),
        ("NOT ( age < 3 || age >= 10 ) && name != nil", []),
        ("name CONTAINS[cd] 'abc' AND name LIKE 'a?c*'", []),
        ("name ENDSWITH[d] \"xyz\" OR name ==[c] 'Q'", []),
        ("age BETWEEN { 18 , 65 }", []),
        ("age BETWEEN %@", [[1, 2]]),
        ("age IN { 1 , 2 , 3 }", []),
        ("name IN %@", [["a", "b"]]),
        ("ANY toys.brand == 'lego'", []),
        ("ALL toys.price > 2.5", []),
        ("NONE toys.price < -1", []),
        ("SOME toys.name BEGINSWITH 'x'", []),
        ("owner.name == 'Ann' AND owner.age > 30", []),
        ("toys.@count > 1", []),
        ("toys.@sum.price >= 10 AND toys.@avg.price < 3", []),
        ("scores.@min == 0 OR scores.@max == 100", []),
        ("ANY prices.@allKeys == 'eur'", []),
        ("ANY prices.@allValues > 2", []),
        ("prices['eur'] > 2", []),
        ("prices[%@] > %@", ["usd", 4]),
        ("age > %d AND height < %lf AND name == %s AND initial == %c", [3, 1.5, "r", "q"]),
        ("SUBQUERY( toys , $t , $t.price > 5 AND $t.name != 'x' ).@count > 1", []),
        ("TRUEPREDICATE", []),
        ("FALSEPREDICATE OR TRUEPREDICATE", []),
        ("d > 2024-01-01@10:00:00 AND d < T1800000000:0", []),
        ("d == T2024-01-01@10:00:00:500", []),
        ("_id == oid(507f1f77bcf86cd799439011)", []),
        ("u == uuid(3B241101-E2BB-4255-8CAF-4136C566A962)", []),
        ("blob == B64\"aGVsbG8=\"", []),
        ("flag == YES AND other == false", []),
        ("%K == %@", ["owner.name", "x"]),
        ("%K.@count > %@", ["toys", 2]),
        ("a == 0x1F OR b == 1e-3 OR c == .5", []),
        ("( ( a == 1 ) ) AND ! ( b == 2 )", []),
        ("name == 'it\\'s' OR name == \"say \\\"hi\\\"\"", []),
    ]

    /// Tokens inserted at random: pieces that are each valid somewhere but rarely where they land.
    private static let junk = [
        "(", ")", "{", "}", "[", "]", ",", ".", "AND", "OR", "NOT", "==", "<", "BETWEEN", "IN", "ANY", "%@", "%K",
        "'", "\"", "@", "@count", "$t", "[c]", "SUBQUERY", "oid(", "uuid(zz)", "B64\"", "T1:", "2024-13-01@00:00:00",
        "#", "&", "|", "=", "-", "nil", "TRUEPREDICATE", "3", "'x'", "\\", "%", "[cx]", "@bogus",
    ]

    func testHandWrittenMalformedQueriesReportTheOffendingOffset() {
        let cases: [(format: String, arguments: [Any], offset: Int, mentions: String)] = [
            ("", [], 0, "expected a predicate, found end of query"),
            ("   ", [], 3, "found end of query"),
            ("age >", [], 5, "expected a value or key path after >"),
            ("age > 3 AND", [], 11, "expected a predicate"),
            ("age > 3 OR OR b == 1", [], 11, "found 'OR'"),
            ("(age > 3", [], 8, "expected ')' to close the '(' at offset 0"),
            ("age > 3)", [], 7, "has no matching '('"),
            ("age 3", [], 4, "expected a comparison operator"),
            ("age", [], 3, "expected a comparison operator"),
            ("age >> 3", [], 5, "found '>'"),
            ("a == 1 b == 2", [], 7, "expected AND, OR or end of query, found 'b'"),
            ("name BEGINSWITH[x] 'a'", [], 16, "c, d or cd"),
            ("name BEGINSWITH[cc] 'a'", [], 16, "c, d or cd"),
            ("name BEGINSWITH[c 'a'", [], 18, "']' to close the comparison modifier"),
            ("name == 'abc", [], 12, "expected ' to close the string that starts at offset 8"),
            ("name == \"a\\q\"", [], 10, "found '\\q'"),
            ("name == 'a\\", [], 11, "escaped character"),
            ("_id == oid(123)", [], 11, "ObjectId of 24 hexadecimal digits"),
            // Fullwidth digits are hexadecimal digits to Character.isHexDigit, but not to a literal.
            ("_id == oid(５０７f1f77bcf86cd799439011)", [], 11, "ObjectId of 24 hexadecimal digits"),
            ("_id == oid(507f1f77bcf86cd799439011", [], 35, "expected ')' to close the literal"),
            ("u == uuid(3B241101E2BB42558CAF4136C566A962)", [], 10, "8-4-4-4-12"),
            ("b == B64\"***\"", [], 8, "base64"),
            ("d == 2024-13-01@00:00:00", [], 5, "valid calendar date"),
            ("d == 2023-02-29@00:00:00", [], 5, "valid calendar date"),
            ("d == 2024-01-01@10:00", [], 5, "YYYY-MM-DD@HH:MM:SS"),
            ("d == T5:1000000000", [], 5, "nanoseconds below"),
            ("d == T5:-1", [], 5, "same sign"),
            ("a == 99999999999999999999", [], 5, "expected an integer between"),
            ("a == 0x", [], 5, "hexadecimal digits"),
            ("toys.@bogus > 1", [], 5, "expected a collection operator"),
            ("toys. > 1", [], 6, "a property name or collection operator after '.'"),
            ("toys.@count >", [], 13, "after >"),
            ("a == %@ AND b == %@", [1], 17, "argument index 1"),
            ("a == %y", [1], 5, "expected a placeholder (%@, %K, or a printf conversion"),
            ("a == %5.2f", [1.0], 5, "found '%' followed by '5'"),
            ("a == %hf", [1.0], 5, "found '%hf'"),
            ("a == %%", [], 5, "found '%' followed by '%'"),
            ("a == %", [], 5, "found '%' followed by end of query"),
            ("a == %d", [2.5], 5, "expected an integer (or Bool) for %d at argument index 0, found a value of type Double (2.5)"),
            ("a == %@ OR a == %lu", [1, -3], 16, "expected a non-negative integer for %lu at argument index 1"),
            ("a == %f", ["x"], 5, "expected a Double, Float or integer for %f at argument index 0, found a value of type String"),
            ("a == %s", [7], 5, "expected a String for %s at argument index 0, found a value of type Int (7)"),
            ("a == %c", ["ab"], 5, "expected a Character, a one-character String or a character code for %c"),
            ("a == %d", [Int?.none as Any], 5, "expected an integer (or Bool) for %d at argument index 0, found nil"),
            ("a == %lld", [], 5, "expected an argument for placeholder '%lld' at argument index 0"),
            ("a == $", [], 6, "variable name after '$'"),
            ("a # 1", [], 2, "found '#'"),
            ("a & 1", [], 2, "found '&'"),
            ("a BETWEEN {1}", [], 10, "two values"),
            ("a BETWEEN 5", [], 10, "two values"),
            ("a BETWEEN %@", [[1, 2, 3]], 10, "two values"),
            ("a IN {1, 2", [], 10, "'}' or ','"),
            ("a IN {1 2}", [], 8, "'}' or ','"),
            ("a IN {1,}", [], 8, "a value in the list"),
            ("SUBQUERY(toys, t, $t.x > 1).@count > 1", [], 15, "variable such as $x"),
            ("SUBQUERY(toys $t, $t.x > 1).@count > 1", [], 14, "',' after SUBQUERY's collection"),
            ("SUBQUERY(toys, $t, $t.x > 1.@count > 1", [], 27, "')' to close SUBQUERY, found '.'"),
            ("SUBQUERY(1, $t, $t.x > 1).@count > 1", [], 9, "key path of a collection"),
            ("m['a' == 1", [], 6, "']' to close the subscript"),
            ("m[a] == 1", [], 2, "a string key, a non-negative position, FIRST, LAST or * in a subscript"),
            ("m[-1] == 1", [], 2, "a non-negative position"),
            ("ANY == 1", [], 4, "a key path after ANY"),
            ("NOT", [], 3, "expected a predicate"),
            ("a == AND", [], 5, "found 'AND'"),
            ("AND a == 1", [], 0, "found 'AND'"),
            ("a IN", [], 4, "after IN"),
            ("(", [], 1, "expected a predicate"),
            (")", [], 0, "found ')'"),
            ("a == 'x' ]", [], 9, "found ']'"),
            ("a ==[c]", [], 7, "after =="),
            ("a[c] == 1", [], 2, "string key"),
            ("ALL", [], 3, "a key path after ALL"),
            ("a.b.", [], 4, "after '.'"),
            ("TRUEPREDICATE FALSEPREDICATE", [], 14, "AND, OR or end of query"),
            ("a == {", [], 6, "a value in the list"),
            ("a == 1 &&", [], 9, "expected a predicate"),
            ("a\n==\n", [], 5, "found end of query"),
        ]
        for (format, arguments, offset, mentions) in cases {
            let message = Self.check(format, arguments)
            guard let message else {
                XCTFail("\(format.debugDescription) parsed")
                continue
            }
            XCTAssertTrue(message.hasPrefix("malformed query at offset \(offset): "), "\(format.debugDescription): \(message)")
            XCTAssertTrue(message.contains(mentions), "\(format.debugDescription): \(message)")
        }
    }

    func testDeepNestingIsRefusedWithAnErrorRatherThanExhaustingTheStack() {
        for format in [
            String(repeating: "(", count: 100_000) + "a == 1" + String(repeating: ")", count: 100_000),
            String(repeating: "NOT ", count: 100_000) + "a == 1",
            String(repeating: "!", count: 100_000) + "a == 1",
            "a IN " + String(repeating: "{", count: 100_000),
        ] {
            let message = Self.check(format, [])
            XCTAssertTrue(message?.contains("levels of nesting") == true, message ?? "parsed")
        }
    }

    func testRandomlyDamagedQueriesFailWithAPositionAndNeverCrash() {
        var generator = SeededGenerator.fromEnvironment()
        var failures = 0
        var attempts = 0
        for (format, arguments) in Self.validQueries {
            XCTAssertNil(Self.check(format, arguments), "the seed query \(format) must parse")
        }
        while failures < 1_500 && attempts < 20_000 {
            attempts += 1
            let (format, arguments) = Self.validQueries.randomElement(using: &generator)!
            let damaged = Self.damage(format, using: &generator)
            // Some damage leaves a valid query (deleting "NOT", swapping the operands of AND); only failures count.
            if let message = Self.check(damaged, arguments) {
                failures += 1
                if !message.hasPrefix("malformed query at offset ") {
                    XCTFail("seed \(generator.seed): \(damaged.debugDescription) gave \(message)")
                }
            }
        }
        XCTAssertGreaterThanOrEqual(failures, 500, "seed \(generator.seed): too few damaged queries failed to parse")
    }

    /// Parses `format`; nil when it parses, else the error message after checking that its offset lies inside
    /// the string or at its end and that the caret line points at that offset.
    private static func check(_ format: String, _ arguments: [Any], file: StaticString = #filePath, line: UInt = #line)
        -> String?
    {
        do {
            _ = try PredicateParser.parse(format, arguments: arguments)
            return nil
        } catch let error as ColumnarError {
            let message = error.message
            XCTAssertEqual(error.code, .misuse, file: file, line: line)
            let prefix = "malformed query at offset "
            guard message.hasPrefix(prefix),
                let offset = Int(message.dropFirst(prefix.count).prefix(while: { $0.isNumber })) else {
                XCTFail("no offset in the error for \(format.debugDescription): \(message)", file: file, line: line)
                return message
            }
            XCTAssertTrue((0 ... format.count).contains(offset), "\(format.debugDescription): \(message)", file: file, line: line)
            let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
            XCTAssertEqual(lines.count, 3, message, file: file, line: line)
            XCTAssertEqual(lines.last.map(String.init), "  " + String(repeating: " ", count: offset) + "^", message, file: file, line: line)
            return message
        } catch {
            XCTFail("\(format.debugDescription) threw a non-ColumnarError \(error)", file: file, line: line)
            return "\(error)"
        }
    }

    /// `format` with one random kind of damage.
    private static func damage(_ format: String, using generator: inout SeededGenerator) -> String {
        var tokens = format.split(separator: " ").map(String.init)
        var characters = Array(format)
        switch Int.random(in: 0 ..< 7, using: &generator) {
        case 0:  // truncation
            return String(characters.prefix(Int.random(in: 0 ..< characters.count, using: &generator)))
        case 1:  // token deletion
            tokens.remove(at: Int.random(in: 0 ..< tokens.count, using: &generator))
        case 2:  // token duplication
            let index = Int.random(in: 0 ..< tokens.count, using: &generator)
            tokens.insert(tokens[index], at: index)
        case 3:  // swap of two tokens
            tokens.swapAt(
                Int.random(in: 0 ..< tokens.count, using: &generator), Int.random(in: 0 ..< tokens.count, using: &generator))
        case 4:  // junk insertion
            tokens.insert(junk.randomElement(using: &generator)!, at: Int.random(in: 0 ... tokens.count, using: &generator))
        case 5:  // character deletion
            characters.remove(at: Int.random(in: 0 ..< characters.count, using: &generator))
            return String(characters)
        default:  // character insertion
            let inserted = Array("()[]{}'\"@%$.,=<>!&|#\\-:0aZ ").randomElement(using: &generator)!
            characters.insert(inserted, at: Int.random(in: 0 ... characters.count, using: &generator))
            return String(characters)
        }
        return tokens.joined(separator: " ")
    }
}
