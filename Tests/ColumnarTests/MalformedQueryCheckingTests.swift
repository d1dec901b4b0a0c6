// MalformedQueryCheckingTests: malformed and ill-typed queries given to `filter(checking:)` on a real model throw a
// ColumnarError whose message names an offset inside the query and puts a caret under it — and nothing crashes.
//
// QueryVMTests/MalformedQueryTests checks the parser alone (PredicateParser.parse) on damaged strings. Here the
// queries go through the object layer against QSPerson and QSDog (QueryModels.swift), so type errors count too:
// unknown properties, type mismatches, operators and modifiers that do not apply, quantifiers and collection
// operators in the wrong place, SUBQUERY and map subscripts on the wrong properties. Each type error is generated
// as a fragment embedded in a valid query, and its offset must fall inside the fragment. Syntax errors come from
// damaging valid queries (truncation, token deletion, duplication, swap and insertion, unbalanced parentheses,
// bad modifiers); for those, `filter(checking:)` must report exactly what `PredicateParser.parse` reports.
// Damaged strings that are still valid queries are run, to show they do not crash either.

import ColumnarTestSupport
import Foundation
import Columnar
import QueryVM
import XCTest

final class MalformedQueryCheckingTests: RealmTestCase {
    /// Valid queries on QSPerson, tokens separated by single spaces (the units damage moves around).
    private static let validQueries = [
        "age > 3 AND name BEGINSWITH[c] 'a'",
        "nickname == nil OR height < 1.5",
        "NOT ( age BETWEEN { 1 , 10 } ) && weight >= 2",
        "ANY dogs.age > 2 AND dogs.@count >= 1",
        "ALL dogs.name LIKE[cd] 'r*' || NONE dogSet.age == nil",
        "scores.@sum == 0 AND scores.@avg == nil",
        "prices['eur'] > 1 OR ANY prices.@allKeys == 'usd'",
        "SUBQUERY( dogs , $d , $d.age > 1 AND $d.name != 'x' ).@count > 0",
        "born > T0:0 AND born < 2030-01-01@00:00:00",
        "salary == 3 OR salary < -2.5",
        "tags CONTAINS 'x' OR 'red' IN tags",
        "name IN { 'a' , 'b' } AND age IN { 1 , 2 }",
        "TRUEPREDICATE AND NOT FALSEPREDICATE",
        "dogs.owner.name ==[d] 'resume' OR ANY dogs.walkers.age > 5",
    ]

    /// Valid queries wrapped around a fragment: the fragment's offset is the prefix's length in Characters.
    private static let frames: [(prefix: String, suffix: String)] = [
        ("", ""),
        ("age > 3 AND ", ""),
        ("(name == 'x' OR ", ")"),
        ("NOT (", ")"),
        ("", " OR height < 2"),
        ("nickname == nil || (", " && age == 1)"),
        ("name == 'ÄRGER ❤️ e\u{301}' AND ", ""),
        ("SUBQUERY(dogs, $q, $q.age > 1).@count > 0 OR ", ""),
        ("ANY dogs.name ==[cd] 'Ře' && (", ")"),
    ]

    // MARK: Type errors

    /// A fragment that is well formed but does not type-check against QSPerson.
    private static func typeErrorFragment(using generator: inout SeededGenerator) -> String {
        func pick(_ choices: [String]) -> String { choices.randomElement(using: &generator)! }
        let unknown = pick(["nmae", "Name", "agee", "dog", "dogs.nmae", "dogs.owner.nmae", "dogs.walkers.x", "_id", "é"])
        let stringProperty = pick(["name", "nickname", "dogs.name", "dogs.owner.name", "tags"])
        let numberProperty = pick(["age", "height", "weight", "dogs.age", "scores", "prices['eur']", "salary"])
        let nonString = pick(["age", "height", "weight", "born", "salary", "dogs.age", "scores"])
        let notMap = pick(["dogs", "dogSet", "scores", "tags", "name"])
        let single = pick(["age", "name", "nickname", "height", "born"])
        switch Int.random(in: 0 ..< 16, using: &generator) {
        case 0: return "\(unknown) \(pick(["==", ">", "BEGINSWITH"])) \(pick(["1", "'x'", "nil"]))"
        case 1: return "\(stringProperty) \(pick(["==", "<", ">="])) \(pick(["5", "3.5", "-0x1F", "TRUE", "T0:0", "oid(507f1f77bcf86cd799439011)"]))"
        case 2: return "\(numberProperty) \(pick(["==", "!=", "<"])) \(pick(["'x'", "TRUE", "B64\"AA==\"", "uuid(3B241101-E2BB-4255-8CAF-4136C566A962)", "T5:0"]))"
        case 3: return "\(nonString) \(pick(["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"])) \(pick(["'a'", "1", "%@"]))"
        case 4: return "\(nonString) \(pick(["==", "<", "!="]))\(pick(["[c]", "[d]", "[cd]"])) \(pick(["1", "'1'", "nil"]))"
        case 5: return "\(pick(["ANY", "ALL", "NONE", "SOME"])) \(single) \(pick(["==", ">"])) \(pick(["1", "'a'"]))"
        case 6: return "\(single).\(pick(["@count", "@sum", "@min", "@avg", "@max"])) > 1"
        case 7: return "\(pick(["dogs.@sum.name", "dogs.@avg.owner", "tags.@sum", "tags.@avg", "dogs.@min.name", "born.@count"])) > 1"
        case 8:
            return pick(["SUBQUERY(name, $x, $x == 'a').@count > 0", "SUBQUERY(scores, $x, $x > 1).@count > 0",
                         "SUBQUERY(dogs, $d, $x.age > 1).@count > 0", "SUBQUERY(dogs, $d, $d.nmae > 1).@count > 0",
                         "SUBQUERY(dogs, $d, $d.age > 'x').@count > 0", "SUBQUERY(dogs, $d, $d.age > 1) > 0",
                         "SUBQUERY(dogs, $d, $d.walkers > 1).@count > 0"])
        case 9: return pick(["1 == 1", "'a' == 'b'", "nil == nil", "3 < 4", "%@ == %@"])
        case 10: return "\(pick(["name", "dogs", "age", "scores"]))['a'] == \(pick(["'x'", "1", "nil"]))"
        case 11: return "\(pick(["dogs", "dogs.owner", "dogSet"])) \(pick(["==", "<", ">"])) \(pick(["3", "'x'", "1.5"]))"
        case 12: return "\(pick(["age", "height", "born"])) BETWEEN {\(pick(["age", "'a'", "TRUE"])), 5}"
        case 13: return "\(pick(["age", "name"])) IN \(pick(["{age, 1}", "name", "{'a', 1}", "age"]))"
        case 14: return "\(notMap).\(pick(["@allKeys", "@allValues"])) == 'a'"
        default: return "$\(pick(["d", "x"])).age > 1"
        }
    }

    func testIllTypedQueriesThrowWithAnOffsetInsideTheOffendingPart() throws {
        let realm = try kennel()
        var generator = makeSeededGenerator()
        var checked = 0
        var attempts = 0
        while checked < 350 && attempts < 2_000 {
            attempts += 1
            let fragment = Self.typeErrorFragment(using: &generator)
            let (prefix, suffix) = Self.frames.randomElement(using: &generator)!
            let query = prefix + fragment + suffix
            // `%@` fragments take arguments of a type that does not fit either.
            let arguments: [Any] = fragment.contains("%@") ? [Date(), 5] : []
            guard let message = expectFailure(query, arguments, realm: realm, seed: generator.seed) else { continue }
            checked += 1
            guard let offset = Self.offset(in: message) else { continue }
            // A parenthesized comparison's range starts at its "(", so the caret may sit on the frame's last "(".
            let openingParentheses = prefix.reversed().prefix { $0 == "(" }.count
            let fragmentRange = prefix.count - openingParentheses ... prefix.count + fragment.count
            XCTAssertTrue(fragmentRange.contains(offset),
                          "offset \(offset) is outside the ill-typed part \(fragmentRange) of \(query.debugDescription): "
                          + "\(message) (seed \(generator.seed))")
        }
        XCTAssertGreaterThanOrEqual(checked, 300, "seed \(generator.seed)")
    }

    // MARK: Syntax errors

    func testDamagedQueriesFailLikeTheParserSaysOrRunWithoutCrashing() throws {
        let realm = try kennel()
        var generator = makeSeededGenerator()
        for query in Self.validQueries {
            XCTAssertNoThrow(try realm.objects(QSPerson.self).filter(checking: query).count, query)
        }
        var syntaxErrors = 0, typeErrors = 0, stillValid = 0
        var attempts = 0
        while syntaxErrors < 300 && attempts < 5_000 {
            attempts += 1
            let query = Self.damage(Self.validQueries.randomElement(using: &generator)!, using: &generator)
            var parserMessage: String?
            do { _ = try PredicateParser.parse(query, arguments: []) } catch let error as ColumnarError {
                parserMessage = error.message
            }
            do {
                // A query that checks must also run: count evaluates it over every object.
                _ = try realm.objects(QSPerson.self).filter(checking: query).count
                stillValid += 1
                XCTAssertNil(parserMessage, "\(query.debugDescription) parsed as invalid but was accepted")
            } catch let error as ColumnarError {
                XCTAssertEqual(error.code, .misuse)
                if let parserMessage {
                    syntaxErrors += 1
                    XCTAssertEqual(error.message, parserMessage, "filter(checking:) and the parser disagree")
                } else {
                    typeErrors += 1
                }
                check(error.message, query: query, seed: generator.seed)
            } catch {
                XCTFail("\(query.debugDescription) threw a non-ColumnarError \(error)")
            }
        }
        print("MalformedQueryCheckingTests: \(syntaxErrors) syntax errors, \(typeErrors) type errors, \(stillValid) "
              + "damaged queries still valid (and run), in \(attempts) attempts")
        XCTAssertGreaterThanOrEqual(syntaxErrors, 300, "seed \(generator.seed)")
    }

    func testHandWrittenMistakesPointAtTheRightPlace() throws {
        let realm = try kennel()
        let cases: [(query: String, offset: Int, mentions: String)] = [
            ("nmae == 'x'", 0, "property 'nmae' not found in class QSPerson"),
            ("age > 3 AND name > 5", 19, "'name' is string, but the value 5 is not"),
            ("age BEGINSWITH 'a'", 15, "'age' is int, but the value \"a\" is not"),
            ("age BEGINSWITH age", 0, "BEGINSWITH applies to strings"),
            ("age ==[c] 3", 0, "[c]"),
            ("ANY age > 3", 0, "ANY needs a key path through a list"),
            ("dogs.nmae == 'x'", 0, "property 'nmae' not found in class QSDog"),
            ("SUBQUERY(dogs, $d, $x.age > 1).@count > 0", 19, "$x"),
            ("1 == 1", 0, "two constants"),
            ("name['a'] == 'x'", 0, "map"),
            ("(age > 1) OR (é == 1)", 14, "property 'é' not found"),
            ("name == 'ä❤️' AND agee > 1", 17, "agee"),  // offsets count Characters: ❤️ is one
            ("name ==[x] 'a'", 8, "c, d or cd"),
            ("((age > 3)", 10, "expected ')'"),
            ("age > 3))", 7, "has no matching '('"),
            // A constant converted for IN once made a message that described itself forever (a stack overflow).
            ("3 IN[c] dogs.age", 0, "[c]"),
        ]
        for (query, offset, mentions) in cases {
            guard let message = expectFailure(query, [], realm: realm, seed: 0) else { continue }
            XCTAssertEqual(Self.offset(in: message), offset, "\(query): \(message)")
            XCTAssertTrue(message.contains(mentions), "\(query): \(message)")
        }
    }

    // MARK: Helpers

    private func kennel() throws -> Realm {
        let realm = try openRealm()
        try realm.write {
            let rex = realm.create(QSDog.self, value: ["id": 1, "name": "Rex", "age": 2])
            let ann = realm.create(QSPerson.self, value: ["id": 1, "name": "Ann", "age": 4, "height": 1.5])
            ann.dogs.append(rex)
            ann.scores.append(objectsIn: [1, nil])
            ann.tags.insert("red")
            ann.prices["eur"] = 2
            rex.owner = ann
            realm.create(QSPerson.self, value: ["id": 2, "name": "Bob"])
        }
        return realm
    }

    /// Runs a query that must fail; returns the message after checking its form, or nil (after failing the test)
    /// when the query was accepted.
    private func expectFailure(_ query: String, _ arguments: [Any], realm: Realm, seed: UInt64,
                               file: StaticString = #filePath, line: UInt = #line) -> String? {
        do {
            let results: Results<QSPerson>
            switch arguments.count {
            case 0: results = try realm.objects(QSPerson.self).filter(checking: query)
            default: results = try realm.objects(QSPerson.self).filter(checking: query, arguments[0], arguments[1])
            }
            _ = results.count
            XCTFail("\(query.debugDescription) was accepted (seed \(seed))", file: file, line: line)
            return nil
        } catch let error as ColumnarError {
            XCTAssertEqual(error.code, .misuse, file: file, line: line)
            check(error.message, query: query, seed: seed, file: file, line: line)
            return error.message
        } catch {
            XCTFail("\(query.debugDescription) threw a non-ColumnarError \(error)", file: file, line: line)
            return nil
        }
    }

    /// The offset a message names ("… at offset N: …"), or nil.
    private static func offset(in message: String) -> Int? {
        guard let range = message.range(of: "at offset ") else { return nil }
        return Int(message[range.upperBound...].prefix { $0.isNumber })
    }

    /// The message names an offset within the query (or at its end), and its last line has a caret there.
    private func check(_ message: String, query: String, seed: UInt64, file: StaticString = #filePath,
                       line: UInt = #line) {
        guard let offset = Self.offset(in: message) else {
            XCTFail("no offset in the error for \(query.debugDescription): \(message) (seed \(seed))", file: file, line: line)
            return
        }
        XCTAssertTrue((0 ... query.count).contains(offset), "\(query.debugDescription): \(message)", file: file, line: line)
        let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 3, "\(query.debugDescription): \(message)", file: file, line: line)
        if let caretLine = lines.last {
            XCTAssertTrue(caretLine.hasPrefix("  " + String(repeating: " ", count: offset) + "^"),
                          "caret not under offset \(offset): \(message)", file: file, line: line)
        }
    }

    /// `query` with one random kind of damage.
    private static func damage(_ query: String, using generator: inout SeededGenerator) -> String {
        var tokens = query.split(separator: " ").map(String.init)
        var characters = Array(query)
        switch Int.random(in: 0 ..< 8, using: &generator) {
        case 0:  // truncation
            return String(characters.prefix(Int.random(in: 0 ..< characters.count, using: &generator)))
        case 1:  // token deletion
            tokens.remove(at: Int.random(in: 0 ..< tokens.count, using: &generator))
        case 2:  // token duplication
            let index = Int.random(in: 0 ..< tokens.count, using: &generator)
            tokens.insert(tokens[index], at: index)
        case 3:  // swap of two tokens
            tokens.swapAt(Int.random(in: 0 ..< tokens.count, using: &generator),
                          Int.random(in: 0 ..< tokens.count, using: &generator))
        case 4:  // junk insertion
            let junk = ["(", ")", "{", "}", "[", "]", ",", ".", "AND", "OR", "NOT", "==", "<", "BETWEEN", "IN", "ANY",
                        "'", "\"", "@", "@count", "$d", "SUBQUERY", "oid(", "B64\"", "T1:", "#", "&", "|", "=", "nil",
                        "3", "'x'", "\\", "%", "@bogus", "[c", "é", "❤️"]
            tokens.insert(junk.randomElement(using: &generator)!,
                          at: Int.random(in: 0 ... tokens.count, using: &generator))
        case 5:  // unbalanced parentheses
            let paren: Character = Bool.random(using: &generator) ? "(" : ")"
            characters.insert(paren, at: Int.random(in: 0 ... characters.count, using: &generator))
            return String(characters)
        case 6:  // a bad modifier
            let modifier = ["[x]", "[cc]", "[]", "[c d]", "[dcx]", "[", "[c", "[ c ]", "[C]"].randomElement(using: &generator)!
            if let range = query.range(of: "[c]") ?? query.range(of: "[cd]") ?? query.range(of: "[d]") {
                return query.replacingCharacters(in: range, with: modifier)
            }
            let operatorIndex = tokens.firstIndex { ["==", ">", "<", "!=", ">=", "LIKE", "CONTAINS"].contains($0) } ?? 0
            tokens[operatorIndex] += modifier
        default:  // character deletion
            characters.remove(at: Int.random(in: 0 ..< characters.count, using: &generator))
            return String(characters)
        }
        return tokens.joined(separator: " ")
    }
}
