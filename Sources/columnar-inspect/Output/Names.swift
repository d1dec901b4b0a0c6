// Names.swift — the words the tool uses for the format's numbers: value types, collection kinds, encodings and
// node roles (columnar.h and format.h define the numbers).

import CColumnar

enum Names {
    static func type(_ type: columnar_type) -> String {
        switch type {
        case COLUMNAR_TYPE_INT: return "int"
        case COLUMNAR_TYPE_BOOL: return "bool"
        case COLUMNAR_TYPE_FLOAT: return "float"
        case COLUMNAR_TYPE_DOUBLE: return "double"
        case COLUMNAR_TYPE_STRING: return "string"
        case COLUMNAR_TYPE_BINARY: return "binary"
        case COLUMNAR_TYPE_TIMESTAMP: return "timestamp"
        case COLUMNAR_TYPE_OBJECTID: return "objectId"
        case COLUMNAR_TYPE_UUID: return "uuid"
        case COLUMNAR_TYPE_DECIMAL128: return "decimal128"
        case COLUMNAR_TYPE_LINK: return "link"
        case COLUMNAR_TYPE_MIXED: return "mixed"
        default: return "type#\(type.rawValue)"
        }
    }

    /// The type of a role-detail byte (a value type number), or "-" for 0.
    static func type(detail: UInt8) -> String {
        detail == 0 ? "-" : type(columnar_type(rawValue: UInt32(detail)))
    }

    static func collection(_ kind: columnar_collection_kind) -> String? {
        switch kind {
        case COLUMNAR_COLLECTION_NONE: return nil
        case COLUMNAR_COLLECTION_LIST: return "list"
        case COLUMNAR_COLLECTION_SET: return "set"
        case COLUMNAR_COLLECTION_DICT: return "dictionary"
        default: return "collection#\(kind.rawValue)"
        }
    }

    /// "int", "list<int>", "set<string>", "dictionary<double>".
    static func typeDescription(_ valueType: columnar_type, _ kind: columnar_collection_kind) -> String {
        guard let collection = collection(kind) else { return type(valueType) }
        return "\(collection)<\(type(valueType))>"
    }

    static func encoding(_ encoding: UInt32) -> String {
        switch encoding {
        case COLUMNAR_ENCODING_PACKED_INT.rawValue: return "packed int"
        case COLUMNAR_ENCODING_REFS.rawValue: return "refs"
        case COLUMNAR_ENCODING_FLOAT.rawValue: return "float"
        case COLUMNAR_ENCODING_DOUBLE.rawValue: return "double"
        case COLUMNAR_ENCODING_BYTES.rawValue: return "bytes"
        case COLUMNAR_ENCODING_FIXED.rawValue: return "fixed"
        case COLUMNAR_ENCODING_SHORT_STRINGS.rawValue: return "short strings"
        default: return "invalid"
        }
    }

    static func encoding(_ encoding: columnar_encoding) -> String { self.encoding(encoding.rawValue) }

    private static let roles = ["invalid", "TOP", "META", "SCHEMA", "TABLES", "FREE_POS", "FREE_SIZE", "FREE_VERSION",
                                "TABLE", "INDEXES", "INNER", "CLUSTER", "KEYS", "COLUMN", "VALUES", "BLOB", "NULLS",
                                "LIST_INNER", "DICT", "COMMIT_RECORD"]

    static func role(_ role: UInt8) -> String { Int(role) < roles.count ? roles[Int(role)] : "invalid" }

    /// "packed int/8" (bits), "fixed/16" (bytes), "short strings/8" (bytes), "refs".
    static func encodingWithWidth(_ encoding: columnar_encoding, width: UInt32) -> String {
        switch encoding {
        case COLUMNAR_ENCODING_PACKED_INT, COLUMNAR_ENCODING_FIXED, COLUMNAR_ENCODING_SHORT_STRINGS:
            return "\(self.encoding(encoding))/\(width)"
        default:
            return self.encoding(encoding)
        }
    }
}
