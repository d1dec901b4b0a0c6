// PredicateParserTests: every construct of RealmSwift's predicate-format strings parses to the AST it means.
//
// Most tests compare the canonical text of the parsed AST (QueryPredicate+CanonicalText.swift), which spells each
// construct one way and parenthesises every AND and OR, so a test shows both the structure and the grouping.
// A few compare whole ASTs, source ranges included.

import Foundation
import QueryVM
import XCTest

final class PredicateParserTests: XCTestCase {
    /// The canonical text of `format` parsed with `arguments`; a parse failure fails the test.
    private func canonical(_ format: String, _ arguments: Any..., file: StaticString = #filePath, line: UInt = #line)
        -> String
    {
        do {
            return try PredicateParser.parse(format, arguments: arguments).description
        } catch {
            XCTFail("\(format) did not parse: \(error)", file: file, line: line)
            return ""
        }
    }

    /// The error message for `format`; parsing successfully fails the test.
    private func errorMessage(_ format: String, _ arguments: Any..., file: StaticString = #filePath, line: UInt = #line)
        -> String
    {
        do {
            let predicate = try PredicateParser.parse(format, arguments: arguments)
            XCTFail("\(format) parsed as \(predicate)", file: file, line: line)
            return ""
        } catch let error as ColumnarError {
            XCTAssertEqual(error.code, .misuse, file: file, line: line)
            return error.message
        } catch {
            XCTFail("\(format) threw a non-ColumnarError \(error)", file: file, line: line)
            return ""
        }
    }

    // MARK: - Comparisons

    func testEveryComparisonOperatorSpellingParsesToItsCanonicalOperator() {
        XCTAssertEqual(canonical("age == 3"), "age == 3")
        XCTAssertEqual(canonical("age = 3"), "age == 3")
        XCTAssertEqual(canonical("age != 3"), "age != 3")
        XCTAssertEqual(canonical("age <> 3"), "age != 3")
        XCTAssertEqual(canonical("age < 3"), "age < 3")
        XCTAssertEqual(canonical("age <= 3"), "age <= 3")
        XCTAssertEqual(canonical("age =< 3"), "age <= 3")
        XCTAssertEqual(canonical("age > 3"), "age > 3")
        XCTAssertEqual(canonical("age >= 3"), "age >= 3")
        XCTAssertEqual(canonical("age => 3"), "age >= 3")
        XCTAssertEqual(canonical("age>3"), "age > 3")
        XCTAssertEqual(canonical("3 < age"), "3 < age")
    }

    func testStringOperatorsTakeCaseAndDiacriticModifiers() {
        XCTAssertEqual(canonical("name BEGINSWITH 'R'"), "name BEGINSWITH \"R\"")
        XCTAssertEqual(canonical("name BEGINSWITH[c] 'R'"), "name BEGINSWITH[c] \"R\"")
        XCTAssertEqual(canonical("name ENDSWITH[d] 'é'"), "name ENDSWITH[d] \"é\"")
        XCTAssertEqual(canonical("name CONTAINS[cd] 'x'"), "name CONTAINS[cd] \"x\"")
        XCTAssertEqual(canonical("name CONTAINS[dc] 'x'"), "name CONTAINS[cd] \"x\"")
        XCTAssertEqual(canonical("name CONTAINS[CD] 'x'"), "name CONTAINS[cd] \"x\"")
        XCTAssertEqual(canonical("name LIKE 'a?c*'"), "name LIKE \"a?c*\"")
        XCTAssertEqual(canonical("name LIKE[c] '*x'"), "name LIKE[c] \"*x\"")
        XCTAssertEqual(canonical("name ==[c] 'x'"), "name ==[c] \"x\"")
        XCTAssertEqual(canonical("name !=[cd] 'x'"), "name !=[cd] \"x\"")
        XCTAssertEqual(canonical("name = [c] 'x'"), "name ==[c] \"x\"")
    }

    func testModifiersAreRecordedAsOptions() throws {
        let predicate = try PredicateParser.parse("name CONTAINS[cd] 'x'")
        guard case .comparison(let comparison) = predicate.kind else { return XCTFail("\(predicate)") }
        XCTAssertEqual(comparison.op, .contains)
        XCTAssertEqual(comparison.options, [.caseInsensitive, .diacriticInsensitive])
    }

    func testKeywordsAreCaseInsensitive() {
        XCTAssertEqual(
            canonical("name beginswith 'a' and not age == 1 Or truepredicate"),
            "((name BEGINSWITH \"a\" AND NOT age == 1) OR TRUEPREDICATE)")
        XCTAssertEqual(canonical("any toys.x == nil"), "ANY toys.x == NULL")
        XCTAssertEqual(canonical("a BeTwEeN {1, 2}"), "a BETWEEN {1, 2}")
        XCTAssertEqual(canonical("a == yes OR b == No"), "(a == TRUE OR b == FALSE)")
        XCTAssertEqual(canonical("falsePredicate"), "FALSEPREDICATE")
    }

    func testBetweenTakesAListOfTwoBoundsOrAnArrayArgument() {
        XCTAssertEqual(canonical("age BETWEEN {18, 65}"), "age BETWEEN {18, 65}")
        XCTAssertEqual(canonical("age BETWEEN %@", [1, 5]), "age BETWEEN {1, 5}")
        XCTAssertEqual(canonical("ANY scores BETWEEN {1.5, 2}"), "ANY scores BETWEEN {1.5, 2}")
    }

    func testInTakesAListAnArrayArgumentOrACollection() {
        XCTAssertEqual(canonical("age IN {1, 2, 3}"), "age IN {1, 2, 3}")
        XCTAssertEqual(canonical("age IN {}"), "age IN {}")
        XCTAssertEqual(canonical("name IN %@", ["a", "b"]), "name IN {\"a\", \"b\"}")
        XCTAssertEqual(canonical("name IN[c] %@", ["a"]), "name IN[c] {\"a\"}")
        XCTAssertEqual(canonical("'x' IN tags"), "\"x\" IN tags")
    }

    func testTrueAndFalsePredicates() {
        XCTAssertEqual(canonical("TRUEPREDICATE"), "TRUEPREDICATE")
        XCTAssertEqual(canonical("FALSEPREDICATE"), "FALSEPREDICATE")
        XCTAssertEqual(canonical("NOT TRUEPREDICATE"), "NOT TRUEPREDICATE")
    }

    // MARK: - Precedence

    func testNotBindsTighterThanAndWhichBindsTighterThanOr() {
        XCTAssertEqual(canonical("a == 1 OR b == 2 AND c == 3"), "(a == 1 OR (b == 2 AND c == 3))")
        XCTAssertEqual(canonical("a == 1 AND b == 2 OR c == 3"), "((a == 1 AND b == 2) OR c == 3)")
        XCTAssertEqual(canonical("NOT a == 1 AND b == 2"), "(NOT a == 1 AND b == 2)")
        XCTAssertEqual(canonical("NOT a == 1 OR b == 2"), "(NOT a == 1 OR b == 2)")
        XCTAssertEqual(canonical("!a == 1 && b == 2 || c == 3"), "((NOT a == 1 AND b == 2) OR c == 3)")
        XCTAssertEqual(canonical("NOT NOT a == 1"), "NOT NOT a == 1")
    }

    func testAndAndOrAssociateToTheLeft() {
        XCTAssertEqual(canonical("a == 1 AND b == 2 AND c == 3"), "((a == 1 AND b == 2) AND c == 3)")
        XCTAssertEqual(canonical("a == 1 || b == 2 || c == 3"), "((a == 1 OR b == 2) OR c == 3)")
    }

    func testParenthesesOverridePrecedence() {
        XCTAssertEqual(canonical("(a == 1 OR b == 2) AND c == 3"), "((a == 1 OR b == 2) AND c == 3)")
        XCTAssertEqual(canonical("NOT (a == 1 AND b == 2)"), "NOT (a == 1 AND b == 2)")
        XCTAssertEqual(canonical("((((a == 1))))"), "a == 1")
    }

    func testLongConjunctionsParseWithoutDeepRecursion() {
        let format = (0 ..< 5_000).map { "a == \($0)" }.joined(separator: " AND ")
        XCTAssertNoThrow(try PredicateParser.parse(format))
    }

    // MARK: - Literals

    func testNullAndBooleanLiterals() {
        XCTAssertEqual(canonical("a == nil"), "a == NULL")
        XCTAssertEqual(canonical("a == NULL"), "a == NULL")
        XCTAssertEqual(canonical("a != Nil"), "a != NULL")
        XCTAssertEqual(canonical("a == true AND b == FALSE"), "(a == TRUE AND b == FALSE)")
        XCTAssertEqual(canonical("a == YES AND b == NO"), "(a == TRUE AND b == FALSE)")
    }

    func testNumberLiterals() {
        XCTAssertEqual(canonical("a == 42"), "a == 42")
        XCTAssertEqual(canonical("a == -7"), "a == -7")
        XCTAssertEqual(canonical("a == 3.25"), "a == 3.25")
        XCTAssertEqual(canonical("a == -0.5"), "a == -0.5")
        XCTAssertEqual(canonical("a == .5"), "a == 0.5")
        XCTAssertEqual(canonical("a == 1e3"), "a == 1000.0")
        XCTAssertEqual(canonical("a == 2.5E-1"), "a == 0.25")
        XCTAssertEqual(canonical("a == 0x1F"), "a == 31")
        XCTAssertEqual(canonical("a == -0x10"), "a == -16")
        XCTAssertEqual(canonical("a == 9223372036854775807"), "a == 9223372036854775807")
        XCTAssertEqual(canonical("a == -9223372036854775808"), "a == -9223372036854775808")
    }

    func testStringLiteralsInEitherQuoteWithEscapes() {
        XCTAssertEqual(canonical("a == 'single'"), "a == \"single\"")
        XCTAssertEqual(canonical("a == \"double\""), "a == \"double\"")
        XCTAssertEqual(canonical("a == 'it\\'s'"), "a == \"it's\"")
        XCTAssertEqual(canonical("a == \"say \\\"hi\\\"\""), "a == \"say \\\"hi\\\"\"")
        XCTAssertEqual(canonical("a == 'back\\\\slash'"), "a == \"back\\\\slash\"")
        XCTAssertEqual(canonical("a == 'tab\\there'"), "a == \"tab\\there\"")
        XCTAssertEqual(canonical("a == 'line\\nbreak'"), "a == \"line\\nbreak\"")
        XCTAssertEqual(canonical("a == '\\u00e9\\u{1F600}'"), "a == \"é😀\"")
        XCTAssertEqual(canonical("a == 'AND OR \"'"), "a == \"AND OR \\\"\"")
        XCTAssertEqual(canonical("a == ''"), "a == \"\"")
    }

    func testTimestampLiteralsInBothRealmForms() {
        XCTAssertEqual(canonical("d == T1700000000:5"), "d == T1700000000:5")
        XCTAssertEqual(canonical("d == T-5:-100"), "d == T-5:-100")
        XCTAssertEqual(canonical("d == 2024-01-01@10:00:00"), "d == T1704103200:0")
        XCTAssertEqual(canonical("d == T2024-01-01@10:00:00"), "d == T1704103200:0")
        XCTAssertEqual(canonical("d == 2024-01-01T10:00:00"), "d == T1704103200:0")
        XCTAssertEqual(canonical("d == 2024-02-29@23:59:59:250"), "d == T1709251199:250")
        XCTAssertEqual(canonical("d == 1970-01-01@00:00:00"), "d == T0:0")
        XCTAssertEqual(canonical("d == 1969-12-31@23:59:59:5"), "d == T0:-999999995")
        XCTAssertEqual(canonical("d BETWEEN {2024-01-01@00:00:00, T1800000000:0}"),
                       "d BETWEEN {T1704067200:0, T1800000000:0}")
    }

    func testObjectIdUUIDAndBase64Literals() throws {
        XCTAssertEqual(canonical("_id == oid(507f1f77bcf86cd799439011)"), "_id == oid(507f1f77bcf86cd799439011)")
        XCTAssertEqual(canonical("_id == OID(507F1F77BCF86CD799439011)"), "_id == oid(507f1f77bcf86cd799439011)")
        XCTAssertEqual(
            canonical("u == uuid(3B241101-E2BB-4255-8CAF-4136C566A962)"),
            "u == uuid(3b241101-e2bb-4255-8caf-4136c566a962)")
        XCTAssertEqual(canonical("blob == B64\"aGVsbG8=\""), "blob == B64\"aGVsbG8=\"")
        XCTAssertEqual(canonical("price == decimal128( -1.50E+3 )"), "price == decimal128(-1.50E+3)")
        XCTAssertThrowsError(try PredicateParser.parse("price == decimal128(1;2)")) { error in
            XCTAssertTrue("\(error)".contains("expected a decimal number in decimal128(…)"), "\(error)")
        }
        let predicate = try PredicateParser.parse("blob == B64'aGVsbG8='")
        guard case .comparison(let comparison) = predicate.kind else { return XCTFail("\(predicate)") }
        XCTAssertEqual(comparison.rhs.kind, .constant(.data(Array("hello".utf8)), argumentIndex: nil))
    }

    func testCanonicalTextParsesBackToItself() throws {
        let formats = [
            "ANY toys.price BETWEEN {1, 2.5} AND NOT (name LIKE[c] 'a*' OR d > 2024-01-01@00:00:00)",
            "SUBQUERY(toys, $t, $t.price > 5 AND $t.name CONTAINS[cd] 'x').@count > 1",
            "map['k'] == oid(507f1f77bcf86cd799439011) || u IN {uuid(3B241101-E2BB-4255-8CAF-4136C566A962), nil}",
            "NONE tags.@allKeys ENDSWITH 'z' && blob != B64\"AAE=\"",
            "price >= decimal128(0.1) AND value.@type IN {'int', 'numeric'}",
        ]
        for format in formats {
            let text = try PredicateParser.parse(format).description
            XCTAssertEqual(try PredicateParser.parse(text).description, text, format)
        }
    }

    // MARK: - Key paths

    func testKeyPathsThroughToOneAndToManyLinks() {
        XCTAssertEqual(canonical("owner.name == 'x'"), "owner.name == \"x\"")
        XCTAssertEqual(canonical("owner.address.city == 'x'"), "owner.address.city == \"x\"")
        XCTAssertEqual(canonical("toys.brand == 'x'"), "toys.brand == \"x\"")
        XCTAssertEqual(canonical("_private_1 == 1"), "_private_1 == 1")
        XCTAssertEqual(canonical("größe == 1"), "größe == 1")
    }

    func testAggregateQuantifiers() {
        XCTAssertEqual(canonical("ANY toys.brand == 'x'"), "ANY toys.brand == \"x\"")
        XCTAssertEqual(canonical("SOME toys.brand == 'x'"), "ANY toys.brand == \"x\"")
        XCTAssertEqual(canonical("ALL toys.price > 1"), "ALL toys.price > 1")
        XCTAssertEqual(canonical("NONE toys.price > 1"), "NONE toys.price > 1")
        XCTAssertEqual(canonical("NOT ANY toys.price > 1"), "NOT ANY toys.price > 1")
    }

    func testCollectionOperators() {
        XCTAssertEqual(canonical("toys.@count > 1"), "toys.@count > 1")
        XCTAssertEqual(canonical("toys.@size > 1"), "toys.@count > 1")
        XCTAssertEqual(canonical("toys.@sum.price > 1"), "toys.@sum.price > 1")
        XCTAssertEqual(canonical("scores.@min < 1"), "scores.@min < 1")
        XCTAssertEqual(canonical("scores.@max < 1"), "scores.@max < 1")
        XCTAssertEqual(canonical("scores.@avg >= 1.5"), "scores.@avg >= 1.5")
        XCTAssertEqual(canonical("scores.@SUM == 0"), "scores.@sum == 0")
        XCTAssertEqual(canonical("ANY prices.@allKeys == 'eur'"), "ANY prices.@allKeys == \"eur\"")
        XCTAssertEqual(canonical("ANY prices.@allValues > 2"), "ANY prices.@allValues > 2")
        XCTAssertEqual(canonical("@count > 0"), "@count > 0")
        XCTAssertEqual(canonical("value.@TYPE == 'string'"), "value.@type == \"string\"")
    }

    func testMapSubscripts() {
        XCTAssertEqual(canonical("prices['eur'] > 2"), "prices[\"eur\"] > 2")
        XCTAssertEqual(canonical("prices[\"eur\"] > 2"), "prices[\"eur\"] > 2")
        XCTAssertEqual(canonical("prices[%@] > %@", "usd", 3), "prices[\"usd\"] > 3")
        XCTAssertEqual(canonical("owner.prices['a'].@count == 1"), "owner.prices[\"a\"].@count == 1")
    }

    func testSubquery() {
        XCTAssertEqual(
            canonical("SUBQUERY(toys, $t, $t.price > 5).@count > 1"),
            "SUBQUERY(toys, $t, $t.price > 5).@count > 1")
        XCTAssertEqual(
            canonical("subquery(owner.toys, $toy, $toy.name BEGINSWITH 'a' AND $toy.price < %@).@count == 0", 9),
            "SUBQUERY(owner.toys, $toy, ($toy.name BEGINSWITH \"a\" AND $toy.price < 9)).@count == 0")
        XCTAssertEqual(
            canonical("SUBQUERY(a, $x, SUBQUERY($x.b, $y, $y.c == 1).@count > 0).@count > 0"),
            "SUBQUERY(a, $x, SUBQUERY($x.b, $y, $y.c == 1).@count > 0).@count > 0")
    }

    // MARK: - Substitution

    func testValueArgumentsOfEverySupportedSwiftType() {
        let date = Date(timeIntervalSince1970: 1_700_000_000.5)
        let uuid = UUID(uuidString: "3B241101-E2BB-4255-8CAF-4136C566A962")!
        XCTAssertEqual(canonical("a == %@", 3), "a == 3")
        XCTAssertEqual(canonical("a == %@", Int8(-3)), "a == -3")
        XCTAssertEqual(canonical("a == %@", UInt32(7)), "a == 7")
        XCTAssertEqual(canonical("a == %@", Int64.max), "a == 9223372036854775807")
        XCTAssertEqual(canonical("a == %@", 2.5), "a == 2.5")
        XCTAssertEqual(canonical("a == %@", Float(1.5)), "a == 1.5")
        XCTAssertEqual(canonical("a == %@", true), "a == TRUE")
        XCTAssertEqual(canonical("a == %@", "it's \"q\""), "a == \"it's \\\"q\\\"\"")
        XCTAssertEqual(canonical("a == %@", date), "a == T1700000000:500000000")
        XCTAssertEqual(canonical("a == %@", uuid), "a == uuid(3b241101-e2bb-4255-8caf-4136c566a962)")
        XCTAssertEqual(canonical("a == %@", Data([0, 1])), "a == B64\"AAE=\"")
        XCTAssertEqual(canonical("a == %@", Int?.none as Any), "a == NULL")
        XCTAssertEqual(canonical("a == %@", Int?.some(4) as Any), "a == 4")
        XCTAssertEqual(canonical("a IN %@", Set([5])), "a IN {5}")
        XCTAssertEqual(canonical("a IN %@", [String?.none, "x"]), "a IN {NULL, \"x\"}")
    }

    func testArgumentsAreTakenInOrderAndRecordTheirIndex() throws {
        XCTAssertEqual(
            canonical("age > %@ AND name BEGINSWITH[c] %@", 3, "r"), "(age > 3 AND name BEGINSWITH[c] \"r\")")
        let predicate = try PredicateParser.parse("%K > %@", arguments: ["age", 3])
        let expected = QueryPredicate(
            .comparison(QueryComparison(
                lhs: QueryExpression(
                    .keyPath(QueryKeyPath(steps: [.property("age")], range: SourceRange(start: 0, end: 2))),
                    range: SourceRange(start: 0, end: 2)),
                op: .greaterThan,
                rhs: QueryExpression(.constant(.int(3), argumentIndex: 1), range: SourceRange(start: 5, end: 7)))),
            range: SourceRange(start: 0, end: 7))
        XCTAssertEqual(predicate, expected)
    }

    func testKeyPathArgumentsSubstituteWholePathsAndSteps() {
        XCTAssertEqual(canonical("%K == %@", "owner.name", "x"), "owner.name == \"x\"")
        XCTAssertEqual(canonical("%K.@count > 1", "toys"), "toys.@count > 1")
        XCTAssertEqual(canonical("owner.%K == 1", "age"), "owner.age == 1")
        XCTAssertEqual(canonical("ANY %K == 1", "toys.@sum.price"), "ANY toys.@sum.price == 1")
        XCTAssertEqual(canonical("%K == 1", "and"), "and == 1")
    }

    /// RealmSwift's queries go through NSPredicate, whose format grammar takes C's printf conversions besides `%@`
    /// (`filter("intCol > %d", 5)`), each taking the next argument with its C meaning.
    func testPrintfConversionsTakeTheNextArgumentWithTheirCMeaning() throws {
        for conversion in ["d", "i", "hhd", "hd", "ld", "lld", "qd", "jd", "zd", "td", "hhi", "li", "lli"] {
            XCTAssertEqual(canonical("a == %\(conversion)", -5), "a == -5", conversion)
            XCTAssertEqual(canonical("a == %\(conversion)", Int8(7)), "a == 7", conversion)
        }
        for conversion in ["u", "lu", "llu", "hu", "hhu", "qu", "zu", "o", "lo", "x", "X", "lx", "llX"] {
            XCTAssertEqual(canonical("a == %\(conversion)", UInt32(9)), "a == 9", conversion)
        }
        XCTAssertEqual(canonical("a == %d AND b == %u", true, false), "(a == 1 AND b == 0)")
        for conversion in ["f", "F", "e", "E", "g", "G", "a", "A", "lf", "Lf", "le", "lg", "La"] {
            XCTAssertEqual(canonical("a < %\(conversion)", 2.5), "a < 2.5", conversion)
        }
        // A Float is widened to Double as C promotes it; an integer is taken when a Double holds it exactly.
        XCTAssertEqual(canonical("a < %f", Float(0.1)), "a < \(Double(Float(0.1)))")
        XCTAssertEqual(canonical("a < %f", 3), "a < 3.0")
        XCTAssertTrue(errorMessage("a < %f", Int64.max - 1).contains("for %f at argument index 0"))
        for conversion in ["s", "S", "ls"] {
            XCTAssertEqual(canonical("a == %\(conversion)", "x y"), "a == \"x y\"", conversion)
        }
        XCTAssertEqual(canonical("a == %s", Substring("sub")), "a == \"sub\"")
        let cString = strdup("from C")!
        defer { free(cString) }
        XCTAssertEqual(canonical("a == %s", UnsafePointer(cString)), "a == \"from C\"")
        for conversion in ["c", "C", "lc"] {
            XCTAssertEqual(canonical("a == %\(conversion)", Character("é")), "a == \"é\"", conversion)
            XCTAssertEqual(canonical("a == %\(conversion)", "q"), "a == \"q\"", conversion)
            XCTAssertEqual(canonical("a == %\(conversion)", 65), "a == \"A\"", conversion)
            XCTAssertEqual(canonical("a == %\(conversion)", Unicode.Scalar(0x1F600)!), "a == \"😀\"", conversion)
        }
        // Every conversion takes the next argument, in order, mixed with %@ and %K.
        XCTAssertEqual(
            canonical("%K > %d AND b == %@ AND c == %s AND %K < %lf", "a", 3, true, "x", "d", 1.25),
            "(((a > 3 AND b == TRUE) AND c == \"x\") AND d < 1.25)")
        let predicate = try PredicateParser.parse("a > %@ OR a < %lld", arguments: [1, 2])
        guard case .or(_, let right) = predicate.kind, case .comparison(let comparison) = right.kind else {
            return XCTFail("\(predicate)")
        }
        XCTAssertEqual(comparison.rhs, QueryExpression(.constant(.int(2), argumentIndex: 1), range: SourceRange(start: 14, end: 18)))
        // In lists' places (IN, BETWEEN) and as a map key.
        XCTAssertEqual(canonical("m[%s] == %d", "k", 1), "m[\"k\"] == 1")
    }

    func testPrintfConversionsRefuseArgumentsTheyDoNotTake() {
        XCTAssertTrue(errorMessage("a == %d", 2.5).contains("expected an integer (or Bool) for %d at argument index 0"))
        XCTAssertTrue(errorMessage("a == %u", -1).contains("a non-negative integer for %u"))
        XCTAssertTrue(errorMessage("a == %x", Int8(-1)).contains("a non-negative integer for %x"))
        XCTAssertTrue(errorMessage("a == %f", "1.5").contains("a Double, Float or integer for %f"))
        XCTAssertTrue(errorMessage("a == %s", Data()).contains("a String for %s"))
        XCTAssertTrue(errorMessage("a == %c", "").contains("one-character String"))
        XCTAssertTrue(errorMessage("a == %c", 0x11_0000).contains("character code for %c"))
        XCTAssertTrue(errorMessage("a == %d", [1, 2]).contains("for %d at argument index 0"))
        XCTAssertTrue(errorMessage("a == %d", NSNull()).contains("found nil"))
        XCTAssertTrue(errorMessage("a == %p", 1).contains("found '%' followed by 'p'"))
        XCTAssertTrue(errorMessage("a == %lll", 1).contains("found '%ll'"))
    }

    func testExtraArgumentsAreIgnoredAsNSPredicateIgnoresThem() {
        XCTAssertEqual(canonical("a == %@", 1, 2), "a == 1")
    }

    // MARK: - Ranges and errors

    func testNodesKeepTheirSourceRanges() throws {
        let predicate = try PredicateParser.parse("(a == 1) OR NOT owner.name BEGINSWITH 'x'")
        XCTAssertEqual(predicate.range, SourceRange(start: 0, end: 41))
        guard case .or(let left, let right) = predicate.kind else { return XCTFail("\(predicate)") }
        XCTAssertEqual(left.range, SourceRange(start: 0, end: 8))
        XCTAssertEqual(right.range, SourceRange(start: 12, end: 41))
        guard case .not(let comparison) = right.kind, case .comparison(let leaf) = comparison.kind else {
            return XCTFail("\(right)")
        }
        XCTAssertEqual(leaf.lhs.range, SourceRange(start: 16, end: 26))
        XCTAssertEqual(leaf.rhs.range, SourceRange(start: 38, end: 41))
    }

    func testErrorMessageGivesOffsetExpectationFindingAndCaret() {
        XCTAssertEqual(
            errorMessage("age > 3 AND )"),
            "malformed query at offset 12: expected a predicate, found ')'\n  age > 3 AND )\n              ^")
        XCTAssertEqual(
            errorMessage("age >"),
            "malformed query at offset 5: expected a value or key path after >, found end of query\n  age >\n       ^")
    }

    func testMissingArgumentNamesThePlaceholderIndex() {
        let message = errorMessage("a == %@ AND b == %@", 1)
        XCTAssertTrue(message.contains("at offset 17"), message)
        XCTAssertTrue(message.contains("placeholder '%@' at argument index 1"), message)
        XCTAssertTrue(message.contains("only 1 argument was given"), message)
        XCTAssertTrue(errorMessage("%K == 1").contains("'%K' at argument index 0, but only 0 arguments were given"))
    }

    func testUnusableArgumentsAreNamedByIndexAndType() {
        struct Opaque {}
        XCTAssertTrue(errorMessage("a == %@", Opaque()).contains("at argument index 0, found a value of type Opaque"))
        XCTAssertTrue(errorMessage("%K == 1", 5).contains("String key path for %K at argument index 0"))
        XCTAssertTrue(errorMessage("%K == 1", "a..b").contains("found \"a..b\""))
        XCTAssertTrue(errorMessage("m[%@] == 1", 2.5)
            .contains("a String key or a non-negative Int position at argument index 0 for a subscript"))
        XCTAssertTrue(errorMessage("m[%K] == 1", "x").contains("expected \"#any\" for %K in a subscript"))
        XCTAssertTrue(errorMessage("a == %@", UInt64.max).contains("argument index 0"))
    }
}
