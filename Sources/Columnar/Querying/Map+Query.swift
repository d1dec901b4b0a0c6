// Map+Query: filtering, sorting and aggregates over the values of a Map, as RealmSwift's Map offers them. Every
// call works on the values (never the keys) and returns `Results<Value>`: for a map of objects (`Map<String,
// Dog?>`) the objects its keys hold, for a map of values the values, queried through `self`.
//
// A map's values are read in the map's key order, so unsorted results follow it. A key that holds nil in a map of
// objects holds no object: its entry is not among the results and is skipped by aggregates, as the objects of a
// query are rows of the linked class. Filtering and sorting need a managed map (an unmanaged map's values are not
// in a Realm) and stop otherwise; aggregates of an unmanaged map are computed in memory with the same rules.

import CColumnar
import Foundation
import QueryVM

extension Map {
    /// The Results over the map's values; stops for an unmanaged map.
    private func valueResults(_ method: String) -> Results<Value> {
        guard let managed else {
            fatalError("Columnar: \(method) may only be called on a managed Map (one that belongs to an object in a "
                       + "Realm)")
        }
        if Self.holdsObjects {
            return Results(core: managed.core, binding: managed.objectBinding(for: Results<Value>.objectType),
                           source: .collection(managed))
        }
        return Results(core: managed.core, binding: nil, source: .values(managed))
    }

    /// Whether the values are objects (`Map<String, Dog?>`).
    private static var holdsObjects: Bool {
        CollectionColumn.persistableType(of: Value.self, in: .map)._storage.type == COLUMNAR_TYPE_LINK
    }

    /// The values of an unmanaged map, which aggregates read in memory; nil for a managed map.
    private var unmanagedValues: [Value]? { managed == nil ? values : nil }

    // MARK: Filtering

    /// The values that satisfy a predicate-format string: properties of the objects for a map of objects
    /// (`filter("age > %@", 3)`), `self` for a map of values (`filter("self > %@", 3)`).
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Value> {
        do { return try valueResults("filter").filtered(predicateFormat, args) } catch {
            fatalError("Columnar: \(error)")
        }
    }

    /// Like `filter(_:_:)`, but a malformed or ill-typed query throws a `ColumnarError` (code `.misuse`).
    public func filter(checking predicateFormat: String, _ args: Any...) throws -> Results<Value> {
        try valueResults("filter").filtered(predicateFormat, args)
    }

    /// The values that satisfy an NSPredicate made with `NSPredicate(format:)`, `NSCompoundPredicate` or
    /// `NSPredicate(value:)`.
    public func filter(_ predicate: NSPredicate) -> Results<Value> {
        do { return try valueResults("filter").filtered(predicate) } catch { fatalError("Columnar: \(error)") }
    }

    /// Like `filter(_:)` with an NSPredicate, but a malformed or ill-typed predicate throws a `ColumnarError`.
    public func filter(checking predicate: NSPredicate) throws -> Results<Value> {
        try valueResults("filter").filtered(predicate)
    }

    /// The values that satisfy a typed query (`where { $0.age > 3 }`, or `where { $0 > 3 }` for values).
    public func `where`(_ isIncluded: ((Query<Value>) -> Query<Bool>)) -> Results<Value> {
        valueResults("where").where(isIncluded)
    }

    // MARK: Sorting

    /// The values sorted by a property of the objects (or `self` for values); stable, in key order among ties.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Value> {
        valueResults("sorted").sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The values sorted by several keys, the first deciding first.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Value> where S.Element == SortDescriptor {
        valueResults("sorted").sorted(by: sortDescriptors)
    }

    // MARK: Aggregates

    /// The smallest value of a property of the objects (`self` for values), or nil when there is none.
    public func min<T: MinMaxType>(ofProperty property: String) -> T? {
        if let values = unmanagedValues { return UnmanagedAggregate(values, property, .minMax).minimum() }
        return valueResults("min(ofProperty:)").min(ofProperty: property)
    }

    /// The largest value of a property of the objects (`self` for values), or nil when there is none.
    public func max<T: MinMaxType>(ofProperty property: String) -> T? {
        if let values = unmanagedValues { return UnmanagedAggregate(values, property, .minMax).maximum() }
        return valueResults("max(ofProperty:)").max(ofProperty: property)
    }

    /// The sum of a numeric property of the objects (`self` for values); zero when there are no values.
    public func sum<T: AddableType>(ofProperty property: String) -> T {
        if let values = unmanagedValues { return UnmanagedAggregate(values, property, .sumAverage).sum() }
        return valueResults("sum(ofProperty:)").sum(ofProperty: property)
    }

    /// The mean of a numeric property of the objects (`self` for values), or nil when there are no values.
    public func average<T: AddableType>(ofProperty property: String) -> T? {
        if let values = unmanagedValues { return UnmanagedAggregate(values, property, .sumAverage).average() }
        return valueResults("average(ofProperty:)").average(ofProperty: property)
    }
}

// MARK: Maps of values

extension Map where Value: MinMaxType {
    /// The smallest value, or nil when there is none (nulls and NaN are skipped).
    public func min() -> Value? { min(ofProperty: "self") }

    /// The largest value, or nil when there is none (nulls and NaN are skipped).
    public func max() -> Value? { max(ofProperty: "self") }
}

extension Map where Value: AddableType {
    /// The sum of the values (nulls skipped); zero for none.
    public func sum() -> Value { sum(ofProperty: "self") }

    /// The mean of the values (nulls skipped), or nil when there is none.
    public func average<T: AddableType>() -> T? { average(ofProperty: "self") }
}

extension Map where Value: SortableType {
    /// The values sorted by value: ascending puts nulls first, then NaN, then values; ties keep key order.
    public func sorted(ascending: Bool = true) -> Results<Value> {
        sorted(byKeyPath: "self", ascending: ascending)
    }
}

// MARK: Maps of objects

extension Map where Value: _QueryOptional, Value.Wrapped: ObjectBase {
    /// The objects sorted by the property a key path names (optional properties too: nulls sort first).
    public func sorted<T: SortableType>(by keyPath: KeyPath<Value.Wrapped, T>, ascending: Bool = true)
        -> Results<Value> {
        sorted(byKeyPath: _name(for: keyPath), ascending: ascending)
    }

    public func min<T: MinMaxType>(of keyPath: KeyPath<Value.Wrapped, T>) -> T? { min(ofProperty: _name(for: keyPath)) }
    public func max<T: MinMaxType>(of keyPath: KeyPath<Value.Wrapped, T>) -> T? { max(ofProperty: _name(for: keyPath)) }
    public func sum<T: AddableType>(of keyPath: KeyPath<Value.Wrapped, T>) -> T { sum(ofProperty: _name(for: keyPath)) }
    public func average<T: AddableType>(of keyPath: KeyPath<Value.Wrapped, T>) -> T? {
        average(ofProperty: _name(for: keyPath))
    }
}
