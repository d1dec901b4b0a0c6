// EngineValue: comparisons and conversions of the engine's `columnar_value` that the API needs beside the typed
// `_Persistable` conversions (primary-key checks, lookups by a primary key given as `Any`).

import CColumnar
import Foundation

enum EngineValue {
    /// Whether two engine values are the same stored value (same type and null-ness, same payload).
    static func equal(_ a: columnar_value, _ b: columnar_value) -> Bool {
        guard a.type == b.type, a.is_null == b.is_null else { return false }
        if a.is_null { return true }
        switch a.type {
        case COLUMNAR_TYPE_BOOL: return a.as.b == b.as.b
        // Floating-point payloads by their bits: a stored NaN is the same value as itself (comparing with `==`
        // made every NaN property look changed to change notifications), and -0.0 is not 0.0.
        case COLUMNAR_TYPE_FLOAT: return a.as.f.bitPattern == b.as.f.bitPattern
        case COLUMNAR_TYPE_DOUBLE: return a.as.d.bitPattern == b.as.d.bitPattern
        case COLUMNAR_TYPE_STRING, COLUMNAR_TYPE_BINARY, COLUMNAR_TYPE_MIXED:
            guard a.as.bytes.size == b.as.bytes.size else { return false }
            return a.as.bytes.size == 0 || memcmp(a.as.bytes.data, b.as.bytes.data, a.as.bytes.size) == 0
        case COLUMNAR_TYPE_TIMESTAMP:
            return a.as.timestamp.seconds == b.as.timestamp.seconds
                && a.as.timestamp.nanoseconds == b.as.timestamp.nanoseconds
        case COLUMNAR_TYPE_OBJECTID:
            return withUnsafeBytes(of: a.as.objectid) { x in withUnsafeBytes(of: b.as.objectid) { y in x.elementsEqual(y) } }
        case COLUMNAR_TYPE_UUID:
            return withUnsafeBytes(of: a.as.uuid) { x in withUnsafeBytes(of: b.as.uuid) { y in x.elementsEqual(y) } }
        case COLUMNAR_TYPE_DECIMAL128:
            return withUnsafeBytes(of: a.as.decimal128) { x in
                withUnsafeBytes(of: b.as.decimal128) { y in x.elementsEqual(y) }
            }
        default: return a.as.i == b.as.i
        }
    }

    /// A value given as `Any` (a primary key, a dictionary entry) as the `_Persistable` the property stores, or nil
    /// when it cannot be one. Integers of any width are accepted for Int properties.
    static func persistable(_ value: Any, for property: Property) -> (any _Persistable)? {
        persistable(value, type: property.storage.type, nullable: property.isOptional)
    }

    /// `value` as the `_Persistable` a column of `type` stores (links excepted), or nil when it cannot be one (an
    /// integer that does not fit in 64 bits, a nil for a column that is not nullable, another type).
    static func persistable(_ value: Any, type: columnar_type, nullable: Bool) -> (any _Persistable)? {
        if let optional = value as? OptionalProtocol, optional.isNone {
            return nullable ? NullValue(type: type) : nil
        }
        switch type {
        case COLUMNAR_TYPE_INT:
            if let integer = value as? any BinaryInteger { return Int64(exactly: integer) }
            return nil
        case COLUMNAR_TYPE_BOOL: return value as? Bool
        case COLUMNAR_TYPE_FLOAT: return (value as? Float) ?? (value as? Double).map(Float.init)
        case COLUMNAR_TYPE_DOUBLE: return (value as? Double) ?? (value as? Float).map(Double.init)
        case COLUMNAR_TYPE_STRING: return value as? String
        case COLUMNAR_TYPE_BINARY: return value as? Data
        case COLUMNAR_TYPE_TIMESTAMP: return value as? Date
        case COLUMNAR_TYPE_UUID: return value as? UUID
        case COLUMNAR_TYPE_OBJECTID: return value as? ObjectId
        case COLUMNAR_TYPE_DECIMAL128: return value as? Decimal128
        case COLUMNAR_TYPE_MIXED: return AnyRealmValue._convert(fromAny: value)
        default: return nil
        }
    }
}

/// Lets `Any` values that hold an Optional be recognised as nil.
protocol OptionalProtocol {
    var isNone: Bool { get }
    /// The type inside the optional.
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalProtocol {
    var isNone: Bool { self == nil }
    static var wrappedType: Any.Type { Wrapped.self }
}

/// A null of a given engine type (for lookups by a nil primary key).
struct NullValue: _Persistable {
    let type: columnar_type
    static var _storage: _StorageType { _StorageType(type: COLUMNAR_TYPE_INT, nullable: true) }
    static func _rlmDefaultValue() -> NullValue { NullValue(type: COLUMNAR_TYPE_INT) }
    static func _read(_ value: columnar_value, from realm: Realm) -> NullValue { NullValue(type: value.type) }
    func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        var value = columnar_value()
        value.type = type
        value.is_null = true
        return try body(&value)
    }
}
