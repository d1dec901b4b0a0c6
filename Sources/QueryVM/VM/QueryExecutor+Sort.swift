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
private enum SortColumn {
    case integers([Int64], nulls: [Bool])
    case doubles([Double], nulls: [Bool])
    case bytes(arena: [UInt8], ends: [Int], nulls: [Bool])
    case values([ScalarValue])

    func compare(_ left: Int, _ right: Int, decimals: QueryDecimalSupport?) -> Int {
        switch self {
        case .integers(let values, let nulls):
            if nulls[left] || nulls[right] { return nulls[left] == nulls[right] ? 0 : (nulls[left] ? -1 : 1) }
            return values[left] < values[right] ? -1 : (values[left] == values[right] ? 0 : 1)
        case .doubles(let values, let nulls):
            if nulls[left] || nulls[right] { return nulls[left] == nulls[right] ? 0 : (nulls[left] ? -1 : 1) }
            return Self.compareDoubles(values[left], values[right])
        case .bytes(let arena, let ends, let nulls):
            if nulls[left] || nulls[right] { return nulls[left] == nulls[right] ? 0 : (nulls[left] ? -1 : 1) }
            let leftStart = left == 0 ? 0 : ends[left - 1], rightStart = right == 0 ? 0 : ends[right - 1]
            let leftCount = ends[left] - leftStart, rightCount = ends[right] - rightStart
            let common = min(leftCount, rightCount)
            let order = arena.withUnsafeBufferPointer { buffer in
                common == 0 ? 0 : memcmp(buffer.baseAddress! + leftStart, buffer.baseAddress! + rightStart, common)
            }
            if order != 0 { return order < 0 ? -1 : 1 }
            return leftCount == rightCount ? 0 : (leftCount < rightCount ? -1 : 1)
        case .values(let values):
            return Self.compareValues(values[left], values[right], decimals: decimals)
        }
    }

    static func compareDoubles(_ left: Double, _ right: Double) -> Int {
        if left.isNaN || right.isNaN { return left.isNaN == right.isNaN ? 0 : (left.isNaN ? -1 : 1) }
        return left < right ? -1 : (left == right ? 0 : 1)
    }

    static func compareValues(_ left: ScalarValue, _ right: ScalarValue, decimals: QueryDecimalSupport?) -> Int {
        if left.isNull || right.isNull { return left.isNull == right.isNull ? 0 : (left.isNull ? -1 : 1) }
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
        var seen = Set<[ScalarValue]>()
        var result: [Int64] = []
        for (row, key) in keys.enumerated() where seen.insert(columns.map { $0[row] }).inserted {
            result.append(key)
        }
        return result
    }

    private func sort(_ keys: [Int64], columns: [SortColumn], ascending: [Bool]) -> [Int64] {
        var order = Array(0..<keys.count)
        let decimals = evaluator.decimals
        order.sort { left, right in
            for (column, isAscending) in zip(columns, ascending) {
                let sign = column.compare(left, right, decimals: decimals)
                if sign != 0 { return isAscending ? sign < 0 : sign > 0 }
            }
            return left < right
        }
        return order.map { keys[$0] }
    }

    private func gatherValues(_ path: CheckedPath, keys: [Int64]) throws -> [ScalarValue] {
        try keys.map { try evaluator.values(.path(path), table: program.table, key: $0).first ?? .null }
    }

    private func directColumn(_ path: CheckedPath) -> (columnar_col_id, columnar_type)? {
        guard path.root == .object, path.steps.count == 1, case .column(let column, let type, _) = path.steps[0],
              type != COLUMNAR_TYPE_DECIMAL128, type != COLUMNAR_TYPE_LINK else { return nil }
        return (column, type)
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
