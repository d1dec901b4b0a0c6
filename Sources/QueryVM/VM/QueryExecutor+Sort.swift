// Sorting and distinct over the matching objects.
//
// Sorting gathers each sort key's values into a column (integers, doubles or one byte arena of strings, read from
// the cluster arrays while the scan runs when the key is one of the table's own columns, else object by object),
// then sorts a permutation of row numbers. Ties keep the objects' previous order (the sort is stable), so sorting
// by several keys, or sorting sorted results again, behaves as users expect. Order: null first, then (numbers) NaN,
// then ascending values; strings and data by their bytes (Unicode scalar order for UTF-8); false before true;
// dates by time. Descending reverses all of it.

import CColumnar
import Foundation

/// One key of a sort: a single-valued path (a property, or through to-one links) and its direction.
public struct SortKey: Sendable {
    public var path: CheckedPath
    public var ascending: Bool

    public init(path: CheckedPath, ascending: Bool) {
        self.path = path
        self.ascending = ascending
    }
}

/// The values of one sort key, one per row of the sort.
enum SortColumn {
    case integers([Int64], nulls: [Bool])
    case doubles([Double], nulls: [Bool])
    case bytes(arena: [UInt8], ends: [Int], nulls: [Bool])
    case values([ScalarValue])

    static func compareDoubles(_ left: Double, _ right: Double) -> Int {
        if left.isNaN || right.isNaN { return left.isNaN == right.isNaN ? 0 : (left.isNaN ? -1 : 1) }
        return left < right ? -1 : (left == right ? 0 : 1)
    }

    /// Two byte strings (`count` bytes at each address) in the order `compareValues` gives strings: null first,
    /// then bytewise, a string before its extensions. Compared where they lie, without copying.
    static func compareBytes(_ left: UnsafeRawPointer?, count leftCount: Int, isNull leftIsNull: Bool,
                             _ right: UnsafeRawPointer?, count rightCount: Int, isNull rightIsNull: Bool) -> Int {
        if leftIsNull || rightIsNull { return leftIsNull == rightIsNull ? 0 : (leftIsNull ? -1 : 1) }
        let common = min(leftCount, rightCount)
        if common > 0, let left, let right {
            let order = memcmp(left, right, common)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        return leftCount == rightCount ? 0 : (leftCount < rightCount ? -1 : 1)
    }

    static func compareValues(_ left: ScalarValue, _ right: ScalarValue, decimals: QueryDecimalSupport?) -> Int {
        if left.isNull || right.isNull { return left.isNull == right.isNull ? 0 : (left.isNull ? -1 : 1) }
        // NaN (a Decimal128 one too) sorts after null and before every number, as for doubles: a comparison that
        // called it equal to everything would not be an order, and the sort's result would be arbitrary.
        let leftNaN = left.isNaN(decimals: decimals), rightNaN = right.isNaN(decimals: decimals)
        if leftNaN || rightNaN { return leftNaN == rightNaN ? 0 : (leftNaN ? -1 : 1) }
        switch (left, right) {
        case (.string(let l), .string(let r)), (.data(let l), .data(let r)):
            return ScalarComparison.compareBytes(l, r)
        case (.bool(let l), .bool(let r)): return l == r ? 0 : (l ? 1 : -1)
        case (.int(let l), .int(let r)): return l < r ? -1 : (l == r ? 0 : 1)
        case (.timestamp(let ls, let ln), .timestamp(let rs, let rn)):
            return ls != rs ? (ls < rs ? -1 : 1) : (ln < rn ? -1 : (ln == rn ? 0 : 1))
        case (.objectId(let l), .objectId(let r)), (.uuid(let l), .uuid(let r)):
            return ScalarComparison.compareBytes(l, r)
        case (.decimal128(let l), .decimal128(let r)):
            return decimals?.compare(l, r) ?? 0
        default:
            return compareDoubles(left.numericDouble(decimals: decimals) ?? .nan, right.numericDouble(decimals: decimals) ?? .nan)
        }
    }
}

extension QueryExecutor {
    /// The matching objects' keys sorted by `sortKeys` (stable). `candidates` are the objects of a Keys program.
    public func sortedMatchingKeys(by sortKeys: [SortKey], candidates: [Int64] = []) throws -> [Int64] {
        if sortKeys.count == 1, candidates.isEmpty, let ordered = try indexOrderedKeys(sortKeys[0]) { return ordered }
        var keys: [Int64] = []
        var columns: [SortColumn]
        let direct = sortKeys.compactMap { directColumn($0.path) }
        if isScan && direct.count == sortKeys.count {
            columns = try gatherDuringScan(direct, keys: &keys)
        } else {
            keys = try matchingKeys(candidates: candidates)
            columns = try sortKeys.map { .values(try gatherValues($0.path, keys: keys)) }
        }
        return sort(keys, columns: columns, ascending: sortKeys.map(\.ascending))
    }

    /// Sorts already selected keys (a collection's elements, in their order) by reading values object by object.
    public func sortKeys(_ keys: [Int64], by sortKeys: [SortKey]) throws -> [Int64] {
        let columns = try sortKeys.map { SortColumn.values(try gatherValues($0.path, keys: keys)) }
        return sort(keys, columns: columns, ascending: sortKeys.map(\.ascending))
    }

    /// Keeps the first object of each distinct combination of the paths' values, in order.
    public func distinctKeys(_ keys: [Int64], by paths: [CheckedPath]) throws -> [Int64] {
        let columns = try paths.map { try gatherValues($0, keys: keys) }
        let decimals = evaluator.decimals
        var seen = Set<DistinctCombination>()
        var result: [Int64] = []
        for (row, key) in keys.enumerated()
        where seen.insert(DistinctCombination(values: columns.map { $0[row] }, decimals: decimals)).inserted {
            result.append(key)
        }
        return result
    }

    /// Sorts in two steps so that no comparison switches on a column's kind or touches reference counts: each
    /// key column is first reduced to dense ranks (equal values, equal ranks) by a sort specialised for its kind,
    /// then the rows are sorted by their rank tuples, ties by row number (which makes the sort stable).
    private func sort(_ keys: [Int64], columns: [SortColumn], ascending: [Bool]) -> [Int64] {
        let rowCount = keys.count
        let ranks = columns.map { Self.ranks(of: $0, rowCount: rowCount, decimals: evaluator.decimals) }
        var order = [Int32](unsafeUninitializedCapacity: rowCount) { buffer, count in
            for row in 0..<rowCount { buffer[row] = Int32(row) }
            count = rowCount
        }
        if ranks.count == 1 {
            let descending = !ascending[0]
            ranks[0].withUnsafeBufferPointer { rank in
                order.sort { left, right in
                    let l = rank[Int(left)], r = rank[Int(right)]
                    if l != r { return descending ? l > r : l < r }
                    return left < right
                }
            }
        } else {
            let directions = ascending
            order.sort { left, right in
                for (column, isAscending) in zip(ranks, directions) {
                    let l = column[Int(left)], r = column[Int(right)]
                    if l != r { return isAscending ? l < r : l > r }
                }
                return left < right
            }
        }
        return order.map { keys[Int($0)] }
    }

    /// Dense ranks of a column's values in ascending order (null lowest, then NaN, then values).
    private static func ranks(of column: SortColumn, rowCount: Int, decimals: QueryDecimalSupport?) -> [Int32] {
        var order = Array(0..<rowCount)
        var rank = [Int32](repeating: 0, count: rowCount)
        switch column {
        case .integers(let values, let nulls):
            // (null flag, value, row) tuples sort without a closure over the columns.
            var tuples = (0..<rowCount).map { (nulls[$0] ? 0 : 1, nulls[$0] ? 0 : values[$0], $0) }
            tuples.sort { $0 < $1 }
            order = tuples.map(\.2)
            assignRanks(order, &rank) { tuples[$0].0 == tuples[$1].0 && tuples[$0].1 == tuples[$1].1 }
            return rank
        case .doubles(let values, let nulls):
            // Class 0 null, 1 NaN, 2 numbers; -0.0 and 0.0 are one value.
            var tuples = (0..<rowCount).map { row -> (Int, Double, Int) in
                if nulls[row] { return (0, 0, row) }
                if values[row].isNaN { return (1, 0, row) }
                return (2, values[row] == 0 ? 0 : values[row], row)
            }
            tuples.sort { $0 < $1 }
            order = tuples.map(\.2)
            assignRanks(order, &rank) { tuples[$0].0 == tuples[$1].0 && tuples[$0].1 == tuples[$1].1 }
            return rank
        case .bytes(let arena, let ends, let nulls):
            // Compare arena slices in place: null first, then bytewise, shorter prefix first.
            arena.withUnsafeBytes { bytes in
                ends.withUnsafeBufferPointer { end in
                    nulls.withUnsafeBufferPointer { isNull in
                        func compare(_ left: Int, _ right: Int) -> Int {
                            let leftStart = left == 0 ? 0 : end[left - 1], rightStart = right == 0 ? 0 : end[right - 1]
                            return SortColumn.compareBytes(bytes.baseAddress.map { $0 + leftStart },
                                                           count: end[left] - leftStart, isNull: isNull[left],
                                                           bytes.baseAddress.map { $0 + rightStart },
                                                           count: end[right] - rightStart, isNull: isNull[right])
                        }
                        order.sort { left, right in
                            let sign = compare(left, right)
                            return sign != 0 ? sign < 0 : left < right
                        }
                        assignRanks(order, &rank) { compare(order[$0], order[$1]) == 0 }
                    }
                }
            }
            return rank
        case .values(let values):
            order.sort { left, right in
                let sign = SortColumn.compareValues(values[left], values[right], decimals: decimals)
                return sign != 0 ? sign < 0 : left < right
            }
            assignRanks(order, &rank) {
                SortColumn.compareValues(values[order[$0]], values[order[$1]], decimals: decimals) == 0
            }
            return rank
        }
    }

    /// Gives the rows in `order` increasing ranks, equal for neighbours `same` says are equal (given positions).
    private static func assignRanks(_ order: [Int], _ rank: inout [Int32], same: (Int, Int) -> Bool) {
        var current: Int32 = 0
        for position in 0..<order.count {
            if position > 0 && !same(position - 1, position) { current += 1 }
            rank[order[position]] = current
        }
    }

    private func gatherValues(_ path: CheckedPath, keys: [Int64]) throws -> [ScalarValue] {
        try keys.map { try evaluator.values(.path(path), table: program.table, key: $0).first ?? .null }
    }

    func directColumn(_ path: CheckedPath) -> (columnar_col_id, columnar_type)? {
        guard let own = path.ownColumn, own.type != COLUMNAR_TYPE_DECIMAL128, own.type != COLUMNAR_TYPE_LINK else {
            return nil
        }
        return (own.column, own.type)
    }

    /// Reads the sort columns from the cluster arrays while the scan selects the rows.
    private func gatherDuringScan(_ columns: [(columnar_col_id, columnar_type)],
                                  keys: inout [Int64]) throws -> [SortColumn] {
        var integers = [[Int64]](repeating: [], count: columns.count)
        var doubles = [[Double]](repeating: [], count: columns.count)
        var arenas = [[UInt8]](repeating: [], count: columns.count)
        var ends = [[Int]](repeating: [], count: columns.count)
        var nulls = [[Bool]](repeating: [], count: columns.count)
        var values = [[ScalarValue]](repeating: [], count: columns.count)
        let capacity = Int(columnar_scan_max_rows())
        let intBuffer = UnsafeMutablePointer<Int64>.allocate(capacity: capacity)
        let doubleBuffer = UnsafeMutablePointer<Double>.allocate(capacity: capacity)
        let nullBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { intBuffer.deallocate(); doubleBuffer.deallocate(); nullBuffer.deallocate() }

        try forEachCluster { cluster in
            let rows = (0..<cluster.rowCount).filter { cluster.mask[$0] != 0 }
            if rows.isEmpty { return }
            for row in rows { keys.append(columnar_array_get_int(cluster.keys, UInt64(row))) }
            for (index, (column, type)) in columns.enumerated() {
                var view = try cluster.view(column)
                switch type {
                case COLUMNAR_TYPE_INT, COLUMNAR_TYPE_BOOL:
                    columnar_view_decode_int(&view, intBuffer, nullBuffer)
                    for row in rows { integers[index].append(intBuffer[row]); nulls[index].append(nullBuffer[row] != 0) }
                case COLUMNAR_TYPE_FLOAT, COLUMNAR_TYPE_DOUBLE:
                    columnar_view_decode_double(&view, doubleBuffer, nullBuffer)
                    for row in rows { doubles[index].append(doubleBuffer[row]); nulls[index].append(nullBuffer[row] != 0) }
                case COLUMNAR_TYPE_STRING, COLUMNAR_TYPE_BINARY:
                    for row in rows {
                        var data: UnsafeRawPointer?
                        var size = 0
                        var isNull = false
                        try check(columnar_view_get_bytes(&view, UInt64(row), &data, &size, &isNull))
                        if size > 0, let data { arenas[index].append(contentsOf: UnsafeRawBufferPointer(start: data, count: size)) }
                        ends[index].append(arenas[index].count)
                        nulls[index].append(isNull)
                    }
                default:
                    for row in rows {
                        let key = columnar_array_get_int(cluster.keys, UInt64(row))
                        var value = columnar_value()
                        try check(columnar_obj_get(transaction, program.table, key, column, &value))
                        values[index].append(ScalarValue(value, linkTarget: nil))
                    }
                }
            }
        }
        return columns.enumerated().map { index, column in
            switch column.1 {
            case COLUMNAR_TYPE_INT, COLUMNAR_TYPE_BOOL: return .integers(integers[index], nulls: nulls[index])
            case COLUMNAR_TYPE_FLOAT, COLUMNAR_TYPE_DOUBLE: return .doubles(doubles[index], nulls: nulls[index])
            case COLUMNAR_TYPE_STRING, COLUMNAR_TYPE_BINARY:
                return .bytes(arena: arenas[index], ends: ends[index], nulls: nulls[index])
            default: return .values(values[index])
            }
        }
    }
}

/// One combination of values as distinct() compares them: values that queries find equal are one value (0 and -0;
/// Decimal128s of the same number, such as 100 and 100.0), and NaNs, which sort together, are one value too —
/// ScalarValue's own equality is the bit-level one, under which every NaN would stand alone.
private struct DistinctCombination: Hashable {
    let values: [ScalarValue]
    let decimals: QueryDecimalSupport?

    static func == (lhs: DistinctCombination, rhs: DistinctCombination) -> Bool {
        guard lhs.values.count == rhs.values.count else { return false }
        for (left, right) in zip(lhs.values, rhs.values) where !same(left, right, lhs.decimals) { return false }
        return true
    }

    private static func same(_ left: ScalarValue, _ right: ScalarValue, _ decimals: QueryDecimalSupport?) -> Bool {
        let leftNaN = left.isNaN(decimals: decimals), rightNaN = right.isNaN(decimals: decimals)
        if leftNaN || rightNaN { return leftNaN == rightNaN && sameKind(left, right) }
        if case .decimal128(let l) = left, case .decimal128(let r) = right, let decimals {
            return decimals.compare(l, r) == 0
        }
        return left == right
    }

    private static func sameKind(_ left: ScalarValue, _ right: ScalarValue) -> Bool {
        switch (left, right) {
        case (.float, .float), (.double, .double), (.decimal128, .decimal128): return true
        default: return false
        }
    }

    func hash(into hasher: inout Hasher) {
        for value in values {
            if value.isNaN(decimals: decimals) {
                hasher.combine("NaN")
            } else if case .decimal128(let bits) = value, let decimals {
                // Equal decimals have equal doubles (the converse need not hold; == decides).
                hasher.combine(decimals.toDouble(bits))
            } else {
                hasher.combine(value)
            }
        }
    }
}
