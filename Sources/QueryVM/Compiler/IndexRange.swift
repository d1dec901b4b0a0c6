// IndexRange: the part of an ordered search index an IndexRange instruction reads — an int range or a string
// prefix — gathered by the compiler from the conjuncts of a predicate's top-level AND.

import CColumnar

public enum IndexRange: Sendable, Equatable {
    /// Values between the bounds; a nil bound leaves that side open.
    case integers(lower: Int64?, lowerInclusive: Bool, upper: Int64?, upperInclusive: Bool)
    /// Strings starting with these bytes (case-sensitive, bytewise).
    case prefix([UInt8])

    /// The range narrowed by `op constant` (`<`, `<=`, `>`, `>=`, `==` on an int), or nil when that cannot be
    /// expressed (the caller keeps the comparison as a test).
    func narrowed(by op: ComparisonOperator, _ value: Int64) -> IndexRange? {
        guard case .integers(var lower, var lowerInclusive, var upper, var upperInclusive) = self else { return nil }
        func raise(_ bound: Int64, inclusive: Bool) {
            if let current = lower, current > bound || (current == bound && !lowerInclusive) { return }
            lower = bound
            lowerInclusive = inclusive
        }
        func lowerTo(_ bound: Int64, inclusive: Bool) {
            if let current = upper, current < bound || (current == bound && !upperInclusive) { return }
            upper = bound
            upperInclusive = inclusive
        }
        switch op {
        case .greaterThan: raise(value, inclusive: false)
        case .greaterThanOrEqual: raise(value, inclusive: true)
        case .lessThan: lowerTo(value, inclusive: false)
        case .lessThanOrEqual: lowerTo(value, inclusive: true)
        case .equal:
            raise(value, inclusive: true)
            lowerTo(value, inclusive: true)
        default: return nil
        }
        return .integers(lower: lower, lowerInclusive: lowerInclusive, upper: upper, upperInclusive: upperInclusive)
    }

    static let everyInteger = IndexRange.integers(lower: nil, lowerInclusive: true, upper: nil, upperInclusive: true)

    /// The range as `explain` prints it.
    var text: String {
        switch self {
        case .integers(let lower, let lowerInclusive, let upper, let upperInclusive):
            let low = lower.map { (lowerInclusive ? "[" : "(") + String($0) } ?? "(-inf"
            let high = upper.map { String($0) + (upperInclusive ? "]" : ")") } ?? "+inf)"
            return low + ", " + high
        case .prefix(let bytes):
            return "BEGINSWITH " + QueryValue.quoted(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// The C API's form of an int range.
    var bounds: columnar_index_range? {
        guard case .integers(let lower, let lowerInclusive, let upper, let upperInclusive) = self else { return nil }
        var range = columnar_index_range()
        if let lower {
            range.has_lower = true
            range.lower_inclusive = lowerInclusive
            range.lower.type = COLUMNAR_TYPE_INT
            range.lower.as.i = lower
        }
        if let upper {
            range.has_upper = true
            range.upper_inclusive = upperInclusive
            range.upper.type = COLUMNAR_TYPE_INT
            range.upper.as.i = upper
        }
        return range
    }
}
