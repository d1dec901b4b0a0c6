// Engine: the one internal place where the Swift API calls into the storage engine (CColumnar).
//
// Every C call whose result matters goes through `Engine.check`, which turns a non-zero code into a thrown
// `ColumnarError` carrying the engine's details (message, file offset, source line). Programmer errors that
// RealmSwift raises as exceptions (writing outside a write transaction, an index out of range) do not come
// through here: the API checks them first and stops with a message naming what was wrong.

import CColumnar
import QueryVM

enum Engine {
    /// Throws the engine's error for a failed call; `rc` comes straight from a `columnar_*` function.
    @inline(__always)
    static func check(_ rc: Int32) throws {
        if rc != COLUMNAR_OK { throw ColumnarError.fromLastError(rc) }
    }

    /// For calls that cannot fail on a valid handle and object (the API checked the arguments first): a failure
    /// here means the file is damaged or the engine broke an invariant, and the program cannot continue safely.
    @inline(__always)
    static func mustSucceed(_ rc: Int32, _ what: @autoclosure () -> String,
                            file: StaticString = #fileID, line: UInt = #line) {
        if rc != COLUMNAR_OK {
            fatalError("Columnar: \(what()) failed: \(ColumnarError.fromLastError(rc))", file: file, line: line)
        }
    }
}

/// An open database file (columnar_db), shared by every Realm instance for that file on every thread.
final class StorageFile: @unchecked Sendable {
    let handle: OpaquePointer
    let path: String

    init(path: String, flags: UInt32, maximumVersions: UInt64) throws {
        var options = columnar_open_options()
        options.flags = flags
        options.durability = COLUMNAR_DURABILITY_FULL
        options.max_active_versions = maximumVersions
        var db: OpaquePointer?
        try Engine.check(columnar_open(path, &options, &db))
        handle = db!
        self.path = path
    }

    deinit { columnar_close(handle) }
}
