// List: the ordered, to-many property type (`@Persisted var dogs: List<Dog>`), RealmSwift's List / RLMArray.
//
// An unmanaged list is a plain array. A managed list is a live view of one object's list column: every read and
// write goes to the Realm's current transaction. Mutation of a managed list needs a write transaction; an index
// out of range stops with a message naming the index and the count.

import CColumnar
import Foundation

public final class List<Element: RealmCollectionValue>: CustomStringConvertible {
    /// The elements of an unmanaged list.
    private var unmanaged: [Element] = []
    /// Where a managed list lives.
    private let location: ObjectLocation?
    private let column: columnar_col_id
    private let generation: UInt64

    /// An empty, unmanaged list.
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
            fatalError("\(Element.self) cannot be stored in a List")
        }
        return type
    }

    // MARK: Properties

    /// The Realm managing the list, or nil when unmanaged.
    public var realm: Realm? { location.map { Realm(core: $0.core) } }

    /// Whether the list can no longer be used (its object was deleted or its Realm invalidated).
    public var isInvalidated: Bool {
        guard let location else { return false }
        return generation != location.core.generation || !location.core.objectExists(location)
    }

    /// The class name of the elements when they are objects, else nil.
    public var objectClassName: String? {
        (Element.self as? ObjectBase.Type).map { String(describing: $0) }
    }

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

    public subscript(position: Int) -> Element {
        get {
            checkIndex(position, count: count)
            guard let location else { return unmanaged[position] }
            var value = columnar_value()
            check(columnar_coll_get(transaction(location), location.binding.table, location.key, column,
                                    UInt64(position), &value))
            return Self.elementType._read(value, from: Realm(core: location.core)) as! Element
        }
        set {
            replace(index: position, object: newValue)
        }
    }

    /// The elements at the given positions, or nil when any position is out of range.
    public func objects(at indexes: IndexSet) -> [Element]? {
        let size = count
        guard indexes.allSatisfy({ $0 >= 0 && $0 < size }) else { return nil }
        return indexes.map { self[$0] }
    }

    /// The position of the first element equal to `object`, or nil.
    public func index(of object: Element) -> Int? {
        firstIndex(of: object)
    }

    // MARK: Mutation

    /// Appends an element (an unmanaged object is added to the Realm of a managed list).
    public func append(_ object: Element) {
        insert(object, at: count)
    }

    /// Appends every element of a sequence.
    public func append<S: Sequence>(objectsIn objects: S) where S.Element == Element {
        for object in objects { append(object) }
    }

    /// Inserts an element at a position (0...count).
    public func insert(_ object: Element, at index: Int) {
        let size = count
        precondition(index >= 0 && index <= size,
                     "Index \(index) is out of bounds (must be less than or equal to \(size)).")
        guard let location else {
            unmanaged.insert(object, at: index)
            return
        }
        mutate(location) { txn in
            try withEngineValue(object, location) { value in
                columnar_list_insert(txn, location.binding.table, location.key, self.column, UInt64(index), &value)
            }
        }
    }

    /// Removes the element at a position.
    public func remove(at index: Int) {
        checkIndex(index, count: count)
        guard let location else {
            unmanaged.remove(at: index)
            return
        }
        mutate(location) { txn in
            columnar_list_remove(txn, location.binding.table, location.key, self.column, UInt64(index))
        }
    }

    /// Removes the last element; does nothing when the list is empty.
    public func removeLast() {
        let size = count
        if size > 0 { remove(at: size - 1) }
    }

    /// Removes every element (objects stay in the Realm).
    public func removeAll() {
        guard let location else {
            unmanaged.removeAll()
            return
        }
        mutate(location) { txn in columnar_coll_clear(txn, location.binding.table, location.key, self.column) }
    }

    /// Replaces the element at a position.
    public func replace(index: Int, object: Element) {
        checkIndex(index, count: count)
        guard let location else {
            unmanaged[index] = object
            return
        }
        mutate(location) { txn in
            try withEngineValue(object, location) { value in
                columnar_list_set(txn, location.binding.table, location.key, self.column, UInt64(index), &value)
            }
        }
    }

    /// Moves the element at `from` so that it ends up at `to`.
    public func move(from: Int, to: Int) {
        let size = count
        checkIndex(from, count: size)
        checkIndex(to, count: size)
        guard let location else {
            let element = unmanaged.remove(at: from)
            unmanaged.insert(element, at: to)
            return
        }
        mutate(location) { txn in
            columnar_list_move(txn, location.binding.table, location.key, self.column, UInt64(from), UInt64(to))
        }
    }

    /// Swaps the elements at two positions.
    public func swapAt(_ index1: Int, _ index2: Int) {
        let size = count
        checkIndex(index1, count: size)
        checkIndex(index2, count: size)
        guard index1 != index2 else { return }
        let first = self[index1], second = self[index2]
        replace(index: index1, object: second)
        replace(index: index2, object: first)
    }

    public var description: String {
        let items = enumerated().map { "\t[\($0.offset)] " + ObjectBase.describe($0.element) }
        return "List<\(Element.self)> <\(count) elements> (\n" + items.joined(separator: ",\n") + "\n)"
    }

    // MARK: Engine access

    private func transaction(_ location: ObjectLocation) -> OpaquePointer {
        precondition(generation == location.core.generation, "List is no longer valid: its Realm was invalidated.")
        return location.core.currentTransaction
    }

    private func checkIndex(_ index: Int, count: Int) {
        precondition(index >= 0 && index < count, "Index \(index) is out of bounds (must be less than \(count)).")
    }

    private func check(_ rc: Int32) {
        if rc == COLUMNAR_ENOTFOUND { fatalError("List is no longer valid: its object has been deleted or invalidated.") }
        Engine.mustSucceed(rc, "accessing a list")
    }

    private func withEngineValue(_ element: Element, _ location: ObjectLocation,
                                 _ body: (inout columnar_value) -> Int32) throws -> Int32 {
        guard let persistable = element as? any _Persistable else { fatalError("\(Element.self) cannot be stored") }
        return try persistable._withValue(in: Realm(core: location.core)) { body(&$0) }
    }

    private func mutate(_ location: ObjectLocation, _ body: (OpaquePointer) throws -> Int32) {
        location.core.requireWriteTransaction()
        do {
            check(try body(transaction(location)))
        } catch {
            fatalError("Columnar: cannot change the list: \(error)")
        }
        location.core.noteLocalChange()
    }
}

extension List: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }
}

extension List: _Persistable, ManagedCollectionProperty {
    public static var _storage: _StorageType {
        var storage = elementType._storage
        storage.collection = COLUMNAR_COLLECTION_LIST
        if storage.type == COLUMNAR_TYPE_LINK { storage.nullable = false }
        return storage
    }
    public static func _rlmDefaultValue() -> List<Element> { List() }

    /// An array (of elements, or of values that convert to them, like dictionaries for objects) makes a list.
    public static func _convert(fromAny value: Any) -> List<Element>? {
        guard let array = value as? [Any] else { return nil }
        let list = List()
        for item in array {
            let item = ObjectValueAssignment.unwrapped(item)
            if let element = item as? Element {
                list.append(element)
            } else if let element = elementType._convert(fromAny: item) as? Element {
                list.append(element)
            } else {
                return nil
            }
        }
        return list
    }
    public static func _read(_ value: columnar_value, from realm: Realm) -> List<Element> {
        fatalError("a List is read as a collection, not as a value")
    }
    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        fatalError("a List is written as a collection, not as a value")
    }

    static func managed(in core: RealmCore, location: ObjectLocation, column: columnar_col_id) -> Any {
        List(location: location, column: column)
    }

    func assign(to core: RealmCore, location: ObjectLocation, column: columnar_col_id) throws {
        let elements = Array(self)   // read first: the source may be this very column
        let target = List(location: location, column: column)
        target.removeAll()
        for element in elements { target.append(element) }
    }
}

extension List: Encodable where Element: Encodable {
    public func encode(to encoder: Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension List: Decodable where Element: Decodable {
    public convenience init(from decoder: Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { append(try container.decode(Element.self)) }
    }
}
