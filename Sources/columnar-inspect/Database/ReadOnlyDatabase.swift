// ReadOnlyDatabase.swift — the database opened through the engine's ordinary API with COLUMNAR_OPEN_READ_ONLY |
// COLUMNAR_OPEN_NO_LOCK (no lock file is opened, created or written; the file is opened O_RDONLY), for reading
// objects the way an application would. One read transaction lives as long as the handle.

import CColumnar

final class ReadOnlyDatabase {
    private let db: OpaquePointer
    private let txn: OpaquePointer

    /// columnar_open (read-only, no lock file, with the file's encryption key when it is encrypted) and
    /// columnar_txn_begin_read.
    init(path: String, key: EncryptionKey? = nil) throws {
        var options = columnar_open_options()
        options.flags = COLUMNAR_OPEN_READ_ONLY.rawValue | COLUMNAR_OPEN_NO_LOCK.rawValue
        var opened: OpaquePointer?
        try key.withOptions(options) { options in try check(columnar_open(path, options, &opened)) }
        db = opened!
        var began: OpaquePointer?
        let code = columnar_txn_begin_read(db, &began)
        if code != COLUMNAR_OK {
            let failure = EngineFailure(code: code)
            columnar_close(db)
            throw failure
        }
        txn = began!
    }

    deinit {
        columnar_txn_rollback(txn)
        columnar_close(db)
    }

    /// The version the read transaction reads (columnar_txn_version).
    var version: UInt64 { columnar_txn_version(txn) }

    /// Runs `body` with the read transaction (for the query engine, which takes the transaction itself).
    func withTransaction<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R { try body(txn) }

    /// Names of the live tables, by id (columnar_table_count, columnar_table_info_get).
    func tableNames() -> [UInt32: String] {
        var count: UInt32 = 0
        guard columnar_table_count(txn, &count) == COLUMNAR_OK else { return [:] }
        var names: [UInt32: String] = [:]
        for table in 0..<count {
            var info = columnar_table_info()
            if columnar_table_info_get(txn, table, &info) == COLUMNAR_OK { names[table] = fixedString(info.name) }
        }
        return names
    }

    /// columnar_table_find.
    func findTable(_ name: String) throws -> UInt32 {
        var table: UInt32 = 0
        try check(columnar_table_find(txn, name, &table))
        return table
    }

    /// columnar_table_info_get.
    func tableInfo(_ table: UInt32) throws -> columnar_table_info {
        var info = columnar_table_info()
        try check(columnar_table_info_get(txn, table, &info))
        return info
    }

    /// The table's visible columns (columnar_column_info_get; hidden and removed ones report ENOTFOUND).
    func visibleColumns(_ table: UInt32) throws -> [(id: UInt32, info: columnar_column_info)] {
        let info = try tableInfo(table)
        var columns: [(UInt32, columnar_column_info)] = []
        for column in 0..<info.column_count {
            var columnInfo = columnar_column_info()
            let code = columnar_column_info_get(txn, table, column, &columnInfo)
            if code == COLUMNAR_ENOTFOUND { continue }
            try check(code)
            columns.append((column, columnInfo))
        }
        return columns
    }

    /// Calls `body` with each object key in key order (columnar_cluster_iter_*); `body` returns false to stop.
    func forEachKey(_ table: UInt32, _ body: (Int64) throws -> Bool) throws {
        var iterator = columnar_cluster_iter()
        try check(columnar_cluster_iter_init(txn, table, &iterator))
        while true {
            var cluster = columnar_cluster()
            let code = columnar_cluster_iter_next(&iterator, &cluster)
            if code == COLUMNAR_ENOTFOUND { return }
            try check(code)
            var keys = cluster.keys
            for row in 0..<cluster.row_count {
                if try !body(columnar_array_get_int(&keys, row)) { return }
            }
        }
    }

    /// The value of one column of one object, collections included.
    func value(_ table: UInt32, _ key: Int64, _ column: UInt32, _ info: columnar_column_info) throws -> DumpValue {
        var value = columnar_value()
        if info.collection == COLUMNAR_COLLECTION_NONE {
            try check(columnar_obj_get(txn, table, key, column, &value))
            return DumpValue(value)
        }
        var size: UInt64 = 0
        try check(columnar_coll_size(txn, table, key, column, &size))
        if info.collection == COLUMNAR_COLLECTION_DICT {
            var entries: [(key: String, value: DumpValue)] = []
            for index in 0..<size {
                var pointer: UnsafeRawPointer?
                var keySize = 0
                try check(columnar_dict_key_at(txn, table, key, column, index, &pointer, &keySize))
                let keyBytes = UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : keySize)
                let keyText = String(decoding: keyBytes, as: UTF8.self)
                try check(columnar_coll_get(txn, table, key, column, index, &value))
                entries.append((keyText, DumpValue(value)))
            }
            return .dictionary(entries)
        }
        var elements: [DumpValue] = []
        for index in 0..<size {
            try check(columnar_coll_get(txn, table, key, column, index, &value))
            elements.append(DumpValue(value))
        }
        return .list(elements)
    }
}
