// RealmCollection+Query: filtering, sorting, distinct and aggregates on List, MutableSet and LinkingObjects, of
// objects or (List, MutableSet) of values. Each builds Results over the collection's current elements (in the
// collection's order) and hands the call to Results, so every collection answers queries exactly as Results do.
// A collection of values is queried through the key path `self` (ValueCollection+Query.swift adds `min()`,
// `sorted(ascending:)` and the other value-only forms). The RLMArray-style names (`objects(where:)`,
// `sortedResults(usingKeyPath:ascending:)`, `distinctResults(usingKeyPaths:)`) map onto the same calls.
//
// Only managed collections can be filtered, sorted and deduplicated: an unmanaged collection's elements are not in
// a Realm, which is where queries run, so those calls stop with a message saying so (RealmSwift refuses them as
// well). Aggregates of an unmanaged collection are computed in memory with the same rules, as RealmSwift does
// (UnmanagedAggregate.swift).

import CColumnar
import Foundation
import QueryVM

/// A collection that can be queried: List and MutableSet (of objects or values) and LinkingObjects. (Public only so
/// that the query methods it provides are; the requirements are an implementation detail.)
public protocol QueryableObjectCollection {
    associatedtype Element: RealmCollectionValue
    /// The Results over the collection's elements; stops for an unmanaged collection.
    func _elementResults(_ method: String) -> Results<Element>
    /// The elements of an unmanaged collection (which aggregates read in memory); nil for a managed one.
    var _unmanagedElements: [Element]? { get }
}

extension QueryableObjectCollection {
    static func makeResults<Object>(_ type: Object.Type, core: RealmCore, source: ResultsSource) -> Results<Element> {
        guard let objectType = Object.self as? ObjectBase.Type else {
            fatalError("Columnar: only collections of objects can be queried; \(Object.self) is not an object type")
        }
        if case .collection(let column) = source {
            return Results(core: core, binding: column.objectBinding(for: objectType), source: source)
        }
        return Results(core: core, binding: core.requireBinding(for: objectType), source: source)
    }

    static func unmanaged(_ method: String) -> Never {
        fatalError("Columnar: \(method) may only be called on a managed collection (one that belongs to an object "
                   + "in a Realm)")
    }
}

extension List: QueryableObjectCollection {
    public func _elementResults(_ method: String) -> Results<Element> {
        requireNotNested(method)
        guard let managed else { Self.unmanaged(method) }
        return Self.collectionResults(managed)
    }

    public var _unmanagedElements: [Element]? { managed == nil ? Array(self) : nil }
}

extension MutableSet: QueryableObjectCollection {
    public func _elementResults(_ method: String) -> Results<Element> {
        guard let managed else { Self.unmanaged(method) }
        return Self.collectionResults(managed)
    }

    public var _unmanagedElements: [Element]? { managed == nil ? Array(self) : nil }
}

extension LinkingObjects: QueryableObjectCollection {
    public func _elementResults(_ method: String) -> Results<Element> {
        guard let (core, source) = resultsSource else { Self.unmanaged(method) }
        return Self.makeResults(Element.self, core: core, source: source)
    }

    /// An unmanaged object's linking objects are empty.
    public var _unmanagedElements: [Element]? { resultsSource == nil ? [] : nil }
}

extension QueryableObjectCollection {
    /// The elements that satisfy a predicate-format string.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        do { return try _elementResults("filter").filtered(predicateFormat, args) } catch {
            fatalError("Columnar: \(error)")
        }
    }

    /// Like `filter(_:_:)`, but a malformed or ill-typed query throws a `ColumnarError`.
    public func filter(checking predicateFormat: String, _ args: Any...) throws -> Results<Element> {
        try _elementResults("filter").filtered(predicateFormat, args)
    }

    /// The position of the first element that satisfies a predicate-format string, or nil. On an unmanaged
    /// collection each object is tried in a Realm of its own in memory (UnmanagedIndexMatching.swift).
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        if let elements = _unmanagedElements {
            do {
                return try UnmanagedIndexMatching.firstIndex(of: elements, method: "index(matching:)") {
                    try $0.filtered(predicateFormat, args)
                }
            } catch { fatalError("Columnar: \(error)") }
        }
        let all = _elementResults("index(matching:)")
        do { return all.firstPosition(in: try all.filtered(predicateFormat, args)) } catch {
            fatalError("Columnar: \(error)")
        }
    }

    /// The elements that satisfy an NSPredicate made with `NSPredicate(format:)`, `NSCompoundPredicate` or
    /// `NSPredicate(value:)`.
    public func filter(_ predicate: NSPredicate) -> Results<Element> {
        do { return try _elementResults("filter").filtered(predicate) } catch { fatalError("Columnar: \(error)") }
    }

    /// Like `filter(_:)` with an NSPredicate, but a malformed or ill-typed predicate throws a `ColumnarError`.
    public func filter(checking predicate: NSPredicate) throws -> Results<Element> {
        try _elementResults("filter").filtered(predicate)
    }

    /// The position of the first element that satisfies an NSPredicate, or nil (on an unmanaged collection too).
    public func index(matching predicate: NSPredicate) -> Int? {
        if let elements = _unmanagedElements {
            do {
                return try UnmanagedIndexMatching.firstIndex(of: elements, method: "index(matching:)") {
                    try $0.filtered(predicate)
                }
            } catch { fatalError("Columnar: \(error)") }
        }
        let all = _elementResults("index(matching:)")
        do { return all.firstPosition(in: try all.filtered(predicate)) } catch { fatalError("Columnar: \(error)") }
    }

    /// The elements that satisfy a typed query (`where { $0.price > 5 }`).
    public func `where`(_ isIncluded: ((Query<Element>) -> Query<Bool>)) -> Results<Element> {
        _elementResults("where").where(isIncluded)
    }

    /// The position of the first element that satisfies a typed query, or nil (on an unmanaged collection too).
    public func index(matching isIncluded: ((Query<Element>) -> Query<Bool>)) -> Int? {
        if let elements = _unmanagedElements {
            return UnmanagedIndexMatching.firstIndex(of: elements, method: "index(matching:)") { $0.where(isIncluded) }
        }
        let all = _elementResults("index(matching:)")
        return all.firstPosition(in: all.where(isIncluded))
    }

    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        _elementResults("sorted").sorted(byKeyPath: keyPath, ascending: ascending)
    }

    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        _elementResults("sorted").sorted(by: sortDescriptors)
    }

    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        _elementResults("distinct").distinct(by: keyPaths)
    }

    public func min<T: MinMaxType>(ofProperty property: String) -> T? {
        if let elements = _unmanagedElements { return UnmanagedAggregate(elements, property, .minMax).minimum() }
        return _elementResults("min(ofProperty:)").min(ofProperty: property)
    }

    public func max<T: MinMaxType>(ofProperty property: String) -> T? {
        if let elements = _unmanagedElements { return UnmanagedAggregate(elements, property, .minMax).maximum() }
        return _elementResults("max(ofProperty:)").max(ofProperty: property)
    }

    public func sum<T: AddableType>(ofProperty property: String) -> T {
        if let elements = _unmanagedElements { return UnmanagedAggregate(elements, property, .sumAverage).sum() }
        return _elementResults("sum(ofProperty:)").sum(ofProperty: property)
    }

    public func average<T: AddableType>(ofProperty property: String) -> T? {
        if let elements = _unmanagedElements { return UnmanagedAggregate(elements, property, .sumAverage).average() }
        return _elementResults("average(ofProperty:)").average(ofProperty: property)
    }

    // MARK: RLMArray names

    /// RLMArray's `objectsWhere:`: the elements that satisfy a predicate-format string.
    public func objects(where predicateFormat: String, _ args: Any...) -> Results<Element> {
        do { return try _elementResults("objects(where:)").filtered(predicateFormat, args) } catch {
            fatalError("Columnar: \(error)")
        }
    }

    /// RLMArray's `objectsWithPredicate:`: the elements that satisfy an NSPredicate.
    public func objects(with predicate: NSPredicate) -> Results<Element> { filter(predicate) }

    /// RLMArray's `indexOfObjectWithPredicate:`: the position of the first element that satisfies an NSPredicate,
    /// or `NSNotFound` (as a UInt) when none does.
    public func indexOfObject(with predicate: NSPredicate) -> UInt {
        UInt(index(matching: predicate) ?? NSNotFound)
    }

    /// RLMArray's `sortedResultsUsingKeyPath:ascending:`.
    public func sortedResults(usingKeyPath keyPath: String, ascending: Bool) -> Results<Element> {
        sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// RLMArray's `sortedResultsUsingDescriptors:`.
    public func sortedResults(using sortDescriptors: [SortDescriptor]) -> Results<Element> {
        sorted(by: sortDescriptors)
    }

    /// RLMArray's `distinctResultsUsingKeyPaths:`.
    public func distinctResults(usingKeyPaths keyPaths: [String]) -> Results<Element> {
        distinct(by: keyPaths)
    }
}

extension Results {
    /// RLMResults' `objectsWhere:`.
    public func objects(where predicateFormat: String, _ args: Any...) -> Results<Element> {
        do { return try filtered(predicateFormat, args) } catch { fatalError("Columnar: \(error)") }
    }

    /// RLMResults' `objectsWithPredicate:`.
    public func objects(with predicate: NSPredicate) -> Results<Element> { filter(predicate) }

    /// RLMResults' `indexOfObjectWithPredicate:`: the position, or `NSNotFound` (as a UInt) when none matches.
    public func indexOfObject(with predicate: NSPredicate) -> UInt {
        UInt(index(matching: predicate) ?? NSNotFound)
    }

    /// RLMResults' `sortedResultsUsingKeyPath:ascending:`.
    public func sortedResults(usingKeyPath keyPath: String, ascending: Bool) -> Results<Element> {
        sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// RLMResults' `distinctResultsUsingKeyPaths:`.
    public func distinctResults(usingKeyPaths keyPaths: [String]) -> Results<Element> {
        distinct(by: keyPaths)
    }
}
