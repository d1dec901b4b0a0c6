// FrozenVersion: the one version a frozen core reads, and a read transaction at it for every thread that reads.
//
// A frozen Realm, object or collection is readable from any number of threads at once. The engine's transactions
// are not (each keeps lookup caches), so every thread gets its own transaction at the frozen version, begun from
// the pinned one (`columnar_txn_begin_read_at`) the first time the thread reads, and found again through a
// thread-local table. The transactions belong to the FrozenVersion, which belongs to the frozen core, which every
// frozen value of it holds: when the last of them is gone, every transaction ends at once and the version's space
// can be reused. A thread's table only remembers them weakly.

import CColumnar
import Foundation

final class FrozenVersion: @unchecked Sendable {
    /// The pinned version, from which each thread's transaction is begun.
    let root: ReadVersion
    /// Guards the frozen core's lazily filled state (bindings, query model caches) and `perThread`.
    let lock = NSRecursiveLock()
    private var perThread: [ReadVersion] = []

    init(readingAlongside source: ReadVersion) throws {
        root = try ReadVersion(readingAlongside: source)
    }

    var version: UInt64 { root.version }

    /// The calling thread's transaction at the frozen version.
    func transactionForCurrentThread() -> OpaquePointer {
        let state = ThreadLocalState.current
        let id = ObjectIdentifier(self)
        if let entry = state.frozenTransactions[id], entry.owner === self, let version = entry.version {
            return version.transaction
        }
        let version: ReadVersion
        do { version = try ReadVersion(readingAlongside: root) } catch {
            fatalError("Columnar: cannot read the frozen version \(root.version) on this thread: \(error)")
        }
        lock.withLock { perThread.append(version) }
        if state.frozenTransactions.count >= 16 {
            state.frozenTransactions = state.frozenTransactions.filter { $0.value.owner != nil }
        }
        state.frozenTransactions[id] = FrozenThreadEntry(owner: self, version: version)
        return version.transaction
    }
}

/// A thread's transaction at a frozen version, held weakly (the FrozenVersion owns it).
struct FrozenThreadEntry {
    weak var owner: FrozenVersion?
    weak var version: ReadVersion?
}

extension ReadVersion {
    /// A read transaction at the version `source` reads.
    convenience init(readingAlongside source: ReadVersion) throws {
        var txn: OpaquePointer?
        try Engine.check(columnar_txn_begin_read_at(source.transaction, &txn))
        self.init(transaction: txn!, file: source.file)
    }
}
