// DynamicObject: an object read and written by property name, with no model class behind it.
//
// Two kinds exist. Migrations hand out objects of a table as the migration sees it (`MigrationObject`): the old
// object sees the file's columns as they were, the new object sees the columns of the new model, and neither needs
// a Swift class of that shape; their collections read as arrays and dictionaries. Outside migrations,
// `Realm.dynamicObjects(_:)`, `dynamicObject(ofType:forPrimaryKey:)` and `dynamicCreate(_:value:update:)` hand out
// managed objects of a class known by name (a dynamic binding, RealmCore+DynamicBindings.swift), read and written
// as DynamicObject+Properties.swift says: links are DynamicObjects, collections live List, MutableSet and Map
// values, as in RealmSwift.

import CColumnar
import Foundation
import QueryVM

/// One table as a migration sees it: its columns by property (column) name.
final class DynamicTable {
    let id: columnar_table_id
    let className: String
    /// Property name -> column, with the column's description.
    var columns: [String: (id: columnar_col_id, info: columnar_column_info)]
    /// The dynamic table of each link column's target, on the same side of the migration.
    let targetTable: (columnar_table_id) -> DynamicTable?

    init(id: columnar_table_id, className: String, columns: [String: (id: columnar_col_id, info: columnar_column_info)],
         targetTable: @escaping (columnar_table_id) -> DynamicTable?) {
        self.id = id
        self.className = className
        self.columns = columns
        self.targetTable = targetTable
    }
}

@dynamicMemberLookup
public final class DynamicObject: Object {
    private var row: (core: RealmCore, table: DynamicTable, key: columnar_key)?

    public required init() {
        super.init()
    }

    static func make(core: RealmCore, table: DynamicTable, key: columnar_key) -> DynamicObject {
        let object = DynamicObject()
        object.row = (core, table, key)
        return object
    }

    /// Whether a migration handed the object out (it reads and writes the migration's tables).
    var isMigrationObject: Bool { row != nil }

    var dynamicKey: columnar_key? { row?.key }
    var dynamicTable: DynamicTable? { row?.table }

    /// The value of a property: nil for null, a `DynamicObject` for a link, else the property's Swift value (Int,
    /// String, Date, ...). A collection is a live `List`, `MutableSet` or `Map` of the property's element type
    /// (`List<Int>`, `Map<String, String?>`, `List<DynamicObject>` for objects), or, in a migration, an array (a
    /// `[String: Any?]` for a map). Setting a property needs a write transaction; see DynamicObject+Properties.swift
    /// for the values each kind takes. An unknown name stops the program.
    public override subscript(key: String) -> Any? {
        get {
            if let (core, table, objectKey) = row {
                let column = requireColumn(key, in: table)
                return DynamicValues.read(core: core, table: table, key: objectKey, column: column)
            }
            let location = requireLocation()
            return DynamicProperties.read(location, propertyIndex: dynamicPropertyIndex(key, location.binding))
        }
        set {
            if let (core, table, objectKey) = row {
                core.requireWriteTransaction()
                let column = requireColumn(key, in: table)
                do {
                    try DynamicValues.write(newValue, core: core, table: table, key: objectKey, column: column)
                } catch {
                    fatalError("Cannot set '\(table.className).\(key)': \(error)")
                }
                return
            }
            let location = requireLocation()
            DynamicProperties.write(newValue, to: location, propertyIndex: dynamicPropertyIndex(key, location.binding),
                                    policy: .error)
        }
    }

    // Key-value coding of collections reaches objects through these; a DynamicObject's properties are its
    // class's, not those of the DynamicObject class.
    override func _value(forProperty key: String) -> Any? { self[key] }
    override func _setValue(_ value: Any?, forProperty key: String) { self[key] = value }

    public subscript(dynamicMember member: String) -> Any? {
        get { self[member] }
        set { self[member] = newValue }
    }

    public override var description: String {
        if row == nil, let location = _location { return DynamicProperties.describe(location) }
        guard let (core, table, key) = row else { return "DynamicObject (detached)" }
        let body = table.columns.keys.sorted().map { name -> String in
            let value = DynamicValues.read(core: core, table: table, key: key, column: table.columns[name]!)
            let text: String
            if let object = value as? DynamicObject {
                text = "\(object.dynamicTable?.className ?? "?") (key \(object.dynamicKey ?? -1))"
            } else {
                text = value.map { "\($0)" } ?? "nil"
            }
            return "\t\(name) = \(text);"
        }
        return "\(table.className) {\n" + body.joined(separator: "\n") + "\n}"
    }

    /// Where a managed DynamicObject lives; stops for one made with `DynamicObject()`, which belongs to no class.
    private func requireLocation() -> ObjectLocation {
        guard let location = _location else {
            fatalError("This DynamicObject is not managed by a Realm, so it has no class and no properties: "
                       + "DynamicObjects come from Realm.dynamicObjects(_:), dynamicObject(ofType:forPrimaryKey:), "
                       + "dynamicCreate(_:value:update:) and migrations")
        }
        return location
    }

    private func requireColumn(_ name: String, in table: DynamicTable)
        -> (id: columnar_col_id, info: columnar_column_info) {
        guard let column = table.columns[name] else {
            fatalError("Invalid property name '\(name)' for class '\(table.className)': it has "
                       + table.columns.keys.sorted().joined(separator: ", "))
        }
        return column
    }
}

/// Converting between the engine's values and the Swift values a `DynamicObject` gives and takes.
enum DynamicValues {
    static func read(core: RealmCore, table: DynamicTable, key: columnar_key,
                     column: (id: columnar_col_id, info: columnar_column_info)) -> Any? {
        let txn = core.currentTransaction
        let realm = Realm(core: core)
        switch column.info.collection {
        case COLUMNAR_COLLECTION_NONE:
            var value = columnar_value()
            Engine.mustSucceed(columnar_obj_get(txn, table.id, key, column.id, &value), "reading \(table.className)")
            return swiftValue(value, core: core, realm: realm, table: table, column: column.info)
        case COLUMNAR_COLLECTION_DICT:
            var size: UInt64 = 0
            Engine.mustSucceed(columnar_coll_size(txn, table.id, key, column.id, &size), "reading a map")
            var entries: [String: Any?] = [:]
            for index in 0..<size {
                var bytes: UnsafeRawPointer?
                var count = 0
                Engine.mustSucceed(columnar_dict_key_at(txn, table.id, key, column.id, index, &bytes, &count),
                                   "reading a map key")
                let name = String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
                var value = columnar_value()
                Engine.mustSucceed(columnar_coll_get(txn, table.id, key, column.id, index, &value), "reading a map")
                entries[name] = swiftValue(value, core: core, realm: realm, table: table, column: column.info)
            }
            return entries
        default:
            var size: UInt64 = 0
            Engine.mustSucceed(columnar_coll_size(txn, table.id, key, column.id, &size), "reading a collection")
            return (0..<size).map { index -> Any? in
                var value = columnar_value()
                Engine.mustSucceed(columnar_coll_get(txn, table.id, key, column.id, index, &value),
                                   "reading a collection")
                return swiftValue(value, core: core, realm: realm, table: table, column: column.info)
            }
        }
    }

    private static func swiftValue(_ value: columnar_value, core: RealmCore, realm: Realm, table: DynamicTable,
                                   column: columnar_column_info) -> Any? {
        if value.is_null { return value.type == COLUMNAR_TYPE_MIXED ? AnyRealmValue.none : nil }
        if value.type == COLUMNAR_TYPE_LINK {
            guard let target = table.targetTable(column.target_table) else { return nil }
            return DynamicObject.make(core: core, table: target, key: value.as.link)
        }
        return scalarValue(value, realm: realm)
    }

    /// A non-null value of a column that is not a link, as the Swift value a DynamicObject gives for it.
    static func scalarValue(_ value: columnar_value, realm: Realm) -> Any? {
        switch value.type {
        case COLUMNAR_TYPE_INT: return Int(value.as.i)
        case COLUMNAR_TYPE_BOOL: return value.as.b
        case COLUMNAR_TYPE_FLOAT: return value.as.f
        case COLUMNAR_TYPE_DOUBLE: return value.as.d
        case COLUMNAR_TYPE_STRING: return String._read(value, from: realm)
        case COLUMNAR_TYPE_BINARY: return Data._read(value, from: realm)
        case COLUMNAR_TYPE_TIMESTAMP: return Date._read(value, from: realm)
        case COLUMNAR_TYPE_OBJECTID: return ObjectId._read(value, from: realm)
        case COLUMNAR_TYPE_UUID: return UUID._read(value, from: realm)
        case COLUMNAR_TYPE_DECIMAL128: return Decimal128._read(value, from: realm)
        case COLUMNAR_TYPE_MIXED: return AnyRealmValue._read(value, from: realm)
        default: return nil
        }
    }

    /// Writes a value given as `Any?`: collections take arrays (or, for maps, `[String: Any?]`) and replace the
    /// whole collection; links take a `DynamicObject` of the target table, or nil.
    static func write(_ newValue: Any?, core: RealmCore, table: DynamicTable, key: columnar_key,
                      column: (id: columnar_col_id, info: columnar_column_info)) throws {
        let txn = core.currentTransaction
        switch column.info.collection {
        case COLUMNAR_COLLECTION_NONE:
            try withEngineValue(newValue, core: core, column: column.info) { value in
                try Engine.check(columnar_obj_set(txn, table.id, key, column.id, &value))
            }
        case COLUMNAR_COLLECTION_DICT:
            guard let entries = newValue as? [String: Any?] else {
                throw ColumnarError(code: .wrongType, message: "a map takes a [String: Any?] dictionary, not "
                                        + "\(newValue.map { "\(type(of: $0))" } ?? "nil")")
            }
            try Engine.check(columnar_coll_clear(txn, table.id, key, column.id))
            for (entryKey, entryValue) in entries {
                try withEngineValue(entryValue, core: core, column: column.info) { value in
                    try Array(entryKey.utf8).withUnsafeBytes { bytes in
                        try Engine.check(columnar_dict_set(txn, table.id, key, column.id, bytes.baseAddress,
                                                           bytes.count, &value))
                    }
                }
            }
        default:
            guard let elements = newValue as? [Any?] ?? (newValue as? [Any]).map({ $0.map { Optional($0) } }) else {
                throw ColumnarError(code: .wrongType, message: "a list or set takes an array, not "
                                        + "\(newValue.map { "\(type(of: $0))" } ?? "nil")")
            }
            try Engine.check(columnar_coll_clear(txn, table.id, key, column.id))
            for (index, element) in elements.enumerated() {
                try withEngineValue(element, core: core, column: column.info) { value in
                    if column.info.collection == COLUMNAR_COLLECTION_LIST {
                        try Engine.check(columnar_list_insert(txn, table.id, key, column.id, UInt64(index), &value))
                    } else {
                        try Engine.check(columnar_set_insert(txn, table.id, key, column.id, &value, nil))
                    }
                }
            }
        }
        core.noteLocalChange()
    }

    /// `value` as the engine value a column of `column`'s type stores (integers of any width for Int columns,
    /// Float and Double for each other).
    static func withEngineValue(_ value: Any?, core: RealmCore, column: columnar_column_info,
                                _ body: (inout columnar_value) throws -> Void) throws {
        let realm = Realm(core: core)
        let unwrapped: Any? = value.flatMap { ($0 as? OptionalProtocol)?.isNone == true ? nil : $0 }
        guard let unwrapped else {
            var null = columnar_value()
            null.type = column.type
            null.is_null = true
            return try body(&null)
        }
        if column.type == COLUMNAR_TYPE_LINK {
            guard let object = unwrapped as? DynamicObject, let key = object.dynamicKey,
                  object.dynamicTable?.id == column.target_table else {
                throw ColumnarError(code: .wrongType, message: "a link takes a DynamicObject of the linked class "
                                        + "from the same migration, not \(type(of: unwrapped))")
            }
            var link = columnar_value()
            link.type = COLUMNAR_TYPE_LINK
            link.as.link = key
            return try body(&link)
        }
        guard let persistable = EngineValue.persistable(unwrapped, type: column.type, nullable: column.nullable) else {
            throw ColumnarError(code: .wrongType, message: "a \(PropertyType(column.type)) property cannot hold "
                                    + "\(type(of: unwrapped)) '\(unwrapped)'")
        }
        try persistable._withValue(in: realm, body)
    }
}
