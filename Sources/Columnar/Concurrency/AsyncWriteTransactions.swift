// AsyncWriteTransactions: RealmSwift's callback-based asynchronous writes: `writeAsync`, `beginAsyncWrite`,
// `commitAsyncWrite` and `cancelAsyncWrite`, for a Realm on a thread that runs its run loop, on a serial queue, or
// on an actor.
//
// Beginning takes the writer lock on a thread of the global pool, so the Realm's own thread never waits for
// another writer; once the lock is held, the block runs on the Realm's thread (or queue, or actor) inside the write
// transaction. Committing hands the transaction to a pool thread, which commits it (the commit's sync included)
// while the Realm's thread goes on; the completion then runs on the Realm's thread after the Realm has moved to
// the committed version and delivered its notifications. The writer lock belongs to the open file, not to a
// thread, which is what lets the transaction move between threads.
//
// Begins run one at a time, in the order they were asked for, each after the previous write transaction ended
// (committed or cancelled). A synchronous `write` or `beginWrite` while a begin is taking the lock waits for it
// and uses that lock itself (the queued block runs afterwards), rather than deadlocking against it.

import CColumnar
import Foundation

/// Identifies a queued asynchronous write block or commit completion, for `cancelAsyncWrite(_:)`.
public typealias AsyncTransactionId = UInt32

/// A core's asynchronous write transactions: the begins waiting, the lock being taken, the commits in flight.
final class AsyncWriteQueue {
    struct Begin {
        let id: AsyncTransactionId
        let block: () -> Void
        /// For `writeAsync`: commit after the block, then call this (when given).
        let commitAfterwards: Bool
        let onComplete: ((Swift.Error?) -> Void)?
    }

    /// The outcome of one lock acquisition, taken by whoever gets to it first: the delivery on the core's context,
    /// or a synchronous `beginWrite` that must not wait for that delivery.
    final class Acquisition: @unchecked Sendable {
        private let lock = NSLock()
        private let done = DispatchSemaphore(value: 0)
        private var result: (rc: Int32, txn: OpaquePointer?)?
        private var taken = false

        func complete(_ rc: Int32, _ txn: OpaquePointer?) {
            lock.withLock { result = (rc, txn) }
            done.signal()
        }

        /// The result, once: nil when it was already taken.
        func take() -> (rc: Int32, txn: OpaquePointer?)? {
            lock.withLock {
                guard !taken, let result else { return nil }
                taken = true
                return result
            }
        }

        /// Waits for the acquisition, then takes its result (nil when already taken).
        func waitAndTake() -> (rc: Int32, txn: OpaquePointer?)? {
            done.wait()
            done.signal()   // others waiting (or the delivery) see it done too
            return take()
        }
    }

    private var nextID: AsyncTransactionId = 1
    var begins: [Begin] = []
    /// The lock acquisition under way, if any.
    var acquisition: Acquisition?
    /// The id of the begin whose block is running (cancelling it then does nothing).
    var runningID: AsyncTransactionId?
    /// Whether the open write transaction was begun asynchronously (cleared when it ends: RealmCore's
    /// takeWriteTransaction and cancelWrite).
    var transactionIsAsync = false
    /// Completions of commits in flight, by id (removed when cancelled).
    var completions: [AsyncTransactionId: (Swift.Error?) -> Void] = [:]
    var commitsInFlight: Set<AsyncTransactionId> = []
    /// The commits in flight in the order they were made, and the results of those whose commit call returned
    /// before an earlier one's: results are taken in this order, so completions run in the order of the commits.
    var commitOrder: [AsyncTransactionId] = []
    var finishedEarly: [AsyncTransactionId: Int32] = [:]

    func makeID() -> AsyncTransactionId {
        defer { nextID = nextID == .max ? 1 : nextID + 1 }
        return nextID
    }

    var isBusy: Bool { !begins.isEmpty || acquisition != nil || !commitsInFlight.isEmpty || transactionIsAsync }
}

extension Realm {
    /// Runs `block` inside a write transaction begun asynchronously (see `beginAsyncWrite(_:)`), then commits it
    /// asynchronously (see `commitAsyncWrite(allowGrouping:_:)`) unless the block committed or cancelled it itself;
    /// `onComplete` is called on this Realm's thread, queue or actor after the commit, with the error if it failed.
    /// Returns an id for `cancelAsyncWrite(_:)`.
    @discardableResult
    public func writeAsync(_ block: @escaping () -> Void,
                           onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        core.enqueueAsyncBegin(block, commitAfterwards: true, onComplete: onComplete)
    }

    /// Begins a write transaction asynchronously: the writer lock is taken on another thread, so this returns at
    /// once even while another thread or process writes, and `asyncWriteBlock` runs on this Realm's thread (which
    /// must run its run loop), queue or actor once the transaction has begun. The block commits or cancels the
    /// transaction, synchronously or with `commitAsyncWrite`. Calls queue up and run in order, one transaction at
    /// a time; calling it inside a write transaction is allowed (the block runs after that transaction ends).
    /// Returns an id for `cancelAsyncWrite(_:)`.
    @discardableResult
    public func beginAsyncWrite(_ asyncWriteBlock: @escaping () -> Void) -> AsyncTransactionId {
        core.enqueueAsyncBegin(asyncWriteBlock, commitAfterwards: false, onComplete: nil)
    }

    /// Commits the write transaction on another thread and returns at once; the Realm then moves to the committed
    /// version and delivers its notifications on its own thread, queue or actor, and `onComplete` follows there
    /// with the error if the commit failed. Works for transactions begun with `beginWrite()` too. `allowGrouping`
    /// is accepted for RealmSwift's signature: every commit already shares its sync with concurrent commits of
    /// the same file. Returns an id for `cancelAsyncWrite(_:)` (which cancels only the completion).
    @discardableResult
    public func commitAsyncWrite(allowGrouping: Bool = false,
                                 _ onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        core.commitAsync(onComplete)
    }

    /// Cancels a queued asynchronous write block (its transaction is never begun) or a commit's completion (the
    /// commit still happens). Cancelling the block that is running does nothing. Throws for an id that is neither
    /// queued nor in flight.
    public func cancelAsyncWrite(_ asyncTransactionId: AsyncTransactionId) throws {
        try core.cancelAsync(asyncTransactionId)
    }
}

extension RealmCore {
    func enqueueAsyncBegin(_ block: @escaping () -> Void, commitAfterwards: Bool,
                           onComplete: ((Swift.Error?) -> Void)?) -> AsyncTransactionId {
        checkThread()
        precondition(!isFrozen, "Can't perform transactions on a frozen Realm")
        precondition(actor != nil || queue != nil || ownRunLoop != nil,
                     "Can only begin asynchronous writes on a thread with a run loop, a serial queue or an actor")
        let id = asyncWrites.makeID()
        asyncWrites.begins.append(.init(id: id, block: block, commitAfterwards: commitAfterwards,
                                        onComplete: onComplete))
        startNextAsyncBegin()
        return id
    }

    /// Starts taking the writer lock for the first queued begin, unless a transaction is open or a lock is being
    /// taken already.
    func startNextAsyncBegin() {
        guard !asyncWrites.begins.isEmpty, asyncWrites.acquisition == nil, !isInWriteTransaction,
              !asyncWriteInProgress else { return }
        let acquisition = AsyncWriteQueue.Acquisition()
        asyncWrites.acquisition = acquisition
        let handle = QueueHandOver(value: file.handle)
        let core = QueueHandOver(value: self)
        DispatchQueue.global().async {
            var txn: OpaquePointer?
            let rc = columnar_txn_begin_write(handle.value, &txn)
            acquisition.complete(rc, txn)
            // Handed to the core's context once the lock is held (waiting there would block it).
            core.value.performOnOwnContext { core.value.asyncLockAcquired(acquisition) }
        }
    }

    /// On the core's context: the lock of `acquisition` is held (or its taking failed): runs the first queued
    /// begin's block in the transaction.
    private func asyncLockAcquired(_ acquisition: AsyncWriteQueue.Acquisition) {
        if asyncWrites.acquisition === acquisition { asyncWrites.acquisition = nil }
        // A synchronous beginWrite may have taken the lock meanwhile; then the begin waits for the next turn.
        guard let (rc, txn) = acquisition.take() else {
            startNextAsyncBegin()
            return
        }
        guard !asyncWrites.begins.isEmpty else {
            // Every queued begin was cancelled while the lock was being taken.
            if rc == COLUMNAR_OK, let txn { columnar_txn_rollback(txn) }
            return
        }
        let begin = asyncWrites.begins.removeFirst()
        guard rc == COLUMNAR_OK, let txn else {
            let error = Realm.Error.converting(ColumnarError.fromLastError(rc), fileURL: configuration.fileURL)
            guard let onComplete = begin.onComplete else {
                fatalError("Columnar: an asynchronous write transaction could not begin: \(error)")
            }
            onComplete(error)
            startNextAsyncBegin()
            return
        }
        adoptWriteTransaction(txn)
        asyncWrites.transactionIsAsync = true
        asyncWrites.runningID = begin.id
        begin.block()
        asyncWrites.runningID = nil
        if begin.commitAfterwards && isInWriteTransaction {
            _ = commitAsync(begin.onComplete)
        } else if begin.commitAfterwards {
            begin.onComplete?(nil)   // the block committed or cancelled the transaction itself
        }
        startNextAsyncBegin()
    }

    func commitAsync(_ onComplete: ((Swift.Error?) -> Void)?) -> AsyncTransactionId {
        checkThread()
        precondition(isInWriteTransaction, "Can't commit a non-existing write transaction")
        let id = asyncWrites.makeID()
        if let onComplete { asyncWrites.completions[id] = onComplete }
        asyncWrites.commitsInFlight.insert(id)
        asyncWrites.commitOrder.append(id)
        let taken = QueueHandOver(value: takeWriteTransaction())
        let core = QueueHandOver(value: self)
        DispatchQueue.global().async {
            let rc = columnar_txn_commit(taken.value)
            core.value.performOnOwnContext { core.value.asyncCommitFinished(id, rc) }
        }
        return id
    }

    /// On the core's context: the commit `id` returned `rc`. Commits made one after another can return in another
    /// order (a later one may find its data already synced by a sync the earlier one still waits for), so each
    /// result waits for those of the commits made before it, and completions follow the order of the commits.
    private func asyncCommitFinished(_ id: AsyncTransactionId, _ rc: Int32) {
        asyncWrites.finishedEarly[id] = rc
        while let next = asyncWrites.commitOrder.first,
              let result = asyncWrites.finishedEarly.removeValue(forKey: next) {
            asyncWrites.commitOrder.removeFirst()
            takeAsyncCommitResult(next, result)
        }
    }

    private func takeAsyncCommitResult(_ id: AsyncTransactionId, _ rc: Int32) {
        asyncWrites.commitsInFlight.remove(id)
        var failure: Swift.Error?
        if isInWriteTransaction {
            // A newer write transaction is open already: it reads the committed version; only report the outcome.
            if rc != COLUMNAR_OK { failure = ColumnarError.fromLastError(rc) }
        } else {
            do { try finishCommit(rc) } catch { failure = error }
        }
        let error = failure.map { Realm.Error.converting($0, fileURL: configuration.fileURL) }
        asyncWrites.completions.removeValue(forKey: id)?(error)
        startNextAsyncBegin()
    }

    func cancelAsync(_ id: AsyncTransactionId) throws {
        checkThread()
        if asyncWrites.runningID == id { return }
        if let index = asyncWrites.begins.firstIndex(where: { $0.id == id }) {
            asyncWrites.begins.remove(at: index)
            return
        }
        if asyncWrites.commitsInFlight.contains(id) {
            asyncWrites.completions.removeValue(forKey: id)
            return
        }
        throw Realm.Error(code: .fail, message: "No asynchronous write with id \(id) is queued or in flight",
                          fileURL: configuration.fileURL)
    }

    /// For a synchronous `beginWrite` while a begin is taking the writer lock: waits for that lock and keeps it for
    /// the synchronous transaction (the queued begin takes the lock again afterwards). nil when none is being
    /// taken or it was taken already.
    func takePendingAsyncLock() -> (rc: Int32, txn: OpaquePointer?)? {
        guard let acquisition = asyncWrites.acquisition else { return nil }
        asyncWrites.acquisition = nil
        return acquisition.waitAndTake()
    }
}
