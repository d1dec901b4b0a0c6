// QueryModel: what the type checker and the VM know of the classes a query runs over.
//
// QueryVM sees storage only through CColumnar, where tables and columns have ids and stored names. A query, though,
// names the properties a user declared: Swift names (which `propertiesMapping()` may map to other stored names) and
// linking-objects properties, which have no column of their own. The object layer therefore describes its model
// here, table by table; tools without a model (columnar-inspect) build one from the file's schema instead, naming
// each property by its stored column name.

import CColumnar

/// One property of a class, as a query can name it.
public struct QueryProperty: Sendable {
    /// What the property holds per object.
    public enum Kind: Sendable, Equatable {
        /// One value; a link when `type` is LINK (always nullable).
        case value
        /// A list of values or of links.
        case list
        /// A set of values or of links.
        case set
        /// A map from string keys to values or links.
        case map
        /// The objects of `originTable` that link to this one through their column `originColumn` (a
        /// `LinkingObjects` property). `type` is LINK and `targetTable` is `originTable`.
        case linkingObjects(originTable: columnar_table_id, originColumn: columnar_col_id)
        /// The element itself: the property `self` of the table that stands for the elements of a collection of
        /// values (`QueryModel.elements(of:isNullable:name:decimals:)`). `column` is `COLUMNAR_NO_COLUMN`.
        case element
    }

    /// The name queries use (the Swift property name).
    public var name: String
    public var kind: Kind
    /// The column in the table; `COLUMNAR_NO_COLUMN` for linking objects.
    public var column: columnar_col_id
    /// The type of the value, or of each element.
    public var type: columnar_type
    /// Whether the value (each element) may be null.
    public var isNullable: Bool
    /// Whether equality can use a search index (indexed properties and the primary key).
    public var isIndexed: Bool
    public var isPrimaryKey: Bool
    /// Whether the search index keeps values in order, so int ranges and string prefixes can be read from it.
    public var hasOrderedIndex = false
    /// For links: the table linked to.
    public var targetTable: columnar_table_id?

    public init(name: String, kind: Kind, column: columnar_col_id, type: columnar_type, isNullable: Bool,
                isIndexed: Bool = false, isPrimaryKey: Bool = false, targetTable: columnar_table_id? = nil) {
        self.name = name
        self.kind = kind
        self.column = column
        self.type = type
        self.isNullable = isNullable
        self.isIndexed = isIndexed
        self.isPrimaryKey = isPrimaryKey
        self.targetTable = targetTable
    }

    /// Whether each object holds any number of values here (lists, sets, maps, linking objects).
    public var isToMany: Bool { kind != .value }
}

/// One class: a table and the properties a query can name.
public struct QueryTable: Sendable {
    public var id: columnar_table_id
    /// The class name, for error messages.
    public var className: String
    public var properties: [QueryProperty]

    public init(id: columnar_table_id, className: String, properties: [QueryProperty]) {
        self.id = id
        self.className = className
        self.properties = properties
    }

    /// The property a query calls `name`, or nil.
    public func property(named name: String) -> QueryProperty? {
        properties.first { $0.name == name }
    }
}

/// Decimal128 arithmetic lives in the object layer (module Columnar); queries reach it through these closures.
public struct QueryDecimalSupport: Sendable {
    /// The 16-byte bit pattern of a constant, or nil when it is not a number.
    public var encode: @Sendable (QueryValue) -> [UInt8]?
    /// Orders two bit patterns numerically: <0, 0, >0, or nil when either is NaN.
    public var compare: @Sendable ([UInt8], [UInt8]) -> Int?
    /// The value as a Double (to compare with a float or double, and for numeric conversions).
    public var toDouble: @Sendable ([UInt8]) -> Double
    /// The exact decimal sum of two values, for sums and averages: decimal values are not summed in Double,
    /// where 0.1 + 0.2 is not 0.3.
    public var add: @Sendable ([UInt8], [UInt8]) -> [UInt8]
    /// A value divided by a count, for averages.
    public var divide: @Sendable ([UInt8], Int) -> [UInt8]

    public init(encode: @escaping @Sendable (QueryValue) -> [UInt8]?,
                compare: @escaping @Sendable ([UInt8], [UInt8]) -> Int?,
                toDouble: @escaping @Sendable ([UInt8]) -> Double,
                add: @escaping @Sendable ([UInt8], [UInt8]) -> [UInt8],
                divide: @escaping @Sendable ([UInt8], Int) -> [UInt8]) {
        self.encode = encode
        self.compare = compare
        self.toDouble = toDouble
        self.add = add
        self.divide = divide
    }

    /// The exact sum of decimal values (each a bit pattern), or nil when there are none.
    public func sum<Values: Sequence>(_ values: Values) -> [UInt8]? where Values.Element == [UInt8] {
        values.reduce(nil) { sum, value in sum.map { add($0, value) } ?? value }
    }
}

/// Every class a query may reach, by table id.
public struct QueryModel: Sendable {
    public var tables: [columnar_table_id: QueryTable]
    /// How to compare Decimal128 values; without it, queries on Decimal128 properties are refused.
    public var decimals: QueryDecimalSupport?
    /// The object layer's identity of the open database the model describes: an object compared with a link must
    /// come from it (see QueryObjectReference.swift). Nil: not checked.
    public var database: ObjectIdentifier?

    public init(tables: [QueryTable], decimals: QueryDecimalSupport? = nil) {
        var byId: [columnar_table_id: QueryTable] = [:]
        for table in tables { byId[table.id] = table }
        self.tables = byId
        self.decimals = decimals
    }

    public func table(_ id: columnar_table_id) -> QueryTable? { tables[id] }

    /// The model stored in a file: every table under its stored name, every column under its stored name, and the
    /// engine's hidden backlink columns left out. For tools that have no Swift model (columnar-inspect).
    public static func stored(in transaction: OpaquePointer) throws -> QueryModel {
        var tableCount: UInt32 = 0
        try check(columnar_table_count(transaction, &tableCount))
        var tables: [QueryTable] = []
        for tableId in 0..<tableCount {
            var info = columnar_table_info()
            let rc = columnar_table_info_get(transaction, tableId, &info)
            if rc == COLUMNAR_ENOTFOUND { continue }
            try check(rc)
            var properties: [QueryProperty] = []
            for columnId in 0..<info.column_count {
                var column = columnar_column_info()
                let rc = columnar_column_info_get(transaction, tableId, columnId, &column)
                if rc == COLUMNAR_ENOTFOUND { continue }
                try check(rc)
                let name = withUnsafeBytes(of: column.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                let kind: QueryProperty.Kind
                switch column.collection {
                case COLUMNAR_COLLECTION_LIST: kind = .list
                case COLUMNAR_COLLECTION_SET: kind = .set
                case COLUMNAR_COLLECTION_DICT: kind = .map
                default: kind = .value
                }
                var property = QueryProperty(
                    name: name, kind: kind, column: columnId, type: column.type,
                    isNullable: column.nullable || (column.type == COLUMNAR_TYPE_LINK && kind == .value),
                    isIndexed: column.indexed || column.is_primary_key, isPrimaryKey: column.is_primary_key,
                    targetTable: column.type == COLUMNAR_TYPE_LINK ? column.target_table : nil)
                property.hasOrderedIndex = column.ordered_index
                properties.append(property)
            }
            let name = withUnsafeBytes(of: info.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            tables.append(QueryTable(id: tableId, className: name, properties: properties))
        }
        return QueryModel(tables: tables)
    }

    private static func check(_ rc: Int32) throws {
        if rc != 0 { throw ColumnarError.fromLastError(rc) }
    }
}
