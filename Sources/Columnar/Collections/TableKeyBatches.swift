// TableKeyBatches.swift — the keys of a whole table for an iteration, read a cluster at a time.
//
// Iterating `realm.objects(T.self)` visits the objects that existed when the loop began and still exist when it
// reaches them. Collecting every key first costs 8 bytes an object and a pass over the table before the first
// object; this reads one cluster's keys when the previous ones are used up, from the Realm's transaction as it is
// then. The result is the same: keys are never reused and new objects take keys at or above the table's next key,
// so the objects that existed at the start are those below the next key it had then, and a key found in a later
// read exists at that read (an object deleted after its cluster was read is caught by the caller's check).

import CColumnar

final class TableKeyBatches {
    private let core: RealmCore
    private let table: columnar_table_id
    /// The table's next key when the iteration began: keys at or above it belong to objects made since.
    private let end: columnar_key
    /// The smallest key not yet read.
    private var resume: columnar_key = 0
    private var batch: [columnar_key] = []
    /// A cluster's keys as decoded, before those outside `resume ..< end` are left out (kept to be reused).
    private var decoded: [columnar_key] = []
    private var position = 0
    private var finished = false
    /// The Realm's change counter when the current batch was read (see `changedSinceRead`).
    private(set) var batchState: UInt64 = 0

    init(core: RealmCore, table: columnar_table_id) {
        self.core = core
        self.table = table
        var info = columnar_table_info()
        Engine.mustSucceed(columnar_table_info_get(core.currentTransaction, table, &info), "reading a table's state")
        end = info.next_key
        finished = info.object_count == 0
    }

    private init(copying other: TableKeyBatches) {
        core = other.core
        table = other.table
        end = other.end
        resume = other.resume
        batch = other.batch
        position = other.position
        finished = other.finished
        batchState = other.batchState
    }

    func copy() -> TableKeyBatches { TableKeyBatches(copying: self) }

    /// Whether the Realm changed since the key `next()` returned last was read (it may have been deleted since).
    var changedSinceRead: Bool { core.changeCounter != batchState }

    /// The next key, or nil after the last.
    func next() -> columnar_key? {
        while position == batch.count {
            guard !finished, readBatch() else { return nil }
        }
        let key = batch[position]
        position += 1
        return key
    }

    /// Reads the keys of the next cluster that holds any in `resume ..< end`; false when there is none.
    private func readBatch() -> Bool {
        batch.removeAll(keepingCapacity: true)
        position = 0
        var iterator = columnar_cluster_iter()
        var cluster = columnar_cluster()
        Engine.mustSucceed(columnar_cluster_iter_init_from(core.currentTransaction, table, resume, &iterator),
                           "iterating a table")
        batchState = core.changeCounter
        while batch.isEmpty {
            let rc = columnar_cluster_iter_next(&iterator, &cluster)
            if rc == COLUMNAR_ENOTFOUND {
                finished = true
                return false
            }
            Engine.mustSucceed(rc, "iterating a table")
            let rows = Int(cluster.row_count)
            guard rows > 0 else { continue }
            let last = columnar_array_get_int(&cluster.keys, UInt64(rows - 1))
            if last < resume { continue }
            if decoded.count < rows { decoded = [columnar_key](repeating: 0, count: rows) }
            columnar_array_decode_int(&cluster.keys, 0, UInt64(rows), &decoded)
            for key in decoded[..<rows] where key >= resume && key < end { batch.append(key) }
            if last >= end - 1 { finished = true }
            resume = last &+ 1
            if last == .max { finished = true }
            if finished && batch.isEmpty { return false }
        }
        return true
    }
}
