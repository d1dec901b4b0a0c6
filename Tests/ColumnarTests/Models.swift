// Model classes shared by the object API tests, written as RealmSwift's documentation writes them.

import Columnar
import Foundation

final class Dog: Object {
    @Persisted var name: String
    @Persisted var age: Int
}

final class Person: Object {
    @Persisted var name: String
    @Persisted var picture: Data?
    @Persisted var dogs: List<Dog>
}

final class Toy: Object {
    @Persisted var brand = ""
    @Persisted var price = 0.0
}

final class Owner: Object {
    @Persisted var name = ""
}

final class Pet: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted(indexed: true) var age: Int
    @Persisted var owner: Owner?
    @Persisted var toys: List<Toy>
}

/// A property of every supported scalar type, plain and optional.
final class AllTypes: Object {
    @Persisted var bool = true
    @Persisted var int = 1
    @Persisted var int8: Int8 = 2
    @Persisted var int16: Int16 = 3
    @Persisted var int32: Int32 = 4
    @Persisted var int64: Int64 = 5
    @Persisted var float: Float = 6.5
    @Persisted var double = 7.25
    @Persisted var string = "eight"
    @Persisted var data = Data([9, 9])
    @Persisted var date = Date(timeIntervalSince1970: 10.5)
    @Persisted var decimal: Decimal128 = 11
    @Persisted var objectId = ObjectId("0123456789abcdef01234567")
    @Persisted var uuid = UUID(uuidString: "00000000-0000-0000-0000-00000000000C")!
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
    @Persisted var intList: List<Int>
    @Persisted var optionalStringList: List<String?>
}
