// List: the ordered, to-many property type (`@Persisted var dogs: List<Dog>`), RealmSwift's List / RLMArray.
//
// An unmanaged list is a plain array. A managed list is a live view of one object's list column: every read and
// write goes to the Realm's current transaction. Mutation of a managed list needs a write transaction; an index
// out of range stops with a message naming the index and the count.

import CColumnar
import Foundation

public final class List<Element: RealmCollectionValue>: CustomStringConvertible {
    /// The elements of an unmanaged list.
    private var storedElements: [Element] = []
    /// Where a managed list lives; nil for an unmanaged list.
    let managed: CollectionColumn?
    /// Where a nested list lives (an `AnyRealmValue.list` read from a stored value); nil for every other list.
    let nested: NestedMixedSlot?

    /// An empty, unmanaged list.
    public init() {
        managed = nil
        nested = nil
    }

    init(location: ObjectLocation, column: columnar_col_id) {
        managed = CollectionColumn(location: location, column: column, kind: .list)
        nested = nil
    }

    init(nestedSlot: NestedMixedSlot) {
        managed = nil
        nested = nestedSlot
    }

    /// The elements of a list that is not a column's: an unmanaged list's own, or a nested list's, read from its
    /// stored tree and written back to it whole (NestedMixedCollection.swift).
    private var unmanaged: [Element] {
        get { nested.map { Self.nestedElements($0, live: true) } ?? storedElements }
        _modify {
            if let nested {
                // Copies of the nested collections inside: once the tree changes, their places may hold others.
                var elements = Self.nestedElements(nested, live: false)
                yield &elements
                Self.storeNested(elements, at: nested)
            } else {
                yield &storedElements
            }
        }
        set {
            if let nested { Self.storeNested(newValue, at: nested) } else { storedElements = newValue }
        }
    }

    private static func nestedTree(_ slot: NestedMixedSlot) -> [MixedTree] {
        guard case .list(let elements)? = slot.currentTree() else {
            fatalError("List is no longer valid: the AnyRealmValue holding it was deleted or replaced.")
        }
        return elements
    }

    /// The elements of a nested list; collections among them are live at their positions, or copies.
    private static func nestedElements(_ slot: NestedMixedSlot, live: Bool) -> [Element] {
        nestedTree(slot).enumerated().map { position, element in
            AnyRealmValue.value(of: element, at: live ? slot.appending(.index(position)) : nil, in: slot.core)
                as! Element
        }
    }

    private static func storeNested(_ elements: [Element], at slot: NestedMixedSlot) {
        let realm = slot.realm
        do {
            slot.store(.list(try elements.map { try MixedTree.of($0 as! AnyRealmValue, in: realm) }), typeName: "List")
        } catch {
            fatalError("Columnar: cannot change the nested list: \(error)")
        }
    }

    /// Stops when the list is a nested one, for the operations only a list property has.
    func requireNotNested(_ operation: String) {
        precondition(nested == nil, "Columnar: \(operation) is not supported on a List nested in an AnyRealmValue; "
                         + "use it on the object that holds the value")
    }

    private static var elementType: any _Persistable.Type {
        CollectionColumn.persistableType(of: Element.self, in: .list)
    }

    // MARK: Properties

    /// The Realm managing the list, or nil when unmanaged.
    public var realm: Realm? { managed?.realm ?? nested?.realm }

    /// Whether the list can no longer be used (its object was deleted or its Realm invalidated, or for a nested
    /// list, the value holding it replaced).
    public var isInvalidated: Bool {
        if let nested {
            guard case .list? = nested.currentTree() else { return true }
            return false
        }
        return managed?.isInvalidated ?? false
    }

    /// The class name of the elements when they are objects, else nil.
    public var objectClassName: String? {
        if let managed, CollectionColumn.holdsDynamicObjects(Element.self) {
            return managed.dynamicTargetBinding.schema.className
        }
        return (Element.self as? ObjectBase.Type).map { $0.storedClassName }
    }

    public var count: Int { managed?.size ?? unmanaged.count }

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
            guard let managed else { return unmanaged[position] }
            return managed.element(at: position, as: Self.elementType) as! Element
        }
        set {
            replace(index: position, object: newValue)
        }
    }

    /// The elements at the given positions, in ascending order of position, or nil when any position is out of
    /// range (the RLMArray reference's `objectsAtIndexes:`).
    public func objects(at indexes: IndexSet) -> [Element]? {
        if let last = indexes.last, last >= count || indexes.first! < 0 { return nil }
        return indexes.map { self[$0] }
    }

    /// Each element's value of a property (nil as `NSNull`); the elements must be objects.
    public func value(forKey key: String) -> [AnyObject] {
        CollectionKeyValueCoding.objects(of: self, keyPath: key)
    }

    /// Each element's value at a key path through to-one links (`owner.name`; nil as `NSNull`).
    public func value(forKeyPath keyPath: String) -> [AnyObject] {
        CollectionKeyValueCoding.objects(of: self, keyPath: keyPath)
    }

    /// The position of the first element equal to `object`, or nil.
    public func index(of object: Element) -> Int? {
        ElementPosition.first(of: object, in: self)
    }

    // MARK: Mutation

    /// Appends an element (an unmanaged object is added to the Realm of a managed list).
    public func append(_ object: Element) {
        insert(object, at: count)
    }

    /// Appends every element of a sequence.
    public func append<S: Sequence>(objectsIn objects: S) where S.Element == Element {
        if nested != nil {
            unmanaged.append(contentsOf: objects)   // one write of the tree, not one per element
            return
        }
        for object in objects { append(object) }
    }

    /// Inserts an element at a position (0...count).
    public func insert(_ object: Element, at index: Int) {
        let size = count
        precondition(index >= 0 && index <= size,
                     "Index \(index) is out of bounds (must be less than or equal to \(size)).")
        guard let managed else {
            unmanaged.insert(object, at: index)
            return
        }
        managed.core.requireUnowned(object)
        managed.mutate { txn in
            try managed.withEngineValue(object) { value in
                columnar_list_insert(txn, managed.table, managed.key, managed.column, UInt64(index), &value)
            }
        }
    }

    /// Removes the element at a position.
    public func remove(at index: Int) {
        checkIndex(index, count: count)
        guard let managed else {
            unmanaged.remove(at: index)
            return
        }
        let removed = holdsEmbedded ? [self[index]] : []
        managed.mutate { txn in
            columnar_list_remove(txn, managed.table, managed.key, managed.column, UInt64(index))
        }
        managed.core.deleteOrphans(removed)
    }

    /// Whether the elements are embedded objects, which the list owns: removing one deletes it.
    private var holdsEmbedded: Bool {
        Element.self is EmbeddedObject.Type || managed?.holdsEmbeddedDynamicObjects(Element.self) == true
    }

    /// Removes the first `number` elements (objects stay in the Realm). Removing more elements than the list
    /// holds, or a negative number, stops with a message.
    public func removeFirst(_ number: Int = 1) {
        checkRemovalCount(number)
        for _ in 0..<number { remove(at: 0) }
    }

    /// Removes the last `number` elements (objects stay in the Realm). On an empty list it does nothing, as the
    /// RLMArray reference's `removeLastObject` does; removing more elements than a non-empty list holds, or a
    /// negative number, stops with a message.
    public func removeLast(_ number: Int = 1) {
        if isEmpty && number >= 0 { return }
        checkRemovalCount(number)
        for _ in 0..<number { remove(at: count - 1) }
    }

    /// Inserts the elements of a collection, in order, starting at position `i` (0...count).
    public func insert<C: Collection>(contentsOf newElements: C, at i: Int) where C.Iterator.Element == Element {
        var position = i
        for element in newElements {
            insert(element, at: position)
            position += 1
        }
    }

    /// Removes the elements in a range of positions.
    public func removeSubrange<R>(_ boundsExpression: R) where R: RangeExpression, List<Element>.Index == R.Bound {
        let bounds = boundsExpression.relative(to: self)
        checkRange(bounds)
        for _ in bounds { remove(at: bounds.lowerBound) }
    }

    /// Replaces the elements in a range of positions with the elements of a collection (the counts may differ).
    public func replaceSubrange<C: Collection, R>(_ subrange: R, with newElements: C)
        where C.Iterator.Element == Element, R: RangeExpression, List<Element>.Index == R.Bound {
        let bounds = subrange.relative(to: self)
        checkRange(bounds)
        for _ in bounds { remove(at: bounds.lowerBound) }
        insert(contentsOf: newElements, at: bounds.lowerBound)
    }

    /// Removes the elements at the given positions (SwiftUI's `onDelete` hands these over).
    public func remove(atOffsets offsets: IndexSet) {
        for offset in offsets.reversed() { remove(at: offset) }
    }

    /// Moves the elements at the given positions so that they end up, in order, before the element that was at
    /// `destination` (SwiftUI's `onMove` hands these over; `destination` may be `count`).
    public func move(fromOffsets offsets: IndexSet, toOffset destination: Int) {
        let size = count
        precondition(destination >= 0 && destination <= size,
                     "Index \(destination) is out of bounds (must be less than or equal to \(size)).")
        if let last = offsets.last {
            precondition(offsets.first! >= 0 && last < size, "Index \(last) is out of bounds (must be less than \(size)).")
        }
        // The order wanted, as original positions; then moves that bring each position's element into place.
        let kept = { (range: Range<Int>) in range.filter { !offsets.contains($0) } }
        let wanted = kept(0..<destination) + Array(offsets) + kept(destination..<size)
        var current = Array(0..<size)
        for (target, original) in wanted.enumerated() where current[target] != original {
            let from = current.firstIndex(of: original)!
            move(from: from, to: target)
            current.insert(current.remove(at: from), at: target)
        }
    }

    /// Removes every element (objects stay in the Realm).
    public func removeAll() {
        guard let managed else {
            unmanaged.removeAll()
            return
        }
        let removed = holdsEmbedded ? Array(self) : []
        managed.mutate { txn in columnar_coll_clear(txn, managed.table, managed.key, managed.column) }
        managed.core.deleteOrphans(removed)
    }

    /// Replaces the element at a position.
    public func replace(index: Int, object: Element) {
        checkIndex(index, count: count)
        guard let managed else {
            unmanaged[index] = object
            return
        }
        managed.core.requireUnowned(object)
        let removed = holdsEmbedded ? [self[index]] : []
        managed.mutate { txn in
            try managed.withEngineValue(object) { value in
                columnar_list_set(txn, managed.table, managed.key, managed.column, UInt64(index), &value)
            }
        }
        managed.core.deleteOrphans(removed)
    }

    /// Moves the element at `from` so that it ends up at `to`.
    public func move(from: Int, to: Int) {
        let size = count
        checkIndex(from, count: size)
        checkIndex(to, count: size)
        guard let managed else {
            let element = unmanaged.remove(at: from)
            unmanaged.insert(element, at: to)
            return
        }
        managed.mutate { txn in
            columnar_list_move(txn, managed.table, managed.key, managed.column, UInt64(from), UInt64(to))
        }
    }

    /// Swaps the elements at two positions.
    public func swapAt(_ index1: Int, _ index2: Int) {
        let size = count
        checkIndex(index1, count: size)
        checkIndex(index2, count: size)
        guard index1 != index2 else { return }
        // Two moves rather than two replacements: a list of embedded objects owns its elements, and replacing
        // one would delete it.
        let low = Swift.min(index1, index2), high = Swift.max(index1, index2)
        move(from: high, to: low)
        move(from: low + 1, to: high)
    }

    public var description: String {
        let items = enumerated().map { "\t[\($0.offset)] " + ObjectBase.describe($0.element) }
        return "List<\(Element.self)> <\(count) elements> (\n" + items.joined(separator: ",\n") + "\n)"
    }

    // MARK: Checks

    private func checkRemovalCount(_ number: Int) {
        precondition(number >= 0, "Cannot remove a negative number (\(number)) of elements.")
        let size = count
        precondition(number <= size,
                     "It is not possible to remove more elements (\(number)) from a list than it holds (\(size)).")
    }

    private func checkRange(_ bounds: Range<Int>) {
        let size = count
        precondition(bounds.lowerBound >= 0 && bounds.upperBound <= size,
                     "Range \(bounds) is out of bounds (must be within 0..<\(size)).")
    }

    private func checkIndex(_ index: Int, count: Int) {
        precondition(index >= 0 && index < count, "Index \(index) is out of bounds (must be less than \(count)).")
    }
}

extension List: RandomAccessCollection, MutableCollection {
    public typealias SubSequence = Slice<List>

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public func index(after i: Int) -> Int { i + 1 }
    public func index(before i: Int) -> Int { i - 1 }

    /// The elements in a range of positions (get), or replaces them with the elements of another slice, whose
    /// count may differ (set).
    public subscript(bounds: Range<Int>) -> SubSequence {
        get { SubSequence(base: self, bounds: bounds) }
        set { replaceSubrange(bounds, with: newValue) }
    }

    public func makeIterator() -> RLMIterator<Element> {
        guard let managed else { return RLMIterator(snapshot: unmanaged) }
        return managed.snapshotIterator(of: Element.self)
    }
}

extension List: _Persistable, ManagedCollectionProperty {
    public static var _isCollection: Bool { true }
    public static var _storage: _StorageType {
        CollectionColumn.storage(elementType: elementType, collection: COLUMNAR_COLLECTION_LIST)
    }
    public static func _rlmDefaultValue() -> List<Element> { List() }

    /// An array (of elements, or of values that convert to them, like dictionaries for objects) makes a list.
    public static func _convert(fromAny value: Any) -> List<Element>? {
        guard let elements: [Element] = CollectionColumn.elements(fromAny: value, elementType: elementType) else {
            return nil
        }
        let list = List()
        list.storedElements = elements
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
        // Read first: the source may be this very column. Managed embedded objects are copied, since clearing
        // the column deletes the ones it owned.
        let elements = Array(self).map { element -> Element in
            guard let embedded = element as? EmbeddedObject, embedded._location != nil else { return element }
            let copy = type(of: embedded).init()
            ObjectValueAssignment.assign(embedded, to: copy)
            return copy as! Element
        }
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
