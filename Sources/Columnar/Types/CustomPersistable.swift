// CustomPersistable: a Swift type stored as another, persistable one (RealmSwift's `CustomPersistable` and
// `FailableCustomPersistable`): a URL as its string, an amount of money as its Decimal128. The column, queries and
// sorts see the persisted value; properties, collection elements and key-value coding hand out the custom type.
//
// Reading converts the stored value with `init(persistedValue:)`; writing stores `persistableValue`. A failable
// conversion that fails reads as nil in an optional property (and collection element), as RealmSwift does, and
// stops with RealmSwift's message where no nil is possible. Query constants of the custom type become the
// constants of their persisted values, through the same conversion table both query front ends use.

import CColumnar
import Foundation
import QueryVM

/// A type with a persisted representation (RealmSwift's `_HasPersistedType`): what its column holds.
public protocol _HasPersistedType {
    /// The type stored in the database for this type.
    associatedtype PersistedType: _PersistableInsideOptional & RealmCollectionValue
}

/// What CustomPersistable and FailableCustomPersistable share: the storage, conversion and query plumbing.
public protocol _CustomPersistable: _HasPersistedType, _PersistableInsideOptional, RealmCollectionValue,
    QueryArgumentConvertible {
    /// The value to store for this one.
    var persistableValue: PersistedType { get }
    /// This type's value for a stored one, or nil when the stored value does not convert.
    static func _fromPersisted(_ value: PersistedType) -> Self?
}

/// A type stored as a `PersistedType` that every stored value converts back from: declare conformance, then use it
/// as a `@Persisted` property, a collection element, or a query constant.
///
/// ```swift
/// struct Cents: CustomPersistable, Hashable {
///     var amount: Int
///     init(persistedValue: Int) { amount = persistedValue }
///     var persistableValue: Int { amount }
/// }
/// ```
public protocol CustomPersistable: _CustomPersistable {
    /// Restated so that a conforming type's `PersistedType` is inferred from its `persistableValue` (the compiler
    /// does not infer an associated type of a refined protocol from this protocol's requirements).
    associatedtype PersistedType
    /// The value for a stored one.
    init(persistedValue: PersistedType)
    /// The value to store.
    var persistableValue: PersistedType { get }
}

/// A type stored as a `PersistedType` that not every stored value converts back from (`URL` from a `String`). In
/// an optional property or collection a value that does not convert reads as nil.
public protocol FailableCustomPersistable: _CustomPersistable {
    /// Restated for inference, as in CustomPersistable.
    associatedtype PersistedType
    /// The value for a stored one, or nil when it does not convert.
    init?(persistedValue: PersistedType)
    /// The value to store.
    var persistableValue: PersistedType { get }
}

extension CustomPersistable {
    public static func _fromPersisted(_ value: PersistedType) -> Self? { Self(persistedValue: value) }
}

extension FailableCustomPersistable {
    public static func _fromPersisted(_ value: PersistedType) -> Self? { Self(persistedValue: value) }
}

extension _CustomPersistable {
    /// The persisted type's column. An object type as the persisted type (an embedded object holding the value) is
    /// not supported yet, and says so.
    public static var _storage: _StorageType {
        let storage = PersistedType._storage
        if storage.type == COLUMNAR_TYPE_LINK {
            fatalError("Columnar: \(Self.self) is persisted as an object (\(PersistedType.self)); a CustomPersistable "
                           + "type whose PersistedType is an object is not supported yet")
        }
        return storage
    }

    /// The value for the persisted type's default (RealmSwift's): a property declared without a value starts there.
    public static func _rlmDefaultValue() -> Self {
        let persisted = PersistedType._rlmDefaultValue()
        guard let value = _fromPersisted(persisted) else { conversionFailed(persisted) }
        return value
    }

    public static func _read(_ value: columnar_value, from realm: Realm) -> Self {
        let persisted = PersistedType._read(value, from: realm)
        guard let converted = _fromPersisted(persisted) else { conversionFailed(persisted) }
        return converted
    }

    public static func _readInsideOptional(_ value: columnar_value, from realm: Realm) -> Self? {
        PersistedType._readInsideOptional(value, from: realm).flatMap(_fromPersisted)
    }

    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        try persistableValue._withValue(in: realm, body)
    }

    /// A value of the persisted type (from a dictionary of values, or a migration) converts; so does one that
    /// converts to the persisted type (an Int literal for an Int8).
    public static func _convert(fromAny value: Any) -> Self? {
        if let persisted = value as? PersistedType ?? PersistedType._convert(fromAny: value) {
            return _fromPersisted(persisted)
        }
        return nil
    }

    /// As a query constant, the persisted value's constant.
    public var queryValue: QueryValue {
        guard let value = QueryArgument.scalarValue(of: persistableValue) else {
            fatalError("Columnar: the persisted value of \(Self.self) (\(PersistedType.self)) cannot be a query "
                           + "constant")
        }
        return value
    }

    private static func conversionFailed(_ persisted: PersistedType) -> Never {
        fatalError("Failed to convert persisted value '\(persisted)' to type '\(Self.self)' in a non-optional "
                       + "context.")
    }
}

// MARK: Queries

extension Query where T: _HasPersistedType {
    /// The persisted value, with the persisted type's operations (`$0.url.persistableValue.starts(with: "https")`).
    public var persistableValue: Query<T.PersistedType> { Query<T.PersistedType>(node) }
}

extension Query where T: _QueryOptional, T.Wrapped: _HasPersistedType {
    /// The persisted value of an optional custom property.
    public var persistableValue: Query<T.Wrapped.PersistedType?> { Query<T.Wrapped.PersistedType?>(node) }
}

/// Custom types persisted as numbers, dates, strings or data order as their persisted values.
extension Query where T: _CustomPersistable, T.PersistedType: _QueryOrdered {
    public static func > (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .comparison(.greaterThan, lhs.node, constant(rhs))
    }

    public static func >= (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .comparison(.greaterThanOrEqual, lhs.node, constant(rhs))
    }

    public static func < (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .comparison(.lessThan, lhs.node, constant(rhs))
    }

    public static func <= (_ lhs: Query, _ rhs: T) -> Query<Bool> {
        .comparison(.lessThanOrEqual, lhs.node, constant(rhs))
    }
}
