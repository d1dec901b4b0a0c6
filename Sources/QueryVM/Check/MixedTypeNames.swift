// MixedTypeNames: the type names `@type` compares a mixed value with (`value.@type == 'string'`,
// `ANY values.@type IN {'int', 'double'}`), as Realm's query language spells them, and the type numbers they stand
// for (columnar_type raw values; 0 is null).

import CColumnar

enum MixedTypeNames {
    /// Every type a mixed value can have, null included.
    static let all: Set<Int64> = Set([0] + (1 ... 11).map(Int64.init)
                                     + [Int64(COLUMNAR_MIXED_LIST), Int64(COLUMNAR_MIXED_DICTIONARY)])

    private static let numbers: Set<Int64> = Set([COLUMNAR_TYPE_INT, COLUMNAR_TYPE_FLOAT, COLUMNAR_TYPE_DOUBLE,
                                                  COLUMNAR_TYPE_DECIMAL128].map { Int64($0.rawValue) })

    /// The type numbers a name (any letter case) stands for, or nil for an unknown name.
    static func types(named name: String) -> Set<Int64>? {
        func one(_ type: columnar_type) -> Set<Int64> { [Int64(type.rawValue)] }
        switch name.lowercased() {
        case "null": return [0]
        case "int": return one(COLUMNAR_TYPE_INT)
        case "bool": return one(COLUMNAR_TYPE_BOOL)
        case "float": return one(COLUMNAR_TYPE_FLOAT)
        case "double": return one(COLUMNAR_TYPE_DOUBLE)
        case "decimal", "decimal128": return one(COLUMNAR_TYPE_DECIMAL128)
        case "numeric": return numbers
        case "string": return one(COLUMNAR_TYPE_STRING)
        case "binary", "data": return one(COLUMNAR_TYPE_BINARY)
        case "date", "timestamp": return one(COLUMNAR_TYPE_TIMESTAMP)
        case "objectid": return one(COLUMNAR_TYPE_OBJECTID)
        case "uuid": return one(COLUMNAR_TYPE_UUID)
        case "object", "link": return one(COLUMNAR_TYPE_LINK)
        case "list", "array": return [Int64(COLUMNAR_MIXED_LIST)]
        case "dictionary": return [Int64(COLUMNAR_MIXED_DICTIONARY)]
        case "collection": return [Int64(COLUMNAR_MIXED_LIST), Int64(COLUMNAR_MIXED_DICTIONARY)]
        default: return nil
        }
    }

    /// The names, for messages.
    static let spellings = "'null', 'int', 'bool', 'float', 'double', 'decimal', 'numeric', 'string', 'binary', "
        + "'date', 'objectId', 'uuid', 'object', 'list', 'dictionary' and 'collection'"
}
