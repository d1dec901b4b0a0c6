// DynamicAccessTests: RealmSwift's dynamic API outside migrations — `dynamicObjects(_:)`,
// `dynamicObject(ofType:forPrimaryKey:)`, `dynamicCreate(_:value:update:)`, DynamicObject's subscripts, and
// `dynamicList`/`dynamicMutableSet`/`dynamicMap` — reading and writing every property kind, agreeing with the model
// class and with typed queries, surviving a commit and a reopen, and refusing misuse with RealmSwift's messages.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

/// A property of every kind: each scalar type plain and optional, links (plain and embedded), and lists, sets and
/// maps of values and of objects.
final class DynamicKinds: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var bool = false
    @Persisted var int = 0
    @Persisted var int8: Int8 = 0
    @Persisted var float: Float = 0
    @Persisted var double = 0.0
    @Persisted var string = ""
    @Persisted var data = Data()
    @Persisted var date = Date(timeIntervalSince1970: 0)
    @Persisted var decimal: Decimal128 = 0
    @Persisted var objectId = ObjectId("000000000000000000000000")
    @Persisted var uuid = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    @Persisted var optionalBool: Bool?
    @Persisted var optionalInt: Int?
    @Persisted var optionalFloat: Float?
    @Persisted var optionalDouble: Double?
    @Persisted var optionalString: String?
    @Persisted var optionalData: Data?
    @Persisted var optionalDate: Date?
    @Persisted var optionalDecimal: Decimal128?
    @Persisted var optionalObjectId: ObjectId?
    @Persisted var optionalUUID: UUID?
    @Persisted var link: DynamicTarget?
    @Persisted var embedded: DynamicNote?
    @Persisted var links: List<DynamicTarget>
    @Persisted var ints: List<Int>
    @Persisted var optionalStrings: List<String?>
    @Persisted var notes: List<DynamicNote>
    @Persisted var targetSet: MutableSet<DynamicTarget>
    @Persisted var stringSet: MutableSet<String>
    @Persisted var targetMap: Map<String, DynamicTarget?>
    @Persisted var doubleMap: Map<String, Double>
}

final class DynamicTarget: Object {
    @Persisted var name = ""
    @Persisted var value = 7
}

final class DynamicNote: EmbeddedObject {
    @Persisted var text = ""
    @Persisted var targets: List<DynamicTarget>
}

/// A property stored under another name: dynamic access uses the model's name, as RealmSwift's does.
final class DynamicMapped: Object {
    @Persisted var firstName = ""
    override class func propertiesMapping() -> [String: String] { ["firstName": "first_name"] }
}

/// Two model classes stored under one name: Columnar cannot tell which describes the file, so the dynamic API
/// reads that class as stored.
final class DynamicGhostWriter: Object {
    @Persisted var label = ""
    @Persisted var count = 0
    override class func _realmObjectName() -> String? { "DynamicGhost" }
}

final class DynamicGhostOther: Object {
    @Persisted var label = ""
    override class func _realmObjectName() -> String? { "DynamicGhost" }
}

final class DynamicAccessTests: RealmTestCase {
    private let date = Date(timeIntervalSince1970: 1_700_000_000.5)
    private let objectId = ObjectId("0123456789abcdef01234567")
    private let uuid = UUID(uuidString: "11111111-2222-3333-4444-555555555555")!

    override func setUpWithError() throws {
        try super.setUpWithError()
        // Without `objectTypes`, the dynamic API knows the model classes the process has used (as Columnar learns
        // classes by use); each test must not depend on which tests ran before it.
        _ = (DynamicKinds.className(), DynamicTarget.className(), DynamicNote.className(), DynamicMapped.className())
    }

    /// A DynamicKinds with every property set, and the targets it links to.
    private func makeKinds(_ realm: Realm) throws -> DynamicKinds {
        try realm.write {
            let rex = realm.create(DynamicTarget.self, value: ["name": "Rex", "value": 3])
            let max = realm.create(DynamicTarget.self, value: ["name": "Max", "value": 9])
            return realm.create(DynamicKinds.self, value: [
                "id": 1, "bool": true, "int": 42, "int8": 8, "float": Float(1.5), "double": 2.25, "string": "text",
                "data": Data([1, 2, 3]), "date": date, "decimal": Decimal128(12), "objectId": objectId, "uuid": uuid,
                "optionalInt": 5, "optionalString": "maybe", "optionalDate": date,
                "link": rex, "embedded": DynamicNote(value: ["text": "inside"]), "links": [rex, max, rex],
                "ints": [1, 2, 3], "optionalStrings": ["a", NSNull(), "c"],
                "notes": [DynamicNote(value: ["text": "n1"]), DynamicNote(value: ["text": "n2", "targets": [max]])],
                "targetSet": [rex, max], "stringSet": ["x", "y"], "targetMap": ["first": rex, "none": NSNull()],
                "doubleMap": ["pi": 3.14, "e": 2.72],
            ])
        }
    }

    // MARK: Reading

    func testReadingGivesEveryPropertyKindAsRealmSwiftsDynamicObjectDoes() throws {
        let realm = try openRealm()
        _ = try makeKinds(realm)
        let object = try XCTUnwrap(realm.dynamicObject(ofType: "DynamicKinds", forPrimaryKey: 1))
        XCTAssertEqual(object["id"] as? Int, 1)
        XCTAssertEqual(object["bool"] as? Bool, true)
        XCTAssertEqual(object["int"] as? Int, 42)
        XCTAssertEqual(object["int8"] as? Int, 8, "every integer column reads as Int")
        XCTAssertEqual(object["float"] as? Float, 1.5)
        XCTAssertEqual(object["double"] as? Double, 2.25)
        XCTAssertEqual(object["string"] as? String, "text")
        XCTAssertEqual(object["data"] as? Data, Data([1, 2, 3]))
        XCTAssertEqual(object["date"] as? Date, date)
        XCTAssertEqual(object["decimal"] as? Decimal128, Decimal128(12))
        XCTAssertEqual(object["objectId"] as? ObjectId, objectId)
        XCTAssertEqual(object["uuid"] as? UUID, uuid)
        XCTAssertEqual(object["optionalInt"] as? Int, 5)
        XCTAssertEqual(object["optionalString"] as? String, "maybe")
        XCTAssertEqual(object["optionalDate"] as? Date, date)
        for name in ["optionalBool", "optionalFloat", "optionalDouble", "optionalData", "optionalDecimal",
                     "optionalObjectId", "optionalUUID"] {
            XCTAssertNil(object[name], "\(name) holds nil")
        }
        // Dynamic member lookup reads the same.
        XCTAssertEqual(object.string as? String, "text")
        XCTAssertEqual(object.int as? Int, 42)

        let link = try XCTUnwrap(object["link"] as? DynamicObject)
        XCTAssertEqual(link["name"] as? String, "Rex")
        XCTAssertEqual(link.objectSchema.className, "DynamicTarget")
        XCTAssertEqual((object["embedded"] as? DynamicObject)?["text"] as? String, "inside")

        let links = try XCTUnwrap(object["links"] as? List<DynamicObject>)
        XCTAssertEqual(links.map { $0["name"] as? String }, ["Rex", "Max", "Rex"])
        XCTAssertEqual(links.objectClassName, "DynamicTarget")
        XCTAssertEqual((object["ints"] as? List<Int>).map(Array.init), [1, 2, 3])
        XCTAssertEqual((object["optionalStrings"] as? List<String?>).map(Array.init), ["a", nil, "c"])
        let notes = try XCTUnwrap(object["notes"] as? List<DynamicObject>)
        XCTAssertEqual(notes.map { $0["text"] as? String }, ["n1", "n2"])
        XCTAssertEqual((notes[1]["targets"] as? List<DynamicObject>)?.first?["name"] as? String, "Max")
        let targetSet = try XCTUnwrap(object["targetSet"] as? MutableSet<DynamicObject>)
        XCTAssertEqual(Set(targetSet.map { $0["name"] as! String }), ["Rex", "Max"])
        XCTAssertEqual((object["stringSet"] as? MutableSet<String>).map { Set($0) }, ["x", "y"])
        let targetMap = try XCTUnwrap(object["targetMap"] as? Map<String, DynamicObject?>)
        XCTAssertEqual(targetMap.keys, ["first", "none"])
        XCTAssertEqual(targetMap["first"]??["name"] as? String, "Rex")
        XCTAssertEqual(targetMap["none"], .some(nil), "the key holds nil")
        XCTAssertEqual((object["doubleMap"] as? Map<String, Double>)?["pi"], 3.14)

        XCTAssertEqual(object.objectSchema.className, "DynamicKinds")
        XCTAssertEqual(object.objectSchema.properties.count, 32)
        XCTAssertTrue(object.isSameObject(as: realm.dynamicObjects("DynamicKinds").first))
        XCTAssertEqual(object.value(forKey: "string") as? String, "text")
        XCTAssertEqual(object.value(forKeyPath: "link.name") as? String, "Rex")
        XCTAssertTrue(link.description.hasPrefix("DynamicTarget {\n\tname = Rex;\n\tvalue = 3;\n}"),
                      link.description)
    }

    // MARK: Writing

    func testWritingEveryPropertyKindIsSeenByTheModelClassAndAfterReopening() throws {
        let realm = try openRealm()
        let typed = try makeKinds(realm)
        let object = try XCTUnwrap(realm.dynamicObject(ofType: "DynamicKinds", forPrimaryKey: 1))
        let max = try XCTUnwrap(realm.dynamicObjects("DynamicTarget").filter("name == 'Max'").first)
        try realm.write {
            object.bool = false
            object.int = Int64(-7)   // any integer type that fits
            object["int8"] = 100
            object["float"] = 2   // integers are numbers for floating-point properties
            object["double"] = Float(0.5)
            object["string"] = "changed"
            object["data"] = Data([9])
            object["date"] = Date(timeIntervalSince1970: 5)
            object["decimal"] = try Decimal128(string: "1.25")
            object["objectId"] = ObjectId("abcdefabcdefabcdefabcdef")
            object["uuid"] = UUID(uuidString: "99999999-9999-9999-9999-999999999999")!
            object["optionalInt"] = nil
            object["optionalString"] = NSNull()
            object["optionalBool"] = true
            object["optionalDouble"] = Optional(1.0)
            object["link"] = max
            object["embedded"] = ["text": "replaced"]
            object["links"] = [max, ["name": "New", "value": 1]]
            object["ints"] = [Int64(4), Int64(5)]
            object["optionalStrings"] = [nil, "z"] as [String?]
            object["notes"] = [["text": "only"]]
            object["targetSet"] = Set([max])
            object["stringSet"] = ["q"]
            object["targetMap"] = ["m": max, "gone": nil] as [String: Any?]
            object["doubleMap"] = ["one": 1.0]
        }
        @Sendable func check(_ kinds: DynamicKinds, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertEqual(kinds.bool, false, file: file, line: line)
            XCTAssertEqual(kinds.int, -7, file: file, line: line)
            XCTAssertEqual(kinds.int8, 100, file: file, line: line)
            XCTAssertEqual(kinds.float, 2, file: file, line: line)
            XCTAssertEqual(kinds.double, 0.5, file: file, line: line)
            XCTAssertEqual(kinds.string, "changed", file: file, line: line)
            XCTAssertEqual(kinds.data, Data([9]), file: file, line: line)
            XCTAssertEqual(kinds.date, Date(timeIntervalSince1970: 5), file: file, line: line)
            XCTAssertEqual(kinds.decimal, try! Decimal128(string: "1.25"), file: file, line: line)
            XCTAssertEqual(kinds.objectId, ObjectId("abcdefabcdefabcdefabcdef"), file: file, line: line)
            XCTAssertEqual(kinds.uuid.uuidString, "99999999-9999-9999-9999-999999999999", file: file, line: line)
            XCTAssertNil(kinds.optionalInt, file: file, line: line)
            XCTAssertNil(kinds.optionalString, file: file, line: line)
            XCTAssertEqual(kinds.optionalBool, true, file: file, line: line)
            XCTAssertEqual(kinds.optionalDouble, 1.0, file: file, line: line)
            XCTAssertEqual(kinds.link?.name, "Max", file: file, line: line)
            XCTAssertEqual(kinds.embedded?.text, "replaced", file: file, line: line)
            XCTAssertEqual(kinds.links.map(\.name), ["Max", "New"], file: file, line: line)
            XCTAssertEqual(Array(kinds.ints), [4, 5], file: file, line: line)
            XCTAssertEqual(Array(kinds.optionalStrings), [nil, "z"], file: file, line: line)
            XCTAssertEqual(kinds.notes.map(\.text), ["only"], file: file, line: line)
            XCTAssertEqual(kinds.targetSet.map(\.name), ["Max"], file: file, line: line)
            XCTAssertEqual(Array(kinds.stringSet), ["q"], file: file, line: line)
            XCTAssertEqual(kinds.targetMap.keys, ["gone", "m"], file: file, line: line)
            XCTAssertEqual(kinds.targetMap["m"]??.name, "Max", file: file, line: line)
            XCTAssertEqual(kinds.targetMap["gone"], .some(nil), file: file, line: line)
            XCTAssertEqual(kinds.doubleMap["one"], 1.0, file: file, line: line)
        }
        check(typed)
        // The replaced embedded objects were deleted with their parent's link to them; the new target was made.
        XCTAssertEqual(realm.dynamicObjects("DynamicNote").count, 2, "the new embedded link and the new list element")
        XCTAssertEqual(realm.objects(DynamicTarget.self).count, 3)

        // Another Realm of the file (on another thread) reads the same values, as the model and dynamically.
        let url = configuration.fileURL!
        let failures = Locked<[String]>([])
        runOnThreads(1) { _ in
            do {
                let reopened = try Realm(fileURL: url)
                let kinds = try XCTUnwrap(reopened.object(ofType: DynamicKinds.self, forPrimaryKey: 1))
                check(kinds)
                let dynamic = try XCTUnwrap(reopened.dynamicObject(ofType: "DynamicKinds", forPrimaryKey: 1))
                XCTAssertEqual(dynamic["string"] as? String, "changed")
                XCTAssertEqual((dynamic["link"] as? DynamicObject)?["name"] as? String, "Max")
                XCTAssertEqual((dynamic["ints"] as? List<Int>).map(Array.init), [4, 5])
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(failures.value, [])
    }

    func testLiveCollectionsOfADynamicObjectChangeTheProperty() throws {
        let realm = try openRealm()
        let typed = try makeKinds(realm)
        let object = try XCTUnwrap(realm.dynamicObject(ofType: "DynamicKinds", forPrimaryKey: 1))
        let links = try XCTUnwrap(object["links"] as? List<DynamicObject>)
        let ints = try XCTUnwrap(object["ints"] as? List<Int>)
        let targetMap = try XCTUnwrap(object["targetMap"] as? Map<String, DynamicObject?>)
        let notes = try XCTUnwrap(object["notes"] as? List<DynamicObject>)
        try realm.write {
            let fresh = realm.dynamicCreate("DynamicTarget", value: ["name": "Fresh"])
            links.append(fresh)
            links.remove(at: 0)
            ints.append(4)
            targetMap["fresh"] = fresh
            notes.remove(at: 0)   // the list owns its embedded objects: removing one deletes it
        }
        XCTAssertEqual(typed.links.map(\.name), ["Max", "Rex", "Fresh"])
        XCTAssertEqual(Array(typed.ints), [1, 2, 3, 4])
        XCTAssertEqual(typed.targetMap["fresh"]??.name, "Fresh")
        XCTAssertEqual(typed.notes.map(\.text), ["n2"])
        XCTAssertEqual(realm.dynamicObjects("DynamicNote").count, 2, "n1 was deleted; 'inside' and n2 remain")
        XCTAssertEqual(links.filter("value > 5").map { $0["name"] as? String }, ["Max", "Fresh"])
        XCTAssertEqual(links.sorted(byKeyPath: "name").map { $0["name"] as? String }, ["Fresh", "Max", "Rex"])
    }

    // MARK: dynamicCreate

    func testDynamicCreateTakesDictionariesArraysAndObjects() throws {
        let realm = try openRealm()
        try realm.write {
            let fromDictionary = realm.dynamicCreate("DynamicTarget", value: ["name": "dict"])
            XCTAssertEqual(fromDictionary["value"] as? Int, 7,
                           "a property the value leaves out takes the model's default")
            realm.dynamicCreate("DynamicTarget", value: ["array", 2])
            realm.dynamicCreate("DynamicTarget", value: ["short"])   // a shorter array fills the first properties
            realm.dynamicCreate("DynamicTarget", value: DynamicTarget(value: ["name": "object", "value": 4]))
            realm.dynamicCreate("DynamicTarget", value: fromDictionary)   // a managed object's values are copied
            realm.dynamicCreate("DynamicKinds", value: ["id": 2, "link": ["name": "nested", "value": 5],
                                                        "links": [["name": "in list"]], "embedded": ["text": "e"]])
        }
        let targets = realm.objects(DynamicTarget.self).sorted(byKeyPath: "name")
        XCTAssertEqual(targets.map(\.name), ["array", "dict", "dict", "in list", "nested", "object", "short"])
        XCTAssertEqual(targets.map(\.value), [2, 7, 7, 7, 5, 4, 7])
        let kinds = try XCTUnwrap(realm.object(ofType: DynamicKinds.self, forPrimaryKey: 2))
        XCTAssertEqual(kinds.link?.name, "nested")
        XCTAssertEqual(kinds.links.map(\.name), ["in list"])
        XCTAssertEqual(kinds.embedded?.text, "e")
        XCTAssertEqual(kinds.date, Date(timeIntervalSince1970: 0), "the model's default")
    }

    func testDynamicCreateFollowsTheUpdatePolicy() throws {
        let realm = try openRealm()
        try realm.write {
            realm.dynamicCreate("DynamicKinds", value: ["id": 1, "string": "first", "int": 1])
            // .modified and .all update the object of that primary key, only in the properties the value names.
            let updated = realm.dynamicCreate("DynamicKinds", value: ["id": 1, "string": "second"], update: .modified)
            XCTAssertEqual(updated["int"] as? Int, 1)
            realm.dynamicCreate("DynamicKinds", value: ["id": 1, "int": 2], update: .all)
            // Without an object of that key, they create one.
            realm.dynamicCreate("DynamicKinds", value: ["id": 2], update: .modified)
        }
        let objects = realm.objects(DynamicKinds.self).sorted(byKeyPath: "id")
        XCTAssertEqual(objects.map(\.id), [1, 2])
        XCTAssertEqual(objects[0].string, "second")
        XCTAssertEqual(objects[0].int, 2)
        XCTAssertNil(realm.dynamicObject(ofType: "DynamicKinds", forPrimaryKey: 3))
        XCTAssertEqual(realm.dynamicObject(ofType: "DynamicKinds", forPrimaryKey: 2)?["string"] as? String, "")
    }

    // MARK: Queries

    func testDynamicResultsAnswerAsTheTypedResultsDo() throws {
        let realm = try openRealm()
        var generator = SeededGenerator(seed: 20)
        try realm.write {
            for index in 0..<60 {
                let name = ["ant", "bee", "cat", "dog", "eel"][Int.random(in: 0..<5, using: &generator)]
                realm.create(DynamicTarget.self, value: ["name": "\(name)\(index % 7)",
                                                         "value": Int.random(in: -20...20, using: &generator)])
            }
        }
        let dynamic = realm.dynamicObjects("DynamicTarget")
        let typed = realm.objects(DynamicTarget.self)
        XCTAssertEqual(dynamic.count, typed.count)
        func names(_ results: Results<DynamicObject>) -> [String] { results.map { $0["name"] as! String } }
        for predicate in ["value > 3", "name BEGINSWITH 'c'", "value BETWEEN {-5, 5} AND name CONTAINS[c] 'E'",
                          "NOT (value < 0) OR name ENDSWITH '3'", "value IN {1, 2, 3, 4}"] {
            XCTAssertEqual(names(dynamic.filter(predicate)), typed.filter(predicate).map(\.name), predicate)
            XCTAssertEqual(dynamic.filter(predicate).count, typed.filter(predicate).count, predicate)
        }
        XCTAssertEqual(names(dynamic.filter("name == %@ OR value == %@", "cat3", 10)),
                       typed.filter("name == %@ OR value == %@", "cat3", 10).map(\.name))
        let sortKeys = [SortDescriptor(keyPath: "value", ascending: false), SortDescriptor(keyPath: "name")]
        XCTAssertEqual(names(dynamic.sorted(by: sortKeys)), typed.sorted(by: sortKeys).map(\.name))
        XCTAssertEqual(names(dynamic.filter("value < 0").sorted(byKeyPath: "name")),
                       typed.filter("value < 0").sorted(byKeyPath: "name").map(\.name))
        XCTAssertEqual(names(dynamic.distinct(by: ["value"])), typed.distinct(by: ["value"]).map(\.name))
        XCTAssertEqual(dynamic.sum(ofProperty: "value") as Int, typed.sum(ofProperty: "value") as Int)
        XCTAssertEqual(dynamic.min(ofProperty: "value") as Int?, typed.min(ofProperty: "value") as Int?)
        XCTAssertEqual(dynamic.max(ofProperty: "value") as Int?, typed.max(ofProperty: "value") as Int?)
        XCTAssertEqual(dynamic.average(ofProperty: "value") as Double?, typed.average(ofProperty: "value") as Double?)
        XCTAssertEqual(dynamic.value(forKey: "name") as? [String], typed.value(forKey: "name") as? [String])
        XCTAssertEqual(dynamic.first?["name"] as? String, typed.first?.name)
        XCTAssertEqual(dynamic.filter("value > 0").index(of: dynamic.filter("value > 0").last!),
                       dynamic.filter("value > 0").count - 1)
    }

    func testDynamicQueriesFollowLinksAndCollections() throws {
        let realm = try openRealm()
        _ = try makeKinds(realm)
        try realm.write {
            realm.dynamicCreate("DynamicKinds", value: ["id": 2, "link": ["name": "Other", "value": 1],
                                                        "ints": [7], "doubleMap": ["x": 9.0]])
        }
        let dynamic = realm.dynamicObjects("DynamicKinds")
        let typed = realm.objects(DynamicKinds.self)
        for predicate in ["link.name == 'Rex'", "link.value < 2", "ANY links.name == 'Max'", "ints.@count > 1",
                          "ANY ints == 7", "doubleMap['x'] > 1", "embedded.text == 'inside'", "links.@count == 0"] {
            XCTAssertEqual(dynamic.filter(predicate).map { $0["id"] as! Int }, typed.filter(predicate).map(\.id),
                           predicate)
        }
        XCTAssertEqual(dynamic.sorted(byKeyPath: "link.name").map { $0["id"] as! Int },
                       typed.sorted(byKeyPath: "link.name").map(\.id))
    }

    // MARK: Collections by name

    func testDynamicCollectionsOfAModelObjectAreItsLiveCollections() throws {
        let realm = try openRealm()
        let kinds = try makeKinds(realm)
        let links = kinds.dynamicList("links")
        XCTAssertEqual(links.map { $0["name"] as? String }, ["Rex", "Max", "Rex"])
        let set = kinds.dynamicMutableSet("targetSet")
        XCTAssertEqual(set.count, 2)
        let map: Map<String, DynamicObject?> = kinds.dynamicMap("targetMap")
        XCTAssertEqual(map["first"]??["name"] as? String, "Rex")
        let noteTargets = try XCTUnwrap(kinds.notes.last).dynamicList("targets")
        XCTAssertEqual(noteTargets.map { $0["name"] as? String }, ["Max"])
        try realm.write {
            links.removeAll()
            links.append(realm.dynamicCreate("DynamicTarget", value: ["name": "Added"]))
            set.removeAll()
        }
        XCTAssertEqual(kinds.links.map(\.name), ["Added"])
        XCTAssertTrue(kinds.targetSet.isEmpty)
        // A DynamicObject answers them too.
        let object = try XCTUnwrap(realm.dynamicObject(ofType: "DynamicKinds", forPrimaryKey: 1))
        XCTAssertEqual(object.dynamicList("links").first?["name"] as? String, "Added")
    }

    // MARK: Schemas

    func testWithObjectTypesTheDynamicClassesAreTheListedOnes() throws {
        configuration.objectTypes = [DynamicTarget.self]
        let realm = try openRealm()
        try realm.write { realm.dynamicCreate("DynamicTarget", value: ["name": "listed"]) }
        XCTAssertEqual(realm.objects(DynamicTarget.self).map(\.name), ["listed"])
        XCTAssertEqual(realm.dynamicObjects("DynamicTarget").first?.objectSchema.properties.map(\.name),
                       ["name", "value"])
    }

    func testPropertyNamesAreTheModelsWhenColumnarKnowsTheClass() throws {
        let realm = try openRealm()
        try realm.write { realm.create(DynamicMapped.self, value: ["firstName": "Ann"]) }
        let object = try XCTUnwrap(realm.dynamicObjects("DynamicMapped").first)
        XCTAssertEqual(object["firstName"] as? String, "Ann")
        XCTAssertEqual(realm.dynamicObjects("DynamicMapped").filter("firstName == 'Ann'").count, 1)
    }

    func testAClassWithoutAKnownModelIsReadAsStored() throws {
        do {
            let realm = try openRealm()
            try realm.write { realm.create(DynamicGhostWriter.self, value: ["label": "boo", "count": 2]) }
        }
        _ = DynamicGhostOther.className()   // two classes of the name: neither describes the file for sure
        let url = configuration.fileURL!
        let failures = Locked<[String]>([])
        runOnThreads(1) { _ in
            do {
                let realm = try Realm(fileURL: url)
                let ghosts = realm.dynamicObjects("DynamicGhost")
                XCTAssertEqual(ghosts.count, 1)
                XCTAssertEqual(ghosts.first?.objectSchema.properties.map(\.name), ["label", "count"])
                XCTAssertEqual(ghosts.first?["count"] as? Int, 2)
                XCTAssertEqual(ghosts.filter("count == 2").first?["label"] as? String, "boo")
                try realm.write {
                    let made = realm.dynamicCreate("DynamicGhost", value: ["label": "new", "count": 5])
                    made["count"] = 6
                }
                XCTAssertEqual(ghosts.sorted(byKeyPath: "count").map { $0["count"] as? Int }, [2, 6])
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(failures.value, [])
    }

    // MARK: Objects as any others

    func testDynamicResultsNotifyOfChangesAsTypedResultsDo() throws {
        let realm = try openRealm()
        let results = realm.dynamicObjects("DynamicTarget").filter("value > 5")
        final class Log: @unchecked Sendable { var entries: [String] = [] }
        let log = Log()
        let token = results.observe { change in
            switch change {
            case .initial(let objects): log.entries.append("initial \(objects.count)")
            case .update(let objects, let deletions, let insertions, let modifications):
                log.entries.append("\(objects.count): -\(deletions) +\(insertions) ~\(modifications)")
            case .error(let error): XCTFail("\(error)")
            }
        }
        realm.refresh()
        try realm.write { realm.dynamicCreate("DynamicTarget", value: ["name": "a", "value": 9]) }
        try realm.write { results.first!["name"] = "b" }
        try realm.write { results.first!["value"] = 1 }
        XCTAssertEqual(log.entries, ["initial 0", "1: -[] +[0] ~[]", "1: -[] +[] ~[0]", "0: -[0] +[] ~[]"])
        token.invalidate()

        // An object's notifications name the changed property with its old and new values.
        let object = try XCTUnwrap(realm.dynamicObjects("DynamicTarget").first)
        final class Changes: @unchecked Sendable { var names: [String] = []; var values: [String] = [] }
        let changes = Changes()
        let objectToken = object.observe { (change: ObjectChange<DynamicObject>) in
            if case .change(_, let properties) = change {
                changes.names += properties.map(\.name)
                changes.values += properties.map { "\($0.oldValue ?? "nil") -> \($0.newValue ?? "nil")" }
            }
        }
        try realm.write { object["name"] = "c" }
        XCTAssertEqual(changes.names, ["name"])
        XCTAssertEqual(changes.values, ["b -> c"])
        objectToken.invalidate()
    }

    func testDynamicObjectsDeleteFreezeAndInvalidateAsModelObjectsDo() throws {
        let realm = try openRealm()
        _ = try makeKinds(realm)
        let object = try XCTUnwrap(realm.dynamicObject(ofType: "DynamicKinds", forPrimaryKey: 1))
        let frozen = realm.dynamicObjects("DynamicKinds").freeze()
        XCTAssertEqual(frozen.first?["string"] as? String, "text")
        XCTAssertEqual(object.freeze()["int"] as? Int, 42)
        try realm.write { realm.delete(object) }
        XCTAssertTrue(object.isInvalidated)
        XCTAssertEqual(realm.dynamicObjects("DynamicKinds").count, 0)
        XCTAssertEqual(realm.dynamicObjects("DynamicNote").count, 0, "embedded objects are deleted with their parent")
        XCTAssertEqual(frozen.count, 1, "the frozen results keep their version")
        XCTAssertEqual(realm.dynamicObjects("DynamicTarget").count, 2)
    }
}

/// Misuse of the dynamic API stops the program with RealmSwift's message (DeathTest.swift).
final class DynamicAccessMisuseTests: RealmTestCase, DeathCaseTable {
    static let deathCaseRunner = "ColumnarTests.DynamicAccessMisuseTests/testRunDeathCase"

    private func withObject(_ body: (Realm, DynamicObject) throws -> Void) throws {
        let realm = try openRealm()
        try realm.write {
            realm.create(DynamicKinds.self, value: ["id": 1])
            realm.create(DynamicTarget.self, value: ["name": "t"])
        }
        try body(realm, realm.dynamicObject(ofType: "DynamicKinds", forPrimaryKey: 1)!)
    }

    /// Opens the Realm once the process knows the model classes: Columnar learns a class when it is first used,
    /// and a class it does not know, and whose table the file lacks, is not managed by the Realm.
    private func openKnowingModels() throws -> Realm {
        _ = (DynamicKinds.className(), DynamicTarget.className(), DynamicNote.className())
        return try openRealm()
    }

    var deathCases: [String: () throws -> Void] {
        [
            "unknown class": {
                let realm = try self.openRealm()
                _ = realm.dynamicObjects("NoSuchClass").count
            },
            "unknown class to create": {
                let realm = try self.openRealm()
                try realm.write { realm.dynamicCreate("NoSuchClass") }
            },
            "class objectTypes does not list": {
                var configuration = self.configuration!
                configuration.objectTypes = [DynamicTarget.self]
                let realm = try Realm(configuration: configuration)
                try realm.write { realm.create(DynamicTarget.self, value: [:]) }
                _ = realm.dynamicObjects("DynamicKinds")
            },
            "unknown property read": { try self.withObject { _, object in _ = object["noSuchProperty"] } },
            "unknown property write": {
                try self.withObject { realm, object in try realm.write { object.noSuchProperty = 1 } }
            },
            "wrong value type": {
                try self.withObject { realm, object in try realm.write { object["int"] = "seven" } }
            },
            "nil for a required property": {
                try self.withObject { realm, object in try realm.write { object["string"] = nil } }
            },
            "object of another class": {
                try self.withObject { realm, object in
                    let other = realm.dynamicObject(ofType: "DynamicKinds", forPrimaryKey: 1)
                    try realm.write { object["link"] = other }
                }
            },
            "list element of another class": {
                try self.withObject { realm, object in
                    try realm.write { (object["links"] as! List<DynamicObject>).append(object) }
                }
            },
            "changing the primary key": {
                try self.withObject { realm, object in try realm.write { object["id"] = 2 } }
            },
            "writing outside a write transaction": { try self.withObject { _, object in object["int"] = 1 } },
            "duplicate primary key": {
                try self.withObject { realm, _ in
                    try realm.write { _ = realm.dynamicCreate("DynamicKinds", value: ["id": 1]) }
                }
            },
            "update without a primary key": {
                let realm = try self.openKnowingModels()
                try realm.write { realm.dynamicCreate("DynamicTarget", value: [:], update: .all) }
            },
            "primary key lookup without a primary key": {
                _ = try self.openKnowingModels().dynamicObject(ofType: "DynamicTarget", forPrimaryKey: 1)
            },
            "primary key of the wrong type": {
                _ = try self.openKnowingModels().dynamicObject(ofType: "DynamicKinds", forPrimaryKey: "one")
            },
            "creating an embedded object": {
                let realm = try self.openKnowingModels()
                try realm.write { realm.dynamicCreate("DynamicNote", value: ["text": "x"]) }
            },
            "too many values": {
                let realm = try self.openKnowingModels()
                try realm.write { realm.dynamicCreate("DynamicTarget", value: ["a", 1, "extra"]) }
            },
            "unknown key in a dictionary": {
                let realm = try self.openKnowingModels()
                try realm.write { realm.dynamicCreate("DynamicTarget", value: ["nme": "typo"]) }
            },
            "dynamicList of a property that is no list": {
                try self.withObject { realm, _ in
                    _ = realm.object(ofType: DynamicKinds.self, forPrimaryKey: 1)!.dynamicList("ints")
                }
            },
            "unmanaged DynamicObject": { _ = DynamicObject()["name"] },
            "missing value of a class read as stored": {
                do {
                    let realm = try self.openRealm()
                    try realm.write { realm.create(DynamicGhostWriter.self, value: ["label": "boo"]) }
                }
                _ = DynamicGhostOther.className()
                let url = self.configuration.fileURL!
                runOnThreads(1) { _ in
                    let realm = try! Realm(fileURL: url)
                    try! realm.write { realm.dynamicCreate("DynamicGhost", value: ["label": "no count"]) }
                }
            },
            "objects of DynamicObject": {
                let realm = try self.openRealm()
                _ = realm.objects(DynamicObject.self).count
            },
        ]
    }

    func testRunDeathCase() throws {
        try runDeathCase()
    }

    func testAClassTheRealmDoesNotManageStopsWithRealmSwiftsMessage() {
        assertStops("unknown class", "Object type 'NoSuchClass' is not managed by the Realm.")
        assertStops("unknown class to create", "Object type 'NoSuchClass' is not managed by the Realm.")
        assertStops("class objectTypes does not list", "Object type 'DynamicKinds' is not managed by the Realm.")
        assertStops("objects of DynamicObject", "DynamicObject is not a model class")
        assertStops("unmanaged DynamicObject", "This DynamicObject is not managed by a Realm")
    }

    func testMisusedPropertiesStopWithRealmSwiftsMessages() {
        assertStops("unknown property read", "Invalid property name 'noSuchProperty' for class 'DynamicKinds'.")
        assertStops("unknown property write", "Invalid property name 'noSuchProperty' for class 'DynamicKinds'.")
        assertStops("wrong value type", "Invalid value 'seven' of type 'String' for 'int' property 'DynamicKinds.int'.")
        assertStops("nil for a required property",
                    "Invalid null value for non-nullable property 'DynamicKinds.string'.")
        assertStops("object of another class",
                    "Can't set object of type 'DynamicKinds' to property of type 'DynamicTarget'")
        assertStops("list element of another class", "Object of type 'DynamicKinds' does not match List type "
                        + "'DynamicTarget'.")
        assertStops("changing the primary key", "Primary key can't be changed to '2' after an object is inserted.")
        assertStops("writing outside a write transaction", "Attempting to modify object outside of a write transaction")
        assertStops("dynamicList of a property that is no list",
                    "dynamicList(_:): property 'DynamicKinds.ints' is not a List of objects")
    }

    func testMisusedCreationStopsWithRealmSwiftsMessages() {
        assertStops("duplicate primary key",
                    "Attempting to create an object of type 'DynamicKinds' with an existing primary key value '1'.")
        assertStops("update without a primary key",
                    "'DynamicTarget' does not have a primary key and can not be updated")
        assertStops("primary key lookup without a primary key",
                    "'DynamicTarget' does not have a primary key and can not be queried by one")
        assertStops("primary key of the wrong type",
                    "Invalid value 'one' of type 'String' for 'DynamicKinds.id' primary key")
        assertStops("creating an embedded object", "Embedded objects cannot be created directly")
        assertStops("too many values", "Invalid array input: more values (3) than properties (2).")
        assertStops("unknown key in a dictionary", "Invalid property name 'nme' for class 'DynamicTarget'.")
        assertStops("missing value of a class read as stored", "Missing value for property 'DynamicGhost.count'")
    }
}
