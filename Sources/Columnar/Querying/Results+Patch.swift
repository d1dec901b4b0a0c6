// Keeping a live Results' keys current after a commit that changed a few of its objects, for change notifications.
//
// A delivery needs the observed results' keys at the new version. Evaluating them again sorts every object, which
// for a large sorted Results costs far more than the change itself. When the results are a table's objects
// filtered and sorted by the objects' own properties only (no links, collections or backlinks, whose targets can
// change without the object changing), and few objects were inserted, deleted or changed in the properties the
// query reads, the keys of the previous version are patched instead (QueryExecutor+Patch.swift) and kept as the
// results' keys for the new version, so reading them afterwards costs nothing more.

import CColumnar
import QueryVM

extension Results {
    /// More changed objects than this share of the previous keys (or than `patchLimit`) are evaluated afresh.
    static var patchShare: Int { 16 }
    static var patchLimit: Int { 4_096 }

    /// The keys at the core's current version, patched from `previous` (the keys at `comparison`'s old version)
    /// and adopted as these results' keys, with the objects that may have moved (ascending: the others keep their
    /// relative order). When too many objects changed to patch, the keys are evaluated afresh, and the objects that
    /// may have moved are still told (which keeps the diff to them). nil when the results read more than their
    /// objects' own properties (the caller reads `keys` and diffs in general).
    func keysPatched(from previous: [Int64],
                     comparison: VersionComparison) -> (keys: [Int64], movable: [Int64])? {
        guard source.isTable, !isWholeTable, !isInvalidated, !core.isInWriteTransaction,
              comparison.new === core.readVersion, snapshot.state != core.changeCounter,
              let target, let binding = currentBinding, let plan = patchPlan(target: target),
              let changes = comparison.tableChanges(binding.table, plan.columns)
        else { return nil }
        if changes.changed.count > Swift.min(Self.patchLimit, Swift.max(1, previous.count / Self.patchShare)) {
            return (keys, changes.changed)
        }
        let keys: [Int64]
        do {
            let executor = query.executor(core: core, target: target, source: source)
            keys = try executor.patchedKeys(previous, removing: changes.changed, adding: changes.present,
                                            sortedBy: plan.sortKeys)
        } catch {
            return nil
        }
        assert(keys == (try? query.keys(core: core, target: target, source: source)),
               "the patched keys of \(target.className) differ from a fresh evaluation")
        snapshot.keys = keys
        snapshot.state = core.changeCounter
        core.notifications.patchedResultsCount += 1
        return (keys, changes.changed)
    }

    /// The columns the query reads and its sort keys, when it reads only the objects' own properties and sorts at
    /// most once (no distinct).
    private func patchPlan(target: QueryTarget) -> (columns: [columnar_col_id], sortKeys: [SortKey])? {
        var columns = Set<columnar_col_id>()
        if let predicate = query.predicate, !Self.ownColumns(of: predicate, into: &columns) { return nil }
        var sortKeys: [SortKey] = []
        switch query.orderingSteps.count {
        case 0: break
        case 1:
            guard case .sort(let descriptors) = query.orderingSteps[0] else { return nil }
            for descriptor in descriptors {
                guard let path = try? TypeChecker.resolveKeyPath(descriptor.keyPath, table: target.table,
                                                                  model: target.model, for: .sort),
                      let own = path.ownColumn else { return nil }
                columns.insert(own.column)
                sortKeys.append(SortKey(path: path, ascending: descriptor.ascending))
            }
        default: return nil
        }
        return (columns.sorted(), sortKeys)
    }

    /// Adds the columns a predicate reads to `columns`; false when it reads anything but the object's own
    /// single-valued properties.
    private static func ownColumns(of predicate: CheckedPredicate, into columns: inout Set<columnar_col_id>) -> Bool {
        switch predicate {
        case .constant: return true
        case .and(let parts), .or(let parts): return parts.allSatisfy { ownColumns(of: $0, into: &columns) }
        case .not(let part): return ownColumns(of: part, into: &columns)
        case .comparison(let comparison):
            return ownColumns(of: comparison.lhs, into: &columns) && ownColumns(of: comparison.rhs, into: &columns)
        }
    }

    private static func ownColumns(of operand: CheckedOperand, into columns: inout Set<columnar_col_id>) -> Bool {
        switch operand {
        case .constant, .constants: return true
        case .path(let path):
            guard let own = path.ownColumn, own.type != COLUMNAR_TYPE_LINK else { return false }
            columns.insert(own.column)
            return true
        default: return false
        }
    }
}
