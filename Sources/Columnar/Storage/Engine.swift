// Engine: the one internal place where the Swift API calls into the storage engine (CColumnar).
//
// Every C call whose result matters goes through `Engine.check`, which turns a non-zero code into a thrown
// `ColumnarError` carrying the engine's details (message, file offset, source line). Programmer errors that
// RealmSwift raises as exceptions (writing outside a write transaction, an index out of range) do not come
// through here: the API checks them first and stops with a message naming what was wrong.

import CColumnar
import Foundation
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

    /// A table or column name as the engine's info structs hold it (NUL-terminated bytes).
    static func name<Bytes>(_ bytes: Bytes) -> String {
        withUnsafeBytes(of: bytes) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// Every live table of the file (removed tables keep their id and are skipped), with its description.
    static func tables(_ txn: OpaquePointer) throws -> [(id: columnar_table_id, info: columnar_table_info)] {
        var count: UInt32 = 0
        try check(columnar_table_count(txn, &count))
        var tables: [(id: columnar_table_id, info: columnar_table_info)] = []
        for id in 0..<count {
            var info = columnar_table_info()
            let rc = columnar_table_info_get(txn, id, &info)
            if rc == COLUMNAR_ENOTFOUND { continue }
            try check(rc)
            tables.append((id, info))
        }
        return tables
    }

    /// Every live column of a table, with its description.
    static func columns(_ txn: OpaquePointer, table: columnar_table_id, _ info: columnar_table_info) throws
        -> [(id: columnar_col_id, info: columnar_column_info)] {
        var columns: [(id: columnar_col_id, info: columnar_column_info)] = []
        for id in 0..<info.column_count {
            var column = columnar_column_info()
            let rc = columnar_column_info_get(txn, table, id, &column)
            if rc == COLUMNAR_ENOTFOUND { continue }
            try check(rc)
            columns.append((id, column))
        }
        return columns
    }
}

/// An open database file (columnar_db), shared by every Realm instance for that file on every thread.
final class StorageFile: @unchecked Sendable {
    let handle: OpaquePointer
    let path: String
    /// Whether the database lives in memory only (no other process can commit to it).
    let isInMemory: Bool
    /// The key the file was opened with (nil: a plain file). The engine checks a key only when it opens the file,
    /// so a configuration that shares this handle is checked against it instead (RealmOpening.checkKey).
    let encryptionKey: Data?
    /// The property writes of recent commits of any process, for notifications (Notifications/CommitWriteLog.swift).
    var writeLog: CommitWriteLog { CommitWriteLog(handle: handle) }

    /// columnar_open. `encryptionKey` (64 bytes, or nil for a plain file) must match the file's encryption, or the
    /// open fails with `.encryptionKeyMismatch`; one of another length fails with `.misuse` before the file is
    /// touched.
    init(path: String, flags: UInt32, maximumVersions: UInt64, encryptionKey: Data? = nil) throws {
        var options = columnar_open_options()
        options.flags = flags
        options.durability = COLUMNAR_DURABILITY_FULL
        options.max_active_versions = maximumVersions
        var db: OpaquePointer?
        try EncryptionKey.withOptions(options, key: encryptionKey) { options in
            try Engine.check(columnar_open(path, options, &db))
        }
        handle = db!
        self.path = path
        self.isInMemory = flags & COLUMNAR_OPEN_IN_MEMORY.rawValue != 0
        self.encryptionKey = encryptionKey
    }

    deinit { columnar_close(handle) }
}
