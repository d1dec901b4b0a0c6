// QueryConstant: the Swift values of typed queries (`$0.age > 3`, `$0.id == someObjectId`) as constants of the
// query AST, and the `%@` conversions of the object layer's own value types.
//
// Both front ends must agree: `where { $0.id == oid }` and `filter("id == %@", oid)` have to give the same AST,
// or one of them would match different objects. QueryVM converts the Foundation types of `%@` arguments itself
// (Parser/QueryArgument.swift) and leaves the types that live in this module to `QueryArgumentConvertible`; the
// builder converts single values through that same table (`QueryArgument.scalarValue`) and adds what only it
// takes: persistable enums by raw value, and sequences as lists of its own constants. The tests check both paths
// against each other for every type.
//
// An object (`$0.owner == dog`) becomes its class and key through ObjectBase's conformance below, whichever front
// end it came through; the type checker decides whether it may be compared (stored, in this Realm, of the class
// the link points to).
//
// A Decimal128 constant is its exact text, `.decimal128("1.5")`, which the canonical text prints as
// `decimal128(1.5)` and the parser reads back unchanged. The type checker hands constants compared with a
// Decimal128 property (or a mixed one) to the object layer's `QueryDecimalSupport.encode`, which parses that text
// (and a `.string`, as text written in a query) with `Decimal128(string:)`, and takes `.int` and `.double` for
// numbers written in a query.

import Foundation
import QueryVM

extension ObjectId: QueryArgumentConvertible {
    /// The twelve bytes, in the order of the 24-digit hexadecimal form.
    public var queryValue: QueryValue {
        .objectId(Swift.withUnsafeBytes(of: bytes) { Array($0) })
    }
}

extension Decimal128: QueryArgumentConvertible {
    /// The exact decimal text (see the file comment): every finite value, NaN and the infinities read back to the
    /// same Decimal128.
    public var queryValue: QueryValue {
        .decimal128(stringValue)
    }
}

extension ObjectBase: QueryArgumentConvertible {
    /// The object as a link's value: its class and key, and the open file it is stored in; or, for an object that
    /// is not stored, what it is, which the type checker refuses with a message (see QueryObjectReference).
    public var queryValue: QueryValue {
        let className = objectSchema.className
        guard let location = _location else { return .object(QueryObjectReference(className: className, storage: .unmanaged)) }
        guard location.core.objectExists(location) else {
            return .object(QueryObjectReference(className: className, storage: .invalidated))
        }
        return .object(QueryObjectReference(
            className: className, storage: .stored(key: location.key, database: ObjectIdentifier(location.core.file))))
    }
}

enum QueryConstant {
    /// The constant for a Swift value compared in a typed query. Optionals are unwrapped (nil is `NULL`),
    /// persistable enums compare by raw value, and sequences (the argument of `in(_:)` and `containsAny(in:)`)
    /// become lists.
    static func value(of value: Any) -> QueryValue {
        if let converted = convert(value) { return converted }
        let unwrapped = ObjectValueAssignment.unwrapped(value)
        fatalError("Columnar: a value of type \(type(of: unwrapped)) cannot be a query constant")
    }

    private static func convert(_ value: Any) -> QueryValue? {
        if let optional = value as? OptionalProtocol {
            if optional.isNone { return .null }
            let unwrapped = ObjectValueAssignment.unwrapped(value)
            return convert(unwrapped)
        }
        switch value {
        case let value as any PersistableEnum: return convert(rawValue(of: value))
        default: break
        }
        // QueryVM's own table of `%@` conversions (QueryArgumentConvertible included), so that both front ends
        // turn a value into the same constant.
        if let scalar = QueryArgument.scalarValue(of: value) { return scalar }
        if let sequence = value as? any Sequence { return list(of: sequence) }
        return nil
    }

    private static func rawValue<Enum: PersistableEnum>(of value: Enum) -> Any { value.rawValue }

    private static func list<S: Sequence>(of sequence: S) -> QueryValue {
        .list(sequence.map { value(of: $0) })
    }
}
