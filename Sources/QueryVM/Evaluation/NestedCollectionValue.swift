// NestedCollectionValue: lists and dictionaries nested in mixed values (columnar.h, "Nested collections"), as the
// query engine builds and compares them.
//
// The framing here is the one place in Swift that writes the layout: the object layer encodes stored values with it,
// and query constants (`value == %@` with an `AnyRealmValue.list`) are encoded with it too, so a constant and a row
// are the same kind of bytes. Two nested collections are equal when they are of one kind and their elements (for a
// dictionary, its keys and their values) are equal as mixed values compare: numbers of every type by value, nested
// collections again by contents. They have no order.

import CColumnar

public enum NestedCollectionValue {
    /// The encoding of a list of elements (each an encoding, or nil for null).
    public static func list(_ elements: [[UInt8]?]) -> [UInt8] {
        var out: [UInt8] = [UInt8(COLUMNAR_MIXED_LIST)]
        appendCount(elements.count, to: &out)
        for element in elements { appendSized(element, to: &out) }
        return out
    }

    /// The encoding of a dictionary (values as encodings, or nil for null); keys go in ascending bytewise order.
    public static func dictionary(_ entries: [String: [UInt8]?]) -> [UInt8] {
        var out: [UInt8] = [UInt8(COLUMNAR_MIXED_DICTIONARY)]
        appendCount(entries.count, to: &out)
        for key in entries.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            appendCount(key.utf8.count, to: &out)
            out.append(contentsOf: key.utf8)
            appendSized(entries[key]!, to: &out)
        }
        return out
    }

    private static func appendSized(_ element: [UInt8]?, to out: inout [UInt8]) {
        appendCount(element?.count ?? 0, to: &out)
        out.append(contentsOf: element ?? [])
    }

    private static func appendCount(_ count: Int, to out: inout [UInt8]) {
        precondition(count <= Int(UInt32.max), "Columnar: a nested collection field of \(count) bytes or elements")
        withUnsafeBytes(of: UInt32(count).littleEndian) { out.append(contentsOf: $0) }
    }

    /// The mixed encoding of a query value (nil for null), for a constant inside a nested collection.
    static func encoding(of value: ScalarValue) throws -> [UInt8]? {
        switch value {
        case .null: return nil
        case .nestedCollection(let encoding): return encoding
        case .link(let table, let key):
            // A link in a mixed value names its table (EngineValue's link is a plain key).
            var link = columnar_value()
            link.type = COLUMNAR_TYPE_LINK
            link.as.typed_link.table = table
            link.as.typed_link.key = key
            return try encode(&link)
        default:
            return try EngineValue.withValue(value) { try encode(&$0) }
        }
    }

    private static func encode(_ value: inout columnar_value) throws -> [UInt8] {
        let isBytes = value.type == COLUMNAR_TYPE_STRING || value.type == COLUMNAR_TYPE_BINARY
        var out = [UInt8](repeating: 0, count: Int(COLUMNAR_MIXED_FIXED_BYTES) + (isBytes ? value.as.bytes.size : 0))
        var size = 0
        let rc = columnar_mixed_encode(&value, &out, out.count, &size)
        if rc != 0 { throw ColumnarError.fromLastError(rc) }
        return Array(out.prefix(size))
    }

    /// Whether two nested collections' encodings hold equal contents.
    static func equal(_ left: [UInt8], _ right: [UInt8], decimals: QueryDecimalSupport?) -> Bool {
        guard let a = entries(left), let b = entries(right), a.isList == b.isList, a.items.count == b.items.count
        else { return false }
        let equality = ScalarComparison(op: .equal, options: [], decimals: decimals)
        return zip(a.items, b.items).allSatisfy { x, y in x.key == y.key && equality.holds(x.value, y.value) }
    }

    /// A collection's elements, or a dictionary's keys (in order) and values, as query values.
    private static func entries(_ encoding: [UInt8]) -> (isList: Bool, items: [(key: [UInt8]?, value: ScalarValue)])? {
        encoding.withUnsafeBytes { bytes in
            var collection = columnar_value()
            var cursor = columnar_mixed_cursor()
            guard columnar_mixed_decode(bytes.baseAddress, bytes.count, &collection) == 0,
                  columnar_mixed_cursor_init(&collection, &cursor, nil) == 0 else { return nil }
            var key = columnar_value()
            var element = columnar_value()
            var items: [(key: [UInt8]?, value: ScalarValue)] = []
            while columnar_mixed_cursor_next(&cursor, &key, &element) {
                let keyBytes = cursor.dictionary
                    ? Array(UnsafeRawBufferPointer(start: key.as.bytes.data, count: key.as.bytes.size)) : nil
                items.append((keyBytes, ScalarValue(element, linkTarget: nil)))
            }
            return (!cursor.dictionary, items)
        }
    }
}
