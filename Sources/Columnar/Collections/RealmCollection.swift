// RealmCollection: the protocol List, MutableSet, Results and LinkingObjects share, so that code generic over
// "a collection of Realm values" (`func show<C: RealmCollection>(_ dogs: C) where C.Element == Dog`) compiles as it
// does with RealmSwift. Its requirements are the members every one of those types has, freezing included; `observe`
// is not a requirement here. AnyRealmCollection (AnyRealmCollection.swift) wraps any of them.

import Foundation

/// A random-access collection of Realm values (RealmSwift's `RealmCollectionBase`).
public protocol RealmCollectionBase: RandomAccessCollection, CustomStringConvertible
    where Element: RealmCollectionValue {
    /// The type of the collection's elements.
    typealias ElementType = Element
}

/// A collection of objects or values that can be read, queried, sorted and aggregated: `List`, `MutableSet`,
/// `Results` and `LinkingObjects`.
public protocol RealmCollection: RealmCollectionBase, Equatable where Index == Int, Iterator == RLMIterator<Element> {
    /// The Realm managing the collection, or nil when it is unmanaged.
    var realm: Realm? { get }
    /// Whether the collection can no longer be used (its Realm was invalidated or its owner deleted).
    var isInvalidated: Bool { get }
    /// Whether the collection belongs to a frozen Realm.
    var isFrozen: Bool { get }
    /// The collection in a frozen snapshot of its Realm's current version.
    func freeze() -> Self
    /// The live collection in the calling thread's Realm, or nil when its owner was deleted there.
    func thaw() -> Self?
    var count: Int { get }
    var description: String { get }
    var first: Element? { get }
    var last: Element? { get }

    /// The position of `object`, or nil.
    func index(of object: Element) -> Int?
    /// The position of the first element that satisfies a predicate-format string, or nil.
    func index(matching predicateFormat: String, _ args: Any...) -> Int?
    /// The position of the first element that satisfies a typed query, or nil.
    func index(matching isIncluded: ((Query<Element>) -> Query<Bool>)) -> Int?
    /// The elements at the given positions, in ascending order of position; a position out of range stops with a
    /// message. (List and MutableSet also have the RLMArray reference's form, which returns nil instead; see below.)
    func objects(at indexes: IndexSet) -> [Element]

    /// The elements that satisfy a predicate-format string.
    func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element>
    /// The elements that satisfy an NSPredicate (`NSPredicate(format:)`, `NSCompoundPredicate`).
    func filter(_ predicate: NSPredicate) -> Results<Element>
    /// The position of the first element that satisfies an NSPredicate, or nil.
    func index(matching predicate: NSPredicate) -> Int?
    /// The elements that satisfy a typed query.
    func `where`(_ isIncluded: ((Query<Element>) -> Query<Bool>)) -> Results<Element>
    /// The elements sorted by a property.
    func sorted(byKeyPath keyPath: String, ascending: Bool) -> Results<Element>
    /// The elements sorted by several properties.
    func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor
    /// The first element of each distinct combination of the given properties' values.
    func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String

    func min<T: MinMaxType>(ofProperty property: String) -> T?
    func max<T: MinMaxType>(ofProperty property: String) -> T?
    func sum<T: AddableType>(ofProperty property: String) -> T
    func average<T: AddableType>(ofProperty property: String) -> T?

    /// Each element's value of a property.
    func value(forKey key: String) -> Any?
    /// Each element's value at a key path.
    func value(forKeyPath keyPath: String) -> Any?
    /// Sets a property of every element.
    func setValue(_ value: Any?, forKey key: String)
}

extension List: RealmCollection {
    /// Whether both are the same list: the same unmanaged instance, the same object's list property, or the same
    /// nested list of a stored AnyRealmValue.
    public static func == (lhs: List<Element>, rhs: List<Element>) -> Bool {
        lhs === rhs || CollectionColumn.same(lhs.managed, rhs.managed) || NestedMixedSlot.same(lhs.nested, rhs.nested)
    }
}

extension MutableSet: RealmCollection {
    /// Whether both are the same set: the same unmanaged instance, or the same object's set property.
    public static func == (lhs: MutableSet<Element>, rhs: MutableSet<Element>) -> Bool {
        lhs === rhs || CollectionColumn.same(lhs.managed, rhs.managed)
    }

    /// The position of an element equal to `object` in the set's iteration order, or nil. (Declared here so that
    /// the protocol's requirement is not met by the standard library's deprecated `Collection.index(of:)`.)
    public func index(of object: Element) -> Int? {
        ElementPosition.first(of: object, in: self)
    }
}

extension RealmCollection {
    /// RealmSwift's protocol form of `objects(at:)`, for List and MutableSet. Their own `objects(at:)` returns nil
    /// when a position is out of range, as the RLMArray reference documents; being declared on the classes, it is
    /// the one an unannotated call picks. This form is chosen where the context asks for `[Element]` (a typed
    /// constant, code generic over RealmCollection), as RealmSwift's collections answer.
    public func objects(at indexes: IndexSet) -> [Element] { elements(at: indexes) }
}

extension Results: RealmCollection {}
extension LinkingObjects: RealmCollection {}

extension CollectionColumn {
    /// Whether two managed collections are views of the same column of the same object in the same file.
    static func same(_ lhs: CollectionColumn?, _ rhs: CollectionColumn?) -> Bool {
        guard let lhs, let rhs else { return false }
        return lhs.key == rhs.key && lhs.table == rhs.table && lhs.column == rhs.column
            && lhs.core.file === rhs.core.file
    }
}
