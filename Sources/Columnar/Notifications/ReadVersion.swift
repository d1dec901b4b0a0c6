// ReadVersion: a read transaction owned by reference, so that the version a core reads and the version its change
// notifications last reported (their base, RealmCore+Notifications.swift) can be the same transaction or two, and
// the transaction ends when the last of them lets go.
//
// QueueMarker: the mark a serial dispatch queue carries so that a core made for it can tell, from any thread,
// whether the running code is one of that queue's blocks.

import CColumnar
import Foundation

final class ReadVersion {
    let transaction: OpaquePointer
    /// The open file, kept open until the transaction ends.
    let file: StorageFile

    init(file: StorageFile) throws {
        var txn: OpaquePointer?
        try Engine.check(columnar_txn_begin_read(file.handle, &txn))
        transaction = txn!
        self.file = file
    }

    /// Takes ownership of a read transaction of `file`.
    init(transaction: OpaquePointer, file: StorageFile) {
        self.transaction = transaction
        self.file = file
    }

    var version: UInt64 { columnar_txn_version(transaction) }

    deinit { columnar_txn_rollback(transaction) }
}

final class QueueMarker {
    nonisolated(unsafe) static let key = DispatchSpecificKey<QueueMarker>()

    /// The queue's marker, set on it the first time a core is made for it (every core of the queue shares it:
    /// a queue holds one value per key).
    static func marker(of queue: DispatchQueue) -> QueueMarker {
        lock.lock()
        defer { lock.unlock() }
        if let existing = queue.getSpecific(key: key) { return existing }
        let marker = QueueMarker()
        queue.setSpecific(key: key, value: marker)
        return marker
    }

    private static let lock = NSLock()
}
