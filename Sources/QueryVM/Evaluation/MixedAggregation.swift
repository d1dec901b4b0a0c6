// MixedAggregation: min, max, sum and average of mixed values, as Realm defines them for AnyRealmValue.
//
// The sum and the average take the numbers among the values (int, float, double and Decimal128; NaN included, as for
// typed columns) and are computed exactly in Decimal128, whatever mix of number types they hold, so an int sum is
// never rounded through a Double; values of other types are skipped, and the sum of no numbers is zero. The minimum
// and the maximum take every value that has an order (nulls, NaN, objects and nested collections skipped) and compare
// them as mixed values sort (SortColumn.compareValues: by kind, then by value, numbers of every type by value),
// so dates, strings and numbers each have their extremes among their kind and the kinds follow each other in that
// order. The executor's object-by-object path and the unmanaged collections of the object layer share this, so both
// give one answer.

import CColumnar

public enum MixedAggregation {
    /// Adds one mixed value (a link to a deleted object read as null) to `result`.
    public static func add(_ value: ScalarValue, to result: inout AggregateResult, decimals: QueryDecimalSupport?) {
        switch value {
        case .null, .link, .nestedCollection:
            return
        case .int, .float, .double, .decimal128:
            result.count += 1
            if let decimals, let bits = decimalBits(of: value, decimals) {
                result.decimalSum = result.decimalSum.map { decimals.add($0, bits) } ?? bits
            } else {
                result.doubleSum += value.numericDouble(decimals: decimals) ?? 0
            }
        default:
            break
        }
        if value.isNaN(decimals: decimals) { return }
        if result.minimum.isNull || SortColumn.compareValues(value, result.minimum, decimals: decimals) < 0 {
            result.minimum = value
        }
        if result.maximum.isNull || SortColumn.compareValues(value, result.maximum, decimals: decimals) > 0 {
            result.maximum = value
        }
    }

    /// The sum: a Decimal128 (zero for no numbers), or a Double without decimal support.
    public static func sum(_ result: AggregateResult, decimals: QueryDecimalSupport?) -> ScalarValue {
        if let decimalSum = result.decimalSum { return .decimal128(decimalSum) }
        if let decimals, let zero = decimals.encode(.int(0)) { return .decimal128(zero) }
        return .double(result.doubleSum)
    }

    /// The mean of the numbers, or null for none.
    public static func average(_ result: AggregateResult, decimals: QueryDecimalSupport?) -> ScalarValue {
        guard result.count > 0 else { return .null }
        if let decimals, let decimalSum = result.decimalSum {
            return .decimal128(decimals.divide(decimalSum, result.count))
        }
        return .double(result.doubleSum / Double(result.count))
    }

    private static func decimalBits(of value: ScalarValue, _ decimals: QueryDecimalSupport) -> [UInt8]? {
        if case .decimal128(let bits) = value { return bits }
        return decimals.encode(ScalarComparison.queryValue(value))
    }
}
