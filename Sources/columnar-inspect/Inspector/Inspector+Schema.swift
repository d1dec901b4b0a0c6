// Inspector+Schema.swift — tables and columns as the file's SCHEMA node and TABLE nodes record them
// (columnar_inspect_table_count, columnar_inspect_table_get, columnar_inspect_column_get).

import CColumnar

/// A column exactly as the schema records it.
struct ColumnRecord {
    let id: UInt32
    let name: String
    let type: columnar_type
    let collection: columnar_collection_kind
    let nullable: Bool
    let indexed: Bool
    let isBacklink: Bool
    let removed: Bool
    let isPrimaryKey: Bool
    let targetTable: UInt32
    let originTable: UInt32
    let originColumn: UInt32

    /// "int", "list<string>", "dictionary<double>", "link" ...
    var typeDescription: String { Names.typeDescription(type, collection) }
}

/// A table as the schema and its TABLE node record it.
struct TableRecord {
    let id: UInt32
    let name: String
    let removed: Bool
    /// nil when the table has none.
    let primaryKey: UInt32?
    let tableRef: UInt64
    /// nil when the table's META cannot be read.
    let objectCount: Int64?
    let nextKey: Int64?
    /// Every object's key equals its int primary key (the META's mark): lookups by primary key read no index.
    let keysArePrimaryKeys: Bool
    let columns: [ColumnRecord]
}

extension Inspector {
    /// Every table of the version's schema, with its columns (removed and hidden ones included).
    /// Throws when the SCHEMA node cannot be read or decoded.
    func tables() throws -> [TableRecord] {
        var count: UInt32 = 0
        try check(columnar_inspect_table_count(handle, &count))
        return try (0..<count).map { try table($0) }
    }

    /// Table `id` with its columns.
    func table(_ id: UInt32) throws -> TableRecord {
        var info = columnar_inspect_table()
        try check(columnar_inspect_table_get(handle, id, &info))
        let columns = try (0..<info.column_count).map { column -> ColumnRecord in
            var record = columnar_inspect_column()
            try check(columnar_inspect_column_get(handle, id, column, &record))
            return ColumnRecord(
                id: column, name: fixedString(record.name), type: record.type, collection: record.collection,
                nullable: record.nullable, indexed: record.indexed, isBacklink: record.is_backlink,
                removed: record.removed, isPrimaryKey: record.is_primary_key, targetTable: record.target_table,
                originTable: record.origin_table, originColumn: record.origin_column)
        }
        return TableRecord(
            id: id, name: fixedString(info.name), removed: info.removed,
            primaryKey: info.primary_key == COLUMNAR_NO_COLUMN ? nil : info.primary_key, tableRef: info.table_ref,
            objectCount: info.object_count >= 0 ? info.object_count : nil,
            nextKey: info.next_key >= 0 ? info.next_key : nil, keysArePrimaryKeys: info.keys_are_primary_keys,
            columns: columns)
    }

    /// The names of the version's tables and columns, for labelling owners; empty when the schema is unreadable.
    func ownerNames() -> OwnerNames {
        guard let tables = try? tables() else { return OwnerNames(tables: [:]) }
        var names: [UInt32: (String, [String])] = [:]
        for table in tables { names[table.id] = (table.name, table.columns.map(\.name)) }
        return OwnerNames(tables: names)
    }
}

/// Names for owners (table, column) found by a walk.
struct OwnerNames {
    let tables: [UInt32: (name: String, columns: [String])]

    func table(_ id: UInt32) -> String {
        if id == COLUMNAR_NO_TABLE { return "file" }
        return tables[id]?.name ?? "table#\(id)"
    }

    func column(_ table: UInt32, _ column: UInt32) -> String {
        if let columns = tables[table]?.columns, Int(column) < columns.count { return columns[Int(column)] }
        return "column#\(column)"
    }

    /// "file structure", "Person (structure)", "Person.name", "Person.name (index)".
    func label(table: UInt32, column: UInt32, inIndex: Bool) -> String {
        if table == COLUMNAR_NO_TABLE { return "file structure" }
        if column == COLUMNAR_NO_COLUMN { return "\(self.table(table)) (structure)" }
        return "\(self.table(table)).\(self.column(table, column))" + (inIndex ? " (index)" : "")
    }
}
