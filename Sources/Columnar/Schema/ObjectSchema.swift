// ObjectSchema, Property, PropertyType and Schema: the public description of model classes, as RealmSwift
// exposes them (`realm.schema`, `object.objectSchema`).

import CColumnar

/// The type of a property's values (RealmSwift's `PropertyType`).
public enum PropertyType: Int, Sendable, CustomStringConvertible {
    case int = 0
    case bool = 1
    case float = 5
    case double = 6
    case UUID = 12
    case string = 2
    case data = 3
    case any = 9
    case date = 4
    case objectId = 10
    case decimal128 = 11
    case object = 7
    case linkingObjects = 8

    init(_ type: columnar_type) {
        switch type {
        case COLUMNAR_TYPE_INT: self = .int
        case COLUMNAR_TYPE_BOOL: self = .bool
        case COLUMNAR_TYPE_FLOAT: self = .float
        case COLUMNAR_TYPE_DOUBLE: self = .double
        case COLUMNAR_TYPE_STRING: self = .string
        case COLUMNAR_TYPE_BINARY: self = .data
        case COLUMNAR_TYPE_TIMESTAMP: self = .date
        case COLUMNAR_TYPE_OBJECTID: self = .objectId
        case COLUMNAR_TYPE_UUID: self = .UUID
        case COLUMNAR_TYPE_DECIMAL128: self = .decimal128
        case COLUMNAR_TYPE_LINK: self = .object
        default: self = .any
        }
    }

    public var description: String {
        switch self {
        case .int: "int"
        case .bool: "bool"
        case .float: "float"
        case .double: "double"
        case .UUID: "uuid"
        case .string: "string"
        case .data: "data"
        case .any: "mixed"
        case .date: "date"
        case .objectId: "object id"
        case .decimal128: "decimal128"
        case .object: "object"
        case .linkingObjects: "linking objects"
        }
    }
}

/// One persisted property of a model class.
public final class Property: CustomStringConvertible, Equatable, @unchecked Sendable {
    /// The Swift property name.
    public let name: String
    /// The name of the column in the file (differs when `propertiesMapping()` renames it).
    public let columnName: String
    public let type: PropertyType
    public let isIndexed: Bool
    public let isOptional: Bool
    public let isArray: Bool
    public let isSet: Bool
    public let isMap: Bool
    public let isPrimary: Bool
    /// For links, collections of links and linking objects: the linked class's name.
    public let objectClassName: String?
    /// For linking objects: the property of the origin class that links here.
    public let linkOriginPropertyName: String?

    let storage: _StorageType

    /// `objectClassName` names the linked class when `storage` has no Swift class for it (a stored schema).
    init(name: String, columnName: String, storage: _StorageType, isPrimary: Bool, isIndexed: Bool,
         linkOriginPropertyName: String? = nil, objectClassName: String? = nil) {
        self.name = name
        self.columnName = columnName
        self.storage = storage
        self.type = linkOriginPropertyName != nil ? .linkingObjects : PropertyType(storage.type)
        self.isOptional = storage.nullable
        self.isArray = storage.collection == COLUMNAR_COLLECTION_LIST
        self.isSet = storage.collection == COLUMNAR_COLLECTION_SET
        self.isMap = storage.collection == COLUMNAR_COLLECTION_DICT
        self.isPrimary = isPrimary
        self.isIndexed = isIndexed || isPrimary
        self.objectClassName = objectClassName ?? storage.objectType.map { $0.storedClassName }
        self.linkOriginPropertyName = linkOriginPropertyName
    }

    public var description: String {
        var text = "\(name) {\n\ttype = \(type);\n"
        if let objectClassName { text += "\tobjectClassName = \(objectClassName);\n" }
        if let linkOriginPropertyName { text += "\tlinkOriginPropertyName = \(linkOriginPropertyName);\n" }
        text += "\tcolumnName = \(columnName);\n\tindexed = \(isIndexed ? "YES" : "NO");\n"
        text += "\tisPrimary = \(isPrimary ? "YES" : "NO");\n\tarray = \(isArray ? "YES" : "NO");\n"
        text += "\tset = \(isSet ? "YES" : "NO");\n\tdictionary = \(isMap ? "YES" : "NO");\n"
        text += "\toptional = \(isOptional ? "YES" : "NO");\n}"
        return text
    }

    public static func == (lhs: Property, rhs: Property) -> Bool {
        lhs.name == rhs.name && lhs.columnName == rhs.columnName && lhs.storage == rhs.storage
            && lhs.isPrimary == rhs.isPrimary && lhs.isIndexed == rhs.isIndexed
            && lhs.linkOriginPropertyName == rhs.linkOriginPropertyName
    }
}

/// The schema of one model class.
public final class ObjectSchema: CustomStringConvertible, Equatable, @unchecked Sendable {
    public let className: String
    /// Persisted properties in declaration order.
    public let properties: [Property]
    public var primaryKeyProperty: Property? { properties.first { $0.isPrimary } }
    /// The class the schema was discovered from.
    public let objectClass: ObjectBase.Type
    public let isEmbedded: Bool
    /// Always false: asymmetric objects (written once and sent to a server) belong to Atlas Device Sync, which
    /// Columnar does not have.
    public var isAsymmetric: Bool { false }

    init(className: String, properties: [Property], objectClass: ObjectBase.Type, isEmbedded: Bool) {
        self.className = className
        self.properties = properties
        self.objectClass = objectClass
        self.isEmbedded = isEmbedded
    }

    /// The property with the given name, or nil.
    public subscript(propertyName: String) -> Property? { properties.first { $0.name == propertyName } }

    public var description: String {
        let body = properties.map { $0.description.split(separator: "\n").map { "\t" + $0 }.joined(separator: "\n") }
        return "\(className) {\n" + body.joined(separator: "\n") + "\n}"
    }

    public static func == (lhs: ObjectSchema, rhs: ObjectSchema) -> Bool {
        lhs.className == rhs.className && lhs.properties == rhs.properties
    }
}

/// The schema of a Realm: every model class it holds.
public struct Schema: CustomStringConvertible, Equatable, @unchecked Sendable {
    public let objectSchema: [ObjectSchema]

    /// The schema of the class with the given name, or nil.
    public subscript(className: String) -> ObjectSchema? { objectSchema.first { $0.className == className } }

    public var description: String { "Schema {\n" + objectSchema.map(\.description).joined(separator: "\n") + "\n}" }
}
