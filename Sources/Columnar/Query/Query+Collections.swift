// Query+Collections: queries on to-many properties (List, MutableSet, LinkingObjects) and Maps.
//
// A comparison through a collection compares each element and holds when one does (`$0.tags == "a"` is
// `ANY tags == "a"`, `$0.dogs.age > 3` is `ANY dogs.age > 3`). `contains(_:)` asks whether the collection holds a
// value (`"a" IN tags`), `containsAny(in:)` whether it holds one of several (`ANY tags IN {"a", "b"}`).
// `count`, `min`, `max`, `sum` and `avg` make one value per object (`tags.@count`, `scores.@avg`), as does a map
// subscript (`prices["eur"]`); `keys` and `values` look at each key or value of a map (`ANY prices.@allKeys`).
// Range queries on a collection ask whether all its elements lie in the range (`@min >= lower AND @max < upper`),
// as RealmSwift's do.

import QueryVM

// MARK: Lists, sets, linking objects

extension Query where T: _QueryCollection {
    /// A property of the collection's objects (`$0.dogs.name`): comparisons look at each object's value.
    public subscript<V>(dynamicMember member: KeyPath<T.Element, V>) -> Query<V> where T.Element: ObjectBase {
        Query<V>(.keyPath(path.appending(property: KeyPathNames.queryName(member), isCollection: false)))
    }

    public subscript<V: _QueryKeyedCollection>(dynamicMember member: KeyPath<T.Element, V>) -> Query<V>
        where T.Element: ObjectBase {
        Query<V>(.keyPath(path.appending(property: KeyPathNames.queryName(member), isCollection: true)))
    }

    public subscript<V: _QueryCollection>(dynamicMember member: KeyPath<T.Element, V>) -> Query<V>
        where T.Element: ObjectBase {
        Query<V>(.keyPath(path.appending(property: KeyPathNames.queryName(member), isCollection: true)))
    }

    /// The number of elements (`tags.@count`).
    public var count: Query<Int> {
        Query<Int>(.keyPath(path.erasingAny.appending(.count, keepingAny: false)))
    }

    /// Whether the collection holds the value (`"a" IN tags`).
    public func contains(_ value: T.Element) -> Query<Bool> {
        .comparison(.in, Self.constant(value), .keyPath(path.erasingAny))
    }

    /// Whether the collection holds at least one of the values (`ANY tags IN {"a", "b"}`).
    public func containsAny<U: Sequence>(in collection: U) -> Query<Bool> where U.Element == T.Element {
        .comparison(.in, node, Self.constant(collection))
    }

    public static func == (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> {
        .comparison(.equal, lhs.node, constant(rhs))
    }

    public static func != (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> {
        .comparison(.notEqual, lhs.node, constant(rhs))
    }
}

extension Query where T: _QueryCollection, T.Element: Comparable {
    /// Whether every element lies in the half-open range (`@min >= lower AND @max < upper`).
    public func contains(_ range: Range<T.Element>) -> Query<Bool> {
        Self.allElements(path, in: range.lowerBound, range.upperBound, closed: false)
    }

    /// Whether every element lies in the closed range (`@min >= lower AND @max <= upper`).
    public func contains(_ range: ClosedRange<T.Element>) -> Query<Bool> {
        Self.allElements(path, in: range.lowerBound, range.upperBound, closed: true)
    }
}

extension Query where T: _QueryCollection, T.Element: _QueryOptional, T.Element.Wrapped: Comparable {
    /// Whether every element lies in the half-open range (`@min >= lower AND @max < upper`; nulls are skipped).
    public func contains(_ range: Range<T.Element.Wrapped>) -> Query<Bool> {
        Self.allElements(path, in: range.lowerBound, range.upperBound, closed: false)
    }

    /// Whether every element lies in the closed range (`@min >= lower AND @max <= upper`; nulls are skipped).
    public func contains(_ range: ClosedRange<T.Element.Wrapped>) -> Query<Bool> {
        Self.allElements(path, in: range.lowerBound, range.upperBound, closed: true)
    }
}

extension Query where T: _QueryCollection, T.Element: _QueryNumeric {
    public static func > (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> {
        .comparison(.greaterThan, lhs.node, constant(rhs))
    }

    public static func >= (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> {
        .comparison(.greaterThanOrEqual, lhs.node, constant(rhs))
    }

    public static func < (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> {
        .comparison(.lessThan, lhs.node, constant(rhs))
    }

    public static func <= (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> {
        .comparison(.lessThanOrEqual, lhs.node, constant(rhs))
    }

    /// The smallest element (`scores.@min`); null for an empty collection.
    public var min: Query<T.Element> {
        Query<T.Element>(.keyPath(path.appending(.min, keepingAny: false)))
    }

    /// The largest element (`scores.@max`); null for an empty collection.
    public var max: Query<T.Element> {
        Query<T.Element>(.keyPath(path.appending(.max, keepingAny: false)))
    }

    /// The mean of the elements (`scores.@avg`); null for an empty collection.
    public var avg: Query<T.Element> {
        Query<T.Element>(.keyPath(path.appending(.avg, keepingAny: false)))
    }

    /// The sum of the elements (`scores.@sum`); zero for an empty collection.
    public var sum: Query<T.Element> {
        Query<T.Element>(.keyPath(path.appending(.sum, keepingAny: false)))
    }
}

/// Collections of enums compare their elements by raw value (`$0.levels > .low` is `ANY levels > 1`).
extension Query where T: _QueryCollection, T.Element: PersistableEnum, T.Element.RawValue: Comparable {
    public static func > (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> {
        .comparison(.greaterThan, lhs.node, constant(rhs))
    }

    public static func >= (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> {
        .comparison(.greaterThanOrEqual, lhs.node, constant(rhs))
    }

    public static func < (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> {
        .comparison(.lessThan, lhs.node, constant(rhs))
    }

    public static func <= (_ lhs: Query<T>, _ rhs: T.Element) -> Query<Bool> {
        .comparison(.lessThanOrEqual, lhs.node, constant(rhs))
    }
}

extension Query where T: _QueryCollection, T.Element: PersistableEnum, T.Element.RawValue: RealmCollectionValue {
    /// The raw values of the enums in the collection. (RealmSwift returns an `AnyRealmCollection`; the collection
    /// type only selects the operations offered, which are the same for every collection.)
    public var rawValue: Query<List<T.Element.RawValue>> {
        Query<List<T.Element.RawValue>>(node)
    }
}

extension Query where T: _QueryCollection, T.Element: _QueryOptional, T.Element.Wrapped: PersistableEnum,
    T.Element.Wrapped.RawValue: RealmCollectionValue {
    /// The raw values of the optional enums in the collection.
    public var rawValue: Query<List<T.Element.Wrapped.RawValue?>> {
        Query<List<T.Element.Wrapped.RawValue?>>(node)
    }
}

// MARK: Maps

extension Query where T: _QueryKeyedCollection {
    /// The number of entries (`map.@count`).
    public var count: Query<Int> {
        Query<Int>(.keyPath(path.erasingAny.appending(.count, keepingAny: false)))
    }

    /// Whether the map holds the value under some key (`"a" IN map`).
    public func contains(_ value: T.Value) -> Query<Bool> {
        .comparison(.in, Self.constant(value), .keyPath(path.erasingAny))
    }

    /// Whether the map holds at least one of the values (`ANY map IN {"a", "b"}`).
    public func containsAny<U: Sequence>(in collection: U) -> Query<Bool> where U.Element == T.Value {
        .comparison(.in, node, Self.constant(collection))
    }

    /// Each value of the map (`ANY map.@allValues`).
    public var values: Query<T.Value> {
        Query<T.Value>(.keyPath(path.appending(.allValues, keepingAny: true)))
    }

    /// The value for a key (`map["key"]`); null when the map has no such key.
    public subscript(member: T.Key) -> Query<T.Value> {
        let key = (member as? String) ?? String(describing: member)
        return Query<T.Value>(.keyPath(path.appending(mapKey: key)))
    }
}

extension Query where T: _QueryKeyedCollection, T.Key == String {
    /// Each key of the map (`ANY map.@allKeys`).
    public var keys: Query<String> {
        Query<String>(.keyPath(path.appending(.allKeys, keepingAny: true)))
    }
}

extension Query where T: _QueryKeyedCollection, T.Value: Comparable {
    /// Whether every value lies in the half-open range (`@min >= lower AND @max < upper`).
    public func contains(_ range: Range<T.Value>) -> Query<Bool> {
        Self.allElements(path, in: range.lowerBound, range.upperBound, closed: false)
    }

    /// Whether every value lies in the closed range (`@min >= lower AND @max <= upper`).
    public func contains(_ range: ClosedRange<T.Value>) -> Query<Bool> {
        Self.allElements(path, in: range.lowerBound, range.upperBound, closed: true)
    }
}

extension Query where T: _QueryKeyedCollection, T.Value: _QueryOptional, T.Value.Wrapped: Comparable {
    /// Whether every value lies in the half-open range (`@min >= lower AND @max < upper`; nulls are skipped).
    public func contains(_ range: Range<T.Value.Wrapped>) -> Query<Bool> {
        Self.allElements(path, in: range.lowerBound, range.upperBound, closed: false)
    }

    /// Whether every value lies in the closed range (`@min >= lower AND @max <= upper`; nulls are skipped).
    public func contains(_ range: ClosedRange<T.Value.Wrapped>) -> Query<Bool> {
        Self.allElements(path, in: range.lowerBound, range.upperBound, closed: true)
    }
}

extension Query where T: _QueryKeyedCollection, T.Value: _QueryNumeric {
    /// The smallest value (`map.@min`); null for an empty map.
    public var min: Query<T.Value> {
        Query<T.Value>(.keyPath(path.appending(.min, keepingAny: false)))
    }

    /// The largest value (`map.@max`); null for an empty map.
    public var max: Query<T.Value> {
        Query<T.Value>(.keyPath(path.appending(.max, keepingAny: false)))
    }

    /// The mean of the values (`map.@avg`); null for an empty map.
    public var avg: Query<T.Value> {
        Query<T.Value>(.keyPath(path.appending(.avg, keepingAny: false)))
    }

    /// The sum of the values (`map.@sum`); zero for an empty map.
    public var sum: Query<T.Value> {
        Query<T.Value>(.keyPath(path.appending(.sum, keepingAny: false)))
    }
}

extension Query where T: _QueryKeyedCollection, T.Value: PersistableEnum, T.Value.RawValue: RealmCollectionValue {
    /// The raw values of the enums in the map.
    public var rawValue: Query<Map<T.Key, T.Value.RawValue>> {
        Query<Map<T.Key, T.Value.RawValue>>(node)
    }
}

extension Query where T: _QueryKeyedCollection, T.Value: _QueryOptional, T.Value.Wrapped: PersistableEnum,
    T.Value.Wrapped.RawValue: RealmCollectionValue {
    /// The raw values of the optional enums in the map.
    public var rawValue: Query<Map<T.Key, T.Value.Wrapped.RawValue?>> {
        Query<Map<T.Key, T.Value.Wrapped.RawValue?>>(node)
    }
}

// MARK: Shared

extension Query {
    /// Whether every element of the collection at `path` lies between the bounds: its minimum is at least
    /// `lower` and its maximum below (or, closed, at most) `upper`.
    static func allElements(_ path: QueryPath, in lower: Any, _ upper: Any, closed: Bool) -> Query<Bool> {
        let minimum = QueryNode.keyPath(path.appending(.min, keepingAny: false))
        let maximum = QueryNode.keyPath(path.appending(.max, keepingAny: false))
        return Query<Bool>(.and(.comparison(.greaterThanOrEqual, minimum, constant(lower), []),
                                .comparison(closed ? .lessThanOrEqual : .lessThan, maximum, constant(upper), [])))
    }
}

// MARK: Collections nested in mixed values

extension Query where T == AnyRealmValue {
    /// The element at a position of the list nested in the mixed value (`value[0]`); null when the value is not a
    /// list or has no such position.
    public subscript(position: Int) -> Query<AnyRealmValue> {
        precondition(position >= 0, "Columnar: a position in a nested list is not negative (\(position))")
        return Query<AnyRealmValue>(.keyPath(path.appending(nested: .indexSubscript(position))))
    }

    /// The value of a key of the dictionary nested in the mixed value (`value["key"]`); null when the value is not
    /// a dictionary or has no such key.
    public subscript(key: String) -> Query<AnyRealmValue> {
        Query<AnyRealmValue>(.keyPath(path.appending(nested: .mapSubscript(key))))
    }

    /// Every element of the list, or every value of the dictionary, nested in the mixed value (`value[*]`):
    /// a comparison holds when it holds for any of them.
    public var any: Query<AnyRealmValue> {
        Query<AnyRealmValue>(.keyPath(path.appending(nested: .allSubscript)))
    }
}
