// QueryConstant: the Swift values of typed queries (`$0.age > 3`, `$0.id == someObjectId`) as constants of the
// query AST, and the `%@` conversions of the object layer's own value types.
//
// Both front ends must agree: `where { $0.id == oid }` and `filter("id == %@", oid)` have to give the same AST,
// or one of them would match different objects. QueryVM converts the Foundation types of `%@` arguments itself
// (Parser/QueryArgument.swift) and leaves the types that live in this module to `QueryArgumentConvertible`; the
// builder reuses those conformances and repeats QueryVM's table for the rest (it is internal to QueryVM). The
// tests check both paths against each other for every type.
//
// Decimal128 has no case of its own in `QueryValue`: a decimal constant is its exact text, `.string("1.5")`,
// which the canonical text prints and the parser reads back unchanged. The type checker hands constants compared
// with a Decimal128 property to the object layer's `QueryDecimalSupport.encode`, which must therefore parse a
// `.string` with `Decimal128(string:)` (as well as take `.int` and `.double` for literals written in a query).

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
        .string(stringValue)
    }
}

enum QueryConstant {
    /// The constant for a Swift value compared in a typed query. Optionals are unwrapped (nil is `NULL`),
    /// persistable enums compare by raw value, and sequences (the argument of `in(_:)` and `containsAny(in:)`)
    /// become lists.
    static func value(of value: Any) -> QueryValue {
        if let converted = convert(value) { return converted }
        let unwrapped = ObjectValueAssignment.unwrapped(value)
        if unwrapped is ObjectBase {
            // The AST has no constant for an object, and a link's stored key means nothing to a query text.
            fatalError("Columnar: comparing a link with an object (\(type(of: unwrapped))) is not supported by the "
                       + "typed query builder yet; compare a property of the linked object, such as its primary key")
        }
        fatalError("Columnar: a value of type \(type(of: unwrapped)) cannot be a query constant")
    }

    private static func convert(_ value: Any) -> QueryValue? {
        if let optional = value as? OptionalProtocol {
            if optional.isNone { return .null }
            let unwrapped = ObjectValueAssignment.unwrapped(value)
            return convert(unwrapped)
        }
        switch value {
        case let value as QueryArgumentConvertible: return value.queryValue
        case let value as any PersistableEnum: return convert(rawValue(of: value))
        case let value as Bool: return .bool(value)
        case let value as Int: return .int(Int64(value))
        case let value as Int8: return .int(Int64(value))
        case let value as Int16: return .int(Int64(value))
        case let value as Int32: return .int(Int64(value))
        case let value as Int64: return .int(value)
        case let value as UInt8: return .int(Int64(value))
        case let value as UInt16: return .int(Int64(value))
        case let value as UInt32: return .int(Int64(value))
        case let value as Float: return .float(value)
        case let value as Double: return .double(value)
        case let value as String: return .string(value)
        case let value as Substring: return .string(String(value))
        case let value as Data: return .data(Array(value))
        case let value as Date: return .timestamp(timestamp(of: value))
        case let value as UUID: return .uuid(withUnsafeBytes(of: value.uuid) { Array($0) })
        case is NSNull: return .null
        case is ObjectBase: return nil
        case let sequence as any Sequence: return list(of: sequence)
        default: return nil
        }
    }

    private static func rawValue<Enum: PersistableEnum>(of value: Enum) -> Any { value.rawValue }

    private static func list<S: Sequence>(of sequence: S) -> QueryValue {
        .list(sequence.map { value(of: $0) })
    }

    /// A Date as whole seconds and nanoseconds of the same sign, as QueryVM converts a `%@` Date (the AST's
    /// `QueryTimestamp` convention), rounded to the nearest nanosecond.
    static func timestamp(of date: Date) -> QueryTimestamp {
        let interval = date.timeIntervalSince1970
        let seconds = interval.rounded(.towardZero)
        var wholeSeconds = Int64(seconds)
        var nanoseconds = Int64(((interval - seconds) * 1_000_000_000).rounded())
        if nanoseconds >= 1_000_000_000 { wholeSeconds += 1; nanoseconds -= 1_000_000_000 }
        if nanoseconds <= -1_000_000_000 { wholeSeconds -= 1; nanoseconds += 1_000_000_000 }
        return QueryTimestamp(seconds: wholeSeconds, nanoseconds: Int32(nanoseconds))
    }
}
