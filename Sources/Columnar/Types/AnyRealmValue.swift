// AnyRealmValue: a property (or collection element) that holds a value of any type, or none (RealmSwift's mixed).
//
// It is stored in a MIXED column: the engine keeps each value as one tag byte (its type) and the value's bytes
// (columnar.h, "Mixed values"), so a mixed column costs a value's own size plus a byte. An object is stored as its
// table and key; the engine does not follow such links, so an object deleted since reads as `.none` (keys are never
// reused, so a later object cannot take its place). Queries compare mixed values as Realm does: numbers of any
// type by value, everything else only with its own type (docs/QueryVM.md).
//
// The nested collections of RealmSwift 20 (`.list`, `.dictionary`) are stored inside the value's encoding, and a
// `List` or `Map` read from a stored value stays live (NestedMixedCollection.swift).

import CColumnar
import Foundation
import QueryVM

/// A value of any type a property can hold, or none.
public enum AnyRealmValue: Hashable {
    case none
    case int(Int)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case object(Object)
    case objectId(ObjectId)
    case decimal128(Decimal128)
    case uuid(UUID)
    case dictionary(Map<String, AnyRealmValue>)
    case list(List<AnyRealmValue>)

    /// `.none`.
    public init() { self = .none }

    public var intValue: Int? { if case .int(let value) = self { return value } else { return nil } }
    public var boolValue: Bool? { if case .bool(let value) = self { return value } else { return nil } }
    public var floatValue: Float? { if case .float(let value) = self { return value } else { return nil } }
    public var doubleValue: Double? { if case .double(let value) = self { return value } else { return nil } }
    public var stringValue: String? { if case .string(let value) = self { return value } else { return nil } }
    public var dataValue: Data? { if case .data(let value) = self { return value } else { return nil } }
    public var dateValue: Date? { if case .date(let value) = self { return value } else { return nil } }
    public var objectIdValue: ObjectId? { if case .objectId(let value) = self { return value } else { return nil } }
    public var decimal128Value: Decimal128? {
        if case .decimal128(let value) = self { return value } else { return nil }
    }
    public var uuidValue: UUID? { if case .uuid(let value) = self { return value } else { return nil } }
    public var dictionaryValue: Map<String, AnyRealmValue>? {
        if case .dictionary(let value) = self { return value } else { return nil }
    }
    public var listValue: List<AnyRealmValue>? { if case .list(let value) = self { return value } else { return nil } }

    /// The object, when the value is an object of class `objectType`.
    public func object<T: Object>(_ objectType: T.Type) -> T? {
        if case .object(let object) = self { return object as? T } else { return nil }
    }

    /// The object as a `DynamicObject` (an object of a class the program does not know is read as one).
    public var dynamicObject: DynamicObject? {
        guard case .object(let object) = self else { return nil }
        if let dynamic = object as? DynamicObject { return dynamic }
        guard let location = object._location else { return nil }
        let binding = location.core.requireDynamicBinding(named: location.binding.schema.className)
        return location.core.materialize(DynamicObject.self, binding: binding, key: location.key)
    }

    /// `.dictionary` of an unmanaged map holding `dictionary`.
    public static func fromDictionary(_ dictionary: [String: AnyRealmValue]) -> AnyRealmValue {
        let map = Map<String, AnyRealmValue>()
        for (key, value) in dictionary { map[key] = value }
        return .dictionary(map)
    }

    /// `.list` of an unmanaged list holding `array`.
    public static func fromArray(_ array: [AnyRealmValue]) -> AnyRealmValue {
        let list = List<AnyRealmValue>()
        list.append(objectsIn: array)
        return .list(list)
    }

    /// Values are equal when they are the same case with equal payloads: `.int(1)` is not `.double(1)` (queries, on
    /// the other hand, compare numbers by value). Objects compare as `Object`'s `==`, collections by identity.
    public static func == (lhs: AnyRealmValue, rhs: AnyRealmValue) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none): return true
        case (.int(let l), .int(let r)): return l == r
        case (.bool(let l), .bool(let r)): return l == r
        case (.float(let l), .float(let r)): return l == r
        case (.double(let l), .double(let r)): return l == r
        case (.string(let l), .string(let r)): return l == r
        case (.data(let l), .data(let r)): return l == r
        case (.date(let l), .date(let r)): return l == r
        case (.object(let l), .object(let r)): return l == r
        case (.objectId(let l), .objectId(let r)): return l == r
        case (.decimal128(let l), .decimal128(let r)): return l == r
        case (.uuid(let l), .uuid(let r)): return l == r
        // Stored collections are equal when they are the same one (the same place); unmanaged ones when their
        // contents are, as in RealmSwift.
        case (.dictionary(let l), .dictionary(let r)):
            if l === r || NestedMixedSlot.same(l.nested, r.nested) { return true }
            guard l.managed == nil, l.nested == nil, r.managed == nil, r.nested == nil, l.count == r.count else {
                return false
            }
            return l.asKeyValueSequence().allSatisfy { r[$0.key] == $0.value }
        case (.list(let l), .list(let r)):
            if l == r { return true }
            guard l.managed == nil, l.nested == nil, r.managed == nil, r.nested == nil else { return false }
            return Array(l) == Array(r)
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .none: hasher.combine(0)
        case .int(let value): hasher.combine(value)
        case .bool(let value): hasher.combine(value)
        case .float(let value): hasher.combine(value)
        case .double(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .data(let value): hasher.combine(value)
        case .date(let value): hasher.combine(value)
        case .object(let value): hasher.combine(value)
        case .objectId(let value): hasher.combine(value)
        case .decimal128(let value): hasher.combine(value)
        case .uuid(let value): hasher.combine(value)
        // Collections are equal by identity or place (two reads of one nested list are equal), which a hash of
        // the instance would not respect: the kind is all that is hashed.
        case .dictionary: hasher.combine("dictionary")
        case .list: hasher.combine("list")
        }
    }
}

extension AnyRealmValue: RealmCollectionValue {}

extension AnyRealmValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .none: return "none"
        case .int(let value): return "int(\(value))"
        case .bool(let value): return "bool(\(value))"
        case .float(let value): return "float(\(value))"
        case .double(let value): return "double(\(value))"
        case .string(let value): return "string(\(value))"
        case .data(let value): return "data(\(value.count) bytes)"
        case .date(let value): return "date(\(value))"
        case .object(let value): return "object(\(value.objectSchema.className))"
        case .objectId(let value): return "objectId(\(value))"
        case .decimal128(let value): return "decimal128(\(value))"
        case .uuid(let value): return "uuid(\(value))"
        case .dictionary(let value): return "dictionary(\(value.count) entries)"
        case .list(let value): return "list(\(value.count) elements)"
        }
    }
}

// MARK: Storage

extension AnyRealmValue: _Persistable {
    public static var _storage: _StorageType { _StorageType(type: COLUMNAR_TYPE_MIXED, nullable: true) }
    public static func _rlmDefaultValue() -> AnyRealmValue { .none }

    /// A value of a Swift type a mixed property can hold (`Int`, `String`, an `Object`, nil …) as that case, so
    /// that `Item(value: ["value": 5])` and `obj["value"] = "text"` work as in RealmSwift.
    public static func _convert(fromAny value: Any) -> AnyRealmValue? {
        if let optional = value as? OptionalProtocol, optional.isNone { return AnyRealmValue.none }
        switch ObjectValueAssignment.unwrapped(value) {
        case let mixed as AnyRealmValue: return mixed
        case is NSNull: return AnyRealmValue.none
        case let bool as Bool: return .bool(bool)
        case let int as Int: return .int(int)
        case let integer as any BinaryInteger: return Int(exactly: integer).map(AnyRealmValue.int)
        case let float as Float: return .float(float)
        case let double as Double: return .double(double)
        case let string as String: return .string(string)
        case let data as Data: return .data(data)
        case let date as Date: return .date(date)
        case let object as Object: return .object(object)
        case let objectId as ObjectId: return .objectId(objectId)
        case let decimal as Decimal128: return .decimal128(decimal)
        case let uuid as UUID: return .uuid(uuid)
        case let list as List<AnyRealmValue>: return .list(list)
        case let map as Map<String, AnyRealmValue>: return .dictionary(map)
        default: return nil
        }
    }

    public static func _read(_ value: columnar_value, from realm: Realm) -> AnyRealmValue {
        guard !value.is_null, value.as.bytes.size > 0 else { return .none }
        let tag = Int32(value.as.bytes.data.load(as: UInt8.self))
        if tag == COLUMNAR_MIXED_LIST || tag == COLUMNAR_MIXED_DICTIONARY {
            // Read with no place to stay live at (an old value of a change notification, a sort key): a copy.
            return AnyRealmValue.value(of: MixedTree(engineValue: value), at: nil, in: realm.core)
        }
        var decoded = columnar_value()
        let rc = columnar_mixed_decode(value.as.bytes.data, value.as.bytes.size, &decoded)
        // The engine checked the encoding when it read it from the file.
        Engine.mustSucceed(rc, "decoding a mixed value")
        return MixedValueReading.value(of: decoded, in: realm.core)
    }

    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        let payload: any _Persistable
        switch self {
        case .none:
            var value = Self.makeValue(COLUMNAR_TYPE_MIXED)
            value.is_null = true
            return try body(&value)
        case .list, .dictionary:
            // The collection's elements now, encoded as one tree (NestedMixedCollection.swift).
            return try MixedEncoding(bytes: MixedTree.of(self, in: realm).encoded())._withValue(in: realm, body)
        case .object(let object):
            let key = try realm.core.managedKey(of: object)
            var inner = columnar_value()
            inner.type = COLUMNAR_TYPE_LINK
            inner.as.typed_link.key = key
            inner.as.typed_link.table = object._location!.binding.table
            return try Self.encoded(&inner, body)
        case .int(let int): payload = Int64(int)
        case .bool(let bool): payload = bool
        case .float(let float): payload = float
        case .double(let double): payload = double
        case .string(let string): payload = string
        case .data(let data): payload = data
        case .date(let date): payload = date
        case .objectId(let id): payload = id
        case .decimal128(let decimal): payload = decimal
        case .uuid(let uuid): payload = uuid
        }
        return try payload._withValue(in: realm) { try Self.encoded(&$0, body) }
    }

    /// Calls `body` with a mixed engine value holding the encoding of `inner`, encoded once into a buffer of the
    /// exact size (on the stack for all but long strings and data).
    private static func encoded<R>(_ inner: inout columnar_value, _ body: (inout columnar_value) throws -> R)
        throws -> R {
        let isBytes = inner.type == COLUMNAR_TYPE_STRING || inner.type == COLUMNAR_TYPE_BINARY
        let capacity = isBytes ? 1 + inner.as.bytes.size : Int(COLUMNAR_MIXED_FIXED_BYTES)
        return try withUnsafeTemporaryAllocation(byteCount: capacity, alignment: 1) { bytes in
            var size = 0
            try Engine.check(columnar_mixed_encode(&inner, bytes.baseAddress, bytes.count, &size))
            var mixed = makeValue(COLUMNAR_TYPE_MIXED)
            mixed.as.bytes.data = UnsafeRawPointer(bytes.baseAddress)
            mixed.as.bytes.size = size
            return try body(&mixed)
        }
    }
}

/// Turning decoded mixed values into AnyRealmValue.
enum MixedValueReading {
    /// The case of a decoded (non-mixed) engine value; a link becomes the object, or `.none` when it is gone.
    static func value(of decoded: columnar_value, in core: RealmCore) -> AnyRealmValue {
        let realm = Realm(core: core)
        switch decoded.type {
        case COLUMNAR_TYPE_INT: return .int(Int(decoded.as.i))
        case COLUMNAR_TYPE_BOOL: return .bool(decoded.as.b)
        case COLUMNAR_TYPE_FLOAT: return .float(decoded.as.f)
        case COLUMNAR_TYPE_DOUBLE: return .double(decoded.as.d)
        case COLUMNAR_TYPE_STRING: return .string(String._read(decoded, from: realm))
        case COLUMNAR_TYPE_BINARY: return .data(Data._read(decoded, from: realm))
        case COLUMNAR_TYPE_TIMESTAMP: return .date(Date._read(decoded, from: realm))
        case COLUMNAR_TYPE_OBJECTID: return .objectId(ObjectId._read(decoded, from: realm))
        case COLUMNAR_TYPE_DECIMAL128: return .decimal128(Decimal128._read(decoded, from: realm))
        case COLUMNAR_TYPE_UUID: return .uuid(UUID._read(decoded, from: realm))
        case COLUMNAR_TYPE_LINK:
            return object(table: decoded.as.typed_link.table, key: decoded.as.typed_link.key, in: core)
                .map(AnyRealmValue.object) ?? .none
        default: return .none
        }
    }

    /// The object `key` of `table`, as its model class when the process knows it (else a DynamicObject), or nil
    /// when the table or the object no longer exists.
    static func object(table: columnar_table_id, key: columnar_key, in core: RealmCore) -> Object? {
        var info = columnar_table_info()
        guard columnar_table_info_get(core.currentTransaction, table, &info) == COLUMNAR_OK else { return nil }
        var exists = false
        guard columnar_obj_exists(core.currentTransaction, table, key, &exists) == COLUMNAR_OK, exists else {
            return nil
        }
        let className = Engine.name(info.name)
        if let modelClass = core.knownModelClass(named: className) as? Object.Type,
           let binding = try? core.binding(for: modelClass), binding.table == table {
            return core.materialize(modelClass, binding: binding, key: key)
        }
        guard let binding = core.dynamicBinding(named: className) else { return nil }
        return core.materialize(DynamicObject.self, binding: binding, key: key)
    }
}

// MARK: Queries

/// Mixed values order with `<` and `>` in typed queries, as in RealmSwift (numbers by value, strings bytewise…).
extension AnyRealmValue: _QueryNumeric {}

extension AnyRealmValue: QueryArgumentConvertible {
    /// The constant the value stands for: its payload (`.none` is NULL, an object is its class and key).
    public var queryValue: QueryValue {
        switch self {
        case .none: return .null
        case .int(let value): return .int(Int64(value))
        case .bool(let value): return .bool(value)
        case .float(let value): return .float(value)
        case .double(let value): return .double(value)
        case .string(let value): return .string(value)
        case .data(let value): return .data(Array(value))
        case .date(let value): return QueryArgument.scalarValue(of: value) ?? .null
        case .object(let value): return value.queryValue
        case .objectId(let value): return value.queryValue
        case .decimal128(let value): return value.queryValue
        case .uuid(let value): return QueryArgument.scalarValue(of: value) ?? .null
        // Compared with stored nested collections by contents (docs/QueryVM.md, "Nested collections").
        case .list(let list): return .nestedList(list.map(\.queryValue))
        case .dictionary(let map):
            var entries: [String: QueryValue] = [:]
            for entry in map { entries[entry.key] = entry.value.queryValue }
            return .nestedDictionary(entries)
        }
    }
}

/// Mixed values sort, by kind and then by value (docs/QueryVM.md, "Sorting"), as in RealmSwift.
extension AnyRealmValue: SortableType {}

// MARK: Aggregates

/// `min`, `max`, `sum` and `average` of mixed values, as RealmSwift has them: the sum and average of the numbers
/// among the values in Decimal128, the extremes among every value that sorts (MixedAggregation.swift).
extension AnyRealmValue: MinMaxType {}
extension AnyRealmValue: AddableType {}

extension AnyRealmValue {
    /// The value as the engine aggregates it; nil for none, objects and nested collections, which aggregates skip.
    var aggregateScalar: ScalarValue? {
        switch self {
        case .none, .object, .list, .dictionary: return nil
        case .int(let value): return .int(Int64(value))
        case .bool(let value): return .bool(value)
        case .float(let value): return .float(value)
        case .double(let value): return .double(value)
        case .string(let value): return .string(Array(value.utf8))
        case .data(let value): return .data(Array(value))
        case .date(let value):
            guard case .timestamp(let time)? = QueryArgument.scalarValue(of: value) else { return nil }
            return ScalarValue(stored: time)
        case .objectId(let value): return .objectId(withUnsafeBytes(of: value.bytes) { Array($0) })
        case .decimal128(let value): return .decimal128(value.bits)
        case .uuid(let value): return .uuid(withUnsafeBytes(of: value.uuid) { Array($0) })
        }
    }
}
