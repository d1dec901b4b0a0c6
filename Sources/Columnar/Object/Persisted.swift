// Persisted: the property wrapper that declares a stored property of an Object (`@Persisted var name: String`).
//
// Without the Objective-C runtime, Columnar relies on two facts of Swift on Linux: a property wrapper's
// `static subscript(_enclosingInstance:wrapped:storage:)` is called for every access to a wrapped property of a
// class, and `Mirror` lists a class's wrapped properties as `_name` in declaration order. The wrapper keeps its
// state in a small class (`PersistedCell`) so that the copies `Mirror` hands out share it: schema discovery reads
// the declared attributes from it, and binding an object to its row records the column in it.
//
// Unmanaged objects keep values in the cell. Managed objects read and write their row's columns: a cell knows its
// property's schema index (told when its object claims it at construction), which names the column.
//
// Accessor objects that `RealmCore.materialize` makes for rows have no cells at all when their class allows it
// (ClassInfo.cellFreeOrder): while it constructs one, each wrapper's initializer takes its schema index from the
// thread's construction state (CellFreeConstruction) instead of allocating a cell, and managed reads use that index
// directly. Making an accessor then costs the object's own allocation only.
//
// The managed read of such a wrapper does no reference counting: the subscript is inlined into the model class's
// accessor (so the wrapper is a stored-property load, not a key-path projection), and the read reaches the core
// and binding through the object's UnmanagedLocation.

import CColumnar
import Foundation

/// Per-property state shared by every copy of a `Persisted` wrapper.
class PersistedCellBase {
    /// The property's index in its class's schema, once bound; -1 before.
    @exclusivity(unchecked) var propertyIndex = -1
    /// The object whose property this is, once known (managed objects): lets type-erased paths such as
    /// `Codable` read the managed value instead of the stale unmanaged one.
    /// Unowned: the object owns its cells, so a cell never outlives it in use (and weak references cost a side
    /// table per cell).
    unowned(safe) var owner: ObjectBase?
    var isPrimaryKey = false
    var isIndexed = false
    /// Set on the cells of the throwaway objects that name key paths (Query/KeyPathNames.swift): reads report
    /// themselves instead of returning the value. A flag in the cell, not a thread-local lookup, so that ordinary
    /// unmanaged reads pay one load for it and managed reads nothing.
    @exclusivity(unchecked) var isKeyPathProbe = false
    var originProperty: String?

    /// The column the property's type needs.
    var storageType: _StorageType { fatalError("abstract") }
    /// Writes the unmanaged value into a managed object's column (realm.add).
    func copyUnmanagedValue(to object: ObjectBase, column: columnar_col_id) throws { fatalError("abstract") }
    /// The unmanaged value (or the default), type-erased (subscript(key:), description, init(value:)).
    var unmanagedValue: Any { fatalError("abstract") }
    func setUnmanagedValue(_ value: Any) -> Bool { fatalError("abstract") }
    /// Reads a managed object's value of this property, type-erased. Uses only the cell's type and declared
    /// attributes, so the cells of a class's schema prototype serve for every object of the class.
    func readManaged(from object: ObjectBase, column: columnar_col_id) -> Any { fatalError("abstract") }
    /// Reads this property of many managed objects of `binding`'s class at once (`value(forKey:)` on Results), as
    /// `[Value]` in the order of `keys`; nil for a property without a column of its own (collections, linking
    /// objects) or when the engine cannot read every object.
    func readManagedColumn(core: RealmCore, binding: ClassBinding, column: columnar_col_id,
                           keys: [columnar_key]) -> Any? { fatalError("abstract") }
    /// A new cell of the same value type, part of no object (`object[key] = value` converts values through one).
    func makeScratchCell() -> PersistedCellBase { fatalError("abstract") }
    /// Calls `body` with the unmanaged value as an engine value.
    func withUnmanagedEngineValue<R>(in core: RealmCore, _ body: (inout columnar_value) throws -> R) throws -> R {
        fatalError("abstract")
    }
    /// Whether the unmanaged value equals what a managed object's column holds (for `.modified` updates).
    func unmanagedEqualsManaged(_ object: ObjectBase, column: columnar_col_id) throws -> Bool { fatalError("abstract") }
}

final class PersistedCell<Value: _Persistable>: PersistedCellBase {
    // Unchecked (no run-time exclusivity check): only plain loads and stores reach it, never an access that
    // calls out while it is under way. The checks were about 6 % of an insert.
    @exclusivity(unchecked) var value: Value?

    /// A cell that joins `state`'s pending stack, to be claimed by the object being constructed.
    init(value: Value?, pendingIn state: ThreadLocalState) {
        self.value = value
        super.init()
        state.pendingCells.append(self)
    }

    /// A cell of no object (a scratch cell that validates and converts a value).
    init(unregisteredValue value: Value?) {
        self.value = value
        super.init()
    }

    /// The current value: the managed row's when the owner is managed, else the unmanaged value.
    var currentValue: Value {
        if let owner, let location = owner._location {
            if propertyIndex < 0 {
                guard let index = SchemaDiscovery.cells(of: owner).firstIndex(where: { $0 === self }) else {
                    fatalError("Columnar: a @Persisted property is not among its object's persisted properties")
                }
                propertyIndex = index
            }
            return owner._managedRead(Value.self, column: location.binding.columns[propertyIndex])
        }
        return unmanagedOrDefault
    }

    /// The unmanaged value; a property never set takes its type's default here, once, so that a default made
    /// fresh for each object (an ObjectId's) reads the same every time and is the value written when the object is
    /// added.
    private var unmanagedOrDefault: Value {
        if let value { return value }
        let made = Value._rlmDefaultValue()
        value = made
        return made
    }

    override var storageType: _StorageType { Value._storage }

    override func makeScratchCell() -> PersistedCellBase { PersistedCell(unregisteredValue: nil) }

    // Specialized for the common value types: see Persisted.pendingCell(in:).
    @_specialize(where Value == Int)
    @_specialize(where Value == Double)
    @_specialize(where Value == Bool)
    @_specialize(where Value == String)
    override func copyUnmanagedValue(to object: ObjectBase, column: columnar_col_id) throws {
        try object._managedWrite(unmanagedOrDefault, column: column)
    }

    override var unmanagedValue: Any { unmanagedOrDefault }

    override func readManaged(from object: ObjectBase, column: columnar_col_id) -> Any {
        // Linking objects have no column: the cell's origin property says which backlinks to read.
        if let origin = originProperty, let reader = Value.self as? ManagedLinkingObjectsReader.Type {
            return reader.managed(for: object, originProperty: origin)
        }
        return object._managedRead(Value.self, column: column)
    }

    override func readManagedColumn(core: RealmCore, binding: ClassBinding, column: columnar_col_id,
                                    keys: [columnar_key]) -> Any? {
        guard originProperty == nil, !Value._isCollection, column != COLUMNAR_NO_COLUMN,
              let values = core.readColumn(Value.self, binding: binding, column: column, keys: keys) else { return nil }
        return values
    }

    override func withUnmanagedEngineValue<R>(in core: RealmCore,
                                              _ body: (inout columnar_value) throws -> R) throws -> R {
        try unmanagedOrDefault._withValue(in: Realm(core: core), body)
    }

    override func unmanagedEqualsManaged(_ object: ObjectBase, column: columnar_col_id) throws -> Bool {
        guard Value._storage.collection == COLUMNAR_COLLECTION_NONE, Value._storage.type != COLUMNAR_TYPE_LINK,
              let location = object._location else { return false }
        var current = columnar_value()
        try Engine.check(columnar_obj_get(location.core.currentTransaction, location.binding.table, location.key,
                                          column, &current))
        return try withUnmanagedEngineValue(in: location.core) { EngineValue.equal($0, current) }
    }

    override func setUnmanagedValue(_ newValue: Any) -> Bool {
        if let typed = newValue as? Value {
            value = typed
            return true
        }
        if let converted = Value._convert(fromAny: newValue) {
            value = converted
            return true
        }
        // nil, or NSNull as RealmSwift's value dictionaries and arrays spell it.
        let isNil = newValue is NSNull || (newValue as? OptionalProtocol)?.isNone == true
        if isNil, Value._storage.nullable, Value._storage.collection == COLUMNAR_COLLECTION_NONE {
            value = Value._rlmDefaultValue()   // nil for optionals
            return true
        }
        return false
    }
}

/// Implemented by every `Persisted<Value>` so that schema discovery can read a property through `Mirror`.
protocol PersistedProperty {
    /// The wrapper's cell; nil in the wrappers of cell-free accessor objects (see the top of this file).
    var persistedCell: PersistedCellBase? { get }
}

@propertyWrapper
public struct Persisted<Value: _Persistable>: PersistedProperty {
    /// The property's state: nil when the wrapper belongs to a cell-free accessor object.
    let cell: PersistedCell<Value>?
    /// In a cell-free accessor object, the property's index in its class's schema; -1 otherwise (then `cell` is set).
    @usableFromInline let cellFreeIndex: Int32

    var persistedCell: PersistedCellBase? { cell }

    /// Direct access is not possible: a `@Persisted` property lives in an `Object` and is reached through it.
    @available(*, unavailable, message: "@Persisted can only be used as a property on an Object")
    public var wrappedValue: Value {
        get { fatalError("@Persisted can only be used as a property on an Object") }
        // swiftlint:disable:next unused_setter_value
        set { fatalError("@Persisted can only be used as a property on an Object") }
    }

    // Each initializer first asks whether a cell-free accessor object is being constructed (RealmCore.materialize):
    // then the wrapper takes the next schema index and no cell. The cell is made in a separate function so that
    // the cell-free path touches no generic metadata (`Value?`, `PersistedCell<Value>`): the wrapper is not
    // specialized across the module boundary, and each metadata lookup costs tens of nanoseconds.

    /// A property with the type's default value (0, "", empty collection, nil).
    public init() {
        if let index = CellFreeConstruction.takeIndex() {
            cell = nil
            cellFreeIndex = index
        } else {
            cell = Self.pendingCell(in: ThreadLocalState.current)
            cellFreeIndex = -1
        }
    }

    /// A property with an initial value for new unmanaged objects.
    public init(wrappedValue value: Value) {
        if let index = CellFreeConstruction.takeIndex() {
            cell = nil
            cellFreeIndex = index
        } else {
            cell = Self.pendingCell(holding: value, in: ThreadLocalState.current)
            cellFreeIndex = -1
        }
    }

    /// A property that is the primary key (or, with `false`, an ordinary one).
    public init(primaryKey: Bool) {
        self.init()
        cell?.isPrimaryKey = primaryKey
    }

    public init(wrappedValue value: Value, primaryKey: Bool) {
        self.init(wrappedValue: value)
        cell?.isPrimaryKey = primaryKey
    }

    /// A property with a search index.
    public init(indexed: Bool) {
        self.init()
        cell?.isIndexed = indexed
    }

    public init(wrappedValue value: Value, indexed: Bool) {
        self.init(wrappedValue: value)
        cell?.isIndexed = indexed
    }

    // Making a cell and setting an unmanaged value run for every property of every object added. Unspecialized (the
    // wrapper is generic across the module boundary), each needs the generic metadata of `PersistedCell<Value>` or
    // `Value?`, a hashed lookup at run time. The common value types are told apart first by comparing metatypes,
    // which needs no metadata, and handled by concrete code; `@_specialize` alone did not avoid it, because the
    // generic entry point looked up `Value?`'s metadata before its dispatch. (Copying the value into a new row,
    // PersistedCell.copyUnmanagedValue, dispatches before any lookup.)
    @inline(never)
    private static func pendingCell(in state: ThreadLocalState) -> PersistedCell<Value> {
        if Value.self == Int.self { return Self.common(PersistedCell<Int>(value: nil, pendingIn: state)) }
        if Value.self == String.self { return Self.common(PersistedCell<String>(value: nil, pendingIn: state)) }
        if Value.self == Double.self { return Self.common(PersistedCell<Double>(value: nil, pendingIn: state)) }
        if Value.self == Bool.self { return Self.common(PersistedCell<Bool>(value: nil, pendingIn: state)) }
        return genericPendingCell(in: state)
    }

    @inline(never)
    private static func pendingCell(holding value: Value, in state: ThreadLocalState) -> PersistedCell<Value> {
        if Value.self == Int.self {
            return Self.common(PersistedCell<Int>(value: unsafeBitCast(value, to: Int.self), pendingIn: state))
        }
        if Value.self == String.self {
            return Self.common(PersistedCell<String>(value: unsafeBitCast(value, to: String.self), pendingIn: state))
        }
        if Value.self == Double.self {
            return Self.common(PersistedCell<Double>(value: unsafeBitCast(value, to: Double.self), pendingIn: state))
        }
        if Value.self == Bool.self {
            return Self.common(PersistedCell<Bool>(value: unsafeBitCast(value, to: Bool.self), pendingIn: state))
        }
        return genericPendingCell(holding: value, in: state)
    }

    /// Sets an unmanaged object's value.
    @inline(never)
    static func setUnmanaged(_ newValue: Value, in cell: PersistedCell<Value>) {
        if Value.self == Int.self {
            unsafeDowncast(cell, to: PersistedCell<Int>.self).value = unsafeBitCast(newValue, to: Int.self)
        } else if Value.self == String.self {
            unsafeDowncast(cell, to: PersistedCell<String>.self).value = unsafeBitCast(newValue, to: String.self)
        } else if Value.self == Double.self {
            unsafeDowncast(cell, to: PersistedCell<Double>.self).value = unsafeBitCast(newValue, to: Double.self)
        } else if Value.self == Bool.self {
            unsafeDowncast(cell, to: PersistedCell<Bool>.self).value = unsafeBitCast(newValue, to: Bool.self)
        } else {
            genericSetUnmanaged(newValue, in: cell)
        }
    }

    // The other value types, out of line: the metadata lookups they need would otherwise be hoisted to the start
    // of the functions above and paid by every type.
    @inline(never)
    private static func genericPendingCell(in state: ThreadLocalState) -> PersistedCell<Value> {
        PersistedCell(value: nil, pendingIn: state)
    }

    @inline(never)
    private static func genericPendingCell(holding value: Value, in state: ThreadLocalState) -> PersistedCell<Value> {
        PersistedCell(value: value, pendingIn: state)
    }

    @inline(never)
    private static func genericSetUnmanaged(_ newValue: Value, in cell: PersistedCell<Value>) {
        cell.value = newValue
    }

    /// A cell of a common value type as the cell of `Value`, which the caller checked is that type.
    @inline(__always)
    private static func common<Common>(_ cell: PersistedCell<Common>) -> PersistedCell<Value> {
        unsafeDowncast(cell, to: PersistedCell<Value>.self)
    }

    // The subscript is inlinable so that, specialized in the module that declares the property, reading the wrapper
    // through its storage key path becomes a load of a stored property (unspecialized, it is a run-time key-path
    // projection costing more than the column read). A cell-free accessor's wrapper is told by its index alone;
    // everything else is behind `_get` and `_set`. Nothing here passes either key path on: a key path that is used
    // is made at every access (`swift_getKeyPath`, then a release), and with both unused the compiled getter is the
    // load of the wrapper and a call, with no key path, reference count or exclusivity check.
    @inlinable @inline(__always)
    public static subscript<EnclosingSelf: ObjectBase>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        get {
            let index = object[keyPath: storageKeyPath].cellFreeIndex
            if index >= 0 {
                // Int, the most read type, through a function that is not generic: specialized, the test is decided
                // at compile time, and the read passes no metadata and asks no protocol witness.
                if Value.self == Int.self {
                    return unsafeBitCast(CellFreeIntRead.read(index: index, of: object), to: Value.self)
                }
                return _cellFreeGet(index: index, of: object)
            }
            return _get(object[keyPath: storageKeyPath], of: object)
        }
        set {
            let index = object[keyPath: storageKeyPath].cellFreeIndex
            if index >= 0 { return _cellFreeSet(newValue, index: index, of: object) }
            _set(newValue, wrapper: object[keyPath: storageKeyPath], of: object)
        }
    }

    /// A read of a cell-free accessor object's property.
    @usableFromInline
    static func _cellFreeGet(index: Int32, of object: ObjectBase) -> Value {
        // The common case (a column that is not a collection) without reference counting (UnmanagedLocation); the
        // rest, which needs `Value?`'s metadata, out of line. (A mixed value may hold a nested collection, which
        // needs the object's location to stay live: it goes the long way too.)
        if let location = object._unmanagedLocation, !Value._isCollection, Value.self != AnyRealmValue.self {
            let column = location.binding._withUnsafeGuaranteedRef { $0.columns[Int(index)] }
            if column != COLUMNAR_NO_COLUMN {
                return location.core._withUnsafeGuaranteedRef { core in
                    location.binding._withUnsafeGuaranteedRef { binding in
                        core.readValue(Value.self, binding: binding, key: location.key,
                                       generation: location.generation, column: column)
                    }
                }
            }
        }
        return cellFreeRead(object, index: Int(index))
    }

    /// A write of a cell-free accessor object's property.
    @usableFromInline
    static func _cellFreeSet(_ newValue: Value, index: Int32, of object: ObjectBase) {
        guard let location = object._location else {
            // Only while schema discovery tries constructing the class without cells.
            ThreadLocalState.current.cellFreeObjectWasAccessed = true
            return
        }
        object._managedSet(newValue, column: location.binding.columns[Int(index)])
    }

    /// Every write but a cell-free accessor's.
    @usableFromInline
    static func _set(_ newValue: Value, wrapper: Persisted, of object: ObjectBase) {
        guard let cell = wrapper.cell else {
            return _cellFreeSet(newValue, index: wrapper.cellFreeIndex, of: object)
        }
        guard object._location != nil else { return setUnmanaged(newValue, in: cell) }
        object._managedSet(newValue, column: object._column(of: cell))
    }

    /// Every read but a cell-free accessor's.
    @usableFromInline
    static func _get(_ wrapper: Persisted, of object: ObjectBase) -> Value {
        guard let cell = wrapper.cell else { return cellFreeRead(object, index: Int(wrapper.cellFreeIndex)) }
        guard object._location != nil else {
            if cell.isKeyPathProbe { return KeyPathProbe.read(cell, of: object) }
            if let value = cell.value { return value }
            // Keep the default: a collection read from an unmanaged object must be the one later appends reach.
            let value = Value._rlmDefaultValue()
            cell.value = value
            return value
        }
        if cell.originProperty != nil { return cell.readManaged(from: object, column: COLUMNAR_NO_COLUMN) as! Value }
        return object._managedRead(Value.self, column: object._column(of: cell))
    }

    /// A read of a cell-free accessor object's property.
    private static func cellFreeRead(_ object: ObjectBase, index: Int) -> Value {
        guard let location = object._location else {
            // Only while schema discovery tries constructing the class without cells (an initializer that reads
            // its properties rules that out).
            ThreadLocalState.current.cellFreeObjectWasAccessed = true
            return Value._rlmDefaultValue()
        }
        let column = location.binding.columns[index]
        if column == COLUMNAR_NO_COLUMN {   // linking objects: the backlinks of the declared origin property
            return location.binding.info.prototypeCells[index].readManaged(from: object, column: column) as! Value
        }
        return object._managedRead(Value.self, column: column)
    }
}

/// A read of a cell-free accessor object's `Int` property (the `Persisted` subscript's fast path): `_cellFreeGet`
/// without generic metadata, since this type, unlike `Persisted<Value>`, is not generic.
@usableFromInline
enum CellFreeIntRead {
    @usableFromInline
    static func read(index: Int32, of object: ObjectBase) -> Int {
        if let location = object._unmanagedLocation {
            let column = location.binding._withUnsafeGuaranteedRef { $0.columns[Int(index)] }
            if column != COLUMNAR_NO_COLUMN {
                return location.core._withUnsafeGuaranteedRef { core in
                    location.binding._withUnsafeGuaranteedRef { binding in
                        core.readInt(binding: binding, key: location.key, generation: location.generation,
                                     column: column)
                    }
                }
            }
        }
        return Persisted<Int>._cellFreeGet(index: index, of: object)
    }
}

extension Persisted: Encodable where Value: Encodable {
    /// Encodes the property's value (the managed row's value for a managed object).
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        // Encodable classes never make cell-free accessors (ClassInfo.cellFreeOrder), so there is a cell.
        try container.encode(cell!.currentValue)
    }
}

extension Persisted: Decodable where Value: Decodable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(wrappedValue: try container.decode(Value.self))
    }
}

extension KeyedDecodingContainer {
    /// A property missing from the encoded data keeps its default value, as RealmSwift's decoding does.
    public func decode<T: _Persistable & Decodable>(_ type: Persisted<T>.Type, forKey key: Key) throws -> Persisted<T> {
        try decodeIfPresent(type, forKey: key) ?? Persisted()
    }
}
