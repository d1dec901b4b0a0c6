// DescriptionAndNumberTests: two conventions RealmSwift inherits from its Objective-C roots that ported code and
// tests compare against: an object's `description` (`ClassName {` then `\tproperty = value;` lines, strings
// without quotes, Bool as 1 or 0, data as hexadecimal with its length, nil as `(null)`), and aggregates asked
// for as `NSNumber` (`min(ofProperty:) as NSNumber?`).

import Columnar
import Foundation
import XCTest

final class DescriptionAndNumberTests: RealmTestCase {
    /// RealmSwift's RLMObjectBase description: each property on its own line, values as Objective-C describes them.
    func testDescriptionUsesRealmSwiftsConventions() throws {
        let realm = try openRealm()
        let unmanaged = AllTypes()
        unmanaged.data = Data((0 ..< 30).map { UInt8($0) })
        let managed = try realm.write { realm.create(AllTypes.self, value: unmanaged) }
        for object in [unmanaged, managed] {
            let text = object.description
            XCTAssertTrue(text.hasPrefix("AllTypes {\n\tbool = 1;\n\tint = 1;\n\tint8 = 2;\n"), text)
            XCTAssertTrue(text.contains("\n\tfloat = 6.5;\n\tdouble = 7.25;\n\tstring = eight;\n"), text)
            XCTAssertTrue(text.contains("\n\tdata = <00010203 04050607 08090a0b 0c0d0e0f 10111213 14151617 — 30 total bytes>;\n"),
                          text)
            XCTAssertTrue(text.contains("\n\tdate = 1970-01-01 00:00:10 +0000;\n"), text)
            XCTAssertTrue(text.contains("\n\tobjectId = 0123456789abcdef01234567;\n"), text)
            XCTAssertTrue(text.contains("\n\toptionalBool = (null);\n"), text)
            XCTAssertTrue(text.hasSuffix("\n}"), text)
        }
        let small = AllTypes()
        small.data = Data([0x61])
        XCTAssertTrue(small.description.contains("\tdata = <61 — 1 total bytes>;"), small.description)
    }

    /// RealmSwift: aggregates can be read as NSNumber (its MinMaxType and AddableType include NSNumber).
    func testAggregatesCanBeReadAsNSNumber() throws {
        let realm = try openRealm()
        try realm.write {
            for (int, double, decimal) in [(3, 1.5, Decimal128(2)), (9, -0.25, Decimal128(5)), (4, 2.0, Decimal128(11))] {
                realm.create(AllTypes.self, value: ["int": int, "double": double, "decimal": decimal])
            }
        }
        let all = realm.objects(AllTypes.self)
        let minimum: NSNumber? = all.min(ofProperty: "int")
        let maximum: NSNumber? = all.max(ofProperty: "double")
        let sum: NSNumber = all.sum(ofProperty: "int")
        let average: NSNumber? = all.average(ofProperty: "double")
        XCTAssertEqual(minimum?.intValue, 3)
        XCTAssertEqual(maximum?.doubleValue, 2.0)
        XCTAssertEqual(sum.intValue, 16)
        XCTAssertEqual(average?.doubleValue ?? 0, 3.25 / 3, accuracy: 1e-12)
        let decimalSum: NSNumber = all.sum(ofProperty: "decimal")
        XCTAssertEqual(decimalSum.doubleValue, 18)
        XCTAssertNil(all.filter("int > 100").min(ofProperty: "int") as NSNumber?)
        // Unmanaged collections aggregate in memory with the same answer types.
        let list = List<AllTypes>()
        list.append(objectsIn: all)
        XCTAssertEqual((list.max(ofProperty: "int") as NSNumber?)?.intValue, 9)
    }
}
