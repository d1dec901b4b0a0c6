// VersionComparison: what changed between the version a core's observations last reported (old) and the version it
// reads now (new), computed column by column and shared by every observation of one delivery.
//
// The file is copy-on-write: a cluster (a node holding up to a few hundred objects' columns) that no commit between
// the two versions touched has the same ref in both. So the changed objects of a table are found by collecting the
// old version's cluster refs and comparing, row by row, only the observed columns of the new version's clusters
// whose ref is not among them. A one-object change in a 100,000-object table costs one cluster's rows, plus one
// pass over the cluster list of each version.

import CColumnar
import Foundation

final class VersionComparison {
    let core: RealmCore
    /// The version the observations' state describes; nil when none has state yet (only initial callbacks).
    let old: ReadVersion?
    let new: ReadVersion
    /// Whether this delivery follows a commit made by the core itself.
    let isLocalCommit: Bool

    private struct RowsKey: Hashable {
        let table: columnar_table_id
        let columns: [ObservedNode.Column]
    }

    private var changedRowsCache: [RowsKey: Set<Int64>] = [:]
    /// The property writes the commits between the versions recorded, in any process (self-assignments included).
    private lazy var loggedWrites: Set<CommitWriteLog.Write> = {
        guard let old, versionChanged else { return [] }
        return core.file.writeLog.writes(after: old.version, through: new.version)
    }()

    /// Whether a commit between the versions set the property (to any value, its own included).
    func wasWritten(_ table: columnar_table_id, _ key: columnar_key, _ column: columnar_col_id) -> Bool {
        !loggedWrites.isEmpty && loggedWrites.contains(CommitWriteLog.Write(table: table, key: key, column: column))
    }
    private var subtreeChangedCache: [ObjectIdentifier: Bool] = [:]

    init(core: RealmCore, old: ReadVersion?, new: ReadVersion, isLocalCommit: Bool) {
        self.core = core
        self.old = old
        self.new = new
        self.isLocalCommit = isLocalCommit
    }

    /// Whether the two versions differ at all.
    var versionChanged: Bool {
        guard let old else { return false }
        return old !== new && old.version != new.version
    }

    // MARK: Changed rows

    /// The keys of the table's objects present in both versions whose value in any of `columns` differs.
    func changedRows(_ table: columnar_table_id, _ columns: [ObservedNode.Column]) -> Set<Int64> {
        let cacheKey = RowsKey(table: table, columns: columns)
        if let cached = changedRowsCache[cacheKey] { return cached }
        var changed = Set<Int64>()
        if let old, versionChanged, !columns.isEmpty {
            let single = columns.filter { $0.collection == COLUMNAR_COLLECTION_NONE.rawValue }
            let collections = columns.filter { $0.collection != COLUMNAR_COLLECTION_NONE.rawValue }
            if let tableDiff = tableDiff(table), let wanted = tableDiff.mask(of: single.map(\.column)) {
                let diff = tableDiff.diff
                for (key, differing) in zip(diff.changed, diff.changedColumns) where differing & wanted != 0 {
                    changed.insert(key)
                }
                // Lists, sets and maps are compared object by object, only for the objects of changed clusters.
                if !collections.isEmpty {
                    for key in diff.touched where !changed.contains(key)
                        && rowDiffers(table, key, collections, old: old.transaction) {
                        changed.insert(key)
                    }
                }
            } else {
                changed.formUnion(changedRowsByObject(table, columns, old: old))
            }
            // A table missing from the old version has only new objects: insertions, not modifications.
            // Properties set to the value they held count too (when this process's commits set them).
            let observedColumns = Set(columns.map(\.column))
            for write in loggedWrites where write.table == table && observedColumns.contains(write.column) {
                changed.insert(write.key)
            }
        }
        changedRowsCache[cacheKey] = changed
        return changed
    }

    /// The objects of a table that were inserted, deleted, or changed in any of `columns` (single-valued) between
    /// the versions (`changed`, ascending), and which of them exist in the new version (`present`, ascending); nil
    /// when the walk failed.
    func tableChanges(_ table: columnar_table_id,
                      _ columns: [columnar_col_id]) -> (changed: [Int64], present: [Int64])? {
        guard versionChanged else { return ([], []) }
        guard let tableDiff = tableDiff(table), let wanted = tableDiff.mask(of: columns) else { return nil }
        let diff = tableDiff.diff
        var changed: [Int64] = []
        for (key, differing) in zip(diff.changed, diff.changedColumns) where differing & wanted != 0 {
            changed.append(key)
        }
        let present = Self.merged(diff.inserted, changed)
        return (Self.merged(present, diff.deleted), present)
    }

    /// A table's objects compared between the versions in every single-valued column, once per delivery: the
    /// walk over both versions' clusters is most of the cost, and every observation of the table shares it.
    final class TableDiff {
        let columns: [columnar_col_id]
        let diff: ClusterDiff

        init(columns: [columnar_col_id], diff: ClusterDiff) {
            self.columns = columns
            self.diff = diff
        }

        /// The bits of `wanted` among the compared columns; nil when one of them was not compared.
        func mask(of wanted: [columnar_col_id]) -> UInt64? {
            var mask: UInt64 = 0
            for column in wanted {
                guard let index = columns.firstIndex(of: column) else { return nil }
                mask |= 1 << UInt64(index)
            }
            return mask
        }
    }

    private var tableDiffCache: [columnar_table_id: TableDiff?] = [:]

    /// The table's diff over its single-valued columns (at most 64), with the keys of changed clusters kept for
    /// collection columns; nil when the walk cannot run (a table or column missing in the old version).
    func tableDiff(_ table: columnar_table_id) -> TableDiff? {
        if let cached = tableDiffCache[table] { return cached }
        var result: TableDiff?
        if let old, versionChanged {
            var info = columnar_table_info()
            var columns: [columnar_col_id] = []
            if columnar_table_info_get(new.transaction, table, &info) == COLUMNAR_OK {
                var column = columnar_column_info()
                for id in 0..<info.column_count
                where columnar_column_info_get(new.transaction, table, columnar_col_id(id), &column) == COLUMNAR_OK
                    && column.collection == COLUMNAR_COLLECTION_NONE {
                    columns.append(columnar_col_id(id))
                }
                if columns.count <= 64, let diff = ClusterDiff.between(old: old.transaction, new: new.transaction,
                                                                       table: table, columns: columns,
                                                                       keepTouched: true) {
                    result = TableDiff(columns: columns, diff: diff)
                }
            }
        }
        tableDiffCache[table] = result
        return result
    }

    /// Two ascending key lists (without common keys) merged into one.
    private static func merged(_ a: [Int64], _ b: [Int64]) -> [Int64] {
        if a.isEmpty { return b }
        if b.isEmpty { return a }
        var result: [Int64] = []
        result.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && a[i] < b[j]) { result.append(a[i]); i += 1 } else { result.append(b[j]); j += 1 }
        }
        return result
    }

    /// `changedRows` object by object, where the side-by-side walk cannot run (a table missing in the old version
    /// has no changed rows: only new objects).
    private func changedRowsByObject(_ table: columnar_table_id, _ columns: [ObservedNode.Column],
                                     old: ReadVersion) -> Set<Int64> {
        var changed = Set<Int64>()
        var oldRefs = Set<UInt64>()
        var iterator = columnar_cluster_iter()
        var cluster = columnar_cluster()
        guard columnar_cluster_iter_init(old.transaction, table, &iterator) == COLUMNAR_OK else { return [] }
        while columnar_cluster_iter_next(&iterator, &cluster) == COLUMNAR_OK { oldRefs.insert(cluster.ref) }
        guard columnar_cluster_iter_init(new.transaction, table, &iterator) == COLUMNAR_OK else { return [] }
        while columnar_cluster_iter_next(&iterator, &cluster) == COLUMNAR_OK {
            if cluster.ref != 0 && oldRefs.contains(cluster.ref) { continue }
            for row in 0..<cluster.row_count {
                let key = columnar_array_get_int(&cluster.keys, row)
                if rowDiffers(table, key, columns, old: old.transaction) { changed.insert(key) }
            }
        }
        return changed
    }

    /// Whether the object's value in any of the columns differs between the versions (false for an object that
    /// is new).
    private func rowDiffers(_ table: columnar_table_id, _ key: columnar_key, _ columns: [ObservedNode.Column],
                            old: OpaquePointer) -> Bool {
        columns.contains { columnDiffers(table, key, $0, old: old) }
    }

    func columnDiffers(_ table: columnar_table_id, _ key: columnar_key, _ observed: ObservedNode.Column,
                       old: OpaquePointer) -> Bool {
        let new = self.new.transaction
        let column = observed.column
        var a = columnar_value(), b = columnar_value()
        if observed.collection == COLUMNAR_COLLECTION_NONE.rawValue {
            guard columnar_obj_get(old, table, key, column, &a) == COLUMNAR_OK,
                  columnar_obj_get(new, table, key, column, &b) == COLUMNAR_OK else { return false }
            return !EngineValue.equal(a, b)
        }
        var oldSize: UInt64 = 0, newSize: UInt64 = 0
        guard columnar_coll_size(old, table, key, column, &oldSize) == COLUMNAR_OK,
              columnar_coll_size(new, table, key, column, &newSize) == COLUMNAR_OK else { return false }
        if oldSize != newSize { return true }
        let isDictionary = observed.collection == COLUMNAR_COLLECTION_DICT.rawValue
        for index in 0..<newSize {
            guard columnar_coll_get(old, table, key, column, index, &a) == COLUMNAR_OK,
                  columnar_coll_get(new, table, key, column, index, &b) == COLUMNAR_OK else { return true }
            if !EngineValue.equal(a, b) { return true }
            if isDictionary {
                var oldKey: UnsafeRawPointer?, newKey: UnsafeRawPointer?
                var oldKeySize = 0, newKeySize = 0
                guard columnar_dict_key_at(old, table, key, column, index, &oldKey, &oldKeySize) == COLUMNAR_OK,
                      columnar_dict_key_at(new, table, key, column, index, &newKey, &newKeySize) == COLUMNAR_OK
                else { return true }
                if oldKeySize != newKeySize || (oldKeySize > 0 && memcmp(oldKey!, newKey!, oldKeySize) != 0) {
                    return true
                }
            }
        }
        return false
    }

    // MARK: Through links

    /// Whether anything a node observes (its columns, or below its links) changed in any object.
    func subtreeChanged(_ node: ObservedNode) -> Bool {
        let id = ObjectIdentifier(node)
        if let cached = subtreeChangedCache[id] { return cached }
        subtreeChangedCache[id] = false   // a cycle of nodes cannot make itself changed
        let changed = !changedRows(node.table, node.columns).isEmpty
            || node.links.contains { subtreeChanged($0.child) }
        subtreeChangedCache[id] = changed
        return changed
    }

    /// Keys of the node's table that changed as the node observes them: an observed column differs, or an object
    /// they link to (in the new version) changed as the link's child node observes it. Every one of `candidates`
    /// that changed is in the answer; so may be other keys (callers test membership of their own keys), which is
    /// what makes a one-object change in a large collection cheap: without changed links below the node, the
    /// answer is the table's changed rows, and the candidates are not even looked at.
    func modifiedKeys<Keys: Sequence>(_ node: ObservedNode, among candidates: Keys) -> Set<Int64>
        where Keys.Element == Int64 {
        guard versionChanged, subtreeChanged(node) else { return [] }
        let own = changedRows(node.table, node.columns)
        if !node.links.contains(where: { subtreeChanged($0.child) }) { return own }
        var modified = Set<Int64>()
        var remaining: [Int64] = []
        for key in candidates {
            if own.contains(key) { modified.insert(key) } else { remaining.append(key) }
        }
        for link in node.links where !remaining.isEmpty && subtreeChanged(link.child) {
            var targetsByKey: [(key: Int64, targets: [Int64])] = []
            var allTargets = Set<Int64>()
            for key in remaining {
                let targets = linkTargets(node.table, key, link.column)
                targetsByKey.append((key, targets))
                allTargets.formUnion(targets)
            }
            let changedTargets = modifiedKeys(link.child, among: allTargets)
            if changedTargets.isEmpty { continue }
            var stillRemaining: [Int64] = []
            for (key, targets) in targetsByKey {
                if targets.contains(where: changedTargets.contains) { modified.insert(key) } else { stillRemaining.append(key) }
            }
            remaining = stillRemaining
        }
        return modified
    }

    /// The keys an object links to through a link column (a single link, or a list, set or map of links), in the
    /// new version.
    func linkTargets(_ table: columnar_table_id, _ key: columnar_key, _ observed: ObservedNode.Column) -> [Int64] {
        let txn = new.transaction
        var value = columnar_value()
        if observed.collection == COLUMNAR_COLLECTION_NONE.rawValue {
            guard columnar_obj_get(txn, table, key, observed.column, &value) == COLUMNAR_OK, !value.is_null else {
                return []
            }
            return [value.as.link]
        }
        var size: UInt64 = 0
        guard columnar_coll_size(txn, table, key, observed.column, &size) == COLUMNAR_OK else { return [] }
        var targets: [Int64] = []
        targets.reserveCapacity(Int(size))
        for index in 0..<size where columnar_coll_get(txn, table, key, observed.column, index, &value) == COLUMNAR_OK {
            if !value.is_null { targets.append(value.as.link) }
        }
        return targets
    }
}
