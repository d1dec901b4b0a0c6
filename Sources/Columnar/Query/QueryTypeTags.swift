// QueryTypeTags: the marker protocols that decide which operations `Query<T>` offers for which `T`.
//
// `Query<T>` is generic over the type of what it names, and its operations live in constrained extensions:
// `>` only where `T` is numeric (or a date), `starts(with:)` only for strings and data, `.count` only for
// collections. RealmSwift spells these constraints with its own protocols (`_QueryNumeric`, `_QueryString`,
// `_QueryBinary`, and `RealmCollection`, `RealmKeyedCollection`, `OptionalProtocol` for the rest). The first three
// keep their names here. Columnar's collections do not (yet) share a `RealmCollection` protocol and its internal
// `OptionalProtocol` is used as an existential throughout the object layer, so the builder brings its own
// underscored tags for those; query code never names them, so code written for RealmSwift compiles unchanged.

import Foundation

/// Types that queries order with `<`, `<=`, `>`, `>=`: the numeric and the byte-string types below.
public protocol _QueryOrdered {}
extension Optional: _QueryOrdered where Wrapped: _QueryOrdered {}

/// Types that can be compared with `<`, `>` and aggregated (`min`, `max`, `sum`, `avg`) in queries: the integer
/// types, Float, Double, Decimal128, Date, and their optionals.
public protocol _QueryNumeric: _QueryOrdered {}
extension Int: _QueryNumeric {}
extension Int8: _QueryNumeric {}
extension Int16: _QueryNumeric {}
extension Int32: _QueryNumeric {}
extension Int64: _QueryNumeric {}
extension Float: _QueryNumeric {}
extension Double: _QueryNumeric {}
extension Decimal128: _QueryNumeric {}
extension Date: _QueryNumeric {}
extension Optional: _QueryNumeric where Wrapped: _QueryNumeric {}

/// Types with the byte-string operations of queries (`contains`, `starts(with:)`, `ends(with:)`, `equals` with
/// options, and ordering): String, Data, and their optionals.
public protocol _QueryBinary: _QueryOrdered {}
extension Data: _QueryBinary {}
extension Optional: _QueryBinary where Wrapped: _QueryBinary {}

/// Types that also take `like(_:caseInsensitive:)`: String and String?.
public protocol _QueryString: _QueryBinary {}
extension String: _QueryString {}
extension Optional: _QueryString where Wrapped: _QueryString {}

/// Optional, as the query builder sees it: lets `Query<Dog?>` reach the properties of `Dog` and lets range
/// queries use the wrapped type's order. (RealmSwift's `OptionalProtocol` in these constraints.)
public protocol _QueryOptional {
    associatedtype Wrapped
}
extension Optional: _QueryOptional {}

/// The to-many collections a query can look into element by element: List, MutableSet, LinkingObjects and
/// Results. (RealmSwift's `RealmCollection` in these constraints.)
public protocol _QueryCollection {
    associatedtype Element
}
extension List: _QueryCollection {}
extension MutableSet: _QueryCollection {}
extension LinkingObjects: _QueryCollection {}
extension Results: _QueryCollection {}

/// The keyed collections of queries: Map. (RealmSwift's `RealmKeyedCollection` in these constraints.)
public protocol _QueryKeyedCollection {
    associatedtype Key: _MapKey
    associatedtype Value
}
extension Map: _QueryKeyedCollection {}
