// ResultsKeyValueCodingTests: `value(forKey:)` on Results reads a property of every object in one engine call.
// Each answer must equal reading the property object by object through its accessor, for every scalar type,
// optionals with nils, links, in the whole table, filtered and sorted orders, inside a write with uncommitted
// changes, and after deletions.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class ResultsKeyValueCodingTests: RealmTestCase {
    private func randomObject(_ generator: inout SeededGenerator) -> AllTypes {
        let object = AllTypes()
        func maybe<T>(_ value: T) -> T? { Bool.random(using: &generator) ? value : nil }
        object.bool = Bool.random(using: &generator)
        object.int = Int.random(in: -1_000 ... 1_000, using: &generator)
        object.int8 = Int8.random(in: .min ... .max, using: &generator)
        object.int16 = Int16.random(in: .min ... .max, using: &generator)
        object.int32 = Int32.random(in: .min ... .max, using: &generator)
        object.int64 = Int64.random(in: .min ... .max, using: &generator)
        object.float = Float(Int.random(in: -100 ... 100, using: &generator)) / 4
        object.double = Double(Int.random(in: -100 ... 100, using: &generator)) / 8
        object.string = String((0 ..< Int.random(in: 0 ... 12, using: &generator)).map { _ in
            "abcé世".randomElement(using: &generator)!
        })
        object.data = Data((0 ..< Int.random(in: 0 ... 20, using: &generator)).map { _ in UInt8.random(in: 0 ... 255, using: &generator) })
        object.date = Date(timeIntervalSince1970: Double(Int.random(in: -1_000_000 ... 1_000_000, using: &generator)) / 4)
        object.decimal = Decimal128(value: Int.random(in: -1_000 ... 1_000, using: &generator))
        object.objectId = ObjectId.generate()
        object.uuid = UUID()
        object.optionalBool = maybe(Bool.random(using: &generator))
        object.optionalInt = maybe(Int.random(in: -5 ... 5, using: &generator))
        object.optionalFloat = maybe(Float(Int.random(in: -9 ... 9, using: &generator)))
        object.optionalDouble = maybe(Double(Int.random(in: -9 ... 9, using: &generator)))
        object.optionalString = maybe("s\(Int.random(in: 0 ... 99, using: &generator))")
        object.optionalData = maybe(Data([UInt8.random(in: 0 ... 255, using: &generator)]))
        object.optionalDate = maybe(Date(timeIntervalSince1970: Double(Int.random(in: 0 ... 99, using: &generator))))
        object.optionalDecimal = maybe(Decimal128(value: Int.random(in: 0 ... 99, using: &generator)))
        object.optionalObjectId = maybe(ObjectId.generate())
        object.optionalUUID = maybe(UUID())
        return object
    }

    /// `value(forKey:)` of one property, as the typed array, against the accessor read object by object.
    private func assertColumn<V: Equatable>(_ name: String, _ keyPath: KeyPath<AllTypes, V>,
                                            _ results: Results<AllTypes>, _ context: String,
                                            file: StaticString = #filePath, line: UInt = #line) {
        let expected = results.map { $0[keyPath: keyPath] }
        XCTAssertEqual(results.value(forKey: name) as? [V], expected, "\(context): \(name)", file: file, line: line)
        XCTAssertEqual(results.value(forKeyPath: name) as? [V], expected, "\(context): \(name) (key path)",
                       file: file, line: line)
    }

    private func assertEveryColumn(_ results: Results<AllTypes>, _ context: String) {
        assertColumn("bool", \.bool, results, context)
        assertColumn("int", \.int, results, context)
        assertColumn("int8", \.int8, results, context)
        assertColumn("int16", \.int16, results, context)
        assertColumn("int32", \.int32, results, context)
        assertColumn("int64", \.int64, results, context)
        assertColumn("float", \.float, results, context)
        assertColumn("double", \.double, results, context)
        assertColumn("string", \.string, results, context)
        assertColumn("data", \.data, results, context)
        assertColumn("date", \.date, results, context)
        assertColumn("decimal", \.decimal, results, context)
        assertColumn("objectId", \.objectId, results, context)
        assertColumn("uuid", \.uuid, results, context)
        assertColumn("optionalBool", \.optionalBool, results, context)
        assertColumn("optionalInt", \.optionalInt, results, context)
        assertColumn("optionalFloat", \.optionalFloat, results, context)
        assertColumn("optionalDouble", \.optionalDouble, results, context)
        assertColumn("optionalString", \.optionalString, results, context)
        assertColumn("optionalData", \.optionalData, results, context)
        assertColumn("optionalDate", \.optionalDate, results, context)
        assertColumn("optionalDecimal", \.optionalDecimal, results, context)
        assertColumn("optionalObjectId", \.optionalObjectId, results, context)
        assertColumn("optionalUUID", \.optionalUUID, results, context)
        // The array also reads as values of any type, nil where the property is nil.
        let anyValues = results.value(forKey: "optionalInt") as? [Any?]
        XCTAssertEqual(anyValues?.count, results.count, context)
        XCTAssertEqual(anyValues?.map { $0 as? Int }, results.map(\.optionalInt), context)
    }

    private func orders(_ objects: Results<AllTypes>) -> [(String, Results<AllTypes>)] {
        [
            ("whole table", objects),
            ("filtered", objects.filter("int > 0 OR optionalInt == nil")),
            ("sorted by int, descending", objects.sorted(byKeyPath: "int", ascending: false)),
            ("sorted by string", objects.sorted(by: [SortDescriptor(keyPath: "string"), SortDescriptor(keyPath: "int")])),
            ("filtered to nothing", objects.filter("int > 5000")),
        ]
    }

    func testValueForKeyMatchesEachObjectsAccessor() throws {
        var generator = makeSeededGenerator()
        let realm = try openRealm()
        try realm.write {
            for _ in 0 ..< 600 { realm.add(randomObject(&generator)) }
        }
        let objects = realm.objects(AllTypes.self)
        for (name, results) in orders(objects) { assertEveryColumn(results, "committed, \(name)") }
        try realm.write {
            // Uncommitted changes: some objects changed, some deleted, some new.
            for object in objects.shuffled(using: &generator).prefix(100) {
                object.int = Int.random(in: -1_000 ... 1_000, using: &generator)
                object.optionalString = nil
            }
            realm.delete(Array(objects.shuffled(using: &generator).prefix(50)))
            for _ in 0 ..< 40 { realm.add(randomObject(&generator)) }
            for (name, results) in orders(objects) { assertEveryColumn(results, "inside a write, \(name)") }
        }
        for (name, results) in orders(objects) { assertEveryColumn(results, "after the write, \(name)") }
    }

    func testValueForKeyOfLinksAndKeyPaths() throws {
        let realm = try openRealm()
        try realm.write {
            let ann = Owner(value: ["name": "Ann"])
            for id in 0 ..< 6 {
                realm.add(Pet(value: ["id": id, "name": "p\(id)", "age": 10 - id, "owner": id % 2 == 0 ? ann : nil]))
            }
        }
        let pets = realm.objects(Pet.self).sorted(byKeyPath: "age")
        XCTAssertEqual(pets.value(forKey: "id") as? [Int], [5, 4, 3, 2, 1, 0])
        let owners = pets.value(forKey: "owner") as? [Owner?]
        XCTAssertEqual(owners?.map { $0?.name }, [nil, "Ann", nil, "Ann", nil, "Ann"])
        XCTAssertEqual(pets.value(forKeyPath: "owner.name") as? [String?], [nil, "Ann", nil, "Ann", nil, "Ann"])
        XCTAssertEqual((pets.value(forKey: "toys") as? [Any?])?.count, 6, "a list property, object by object")
    }
}
