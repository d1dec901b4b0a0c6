// PreparedSeekTests: a repeated `filter("indexedProperty == %@", v)` answered by a prepared seek (PreparedSeek.swift)
// gives what the full path (parse, check, compile) gives for the same call: the same objects, count, first object,
// `explain`, description and errors, for arguments of every kind a placeholder takes, including the ones the seek
// must hand back to the full path. Also: seeks follow writes, further filters and sorts, and are dropped when the
// bound classes change.

@testable import Columnar
import ColumnarTestSupport
import Foundation
@testable import QueryVM
import XCTest

final class SeekItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var int = 0
    @Persisted(indexed: true) var bool = false
    @Persisted(indexed: true) var string = ""
    @Persisted(indexed: true) var optString: String?
    @Persisted(indexed: true) var optInt: Int?
    @Persisted(indexed: true) var date = Date(timeIntervalSince1970: 0)
    @Persisted(indexed: true) var objectId = ObjectId("000000000000000000000000")
    @Persisted(indexed: true) var uuid = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    /// Not indexed: equality on it is a scan, never a seek.
    @Persisted var plain = ""
}

final class PreparedSeekTests: RealmTestCase {
    private static let strings = ["rex", "", "Rex", "abc", "abcdefgh", "abcdefgh-longer-than-the-index-key", "é"]
    private static let objectIds = [ObjectId("64b7f0a0c0ffee0000000001"), ObjectId("64b7f0a0c0ffee0000000002")]
    private static let uuids = [UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!,
                                UUID(uuidString: "6BA7B811-9DAD-11D1-80B4-00C04FD430C8")!]
    private static let dates = [Date(timeIntervalSince1970: 12), Date(timeIntervalSince1970: 12.5)]

    /// Formats a seek may answer (equalities on indexed properties, the argument on either side, printf
    /// conversions) and formats it must leave alone (no index, options, other operators, two arguments, `%K`).
    private static let formats = [
        "int == %@", "%@ == int", "int == %d", "int == %lld", "bool == %@", "string == %@", "%@ == string",
        "string == %s", "optString == %@", "optInt == %@", "date == %@", "objectId == %@", "uuid == %@",
        "plain == %@", "string ==[c] %@", "int != %@", "int > %@", "int == %@ AND bool == %@", "%K == %@",
        "string == %@ OR string == %@", "int IN %@",
    ]

    private static var argumentPool: [Any] {
        [
        0, 1, 2, 7, -3, Int64(2), Int8(1), Int32(7), 2.0, 2.5, Float(1), true, false, "rex", "", "Rex", "abc",
        "abcdefgh", "abcdefgh-longer-than-the-index-key", "é", "2", "not a uuid", "6BA7B810-9DAD-11D1-80B4-00C04FD430C8",
        "64b7f0a0c0ffee0000000001", objectIds[0], objectIds[1], uuids[0], uuids[1], dates[0], dates[1], NSNull(),
        Optional<String>.none as Any, Optional("rex") as Any, Optional(7) as Any, [1, 2], "int", Data([1])]
    }

    private func fill(_ realm: Realm, count: Int = 60) throws {
        try realm.write {
            for id in 0..<count {
                realm.add(SeekItem(value: [
                    "id": id, "int": id % 9 - 3, "bool": id % 2 == 0, "string": Self.strings[id % Self.strings.count],
                    "optString": id % 4 == 0 ? NSNull() : Self.strings[id % 5], "optInt": id % 3 == 0 ? NSNull() : id % 5,
                    "date": Self.dates[id % 2], "objectId": Self.objectIds[id % 2], "uuid": Self.uuids[id % 2],
                    "plain": Self.strings[id % 3],
                ]))
            }
        }
    }

    /// Everything a user can read of filtered results, or the error the filter throws.
    private func outcome(_ make: () throws -> Results<SeekItem>) -> String {
        do {
            let results = try make()
            return "count \(results.count), first \(results.first?.id ?? -1), ids \(results.map(\.id).sorted()), "
                + "first two \(results.prefix(2).map(\.id)), "
                + "empty \(results.isEmpty), explain \(results.explain()), description \(results.description)"
        } catch {
            return "error: \(error)"
        }
    }

    /// The same call through the full path: no seek template is known, so the call parses and checks.
    private func fullPath(_ realm: Realm, _ body: () throws -> Results<SeekItem>) -> String {
        realm.core.seekPlans = SeekPlanMemo()
        return outcome(body)
    }

    func testRepeatedSeeksGiveWhatTheFullPathGivesForRandomArguments() throws {
        let realm = try openRealm()
        try fill(realm)
        let items = realm.objects(SeekItem.self)
        var generator = SeededGenerator.fromEnvironment()
        var seeks = 0
        for round in 0..<2_000 {
            let format = Self.formats[Int(generator.next() % UInt64(Self.formats.count))]
            let placeholders = format.components(separatedBy: "%").count - 1
            let pool = Self.argumentPool
            let arguments = (0..<placeholders).map { _ in pool[Int(generator.next() % UInt64(pool.count))] }
            // A first call of the format with a fitting argument leaves a template, when the format can have one.
            _ = try? items.filter(checking: format, arguments.first.map { _ in Self.sample(for: format) } ?? 0)
            var usedSeek = false
            let repeated = outcome {
                let results = try items.filter(checking: format, arguments: arguments)
                usedSeek = results.query.seek != nil
                return results
            }
            if usedSeek { seeks += 1 }
            let full = fullPath(realm) { try items.filter(checking: format, arguments: arguments) }
            XCTAssertEqual(repeated, full, "round \(round), seed \(generator.seed): \(format) with \(arguments)")
        }
        XCTAssertGreaterThan(seeks, 100, "many rounds should be answered by a prepared seek")
    }

    /// An argument each format's property takes, so that the first call can make a template.
    private static func sample(for format: String) -> Any {
        if format.contains("bool") { return true }
        if format.contains("optInt") || format.contains("int") { return 4 }
        if format.contains("date") { return dates[0] }
        if format.contains("objectId") { return objectIds[0] }
        if format.contains("uuid") { return uuids[0] }
        return "rex"
    }

    func testOnlyLoneEqualitiesOnIndexedPropertiesBecomeSeeks() throws {
        let realm = try openRealm()
        try fill(realm)
        let items = realm.objects(SeekItem.self)
        func isSeek(_ format: String, _ arguments: Any...) -> Bool {
            _ = items.filter(format, arguments: arguments)
            return items.filter(format, arguments: arguments).query.seek != nil
        }
        XCTAssertTrue(isSeek("string == %@", "rex"))
        XCTAssertTrue(isSeek("%@ == int", 3))
        XCTAssertTrue(isSeek("uuid == %@", Self.uuids[1]))
        XCTAssertTrue(isSeek("uuid == %@", Self.uuids[1].uuidString), "a string a UUID column takes")
        XCTAssertFalse(isSeek("plain == %@", "rex"), "no index")
        XCTAssertFalse(isSeek("string ==[c] %@", "rex"), "the index compares exactly")
        XCTAssertFalse(isSeek("int == %@", 2.0), "a double is not looked up in an int index")
        XCTAssertFalse(isSeek("optString == %@", NSNull()), "null")
        XCTAssertFalse(isSeek("int == 3"), "no argument")
        XCTAssertFalse(isSeek("int == %@ AND bool == %@", 3, true), "two comparisons")
        XCTAssertFalse(isSeek("%K == %@", "int", 3), "a key path argument")
        XCTAssertFalse(items.sorted(byKeyPath: "id").filter("string == %@", "rex").query.seek != nil, "sorted first")

        // A seek template made for one argument kind does not take another: a string for an int property is the
        // full path's error, every time.
        XCTAssertTrue(isSeek("int == %@", 5))
        for _ in 0..<2 {
            XCTAssertThrowsError(try items.filter(checking: "int == %@", "5")) { error in
                XCTAssertTrue("\(error)".contains("int"), "\(error)")
            }
        }
        // A string that is no UUID: the full path's positioned error, not a seek that matches nothing.
        XCTAssertTrue(isSeek("uuid == %@", Self.uuids[0].uuidString))
        XCTAssertThrowsError(try items.filter(checking: "uuid == %@", "not a uuid"))
    }

    /// A Realm of `count` items, its items, and `string == "abc"` answered by a prepared seek (a first call made
    /// the plan).
    private func abcSeek(count: Int) throws -> (Realm, Results<SeekItem>, Results<SeekItem>) {
        let realm = try openRealm()
        try fill(realm, count: count)
        let items = realm.objects(SeekItem.self)
        _ = items.filter("string == %@", "abc").count
        let abc = items.filter("string == %@", "abc")
        XCTAssertNotNil(abc.query.seek)
        return (realm, items, abc)
    }

    func testSeeksFollowWritesFurtherFiltersSortsAndNotifications() throws {
        let (realm, items, abc) = try abcSeek(count: 20)
        let before = abc.map(\.id)
        XCTAssertEqual(before.sorted(), (0..<20).filter { Self.strings[$0 % Self.strings.count] == "abc" })

        try realm.write {
            realm.add(SeekItem(value: ["id": 100, "string": "abc", "int": 40]))
            realm.delete(items.filter("id == %@", before[0]))
        }
        XCTAssertEqual(abc.map(\.id).sorted(), (before.dropFirst() + [100]).sorted(), "live results")
        XCTAssertEqual(abc.filter("int > %@", 30).map(\.id), [100])
        XCTAssertEqual(abc.sorted(byKeyPath: "id", ascending: false).map(\.id),
                       (before.dropFirst() + [100]).sorted(by: >))
        XCTAssertEqual(outcome { abc.filter("int > %@", 30) },
                       fullPath(realm) { items.filter("string == %@", "abc").filter("int > %@", 30) })
        // Equality of results compares their predicates' text: a seek's format stays first when more are added.
        let chained = abc.filter("int > %@", 30)
        realm.core.seekPlans = SeekPlanMemo()
        XCTAssertEqual(chained, items.filter("string == %@", "abc").filter("int > %@", 30))
        XCTAssertNotEqual(chained, items.filter("int > %@", 30))

        var changes: [RealmCollectionChange<Results<SeekItem>>] = []
        let token = abc.observe { changes.append($0) }
        defer { token.invalidate() }
        realm.refresh()
        try realm.write { realm.add(SeekItem(value: ["id": 101, "string": "abc"])) }
        guard changes.count == 2, case .initial = changes[0], case .update(let results, _, let insertions, _) = changes[1]
        else { return XCTFail("expected the initial results and one update, got \(changes)") }
        XCTAssertEqual(insertions.count, 1)
        XCTAssertTrue(results.map(\.id).contains(101))
    }

    func testSeeksMovedToAnotherCoreBecomeCheckedPredicates() throws {
        let (_, _, seek) = try abcSeek(count: 30)
        let expected = seek.map(\.id).sorted()
        // Another core counts its binding generations from its own start: the seek becomes the predicate it stands for.
        let frozen = seek.freeze()
        XCTAssertNil(frozen.query.seek)
        XCTAssertEqual(frozen.map(\.id).sorted(), expected)
        XCTAssertEqual(frozen.query.predicateText, ["string == %@"])
        let thawed = try XCTUnwrap(frozen.thaw())
        XCTAssertNil(thawed.query.seek)
        XCTAssertEqual(thawed.map(\.id).sorted(), expected)
    }

    func testTemplatesAreDroppedWhenTheBindingsChange() throws {
        let realm = try openRealm()
        try fill(realm, count: 10)
        let items = realm.objects(SeekItem.self)
        _ = items.filter("int == %@", 2).count
        let seek = items.filter("int == %@", 2)
        XCTAssertNotNil(seek.query.seek)
        let generation = realm.core.bindingGeneration
        // A cancelled write drops the core's class bindings.
        realm.beginWrite()
        realm.add(SeekItem(value: ["id": 50, "int": 2]))
        realm.cancelWrite()
        XCTAssertNotEqual(realm.core.bindingGeneration, generation)
        XCTAssertEqual(seek.map(\.id).sorted(), (0..<10).filter { $0 % 9 - 3 == 2 }, "read through the full path")
        XCTAssertNil(items.filter("int == %@", 2).query.seek, "the old template is not used")
        XCTAssertNotNil(items.filter("int == %@", 2).query.seek, "a new one is made")
        XCTAssertEqual(items.filter("int == %@", 2).map(\.id).sorted(), (0..<10).filter { $0 % 9 - 3 == 2 })
    }
}

extension Results {
    /// `filter(checking:_:)` with the arguments as an array, as a test draws them.
    fileprivate func filter(checking format: String, arguments: [Any]) throws -> Results<Element> {
        try filtered(format, arguments)
    }

    fileprivate func filter(_ format: String, arguments: [Any]) -> Results<Element> {
        try! filtered(format, arguments)
    }
}
