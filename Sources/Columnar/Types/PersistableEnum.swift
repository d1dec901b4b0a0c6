// PersistableEnum: enums stored by raw value (`enum Kind: String, PersistableEnum { case a, b }`).

import CColumnar

/// An enum with a persistable raw value can be a `@Persisted` property (and an element of collections). A
/// property declared without a value starts at the first case. Enums are ordered by raw value, so collections
/// report their minimum and maximum (of integer raw values: the engine orders strings only in sorts).
public protocol PersistableEnum: _PersistableInsideOptional, RawRepresentable, CaseIterable, RealmCollectionValue,
    MinMaxType, Comparable where RawValue: _PersistableInsideOptional & Comparable {}

extension PersistableEnum {
    /// The first case.
    public init() {
        guard let first = Self.allCases.first else { fatalError("PersistableEnum \(Self.self) has no cases") }
        self = first
    }

    /// Orders by raw value.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public static var _storage: _StorageType { RawValue._storage }

    public static func _rlmDefaultValue() -> Self {
        guard let first = allCases.first else { fatalError("PersistableEnum \(Self.self) has no cases") }
        return first
    }

    public static func _read(_ value: columnar_value, from realm: Realm) -> Self {
        let raw = RawValue._read(value, from: realm)
        guard let result = Self(rawValue: raw) else {
            fatalError("The stored value '\(raw)' is not a raw value of \(Self.self)")
        }
        return result
    }

    /// In an optional property a raw value that names no case (written by another version of the enum) reads
    /// as nil, as in RealmSwift; a non-optional property has no such answer and stops with a message.
    public static func _readInsideOptional(_ value: columnar_value, from realm: Realm) -> Self? {
        Self(rawValue: RawValue._read(value, from: realm))
    }

    public func _withValue<R>(in realm: Realm, _ body: (inout columnar_value) throws -> R) throws -> R {
        try rawValue._withValue(in: realm, body)
    }

    public static func _convert(fromAny value: Any) -> Self? {
        (value as? RawValue).flatMap(Self.init(rawValue:)) ?? RawValue._convert(fromAny: value).flatMap(Self.init(rawValue:))
    }
}
