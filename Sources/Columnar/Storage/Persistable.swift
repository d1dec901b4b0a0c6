// Persistable: the Swift types a `@Persisted` property can hold, and how each maps to an engine column and to
// the engine's `columnar_value`.
//
// RealmSwift spells this protocol `_Persistable` (public, underscored: a detail users should not conform to), so
// the name is kept. Each conformance says what column it needs (`_storage`) and converts values both ways. Strings
// and binary data are handed to the engine as pointers valid only during the call, hence `_withValue`.

import CColumnar
import Foundation

/// What an engine column needs to hold a property.
public struct _StorageType: Equatable, @unchecked Sendable {
    var type: columnar_type
    var nullable: Bool
    var collection: columnar_collection_kind = COLUMNAR_COLLECTION_NONE
    /// For links and collections of links: the object type linked to.
    var objectType: ObjectBase.Type?

    public static func == (lhs: _StorageType, rhs: _StorageType) -> Bool {
        lhs.type == rhs.type && lhs.nullable == rhs.nullable && lhs.collection == rhs.collection
            && lhs.objectType.map(ObjectIdentifier.init) == rhs.objectType.map(ObjectIdentifier.init)
    }
}

/// A type that can be stored in a `@Persisted` property. Conformances are provided by Columnar for Bool, the
/// integer types, Float, Double, String, Data, Date, Decimal128, ObjectId, UUID, their optionals, optional
/// `Object` links, `PersistableEnum`s and the collection types.
public protocol _Persistable {
    /// The engine column this type is stored in.
    static var _storage: _StorageType { get }
    /// The value of a property declared without an initial value.
    static func _rlmDefaultValue() -> Self
    /// Reads a non-null engine value.
    static func _read(_ value: columnar_value, from realm: Realm) -> Self
    /// Calls `body` with this value as an engine value (valid only during the call).
    func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R
    /// Converts an untyped value of another but compatible type (an `Int` literal for an `Int8` property, a
    /// dictionary for a linked object), or nil.
    static func _convert(fromAny value: Any) -> Self?
    static var _isCollection: Bool { get }
}

extension _Persistable {
    public static func _convert(fromAny value: Any) -> Self? { nil }
    /// Whether the type is a collection (read and written through `ManagedCollectionProperty`). A static flag,
    /// because a dynamic protocol check on every property access costs more than the access itself.
    public static var _isCollection: Bool { false }
}

/// A `_Persistable` that can sit inside an Optional (all but collections).
public protocol _PersistableInsideOptional: _Persistable {
    /// A stored (non-null) value read into an optional property: the value, or nil when it cannot be one of
    /// this type (an enum's raw value that names no case, which RealmSwift reads as nil).
    static func _readInsideOptional(_ value: columnar_value, from realm: Realm) -> Self?
}

extension _PersistableInsideOptional {
    public static func _readInsideOptional(_ value: columnar_value, from realm: Realm) -> Self? {
        _read(value, from: realm)
    }
}

extension _Persistable {
    @inline(__always)
    static func makeValue(_ type: columnar_type) -> columnar_value {
        var value = columnar_value()
        value.type = type
        return value
    }
}

extension Bool: _PersistableInsideOptional {
    public static var _storage: _StorageType { _StorageType(type: COLUMNAR_TYPE_BOOL, nullable: false) }
    public static func _rlmDefaultValue() -> Bool { false }
    public static func _read(_ value: columnar_value, from realm: Realm) -> Bool { value.as.b }
    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        var value = Self.makeValue(COLUMNAR_TYPE_BOOL)
        value.as.b = self
        return try body(&value)
    }
}

/// The integer types share one engine type (bit-packed int64).
public protocol _PersistableInteger: _PersistableInsideOptional, FixedWidthInteger {}

extension _PersistableInteger {
    public static func _convert(fromAny value: Any) -> Self? {
        (value as? any BinaryInteger).flatMap { Self(exactly: $0) }
    }

    public static var _storage: _StorageType { _StorageType(type: COLUMNAR_TYPE_INT, nullable: false) }
    public static func _rlmDefaultValue() -> Self { 0 }
    public static func _read(_ value: columnar_value, from realm: Realm) -> Self {
        Self(truncatingIfNeeded: value.as.i)
    }
    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        var value = Self.makeValue(COLUMNAR_TYPE_INT)
        value.as.i = Int64(self)
        return try body(&value)
    }
}

extension Int: _PersistableInteger {}
extension Int8: _PersistableInteger {}
extension Int16: _PersistableInteger {}
extension Int32: _PersistableInteger {}
extension Int64: _PersistableInteger {}

extension Float: _PersistableInsideOptional {
    public static func _convert(fromAny value: Any) -> Float? {
        (value as? Double).map(Float.init) ?? (value as? Int).map(Float.init)
    }

    public static var _storage: _StorageType { _StorageType(type: COLUMNAR_TYPE_FLOAT, nullable: false) }
    public static func _rlmDefaultValue() -> Float { 0 }
    public static func _read(_ value: columnar_value, from realm: Realm) -> Float { value.as.f }
    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        var value = Self.makeValue(COLUMNAR_TYPE_FLOAT)
        value.as.f = self
        return try body(&value)
    }
}

extension Double: _PersistableInsideOptional {
    public static func _convert(fromAny value: Any) -> Double? {
        (value as? Float).map(Double.init) ?? (value as? Int).map(Double.init)
    }

    public static var _storage: _StorageType { _StorageType(type: COLUMNAR_TYPE_DOUBLE, nullable: false) }
    public static func _rlmDefaultValue() -> Double { 0 }
    public static func _read(_ value: columnar_value, from realm: Realm) -> Double { value.as.d }
    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        var value = Self.makeValue(COLUMNAR_TYPE_DOUBLE)
        value.as.d = self
        return try body(&value)
    }
}

extension String: _PersistableInsideOptional {
    public static var _storage: _StorageType { _StorageType(type: COLUMNAR_TYPE_STRING, nullable: false) }
    public static func _rlmDefaultValue() -> String { "" }
    public static func _read(_ value: columnar_value, from realm: Realm) -> String {
        let bytes = UnsafeRawBufferPointer(start: value.as.bytes.data, count: value.as.bytes.size)
        return String(decoding: bytes, as: UTF8.self)
    }
    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        var copy = self
        return try copy.withUTF8 { utf8 in
            var value = Self.makeValue(COLUMNAR_TYPE_STRING)
            value.as.bytes.data = UnsafeRawPointer(utf8.baseAddress)
            value.as.bytes.size = utf8.count
            return try body(&value)
        }
    }
}

extension Data: _PersistableInsideOptional {
    public static var _storage: _StorageType { _StorageType(type: COLUMNAR_TYPE_BINARY, nullable: false) }
    public static func _rlmDefaultValue() -> Data { Data() }
    public static func _read(_ value: columnar_value, from realm: Realm) -> Data {
        value.as.bytes.size == 0 ? Data() : Data(bytes: value.as.bytes.data, count: value.as.bytes.size)
    }
    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        try withUnsafeBytes { bytes in
            var value = Self.makeValue(COLUMNAR_TYPE_BINARY)
            value.as.bytes.data = bytes.baseAddress
            value.as.bytes.size = bytes.count
            return try body(&value)
        }
    }
}

extension Date: _PersistableInsideOptional {
    public static var _storage: _StorageType { _StorageType(type: COLUMNAR_TYPE_TIMESTAMP, nullable: false) }
    /// The moment the object is made, as RealmSwift's `Date()` default (the object keeps it; see PersistedCell).
    public static func _rlmDefaultValue() -> Date { Date() }
    public static func _read(_ value: columnar_value, from realm: Realm) -> Date {
        Date(timeIntervalSince1970: Double(value.as.timestamp.seconds)
             + Double(value.as.timestamp.nanoseconds) / 1_000_000_000)
    }
    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        // Seconds rounded down and nanoseconds 0...999,999,999, so dates before 1970 keep their order.
        let interval = timeIntervalSince1970
        let seconds = interval.rounded(.down)
        var nanoseconds = ((interval - seconds) * 1_000_000_000).rounded()
        var wholeSeconds = Int64(seconds)
        if nanoseconds >= 1_000_000_000 {
            wholeSeconds += 1
            nanoseconds = 0
        }
        var value = Self.makeValue(COLUMNAR_TYPE_TIMESTAMP)
        value.as.timestamp.seconds = wholeSeconds
        value.as.timestamp.nanoseconds = Int32(nanoseconds)
        return try body(&value)
    }
}

extension UUID: _PersistableInsideOptional {
    public static var _storage: _StorageType { _StorageType(type: COLUMNAR_TYPE_UUID, nullable: false) }
    /// A fresh random UUID, as RealmSwift's `UUID()` default, so two new objects never share one (the object keeps
    /// it; see PersistedCell).
    public static func _rlmDefaultValue() -> UUID { UUID() }
    public static func _read(_ value: columnar_value, from realm: Realm) -> UUID { UUID(uuid: value.as.uuid) }
    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        var value = Self.makeValue(COLUMNAR_TYPE_UUID)
        value.as.uuid = uuid
        return try body(&value)
    }
}

extension Optional: _Persistable where Wrapped: _PersistableInsideOptional {
    public static var _storage: _StorageType {
        var storage = Wrapped._storage
        storage.nullable = true
        return storage
    }
    public static func _rlmDefaultValue() -> Self { nil }
    public static func _convert(fromAny value: Any) -> Self? {
        if let optional = value as? OptionalProtocol, optional.isNone { return .some(nil) }
        return Wrapped._convert(fromAny: value).map { .some($0) }
    }
    public static func _read(_ value: columnar_value, from realm: Realm) -> Self {
        value.is_null ? nil : Wrapped._readInsideOptional(value, from: realm)
    }
    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        if let wrapped = self { return try wrapped._withValue(in: realm, body) }
        var value = Self.makeValue(Wrapped._storage.type)
        value.is_null = true
        return try body(&value)
    }
}
