// Sorting and distinct over the matching objects.
//
// Sorting gathers each sort key's values into a column (integers, doubles or one byte arena of strings, read from
// the cluster arrays while the scan runs when the key is one of the table's own columns, else object by object),
// then orders the rows (RowOrdering.swift: a radix sort, or a top-k selection when only the first few are wanted).
// Ties keep the objects' previous order (the sort is stable), so sorting
// by several keys, or sorting sorted results again, behaves as users expect. Order: null first, then (numbers) NaN,
// then ascending values; strings and data by their bytes (Unicode scalar order for UTF-8); false before true;
// dates by time. Mixed values sort by kind first (bools, numbers, strings and data, dates, ObjectIds, UUIDs,
// objects), then within a kind by value, numbers of every type by value. Descending reverses all of it.

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

    /// The kind a value sorts under among values of other kinds: bools, numbers, strings and data, dates, ObjectIds,
    /// UUIDs, objects, nested collections (null and NaN come first, before any kind).
    static func sortKind(_ value: ScalarValue) -> Int {
        switch value {
        case .null: return 0
        case .bool: return 1
        case .int, .float, .double, .decimal128: return 2
        case .string, .data: return 3
        case .timestamp: return 4
        case .objectId: return 5
        case .uuid: return 6
        case .link: return 7
        case .nestedCollection: return 8
        }
    }

    static func compareValues(_ left: ScalarValue, _ right: ScalarValue, decimals: QueryDecimalSupport?) -> Int {
        if left.isNull || right.isNull { return left.isNull == right.isNull ? 0 : (left.isNull ? -1 : 1) }
        // NaN (a Decimal128 one too) sorts after null and before every number, as for doubles: a comparison that
        // called it equal to everything would not be an order, and the sort's result would be arbitrary.
        let leftNaN = left.isNaN(decimals: decimals), rightNaN = right.isNaN(decimals: decimals)
        if leftNaN || rightNaN { return leftNaN == rightNaN ? 0 : (leftNaN ? -1 : 1) }
        // Values of different kinds (only a mixed column holds them) sort by kind.
        let leftKind = sortKind(left), rightKind = sortKind(right)
        if leftKind != rightKind { return leftKind < rightKind ? -1 : 1 }
        switch (left, right) {
        case (.string(let l), .string(let r)), (.data(let l), .data(let r)), (.string(let l), .data(let r)),
             (.data(let l), .string(let r)):
            return ScalarComparison.compareBytes(l, r)
        case (.link(let lt, let lk), .link(let rt, let rk)):
            return lt != rt ? (lt < rt ? -1 : 1) : (lk < rk ? -1 : (lk == rk ? 0 : 1))
        case (.int(let l), .float), (.int(let l), .double):
            return ScalarComparison.compare(l, right.numericDouble(decimals: nil)!) ?? 0
        case (.float, .int(let r)), (.double, .int(let r)):
            return -(ScalarComparison.compare(r, left.numericDouble(decimals: nil)!) ?? 0)
        case (.decimal128(let l), .int), (.decimal128(let l), .float), (.decimal128(let l), .double):
            guard let r = decimals?.encode(ScalarComparison.queryValue(right)) else { return 0 }
            return decimals?.compare(l, r) ?? 0
        case (.int, .decimal128(let r)), (.float, .decimal128(let r)), (.double, .decimal128(let r)):
            guard let l = decimals?.encode(ScalarComparison.queryValue(left)) else { return 0 }
            return decimals?.compare(l, r) ?? 0
        case (.bool(let l), .bool(let r)): return l == r ? 0 : (l ? 1 : -1)
        case (.int(let l), .int(let r)): return l < r ? -1 : (l == r ? 0 : 1)
        case (.timestamp(let ls, let ln), .timestamp(let rs, let rn)):
            return ls != rs ? (ls < rs ? -1 : 1) : (ln < rn ? -1 : (ln == rn ? 0 : 1))
        case (.objectId(let l), .objectId(let r)), (.uuid(let l), .uuid(let r)):
            return ScalarComparison.compareBytes(l, r)
        // Nested collections have no order of their own; by their encodings, so that a sort is repeatable.
        case (.nestedCollection(let l), .nestedCollection(let r)):
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
    /// With a `limit`, only the first `limit` keys of that order (the others are not ordered).
    public func sortedMatchingKeys(by sortKeys: [SortKey], candidates: [Int64] = [], limit: Int? = nil) throws
        -> [Int64]
    {
        if sortKeys.count == 1, candidates.isEmpty, let ordered = try indexOrderedKeys(sortKeys[0]) {
            return limit.map { Array(ordered.prefix($0)) } ?? ordered
        }
        if let (rowKeys, words) = try gatherNumberWords(sortKeys) {
            let order = limit.map { RowOrdering.firstRows(words, rowCount: rowKeys.count, limit: $0) }
                ?? RowOrdering.sortedRows(words, rowCount: rowKeys.count)
            return order.map { rowKeys[Int($0)] }
        }
        var keys: [Int64] = []
        var columns: [SortColumn]
        let direct = sortKeys.compactMap { directColumn($0.path) }
        if isScan && direct.count == sortKeys.count {
            columns = try gatherDuringScan(direct, keys: &keys)
        } else {
            keys = try matchingKeys(candidates: candidates)
            columns = try sortKeys.map { .values(try gatherValues($0.path, keys: keys)) }
        }
        return sort(keys, columns: columns, ascending: sortKeys.map(\.ascending), limit: limit)
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
    /// key column becomes one unsigned word per row in its direction (numbers directly; strings and other kinds
    /// by their dense ranks, which a sort specialised for the kind gives), then RowOrdering orders the rows by
    /// those words, ties by row number (which makes the sort stable), or picks the first `limit` of that order.
    private func sort(_ keys: [Int64], columns: [SortColumn], ascending: [Bool], limit: Int? = nil) -> [Int64] {
        let rowCount = keys.count
        let words = zip(columns, ascending).map { column, isAscending -> OrderWords in
            switch column {
            case .integers(let values, let nulls): return .integers(values, nulls: nulls, ascending: isAscending)
            case .doubles(let values, let nulls): return .doubles(values, nulls: nulls, ascending: isAscending)
            case .bytes, .values:
                return .ranks(Self.ranks(of: column, rowCount: rowCount, decimals: evaluator.decimals),
                              ascending: isAscending)
            }
        }
        let order = limit.map { RowOrdering.firstRows(words, rowCount: rowCount, limit: $0) }
            ?? RowOrdering.sortedRows(words, rowCount: rowCount)
        return order.map { keys[Int($0)] }
    }

    /// Dense ranks of a column's values in ascending order (null lowest, then NaN, then values); for strings, data
    /// and the kinds read as values.
    private static func ranks(of column: SortColumn, rowCount: Int, decimals: QueryDecimalSupport?) -> [Int32] {
        var order = Array(0..<rowCount)
        var rank = [Int32](repeating: 0, count: rowCount)
        switch column {
        case .integers, .doubles:
            preconditionFailure("numbers are ordered by their words (OrderWords), not ranked")
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

    private static let numericSortTypes: Set<columnar_type> = [COLUMNAR_TYPE_INT, COLUMNAR_TYPE_BOOL,
                                                               COLUMNAR_TYPE_FLOAT, COLUMNAR_TYPE_DOUBLE]

    /// The order words (RowOrdering.swift) of sort keys that are all numeric columns of the table, read while the
    /// scan selects the rows: each cluster's keys and columns are decoded a block at a time and each selected row's
    /// value turned into its word (and class) in place, into buffers sized for the table, with no per-row call, no
    /// array growth and no intermediate column (a million rows in a few milliseconds, which is what `first` of
    /// sorted results costs). nil when a key is not such a column.
    private func gatherNumberWords(_ sortKeys: [SortKey]) throws -> (RowBuffer<Int64>, [OrderWords])? {
        let columns = sortKeys.compactMap { directColumn($0.path) }
        guard isScan, columns.count == sortKeys.count,
              columns.allSatisfy({ Self.numericSortTypes.contains($0.1) }) else { return nil }
        var info = columnar_table_info()
        try check(columnar_table_info_get(transaction, program.table, &info))
        let clusterRows = Int(columnar_scan_max_rows())
        var capacity = max(Int(info.object_count), 1)
        var words = columns.map { _ in UnsafeMutablePointer<UInt64>.allocate(capacity: capacity) }
        var classes = columns.map { _ in UnsafeMutablePointer<UInt8>.allocate(capacity: capacity) }
        var selectedKeys = UnsafeMutablePointer<Int64>.allocate(capacity: capacity)
        let keyBuffer = UnsafeMutablePointer<Int64>.allocate(capacity: clusterRows)
        let intBuffer = UnsafeMutablePointer<Int64>.allocate(capacity: clusterRows)
        let doubleBuffer = UnsafeMutablePointer<Double>.allocate(capacity: clusterRows)
        let nullBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: clusterRows)
        // The selected rows' buffers go to RowBuffers at the end; until then they are this function's to free.
        var handedOver = false
        defer {
            if !handedOver {
                for buffer in words { buffer.deallocate() }
                for buffer in classes { buffer.deallocate() }
                selectedKeys.deallocate()
            }
            keyBuffer.deallocate()
            intBuffer.deallocate()
            doubleBuffer.deallocate()
            nullBuffer.deallocate()
        }
        // Whether a column's rows fall in more than one class (else its classes are left out of the order).
        var classesDiffer = [Bool](repeating: false, count: columns.count)
        var count = 0
        try forEachCluster { cluster in
            let rowCount = cluster.rowCount
            if count + rowCount > capacity {
                // More rows than the table's metadata counted: grow.
                let newCapacity = max(capacity * 2, count + rowCount)
                func moved<T>(_ old: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<T> {
                    let new = UnsafeMutablePointer<T>.allocate(capacity: newCapacity)
                    new.moveInitialize(from: old, count: count)
                    old.deallocate()
                    return new
                }
                words = words.map(moved)
                classes = classes.map(moved)
                selectedKeys = moved(selectedKeys)
                capacity = newCapacity
            }
            let mask = cluster.mask
            // Every row selected (no filter, or one every row passes): no mask to consult row by row.
            let all = Int(columnar_mask_count(mask, UInt64(rowCount))) == rowCount
            var selected = count
            if all {
                columnar_array_decode_int(cluster.keys, 0, UInt64(rowCount), selectedKeys + count)
                selected += rowCount
            } else {
                columnar_array_decode_int(cluster.keys, 0, UInt64(rowCount), keyBuffer)
                for row in 0..<rowCount where mask[row] != 0 {
                    selectedKeys[selected] = keyBuffer[row]
                    selected += 1
                }
            }
            for (index, (column, type)) in columns.enumerated() {
                var view = try cluster.view(column)
                let ascending = sortKeys[index].ascending
                let columnWords = words[index], columnClasses = classes[index]
                var position = count
                if (type == COLUMNAR_TYPE_INT || type == COLUMNAR_TYPE_BOOL) && !view.nullable {
                    // No nulls: every row is in the values' class, so only words are written.
                    columnar_view_decode_int(&view, intBuffer, nil)
                    func word(_ row: Int) -> UInt64 {
                        OrderWords.integerWord(intBuffer[row], isNull: false, ascending: ascending).0
                    }
                    if all {
                        let target = columnWords + count
                        for row in 0..<rowCount { target[row] = word(row) }
                        continue
                    }
                    for row in 0..<rowCount where mask[row] != 0 {
                        columnWords[position] = word(row)
                        position += 1
                    }
                    continue
                }
                // The selected rows' words and classes, from each row's decoded value.
                func fill(_ wordOf: (Int) -> (UInt64, UInt8)) {
                    for row in 0..<rowCount where mask[row] != 0 {
                        (columnWords[position], columnClasses[position]) = wordOf(row)
                        position += 1
                    }
                }
                if type == COLUMNAR_TYPE_INT || type == COLUMNAR_TYPE_BOOL {
                    columnar_view_decode_int(&view, intBuffer, nullBuffer)
                    fill { OrderWords.integerWord(intBuffer[$0], isNull: nullBuffer[$0] != 0, ascending: ascending) }
                } else {
                    columnar_view_decode_double(&view, doubleBuffer, nullBuffer)
                    fill { OrderWords.doubleWord(doubleBuffer[$0], isNull: nullBuffer[$0] != 0, ascending: ascending) }
                }
                if !classesDiffer[index] && position > count {
                    let first = columnClasses[count]
                    for row in count..<position where columnClasses[row] != first {
                        classesDiffer[index] = true
                        break
                    }
                    if count > 0 && columnClasses[0] != first { classesDiffer[index] = true }
                }
            }
            count = selected
        }
        handedOver = true
        let orderWords = columns.indices.map { index in
            if !classesDiffer[index] { classes[index].deallocate() }
            return OrderWords(classes: classesDiffer[index] ? RowBuffer(owning: classes[index], count: count) : nil,
                              words: RowBuffer(owning: words[index], count: count))
        }
        return (RowBuffer(owning: selectedKeys, count: count), orderWords)
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
                        values[index].append(type == COLUMNAR_TYPE_MIXED ? evaluator.mixedValue(value)
                                             : ScalarValue(value, linkTarget: nil))
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
