// CommitWriteLog: which object properties recent commits set, by the version each commit made, in every process.
//
// Change notifications find changes by comparing values between two versions (VersionComparison.swift), which
// cannot see a property set to the value it already held. RealmSwift reports such a self-assignment to the object's
// observers, and so does Columnar, whichever thread or process made the commit: once an observation is registered
// on the file, every write transaction of any process records the (table, object, column) of each property it sets,
// and its commit files them under its version in the engine's write log, a ring in the lock file's shared memory
// (columnar.h, "Write log"). A delivery adds the writes of the versions it covers to the changed rows. The ring holds
// the last 65,536 writes; what has left it by the time an observer catches up is reported from values alone.

import CColumnar

struct CommitWriteLog: @unchecked Sendable {
    struct Write: Hashable {
        let table: UInt32
        let key: Int64
        let column: UInt32
    }

    let handle: OpaquePointer

    /// Whether write transactions should record their property writes (some Realm of the file, in any process, has
    /// observations).
    var isObserved: Bool { columnar_write_log_enabled(handle) }

    /// Asks every writer of the file to record what it sets. A file without a write log (never the case for a
    /// Realm's handle) only loses self-assignment reports.
    func markObserved() { _ = columnar_write_log_enable(handle) }

    /// Files the writes of the write transaction `txn` under the version its commit will make. Call once, before
    /// the commit; a commit that fails leaves an entry that the next commit of that version supersedes.
    func record(_ writes: Set<Write>, transaction txn: OpaquePointer) {
        let logged = writes.map { columnar_logged_write(table: $0.table, column: $0.column, key: $0.key) }
        // Fails only for a transaction already poisoned, whose commit will fail as well.
        _ = logged.withUnsafeBufferPointer { columnar_txn_log_writes(txn, $0.baseAddress, $0.count) }
    }

    /// The recorded writes of the commits that made the versions after `from` up to `through`.
    func writes(after from: UInt64, through to: UInt64) -> Set<Write> {
        guard to > from else { return [] }
        final class Collected { var writes = Set<Write>() }
        let collected = Collected()
        var complete = false
        _ = withExtendedLifetime(collected) {
            columnar_write_log_read(handle, from, to, { context, writes, count in
                let collected = Unmanaged<Collected>.fromOpaque(context!).takeUnretainedValue()
                for write in UnsafeBufferPointer(start: writes, count: count) {
                    collected.writes.insert(Write(table: write.table, key: write.key, column: write.column))
                }
            }, Unmanaged.passUnretained(collected).toOpaque(), &complete)
        }
        return collected.writes
    }
}
