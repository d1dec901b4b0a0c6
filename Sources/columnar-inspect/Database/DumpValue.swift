// DumpValue.swift — a value read for `dump`, and its text for each output format.
//
// Formats: integers, links (the target's object key) and bools as themselves; floats and doubles in Swift's
// shortest round-trip form ("inf", "-inf" and "nan" as JSON strings); strings as text (invalid UTF-8 repaired);
// binary data, object ids and decimal128 bit patterns as lower-case hex; UUIDs in 8-4-4-4-12 form; timestamps as
// ISO 8601 in UTC with nanoseconds; lists and sets as JSON arrays and dictionaries as JSON objects. A mixed value
// is shown as the value it holds; an object in a mixed value (which names its table) as `table:key`, in JSON
// `{"table":T,"key":K}`; a list or dictionary nested in a mixed value as a JSON array or object of its elements.

import CColumnar

enum DumpValue {
    case null
    case int(Int64)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case string(String)
    case binary([UInt8])
    case timestamp(seconds: Int64, nanoseconds: Int32)
    case objectID([UInt8])
    case uuid([UInt8])
    case decimal128([UInt8])
    case link(Int64)
    /// An object in a mixed value: its table and key.
    case typedLink(table: UInt32, key: Int64)
    case list([DumpValue])
    case dictionary([(key: String, value: DumpValue)])

    /// The elements of a list or dictionary nested in a mixed value (decoded, so checked, by the engine).
    init(nestedCollection collection: columnar_value) {
        var cursor = columnar_mixed_cursor()
        guard columnar_mixed_cursor_init([collection], &cursor, nil) == 0 else {
            self = .null
            return
        }
        var key = columnar_value()
        var element = columnar_value()
        var elements: [DumpValue] = []
        var entries: [(key: String, value: DumpValue)] = []
        while columnar_mixed_cursor_next(&cursor, &key, &element) {
            // An element is null or a mixed value's encoding, read as a MIXED column's value is.
            let value = DumpValue(element)
            if cursor.dictionary {
                let keyBytes = UnsafeRawBufferPointer(start: key.as.bytes.data, count: key.as.bytes.size)
                entries.append((String(decoding: keyBytes, as: UTF8.self), value))
            } else {
                elements.append(value)
            }
        }
        self = cursor.dictionary ? .dictionary(entries) : .list(elements)
    }

    /// Copies a value the engine handed out.
    init(_ value: columnar_value) {
        if value.is_null {
            self = .null
            return
        }
        let payload = value.`as`
        func bytes<T>(_ tuple: T) -> [UInt8] { withUnsafeBytes(of: tuple) { Array($0) } }
        switch value.type {
        case COLUMNAR_TYPE_INT: self = .int(payload.i)
        case COLUMNAR_TYPE_BOOL: self = .bool(payload.b)
        case COLUMNAR_TYPE_FLOAT: self = .float(payload.f)
        case COLUMNAR_TYPE_DOUBLE: self = .double(payload.d)
        case COLUMNAR_TYPE_STRING, COLUMNAR_TYPE_BINARY:
            let data = Array(UnsafeRawBufferPointer(start: payload.bytes.data,
                                                    count: payload.bytes.data == nil ? 0 : payload.bytes.size))
            self = value.type == COLUMNAR_TYPE_STRING ? .string(String(decoding: data, as: UTF8.self)) : .binary(data)
        case COLUMNAR_TYPE_TIMESTAMP:
            self = .timestamp(seconds: payload.timestamp.seconds, nanoseconds: payload.timestamp.nanoseconds)
        case COLUMNAR_TYPE_OBJECTID: self = .objectID(bytes(payload.objectid))
        case COLUMNAR_TYPE_UUID: self = .uuid(bytes(payload.uuid))
        case COLUMNAR_TYPE_DECIMAL128: self = .decimal128(bytes(payload.decimal128))
        case COLUMNAR_TYPE_LINK: self = .link(payload.link)
        case COLUMNAR_TYPE_MIXED:
            // The engine checked the encoding when it read it; one that does not decode is shown as its bytes.
            var inner = columnar_value()
            if payload.bytes.size > 0, columnar_mixed_decode(payload.bytes.data, payload.bytes.size, &inner) == 0 {
                let tag = Int32(inner.type.rawValue)
                if tag == COLUMNAR_MIXED_LIST || tag == COLUMNAR_MIXED_DICTIONARY {
                    self = DumpValue(nestedCollection: inner)
                    return
                }
                self = inner.type == COLUMNAR_TYPE_LINK
                    ? .typedLink(table: inner.as.typed_link.table, key: inner.as.typed_link.key) : DumpValue(inner)
            } else {
                self = .binary(Array(UnsafeRawBufferPointer(start: payload.bytes.data, count: payload.bytes.size)))
            }
        default: self = .null
        }
    }

    /// The value as a JSON value (text).
    var json: String {
        switch self {
        case .null: return "null"
        case .int(let value), .link(let value): return String(value)
        case .typedLink(let table, let key): return "{\"table\":\(table),\"key\":\(key)}"
        case .bool(let value): return value ? "true" : "false"
        case .float(let value): return value.isFinite ? "\(value)" : DumpValue.quoted(text)
        case .double(let value): return value.isFinite ? "\(value)" : DumpValue.quoted(text)
        case .list(let elements): return "[" + elements.map(\.json).joined(separator: ",") + "]"
        case .dictionary(let entries):
            return "{" + entries.map { DumpValue.quoted($0.key) + ":" + $0.value.json }.joined(separator: ",") + "}"
        default: return DumpValue.quoted(text)
        }
    }

    /// The value as plain text (CSV cells, the aligned table): scalars bare, collections as JSON.
    var text: String {
        switch self {
        case .null: return "null"
        case .int(let value), .link(let value): return String(value)
        case .typedLink(let table, let key): return "\(table):\(key)"
        case .bool(let value): return value ? "true" : "false"
        case .float(let value): return "\(value)"
        case .double(let value): return "\(value)"
        case .string(let value): return value
        case .binary(let bytes), .objectID(let bytes), .decimal128(let bytes): return Format.hex(bytes)
        case .uuid(let bytes):
            let hex = Array(Format.hex(bytes))
            return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }.joined(separator: "-")
        case .timestamp(let seconds, let nanoseconds):
            return DumpValue.iso8601(seconds: seconds, nanoseconds: nanoseconds)
        case .list, .dictionary: return json
        }
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// "2024-05-06T07:08:09.123456789Z" for any Int64 seconds (proleptic Gregorian calendar; years past 9999 with a
    /// sign, as ISO 8601's expanded form), after Howard Hinnant's days-to-civil algorithm.
    static func iso8601(seconds: Int64, nanoseconds: Int32) -> String {
        let (days, secondOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
        let dayNumber = secondOfDay < 0 ? days - 1 : days
        let second = secondOfDay < 0 ? secondOfDay + 86_400 : secondOfDay
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPart = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPart + 2) / 5 + 1
        let month = monthPart < 10 ? monthPart + 3 : monthPart - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value.magnitude)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let yearText = year < 0 ? "-" + pad(year, 4) : year > 9999 ? "+" + pad(year, 4) : pad(year, 4)
        return "\(yearText)-\(pad(month, 2))-\(pad(day, 2))T\(pad(second / 3600, 2)):\(pad(second / 60 % 60, 2)):"
            + "\(pad(second % 60, 2)).\(pad(Int64(nanoseconds), 9))Z"
    }
}
