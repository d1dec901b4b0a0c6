// Accessor objects made for rows: classes whose accessors can skip property cells and the classes that keep
// them (a default value that is itself an object, an initializer that touches its own properties) read and write
// their rows alike.

import Columnar
import Foundation
import XCTest

final class AccessorPlain: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name = "none"
    @Persisted var score: Double?
    @Persisted var tags: List<String>
}

final class AccessorWithObjectDefault: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var owner: Owner? = Owner(value: ["name": "default owner"])
    @Persisted var label = ""
}

final class AccessorTouchingInit: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var counter = 0

    required override init() {
        super.init()
        counter = 7   // an initializer that writes a property: this class keeps its cells
    }
}

/// A class below another model class that keeps its cells: construction makes the subclass's cells before the
/// superclass's, the reverse of the schema's order, and the object claims them in schema order.
class AccessorBaseKeepingCells: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name = ""
}

final class AccessorDerivedKeepingCells: AccessorBaseKeepingCells {
    @Persisted var score = 0.0
    @Persisted var count = 0
    @Persisted var tags: List<String>

    required init() {
        super.init()
        count = 3   // an initializer that writes a property: this class keeps its cells
    }
}

final class AccessorObjectTests: RealmTestCase {
    func testASubclassKeepingItsCellsReadsAndWritesEachPropertysOwnColumn() throws {
        let realm = try openRealm()
        try realm.write {
            for id in 0..<30 {
                let object = AccessorDerivedKeepingCells()
                object.id = id
                object.name = "n\(id)"
                object.score = Double(id) / 2
                object.count += id
                object.tags.append("t\(id)")
                realm.add(object)
            }
        }
        func check(_ object: AccessorDerivedKeepingCells, scoreFactor: Double, line: UInt = #line) {
            let id = object.id
            XCTAssertEqual(object.name, "n\(id)", line: line)
            XCTAssertEqual(object.score, Double(id) / 2 * scoreFactor, line: line)
            XCTAssertEqual(object.count, 3 + id, line: line)
            XCTAssertEqual(Array(object.tags), ["t\(id)"], line: line)
            XCTAssertEqual(object["score"] as? Double, Double(id) / 2 * scoreFactor, line: line)
        }
        var seen = 0
        for object in realm.objects(AccessorDerivedKeepingCells.self) {
            check(object, scoreFactor: 1)
            seen += 1
        }
        XCTAssertEqual(seen, 30)
        try realm.write {
            for object in realm.objects(AccessorDerivedKeepingCells.self) { object.score *= 4 }
        }
        for id in [0, 7, 29] {
            check(realm.object(ofType: AccessorDerivedKeepingCells.self, forPrimaryKey: id)!, scoreFactor: 4)
        }
        XCTAssertEqual(realm.objects(AccessorDerivedKeepingCells.self).filter("score >= 28").count, 16)
    }


    func testRowsOfEachKindOfClassReadAndWriteTheirValues() throws {
        let realm = try openRealm()
        try realm.write {
            for id in 0..<20 {
                realm.add(AccessorPlain(value: ["id": id, "name": "n\(id)", "score": id % 3 == 0 ? nil : Double(id),
                                                "tags": ["a\(id)", "b"]]))
                let withDefault = AccessorWithObjectDefault()
                withDefault.id = id
                withDefault.label = "l\(id)"
                realm.add(withDefault)
                let touching = AccessorTouchingInit()
                touching.id = id
                touching.counter += id
                realm.add(touching)
            }
        }
        for (index, plain) in realm.objects(AccessorPlain.self).sorted(byKeyPath: "id").enumerated() {
            XCTAssertEqual(plain.name, "n\(index)")
            XCTAssertEqual(plain.score, index % 3 == 0 ? nil : Double(index))
            XCTAssertEqual(Array(plain.tags), ["a\(index)", "b"])
            XCTAssertEqual(plain["name"] as? String, "n\(index)")
        }
        for (index, object) in realm.objects(AccessorWithObjectDefault.self).sorted(byKeyPath: "id").enumerated() {
            XCTAssertEqual(object.label, "l\(index)")
            XCTAssertEqual(object.owner?.name, "default owner")
        }
        for (index, object) in realm.objects(AccessorTouchingInit.self).sorted(byKeyPath: "id").enumerated() {
            XCTAssertEqual(object.counter, 7 + index)
        }
        // Writes through accessors, and reading them back through fresh accessors.
        try realm.write {
            for plain in realm.objects(AccessorPlain.self) { plain.name += "!"; plain.tags.append("c") }
            for object in realm.objects(AccessorTouchingInit.self) { object.counter *= 2 }
        }
        XCTAssertEqual(realm.objects(AccessorPlain.self).filter("name ENDSWITH '!'").count, 20)
        XCTAssertEqual(realm.objects(AccessorPlain.self).filter("ANY tags == 'c'").count, 20)
        XCTAssertEqual(realm.objects(AccessorTouchingInit.self).sum(ofProperty: "counter") as Int,
                       (0..<20).reduce(0) { $0 + 2 * (7 + $1) })
        let deleted = realm.object(ofType: AccessorPlain.self, forPrimaryKey: 3)!
        try realm.write { realm.delete(deleted) }
        XCTAssertTrue(deleted.isInvalidated)
        XCTAssertTrue(realm.objects(AccessorPlain.self).description.contains("n4!"))
    }
}
