// Aggregation: @min, @max, @sum and @avg over a list of values, with RealmSwift's rules for nulls and empty input.
//
// Nulls are skipped. The sum of nothing is zero; the minimum, maximum and average of nothing are null. Sums of
// integers are exact while they fit in Int64 and wrap beyond (two's complement), sums of floats and doubles are
// taken in Double, and averages are Doubles. Decimal128 values are summed and averaged exactly in Decimal128 (through
// the object layer's arithmetic, QueryDecimalSupport): a sum of prices must not pick up a binary rounding error.

import CColumnar

enum Aggregation {
    static func reduce(_ values: [ScalarValue], _ op: CollectionOperator, type: columnar_type,
                       decimals: QueryDecimalSupport?) -> ScalarValue {
        if type == COLUMNAR_TYPE_MIXED {
            var result = AggregateResult()
            for value in values { MixedAggregation.add(value, to: &result, decimals: decimals) }
            switch op {
            case .min: return result.minimum
            case .max: return result.maximum
            case .sum: return MixedAggregation.sum(result, decimals: decimals)
            case .avg: return MixedAggregation.average(result, decimals: decimals)
            default: return .null
            }
        }
        let present = values.filter { !$0.isNull }
        switch op {
        case .min, .max:
            var best: ScalarValue?
            let wanted: ComparisonOperator = op == .min ? .lessThan : .greaterThan
            let compare = ScalarComparison(op: wanted, options: [], decimals: decimals)
            for value in present {
                if value.isNaN(decimals: decimals) { continue }
                if let current = best, !compare.holds(value, current) { continue }
                best = value
            }
            return best ?? .null
        case .sum:
            if type == COLUMNAR_TYPE_DECIMAL128, let decimals {
                // No values: the integer 0, which compares with decimals as their zero does.
                return decimals.sum(decimalBits(present)).map(ScalarValue.decimal128) ?? .int(0)
            }
            if type == COLUMNAR_TYPE_INT {
                var sum: Int64 = 0
                for case .int(let value) in present { sum &+= value }
                return .int(sum)
            }
            return .double(present.reduce(0) { $0 + ($1.numericDouble(decimals: decimals) ?? 0) })
        case .avg:
            guard !present.isEmpty else { return .null }
            if type == COLUMNAR_TYPE_DECIMAL128, let decimals {
                let bits = decimalBits(present)
                guard let sum = decimals.sum(bits) else { return .null }
                return .decimal128(decimals.divide(sum, bits.count))
            }
            if type == COLUMNAR_TYPE_INT {
                // Integers are summed exactly (in 128 bits) before dividing, as the kernels do.
                var sum = Int128(0)
                for case .int(let value) in present { sum += Int128(value) }
                return .double(Double(sum) / Double(present.count))
            }
            let sum = present.reduce(0.0) { $0 + ($1.numericDouble(decimals: decimals) ?? 0) }
            return .double(sum / Double(present.count))
        default:
            return .null
        }
    }

    /// The bit patterns of the Decimal128 values among `values`.
    private static func decimalBits(_ values: [ScalarValue]) -> [[UInt8]] {
        values.compactMap { value in
            if case .decimal128(let bits) = value { return bits } else { return nil }
        }
    }
}
