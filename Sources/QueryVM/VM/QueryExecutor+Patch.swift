// Updating a previous answer after a few objects changed, instead of evaluating and sorting every object again.
//
// A live sorted Results of 100,000 objects is evaluated again after every commit it observes; when the commit
// changed one object, sorting all of them again (tens of milliseconds) is almost all of the delivery's cost. When
// the predicate and the sort keys read only the objects' own columns, an object whose own columns did not change
// keeps its verdict and its sort values, so the previous answer stays right for it: only the changed objects need
// to leave the answer and, where they still exist and match, come back at the place the sort gives them. The
// caller (Results, for change notifications) decides when that holds.

import CColumnar

extension QueryExecutor {
    /// `previous` (this program's matching keys at an earlier version, sorted by `sortKeys`, ties in key order; or
    /// in key order when there are no sort keys) updated for this transaction's version: every key of `removing`
    /// (ascending) leaves, then every key of `adding` (keys that exist in this version) that matches comes in at its
    /// sorted place. Right when the objects not in `removing` have the same values at both versions in every column
    /// the predicate and the sort keys read.
    public func patchedKeys(_ previous: [Int64], removing: [Int64], adding: [Int64],
                            sortedBy sortKeys: [SortKey]) throws -> [Int64] {
        if removing.isEmpty && adding.isEmpty { return previous }
        var keys = Self.keys(previous, without: removing)
        for key in adding where try evaluator.holds(program.predicate, table: program.table, key: key) {
            let values = try sortValues(of: key, sortKeys)
            // The first position whose object sorts after the new one.
            var low = 0, high = keys.count
            while low < high {
                let middle = (low + high) / 2
                if try sortsBefore(keys[middle], key, values, sortKeys) { low = middle + 1 } else { high = middle }
            }
            keys.insert(key, at: low)
        }
        return keys
    }

    /// `keys` without those in `removing` (ascending), in order.
    private static func keys(_ keys: [Int64], without removing: [Int64]) -> [Int64] {
        guard let lowest = removing.first, let highest = removing.last else { return keys }
        if removing.count <= 16 {
            // A few keys: find each with a tight scan, then copy the runs between them.
            var positions: [Int] = []
            keys.withUnsafeBufferPointer { buffer in
                for key in removing {
                    if let position = buffer.firstIndex(of: key) { positions.append(position) }
                }
            }
            positions.sort()
            var kept: [Int64] = []
            kept.reserveCapacity(keys.count + 1)
            var start = 0
            for position in positions {
                kept.append(contentsOf: keys[start..<position])
                start = position + 1
            }
            kept.append(contentsOf: keys[start...])
            return kept
        }
        var kept: [Int64] = []
        kept.reserveCapacity(keys.count)
        for key in keys {
            // Most keys fall outside the removed ones' range (new objects take the highest keys): one comparison.
            if key < lowest || key > highest || !contains(removing, key) { kept.append(key) }
        }
        return kept
    }

    private static func contains(_ sorted: [Int64], _ key: Int64) -> Bool {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count && sorted[low] == key
    }

    private func sortValues(of key: Int64, _ sortKeys: [SortKey]) throws -> [ScalarValue] {
        try sortKeys.map { try sortValue(of: key, $0) }
    }

    /// One object's value of a sort key: an own column read directly, a path through links by the evaluator.
    private func sortValue(of key: Int64, _ sortKey: SortKey) throws -> ScalarValue {
        if let own = sortKey.path.ownColumn, own.type != COLUMNAR_TYPE_LINK {
            var value = columnar_value()
            let rc = columnar_obj_get(transaction, program.table, key, own.column, &value)
            if rc != 0 { throw ColumnarError.fromLastError(rc) }
            return ScalarValue(value, linkTarget: nil)
        }
        return try evaluator.values(.path(sortKey.path), table: program.table, key: key).first ?? .null
    }

    /// Whether the object `existing` comes before the object `key` (whose sort values are `values`) in the order
    /// `sortedMatchingKeys` gives: by each sort key in its direction, then by object key.
    private func sortsBefore(_ existing: Int64, _ key: Int64, _ values: [ScalarValue],
                             _ sortKeys: [SortKey]) throws -> Bool {
        for (index, sortKey) in sortKeys.enumerated() {
            let existingValue = try sortValue(of: existing, sortKey)
            let order = SortColumn.compareValues(existingValue, values[index], decimals: evaluator.decimals)
            if order != 0 { return sortKey.ascending ? order < 0 : order > 0 }
        }
        return existing < key
    }
}
