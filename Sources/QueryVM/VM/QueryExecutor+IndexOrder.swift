// Sorting a whole table by one property that has an ordered search index.
//
// The index already files every object in value order (docs/FileFormat.md, "Search indexes"), so the sort reads
// the index's (ordered key, object) pairs in one walk instead of gathering the values and sorting them. Keys order
// values exactly for ints and bools, and for timestamps within ±2^33 seconds of 1970; a string's key keeps only its
// first six bytes in order. Runs of objects whose keys cannot tell their values apart (null and Int64.min share a
// key; far timestamps share two saturated keys; strings share their six-byte prefix) are ordered by reading their
// values. Within equal values the objects stay in key order, which is the table's own order, so the result is the
// stable sort of the table — the same as sortedMatchingKeys's general path returns.

import CColumnar

extension QueryExecutor {
    /// A run of the index walk holding more than this share of the table's objects in runs that need their values
    /// read makes the index walk the slower way (each read is a descent): the general sort runs instead.
    static let indexOrderInexactShareLimit = 8

    /// Every object of the table sorted by `key`, read from the ordered index of its column; nil when the query
    /// filters (the general path gathers values while it scans), the property has no ordered index, or too many
    /// objects would need their values read.
    func indexOrderedKeys(_ key: SortKey) throws -> [Int64]? {
        guard selectsWholeTable, let (column, type) = directColumn(key.path),
              [COLUMNAR_TYPE_INT, COLUMNAR_TYPE_BOOL, COLUMNAR_TYPE_TIMESTAMP, COLUMNAR_TYPE_STRING].contains(type),
              let info = orderedIndexColumn(column) else { return nil }
        var table = columnar_table_info()
        guard columnar_table_info_get(transaction, program.table, &table) == 0 else { return nil }
        let objectCount = Int(table.object_count)
        guard let (indexKeys, keys) = try orderedEntries(column: column, expected: objectCount) else { return nil }
        // The index's object keys, consumed so that reordering runs below changes them in place instead of copying.
        var order = consume keys

        // Runs of entries whose keys may hide different values, and the start of every group of equal values.
        // (A string's run key is its six-byte prefix: the key without its 16 hash bits.)
        // Only a descending sort needs the groups: an ascending one is `order` itself.
        let runShift: Int64 = type == COLUMNAR_TYPE_STRING ? 16 : 0
        var groupStarts: [Int]? = key.ascending ? nil : []
        groupStarts?.reserveCapacity(objectCount)
        var inexactRuns: [Range<Int>] = []
        var inexactObjects = 0
        let tooManyInexact = indexKeys.withUnsafeBufferPointer { indexKeys in
            var start = 0
            while start < objectCount {
                let runKey = indexKeys[start] >> runShift
                var end = start + 1
                while end < objectCount && indexKeys[end] >> runShift == runKey { end += 1 }
                if Self.runMayMixValues(indexKey: indexKeys[start], count: end - start, type: type,
                                        nullable: info.nullable) {
                    inexactObjects += end - start
                    if inexactObjects > objectCount / Self.indexOrderInexactShareLimit { return true }
                    inexactRuns.append(start..<end)
                } else {
                    groupStarts?.append(start)   // one value: a string run of one, or equal exact keys
                }
                start = end
            }
            return false
        }
        if tooManyInexact { return nil }
        let runGroupStarts = try orderRunsByValue(&order, inexactRuns, objectCount: inexactObjects, column: column,
                                                  type: type, recordingGroups: groupStarts != nil)
        guard let exactGroupStarts = groupStarts else { return order }
        // Descending: the groups in reverse, each keeping its objects in key order (the sort stays stable).
        var descending: [Int64] = []
        descending.reserveCapacity(objectCount)
        var groupEnd = objectCount
        for groupStart in Self.mergedAscending(exactGroupStarts, runGroupStarts).reversed() {
            descending.append(contentsOf: order[groupStart..<groupEnd])
            groupEnd = groupStart
        }
        return descending
    }

    /// The index's entries, or nil when it does not list exactly the table's `expected` objects (the general sort
    /// then answers from the table itself).
    private func orderedEntries(column: columnar_col_id, expected: Int) throws -> ([Int64], [Int64])? {
        var capacity = expected
        while true {
            // Uninitialized: the walk writes every entry it reports (zero-filling 16 bytes an object first would cost
            // a tenth of the walk).
            var count = 0
            var status = COLUMNAR_OK
            var keys: [Int64] = []
            let indexKeys = [Int64](unsafeUninitializedCapacity: capacity) { indexKeyBuffer, indexKeysWritten in
                keys = [Int64](unsafeUninitializedCapacity: capacity) { keyBuffer, keysWritten in
                    status = columnar_index_ordered_entries(transaction, program.table, column,
                                                            indexKeyBuffer.baseAddress, keyBuffer.baseAddress,
                                                            capacity, &count)
                    keysWritten = status == COLUMNAR_OK ? min(count, capacity) : 0
                }
                indexKeysWritten = keys.count
            }
            try check(status)
            if count <= capacity { return count == expected ? (indexKeys, keys) : nil }
            capacity = count
        }
    }

    /// Whether a run of `count` entries under one run key may hold more than one value.
    private static func runMayMixValues(indexKey: Int64, count: Int, type: columnar_type, nullable: Bool) -> Bool {
        guard count > 1 else { return false }
        switch type {
        case COLUMNAR_TYPE_STRING: return true   // six bytes in order, the rest of the key is a hash
        case COLUMNAR_TYPE_TIMESTAMP: return indexKey == .min || indexKey == .min + 1 || indexKey == .max
        default: return nullable && indexKey == .min   // null and Int64.min
        }
    }

    /// Orders each of `runs` (ascending, not overlapping; `objectCount` objects in all) of `order` by value, null
    /// first, ties by object key. Their values are read in one gather, which visits each cluster once instead of
    /// descending the table once per object. With `recordingGroups`, returns where each value's group starts.
    private func orderRunsByValue(_ order: inout [Int64], _ runs: [Range<Int>], objectCount: Int,
                                  column: columnar_col_id, type: columnar_type,
                                  recordingGroups: Bool) throws -> [Int] {
        guard !runs.isEmpty else { return [] }
        var keys: [Int64] = []
        keys.reserveCapacity(objectCount)
        for run in runs { keys.append(contentsOf: order[run]) }
        var values = [columnar_value](repeating: columnar_value(), count: keys.count)
        try check(columnar_obj_get_many(transaction, program.table, column, keys, UInt64(keys.count), &values, nil))
        let decimals = evaluator.decimals
        var groupStarts: [Int] = []
        var first = 0   // of the run's keys and values
        for run in runs {
            // Strings (nearly every run) compare their bytes where they lie; other types as scalar values.
            let isString = type == COLUMNAR_TYPE_STRING
            let scalars = isString ? [] : values[first..<first + run.count].map { ScalarValue($0, linkTarget: nil) }
            func compare(_ left: Int, _ right: Int) -> Int {
                guard isString else { return SortColumn.compareValues(scalars[left], scalars[right], decimals: decimals) }
                let l = values[first + left].as.bytes, r = values[first + right].as.bytes
                return SortColumn.compareBytes(l.data, count: l.size, isNull: values[first + left].is_null,
                                               r.data, count: r.size, isNull: values[first + right].is_null)
            }
            let sorted = (0..<run.count).sorted { left, right in
                let sign = compare(left, right)
                return sign != 0 ? sign < 0 : keys[first + left] < keys[first + right]
            }
            for (offset, position) in sorted.enumerated() {
                order[run.lowerBound + offset] = keys[first + position]
                if recordingGroups, offset == 0 || compare(sorted[offset - 1], position) != 0 {
                    groupStarts.append(run.lowerBound + offset)
                }
            }
            first += run.count
        }
        return groupStarts
    }

    /// Two ascending arrays of distinct positions as one ascending array.
    private static func mergedAscending(_ left: [Int], _ right: [Int]) -> [Int] {
        guard !right.isEmpty else { return left }
        var merged: [Int] = []
        merged.reserveCapacity(left.count + right.count)
        var l = 0, r = 0
        while l < left.count || r < right.count {
            if r == right.count || (l < left.count && left[l] < right[r]) {
                merged.append(left[l])
                l += 1
            } else {
                merged.append(right[r])
                r += 1
            }
        }
        return merged
    }
}
