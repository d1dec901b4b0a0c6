// SchemaVersionRecord: the schema version of a file, kept in a metadata table of its own so that the storage
// format needs no field for it. A file without the table has version 0 (files written before versions were
// recorded, and every file whose configuration never asked for another version).

import CColumnar
import Foundation
import QueryVM

enum SchemaVersionRecord {
    /// The metadata table. Model class names cannot begin with "__", so it cannot clash with one.
    static let tableName = "__ColumnarMetadata"
    static let columnName = "schemaVersion"
    /// The one object of the table.
    private static let key: columnar_key = 0

    /// Every live table except the metadata tables (this one and ClassVersionRecord's, whose names begin with
    /// "__", which no model class name may): the tables of model classes.
    static func modelTables(_ txn: OpaquePointer) throws -> [(id: columnar_table_id, info: columnar_table_info)] {
        try Engine.tables(txn).filter { !Engine.name($0.info.name).hasPrefix("__") }
    }

    /// The stored version, 0 when none is recorded. A metadata table of another shape is reported, not guessed at.
    static func read(_ txn: OpaquePointer) throws -> UInt64 {
        var table: columnar_table_id = 0
        let rc = columnar_table_find(txn, tableName, &table)
        if rc == COLUMNAR_ENOTFOUND { return 0 }
        try Engine.check(rc)
        var column: columnar_col_id = 0
        var info = columnar_column_info()
        guard columnar_column_find(txn, table, columnName, &column) == COLUMNAR_OK,
              columnar_column_info_get(txn, table, column, &info) == COLUMNAR_OK,
              info.type == COLUMNAR_TYPE_INT, info.collection == COLUMNAR_COLLECTION_NONE, !info.nullable
        else { throw damaged("it has no non-optional integer column '\(columnName)'") }
        var count: UInt64 = 0
        try Engine.check(columnar_obj_count(txn, table, &count))
        if count == 0 { return 0 }
        var value = columnar_value()
        let get = columnar_obj_get(txn, table, key, column, &value)
        guard count == 1, get == COLUMNAR_OK else { throw damaged("it holds \(count) objects, not one with key 0") }
        return UInt64(bitPattern: value.as.i)
    }

    /// Records `version` (inside a write transaction).
    static func write(_ version: UInt64, _ txn: OpaquePointer) throws {
        var table: columnar_table_id = 0
        var column: columnar_col_id = 0
        if columnar_table_find(txn, tableName, &table) != COLUMNAR_OK {
            try Engine.check(columnar_table_add(txn, tableName, &table))
            var spec = columnar_column_spec()
            spec.type = COLUMNAR_TYPE_INT
            spec.collection = COLUMNAR_COLLECTION_NONE
            spec.nullable = false
            try columnName.withCString { name in
                spec.name = name
                try Engine.check(columnar_column_add(txn, table, &spec, &column))
            }
            try Engine.check(columnar_obj_create_with_key(txn, table, key))
        } else {
            _ = try read(txn)   // validates the table's shape
            try Engine.check(columnar_column_find(txn, table, columnName, &column))
            var exists = false
            try Engine.check(columnar_obj_exists(txn, table, key, &exists))
            if !exists { try Engine.check(columnar_obj_create_with_key(txn, table, key)) }
        }
        var value = columnar_value()
        value.type = COLUMNAR_TYPE_INT
        value.as.i = Int64(bitPattern: version)
        try Engine.check(columnar_obj_set(txn, table, key, column, &value))
    }

    private static func damaged(_ what: String) -> ColumnarError {
        ColumnarError(code: .corrupt, message: "The schema-version table '\(tableName)' is damaged: \(what)")
    }
}

/// The schema version stored in the Realm file at `fileURL` (0 when none was recorded). The file is opened
/// read-only, with `encryptionKey` when it is encrypted. Throws a `Realm.Error` when it cannot be opened (among
/// others `.fileAccess` when the key does not match the file) or is damaged.
public func schemaVersionAtURL(_ fileURL: URL, encryptionKey: Data? = nil) throws -> UInt64 {
    do {
        let file = try StorageFile(path: fileURL.path, flags: COLUMNAR_OPEN_READ_ONLY.rawValue, maximumVersions: 0,
                                   encryptionKey: encryptionKey)
        var txn: OpaquePointer?
        try Engine.check(columnar_txn_begin_read(file.handle, &txn))
        defer { columnar_txn_rollback(txn) }
        return try SchemaVersionRecord.read(txn!)
    } catch {
        throw Realm.Error.converting(error, fileURL: fileURL)
    }
}
