// KeyValueCodingTests: key-value coding as RealmSwift's objects and collections answer it (they are NSObjects and
// NSArray-like there): `value(forKey: "self")`, the collection operators of `value(forKeyPath:)` (`@count`, `@sum`,
// `@avg`, `@min`, `@max`, `@unionOfObjects`, `@distinctUnionOfObjects`), a MutableSet's values as a set, and
// `value(forKey:)` / `value(forKeyPath:)` / `setValue(_:forKey:)` and subscripts on objects, which give each
// property's declared type. Each operator's answer is compared with the same fold computed in plain Swift.
// Also item 5 of the same issue: assigning any collection (List, MutableSet, Results, LinkingObjects, an array or
// a Swift set) to a to-many property by name.

import Columnar
import ColumnarTestSupport
import Foundation
import XCTest

final class KeyValueCodingTests: RealmTestCase {
    /// Pets with ages and names (some repeated), two owners, toys in lists.
    private func populated() throws -> Realm {
        let realm = try openRealm()
        try realm.write {
            let ann = realm.create(Owner.self, value: ["name": "Ann"])
            let bob = realm.create(Owner.self, value: ["name": "Bob"])
            for (id, name, age) in [(1, "Rex", 3), (2, "Fido", 7), (3, "Rex", 12), (4, "Bella", 1), (5, "Fido", 7)] {
                let pet = realm.create(Pet.self, value: ["id": id, "name": name, "age": age])
                pet.owner = id % 2 == 1 ? ann : (id == 2 ? bob : nil)
                for price in 0 ..< id { pet.toys.append(realm.create(Toy.self, value: ["brand": "b\(price % 2)", "price": Double(price) + 0.5])) }
            }
        }
        return realm
    }

    /// RealmSwift (NSArray's KVC): the operators fold the values of a property; compared with plain Swift folds.
    func testCollectionOperatorsFoldAPropertyAsFoundationDoes() throws {
        let realm = try populated()
        let pets = realm.objects(Pet.self).sorted(byKeyPath: "id")
        let ages = pets.map(\.age)
        XCTAssertEqual(pets.value(forKeyPath: "@count") as? Int, 5)
        XCTAssertEqual(pets.value(forKeyPath: "@sum.age") as? Int, ages.reduce(0, +))
        XCTAssertEqual(pets.value(forKeyPath: "@avg.age") as? Double, Double(ages.reduce(0, +)) / 5)
        XCTAssertEqual(pets.value(forKeyPath: "@min.age") as? Int, ages.min())
        XCTAssertEqual(pets.value(forKeyPath: "@max.age") as? Int, ages.max())
        // RealmSwift hands @min/@max/@sum/@avg to the collection's aggregates (numbers, and dates for min/max).
        XCTAssertEqual(pets.value(forKeyPath: "@min.id") as? Int, pets.min(ofProperty: "id"))
        XCTAssertEqual(pets.value(forKeyPath: "@max.id") as? Int, pets.max(ofProperty: "id"))
        XCTAssertEqual(pets.value(forKeyPath: "@unionOfObjects.name") as? [String], ["Rex", "Fido", "Rex", "Bella", "Fido"])
        XCTAssertEqual(pets.value(forKeyPath: "@distinctUnionOfObjects.name") as? [String], ["Rex", "Fido", "Bella"])
        // Through links: nil links are left out of the folds.
        XCTAssertEqual(pets.value(forKeyPath: "@unionOfObjects.owner.name") as? [String], ["Ann", "Bob", "Ann", "Ann"])
        XCTAssertEqual(pets.value(forKeyPath: "@distinctUnionOfObjects.owner.name") as? [String], ["Ann", "Bob"])
        XCTAssertEqual((pets.value(forKeyPath: "@distinctUnionOfObjects.owner") as? [Owner])?.map(\.name), ["Ann", "Bob"])
        // Empty folds: a sum of nothing is 0, the others are nil.
        let none = pets.filter("age > 100")
        XCTAssertEqual(none.value(forKeyPath: "@sum.age") as? Int, 0)
        XCTAssertNil(none.value(forKeyPath: "@avg.age"))
        XCTAssertNil(none.value(forKeyPath: "@max.age"))
        XCTAssertEqual(none.value(forKeyPath: "@count") as? Int, 0)

        // On a list of objects, linking objects, and lists of values through `self`.
        let rex = pets.first!
        let prices = pets[2].toys.map(\.price)
        // A List also has RealmSwift's [AnyObject] form, which an unannotated call picks; the operators need
        // the Any? form.
        XCTAssertEqual(pets[2].toys.value(forKeyPath: "@sum.price") as Any? as? Double, prices.reduce(0, +))
        XCTAssertEqual(pets[2].toys.value(forKeyPath: "@max.price") as Any? as? Double, prices.max())
        XCTAssertEqual(pets[2].toys.value(forKeyPath: "@distinctUnionOfObjects.brand") as Any? as? [String], ["b0", "b1"])
        let owner = pets[0].owner!
        XCTAssertEqual(owner.value(forKeyPath: "name") as? String, "Ann")
        XCTAssertEqual(rex.owner!.value(forKeyPath: "name") as? String, "Ann")
        let holder = try realm.write { realm.create(CollectionHolder.self, value: ["name": "h", "intList": [4, 1, 4, 9]]) }
        XCTAssertEqual(holder.intList.value(forKeyPath: "@sum.self") as Any? as? Int, 18)
        XCTAssertEqual(holder.intList.value(forKeyPath: "@distinctUnionOfObjects.self") as Any? as? [Int], [4, 1, 9])
        XCTAssertEqual(holder.intList.value(forKeyPath: "@count") as Any? as? Int, 4)
    }

    /// RealmSwift: `value(forKey: "self")` is the elements; a MutableSet's values are a set (no repeats).
    func testSelfIsTheElementsAndASetsValuesHaveNoRepeats() throws {
        let realm = try populated()
        let pets = realm.objects(Pet.self).sorted(byKeyPath: "id")
        XCTAssertEqual((pets.value(forKey: "self") as? [Pet])?.map(\.id), [1, 2, 3, 4, 5])
        let holder = try realm.write { () -> CollectionHolder in
            let holder = realm.create(CollectionHolder.self, value: ["name": "h"])
            holder.intSet.insert(objectsIn: [3, 1, 2])
            return holder
        }
        XCTAssertEqual(Set((holder.intSet.value(forKey: "self") as Any? as? [Int]) ?? []), [1, 2, 3])
        let kennel = try realm.write { () -> Kennel in
            let kennel = realm.create(Kennel.self, value: ["name": "k"])
            for name in ["a", "b", "a"] { kennel.dogSet.insert(realm.create(KennelDog.self, value: ["name": name])) }
            return kennel
        }
        let names: [AnyObject] = kennel.dogSet.value(forKey: "name")
        XCTAssertEqual(names.count, 2, "\(names)")
        XCTAssertEqual(Set(names.compactMap { $0 as? String }), ["a", "b"])
    }

    /// RealmSwift's objects are NSObjects: value(forKey:), value(forKeyPath:) through links and into to-many
    /// properties, setValue(_:forKey:), and subscripts that give each property's declared type.
    func testObjectsAnswerKeyValueCodingWithDeclaredTypes() throws {
        let realm = try populated()
        let pet = realm.object(ofType: Pet.self, forPrimaryKey: 3)!
        XCTAssertEqual(pet.value(forKey: "name") as? String, "Rex")
        XCTAssertEqual(pet.value(forKeyPath: "owner.name") as? String, "Ann")
        XCTAssertEqual(pet.value(forKeyPath: "toys.@count") as? Int, 3)
        XCTAssertEqual(pet.value(forKeyPath: "toys.price") as? [Any?] as? [Double], [0.5, 1.5, 2.5])
        XCTAssertEqual(pet.value(forKeyPath: "toys.@sum.price") as? Double, 4.5)
        XCTAssertNil(realm.object(ofType: Pet.self, forPrimaryKey: 4)!.value(forKeyPath: "owner.name"))
        try realm.write { pet.setValue("Max", forKey: "name") }
        XCTAssertEqual(pet.name, "Max")

        let unmanaged = AllTypes()
        unmanaged.setValue(Int8(-7), forKey: "int8")
        let managed = try realm.write { realm.create(AllTypes.self, value: unmanaged) }
        for object in [unmanaged, managed] {
            XCTAssertEqual(object["int8"] as? Int8, -7)
            XCTAssertEqual(object.value(forKey: "int16") as? Int16, 3)
            XCTAssertEqual(object["int32"] as? Int32, 4)
            XCTAssertEqual(object["float"] as? Float, 6.5)
            XCTAssertEqual(object["decimal"] as? Decimal128, 11)
            XCTAssertNil(object.value(forKey: "optionalInt"))
        }
    }

    // MARK: Item 5: collection assignment

    /// RealmSwift: a to-many property can be assigned any collection by name: a List, MutableSet, Results,
    /// LinkingObjects, an array or a Swift set, on managed and unmanaged objects.
    func testAnyCollectionCanBeAssignedToAToManyProperty() throws {
        let realm = try populated()
        let pets = realm.objects(Pet.self).sorted(byKeyPath: "id")
        let toys = realm.objects(Toy.self).filter("price < 1").sorted(byKeyPath: "price")
        let target = pets[4]
        try realm.write {
            target["toys"] = toys
            XCTAssertEqual(target.toys.count, toys.count)
            target.setValue(pets[1].toys, forKey: "toys")
            XCTAssertEqual(target.toys.map(\.price), pets[1].toys.map(\.price))
            target["toys"] = Array(pets[2].toys)
            XCTAssertEqual(target.toys.map(\.price), [0.5, 1.5, 2.5])
            target["toys"] = target.toys   // itself
            XCTAssertEqual(target.toys.count, 3)
        }
        try realm.write {
            let holder = realm.create(CollectionHolder.self, value: ["name": "h", "intList": [5, 6]])
            holder["intSet"] = holder.intList
            XCTAssertEqual(Set(holder.intSet), [5, 6])
            holder["intList"] = holder.intSet
            XCTAssertEqual(Set(holder.intList), [5, 6])
            holder["otherIntSet"] = Set([7, 8])
            XCTAssertEqual(Set(holder.otherIntSet), [7, 8])
            holder.setValue(realm.objects(CollectionHolder.self).filter("name == 'h'").first!.intList, forKey: "intList")
            XCTAssertEqual(holder.intList.count, 2)
        }
        // LinkingObjects into a list of the origin class, on an unmanaged object.
        let ann = realm.objects(Owner.self).filter("name == 'Ann'").first!
        let kennel = try realm.write { () -> Kennel in
            let kennel = realm.create(Kennel.self, value: ["name": "k"])
            let dog = realm.create(KennelDog.self, value: ["name": "d"])
            kennel.dogs.append(dog)
            return kennel
        }
        let copy = Kennel()
        copy["dogs"] = kennel.dogs
        XCTAssertEqual(copy.dogs.count, 1)
        let fans = Kennel()
        fans["dogSet"] = kennel.dogs
        XCTAssertEqual(fans.dogSet.count, 1)
        _ = ann
    }
}
