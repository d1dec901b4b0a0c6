// CommitWriteLog: which object properties this process's recent commits set, by the version each commit made.
//
// Change notifications find changes by comparing values between two versions (VersionComparison.swift), which
// cannot see a property set to the value it already held. RealmSwift reports such a self-assignment to the object's
// observers, and so does Columnar for commits made in this process: while any Realm of the file has observations,
// each write transaction records the (table, object, column) of every property it sets, and the commit files them
// under its version. A delivery adds the writes of the versions it covers to the changed rows. Commits made by other
// processes are not recorded here; for them only changed values are reported. The log keeps the last 256 commits.

import Foundation

final class CommitWriteLog: @unchecked Sendable {
    struct Write: Hashable {
        let table: UInt32
        let key: Int64
        let column: UInt32
    }

    private static let capacity = 256
    private let lock = NSLock()
    private var observed = false
    private var byVersion: [UInt64: Set<Write>] = [:]

    /// Whether write transactions should record their property writes (some Realm of the file has observations).
    var isObserved: Bool { lock.withLock { observed } }

    func markObserved() { lock.withLock { observed = true } }

    /// Files the writes of the commit that made `version`.
    func record(_ writes: Set<Write>, version: UInt64) {
        guard !writes.isEmpty else { return }
        lock.withLock {
            byVersion[version] = writes
            if byVersion.count > Self.capacity, let oldest = byVersion.keys.min() { byVersion[oldest] = nil }
        }
    }

    /// The recorded writes of the commits that made the versions after `from` up to `through`.
    func writes(after from: UInt64, through to: UInt64) -> Set<Write> {
        guard to > from else { return [] }
        return lock.withLock {
            var union = Set<Write>()
            for (version, writes) in byVersion where version > from && version <= to { union.formUnion(writes) }
            return union
        }
    }
}
