// Storage of ObjectId (12 bytes) and Decimal128 (16 bytes, IEEE 754-2008 BID) in engine columns.

import CColumnar

extension ObjectId: _PersistableInsideOptional {
    public static var _storage: _StorageType { _StorageType(type: COLUMNAR_TYPE_OBJECTID, nullable: false) }
    /// A fresh identifier, as in RealmSwift: two new objects never share an `ObjectId` property's default (so a
    /// primary key of that type needs no explicit value). The object keeps the one it was given (PersistedCell).
    public static func _rlmDefaultValue() -> ObjectId { .generate() }
    public static func _read(_ value: columnar_value, from realm: Realm) -> ObjectId { ObjectId(bytes: value.as.objectid) }
    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        var value = Self.makeValue(COLUMNAR_TYPE_OBJECTID)
        value.as.objectid = bytes
        return try body(&value)
    }
}

extension Decimal128: _PersistableInsideOptional {
    public static var _storage: _StorageType { _StorageType(type: COLUMNAR_TYPE_DECIMAL128, nullable: false) }
    public static func _rlmDefaultValue() -> Decimal128 { Decimal128() }
    public static func _read(_ value: columnar_value, from realm: Realm) -> Decimal128 {
        Decimal128(bytes: value.as.decimal128)
    }
    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        var value = Self.makeValue(COLUMNAR_TYPE_DECIMAL128)
        value.as.decimal128 = bytes
        return try body(&value)
    }
}

extension ObjectId: RealmCollectionValue {}
extension Decimal128: RealmCollectionValue {}
