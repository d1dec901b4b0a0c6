// Map: the keyed to-many property type (`@Persisted var scores: Map<String, Int>`), RealmSwift's Map /
// RLMDictionary.
//
// Keys are strings; RealmSwift refuses keys that contain "." or start with "$" (they would be ambiguous in key
// paths and queries), and so does Columnar, managed or not. An unmanaged map is a Swift dictionary. A managed map is
// a live view of one object's dictionary column (COLUMNAR_COLLECTION_DICT), whose keys the engine keeps sorted
// bytewise; iteration, `keys` and `values` follow that order for both kinds. Maps of objects have optional values
// (`Map<String, Dog?>`): a key can hold null, which is not the same as a missing key.

import CColumnar
import Foundation

/// The key types of a `Map`. Only `String` conforms.
public protocol _MapKey: Hashable {}

extension String: _MapKey {}

/// One key-value pair of a `Map`, as its iterator yields them.
public struct SingleMapEntry<Key: _MapKey, Value: RealmCollectionValue>: Hashable {
    public var key: Key
    public var value: Value

    public init(key: Key, value: Value) {
        self.key = key
        self.value = value
    }
}

/// The iterator of a `Map`: the entries as they were when iteration began.
public struct RLMMapIterator<Element>: IteratorProtocol {
    private var entries: IndexingIterator<[Element]>

    init(_ entries: [Element]) {
        self.entries = entries.makeIterator()
    }

    public mutating func next() -> Element? { entries.next() }
}

/// The iterator of `Map.asKeyValueSequence()`: `(key: Key, value: Value)` tuples in key order.
public struct RLMKeyValueIterator<Key: _MapKey, Value: RealmCollectionValue>: IteratorProtocol {
    public typealias Element = (key: Key, value: Value)
    private var entries: IndexingIterator<[SingleMapEntry<Key, Value>]>

    init(_ entries: [SingleMapEntry<Key, Value>]) {
        self.entries = entries.makeIterator()
    }

    public mutating func next() -> (key: Key, value: Value)? {
        entries.next().map { (key: $0.key, value: $0.value) }
    }
}

public final class Map<Key: _MapKey, Value: RealmCollectionValue>: CustomStringConvertible {
    /// The entries of an unmanaged map.
    private var storedEntries: [String: Value] = [:]
    /// Where a managed map lives; nil for an unmanaged map.
    let managed: CollectionColumn?
    /// Where a nested dictionary lives (an `AnyRealmValue.dictionary` read from a stored value); nil for every
    /// other map.
    let nested: NestedMixedSlot?

    /// An empty, unmanaged map.
    public init() {
        managed = nil
        nested = nil
    }

    init(location: ObjectLocation, column: columnar_col_id) {
        managed = CollectionColumn(location: location, column: column, kind: .map)
        nested = nil
    }

    init(nestedSlot: NestedMixedSlot) {
        managed = nil
        nested = nestedSlot
    }

    /// The entries of a map that is not a column's: an unmanaged map's own, or a nested dictionary's, read from
    /// its stored tree and written back to it whole (NestedMixedCollection.swift).
    private var unmanaged: [String: Value] {
        get { nested.map { Self.nestedEntries($0, live: true) } ?? storedEntries }
        _modify {
            if let nested {
                // Copies of the nested collections inside: once the tree changes, their places may hold others.
                var entries = Self.nestedEntries(nested, live: false)
                yield &entries
                Self.storeNested(entries, at: nested)
            } else {
                yield &storedEntries
            }
        }
        set {
            if let nested { Self.storeNested(newValue, at: nested) } else { storedEntries = newValue }
        }
    }

    /// The entries of a nested dictionary; collections among the values are live at their keys, or copies.
    private static func nestedEntries(_ slot: NestedMixedSlot, live: Bool) -> [String: Value] {
        guard case .dictionary(let entries)? = slot.currentTree() else {
            fatalError("Map is no longer valid: the AnyRealmValue holding it was deleted or replaced.")
        }
        var values: [String: Value] = [:]
        for (key, element) in entries {
            values[key] = (AnyRealmValue.value(of: element, at: live ? slot.appending(.key(key)) : nil, in: slot.core)
                as! Value)
        }
        return values
    }

    private static func storeNested(_ entries: [String: Value], at slot: NestedMixedSlot) {
        let realm = slot.realm
        do {
            var trees: [String: MixedTree] = [:]
            for (key, value) in entries { trees[key] = try MixedTree.of(value as! AnyRealmValue, in: realm) }
            slot.store(.dictionary(trees), typeName: "Map")
        } catch {
            fatalError("Columnar: cannot change the nested map: \(error)")
        }
    }

    /// For a nested dictionary, its entries with copies of the collections among the values; nil otherwise.
    var nestedEntryCopies: [Key: Value]? {
        guard let nested else { return nil }
        var copies: [Key: Value] = [:]
        for (key, value) in Self.nestedEntries(nested, live: false) { copies[Self.key(from: key)] = value }
        return copies
    }

    private static var valueType: any _Persistable.Type {
        CollectionColumn.persistableType(of: Value.self, in: .map)
    }

    // MARK: Properties

    /// The Realm managing the map, or nil when unmanaged.
    public var realm: Realm? { managed?.realm ?? nested?.realm }

    /// Whether the map can no longer be used (its object was deleted or its Realm invalidated, or for a nested
    /// dictionary, the value holding it replaced).
    public var isInvalidated: Bool {
        if let nested {
            guard case .dictionary? = nested.currentTree() else { return true }
            return false
        }
        return managed?.isInvalidated ?? false
    }

    /// The class name of the values when they are objects, else nil.
    public var objectClassName: String? {
        if let managed, CollectionColumn.holdsDynamicObjects(Value.self) {
            return managed.dynamicTargetBinding.schema.className
        }
        return Self.valueType._storage.objectType.map { $0.storedClassName }
    }

    /// The number of key-value pairs (`columnar_coll_size`).
    public var count: Int { managed?.size ?? unmanaged.count }

    public var isEmpty: Bool { count == 0 }

    /// Every key, in ascending bytewise (UTF-8) order (`columnar_dict_key_at`).
    public var keys: [Key] {
        guard let managed else { return Self.sortedKeys(unmanaged.keys).map { Self.key(from: $0) } }
        return (0..<count).map { Self.key(from: keyString(at: $0, managed)) }
    }

    /// Every value, in the order of `keys` (`columnar_coll_get`).
    public var values: [Value] {
        guard let managed else {
            let entries = unmanaged   // once: a nested dictionary reads its tree on every access
            return Self.sortedKeys(entries.keys).map { entries[$0]! }
        }
        return (0..<count).map { value(at: $0, managed) }
    }

    // MARK: Reading

    /// The value for a key, or nil when the map has no such key. In a map with optional values a key can hold
    /// nil: then the result is `.some(nil)`. Assigning nil removes the key; assigning a value inserts or replaces
    /// it (an unmanaged object assigned in a managed map is added to the map's Realm).
    public subscript(key: Key) -> Value? {
        get { lookUp(Self.string(from: key)) }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeObject(for: key)
            }
        }
    }

    /// The value for a key, or nil when the map has no such key (`columnar_dict_get`).
    public func object(forKey key: Key) -> Value? {
        self[key]
    }

    /// The value for a key as an object, or nil when the map has no such key (RealmSwift's Objective-C flavoured
    /// accessor). A key holding nil gives `NSNull`.
    public func object(forKey key: AnyObject) -> AnyObject? {
        guard let key = key as? String else { return nil }
        return value(forKey: key)
    }

    /// The value for a key as an object, or nil when the map has no such key. A key holding nil gives `NSNull`.
    public func value(forKey key: String) -> AnyObject? {
        lookUp(key).map { Self.boxed($0) }
    }

    /// The value at a key path: its first component is a key of the map, and any further components are
    /// properties of the object stored there (`"rex.name"`).
    public func value(forKeyPath keyPath: String) -> AnyObject? {
        var components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let current = lookUp(components.removeFirst()) else { return nil }
        var reached: Any = current
        for component in components {
            if let optional = reached as? OptionalProtocol, optional.isNone { return NSNull() }
            guard let object = ObjectValueAssignment.unwrapped(reached) as? Object else {
                fatalError("Key path '\(keyPath)' of a Map<\(Key.self), \(Value.self)>: '\(component)' is not a "
                           + "property of \(type(of: reached))")
            }
            reached = object[component] as Any
        }
        return Self.boxed(reached)
    }

    /// Whether some key-value pair satisfies `predicate`.
    public func contains(where predicate: @escaping (_ key: Key, _ value: Value) -> Bool) -> Bool {
        for entry in entries() where predicate(entry.key, entry.value) { return true }
        return false
    }

    // MARK: Mutation

    /// Sets the value for a key, inserting the key when the map does not have it (`columnar_dict_set`). For a
    /// map with optional values, `updateValue(nil, forKey:)` keeps the key and stores nil.
    public func updateValue(_ value: Value, forKey key: Key) {
        let key = Self.string(from: key)
        Self.checkInsertable(key)
        guard let managed else {
            unmanaged[key] = value
            return
        }
        managed.core.requireUnowned(ObjectValueAssignment.unwrapped(value))
        let replaced = holdsEmbedded ? [lookUp(key) as Any] : []
        managed.mutate { txn in
            try managed.withEngineValue(value) { engineValue in
                Self.withKeyBytes(key) { bytes, size in
                    columnar_dict_set(txn, managed.table, managed.key, managed.column, bytes, size, &engineValue)
                }
            }
        }
        managed.core.deleteOrphans(replaced.map(ObjectValueAssignment.unwrapped))
    }

    /// Whether the values are embedded objects, which the map owns: replacing or removing one deletes it.
    private var holdsEmbedded: Bool {
        Self.valueType._storage.objectType is EmbeddedObject.Type
            || managed?.holdsEmbeddedDynamicObjects(Value.self) == true
    }

    /// Merges key-value pairs into the map; for a key the map has already, `combine(current, new)` gives the
    /// value to keep.
    public func merge<S>(_ sequence: S, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows
        where S: Sequence, S.Element == (key: Key, value: Value) {
        managed?.core.requireWriteTransaction()
        for (key, value) in sequence {
            if let current = self[key] {
                updateValue(try combine(current, value), forKey: key)
            } else {
                updateValue(value, forKey: key)
            }
        }
    }

    /// Merges another map into this one; for a key this map has already, `combine(current, new)` gives the
    /// value to keep.
    public func merge(_ other: Map<Key, Value>, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        // Read first: `other` may be this very map.
        try merge(Array(other.asKeyValueSequence()), uniquingKeysWith: combine)
    }

    /// Removes a key and its value; does nothing when the map has no such key (`columnar_dict_remove`).
    public func removeObject(for key: Key) {
        let key = Self.string(from: key)
        guard let managed else {
            unmanaged[key] = nil
            return
        }
        managed.core.requireWriteTransaction()
        guard key.utf8.count <= Self.maximumKeyBytes else { return }   // too long to be stored: not present
        let removed = holdsEmbedded ? [lookUp(key) as Any] : []
        managed.mutate { txn in
            Self.withKeyBytes(key) { bytes, size in
                columnar_dict_remove(txn, managed.table, managed.key, managed.column, bytes, size, nil)
            }
        }
        managed.core.deleteOrphans(removed.map(ObjectValueAssignment.unwrapped))
    }

    /// Removes every key and value (`columnar_coll_clear`). Objects stay in the Realm, except embedded objects,
    /// which belong to the map.
    public func removeAll() {
        guard let managed else {
            unmanaged.removeAll()
            return
        }
        let removed: [Any] = holdsEmbedded ? entries().map { ObjectValueAssignment.unwrapped($0.value) } : []
        managed.mutate { txn in columnar_coll_clear(txn, managed.table, managed.key, managed.column) }
        managed.core.deleteOrphans(removed)
    }

    /// Sets the value for a key from an untyped value: nil removes the key, `NSNull` stores nil in a map with
    /// optional values.
    public func setValue(_ value: Any?, forKey key: String) {
        guard let value else {
            removeObject(for: Self.key(from: key))
            return
        }
        if value is NSNull, let null = Self.nullValue {
            updateValue(null, forKey: Self.key(from: key))
            return
        }
        let unwrapped = ObjectValueAssignment.unwrapped(value)
        if let typed = unwrapped as? Value {
            updateValue(typed, forKey: Self.key(from: key))
        } else if let converted = Self.valueType._convert(fromAny: unwrapped) as? Value {
            updateValue(converted, forKey: Self.key(from: key))
        } else {
            fatalError("Invalid value '\(value)' of type '\(type(of: value))' for a Map<\(Key.self), \(Value.self)>")
        }
    }

    // MARK: Sequences

    /// The entries in key order, as they are now.
    private func entries() -> [SingleMapEntry<Key, Value>] {
        guard let managed else {
            let entries = unmanaged   // once: a nested dictionary reads its tree on every access
            return Self.sortedKeys(entries.keys).map { SingleMapEntry(key: Self.key(from: $0), value: entries[$0]!) }
        }
        return (0..<count).map {
            SingleMapEntry(key: Self.key(from: keyString(at: $0, managed)), value: value(at: $0, managed))
        }
    }

    /// The entries in key order (ascending bytewise), as they were when iteration began.
    public func makeIterator() -> RLMMapIterator<SingleMapEntry<Key, Value>> {
        RLMMapIterator(entries())
    }

    /// The map as a sequence of `(key: Key, value: Value)` tuples rather than `SingleMapEntry` values.
    public struct KeyValueSequence: Sequence {
        public typealias Element = (key: Key, value: Value)

        private let entries: [SingleMapEntry<Key, Value>]

        init(_ entries: [SingleMapEntry<Key, Value>]) {
            self.entries = entries
        }

        public func makeIterator() -> RLMKeyValueIterator<Key, Value> { RLMKeyValueIterator(entries) }
    }

    /// The map as a sequence of `(key: Key, value: Value)` tuples, in key order.
    public func asKeyValueSequence() -> KeyValueSequence {
        KeyValueSequence(entries())
    }

    public var description: String {
        let items = entries().map { "\t[\(ObjectBase.describe($0.key))]: " + ObjectBase.describe($0.value) }
        return "Map<\(Key.self), \(Value.self)> <\(items.count) entries> (\n" + items.joined(separator: ",\n") + "\n)"
    }

    // MARK: Keys

    /// The engine's limit on the size of a dictionary key (`COLUMNAR_MAX_NAME_BYTES * 4`).
    static var maximumKeyBytes: Int { Int(COLUMNAR_MAX_NAME_BYTES) * 4 }

    /// Refuses keys RealmSwift refuses, with realm-core's messages, and keys the engine cannot store.
    static func checkInsertable(_ key: String) {
        precondition(!key.hasPrefix("$"), "Dictionary::insert: key must not start with '$' (key '\(key)')")
        precondition(!key.contains("."), "Dictionary::insert: key must not contain '.' (key '\(key)')")
        precondition(key.utf8.count <= maximumKeyBytes,
                     "Dictionary::insert: key must not be longer than \(maximumKeyBytes) bytes in UTF-8 (key of "
                         + "\(key.utf8.count) bytes)")
    }

    /// The one place that turns keys into strings and back: `String` is the only `_MapKey`.
    static func string(from key: Key) -> String {
        key as! String
    }

    private static func key(from string: String) -> Key {
        string as! Key
    }

    /// Unmanaged keys in the order the engine keeps managed ones: ascending bytewise UTF-8.
    private static func sortedKeys(_ keys: Dictionary<String, Value>.Keys) -> [String] {
        keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    private static func withKeyBytes<R>(_ key: String, _ body: (UnsafeRawPointer?, Int) -> R) -> R {
        var key = key
        return key.withUTF8 { body(UnsafeRawPointer($0.baseAddress), $0.count) }
    }

    /// Whether `Value` is an Optional (`Map<String, Dog?>`), so that keys can hold nil.
    private static var hasOptionalValues: Bool { Value.self is any OptionalProtocol.Type }

    /// nil as a `Value`, when `Value` is optional.
    private static var nullValue: Value? {
        guard hasOptionalValues else { return nil }
        return valueType._rlmDefaultValue() as? Value   // an Optional's default is nil
    }

    /// A value as `AnyObject` for the Objective-C flavoured accessors, with nil as `NSNull`.
    private static func boxed(_ value: Any) -> AnyObject {
        if let optional = value as? OptionalProtocol, optional.isNone { return NSNull() }
        return ObjectValueAssignment.unwrapped(value) as AnyObject
    }

    // MARK: Engine access

    private func lookUp(_ key: String) -> Value? {
        guard let managed else { return unmanaged[key] }
        guard key.utf8.count <= Self.maximumKeyBytes else { return nil }   // too long to have been stored
        var value = columnar_value()
        var found = false
        let txn = managed.transaction()
        managed.check(Self.withKeyBytes(key) { bytes, size in
            columnar_dict_get(txn, managed.table, managed.key, managed.column, bytes, size, &value, &found)
        })
        guard found else { return nil }
        if Value.self == AnyRealmValue.self {
            // A nested collection in the value stays live at this key.
            return (AnyRealmValue.read(value, root: .mapValue(managed, key), in: managed.core) as! Value)
        }
        return managed.read(value, as: Self.valueType) as? Value
    }

    private func keyString(at index: Int, _ managed: CollectionColumn) -> String {
        var bytes: UnsafeRawPointer?
        var size = 0
        managed.check(columnar_dict_key_at(managed.transaction(), managed.table, managed.key, managed.column,
                                           UInt64(index), &bytes, &size))
        guard let bytes, size > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: size), as: UTF8.self)
    }

    private func value(at index: Int, _ managed: CollectionColumn) -> Value {
        if Value.self == AnyRealmValue.self {
            // A nested collection in the value stays live at its key.
            var value = columnar_value()
            managed.check(columnar_coll_get(managed.transaction(), managed.table, managed.key, managed.column,
                                            UInt64(index), &value))
            return AnyRealmValue.read(value, root: .mapValue(managed, keyString(at: index, managed)),
                                      in: managed.core) as! Value
        }
        return managed.element(at: index, as: Self.valueType) as! Value
    }
}

extension Map: Sequence {}

extension Map: _Persistable, ManagedCollectionProperty {
    public static var _isCollection: Bool { true }
    public static var _storage: _StorageType {
        var storage = valueType._storage
        // (A link's storage is nullable even for a non-optional object type, so ask the Swift type.)
        precondition(storage.type != COLUMNAR_TYPE_LINK || hasOptionalValues,
                     "Map<\(Key.self), \(Value.self)>: a map of objects must have optional values "
                         + "(Map<\(Key.self), \(Value.self)?>)")
        storage.collection = COLUMNAR_COLLECTION_DICT
        return storage
    }
    public static func _rlmDefaultValue() -> Map<Key, Value> { Map() }

    /// A dictionary (of values, or of values that convert to them, like dictionaries for objects) makes a map.
    public static func _convert(fromAny value: Any) -> Map<Key, Value>? {
        guard let dictionary = value as? [String: Any] else { return nil }
        let map = Map()
        for (key, item) in dictionary {
            let item = ObjectValueAssignment.unwrapped(item)
            if let typed = item as? Value {
                map.updateValue(typed, forKey: Self.key(from: key))
            } else if let optional = item as? OptionalProtocol, optional.isNone, let null = nullValue {
                map.updateValue(null, forKey: Self.key(from: key))
            } else if let converted = valueType._convert(fromAny: item) as? Value {
                map.updateValue(converted, forKey: Self.key(from: key))
            } else {
                return nil
            }
        }
        return map
    }
    public static func _read(_ value: columnar_value, from realm: Realm) -> Map<Key, Value> {
        fatalError("a Map is read as a collection, not as a value")
    }
    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        fatalError("a Map is written as a collection, not as a value")
    }

    static func managed(in core: RealmCore, location: ObjectLocation, column: columnar_col_id) -> Any {
        Map(location: location, column: column)
    }

    func assign(to core: RealmCore, location: ObjectLocation, column: columnar_col_id) throws {
        // Read first: the source may be this very column. Managed embedded objects are copied, since clearing the
        // column deletes the ones it owned.
        let entries = entries().map { entry -> (key: Key, value: Value) in
            guard let embedded = ObjectValueAssignment.unwrapped(entry.value) as? EmbeddedObject,
                  embedded._location != nil else { return (entry.key, entry.value) }
            let copy = type(of: embedded).init()
            ObjectValueAssignment.assign(embedded, to: copy)
            return (entry.key, copy as! Value)
        }
        let target = Map(location: location, column: column)
        target.removeAll()
        for entry in entries { target.updateValue(entry.value, forKey: entry.key) }
    }
}

/// A map is encoded as a keyed container (a JSON object), as RealmSwift encodes it.
extension Map: Encodable where Key: Encodable, Value: Encodable {
    public func encode(to encoder: Encoder) throws {
        var dictionary: [String: Value] = [:]
        for entry in entries() { dictionary[Self.string(from: entry.key)] = entry.value }
        try dictionary.encode(to: encoder)
    }
}

extension Map: Decodable where Key: Decodable, Value: Decodable {
    public convenience init(from decoder: Decoder) throws {
        self.init()
        let dictionary = try [String: Value](from: decoder)
        for (key, value) in dictionary { updateValue(value, forKey: Self.key(from: key)) }
    }
}
