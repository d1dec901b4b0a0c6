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
        var inexactObjects = 0
        var start = 0
        while start < objectCount {
            var end = start + 1
            while end < objectCount && indexKeys[end] >> runShift == indexKeys[start] >> runShift { end += 1 }
            if Self.runMayMixValues(indexKey: indexKeys[start], count: end - start, type: type,
                                    nullable: info.nullable) {
                inexactObjects += end - start
                if inexactObjects > objectCount / Self.indexOrderInexactShareLimit { return nil }
                try orderRunByValue(&order, start..<end, column: column, groupStarts: &groupStarts)
            } else {
                groupStarts?.append(start)   // one value: a string run of one, or equal exact keys
            }
            start = end
        }
        guard let groupStarts else { return order }
        // Descending: the groups in reverse, each keeping its objects in key order (the sort stays stable).
        var descending: [Int64] = []
        descending.reserveCapacity(objectCount)
        var groupEnd = objectCount
        for groupStart in groupStarts.reversed() {
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

    /// Orders `order[run]` by value (null first), ties by object key, and records where each value's group starts.
    private func orderRunByValue(_ order: inout [Int64], _ run: Range<Int>, column: columnar_col_id,
                                 groupStarts: inout [Int]?) throws {
        var entries = try order[run].map { key -> (key: Int64, value: ScalarValue) in
            var value = columnar_value()
            try check(columnar_obj_get(transaction, program.table, key, column, &value))
            return (key, ScalarValue(value, linkTarget: nil))
        }
        let decimals = evaluator.decimals
        entries.sort { left, right in
            let sign = SortColumn.compareValues(left.value, right.value, decimals: decimals)
            return sign != 0 ? sign < 0 : left.key < right.key
        }
        for (offset, entry) in entries.enumerated() {
            order[run.lowerBound + offset] = entry.key
            if groupStarts != nil,
               offset == 0 || SortColumn.compareValues(entries[offset - 1].value, entry.value, decimals: decimals) != 0 {
                groupStarts?.append(run.lowerBound + offset)
            }
        }
    }
}
