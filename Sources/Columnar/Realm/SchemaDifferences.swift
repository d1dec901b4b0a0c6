// SchemaDifferences: how a class's stored table differs from its model, in the words RealmSwift uses.
//
// Opening a file whose stored schema differs from the models at the same schema version is a mismatch that
// RealmSwift reports as `Realm.Error.schemaMismatch`, "Migration is required due to the following errors:" and
// one line per difference. The differences that need a migration are the ones listed here: a property added,
// removed, given another type (or another collection kind, or links to another class), made optional or required,
// and a primary key added, removed or moved. Index changes need none (RealmSwift applies them itself; Columnar
// keeps the index the file has), nor does a class that has no table yet.

import CColumnar
import Foundation
import QueryVM

/// One difference between a stored table and its model class.
struct SchemaDifference: Equatable {
    enum Kind: Equatable {
        /// The model has a property the table has no column for.
        case added
        /// The table has a column (named here) the model has no property for.
        case removed(column: String)
        /// Another type, collection kind, link target, optionality or primary key.
        case changed
    }

    let kind: Kind
    /// RealmSwift's line for it, e.g. "Property 'Dog.age' has been added."
    let text: String
}

/// A schema mismatch found while opening a Realm or first using a class: the lines RealmSwift would list, and
/// for a class met after a migration that did not know it, what to do.
struct SchemaMismatch: Error, CustomStringConvertible {
    let differences: [String]
    var advice: String?

    var description: String {
        "Migration is required due to the following errors:" + differences.map { "\n- " + $0 }.joined()
            + (advice.map { "\n" + $0 } ?? "")
    }
}

enum SchemaDifferences {
    /// The differences between `schema` and its stored table `table`, in property order, removed properties and
    /// the primary key last; empty when the table can serve the model as it is.
    static func of(_ schema: ObjectSchema, table: columnar_table_id, _ txn: OpaquePointer) throws
        -> [SchemaDifference] {
        var tableInfo = columnar_table_info()
        try Engine.check(columnar_table_info_get(txn, table, &tableInfo))
        var stored: [String: columnar_column_info] = [:]
        var storedPrimaryKey: String?
        for (id, info) in try Engine.columns(txn, table: table, tableInfo) {
            let name = Engine.name(info.name)
            stored[name] = info
            if id == tableInfo.primary_key { storedPrimaryKey = name }
        }
        let className = schema.className
        var differences: [SchemaDifference] = []
        func note(_ kind: SchemaDifference.Kind, _ text: String) { differences.append(SchemaDifference(kind: kind, text: text)) }
        let persisted = schema.properties.filter { $0.type != .linkingObjects }
        for property in persisted {
            guard let info = stored[property.columnName] else {
                note(.added, "Property '\(className).\(property.name)' has been added.")
                continue
            }
            let storage = property.storage
            let storedTarget = info.type == COLUMNAR_TYPE_LINK ? try tableName(info.target_table, txn) : nil
            if info.type != storage.type || info.collection != storage.collection
                || storedTarget != property.objectClassName {
                note(.changed, "Property '\(className).\(property.name)' has been changed from "
                                   + "'\(typeName(info.type, info.collection, target: storedTarget))' to "
                                   + "'\(typeName(storage.type, storage.collection, target: property.objectClassName))'.")
            } else if info.nullable != storage.nullable
                        && !(storage.type == COLUMNAR_TYPE_LINK && storage.collection == COLUMNAR_COLLECTION_NONE) {
                // A to-one link is always optional, whatever the column says.
                note(.changed, "Property '\(className).\(property.name)' has been made "
                                   + (storage.nullable ? "optional." : "required."))
            }
        }
        let modelColumns = Set(persisted.map(\.columnName))
        for name in stored.keys.sorted() where !modelColumns.contains(name) {
            note(.removed(column: name), "Property '\(className).\(name)' has been removed.")
        }
        let modelPrimaryKey = schema.primaryKeyProperty?.columnName
        switch (storedPrimaryKey, modelPrimaryKey) {
        case (nil, nil): break
        case (nil, _?): note(.changed, "Primary Key for class '\(className)' has been added.")
        case (_?, nil): note(.changed, "Primary Key for class '\(className)' has been removed.")
        case (let old?, let new?) where old != new:
            note(.changed, "Primary Key for class '\(className)' has changed from '\(old)' to '\(new)'.")
        default: break
        }
        return differences
    }

    private static func tableName(_ table: columnar_table_id, _ txn: OpaquePointer) throws -> String {
        var info = columnar_table_info()
        try Engine.check(columnar_table_info_get(txn, table, &info))
        return Engine.name(info.name)
    }

    /// "int", "array<string>", "set<<Dog>>", "map<string, date>"; a link names its class, "<Dog>".
    private static func typeName(_ type: columnar_type, _ collection: columnar_collection_kind, target: String?)
        -> String {
        let element = type == COLUMNAR_TYPE_LINK ? "<\(target ?? "?")>" : PropertyType(type).description
        switch collection {
        case COLUMNAR_COLLECTION_LIST: return "array<\(element)>"
        case COLUMNAR_COLLECTION_SET: return "set<\(element)>"
        case COLUMNAR_COLLECTION_DICT: return "map<string, \(element)>"
        default: return element
        }
    }
}
