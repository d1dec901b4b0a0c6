// QueryValue: a constant in a query, of any of the value types a Columnar property can hold.
//
// Literals in a query string, the Swift values substituted for `%@`, and the constants of the typed builder all
// become a QueryValue. Whether a constant fits the property it is compared with is decided later, by the type
// checker, which knows the model; here a value only says what it is.

/// A point in time as the storage engine keeps it: whole seconds since 1970-01-01 00:00:00 UTC plus nanoseconds.
/// As in RealmSwift's `T<seconds>:<nanoseconds>` literal, both parts have the same sign.
public struct QueryTimestamp: Hashable, Sendable {
    public var seconds: Int64
    public var nanoseconds: Int32

    public init(seconds: Int64, nanoseconds: Int32) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }
}

/// A constant value. Integers of every width are `int`; `float` only arises from a Swift `Float` argument.
public enum QueryValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Float)
    case double(Double)
    case string(String)
    case data([UInt8])
    case timestamp(QueryTimestamp)
    /// A 12-byte ObjectId, in the byte order of its 24-digit hexadecimal form.
    case objectId([UInt8])
    /// A 16-byte UUID, in the byte order of its textual form.
    case uuid([UInt8])
    /// A Decimal128, as its exact text (`decimal128(1.5)` in a query; the object layer's QueryDecimalSupport
    /// parses it).
    case decimal128(String)
    /// An object, compared with a link (see QueryObjectReference.swift).
    case object(QueryObjectReference)
    /// A collection of values: the right side of `IN %@` or `BETWEEN %@` when the argument is an array.
    case list([QueryValue])
    /// A list nested in a mixed value (an `AnyRealmValue.list` argument), compared with stored ones by contents.
    case nestedList([QueryValue])
    /// A dictionary nested in a mixed value (an `AnyRealmValue.dictionary` argument).
    case nestedDictionary([String: QueryValue])
}
