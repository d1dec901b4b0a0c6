// MutableSet: the unordered, unique-valued to-many property type (`@Persisted var tags: MutableSet<String>`),
// RealmSwift's MutableSet / RLMSet.
//
// An unmanaged set keeps its elements in insertion order. A managed set is a live view of one object's set column
// (COLUMNAR_COLLECTION_SET): the engine keeps the elements sorted in its value order, so positions (`self[i]`,
// `first`, `last`) follow that order. Mutation of a managed set needs a write transaction.

import CColumnar
import Foundation

public final class MutableSet<Element: RealmCollectionValue>: CustomStringConvertible {
    /// The elements of an unmanaged set, unique, in insertion order.
    private var unmanaged: [Element] = []
    /// Where a managed set lives; nil for an unmanaged set.
    let managed: CollectionColumn?

    /// An empty, unmanaged set.
    public init() {
        managed = nil
    }

    init(location: ObjectLocation, column: columnar_col_id) {
        managed = CollectionColumn(location: location, column: column, kind: .set)
    }

    private static var elementType: any _Persistable.Type {
        CollectionColumn.persistableType(of: Element.self, in: .set)
    }

    // MARK: Properties

    /// The Realm managing the set, or nil when unmanaged.
    public var realm: Realm? { managed?.realm }

    /// Whether the set can no longer be used (its object was deleted or its Realm invalidated).
    public var isInvalidated: Bool { managed?.isInvalidated ?? false }

    /// The class name of the elements when they are objects, else nil.
    public var objectClassName: String? {
        if let managed, CollectionColumn.holdsDynamicObjects(Element.self) {
            return managed.dynamicTargetBinding.schema.className
        }
        return (Element.self as? ObjectBase.Type).map { $0.storedClassName }
    }

    /// The number of elements (`columnar_coll_size`).
    public var count: Int { managed?.size ?? unmanaged.count }

    public var isEmpty: Bool { count == 0 }
    public var first: Element? { isEmpty ? nil : self[0] }
    public var last: Element? {
        let size = count
        return size == 0 ? nil : self[size - 1]
    }

    // MARK: Reading

    /// The element at a position: in the engine's value order for a managed set, insertion order when unmanaged
    /// (`columnar_coll_get`).
    public subscript(position: Int) -> Element {
        let size = count
        precondition(position >= 0 && position < size,
                     "Index \(position) is out of bounds (must be less than \(size)).")
        guard let managed else { return unmanaged[position] }
        return managed.element(at: position, as: Self.elementType) as! Element
    }

    /// The elements at the given positions, in ascending order of position, or nil when any position is out of
    /// range (as List's, from the RLMArray reference).
    public func objects(at indexes: IndexSet) -> [Element]? {
        if let last = indexes.last, last >= count || indexes.first! < 0 { return nil }
        return indexes.map { self[$0] }
    }

    /// Each element's value of a property without repeats (nil as `NSNull`), as RealmSwift's set answers it: the
    /// values of a set form a set (an `NSSet` there), given here in order of first appearance.
    public func value(forKey key: String) -> [AnyObject] { value(forKeyPath: key) }

    /// Each element's value at a key path through to-one links (`owner.name`, `self`), without repeats.
    public func value(forKeyPath keyPath: String) -> [AnyObject] {
        let values = CollectionKeyValueCoding.values(of: self, keyPath: keyPath).map { $0 ?? NSNull() }
        return CollectionKeyValueCoding.distinct(values).map { $0 as AnyObject }
    }

    /// Whether the set holds `object` (`columnar_coll_contains`). An object that is not managed by the set's Realm
    /// is never an element of a managed set.
    public func contains(_ object: Element) -> Bool {
        guard let managed else { return unmanaged.contains(object) }
        guard isStorable(object, in: managed) else { return false }
        var found = false
        let rc = withLookupValue(object, managed) { value in
            columnar_coll_contains(managed.transaction(), managed.table, managed.key, managed.column, &value, &found)
        }
        managed.check(rc)
        return found
    }

    /// Whether the two sets have at least one element in common.
    public func intersects(_ other: MutableSet<Element>) -> Bool {
        let (smaller, larger) = count <= other.count ? (self, other) : (other, self)
        return smaller.contains { larger.contains($0) }
    }

    /// Whether every element of this set is in `possibleSuperset`.
    public func isSubset(of possibleSuperset: MutableSet<Element>) -> Bool {
        allSatisfy { possibleSuperset.contains($0) }
    }

    // MARK: Mutation

    /// Inserts an element unless the set holds it already (`columnar_set_insert`). An unmanaged object inserted
    /// into a managed set is added to the set's Realm.
    public func insert(_ object: Element) {
        if Element.self == AnyRealmValue.self { AnyRealmValue.requireNotCollection(object) }
        guard let managed else {
            if !unmanaged.contains(object) { unmanaged.append(object) }
            return
        }
        managed.mutate { txn in
            try managed.withEngineValue(object) { value in
                columnar_set_insert(txn, managed.table, managed.key, managed.column, &value, nil)
            }
        }
    }

    /// Inserts every element of a sequence.
    public func insert<S: Sequence>(objectsIn objects: S) where S.Element == Element {
        for object in objects { insert(object) }
    }

    /// Removes an element if the set holds it (`columnar_set_remove`).
    public func remove(_ object: Element) {
        guard let managed else {
            unmanaged.removeAll { $0 == object }
            return
        }
        managed.core.requireWriteTransaction()
        guard isStorable(object, in: managed) else { return }
        managed.mutate { txn in
            try managed.withEngineValue(object) { value in
                columnar_set_remove(txn, managed.table, managed.key, managed.column, &value, nil)
            }
        }
    }

    /// Removes every element (objects stay in the Realm) (`columnar_coll_clear`).
    public func removeAll() {
        guard let managed else {
            unmanaged.removeAll()
            return
        }
        managed.mutate { txn in columnar_coll_clear(txn, managed.table, managed.key, managed.column) }
    }

    /// Inserts every element of `other`.
    public func formUnion(_ other: MutableSet<Element>) {
        managed?.core.requireWriteTransaction()
        insert(objectsIn: Array(other))
    }

    /// Keeps only the elements that are also in `other`.
    public func formIntersection(_ other: MutableSet<Element>) {
        managed?.core.requireWriteTransaction()
        // Decide first: `other` may be this very set, or a live view of the same column.
        let leaving = filter { !other.contains($0) }
        for element in leaving { remove(element) }
    }

    /// Removes every element that is in `other`.
    public func subtract(_ other: MutableSet<Element>) {
        managed?.core.requireWriteTransaction()
        for element in Array(other) { remove(element) }
    }

    public var description: String {
        let items = enumerated().map { "\t[\($0.offset)] " + ObjectBase.describe($0.element) }
        return "MutableSet<\(Element.self)> <\(count) elements> (\n" + items.joined(separator: ",\n") + "\n)"
    }

    // MARK: Engine access

    /// Whether `object` can be an element of the managed set: objects must be managed by the set's Realm (an
    /// unmanaged one would be added by converting it, which a lookup must not do).
    private func isStorable(_ object: Element, in managed: CollectionColumn) -> Bool {
        guard let object = object as? ObjectBase else { return true }
        guard let objectLocation = object._location else { return false }
        return objectLocation.core.file === managed.core.file && objectLocation.core.objectExists(objectLocation)
    }

    /// For lookups: the element is a plain value or an object of this Realm, so conversion cannot fail.
    private func withLookupValue(_ element: Element, _ managed: CollectionColumn,
                                 _ body: (inout columnar_value) -> Int32) -> Int32 {
        do {
            return try managed.withEngineValue(element, body)
        } catch {
            fatalError("Columnar: cannot look up \(element) in a set: \(error)")
        }
    }
}

extension MutableSet: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    public func makeIterator() -> RLMIterator<Element> {
        guard let managed else { return RLMIterator(snapshot: unmanaged) }
        return managed.snapshotIterator(of: Element.self)
    }
}

extension MutableSet: _Persistable, ManagedCollectionProperty {
    public static var _isCollection: Bool { true }
    public static var _storage: _StorageType {
        CollectionColumn.storage(elementType: elementType, collection: COLUMNAR_COLLECTION_SET)
    }
    public static func _rlmDefaultValue() -> MutableSet<Element> { MutableSet() }

    /// An array (of elements, or of values that convert to them, like dictionaries for objects) makes a set.
    public static func _convert(fromAny value: Any) -> MutableSet<Element>? {
        guard let elements: [Element] = CollectionColumn.elements(fromAny: value, elementType: elementType) else {
            return nil
        }
        let set = MutableSet()
        set.insert(objectsIn: elements)
        return set
    }
    public static func _read(_ value: columnar_value, from realm: Realm) -> MutableSet<Element> {
        fatalError("a MutableSet is read as a collection, not as a value")
    }
    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        fatalError("a MutableSet is written as a collection, not as a value")
    }

    static func managed(in core: RealmCore, location: ObjectLocation, column: columnar_col_id) -> Any {
        MutableSet(location: location, column: column)
    }

    func assign(to core: RealmCore, location: ObjectLocation, column: columnar_col_id) throws {
        let elements = Array(self)   // read first: the source may be this very column
        let target = MutableSet(location: location, column: column)
        target.removeAll()
        target.insert(objectsIn: elements)
    }
}

extension MutableSet: Encodable where Element: Encodable {
    public func encode(to encoder: Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension MutableSet: Decodable where Element: Decodable {
    public convenience init(from decoder: Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { insert(try container.decode(Element.self)) }
    }
}
