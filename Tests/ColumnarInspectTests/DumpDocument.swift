// DumpDocument.swift — `dump --format json` output decoded with JSONDecoder, which parses every double exactly
// (JSONSerialization on Linux rounds some in the last digits, which would make exact comparisons fail).

import Foundation

/// Any JSON value.
enum JSONValue: Decodable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int64.self) { self = .int(value) }
        else if let value = try? container.decode(Double.self) { self = .double(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    /// A number as a double (integers too: "3.0" may decode as an integer).
    var double: Double? {
        switch self {
        case .double(let value): return value
        case .int(let value): return Double(value)
        default: return nil
        }
    }
}

struct DumpDocument: Decodable {
    struct Row: Decodable {
        let key: Int64
        let values: [String: JSONValue]
    }

    let table: String
    let columns: [String]
    let rows: [Row]
    let rowCount: Int
}
