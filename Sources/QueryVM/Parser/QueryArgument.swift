// QueryArgument: turning the Swift values passed for `%@` into QueryValues.
//
// `filter("age > %@", 3)` hands the parser its arguments as `Any`, as RealmSwift's `filter(_:_:)` does. The types
// RealmSwift accepts are converted here: Bool, every fixed-width integer, Float, Double, String, Data, Date, UUID,
// nil, and arrays, sets and other sequences of these (for `IN %@` and `BETWEEN %@`). Types that live in the object
// layer (ObjectId, Decimal128, objects) conform to `QueryArgumentConvertible` there.

import Foundation

/// A Swift type that can be passed as a `%@` argument of a predicate-format string.
public protocol QueryArgumentConvertible {
    /// The constant this value stands for in a query.
    var queryValue: QueryValue { get }
}

public enum QueryArgument {
    /// The QueryValue for a Swift value, or nil when its type cannot appear in a query.
    static func value(of argument: Any) -> QueryValue? {
        if let common = commonValue(of: argument) { return common }
        let mirror = Mirror(reflecting: argument)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return .null }
            return value(of: wrapped)
        }
        if let scalar = scalarValue(of: argument) { return scalar }
        if mirror.displayStyle == .collection || mirror.displayStyle == .set {
            var elements: [QueryValue] = []
            for child in mirror.children {
                guard let element = value(of: child.value) else { return nil }
                elements.append(element)
            }
            return .list(elements)
        }
        // Other sequences (a Results or List of objects for `owner IN %@`): their elements, in order.
        if mirror.displayStyle != .dictionary, let sequence = argument as? any Sequence {
            return list(of: sequence)
        }
        return nil
    }

    private static func list<S: Sequence>(of sequence: S) -> QueryValue? {
        var elements: [QueryValue] = []
        for element in sequence {
            guard let value = value(of: element) else { return nil }
            elements.append(value)
        }
        return .list(elements)
    }

    /// The most common argument types, told apart by their exact type before anything else: the general path
    /// reflects on the value and casts it to a protocol first, which costs more than the rest of a cached query's
    /// preparation. The answers are the ones `scalarValue(of:)` gives for the same values.
    private static func commonValue(of argument: Any) -> QueryValue? {
        let type = ObjectIdentifier(Swift.type(of: argument))
        if type == ObjectIdentifier(String.self) { return .string(argument as! String) }
        if type == ObjectIdentifier(Int.self) { return .int(Int64(argument as! Int)) }
        if type == ObjectIdentifier(Double.self) { return .double(argument as! Double) }
        if type == ObjectIdentifier(Bool.self) { return .bool(argument as! Bool) }
        if type == ObjectIdentifier(Int64.self) { return .int(argument as! Int64) }
        return nil
    }

    /// The QueryValue for a single (non-optional, non-collection) Swift value, or nil when its type is not one
    /// of the table below. The typed query builder converts its constants through this too, so both front ends
    /// give the same constant for the same value.
    public static func scalarValue(of argument: Any) -> QueryValue? {
        switch argument {
        case let value as QueryArgumentConvertible: return value.queryValue
        case let value as QueryValue: return value
        case let value as Bool: return .bool(value)
        case let value as Int: return .int(Int64(value))
        case let value as Int8: return .int(Int64(value))
        case let value as Int16: return .int(Int64(value))
        case let value as Int32: return .int(Int64(value))
        case let value as Int64: return .int(value)
        case let value as UInt8: return .int(Int64(value))
        case let value as UInt16: return .int(Int64(value))
        case let value as UInt32: return .int(Int64(value))
        case let value as UInt: return Int64(exactly: value).map(QueryValue.int)
        case let value as UInt64: return Int64(exactly: value).map(QueryValue.int)
        case let value as Float: return .float(value)
        case let value as Double: return .double(value)
        case let value as String: return .string(value)
        case let value as Substring: return .string(String(value))
        case let value as Character: return .string(String(value))
        case let value as Unicode.Scalar: return .string(String(value))
        case let value as Data: return .data(Array(value))
        case let value as Date: return .timestamp(timestamp(of: value))
        case let value as UUID:
            return .uuid(withUnsafeBytes(of: value.uuid) { Array($0) })
        case is NSNull: return .null
        default: return nil
        }
    }

    /// A Date as whole seconds and nanoseconds of the same sign, rounded to the nearest nanosecond.
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
