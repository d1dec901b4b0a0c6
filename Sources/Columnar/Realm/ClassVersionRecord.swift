// ClassVersionRecord: the schema version at which each class's table last took its model's shape.
//
// RealmSwift knows every model class when it opens a file (the Objective-C runtime lists them), so it compares
// them all with the file at once. Columnar learns classes as they are used (SchemaDiscovery), so a class whose
// table differs from its model can first be met long after the file was opened, and two situations look alike
// there: the model changed and the schema version was raised, but the class was not known to the migration (it
// is then adapted at first use, as the migration would have), or the model changed and the version was not
// raised (a mismatch, which must not pass in silence). This record tells them apart: a table created or adapted
// at schema version v is stamped v. A class whose stamp equals the file's version took its shape at this
// version, so any difference is a mismatch; a lower stamp (or none: 0) means the version was raised since, and
// the class may be adapted once, which stamps it.
//
// The stamps live in a metadata table of their own, one object per class, found by name. A file whose version is
// 0 needs no stamps (0 is what a missing one means), so files that never raise their version never get the table.

import CColumnar
import Foundation
import QueryVM

enum ClassVersionRecord {
    /// The metadata table. Model class names cannot begin with "__", so it cannot clash with one.
    static let tableName = "__ColumnarClassVersions"
    private static let classColumnName = "className"
    private static let versionColumnName = "schemaVersion"

    /// The stamp of `className`, 0 when none is recorded.
    static func version(of className: String, _ txn: OpaquePointer) throws -> UInt64 {
        guard let (table, classColumn, versionColumn) = try columns(txn) else { return 0 }
        guard let key = try find(className, table, classColumn, txn) else { return 0 }
        var value = columnar_value()
        try Engine.check(columnar_obj_get(txn, table, key, versionColumn, &value))
        return UInt64(bitPattern: value.as.i)
    }

    /// Stamps `className` with `version` (inside a write transaction). Stamping 0 where nothing is recorded
    /// writes nothing, as a missing stamp means 0.
    static func stamp(_ className: String, _ version: UInt64, _ txn: OpaquePointer) throws {
        var found = try columns(txn)
        if found == nil {
            if version == 0 { return }
            found = try createTable(txn)
        }
        let (table, classColumn, versionColumn) = found!
        let key: columnar_key
        if let existing = try find(className, table, classColumn, txn) {
            key = existing
        } else {
            if version == 0 { return }
            var created: columnar_key = 0
            try Engine.check(columnar_obj_create(txn, table, &created))
            try withStringValue(className) { try Engine.check(columnar_obj_set(txn, table, created, classColumn, &$0)) }
            key = created
        }
        var value = columnar_value()
        value.type = COLUMNAR_TYPE_INT
        value.as.i = Int64(bitPattern: version)
        try Engine.check(columnar_obj_set(txn, table, key, versionColumn, &value))
    }

    // MARK: Table

    /// The table and its two columns, nil when the file has no stamps. A table of another shape is reported.
    private static func columns(_ txn: OpaquePointer) throws
        -> (table: columnar_table_id, className: columnar_col_id, version: columnar_col_id)? {
        var table: columnar_table_id = 0
        let rc = columnar_table_find(txn, tableName, &table)
        if rc == COLUMNAR_ENOTFOUND { return nil }
        try Engine.check(rc)
        var classColumn: columnar_col_id = 0, versionColumn: columnar_col_id = 0
        var classInfo = columnar_column_info(), versionInfo = columnar_column_info()
        guard columnar_column_find(txn, table, classColumnName, &classColumn) == COLUMNAR_OK,
              columnar_column_info_get(txn, table, classColumn, &classInfo) == COLUMNAR_OK,
              classInfo.type == COLUMNAR_TYPE_STRING, classInfo.collection == COLUMNAR_COLLECTION_NONE,
              columnar_column_find(txn, table, versionColumnName, &versionColumn) == COLUMNAR_OK,
              columnar_column_info_get(txn, table, versionColumn, &versionInfo) == COLUMNAR_OK,
              versionInfo.type == COLUMNAR_TYPE_INT, versionInfo.collection == COLUMNAR_COLLECTION_NONE,
              !versionInfo.nullable
        else {
            throw ColumnarError(code: .corrupt, message: "The class-version table '\(tableName)' is damaged: it "
                                    + "lacks a string column '\(classColumnName)' or an integer column "
                                    + "'\(versionColumnName)'")
        }
        return (table, classColumn, versionColumn)
    }

    private static func createTable(_ txn: OpaquePointer) throws
        -> (table: columnar_table_id, className: columnar_col_id, version: columnar_col_id) {
        var table: columnar_table_id = 0
        try Engine.check(columnar_table_add(txn, tableName, &table))
        func add(_ name: String, _ type: columnar_type, indexed: Bool) throws -> columnar_col_id {
            var spec = columnar_column_spec()
            spec.type = type
            spec.collection = COLUMNAR_COLLECTION_NONE
            spec.nullable = false
            spec.indexed = indexed
            var column: columnar_col_id = 0
            try name.withCString { name in
                spec.name = name
                try Engine.check(columnar_column_add(txn, table, &spec, &column))
            }
            return column
        }
        let classColumn = try add(classColumnName, COLUMNAR_TYPE_STRING, indexed: true)
        let versionColumn = try add(versionColumnName, COLUMNAR_TYPE_INT, indexed: false)
        return (table, classColumn, versionColumn)
    }

    private static func find(_ className: String, _ table: columnar_table_id, _ column: columnar_col_id,
                             _ txn: OpaquePointer) throws -> columnar_key? {
        var key: columnar_key = 0
        let rc = withStringValue(className) { columnar_obj_find_first(txn, table, column, &$0, &key) }
        if rc == COLUMNAR_ENOTFOUND { return nil }
        try Engine.check(rc)
        return key
    }

    private static func withStringValue<R>(_ text: String, _ body: (inout columnar_value) throws -> R) rethrows -> R {
        var bytes = Array(text.utf8)
        return try bytes.withUnsafeMutableBufferPointer { buffer in
            var value = columnar_value()
            value.type = COLUMNAR_TYPE_STRING
            value.as.bytes.data = UnsafeRawPointer(buffer.baseAddress)
            value.as.bytes.size = buffer.count
            return try body(&value)
        }
    }
}
