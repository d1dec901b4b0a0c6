// SchemaMigration: what happens when a Realm is opened with another schema version than the file's.
//
// The file records the schema version it was last opened with (SchemaVersionRecord). Opening with a lower version
// throws; opening with a higher one migrates in one write transaction, so that a failed or interrupted migration
// leaves the file as it was:
//   1. properties whose stored column has another type, collection kind or optionality get a fresh column (the old
//      one is renamed aside, so the old objects still read it); missing tables and columns are added;
//   2. values whose only change is optionality are copied over (nulls become the type's zero value);
//   3. the migration block runs, with old and new `DynamicObject`s for each object;
//   4. columns of properties the new model no longer has are removed, as are the set-aside ones; primary keys
//      and indexes are set as the new model declares them (after the block, which may have made keys unique);
//   5. the new version is recorded.
// The new model is `objectTypes` (and the classes they link to), or when that is nil the classes this process has
// discovered whose names are stored in the file, plus any class the block names once it has been discovered
// (classes used only later are still adapted additively when first used).

import CColumnar
import Foundation
import QueryVM

/// Opening with a lower schema version than the file's (thrown as RealmSwift's `.schemaMismatch`).
struct OlderSchemaVersion: Error, CustomStringConvertible {
    let configured: UInt64
    let stored: UInt64

    var description: String {
        "Provided schema version \(configured) is less than last set version \(stored): the file was written by a "
            + "newer model"
    }
}

enum SchemaMigration {
    /// Brings the file to the configuration's schema version. Runs when a core opens, before classes are bound.
    static func run(_ core: RealmCore) throws {
        let configuration = core.configuration
        if configuration.deleteRealmIfMigrationNeeded && !configuration.readOnly,
           try isNeeded(core.currentTransaction, configuration) {
            try startOver(core)
            return
        }
        let stored = try SchemaVersionRecord.read(core.currentTransaction)
        try requireNotOlder(configuration.schemaVersion, than: stored)
        if configuration.schemaVersion == stored { return }
        if configuration.readOnly {
            guard try !hasModelTables(core.currentTransaction) else {
                throw ColumnarError(code: .readOnly, message: "The file's schema version is \(stored) and the "
                                        + "configuration's \(configuration.schemaVersion): migrating needs a "
                                        + "writable Realm, but it is opened read-only")
            }
            return
        }
        try core.beginWrite()
        do {
            let txn = core.currentTransaction
            // Another process may have migrated between the read above and this write.
            let current = try SchemaVersionRecord.read(txn)
            try requireNotOlder(configuration.schemaVersion, than: current)
            guard configuration.schemaVersion > current else {
                core.cancelWrite()
                return
            }
            if try hasModelTables(txn) {
                let migrator = try SchemaMigrator(core: core, oldVersion: current)
                try migrator.migrate()
                try migrator.stampMigratedClasses(configuration.schemaVersion)
            }
            try SchemaVersionRecord.write(configuration.schemaVersion, txn)
            try core.commitWrite()
        } catch {
            if core.isInWriteTransaction { core.cancelWrite() }
            throw error
        }
    }

    /// Whether opening with `configuration` needs a migration: the versions differ in a file that holds model
    /// tables, or a known class's table differs from its model in a way SchemaCheck refuses.
    static func isNeeded(_ txn: OpaquePointer, _ configuration: Realm.Configuration) throws -> Bool {
        guard try hasModelTables(txn) else { return false }
        if try SchemaVersionRecord.read(txn) != configuration.schemaVersion { return true }
        // A known class whose table differs needs the migration that deleting the Realm replaces, unless the
        // difference can be adapted at first use (SchemaCheck.swift).
        do {
            _ = try SchemaCheck(try knownClasses(txn, configuration), txn)
            return false
        } catch is SchemaMismatch {
            return true
        }
    }

    /// The model classes known when a Realm opens: `objectTypes`, or the classes this process has used whose
    /// tables are in the file.
    static func knownClasses(_ txn: OpaquePointer, _ configuration: Realm.Configuration) throws -> [ObjectBase.Type] {
        if let types = configuration.objectTypes { return types }
        let names = Set(try SchemaVersionRecord.modelTables(txn).map { Engine.name($0.info.name) })
        return SchemaDiscovery.discoveredClasses(named: names)
    }

    /// Opening without `objectTypes`: the classes this process already knows are compared with the file now, so a
    /// mismatch is thrown by the open, as RealmSwift throws it (`objectTypes` classes are compared as they are
    /// bound, and classes first used later when they are).
    static func verifyKnownClasses(_ core: RealmCore) throws {
        guard core.configuration.objectTypes == nil else { return }
        _ = try SchemaCheck(try knownClasses(core.currentTransaction, core.configuration), core.currentTransaction)
    }

    /// `deleteRealmIfMigrationNeeded`: every table is removed in one write transaction, so the Realm starts
    /// empty with the configured version. The file itself stays (other processes may have it open; removing it
    /// under them would not be safe), and the space is reused by later commits.
    private static func startOver(_ core: RealmCore) throws {
        try core.beginWrite()
        do {
            let txn = core.currentTransaction
            guard try isNeeded(txn, core.configuration) else {   // another process got there first
                core.cancelWrite()
                return
            }
            let tables = try Engine.tables(txn)
            // Links first: a table another table links to cannot be removed.
            for (table, info) in tables {
                for (column, columnInfo) in try Engine.columns(txn, table: table, info)
                where columnInfo.type == COLUMNAR_TYPE_LINK {
                    try Engine.check(columnar_column_remove(txn, table, column))
                }
            }
            for (table, _) in tables { try Engine.check(columnar_table_remove(txn, table)) }
            if core.configuration.schemaVersion != 0 {
                try SchemaVersionRecord.write(core.configuration.schemaVersion, txn)
            }
            try core.commitWrite()
        } catch {
            if core.isInWriteTransaction { core.cancelWrite() }
            throw error
        }
    }

    private static func requireNotOlder(_ configured: UInt64, than stored: UInt64) throws {
        guard configured >= stored else { throw OlderSchemaVersion(configured: configured, stored: stored) }
    }

    /// Whether the file has any table besides the metadata table.
    static func hasModelTables(_ txn: OpaquePointer) throws -> Bool {
        try !SchemaVersionRecord.modelTables(txn).isEmpty
    }
}

/// One migration in progress (steps 1–4 above), inside the core's write transaction.
final class SchemaMigrator {
    let core: RealmCore
    let oldVersion: UInt64
    /// The tables as they were stored, by class name (their columns by stored column name).
    private(set) var oldTables: [String: DynamicTable] = [:]
    /// The tables of the new model's classes, by class name (their columns by property name).
    private(set) var newTables: [String: DynamicTable] = [:]
    private var oldTablesById: [columnar_table_id: DynamicTable] = [:]
    private var newTablesById: [columnar_table_id: DynamicTable] = [:]
    private var newTypes: [ObjectBase.Type] = []
    /// Columns to remove when the block has run: set aside or no longer in the model.
    private var columnsToRemove: [(table: columnar_table_id, column: columnar_col_id)] = []

    init(core: RealmCore, oldVersion: UInt64) throws {
        self.core = core
        self.oldVersion = oldVersion
        let txn = core.currentTransaction
        for (id, info) in try SchemaVersionRecord.modelTables(txn) {
            var columns: [String: (id: columnar_col_id, info: columnar_column_info)] = [:]
            for column in try Engine.columns(txn, table: id, info) { columns[Engine.name(column.info.name)] = column }
            let table = DynamicTable(id: id, className: Engine.name(info.name), columns: columns,
                                     targetTable: { [unowned self] in self.oldTablesById[$0] })
            oldTables[table.className] = table
            oldTablesById[id] = table
        }
        newTypes = core.configuration.objectTypes
            ?? SchemaDiscovery.discoveredClasses(named: Set(oldTables.keys))
    }

    /// Stamps the classes this migration gave their new model's shape (ClassVersionRecord.swift); tables of
    /// classes it did not know keep their older stamp and are adapted when first used.
    func stampMigratedClasses(_ version: UInt64) throws {
        for type in newTypes {
            try ClassVersionRecord.stamp(SchemaDiscovery.info(for: type).schema.className, version,
                                         core.currentTransaction)
        }
    }

    func migrate() throws {
        try adapt(newTypes)
        if let block = core.configuration.migrationBlock {
            block(Migration(migrator: self), oldVersion)
        }
        try finish()
    }

    // MARK: Steps

    /// Steps 1 and 2 for `types` and the classes they link to (those not adapted yet).
    private func adapt(_ types: [ObjectBase.Type]) throws {
        var closure: [ObjectBase.Type] = []
        var pending = types
        var seen: Set<ObjectIdentifier> = []
        while let next = pending.popLast() {
            guard seen.insert(ObjectIdentifier(next)).inserted else { continue }
            closure.append(next)
            for property in SchemaDiscovery.info(for: next).schema.properties {
                if let target = property.storage.objectType { pending.append(target) }
            }
        }
        let fresh = closure.filter { newTables[SchemaDiscovery.info(for: $0).schema.className] == nil }
        let known = Set(newTypes.map(ObjectIdentifier.init))
        newTypes += fresh.filter { !known.contains(ObjectIdentifier($0)) }
        try prepare(fresh, all: closure)
        try copyOptionalityChanges()
    }

    /// Step 1: sets aside columns of another shape, notes columns the model dropped, adds what is missing.
    private var optionalityChanges: [(table: columnar_table_id, old: columnar_col_id, property: Property)] = []

    private func prepare(_ fresh: [ObjectBase.Type], all: [ObjectBase.Type]) throws {
        let txn = core.currentTransaction
        for type in fresh {
            let schema = SchemaDiscovery.info(for: type).schema
            guard let stored = oldTables[schema.className] else { continue }
            var info = columnar_table_info()
            try Engine.check(columnar_table_info_get(txn, stored.id, &info))
            let kept = Set(schema.properties.filter { $0.type != .linkingObjects }.map(\.columnName))
            for (name, column) in stored.columns {
                let property = schema.properties.first { $0.columnName == name && $0.type != .linkingObjects }
                let difference = property.flatMap { RealmCore.shapeDifference(column.info, $0) }
                guard !kept.contains(name) || difference != nil else { continue }
                // The primary key cannot be removed or renamed while it is one; step 4 sets the new one.
                if info.primary_key == column.id {
                    try Engine.check(columnar_table_set_primary_key(txn, stored.id, COLUMNAR_NO_COLUMN))
                    info.primary_key = COLUMNAR_NO_COLUMN
                }
                if let property, difference != nil {
                    try Engine.check(columnar_column_rename(txn, stored.id, column.id, "__old\(column.id)"))
                    let onlyOptionality = column.info.type == property.storage.type
                        && column.info.collection == property.storage.collection
                        && property.storage.collection == COLUMNAR_COLLECTION_NONE
                        && column.info.type != COLUMNAR_TYPE_LINK
                    if onlyOptionality { optionalityChanges.append((stored.id, column.id, property)) }
                }
                columnsToRemove.append((stored.id, column.id))
            }
        }
        try core.createSchema(all, primaryKeys: false)
        for type in fresh {
            let schema = SchemaDiscovery.info(for: type).schema
            var id: columnar_table_id = 0
            try Engine.check(columnar_table_find(txn, schema.className, &id))
            var columns: [String: (id: columnar_col_id, info: columnar_column_info)] = [:]
            for property in schema.properties where property.type != .linkingObjects {
                var column: columnar_col_id = 0
                var info = columnar_column_info()
                try Engine.check(columnar_column_find(txn, id, property.columnName, &column))
                try Engine.check(columnar_column_info_get(txn, id, column, &info))
                columns[property.name] = (column, info)
            }
            let table = DynamicTable(id: id, className: schema.className, columns: columns,
                                     targetTable: { [unowned self] in self.newTablesById[$0] })
            newTables[schema.className] = table
            newTablesById[id] = table
        }
    }

    /// Step 2: a property that only became optional (or required) keeps its values.
    private func copyOptionalityChanges() throws {
        let txn = core.currentTransaction
        for change in optionalityChanges {
            var column: columnar_col_id = 0
            try Engine.check(columnar_column_find(txn, change.table, change.property.columnName, &column))
            for key in try core.keys(of: change.table) {
                var value = columnar_value()
                try Engine.check(columnar_obj_get(txn, change.table, key, change.old, &value))
                if value.is_null { continue }   // the new required column already holds the zero value
                try Engine.check(columnar_obj_set(txn, change.table, key, column, &value))
            }
        }
        optionalityChanges.removeAll()
    }

    /// The new model's table of a class. With `objectTypes` nil, a class the block names that the process has
    /// discovered by then (`Person.className()` discovers it) is adapted when first named.
    private func newTable(_ typeName: String) -> DynamicTable? {
        if let table = newTables[typeName] { return table }
        guard core.configuration.objectTypes == nil, oldTables[typeName] != nil,
              let type = SchemaDiscovery.discoveredClasses(named: [typeName]).first else { return nil }
        do { try adapt([type]) } catch { fatalError("Migration: cannot adapt '\(typeName)' to its model: \(error)") }
        return newTables[typeName]
    }

    /// Step 4: drops what the new model no longer has, then sets primary keys and indexes.
    private func finish() throws {
        let txn = core.currentTransaction
        for (table, column) in columnsToRemove {
            var info = columnar_column_info()
            guard columnar_column_info_get(txn, table, column, &info) == COLUMNAR_OK else { continue }
            try Engine.check(columnar_column_remove(txn, table, column))
        }
        for type in newTypes {
            let schema = SchemaDiscovery.info(for: type).schema
            guard let table = newTables[schema.className] else { continue }
            var info = columnar_table_info()
            try Engine.check(columnar_table_info_get(txn, table.id, &info))
            let primaryKey = schema.primaryKeyProperty.flatMap { table.columns[$0.name]?.id } ?? COLUMNAR_NO_COLUMN
            if info.primary_key != primaryKey {
                let rc = columnar_table_set_primary_key(txn, table.id, primaryKey)
                if rc == COLUMNAR_EEXISTS {
                    throw ColumnarError(code: .alreadyExists, message: "Migration: primary key property '"
                                            + "\(schema.className).\(schema.primaryKeyProperty!.name)' has "
                                            + "duplicate values after the migration block ran")
                }
                try Engine.check(rc)
            }
            for property in schema.properties where property.type != .linkingObjects && !property.isPrimary {
                guard let column = table.columns[property.name] else { continue }
                var current = columnar_column_info()
                try Engine.check(columnar_column_info_get(txn, table.id, column.id, &current))
                if current.indexed != property.isIndexed {
                    try Engine.check(columnar_column_set_indexed(txn, table.id, column.id, property.isIndexed))
                }
            }
        }
        core.noteStructuralChange()
    }

    // MARK: What Migration offers

    func enumerateObjects(ofType typeName: String, _ block: (DynamicObject?, DynamicObject?) -> Void) {
        let old = oldTables[typeName]
        let new = newTable(typeName)
        guard let table = old ?? new else { return }
        let keys: [columnar_key]
        do { keys = try core.keys(of: table.id) } catch { fatalError("Migration: cannot read '\(typeName)': \(error)") }
        for key in keys {
            // Objects deleted by the block earlier in the enumeration are skipped.
            var exists = false
            Engine.mustSucceed(columnar_obj_exists(core.currentTransaction, table.id, key, &exists), "migrating")
            guard exists else { continue }
            block(old.map { DynamicObject.make(core: core, table: $0, key: key) },
                  new.map { DynamicObject.make(core: core, table: $0, key: key) })
        }
    }

    func create(_ typeName: String, value: Any) -> DynamicObject {
        guard let table = newTable(typeName) else {
            fatalError("Migration: cannot create a '\(typeName)': it is not a class of the new model")
        }
        let txn = core.currentTransaction
        var key: columnar_key = 0
        Engine.mustSucceed(columnar_obj_create(txn, table.id, &key), "creating a \(typeName)")
        let object = DynamicObject.make(core: core, table: table, key: key)
        let schema = newTypes.map { SchemaDiscovery.info(for: $0).schema }.first { $0.className == typeName }!
        let names = schema.properties.filter { $0.type != .linkingObjects }.map(\.name)
        switch value {
        case let dictionary as [String: Any?]:
            for (name, value) in dictionary { object[name] = value }
        case let dictionary as [String: Any]:
            for (name, value) in dictionary { object[name] = value }
        case let array as [Any?]:
            precondition(array.count <= names.count, "Migration: \(array.count) values for \(names.count) "
                             + "properties of '\(typeName)'")
            for (name, value) in zip(names, array) { object[name] = value }
        default:
            fatalError("Migration: a new '\(typeName)' takes a dictionary or an array of values, not "
                       + "\(type(of: value))")
        }
        return object
    }

    func delete(_ object: DynamicObject) {
        guard let key = object.dynamicKey, let table = object.dynamicTable else {
            fatalError("Migration: only objects of this migration can be deleted")
        }
        Engine.mustSucceed(columnar_obj_delete(core.currentTransaction, table.id, key), "deleting a \(table.className)")
        core.noteStructuralChange()
    }

    func deleteData(forType typeName: String) -> Bool {
        let txn = core.currentTransaction
        var id: columnar_table_id = 0
        guard columnar_table_find(txn, typeName, &id) == COLUMNAR_OK else { return false }
        if newTable(typeName) != nil {
            for key in (try? core.keys(of: id)) ?? [] {
                Engine.mustSucceed(columnar_obj_delete(txn, id, key), "deleting a \(typeName)")
            }
        } else {
            let rc = columnar_table_remove(txn, id)
            if rc == COLUMNAR_EMISUSE {
                fatalError("Migration: cannot delete the data of '\(typeName)': another class still links to it")
            }
            Engine.mustSucceed(rc, "deleting the data of \(typeName)")
            oldTables[typeName] = nil
            oldTablesById[id] = nil
            columnsToRemove.removeAll { $0.table == id }
        }
        core.noteStructuralChange()
        return true
    }

    /// Moves the stored values of `oldName` to the new property `newName` (which must have the same type): the old
    /// column takes the new name and replaces the empty column step 1 added.
    func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        let txn = core.currentTransaction
        guard let old = oldTables[typeName], let oldColumn = old.columns[oldName] else {
            fatalError("Migration: cannot rename '\(typeName).\(oldName)': the old schema has no such property")
        }
        guard let new = newTable(typeName), let newColumn = new.columns[newName] else {
            fatalError("Migration: cannot rename '\(typeName).\(oldName)' to '\(newName)': the new model has no "
                       + "such property")
        }
        guard oldColumn.id != newColumn.id else { return }
        guard oldColumn.info.type == newColumn.info.type, oldColumn.info.collection == newColumn.info.collection,
              oldColumn.info.nullable == newColumn.info.nullable,
              oldColumn.info.type != COLUMNAR_TYPE_LINK || oldColumn.info.target_table == newColumn.info.target_table
        else {
            fatalError("Migration: cannot rename '\(typeName).\(oldName)' to '\(newName)': they have different "
                       + "types (\(PropertyType(oldColumn.info.type)) and \(PropertyType(newColumn.info.type)))")
        }
        let newColumnName = Engine.name(newColumn.info.name)
        Engine.mustSucceed(columnar_column_remove(txn, new.id, newColumn.id), "renaming \(typeName).\(oldName)")
        Engine.mustSucceed(columnar_column_rename(txn, old.id, oldColumn.id, newColumnName),
                           "renaming \(typeName).\(oldName)")
        var info = columnar_column_info()
        Engine.mustSucceed(columnar_column_info_get(txn, old.id, oldColumn.id, &info), "renaming")
        new.columns[newName] = (oldColumn.id, info)
        columnsToRemove.removeAll { $0.table == old.id && $0.column == oldColumn.id }
        core.noteStructuralChange()
    }

    /// The stored schema as it was before the migration: classes are `DynamicObject`s, properties are named by
    /// their stored column names.
    private(set) lazy var oldSchema: Schema = {
        let classNames = Dictionary(uniqueKeysWithValues: oldTablesById.map { ($0.key, $0.value.className) })
        let schemas = oldTables.values.sorted { $0.className < $1.className }.map { table -> ObjectSchema in
            let columns = table.columns.sorted { $0.value.id < $1.value.id }
            let properties = columns.compactMap { name, column -> Property? in
                guard !name.hasPrefix("__old") else { return nil }
                let info = column.info
                let storage = _StorageType(type: info.type, nullable: info.nullable, collection: info.collection,
                                           objectType: nil)
                return Property(name: name, columnName: name, storage: storage, isPrimary: info.is_primary_key,
                                isIndexed: info.indexed,
                                objectClassName: info.type == COLUMNAR_TYPE_LINK ? classNames[info.target_table] : nil)
            }
            return ObjectSchema(className: table.className, properties: properties, objectClass: DynamicObject.self,
                                isEmbedded: false)
        }
        return Schema(objectSchema: schemas)
    }()

    /// The new model's schema.
    var newSchema: Schema {
        let schemas = newTypes.map { SchemaDiscovery.info(for: $0).schema }
        return Schema(objectSchema: schemas.sorted { $0.className < $1.className })
    }
}
