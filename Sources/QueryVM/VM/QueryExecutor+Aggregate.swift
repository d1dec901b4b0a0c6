// Aggregates over the matching objects: min, max, sum and average of one property, nulls skipped.
//
// When the program scans the table and the property is one of its own numeric or date columns, each cluster's
// column array and match mask go to the C aggregate kernel; otherwise the values are read object by object.

import CColumnar

/// The running result of an aggregate: how many values, their exact sum, and the extremes.
public struct AggregateResult: Sendable {
    /// Non-null values seen (NaN included).
    public var count = 0
    /// Integers: the exact sum.
    public var integerSum = Int128(0)
    /// Floats and doubles: the sum, in Double.
    public var doubleSum = 0.0
    /// Decimal128: the exact decimal sum (a bit pattern), nil until a decimal value is seen.
    public var decimalSum: [UInt8]?
    public var minimum: ScalarValue = .null
    public var maximum: ScalarValue = .null

    public init() {}
}

extension QueryExecutor {
    /// Aggregates `path` (a single-valued path: a column, or through to-one links) over the matching objects.
    /// `wanted` (COLUMNAR_AGGREGATE_* flags) lets a scan skip the aggregates the caller does not read; the count
    /// is always kept, and fields not asked for are meaningless.
    public func aggregate(_ path: CheckedPath, candidates: [Int64] = [],
                          wanted: UInt32 = UInt32(COLUMNAR_AGGREGATE_ALL)) throws -> AggregateResult {
        if isScan, let (column, type) = path.ownColumn,
           [COLUMNAR_TYPE_INT, COLUMNAR_TYPE_FLOAT, COLUMNAR_TYPE_DOUBLE, COLUMNAR_TYPE_TIMESTAMP].contains(type) {
            if let extremes = try indexExtremes(column: column, type: type, wanted: wanted) { return extremes }
            return try scanAggregate(column: column, type: type, wanted: wanted)
        }
        var result = AggregateResult()
        if path.type == COLUMNAR_TYPE_MIXED {
            try forEachMatch(candidates: candidates) { key in
                for value in try evaluator.values(.path(path), table: program.table, key: key) {
                    MixedAggregation.add(value, to: &result, decimals: evaluator.decimals)
                }
            }
            return result
        }
        let compareLess = ScalarComparison(op: .lessThan, options: [], decimals: evaluator.decimals)
        try forEachMatch(candidates: candidates) { key in
            for value in try evaluator.values(.path(path), table: program.table, key: key) where !value.isNull {
                result.count += 1
                switch value {
                case .int(let integer): result.integerSum += Int128(integer)
                case .decimal128(let bits):
                    if let decimals = evaluator.decimals {
                        result.decimalSum = result.decimalSum.map { decimals.add($0, bits) } ?? bits
                    }
                default: result.doubleSum += value.numericDouble(decimals: evaluator.decimals) ?? 0
                }
                if value.isNaN(decimals: evaluator.decimals) { continue }
                if result.minimum.isNull || compareLess.holds(value, result.minimum) { result.minimum = value }
                if result.maximum.isNull || compareLess.holds(result.maximum, value) { result.maximum = value }
            }
        }
        return result
    }

    /// The minimum and/or maximum of every object's value, read from the ends of the column's ordered index, when
    /// only those are wanted over the whole table; nil when the index cannot answer.
    private func indexExtremes(column: columnar_col_id, type: columnar_type, wanted: UInt32) throws -> AggregateResult? {
        guard selectsWholeTable else { return nil }
        return try Self.indexExtremes(transaction: transaction, table: program.table, column: column, type: type,
                                      wanted: wanted)
    }

    /// The minimum and/or maximum (`wanted`: COLUMNAR_AGGREGATE_MIN and/or _MAX, nothing else) of a column over a
    /// whole table, read from the ends of its ordered index; nil when the column has no ordered index or is not
    /// an int or date column, or other aggregates are wanted. Needs no program: a whole-table min or max of an
    /// indexed property costs the index's two descents, not a query's set-up.
    public static func indexExtremes(transaction: OpaquePointer, table: columnar_table_id, column: columnar_col_id,
                                     type: columnar_type, wanted: UInt32) throws -> AggregateResult? {
        let extremes = UInt32(COLUMNAR_AGGREGATE_MIN) | UInt32(COLUMNAR_AGGREGATE_MAX)
        guard wanted & ~extremes == 0, wanted != 0, type == COLUMNAR_TYPE_INT || type == COLUMNAR_TYPE_TIMESTAMP
        else { return nil }
        var result = AggregateResult()
        // No non-null value: count 0 and null extremes. Otherwise the count is 1: at least one value, and the
        // caller asked only for extremes. The engine answers COLUMNAR_EMISUSE when the column has no ordered
        // index; asking it directly saves describing the column first on every call.
        if wanted & UInt32(COLUMNAR_AGGREGATE_MIN) != 0 {
            guard let extreme = try indexExtreme(transaction, table, column, maximum: false) else { return nil }
            guard let minimum = extreme else { return result }
            result.count = 1
            result.minimum = minimum
        }
        if wanted & UInt32(COLUMNAR_AGGREGATE_MAX) != 0 {
            guard let extreme = try indexExtreme(transaction, table, column, maximum: true) else { return nil }
            guard let maximum = extreme else { return result }
            result.count = 1
            result.maximum = maximum
        }
        return result
    }

    /// The column's smallest or largest value from its ordered index: nil when the column has no ordered index,
    /// .some(nil) when no object holds a value.
    private static func indexExtreme(_ transaction: OpaquePointer, _ table: columnar_table_id,
                                     _ column: columnar_col_id, maximum: Bool) throws -> ScalarValue?? {
        var value = columnar_value()
        var found = false
        let rc = columnar_index_extreme(transaction, table, column, maximum, &value, &found)
        if rc == COLUMNAR_EMISUSE { return nil }
        try check(rc)
        return .some(found ? ScalarValue(value, linkTarget: nil) : nil)
    }

    private func scanAggregate(column: columnar_col_id, type: columnar_type, wanted: UInt32) throws -> AggregateResult {
        var running = columnar_aggregate()
        try forEachCluster { cluster in
            var view = try cluster.view(column)
            columnar_kernel_aggregate_select(&view, cluster.mask, wanted, &running)
        }
        var result = AggregateResult()
        result.count = Int(running.count)
        guard running.count > 0 else { return result }
        let hasExtremes = running.minmax_count > 0
        switch type {
        case COLUMNAR_TYPE_INT:
            result.integerSum = Int128(running.int_sum_high) << 64 | Int128(running.int_sum_low)
            if hasExtremes {
                result.minimum = .int(running.int_min)
                result.maximum = .int(running.int_max)
            }
        case COLUMNAR_TYPE_TIMESTAMP:
            if hasExtremes {
                result.minimum = .timestamp(seconds: running.seconds_min, nanoseconds: running.nanos_min)
                result.maximum = .timestamp(seconds: running.seconds_max, nanoseconds: running.nanos_max)
            }
        default:
            result.doubleSum = running.double_sum
            // Only NaNs: min and max stay null, as when reading object by object.
            if hasExtremes {
                result.minimum = type == COLUMNAR_TYPE_FLOAT ? .float(Float(running.double_min)) : .double(running.double_min)
                result.maximum = type == COLUMNAR_TYPE_FLOAT ? .float(Float(running.double_max)) : .double(running.double_max)
            }
        }
        return result
    }
}
