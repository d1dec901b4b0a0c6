// ScalarValue: one value as the query engine compares it, read from a column or taken from a query's constant.
//
// The kernels compare whole column arrays in C; everything they cannot do (paths through links, collections,
// aggregates, Unicode case folding) is decided here, one value at a time. Both must agree, so the rules are
// written down once, in docs/QueryVM.md ("Semantics"), and this file is their reference implementation.

import CColumnar
import Foundation

/// A value of any type a property can hold.
public enum ScalarValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Float)
    case double(Double)
    /// UTF-8 bytes (strings are compared as bytes, which for UTF-8 is Unicode scalar order).
    case string([UInt8])
    case data([UInt8])
    case timestamp(seconds: Int64, nanoseconds: Int32)
    case objectId([UInt8])
    case uuid([UInt8])
    case decimal128([UInt8])
    /// The key of an object of `table`.
    case link(table: columnar_table_id, key: Int64)
    /// A list or dictionary nested in a mixed value: its whole encoding, tag first (columnar.h, "Nested
    /// collections"). It equals no other value and has no order.
    case nestedCollection([UInt8])

    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// A query timestamp as stored ones are. Query timestamps before 1970 give the nanoseconds the sign of the
    /// seconds (RealmSwift's Timestamp), but stored ones have nanoseconds 0 ... 999,999,999 (columnar.h), and the
    /// kernels, the row evaluator, index lookups and aggregates compare seconds, then nanoseconds: normalized, or
    /// -1.25 s would not equal itself.
    public init(stored time: QueryTimestamp) {
        if time.nanoseconds < 0 {
            self = .timestamp(seconds: time.seconds - 1, nanoseconds: time.nanoseconds + 1_000_000_000)
        } else {
            self = .timestamp(seconds: time.seconds, nanoseconds: time.nanoseconds)
        }
    }

    /// The value of an engine value (strings and data are copied out of the mapping).
    init(_ value: columnar_value, linkTarget: columnar_table_id?) {
        if value.is_null { self = .null; return }
        switch value.type {
        case COLUMNAR_TYPE_INT: self = .int(value.as.i)
        case COLUMNAR_TYPE_BOOL: self = .bool(value.as.b)
        case COLUMNAR_TYPE_FLOAT: self = .float(value.as.f)
        case COLUMNAR_TYPE_DOUBLE: self = .double(value.as.d)
        case COLUMNAR_TYPE_STRING, COLUMNAR_TYPE_BINARY:
            let bytes = value.as.bytes.size == 0 || value.as.bytes.data == nil ? [] :
                Array(UnsafeRawBufferPointer(start: value.as.bytes.data, count: value.as.bytes.size))
            self = value.type == COLUMNAR_TYPE_STRING ? .string(bytes) : .data(bytes)
        case COLUMNAR_TYPE_TIMESTAMP:
            self = .timestamp(seconds: value.as.timestamp.seconds, nanoseconds: value.as.timestamp.nanoseconds)
        case COLUMNAR_TYPE_OBJECTID: self = .objectId(withUnsafeBytes(of: value.as.objectid) { Array($0) })
        case COLUMNAR_TYPE_UUID: self = .uuid(withUnsafeBytes(of: value.as.uuid) { Array($0) })
        case COLUMNAR_TYPE_DECIMAL128: self = .decimal128(withUnsafeBytes(of: value.as.decimal128) { Array($0) })
        case COLUMNAR_TYPE_LINK: self = .link(table: linkTarget ?? 0, key: value.as.link)
        case COLUMNAR_TYPE_MIXED:
            // The value inside (checked by the engine when it was read); a link names its own table.
            var inner = columnar_value()
            guard value.as.bytes.size > 0,
                  columnar_mixed_decode(value.as.bytes.data, value.as.bytes.size, &inner) == COLUMNAR_OK else {
                self = .null
                return
            }
            let tag = Int32(inner.type.rawValue)
            if tag == COLUMNAR_MIXED_LIST || tag == COLUMNAR_MIXED_DICTIONARY {
                self = .nestedCollection(Array(UnsafeRawBufferPointer(start: value.as.bytes.data,
                                                                      count: value.as.bytes.size)))
                return
            }
            self = inner.type == COLUMNAR_TYPE_LINK ? .link(table: inner.as.typed_link.table, key: inner.as.link)
                : ScalarValue(inner, linkTarget: nil)
        default: self = .null
        }
    }

    /// The value's own type (what a mixed value holding it is tagged with); nil for null.
    var storedType: columnar_type? {
        switch self {
        case .null: return nil
        case .bool: return COLUMNAR_TYPE_BOOL
        case .int: return COLUMNAR_TYPE_INT
        case .float: return COLUMNAR_TYPE_FLOAT
        case .double: return COLUMNAR_TYPE_DOUBLE
        case .string: return COLUMNAR_TYPE_STRING
        case .data: return COLUMNAR_TYPE_BINARY
        case .timestamp: return COLUMNAR_TYPE_TIMESTAMP
        case .objectId: return COLUMNAR_TYPE_OBJECTID
        case .uuid: return COLUMNAR_TYPE_UUID
        case .decimal128: return COLUMNAR_TYPE_DECIMAL128
        case .link: return COLUMNAR_TYPE_LINK
        case .nestedCollection(let encoding): return columnar_type(rawValue: UInt32(encoding[0]))
        }
    }

    /// The value as a Double, for numbers (sums, averages, mixed int/double comparison).
    func numericDouble(decimals: QueryDecimalSupport?) -> Double? {
        switch self {
        case .int(let value): return Double(value)
        case .float(let value): return Double(value)
        case .double(let value): return value
        case .decimal128(let bits): return decimals?.toDouble(bits)
        default: return nil
        }
    }
}

/// The comparison rules shared by every front end, applied one pair of values at a time.
struct ScalarComparison {
    let op: ComparisonOperator
    let options: ComparisonOptions
    let decimals: QueryDecimalSupport?

    /// Whether `lhs op rhs` holds. IN is decided by the caller (membership is equality against each element).
    func holds(_ lhs: ScalarValue, _ rhs: ScalarValue) -> Bool {
        let op = self.op == .in ? .equal : self.op
        // Nulls: a null equals a null and nothing else; every other operator is false with a null side.
        if lhs.isNull || rhs.isNull {
            switch op {
            case .equal: return lhs.isNull && rhs.isNull
            case .notEqual: return !(lhs.isNull && rhs.isNull)
            default: return false
            }
        }
        switch (lhs, rhs) {
        case (.string(let left), .string(let right)), (.data(let left), .data(let right)):
            return Self.matchBytes(left, op, right, options: options, isString: lhs.isString)
        // Only a mixed value pairs a string with data: they compare by their bytes, as Realm compares them (and
        // as the mixed kernels do).
        case (.string(let left), .data(let right)), (.data(let left), .string(let right)):
            return Self.matchBytes(left, op, right, options: [], isString: false)
        case (.bool(let left), .bool(let right)):
            return order(left == right ? 0 : (left ? 1 : -1), op)
        case (.timestamp(let ls, let ln), .timestamp(let rs, let rn)):
            return order(ls != rs ? (ls < rs ? -1 : 1) : (ln < rn ? -1 : (ln == rn ? 0 : 1)), op)
        case (.objectId(let left), .objectId(let right)), (.uuid(let left), .uuid(let right)):
            return order(Self.compareBytes(left, right), op)
        case (.link(let lt, let lk), .link(let rt, let rk)):
            let same = lt == rt && lk == rk
            return op == .equal ? same : (op == .notEqual ? !same : false)
        case (.nestedCollection(let left), .nestedCollection(let right)):
            guard op == .equal || op == .notEqual else { return false }
            let same = NestedCollectionValue.equal(left, right, decimals: decimals)
            return op == .equal ? same : !same
        case (.decimal128(let left), .decimal128(let right)):
            guard let order = decimals?.compare(left, right) else { return op == .notEqual }
            return self.order(order, op)
        // A decimal against another number compares by value; against anything else (only a mixed value can pair
        // them) the types do not compare.
        case (.decimal128(let left), .int), (.decimal128(let left), .float), (.decimal128(let left), .double):
            guard let right = decimals?.encode(Self.queryValue(rhs)) else { return op == .notEqual }
            return holds(.decimal128(left), .decimal128(right))
        case (.int, .decimal128(let right)), (.float, .decimal128(let right)), (.double, .decimal128(let right)):
            guard let left = decimals?.encode(Self.queryValue(lhs)) else { return op == .notEqual }
            return holds(.decimal128(left), .decimal128(right))
        case (.decimal128, _), (_, .decimal128):
            return op == .notEqual
        default:
            return compareNumbers(lhs, op, rhs)
        }
    }

    /// Numbers of any width compare by value: integers exactly, also against floating point (an integer is never
    /// rounded to a double, so Int64.max is below 2^63), floats and doubles by IEEE rules (NaN is unordered).
    private func compareNumbers(_ lhs: ScalarValue, _ op: ComparisonOperator, _ rhs: ScalarValue) -> Bool {
        if case .int(let left) = lhs, case .int(let right) = rhs {
            return order(left < right ? -1 : (left == right ? 0 : 1), op)
        }
        guard let left = lhs.numericDouble(decimals: nil), let right = rhs.numericDouble(decimals: nil) else {
            return op == .notEqual
        }
        if case .int(let integer) = lhs, let sign = Self.compare(integer, right) { return order(sign, op) }
        if case .int(let integer) = rhs, let sign = Self.compare(integer, left) { return order(-sign, op) }
        switch op {
        case .equal: return left == right
        case .notEqual: return left != right
        case .lessThan: return left < right
        case .lessThanOrEqual: return left <= right
        case .greaterThan: return left > right
        case .greaterThanOrEqual: return left >= right
        default: return false
        }
    }

    private func order(_ sign: Int, _ op: ComparisonOperator) -> Bool {
        switch op {
        case .equal: return sign == 0
        case .notEqual: return sign != 0
        case .lessThan: return sign < 0
        case .lessThanOrEqual: return sign <= 0
        case .greaterThan: return sign > 0
        case .greaterThanOrEqual: return sign >= 0
        default: return false
        }
    }

    /// The order of an integer and a double, exactly; nil when the double is NaN.
    static func compare(_ integer: Int64, _ double: Double) -> Int? {
        if double.isNaN { return nil }
        if double >= 0x1p63 { return -1 }
        if double < -0x1p63 { return 1 }
        let whole = double.rounded(.down)  // in Int64's range now, and exact
        let wholeInteger = Int64(whole)
        if integer != wholeInteger { return integer < wholeInteger ? -1 : 1 }
        return double > whole ? -1 : 0
    }

    static func compareBytes(_ left: [UInt8], _ right: [UInt8]) -> Int {
        for (l, r) in zip(left, right) where l != r { return l < r ? -1 : 1 }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }

    /// String and data operators. With `[c]`/`[d]` both sides are folded first (strings only).
    static func matchBytes(_ lhs: [UInt8], _ op: ComparisonOperator, _ rhs: [UInt8], options: ComparisonOptions,
                           isString: Bool) -> Bool {
        var left = lhs, right = rhs
        if isString && !options.isEmpty {
            left = StringFolding.fold(lhs, options)
            right = StringFolding.fold(rhs, options)
        }
        switch op {
        case .equal: return left == right
        case .notEqual: return left != right
        case .lessThan: return compareBytes(left, right) < 0
        case .lessThanOrEqual: return compareBytes(left, right) <= 0
        case .greaterThan: return compareBytes(left, right) > 0
        case .greaterThanOrEqual: return compareBytes(left, right) >= 0
        case .beginsWith: return left.count >= right.count && left.prefix(right.count).elementsEqual(right)
        case .endsWith: return left.count >= right.count && left.suffix(right.count).elementsEqual(right)
        case .contains: return right.isEmpty || contains(left, right)
        case .like: return Wildcard.matches(left, pattern: right)
        case .in: return left == right
        }
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        let first = needle[0]
        var start = 0
        let last = haystack.count - needle.count
        while start <= last {
            if haystack[start] == first && haystack[start..<start + needle.count].elementsEqual(needle) { return true }
            start += 1
        }
        return false
    }

    static func queryValue(_ value: ScalarValue) -> QueryValue {
        switch value {
        case .int(let value): return .int(value)
        case .float(let value): return .float(value)
        case .double(let value): return .double(value)
        case .string(let bytes): return .string(String(decoding: bytes, as: UTF8.self))
        default: return .null
        }
    }
}

extension ScalarValue {
    var isString: Bool { if case .string = self { return true } else { return false } }

    /// Whether the value is a float, double or Decimal128 NaN (which @min, @max, min and max skip).
    func isNaN(decimals: QueryDecimalSupport?) -> Bool {
        switch self {
        case .float(let value): return value.isNaN
        case .double(let value): return value.isNaN
        case .decimal128(let bits): return decimals?.compare(bits, bits) == nil
        default: return false
        }
    }
}
