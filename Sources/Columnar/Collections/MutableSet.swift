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
    /// Where a managed set lives.
    private let location: ObjectLocation?
    private let column: columnar_col_id
    private let generation: UInt64

    /// An empty, unmanaged set.
    public init() {
        location = nil
        column = COLUMNAR_NO_COLUMN
        generation = 0
    }

    init(location: ObjectLocation, column: columnar_col_id) {
        self.location = location
        self.column = column
        self.generation = location.core.generation
    }

    private static var elementType: any _Persistable.Type {
        guard let type = Element.self as? any _Persistable.Type else {
            fatalError("\(Element.self) cannot be stored in a MutableSet")
        }
        return type
    }

    // MARK: Properties

    /// The Realm managing the set, or nil when unmanaged.
    public var realm: Realm? { location.map { Realm(core: $0.core) } }

    /// Whether the set can no longer be used (its object was deleted or its Realm invalidated).
    public var isInvalidated: Bool {
        guard let location else { return false }
        return generation != location.core.generation || !location.core.objectExists(location)
    }

    /// The class name of the elements when they are objects, else nil.
    public var objectClassName: String? {
        (Element.self as? ObjectBase.Type).map { String(describing: $0) }
    }

    /// The number of elements (`columnar_coll_size`).
    public var count: Int {
        guard let location else { return unmanaged.count }
        var size: UInt64 = 0
        check(columnar_coll_size(transaction(location), location.binding.table, location.key, column, &size))
        return Int(size)
    }

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
        guard let location else { return unmanaged[position] }
        var value = columnar_value()
        check(columnar_coll_get(transaction(location), location.binding.table, location.key, column,
                                UInt64(position), &value))
        return Self.elementType._read(value, from: Realm(core: location.core)) as! Element
    }

    /// The elements at the given positions, or nil when any position is out of range.
    public func objects(at indexes: IndexSet) -> [Element]? {
        let size = count
        guard indexes.allSatisfy({ $0 >= 0 && $0 < size }) else { return nil }
        return indexes.map { self[$0] }
    }

    /// Whether the set holds `object` (`columnar_coll_contains`). An object that is not managed by the set's Realm
    /// is never an element of a managed set.
    public func contains(_ object: Element) -> Bool {
        guard let location else { return unmanaged.contains(object) }
        guard isStorable(object, in: location) else { return false }
        var found = false
        let rc = withEngineValue(object, location) { value in
            columnar_coll_contains(self.transaction(location), location.binding.table, location.key, self.column,
                                   &value, &found)
        }
        check(rc)
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
        guard let location else {
            if !unmanaged.contains(object) { unmanaged.append(object) }
            return
        }
        mutate(location) { txn in
            try withThrowingEngineValue(object, location) { value in
                columnar_set_insert(txn, location.binding.table, location.key, self.column, &value, nil)
            }
        }
    }

    /// Inserts every element of a sequence.
    public func insert<S: Sequence>(objectsIn objects: S) where S.Element == Element {
        for object in objects { insert(object) }
    }

    /// Removes an element if the set holds it (`columnar_set_remove`).
    public func remove(_ object: Element) {
        guard let location else {
            unmanaged.removeAll { $0 == object }
            return
        }
        location.core.requireWriteTransaction()
        guard isStorable(object, in: location) else { return }
        mutate(location) { txn in
            try withThrowingEngineValue(object, location) { value in
                columnar_set_remove(txn, location.binding.table, location.key, self.column, &value, nil)
            }
        }
    }

    /// Removes every element (objects stay in the Realm) (`columnar_coll_clear`).
    public func removeAll() {
        guard let location else {
            unmanaged.removeAll()
            return
        }
        mutate(location) { txn in columnar_coll_clear(txn, location.binding.table, location.key, self.column) }
    }

    /// Inserts every element of `other`.
    public func formUnion(_ other: MutableSet<Element>) {
        if let location { location.core.requireWriteTransaction() }
        insert(objectsIn: Array(other))
    }

    /// Keeps only the elements that are also in `other`.
    public func formIntersection(_ other: MutableSet<Element>) {
        if let location { location.core.requireWriteTransaction() }
        // Decide first: `other` may be this very set, or a live view of the same column.
        let leaving = filter { !other.contains($0) }
        for element in leaving { remove(element) }
    }

    /// Removes every element that is in `other`.
    public func subtract(_ other: MutableSet<Element>) {
        if let location { location.core.requireWriteTransaction() }
        for element in Array(other) { remove(element) }
    }

    public var description: String {
        let items = enumerated().map { "\t[\($0.offset)] " + ObjectBase.describe($0.element) }
        return "MutableSet<\(Element.self)> <\(count) elements> (\n" + items.joined(separator: ",\n") + "\n)"
    }

    // MARK: Engine access

    private func transaction(_ location: ObjectLocation) -> OpaquePointer {
        precondition(generation == location.core.generation,
                     "MutableSet is no longer valid: its Realm was invalidated.")
        return location.core.currentTransaction
    }

    private func check(_ rc: Int32) {
        if rc == COLUMNAR_ENOTFOUND {
            fatalError("MutableSet is no longer valid: its object has been deleted or invalidated.")
        }
        Engine.mustSucceed(rc, "accessing a set")
    }

    /// Whether `object` can be an element of the managed set: objects must be managed by the set's Realm (an
    /// unmanaged one would be added by converting it, which a lookup must not do).
    private func isStorable(_ object: Element, in location: ObjectLocation) -> Bool {
        guard let object = object as? ObjectBase else { return true }
        guard let objectLocation = object._location else { return false }
        return objectLocation.core.file === location.core.file && objectLocation.core.objectExists(objectLocation)
    }

    /// For lookups: the element is a plain value or an object of this Realm, so conversion cannot fail.
    private func withEngineValue(_ element: Element, _ location: ObjectLocation,
                                 _ body: (inout columnar_value) -> Int32) -> Int32 {
        do {
            return try withThrowingEngineValue(element, location, body)
        } catch {
            fatalError("Columnar: cannot look up \(element) in a set: \(error)")
        }
    }

    private func withThrowingEngineValue(_ element: Element, _ location: ObjectLocation,
                                         _ body: (inout columnar_value) -> Int32) throws -> Int32 {
        guard let persistable = element as? any _Persistable else { fatalError("\(Element.self) cannot be stored") }
        return try persistable._withValue(in: Realm(core: location.core)) { body(&$0) }
    }

    private func mutate(_ location: ObjectLocation, _ body: (OpaquePointer) throws -> Int32) {
        location.core.requireWriteTransaction()
        do {
            check(try body(transaction(location)))
        } catch {
            fatalError("Columnar: cannot change the set: \(error)")
        }
        location.core.noteLocalChange()
    }
}

extension MutableSet: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }
}

extension MutableSet: _Persistable, ManagedCollectionProperty {
    public static var _storage: _StorageType {
        var storage = elementType._storage
        storage.collection = COLUMNAR_COLLECTION_SET
        if storage.type == COLUMNAR_TYPE_LINK { storage.nullable = false }
        return storage
    }
    public static func _rlmDefaultValue() -> MutableSet<Element> { MutableSet() }

    /// An array (of elements, or of values that convert to them, like dictionaries for objects) makes a set.
    public static func _convert(fromAny value: Any) -> MutableSet<Element>? {
        guard let array = value as? [Any] else { return nil }
        let set = MutableSet()
        for item in array {
            let item = ObjectValueAssignment.unwrapped(item)
            if let element = item as? Element {
                set.insert(element)
            } else if let element = elementType._convert(fromAny: item) as? Element {
                set.insert(element)
            } else {
                return nil
            }
        }
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
