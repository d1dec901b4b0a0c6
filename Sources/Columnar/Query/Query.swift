// Query: the typed query builder, RealmSwift's `Query<T>` (`realm.objects(Person.self).where { $0.age > 3 }`).
//
// A `Query<T>` stands for a `T` reached from the object being tested: `Query<Person>` for the object itself,
// `$0.age` a `Query<Int>`, `$0.dogs` a `Query<List<Dog>>`. Properties are reached through dynamic member lookup
// with Swift key paths, which KeyPathNames.swift turns into property names; operators and methods, offered by
// constrained extensions (Query+Comparisons.swift, Query+Collections.swift) only where `T` supports them, build a
// `QueryNode` tree, and `Query<Bool>` is a finished condition. The collections turn it into the query AST through
// `Query._predicate(_:)`, and from there it goes the way of every query: type checking against the model,
// compilation, the VM.
//
// Everything here runs while the closure runs, before any data is read, so mistakes a type cannot express (a key
// path to a property that is not persisted, two to-many sides in one comparison) stop with a message naming the
// property, as RealmSwift's exceptions do.

import QueryVM

/// A typed query expression: the property, collection or condition a `where` closure builds.
///
/// Queries are not made directly; the collections pass one to the closure:
/// ```swift
/// let adults = realm.objects(Person.self).where {
///     $0.age >= 18 && $0.name.starts(with: "R", options: .caseInsensitive)
/// }
/// ```
@dynamicMemberLookup
public struct Query<T> {
    let node: QueryNode

    /// The query of the object being tested, or with `isPrimitive` of the element of a collection of values
    /// (`List<Int>`), which queries call `self`.
    init(isPrimitive: Bool = false) {
        node = .keyPath(isPrimitive ? .primitiveElement : QueryPath())
    }

    init(_ node: QueryNode) {
        self.node = node
    }

    /// A query of the object itself, for tests (RealmSwift's hook of the same name).
    public static func _constructForTesting() -> Query<T> {
        Query<T>()
    }

    // MARK: Internal entry points

    /// The query AST of a `where`-style closure: `build` gets the query of the object being tested (or, with
    /// `isPrimitive`, of the element of a collection of values, `self`) and returns the condition.
    ///
    /// A condition that is a plain Bool property (`where { $0.isActive }`) becomes `isActive == TRUE`, and its
    /// negation `isActive == FALSE` (see QueryNode.swift).
    static func _predicate(isPrimitive: Bool = false, _ build: (Query<T>) -> Query<Bool>) -> QueryPredicate {
        build(Query<T>(isPrimitive: isPrimitive)).predicate
    }

    // MARK: Property access

    /// A persisted property of the object: `$0.name`.
    public subscript<V>(dynamicMember member: KeyPath<T, V>) -> Query<V> where T: ObjectBase {
        Query<V>(.keyPath(path.appending(property: KeyPathNames.queryName(member), isCollection: false)))
    }

    /// A Map property: comparisons look at each value (`ANY`) unless a subscript or aggregate picks one.
    public subscript<V: _QueryKeyedCollection>(dynamicMember member: KeyPath<T, V>) -> Query<V>
        where T: ObjectBase {
        Query<V>(.keyPath(path.appending(property: KeyPathNames.queryName(member), isCollection: true)))
    }

    /// A to-many property (List, MutableSet, LinkingObjects): comparisons look at each element (`ANY`).
    public subscript<V: _QueryCollection>(dynamicMember member: KeyPath<T, V>) -> Query<V> where T: ObjectBase {
        Query<V>(.keyPath(path.appending(property: KeyPathNames.queryName(member), isCollection: true)))
    }

    /// The key path this query names (a programmer error when it is a condition).
    var path: QueryPath { node.path(for: "a property access") }

    // MARK: Equality

    public static func == (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .comparison(.equal, lhs.node, constant(rhs))
    }

    public static func == (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        .comparison(.equal, lhs.node, rhs.node)
    }

    public static func != (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .comparison(.notEqual, lhs.node, constant(rhs))
    }

    public static func != (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        .comparison(.notEqual, lhs.node, rhs.node)
    }

    // MARK: In

    /// Whether the value is one of the given values (`age IN {1, 2, 3}`).
    public func `in`<U: Sequence>(_ collection: U) -> Query<Bool> where U.Element == T {
        .comparison(.in, node, Self.constant(collection))
    }

    // MARK: Building blocks for the extensions

    static func constant(_ value: Any) -> QueryNode {
        .constant(QueryConstant.value(of: value))
    }
}

extension Query where T == Bool {
    /// A comparison node as a condition.
    static func comparison(_ op: ComparisonOperator, _ lhs: QueryNode, _ rhs: QueryNode,
                           options: ComparisonOptions = []) -> Query<Bool> {
        Query<Bool>(.comparison(op, lhs, rhs, options))
    }

    /// The finished condition as the query AST.
    var predicate: QueryPredicate { QueryLowering.predicate(node) }

    // MARK: Compound conditions

    public static prefix func ! (_ query: Query) -> Query<Bool> {
        Query<Bool>(.not(query.node))
    }

    public static func && (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        Query<Bool>(.and(lhs.node, rhs.node))
    }

    public static func || (_ lhs: Query, _ rhs: Query) -> Query<Bool> {
        Query<Bool>(.or(lhs.node, rhs.node))
    }

    // MARK: Subquery

    /// The number of elements of a collection for which this condition holds: `($0.dogs.age > 3).count > 1` is
    /// `SUBQUERY(dogs, $col1, $col1.age > 3).@count > 1`. The condition may only look into one collection.
    public var count: Query<Int> {
        Query<Int>(.subqueryCount(node))
    }
}

extension Query where T: _QueryOptional {
    /// A property of an optional link (`$0.owner.name`); a nil link has no value to match.
    public subscript<V>(dynamicMember member: KeyPath<T.Wrapped, V>) -> Query<V> where T.Wrapped: ObjectBase {
        Query<V>(.keyPath(path.appending(property: KeyPathNames.queryName(member), isCollection: false)))
    }

    public subscript<V: _QueryKeyedCollection>(dynamicMember member: KeyPath<T.Wrapped, V>) -> Query<V>
        where T.Wrapped: ObjectBase {
        Query<V>(.keyPath(path.appending(property: KeyPathNames.queryName(member), isCollection: true)))
    }

    public subscript<V: _QueryCollection>(dynamicMember member: KeyPath<T.Wrapped, V>) -> Query<V>
        where T.Wrapped: ObjectBase {
        Query<V>(.keyPath(path.appending(property: KeyPathNames.queryName(member), isCollection: true)))
    }
}
