// ClusterDiff: the objects of a table that differ between two versions, found by walking both versions' clusters
// side by side in key order.
//
// The file is copy-on-write, so a cluster no commit between the versions touched has the same ref in both, and is
// skipped whole. Where the refs differ (a cluster changed, split or merged), the two versions' rows are merged by
// key: a key only in the old version is a deletion, only in the new one an insertion, and a key in both is
// compared column by column on the clusters' column arrays (decoded once per cluster), not by a tree descent per
// value. A one-object change in a 100,000-object table costs one step per cluster of each version plus one
// cluster's rows.

import CColumnar
import Foundation

struct ClusterDiff {
    /// Keys only in the new version, ascending.
    var inserted: [Int64] = []
    /// Keys only in the old version, ascending.
    var deleted: [Int64] = []
    /// Keys in both whose value in one of the compared columns differs, ascending.
    var changed: [Int64] = []
    /// For each of `changed`, which of the compared columns differ (bit i: the i-th column; only the first 64).
    var changedColumns: [UInt64] = []
    /// Keys in both that lie in a cluster that changed (a superset of `changed`), ascending; kept only when asked
    /// for (collection columns are compared object by object on these).
    var touched: [Int64] = []

    /// Compares `columns` (single-valued columns) of `table` between two read transactions; nil when the walk
    /// failed (a table missing in one version, a damaged node).
    static func between(old: OpaquePointer, new: OpaquePointer, table: columnar_table_id, columns: [columnar_col_id],
                        keepTouched: Bool = false) -> ClusterDiff? {
        var oldScan: OpaquePointer?, newScan: OpaquePointer?
        guard columnar_scan_open(old, table, &oldScan) == COLUMNAR_OK,
              columnar_scan_open(new, table, &newScan) == COLUMNAR_OK else {
            columnar_scan_close(oldScan)
            return nil
        }
        defer {
            columnar_scan_close(oldScan)
            columnar_scan_close(newScan)
        }
        var diff = ClusterDiff()
        var oldSide = ScanSide(scan: oldScan!, columns: columns)
        var newSide = ScanSide(scan: newScan!, columns: columns)
        guard oldSide.advance(), newSide.advance() else { return nil }
        while !oldSide.isDone || !newSide.isDone {
            // Both at the start of the same untouched cluster: skip it whole.
            if !oldSide.isDone, !newSide.isDone, oldSide.row == 0, newSide.row == 0, oldSide.cluster.ref != 0,
               oldSide.cluster.ref == newSide.cluster.ref {
                guard oldSide.advance(), newSide.advance() else { return nil }
                continue
            }
            let oldKey = oldSide.isDone ? Int64.max : oldSide.key
            let newKey = newSide.isDone ? Int64.max : newSide.key
            if newSide.isDone || (!oldSide.isDone && oldKey < newKey) {
                diff.deleted.append(oldKey)
                guard oldSide.step() else { return nil }
            } else if oldSide.isDone || newKey < oldKey {
                diff.inserted.append(newKey)
                guard newSide.step() else { return nil }
            } else {
                guard let differing = oldSide.differingColumns(from: &newSide) else { return nil }
                if differing != 0 {
                    diff.changed.append(newKey)
                    diff.changedColumns.append(differing)
                }
                if keepTouched { diff.touched.append(newKey) }
                guard oldSide.step(), newSide.step() else { return nil }
            }
        }
        return diff
    }
}

/// One version's side of the walk: its scan, current cluster and row, and the compared columns of the cluster,
/// decoded when a row of it is first compared.
private struct ScanSide {
    let scan: OpaquePointer
    let columns: [columnar_col_id]
    var cluster = columnar_cluster()
    var row: UInt64 = 0
    var isDone = false
    /// The current cluster's compared columns, once decoded (`isDecoded`).
    private var decoded: [DecodedColumn] = []
    private var isDecoded = false

    init(scan: OpaquePointer, columns: [columnar_col_id]) {
        self.scan = scan
        self.columns = columns
    }

    var key: Int64 { withUnsafePointer(to: cluster.keys) { columnar_array_get_int($0, row) } }

    /// Moves to the next cluster's first row; false on a failure.
    mutating func advance() -> Bool {
        isDecoded = false
        row = 0
        let rc = columnar_scan_next(scan, &cluster)
        if rc == COLUMNAR_ENOTFOUND { isDone = true; return true }
        return rc == COLUMNAR_OK
    }

    /// Moves to the next row; false on a failure.
    mutating func step() -> Bool {
        row += 1
        return row < cluster.row_count ? true : advance()
    }

    /// Decodes the current cluster's compared columns on first use; false on a failure.
    private mutating func decodeCluster() -> Bool {
        if isDecoded { return true }
        decoded.removeAll(keepingCapacity: true)
        for column in columns {
            var view = columnar_column_view()
            guard columnar_scan_column(scan, column, &view) == COLUMNAR_OK else { return false }
            decoded.append(DecodedColumn(view))
        }
        isDecoded = true
        return true
    }

    /// Which compared columns differ between the current rows of the two sides (bit i: the i-th column; a
    /// difference past the 64th sets every bit); nil on a failure.
    mutating func differingColumns(from other: inout ScanSide) -> UInt64? {
        guard decodeCluster(), other.decodeCluster() else { return nil }
        var differing: UInt64 = 0
        let mine = Int(row), theirs = Int(other.row)
        for index in decoded.indices {
            guard let equal = decoded[index].equal(row: mine, other.decoded[index], row: theirs) else { return nil }
            if !equal { differing |= index < 64 ? 1 << UInt64(index) : .max }
        }
        return differing
    }
}

/// One column of one cluster, in a form whose rows compare cheaply: integers and doubles decoded (doubles compared
/// by their bits, so a stored NaN equals itself), strings and fixed-size values read where they lie. The decoded
/// values sit in plain arrays (not in enum payloads, which a comparison would retain and release per row).
private struct DecodedColumn {
    private enum Kind {
        case numbers     // integers, or the bits of doubles
        case timestamps  // seconds in `numbers`, and `nanoseconds`
        case bytes
        case fixed
    }

    private var view: columnar_column_view
    private let kind: Kind
    private let width: Int
    private let numbers: [Int64]
    private let nanoseconds: [Int32]
    private let nulls: [UInt8]

    init(_ view: columnar_column_view) {
        self.view = view
        let count = Int(view.count)
        var nulls = [UInt8](repeating: 0, count: count)
        var numbers: [Int64] = []
        var nanoseconds: [Int32] = []
        var view = view
        width = Int(view.values.width)
        switch view.type {
        case COLUMNAR_TYPE_INT, COLUMNAR_TYPE_BOOL, COLUMNAR_TYPE_LINK:
            numbers = [Int64](repeating: 0, count: count)
            columnar_view_decode_int(&view, &numbers, &nulls)
            kind = .numbers
        case COLUMNAR_TYPE_FLOAT, COLUMNAR_TYPE_DOUBLE:
            var doubles = [Double](repeating: 0, count: count)
            columnar_view_decode_double(&view, &doubles, &nulls)
            // Null rows compare by their null flag alone.
            numbers = doubles.indices.map { nulls[$0] != 0 ? 0 : Int64(bitPattern: doubles[$0].bitPattern) }
            kind = .numbers
        case COLUMNAR_TYPE_TIMESTAMP:
            numbers = [Int64](repeating: 0, count: count)
            nanoseconds = [Int32](repeating: 0, count: count)
            columnar_view_decode_timestamp(&view, &numbers, &nanoseconds, &nulls)
            kind = .timestamps
        case COLUMNAR_TYPE_STRING, COLUMNAR_TYPE_BINARY:
            kind = .bytes   // nulls come with each row's bytes
        default:
            kind = .fixed
            if view.nulls.encoding.rawValue != 0 {
                for row in 0..<count { nulls[row] = columnar_array_get_int(&view.nulls, UInt64(row)) != 0 ? 1 : 0 }
            } else if view.all_default && view.nullable {
                nulls = [UInt8](repeating: 1, count: count)
            }
        }
        self.numbers = numbers
        self.nanoseconds = nanoseconds
        self.nulls = nulls
    }

    /// Whether row `row` holds the same value as `other`'s row `otherRow`; nil when a value cannot be read.
    func equal(row mine: Int, _ other: DecodedColumn, row theirs: Int) -> Bool? {
        switch (kind, other.kind) {
        case (.numbers, .numbers):
            return nulls[mine] == other.nulls[theirs] && numbers[mine] == other.numbers[theirs]
        case (.timestamps, .timestamps):
            return nulls[mine] == other.nulls[theirs] && numbers[mine] == other.numbers[theirs]
                && nanoseconds[mine] == other.nanoseconds[theirs]
        case (.bytes, .bytes):
            guard let a = bytes(UInt64(mine)), let b = other.bytes(UInt64(theirs)) else { return nil }
            if a.isNull || b.isNull { return a.isNull == b.isNull }
            guard a.size == b.size else { return false }
            guard a.size > 0, let left = a.data, let right = b.data else { return true }
            return memcmp(left, right, a.size) == 0
        case (.fixed, .fixed):
            if nulls[mine] != other.nulls[theirs] { return false }
            if nulls[mine] != 0 { return true }
            switch (fixedBytes(mine), other.fixedBytes(theirs)) {
            case (let a?, let b?): return a.count == b.count && memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
            case (let a?, nil): return a.allSatisfy { $0 == 0 }   // a cluster storing only defaults: all zero
            case (nil, let b?): return b.allSatisfy { $0 == 0 }
            case (nil, nil): return true
            }
        default:
            return nil
        }
    }

    private func bytes(_ row: UInt64) -> (data: UnsafeRawPointer?, size: Int, isNull: Bool)? {
        if view.all_default { return (nil, 0, view.nullable) }
        var view = self.view
        var data: UnsafeRawPointer?
        var size = 0
        var isNull = false
        guard columnar_view_get_bytes(&view, row, &data, &size, &isNull) == COLUMNAR_OK else { return nil }
        return (data, size, isNull)
    }

    /// A fixed-size value's bytes where they lie (nil for a column that stores only defaults).
    private func fixedBytes(_ row: Int) -> UnsafeRawBufferPointer? {
        guard !view.all_default, width > 0, let data = view.values.data else { return nil }
        return UnsafeRawBufferPointer(start: data + row * width, count: width)
    }
}
