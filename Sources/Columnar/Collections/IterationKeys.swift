// IterationKeys.swift — the keys a loop over Results visits, and for a whole table their reading a cluster at a time.
//
// A loop visits the objects that matched when it began and still exist when it reaches them. For filtered or
// sorted results the keys are those the query produced when the loop began. For a whole table (TableKeyBatches)
// they are read one cluster at a time, when the previous cluster's are used up, from the Realm's transaction as it
// is then: collecting every key first costs 8 bytes an object and a pass over the table before the first object.
// The result is the same: keys are never reused and new objects take keys at or above the table's next key, so the
// objects that existed at the start are those below the next key it had then, and a key found in a later read
// exists at that read. An object deleted after its keys were read is caught by the loop's check, which runs once
// the Realm's change counter moved since the read.

import CColumnar

/// The keys of one loop, in order, with the Realm's change counter as it was when each was read. It is not
/// generic, so the loop's unspecialized `next()` (called from the application's module) reaches the keys without
/// generic metadata.
final class IterationKeys {
    // Private, and changed only by `next(core:)`, never while another access is under way: exempt from the
    // run-time exclusivity check (a runtime call on every access of a class's stored `var`).
    @exclusivity(unchecked) private var keys: [columnar_key]
    @exclusivity(unchecked) private var position = 0
    /// The Realm's change counter when `keys` were read.
    @exclusivity(unchecked) private var readState: UInt64
    /// For a whole table: where the next cluster's keys come from once `keys` are used up.
    private let batches: TableKeyBatches?

    /// Every key, read at change counter `state`.
    init(all keys: [columnar_key], state: UInt64) {
        self.keys = keys
        readState = state
        batches = nil
    }

    /// A whole table's keys, read a cluster at a time.
    init(batches: TableKeyBatches, state: UInt64) {
        keys = []
        readState = state
        self.batches = batches
    }

    private init(copying other: IterationKeys) {
        keys = other.keys
        position = other.position
        readState = other.readState
        batches = other.batches?.copy()
    }

    func copy() -> IterationKeys { IterationKeys(copying: self) }

    /// The next key, and whether `core` is unchanged since it was read (then the object exists); nil after the last.
    /// Not inlined: inlined into the generic loop, its array accesses would become unspecialized calls.
    @inline(never)
    func next(core: RealmCore) -> (key: columnar_key, unchanged: Bool)? {
        while position == keys.count {
            guard let batches else { return nil }
            readState = core.changeCounter
            position = 0
            guard batches.read(into: &keys) else { return nil }
        }
        let key = keys[position]
        position += 1
        return (key, core.changeCounter == readState)
    }
}

/// A whole table's keys in key order, a cluster at a time, up to the table's next key when the loop began.
final class TableKeyBatches {
    private let core: RealmCore
    private let table: columnar_table_id
    /// The table's next key when the iteration began: keys at or above it belong to objects made since.
    private let end: columnar_key
    /// The smallest key not yet read.
    private var resume: columnar_key = 0
    private var finished = false
    /// A cluster's keys as decoded, before those outside `resume ..< end` are left out (kept to be reused).
    private var decoded: [columnar_key] = []

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
        finished = other.finished
    }

    func copy() -> TableKeyBatches { TableKeyBatches(copying: self) }

    /// Replaces `keys` with those of the next cluster that holds any in `resume ..< end`, read from the Realm's
    /// transaction as it is now; false (and `keys` empty) when there is none.
    func read(into keys: inout [columnar_key]) -> Bool {
        keys.removeAll(keepingCapacity: true)
        guard !finished else { return false }
        var iterator = columnar_cluster_iter()
        var cluster = columnar_cluster()
        Engine.mustSucceed(columnar_cluster_iter_init_from(core.currentTransaction, table, resume, &iterator),
                           "iterating a table")
        while keys.isEmpty {
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
            for key in decoded[..<rows] where key >= resume && key < end { keys.append(key) }
            if last >= end - 1 { finished = true }   // also when `last` is Int64.max, the one key `resume` cannot pass
            resume = last &+ 1
            if finished && keys.isEmpty { return false }
        }
        return true
    }
}
