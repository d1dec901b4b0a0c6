// MixedValueTests — MIXED values (columnar.h, "Mixed values" and "Mixed kernels"): the encoding and its decoder,
// MIXED columns and collections through commit and reopen, the checks on what is set and what is read, and the
// three mixed kernels against a Swift reference written from the header's rules, on committed clusters and on the
// private clusters of a write transaction.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

/// A mixed value as the tests reason about it: null or a value of one of the eleven types, links with their table.
/// Floats compare by bit pattern (a round trip must be exact), so `==` is identity, not the kernels' equality.
private enum Mixed: Equatable, CustomStringConvertible {
    case null
    case int(Int64)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case string([UInt8])
    case binary([UInt8])
    case timestamp(seconds: Int64, nanoseconds: Int32)
    case objectID([UInt8])
    case uuid([UInt8])
    case decimal128([UInt8])
    case link(table: UInt32, key: Int64)

    var type: columnar_type? {
        switch self {
        case .null: return nil
        case .int: return COLUMNAR_TYPE_INT
        case .bool: return COLUMNAR_TYPE_BOOL
        case .float: return COLUMNAR_TYPE_FLOAT
        case .double: return COLUMNAR_TYPE_DOUBLE
        case .string: return COLUMNAR_TYPE_STRING
        case .binary: return COLUMNAR_TYPE_BINARY
        case .timestamp: return COLUMNAR_TYPE_TIMESTAMP
        case .objectID: return COLUMNAR_TYPE_OBJECTID
        case .uuid: return COLUMNAR_TYPE_UUID
        case .decimal128: return COLUMNAR_TYPE_DECIMAL128
        case .link: return COLUMNAR_TYPE_LINK
        }
    }

    /// The encoding the header describes, written out independently of the engine: tag, then little-endian payload.
    var encoding: [UInt8]? {
        func le<T: FixedWidthInteger>(_ x: T) -> [UInt8] { withUnsafeBytes(of: x.littleEndian) { Array($0) } }
        guard let type else { return nil }
        let tag = [UInt8(type.rawValue)]
        switch self {
        case .null: return nil
        case .int(let x): return tag + le(x)
        case .bool(let x): return tag + [x ? 1 : 0]
        case .float(let x): return tag + le(x.bitPattern)
        case .double(let x): return tag + le(x.bitPattern)
        case .string(let bytes), .binary(let bytes): return tag + bytes
        case .timestamp(let seconds, let nanoseconds): return tag + le(seconds) + le(nanoseconds)
        case .objectID(let bytes), .uuid(let bytes), .decimal128(let bytes): return tag + bytes
        case .link(let table, let key): return tag + le(table) + le(key)
        }
    }

    /// Lends the engine this value as a columnar_value of its own type (a LINK with `as.typed_link`).
    func withCValue<R>(_ body: (UnsafePointer<columnar_value>) throws -> R) rethrows -> R {
        var value = columnar_value()
        value.type = type ?? COLUMNAR_TYPE_INT
        value.is_null = type == nil
        switch self {
        case .null: break
        case .int(let x): value.`as`.i = x
        case .bool(let x): value.`as`.b = x
        case .float(let x): value.`as`.f = x
        case .double(let x): value.`as`.d = x
        case .string(let bytes), .binary(let bytes):
            return try withNonNullBytes(bytes) { pointer, count in
                value.`as`.bytes.data = pointer
                value.`as`.bytes.size = count
                return try body(&value)
            }
        case .timestamp(let seconds, let nanoseconds):
            value.`as`.timestamp.seconds = seconds
            value.`as`.timestamp.nanoseconds = nanoseconds
        case .objectID(let bytes): setTupleBytes(&value.`as`.objectid, bytes)
        case .uuid(let bytes): setTupleBytes(&value.`as`.uuid, bytes)
        case .decimal128(let bytes): setTupleBytes(&value.`as`.decimal128, bytes)
        case .link(let table, let key):
            value.`as`.typed_link.key = key
            value.`as`.typed_link.table = table
        }
        return try body(&value)
    }

    /// Copies a value columnar_mixed_decode produced.
    init(decoded value: columnar_value) {
        let payload = value.`as`
        switch value.type {
        case COLUMNAR_TYPE_INT: self = .int(payload.i)
        case COLUMNAR_TYPE_BOOL: self = .bool(payload.b)
        case COLUMNAR_TYPE_FLOAT: self = .float(payload.f)
        case COLUMNAR_TYPE_DOUBLE: self = .double(payload.d)
        case COLUMNAR_TYPE_STRING: self = .string(Array(rawBytes(payload.bytes.data, payload.bytes.size)))
        case COLUMNAR_TYPE_BINARY: self = .binary(Array(rawBytes(payload.bytes.data, payload.bytes.size)))
        case COLUMNAR_TYPE_TIMESTAMP:
            self = .timestamp(seconds: payload.timestamp.seconds, nanoseconds: payload.timestamp.nanoseconds)
        case COLUMNAR_TYPE_OBJECTID: self = .objectID(tupleBytes(payload.objectid))
        case COLUMNAR_TYPE_UUID: self = .uuid(tupleBytes(payload.uuid))
        case COLUMNAR_TYPE_DECIMAL128: self = .decimal128(tupleBytes(payload.decimal128))
        case COLUMNAR_TYPE_LINK: self = .link(table: payload.typed_link.table, key: payload.typed_link.key)
        default: self = .null
        }
    }

    static func == (lhs: Mixed, rhs: Mixed) -> Bool {
        switch (lhs, rhs) {
        case (.float(let a), .float(let b)): return a.bitPattern == b.bitPattern
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        default: return lhs.encoding == rhs.encoding && lhs.type == rhs.type
        }
    }

    var description: String {
        switch self {
        case .null: return "null"
        case .int(let x): return "int(\(x))"
        case .bool(let x): return "bool(\(x))"
        case .float(let x): return "float(\(x))"
        case .double(let x): return "double(\(x))"
        case .string(let bytes): return "string(\(String(decoding: bytes, as: UTF8.self).debugDescription))"
        case .binary(let bytes): return "binary(\(hex(bytes.prefix(24))))"
        case .timestamp(let seconds, let nanoseconds): return "timestamp(\(seconds)s \(nanoseconds)ns)"
        case .objectID(let bytes): return "objectID(\(hex(bytes)))"
        case .uuid(let bytes): return "uuid(\(hex(bytes)))"
        case .decimal128(let bytes): return "decimal128(\(hex(bytes)))"
        case .link(let table, let key): return "link(\(table):\(key))"
        }
    }
}

/// Lends the engine a MIXED columnar_value holding `encoding` (nil: null).
private func withMixedCValue<R>(_ encoding: [UInt8]?, _ body: (UnsafePointer<columnar_value>) throws -> R) rethrows
    -> R {
    var value = columnar_value()
    value.type = COLUMNAR_TYPE_MIXED
    guard let encoding else {
        value.is_null = true
        return try body(&value)
    }
    return try withNonNullBytes(encoding) { pointer, count in
        value.`as`.bytes.data = pointer
        value.`as`.bytes.size = count
        return try body(&value)
    }
}

/// The encoding a MIXED value handed out by the engine holds (nil for null), checked to be of type MIXED.
private func mixedEncoding(_ value: columnar_value) throws -> [UInt8]? {
    if value.is_null { return nil }
    guard value.type == COLUMNAR_TYPE_MIXED else { throw TestFailure("a mixed column gave a value of \(typeName(value.type))") }
    return Array(rawBytes(value.`as`.bytes.data, value.`as`.bytes.size))
}

private func decode(_ encoding: [UInt8]) -> (code: Int32, value: Mixed) {
    var value = columnar_value()
    let rc = withNonNullBytes(encoding) { pointer, count in columnar_mixed_decode(pointer, count, &value) }
    return (rc, rc == COLUMNAR_OK ? Mixed(decoded: value) : .null)
}

private func encode(_ mixed: Mixed, capacity: Int = 64) -> (code: Int32, bytes: [UInt8], size: Int) {
    var buffer = [UInt8](repeating: 0xEE, count: max(capacity, 1))
    var size = 0
    let rc = mixed.withCValue { value in columnar_mixed_encode(value, &buffer, capacity, &size) }
    return (rc, Array(buffer.prefix(min(size, capacity))), size)
}

final class MixedValueTests: DatabaseTestCase {
    override var databaseName: String { "mixed-values" }

    /// COLUMNAR_MAX_VALUE_BYTES (a macro Swift does not import).
    private static let maxValueBytes = 16 * 1024 * 1024

    // MARK: - Edge values

    private static let twoTo53 = Int64(1) << 53
    private static let edgeInts: [Int64] = [0, 1, -1, 42, twoTo53, twoTo53 + 1, -twoTo53 - 1, Int64.max, Int64.max - 1,
                                            Int64.min, Int64.min + 1, 1 << 62]
    private static let edgeDoubles: [Double] = [0, -0.0, 1, -1, 0.5, -2.5, 42, Double(twoTo53), Double(twoTo53) + 2,
                                                9_223_372_036_854_775_808.0, -9_223_372_036_854_775_808.0,
                                                9_223_372_036_854_774_784.0, 1e300, -1e300, .infinity, -.infinity,
                                                .nan, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
    private static let edgeFloats: [Float] = [0, -0.0, 1, -1, 0.5, 42, 16_777_217, 9.223372e18, -9.223372e18,
                                              .infinity, -.infinity, .nan, .greatestFiniteMagnitude]
    private static let ids: [[UInt8]] = [[UInt8](repeating: 0, count: 16), [UInt8](repeating: 0xFF, count: 16),
                                         (0..<16).map { UInt8($0) }, (0..<16).map { UInt8(200 - $0) }]

    private static var edgeValues: [Mixed] {
        var values: [Mixed] = edgeInts.map { .int($0) } + edgeDoubles.map { .double($0) } + edgeFloats.map { .float($0) }
        values += [.bool(false), .bool(true)]
        values += [[], Array("a".utf8), Array("Hello, wörld".utf8), [0, 0xFF, 0x80], [UInt8](repeating: 0x61, count: 300)]
            .flatMap { [Mixed.string($0), .binary($0)] }
        values += [.timestamp(seconds: 0, nanoseconds: 0), .timestamp(seconds: -1, nanoseconds: 999_999_999),
                   .timestamp(seconds: Int64.max, nanoseconds: 999_999_999), .timestamp(seconds: Int64.min, nanoseconds: 0)]
        values += ids.map { .objectID(Array($0.prefix(12))) } + ids.map { .uuid($0) } + ids.map { .decimal128($0) }
        values += [.link(table: 0, key: 0), .link(table: 3, key: 17), .link(table: UInt32.max, key: Int64.max)]
        return values
    }

    // MARK: - Encoding and decoding

    func testEveryTypeEncodesAsTheHeaderSaysAndDecodesBack() {
        for value in Self.edgeValues {
            let expected = value.encoding!
            let encoded = encode(value, capacity: 512)
            XCTAssertEqual(encoded.code, COLUMNAR_OK, "\(value)")
            XCTAssertEqual(encoded.size, expected.count, "\(value)")
            XCTAssertEqual(encoded.bytes, expected, "\(value)")
            if value.type != COLUMNAR_TYPE_STRING && value.type != COLUMNAR_TYPE_BINARY {
                XCTAssertLessThanOrEqual(expected.count, Int(COLUMNAR_MIXED_FIXED_BYTES), "\(value)")
            }
            let decoded = decode(expected)
            XCTAssertEqual(decoded.code, COLUMNAR_OK, "\(value)")
            XCTAssertEqual(decoded.value, value)
            // Too small a buffer: ETOOBIG, with the size the encoding needs.
            let short = encode(value, capacity: expected.count - 1)
            XCTAssertEqual(short.code, COLUMNAR_ETOOBIG, "\(value)")
            XCTAssertEqual(short.size, expected.count, "\(value)")
        }
        var text: [UInt8] = Array("abc".utf8)
        text.withUnsafeMutableBytes { buffer in
            var value = columnar_value()
            let rc = columnar_mixed_decode(buffer.baseAddress, 0, &value)
            XCTAssertEqual(rc, COLUMNAR_ECORRUPT, "an empty encoding")
        }
    }

    func testEncodingRefusesNullsMixedUnknownTypesNegativeKeysAndBadNanoseconds() {
        for bad: Mixed in [.null, .link(table: 1, key: -1), .timestamp(seconds: 0, nanoseconds: -1),
                           .timestamp(seconds: 0, nanoseconds: 1_000_000_000)] {
            XCTAssertEqual(encode(bad).code, COLUMNAR_EMISUSE, "\(bad)")
        }
        for rawType: UInt32 in [0, 12, 13, 200] {
            var value = columnar_value()
            value.type = columnar_type(rawValue: rawType)
            var buffer = [UInt8](repeating: 0, count: 32)
            var size = 0
            XCTAssertEqual(columnar_mixed_encode(&value, &buffer, buffer.count, &size), COLUMNAR_EMISUSE, "type \(rawType)")
        }
        // An encoding larger than a value may be.
        var value = columnar_value()
        value.type = COLUMNAR_TYPE_BINARY
        value.`as`.bytes.size = Self.maxValueBytes
        // The size alone decides: the engine refuses before it reads a byte.
        let placeholder = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        defer { placeholder.deallocate() }
        value.`as`.bytes.data = UnsafeRawPointer(placeholder)
        var size = 0
        var buffer = [UInt8](repeating: 0, count: 8)
        XCTAssertEqual(columnar_mixed_encode(&value, &buffer, buffer.count, &size), COLUMNAR_ETOOBIG)
        XCTAssertEqual(size, Self.maxValueBytes + 1)
    }

    func testDecodingRefusesEveryKindOfBadEncoding() {
        var bad: [(String, [UInt8])] = [("tag 0", [0]), ("tag 12 (MIXED)", [12, 1]), ("tag 13", [13]),
                                         ("tag 255", [255, 0, 0]), ("bool 2", [2, 2]), ("bool 0xFF", [2, 0xFF])]
        let fixedSizes: [(columnar_type, Int)] = [(COLUMNAR_TYPE_INT, 8), (COLUMNAR_TYPE_BOOL, 1), (COLUMNAR_TYPE_FLOAT, 4),
                                                  (COLUMNAR_TYPE_DOUBLE, 8), (COLUMNAR_TYPE_TIMESTAMP, 12),
                                                  (COLUMNAR_TYPE_OBJECTID, 12), (COLUMNAR_TYPE_UUID, 16),
                                                  (COLUMNAR_TYPE_DECIMAL128, 16), (COLUMNAR_TYPE_LINK, 12)]
        for (type, size) in fixedSizes {
            for wrong in [0, size - 1, size + 1, size * 2] where wrong != size {
                bad.append(("\(typeName(type)) with \(wrong) payload bytes", [UInt8(type.rawValue)] + [UInt8](repeating: 0, count: wrong)))
            }
        }
        func le<T: FixedWidthInteger>(_ x: T) -> [UInt8] { withUnsafeBytes(of: x.littleEndian) { Array($0) } }
        bad.append(("nanoseconds -1", [7] + le(Int64(0)) + le(Int32(-1))))
        bad.append(("nanoseconds 1e9", [7] + le(Int64(0)) + le(Int32(1_000_000_000))))
        bad.append(("link key -1", [11] + le(UInt32(0)) + le(Int64(-1))))
        bad.append(("link key INT64_MIN", [11] + le(UInt32(2)) + le(Int64.min)))
        for (what, bytes) in bad {
            XCTAssertEqual(decode(bytes).code, COLUMNAR_ECORRUPT, what)
        }
        // The edges that are valid.
        XCTAssertEqual(decode([7] + le(Int64(-5)) + le(Int32(999_999_999))).code, COLUMNAR_OK)
        XCTAssertEqual(decode([11] + le(UInt32(0)) + le(Int64(0))).code, COLUMNAR_OK)
        XCTAssertEqual(decode([5]).value, .string([]))
        XCTAssertEqual(decode([6]).value, .binary([]))
    }

    // MARK: - Nested collections

    private static func le32(_ x: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(x).littleEndian) { Array($0) } }

    /// A nested list's encoding as the header describes it (nil elements are null).
    private static func nestedList(_ elements: [[UInt8]?]) -> [UInt8] {
        [UInt8(COLUMNAR_MIXED_LIST)] + le32(elements.count) + elements.flatMap { le32($0?.count ?? 0) + ($0 ?? []) }
    }

    /// A nested dictionary's encoding as the header describes it, entries in the order given.
    private static func nestedDictionary(_ entries: [(String, [UInt8]?)]) -> [UInt8] {
        [UInt8(COLUMNAR_MIXED_DICTIONARY)] + le32(entries.count) + entries.flatMap { key, value in
            le32(key.utf8.count) + Array(key.utf8) + le32(value?.count ?? 0) + (value ?? [])
        }
    }

    /// The elements (and for a dictionary the keys) a cursor walks over in a decoded nested collection.
    private func walk(_ encoding: [UInt8]) throws -> (tag: Int32, keys: [String], elements: [[UInt8]?]) {
        try withNonNullBytes(encoding) { pointer, size in
            var value = columnar_value()
            try check(columnar_mixed_decode(pointer, size, &value), "columnar_mixed_decode")
            var cursor = columnar_mixed_cursor()
            var count: UInt32 = 0
            try check(columnar_mixed_cursor_init(&value, &cursor, &count), "columnar_mixed_cursor_init")
            var key = columnar_value()
            var element = columnar_value()
            var keys: [String] = []
            var elements: [[UInt8]?] = []
            while columnar_mixed_cursor_next(&cursor, &key, &element) {
                if value.type.rawValue == UInt32(COLUMNAR_MIXED_DICTIONARY) {
                    keys.append(String(decoding: rawBytes(key.`as`.bytes.data, key.`as`.bytes.size), as: UTF8.self))
                }
                elements.append(element.is_null ? nil : Array(rawBytes(element.`as`.bytes.data, element.`as`.bytes.size)))
            }
            XCTAssertEqual(elements.count, Int(count))
            return (Int32(value.type.rawValue), keys, elements)
        }
    }

    func testNestedCollectionsDecodeAndWalkAsTheHeaderSays() throws {
        let five = Mixed.int(5).encoding!
        let text = Mixed.string(Array("hi".utf8)).encoding!
        let inner = Self.nestedDictionary([("", five), ("a", nil), ("b", Self.nestedList([])), ("é", text)])
        let outer = Self.nestedList([five, nil, text, inner])
        let walked = try walk(outer)
        XCTAssertEqual(walked.tag, COLUMNAR_MIXED_LIST)
        XCTAssertEqual(walked.elements, [five, nil, text, inner])
        let walkedInner = try walk(inner)
        XCTAssertEqual(walkedInner.tag, COLUMNAR_MIXED_DICTIONARY)
        XCTAssertEqual(walkedInner.keys, ["", "a", "b", "é"])
        XCTAssertEqual(walkedInner.elements, [five, nil, Self.nestedList([]), text])
        // A cursor is for nested collections only.
        var cursor = columnar_mixed_cursor()
        XCTAssertEqual(Mixed.int(5).withCValue { columnar_mixed_cursor_init($0, &cursor, nil) }, COLUMNAR_EMISUSE)
        // Collections nest COLUMNAR_MIXED_MAX_DEPTH levels deep, and no deeper.
        var deep = Self.nestedList([])
        for _ in 1..<Int(COLUMNAR_MIXED_MAX_DEPTH) { deep = Self.nestedList([deep]) }
        XCTAssertEqual(decode(deep).code, COLUMNAR_OK)
        XCTAssertEqual(decode(Self.nestedList([deep])).code, COLUMNAR_ECORRUPT)
    }

    func testNestedCollectionsThatDoNotCheckAreRefusedWhereverTheyAreSetOrRead() throws {
        let five = Mixed.int(5).encoding!
        let list = Self.nestedList([five, nil])
        let bad: [(String, [UInt8])] = [
            ("a list without its count", [UInt8(COLUMNAR_MIXED_LIST), 1, 0]),
            ("a count larger than the elements", [UInt8(COLUMNAR_MIXED_LIST)] + Self.le32(3) + Array(list.dropFirst(5))),
            ("a count smaller than the elements", [UInt8(COLUMNAR_MIXED_LIST)] + Self.le32(1) + Array(list.dropFirst(5))),
            ("an element past the end", Array(list.dropLast())),
            ("a byte left over", list + [0]),
            ("an element that does not decode", Self.nestedList([[2, 7]])),
            ("a nested element that does not decode", Self.nestedList([Self.nestedDictionary([("k", [1, 0])])])),
            ("keys out of order", Self.nestedDictionary([("b", five), ("a", five)])),
            ("a key twice", Self.nestedDictionary([("a", five), ("a", five)])),
            ("a key past the end", [UInt8(COLUMNAR_MIXED_DICTIONARY)] + Self.le32(1) + Self.le32(9) + [97]),
            ("a count of 2^31 with one element", [UInt8(COLUMNAR_MIXED_LIST)] + Self.le32(1 << 31) + Self.le32(0)),
        ]
        for (what, bytes) in bad { XCTAssertEqual(decode(bytes).code, COLUMNAR_ECORRUPT, what) }
        let (table, column, key) = try db.write { txn -> (TableID, ColumnID, ObjectKey) in
            let t = try makeMixedTable(txn)
            let key = try txn.createObject(t.table)
            try setMixed(txn, t.table, key, t.single, list)
            for (what, bytes) in bad {
                try withMixedCValue(bytes) { value in
                    XCTAssertEqual(columnar_obj_set(txn.handle, t.table, key, t.single, value), COLUMNAR_ETYPE, what)
                    XCTAssertEqual(columnar_list_insert(txn.handle, t.table, key, t.list, 0, value), COLUMNAR_ETYPE, what)
                }
            }
            return (t.table, t.single, key)
        }
        try db.read { txn in
            XCTAssertEqual(try getMixed(txn, table, key, column), list)
            XCTAssertVerifies(txn)
        }
    }

    /// Damaged nested encodings never make the decoder read outside the bytes or loop: every mutation of valid
    /// trees (bit flips, changed sizes and counts, cut tails) either decodes, and then walks within its bytes, or is
    /// refused as corrupt.
    func testMutatedNestedEncodingsDecodeOrAreRefusedWithinTheirBytes() throws {
        var generator = makeSeededGenerator()
        func tree(_ depth: Int) -> [UInt8] {
            switch Int.random(in: 0..<6, using: &generator) {
            case 0 where depth < 4:
                return Self.nestedList((0..<Int.random(in: 0...3, using: &generator)).map { _ in
                    Bool.random(using: &generator) ? nil : tree(depth + 1)
                })
            case 1 where depth < 4:
                let keys = Set((0..<Int.random(in: 0...3, using: &generator)).map { _ in "k\(Int.random(in: 0..<9, using: &generator))" })
                return Self.nestedDictionary(keys.sorted().map { ($0, tree(depth + 1)) })
            case 2: return Mixed.string(Array("text".utf8)).encoding!
            case 3: return Mixed.double(2.5).encoding!
            default: return Mixed.int(Int64.random(in: -9...9, using: &generator)).encoding!
            }
        }
        var decoded = 0, refused = 0
        for _ in 0..<20_000 {
            var bytes = tree(0)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0:
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[position] ^= UInt8(1) << UInt8.random(in: 0...7, using: &generator)
            case 1:
                bytes.removeLast(Int.random(in: 0...min(8, bytes.count - 1), using: &generator))
            case 2 where bytes.count > 5:
                // A size or count field set to something large.
                let position = Int.random(in: 1..<bytes.count - 3, using: &generator)
                bytes.replaceSubrange(position..<position + 4, with: Self.le32(Int(UInt32.random(in: 0...UInt32.max, using: &generator))))
            default:
                bytes.insert(UInt8.random(in: 0...255, using: &generator), at: Int.random(in: 1...bytes.count, using: &generator))
            }
            let code = withNonNullBytes(bytes) { pointer, size -> Int32 in
                var value = columnar_value()
                let rc = columnar_mixed_decode(pointer, size, &value)
                let tag = Int32(value.type.rawValue)
                if rc == COLUMNAR_OK, tag == COLUMNAR_MIXED_LIST || tag == COLUMNAR_MIXED_DICTIONARY {
                    // Walk the whole tree; every element must lie inside the encoding.
                    let end = pointer + size
                    func walk(_ collection: inout columnar_value) {
                        var cursor = columnar_mixed_cursor()
                        guard columnar_mixed_cursor_init(&collection, &cursor, nil) == COLUMNAR_OK else { return }
                        var key = columnar_value(), element = columnar_value()
                        while columnar_mixed_cursor_next(&cursor, &key, &element) {
                            if element.is_null { continue }
                            let start = element.`as`.bytes.data!
                            XCTAssertTrue(start >= pointer && start + element.`as`.bytes.size <= end)
                            var inner = columnar_value()
                            XCTAssertEqual(columnar_mixed_decode(start, element.`as`.bytes.size, &inner), COLUMNAR_OK)
                            let innerTag = Int32(inner.type.rawValue)
                            if innerTag == COLUMNAR_MIXED_LIST || innerTag == COLUMNAR_MIXED_DICTIONARY { walk(&inner) }
                        }
                    }
                    walk(&value)
                }
                return rc
            }
            XCTAssertTrue(code == COLUMNAR_OK || code == COLUMNAR_ECORRUPT, "code \(code)")
            if code == COLUMNAR_OK { decoded += 1 } else { refused += 1 }
        }
        XCTAssertGreaterThan(decoded, 1_000)
        XCTAssertGreaterThan(refused, 1_000)
    }

    func testKernelsTakeNestedCollectionsAsTheirOwnTypes() throws {
        let rows: [[UInt8]?] = [Self.nestedList([Mixed.int(5).encoding!]), Self.nestedDictionary([("a", nil)]),
                                Mixed.int(5).encoding!, nil]
        let (table, column) = try db.write { txn -> (TableID, ColumnID) in
            let t = try makeMixedTable(txn)
            for encoding in rows { try setMixed(txn, t.table, try txn.createObject(t.table), t.single, encoding) }
            return (t.table, t.single)
        }
        try db.read { txn in
            try txn.forEachScannedCluster(table) { scan, _, _ in
                var view = columnar_column_view()
                try check(columnar_scan_column(scan, column, &view), "columnar_scan_column")
                var mask = [UInt8](repeating: 0xEE, count: rows.count)
                // A collection equals no constant and has no order, so only != selects it.
                let expected: [columnar_compare_op: [UInt8]] = [
                    COLUMNAR_COMPARE_EQ: [0, 0, 1, 0], COLUMNAR_COMPARE_NE: [1, 1, 0, 1],
                    COLUMNAR_COMPARE_LT: [0, 0, 0, 0], COLUMNAR_COMPARE_GE: [0, 0, 1, 0],
                ]
                for (op, wanted) in expected {
                    try check(Mixed.int(5).withCValue { columnar_kernel_compare_mixed(&view, op, $0, &mask) }, "compare")
                    XCTAssertEqual(mask, wanted, "operator \(op)")
                }
                try check(columnar_kernel_mixed_type(&view, UInt32(1) << UInt32(COLUMNAR_MIXED_LIST), &mask), "@type")
                XCTAssertEqual(mask, [1, 0, 0, 0])
                try check(columnar_kernel_mixed_type(&view, UInt32(1) << UInt32(COLUMNAR_MIXED_DICTIONARY) | 1, &mask), "@type")
                XCTAssertEqual(mask, [0, 1, 0, 1])
            }
        }
    }

    // MARK: - Columns and collections

    private struct MixedTable {
        let table: TableID
        let single: ColumnID
        let list: ColumnID
        let set: ColumnID
        let dict: ColumnID
    }

    private func makeMixedTable(_ txn: Transaction) throws -> MixedTable {
        let table = try txn.addTable("things")
        return MixedTable(table: table,
                          single: try txn.addColumn(table, "any", COLUMNAR_TYPE_MIXED, nullable: true),
                          list: try txn.addColumn(table, "list", COLUMNAR_TYPE_MIXED, collection: COLUMNAR_COLLECTION_LIST,
                                                  nullable: true),
                          set: try txn.addColumn(table, "set", COLUMNAR_TYPE_MIXED, collection: COLUMNAR_COLLECTION_SET,
                                                 nullable: true),
                          dict: try txn.addColumn(table, "dict", COLUMNAR_TYPE_MIXED, collection: COLUMNAR_COLLECTION_DICT,
                                                  nullable: true))
    }

    private func getMixed(_ txn: Transaction, _ table: TableID, _ key: ObjectKey, _ column: ColumnID) throws -> [UInt8]? {
        var value = columnar_value()
        try check(columnar_obj_get(txn.handle, table, key, column, &value), "columnar_obj_get")
        return try mixedEncoding(value)
    }

    private func setMixed(_ txn: Transaction, _ table: TableID, _ key: ObjectKey, _ column: ColumnID,
                          _ encoding: [UInt8]?) throws {
        try withMixedCValue(encoding) { try check(columnar_obj_set(txn.handle, table, key, column, $0), "columnar_obj_set") }
    }

    private func elements(_ txn: Transaction, _ t: MixedTable, _ key: ObjectKey, _ column: ColumnID) throws -> [[UInt8]?] {
        let count = try txn.size(t.table, key, column)
        return try (0..<count).map { index in
            var value = columnar_value()
            try check(columnar_coll_get(txn.handle, t.table, key, column, index, &value), "columnar_coll_get")
            return try mixedEncoding(value)
        }
    }

    func testMixedColumnsAndCollectionsRoundTripThroughCommitAndReopen() throws {
        let values = Self.edgeValues.map { $0.encoding } + [nil]
        var keys: [ObjectKey] = []
        let t = try db.write { txn -> MixedTable in
            let t = try makeMixedTable(txn)
            for (index, encoding) in values.enumerated() {
                let key = try txn.createObject(t.table)
                keys.append(key)
                try setMixed(txn, t.table, key, t.single, encoding)
                // Every object's collections hold all values, rotated.
                let rotated = Array(values[index...] + values[..<index])
                for (position, element) in rotated.enumerated() {
                    try withMixedCValue(element) { value in
                        try check(columnar_list_insert(txn.handle, t.table, key, t.list, UInt64(position), value))
                        var inserted = false
                        try check(columnar_set_insert(txn.handle, t.table, key, t.set, value, &inserted))
                        XCTAssertTrue(inserted)
                        try check(columnar_set_insert(txn.handle, t.table, key, t.set, value, &inserted))
                        XCTAssertFalse(inserted, "a second insert of \(String(describing: element)) is a duplicate")
                        let dictKey = Array("k\(position)".utf8)
                        try withNonNullBytes(dictKey) { pointer, size in
                            try check(columnar_dict_set(txn.handle, t.table, key, t.dict, pointer, size, value))
                        }
                    }
                }
            }
            return t
        }
        try reopen()
        // A SET orders its elements by their encodings' bytes, null first, as a set of BINARY values does.
        let setOrder: [[UInt8]?] = [nil] + values.compactMap { $0 }.sorted { $0.lexicographicallyPrecedes($1) }
        try db.read { txn in
            XCTAssertVerifies(txn)
            for (index, key) in keys.enumerated() {
                XCTAssertEqual(try getMixed(txn, t.table, key, t.single), values[index])
                let rotated = Array(values[index...] + values[..<index])
                XCTAssertEqual(try elements(txn, t, key, t.list), rotated)
                XCTAssertEqual(try elements(txn, t, key, t.set), setOrder)
                let dictValues = try elements(txn, t, key, t.dict)
                for position in rotated.indices {
                    let dictKey = Array("k\(position)".utf8)
                    var value = columnar_value()
                    var found = false
                    try withNonNullBytes(dictKey) { pointer, size in
                        try check(columnar_dict_get(txn.handle, t.table, key, t.dict, pointer, size, &value, &found))
                    }
                    XCTAssertTrue(found)
                    XCTAssertEqual(try mixedEncoding(value), rotated[position])
                }
                XCTAssertEqual(dictValues.count, rotated.count)
                for element in values {
                    try withMixedCValue(element) { value in
                        var contains = false
                        try check(columnar_coll_contains(txn.handle, t.table, key, t.set, value, &contains))
                        XCTAssertTrue(contains)
                    }
                }
            }
            // Each mixed value decodes to what was encoded; the keys are found by value.
            for (index, encoding) in values.enumerated() {
                if let encoding { XCTAssertEqual(decode(encoding).value.encoding, encoding) }
                let found = try withMixedCValue(encoding) { value -> ObjectKey in
                    var key: ObjectKey = -1
                    try check(columnar_obj_find_first(txn.handle, t.table, t.single, value, &key))
                    return key
                }
                XCTAssertEqual(found, keys[index], "find \(String(describing: encoding))")
            }
        }
        // A copy (written through the API) holds the same values.
        let copyPath = directory.file("copy.columnar")
        try db.read { txn in try check(columnar_write_copy(txn.handle, copyPath, nil)) }
        let copy = try TestDatabase(path: copyPath, flags: [])
        defer { copy.close() }
        try copy.read { txn in
            XCTAssertVerifies(txn)
            let table = try txn.findTable("things")
            for (index, key) in keys.enumerated() {
                XCTAssertEqual(try getMixed(txn, table, key, t.single), values[index])
            }
        }
    }

    func testInvalidEncodingsAreRefusedWithETypeAndChangeNothing() throws {
        let good = Mixed.string(Array("kept".utf8)).encoding!
        let (t, key) = try db.write { txn -> (MixedTable, ObjectKey) in
            let t = try makeMixedTable(txn)
            let key = try txn.createObject(t.table)
            try setMixed(txn, t.table, key, t.single, good)
            try withMixedCValue(good) { value in
                try check(columnar_list_insert(txn.handle, t.table, key, t.list, 0, value))
                try check(columnar_set_insert(txn.handle, t.table, key, t.set, value, nil))
                try withNonNullBytes(Array("k".utf8)) { pointer, size in
                    try check(columnar_dict_set(txn.handle, t.table, key, t.dict, pointer, size, value))
                }
            }
            return (t, key)
        }
        let badEncodings: [[UInt8]] = [[], [0], [13, 1], [1, 0, 0], [2, 7], [7] + [UInt8](repeating: 0xFF, count: 12),
                                       [11, 0, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 8)]
        try db.write { txn in
            for bad in badEncodings {
                try withMixedCValue(bad) { value in
                    let what = "encoding \(hex(bad))"
                    XCTAssertEqual(columnar_obj_set(txn.handle, t.table, key, t.single, value), COLUMNAR_ETYPE, what)
                    XCTAssertEqual(columnar_list_insert(txn.handle, t.table, key, t.list, 1, value), COLUMNAR_ETYPE, what)
                    XCTAssertEqual(columnar_list_set(txn.handle, t.table, key, t.list, 0, value), COLUMNAR_ETYPE, what)
                    XCTAssertEqual(columnar_set_insert(txn.handle, t.table, key, t.set, value, nil), COLUMNAR_ETYPE, what)
                    XCTAssertEqual(withNonNullBytes(Array("k".utf8)) { pointer, size in
                        columnar_dict_set(txn.handle, t.table, key, t.dict, pointer, size, value)
                    }, COLUMNAR_ETYPE, what)
                    var contains = false
                    XCTAssertEqual(columnar_coll_contains(txn.handle, t.table, key, t.set, value, &contains),
                                   COLUMNAR_ETYPE, what)
                    var found: ObjectKey = 0
                    XCTAssertEqual(columnar_obj_find_first(txn.handle, t.table, t.single, value, &found),
                                   COLUMNAR_ETYPE, what)
                }
            }
            // A value of the type inside rather than its encoding is the wrong type too.
            XCTAssertEngineError(COLUMNAR_ETYPE, try txn.set(t.table, key, t.single, .int(3)))
            XCTAssertEngineError(COLUMNAR_ETYPE, try txn.set(t.table, key, t.single, .binary(Data(good))))
            let message = columnar_last_error().pointee.message.map { String(cString: $0) } ?? ""
            XCTAssertTrue(message.contains("things.any"), message)
            // Nothing changed, and the transaction is still usable.
            XCTAssertEqual(try getMixed(txn, t.table, key, t.single), good)
            XCTAssertEqual(try elements(txn, t, key, t.list), [good])
            XCTAssertEqual(try elements(txn, t, key, t.set), [good])
            XCTAssertEqual(try elements(txn, t, key, t.dict), [good])
            try setMixed(txn, t.table, key, t.single, nil)
        }
        try db.read { txn in
            XCTAssertNil(try getMixed(txn, t.table, key, t.single))
            XCTAssertVerifies(txn)
        }
    }

    func testMixedColumnsMustBeNullableAndCannotBeIndexedOrPrimaryKeys() throws {
        try db.write { txn in
            let table = try txn.addTable("t")
            for collection in [COLUMNAR_COLLECTION_NONE, COLUMNAR_COLLECTION_LIST, COLUMNAR_COLLECTION_SET,
                               COLUMNAR_COLLECTION_DICT] {
                do {
                    _ = try txn.addColumn(table, "strict\(collection.rawValue)", COLUMNAR_TYPE_MIXED, collection: collection)
                    XCTFail("a non-nullable mixed column was accepted")
                } catch let error as EngineError {
                    XCTAssertEqual(error.code, COLUMNAR_EMISUSE)
                    XCTAssertTrue(error.message.contains("mixed") && error.message.contains("nullable"), error.message)
                }
            }
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.addColumn(table, "indexed", COLUMNAR_TYPE_MIXED, nullable: true,
                                                                     indexed: true))
            let any = try txn.addColumn(table, "any", COLUMNAR_TYPE_MIXED, nullable: true)
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.setIndexed(table, any, true))
            XCTAssertEngineError(COLUMNAR_EMISUSE, try txn.setPrimaryKey(table, column: any))
            let info = try txn.columnInfo(table, any)
            XCTAssertEqual(info.type, COLUMNAR_TYPE_MIXED)
            XCTAssertTrue(info.nullable)
            XCTAssertFalse(info.indexed)
            // Objects created before and after the column hold null.
            let key = try txn.createObject(table)
            XCTAssertNil(try getMixed(txn, table, key, any))
        }
    }

    // MARK: - Damage

    /// A file whose schema reads type 12 is opened; one whose column has type 13, or a MIXED column without the
    /// nullable flag or with an index, is refused when it is opened (the schema is checked when it is read).
    func testSchemasWithMixedColumnsAreCheckedWhenTheFileIsRead() throws {
        let edits: [(String, (SchemaLayout.Column, String) throws -> Void)] = [
            ("type 13", { column, path in try FileSurgery.write(path, at: column.typeOffset, [13]) }),
            ("not nullable", { column, path in
                let flags = try FileSurgery.read(path, at: column.flagsOffset, count: 1)[0]
                try FileSurgery.write(path, at: column.flagsOffset, [flags & ~1])
            }),
            ("indexed", { column, path in
                let flags = try FileSurgery.read(path, at: column.flagsOffset, count: 1)[0]
                try FileSurgery.write(path, at: column.flagsOffset, [flags | 2])
            }),
            ("unchanged", { _, _ in }),
        ]
        for (index, (what, edit)) in edits.enumerated() {
            let filePath = directory.file("schema-\(index).columnar")
            let database = try TestDatabase(path: filePath, durability: COLUMNAR_DURABILITY_UNSAFE)
            try database.write { txn in
                let table = try txn.addTable("t")
                let column = try txn.addColumn(table, "any", COLUMNAR_TYPE_MIXED, collection: COLUMNAR_COLLECTION_LIST,
                                               nullable: true)
                let key = try txn.createObject(table)
                try withMixedCValue(Mixed.bool(true).encoding) { value in
                    try check(columnar_list_insert(txn.handle, table, key, column, 0, value))
                }
            }
            // Commit once more after a sync, so that the schema node is not in the latest commit record.
            try database.sync()
            try database.write { _ in }
            database.close()
            let layout = try SchemaLayout.read(filePath)
            let column = try XCTUnwrap(layout.tables.first?.columns.first { $0.name == "any" })
            try edit(column, filePath)
            try FileSurgery.fixChecksum(filePath, ref: layout.ref)
            do {
                let reopened = try TestDatabase(path: filePath, flags: [])
                defer { reopened.close() }
                XCTAssertEqual(what, "unchanged", "a schema with \(what) was accepted")
                try reopened.read { txn in
                    XCTAssertEqual(try txn.columnInfo(0, 0).type, COLUMNAR_TYPE_MIXED)
                    XCTAssertVerifies(txn)
                }
            } catch let error as EngineError {
                XCTAssertNotEqual(what, "unchanged", "\(error)")
                XCTAssertEqual(error.code, COLUMNAR_ECORRUPT, "\(what): \(error)")
                XCTAssertTrue(error.message.contains("schema"), "\(what): \(error)")
            }
        }
    }

    func testVerifyReadsAndKernelsReportAStoredValueThatDoesNotDecode() throws {
        let (table, column) = try db.write { txn -> (TableID, ColumnID) in
            let table = try txn.addTable("damaged")
            let column = try txn.addColumn(table, "any", COLUMNAR_TYPE_MIXED, nullable: true)
            for index in 0..<10 {
                try setMixed(txn, table, try txn.createObject(table), column, Mixed.int(Int64(index)).encoding)
            }
            return (table, column)
        }
        // Commit once more so that the leaf is not in the latest commit record (damage there reads as a torn write).
        try db.sync()
        try db.write { _ in }
        db.close()
        let structure = try FileStructure.read(path)
        let values = try XCTUnwrap(structure.nodes(table: table, column: column, role: FileSurgery.roleValues).first)
        XCTAssertEqual(values.encoding, COLUMNAR_ENCODING_SHORT_STRINGS, "9-byte encodings take the short form")
        XCTAssertFalse(structure.isRecorded(values))
        // Row 3's tag byte (the first byte of its slot) becomes 13, a type that does not exist.
        try FileSurgery.write(path, at: values.ref + 16 + 3 * UInt64(values.width), [13])
        try FileSurgery.fixChecksum(path, ref: values.ref)
        try reopen()
        try db.read { txn in
            let report = txn.verify()
            XCTAssertEqual(report.code, COLUMNAR_ECORRUPT, "\(report)")
            XCTAssertTrue(report.findings.contains { $0.what.contains("mixed value 3") && $0.what.contains("does not decode") },
                          "\(report)")
            XCTAssertEngineError(COLUMNAR_ECORRUPT, try getMixed(txn, table, 3, column))
            XCTAssertEqual(try getMixed(txn, table, 2, column), Mixed.int(2).encoding, "other rows still read")
            var scan: OpaquePointer?
            try check(columnar_scan_open(txn.handle, table, &scan))
            defer { columnar_scan_close(scan) }
            var cluster = columnar_cluster()
            try check(columnar_scan_next(scan, &cluster))
            var view = columnar_column_view()
            try check(columnar_scan_column(scan, column, &view))
            var mask = [UInt8](repeating: 0, count: Int(view.count))
            XCTAssertEqual(Mixed.int(1).withCValue { columnar_kernel_compare_mixed(&view, COLUMNAR_COMPARE_EQ, $0, &mask) },
                           COLUMNAR_ECORRUPT)
            XCTAssertEqual(columnar_kernel_mixed_type(&view, 0xFFFF, &mask), COLUMNAR_ECORRUPT)
            XCTAssertEqual(columnar_kernel_match_mixed_string(&view, COLUMNAR_STRING_EQ, nil, 0, false, 0, &mask),
                           COLUMNAR_ECORRUPT)
        }
    }

    // MARK: - Kernels: the Swift reference

    private enum Relation { case less, equal, greater, equalUnordered, unequalUnordered, undecided }

    private static func isNumber(_ value: Mixed) -> Bool {
        switch value {
        case .int, .float, .double, .decimal128: return true
        default: return false
        }
    }

    private static func bytesOf(_ value: Mixed) -> [UInt8]? {
        switch value {
        case .string(let bytes), .binary(let bytes): return bytes
        default: return nil
        }
    }

    /// Two numbers (INT, FLOAT, DOUBLE), compared exactly.
    private static func numericRelation(_ a: Mixed, _ b: Mixed) -> Relation {
        #if arch(x86_64)
        // Every int64, float and double is exactly a Float80 (64-bit significand), so comparing Float80s is exact.
        func exact(_ value: Mixed) -> Float80 {
            switch value {
            case .int(let x): return Float80(x)
            case .float(let x): return Float80(x)
            case .double(let x): return Float80(x)
            default: preconditionFailure("not a number: \(value)")
            }
        }
        let x = exact(a), y = exact(b)
        if x.isNaN || y.isNaN { return .unequalUnordered }
        return order(x, y)
        #else
        // Without Float80: ints with ints; a double against an int through its integral part and fraction.
        func real(_ value: Mixed) -> Double? {
            switch value {
            case .float(let x): return Double(x)
            case .double(let x): return x
            default: return nil
            }
        }
        switch (a, b) {
        case (.int(let x), .int(let y)): return order(x, y)
        case (.int(let x), _):
            let d = real(b)!
            if d.isNaN { return .unequalUnordered }
            if d >= 0x1p63 { return .less }
            if d < -0x1p63 { return .greater }
            let whole = d.rounded(.towardZero)
            return Int64(whole) != x ? order(x, Int64(whole)) : order(0, d - whole)
        case (_, .int):
            switch numericRelation(b, a) {
            case .less: return .greater
            case .greater: return .less
            case let other: return other
            }
        default:
            let x = real(a)!, y = real(b)!
            return x.isNaN || y.isNaN ? .unequalUnordered : order(x, y)
        }
        #endif
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> Relation { a < b ? .less : a == b ? .equal : .greater }

    private static func order(_ a: [UInt8], _ b: [UInt8]) -> Relation {
        a == b ? .equal : a.lexicographicallyPrecedes(b) ? .less : .greater
    }

    /// How the non-null row value relates to the non-null constant, by the header's rules.
    private static func relation(_ row: Mixed, _ constant: Mixed) -> Relation {
        if isNumber(row) && isNumber(constant) {
            if case .decimal128 = row { return .undecided }
            if case .decimal128 = constant { return .undecided }
            return numericRelation(row, constant)
        }
        if isNumber(row) || isNumber(constant) { return .unequalUnordered }
        if let a = bytesOf(row), let b = bytesOf(constant) { return order(a, b) }
        switch (row, constant) {
        case (.bool(let a), .bool(let b)): return order(a ? 1 : 0, b ? 1 : 0)
        case (.timestamp(let s1, let n1), .timestamp(let s2, let n2)): return s1 != s2 ? order(s1, s2) : order(n1, n2)
        case (.objectID(let a), .objectID(let b)), (.uuid(let a), .uuid(let b)): return order(a, b)
        case (.link(let t1, let k1), .link(let t2, let k2)): return t1 == t2 && k1 == k2 ? .equalUnordered : .unequalUnordered
        default: return .unequalUnordered
        }
    }

    private static func expectedCompare(_ op: columnar_compare_op, row: Mixed, constant: Mixed) -> UInt8 {
        // Links against null or a link are the caller's (a link to a deleted object is null).
        if case .link = row {
            if constant == .null { return 2 }
            if case .link = constant { return 2 }
        }
        if row == .null || constant == .null {
            let bothNull = row == .null && constant == .null
            switch op {
            case COLUMNAR_COMPARE_EQ: return bothNull ? 1 : 0
            case COLUMNAR_COMPARE_NE: return bothNull ? 0 : 1
            default: return 0
            }
        }
        let r = relation(row, constant)
        switch (op, r) {
        case (_, .undecided): return 2
        case (COLUMNAR_COMPARE_EQ, _): return r == .equal || r == .equalUnordered ? 1 : 0
        case (COLUMNAR_COMPARE_NE, _): return r == .equal || r == .equalUnordered ? 0 : 1
        case (COLUMNAR_COMPARE_LT, _): return r == .less ? 1 : 0
        case (COLUMNAR_COMPARE_LE, _): return r == .less || r == .equal ? 1 : 0
        case (COLUMNAR_COMPARE_GT, _): return r == .greater ? 1 : 0
        case (COLUMNAR_COMPARE_GE, _): return r == .greater || r == .equal ? 1 : 0
        default: return 0
        }
    }

    private static func expectedType(_ row: Mixed, mask: UInt32) -> UInt8 {
        if case .link = row, (mask & 1) != (mask >> COLUMNAR_TYPE_LINK.rawValue) & 1 { return 2 }
        let bit = row.type.map { $0.rawValue } ?? 0
        return UInt8((mask >> bit) & 1)
    }

    private static func fold(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte | 0x20 : byte }

    /// Bytes of the character starting with `lead`, as the string kernel counts characters (a stray byte is one).
    private static func characterBytes(_ lead: UInt8) -> Int {
        switch lead {
        case 0xC0...0xDF: return 2
        case 0xE0...0xEF: return 3
        case 0xF0...0xF7: return 4
        default: return 1
        }
    }

    /// LIKE by plain recursion (the kernel uses a greedy loop with one backtracking point).
    private static func like(_ text: ArraySlice<UInt8>, _ pattern: ArraySlice<UInt8>) -> Bool {
        guard let first = pattern.first else { return text.isEmpty }
        let rest = pattern.dropFirst()
        if first == UInt8(ascii: "*") {
            var at = text.startIndex
            while true {
                if like(text[at...], rest) { return true }
                if at == text.endIndex { return false }
                at += min(characterBytes(text[at]), text.endIndex - at)
            }
        }
        guard let lead = text.first else { return false }
        if first == UInt8(ascii: "?") { return like(text.dropFirst(min(characterBytes(lead), text.count)), rest) }
        return lead == first && like(text.dropFirst(), rest)
    }

    private static func expectedMatch(_ op: columnar_string_op, row: Mixed, needle: [UInt8]?, foldCase: Bool) -> UInt8 {
        let isEQ = op == COLUMNAR_STRING_EQ, isNE = op == COLUMNAR_STRING_NE
        if row == .null || needle == nil {
            let bothNull = row == .null && needle == nil
            return isEQ ? (bothNull ? 1 : 0) : isNE ? (bothNull ? 0 : 1) : 0
        }
        guard let bytes = bytesOf(row), let needle else { return isNE ? 1 : 0 }
        if foldCase && (!needle.allSatisfy { $0 < 0x80 } || !bytes.allSatisfy { $0 < 0x80 }) { return 2 }
        let a = foldCase ? bytes.map(fold) : bytes, b = foldCase ? needle.map(fold) : needle
        let result: Bool
        switch op {
        case COLUMNAR_STRING_EQ: result = a == b
        case COLUMNAR_STRING_NE: result = a != b
        case COLUMNAR_STRING_BEGINS_WITH: result = a.starts(with: b)
        case COLUMNAR_STRING_ENDS_WITH: result = a.reversed().starts(with: b.reversed())
        case COLUMNAR_STRING_CONTAINS:
            result = b.isEmpty || (a.count >= b.count && (0...(a.count - b.count)).contains { Array(a[$0..<($0 + b.count)]) == b })
        case COLUMNAR_STRING_LIKE: result = like(a[...], b[...])
        case COLUMNAR_STRING_LT: result = order(a, b) == .less
        case COLUMNAR_STRING_LE: result = order(a, b) != .greater
        case COLUMNAR_STRING_GT: result = order(a, b) == .greater
        case COLUMNAR_STRING_GE: result = order(a, b) != .less
        default: result = false
        }
        return result ? 1 : 0
    }

    // MARK: - Kernels: random data

    /// Values drawn from small pools shared across types, so that equal numbers of different types, equal strings
    /// and binary values, and equal links turn up often.
    private struct Pools {
        let ints: [Int64]
        let doubles: [Double]
        let texts: [[UInt8]]
        let ids: [[UInt8]]

        init(generator: inout SeededGenerator) {
            var ints = MixedValueTests.edgeInts + (0..<12).map { _ in Int64.random(in: -1000...1000, using: &generator) }
            ints += (0..<4).map { _ in Int64.random(in: .min ... .max, using: &generator) }
            self.ints = ints
            var doubles = MixedValueTests.edgeDoubles + ints.prefix(12).map { Double($0) }
            doubles += (0..<6).map { _ in Double(Int.random(in: -2000...2000, using: &generator)) / 4 }
            self.doubles = doubles
            var texts: [[UInt8]] = ["", "a", "A", "ab", "abc", "ABC", "b", "Hello", "hello world", "ölig", "Ölig",
                                    "x?y*z", "straße", "\u{212A}elvin", String(repeating: "long text ", count: 5)]
                .map { Array($0.utf8) }
            texts.append([0xFF, 0x00, 0x41])
            texts.append([0xC3])
            texts += (0..<6).map { _ in
                (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0x41...0x7A, using: &generator) }
            }
            self.texts = texts
            ids = MixedValueTests.ids + (0..<3).map { _ in (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        }

        func random(_ generator: inout SeededGenerator, nullWeight: Int = 1) -> Mixed {
            switch Int.random(in: 0..<(12 + nullWeight), using: &generator) {
            case 0: return .int(ints.randomElement(using: &generator)!)
            case 1: return .bool(Bool.random(using: &generator))
            case 2:
                let source = doubles.randomElement(using: &generator)!
                return .float(Bool.random(using: &generator) ? Float(source) : MixedValueTests.edgeFloats.randomElement(using: &generator)!)
            case 3, 4: return .double(doubles.randomElement(using: &generator)!)
            case 5: return .string(texts.randomElement(using: &generator)!)
            case 6: return .binary(texts.randomElement(using: &generator)!)
            case 7:
                return .timestamp(seconds: Int64.random(in: -2...2, using: &generator),
                                  nanoseconds: [0, 1, 999_999_999].randomElement(using: &generator)!)
            case 8: return .objectID(Array(ids.randomElement(using: &generator)!.prefix(12)))
            case 9: return .uuid(ids.randomElement(using: &generator)!)
            case 10: return .decimal128(ids.randomElement(using: &generator)!)
            case 11: return .link(table: UInt32.random(in: 0...1, using: &generator), key: Int64.random(in: 0...3, using: &generator))
            default: return .null
            }
        }
    }

    /// Counts mismatches between kernels and the reference, keeping the first few descriptions.
    private final class Mismatches {
        var count = 0
        var checkedRows = 0
        var first: [String] = []
        func record(_ text: @autoclosure () -> String) {
            count += 1
            if first.count < 20 { first.append(text()) }
        }
    }

    /// Runs the three kernels on every cluster of a scan of `table` in `txn` (the column `late` was added after
    /// its objects, so committed clusters view it as all default) and compares each row with the reference.
    private func checkKernels(_ txn: Transaction, table: TableID, columns: [ColumnID], late: ColumnID,
                              expected: [ObjectKey: [Mixed]], constants: [Mixed], needles: [[UInt8]],
                              generator: inout SeededGenerator, mismatches: Mismatches) throws {
        try txn.forEachScannedCluster(table) { scan, cluster, keys in
            for (position, column) in (columns + [late]).enumerated() {
                var view = columnar_column_view()
                try check(columnar_scan_column(scan, column, &view), "columnar_scan_column")
                XCTAssertEqual(view.type, COLUMNAR_TYPE_MIXED)
                let rows = keys.map { column == late ? Mixed.null : expected[$0]![position] }
                // The rows' bytes, through the view, are their encodings.
                for (row, value) in rows.enumerated() {
                    var data: UnsafeRawPointer?
                    var size = 0
                    var isNull = false
                    try check(columnar_view_get_bytes(&view, UInt64(row), &data, &size, &isNull), "columnar_view_get_bytes")
                    if isNull != (value == .null) || (!isNull && Array(rawBytes(data, size)) != value.encoding!) {
                        mismatches.record("view row \(row) holds \(isNull ? "null" : hex(rawBytes(data, size))), not \(value)")
                    }
                }
                mismatches.checkedRows += rows.count
                var mask = [UInt8](repeating: 0xEE, count: rows.count)
                func compare(_ what: String, _ expected: (Mixed) -> UInt8) {
                    for (row, value) in rows.enumerated() where mask[row] != expected(value) {
                        mismatches.record("\(what), row \(value) (cluster ref \(cluster.ref)): \(mask[row]) instead of \(expected(value))")
                    }
                }
                // The all-null late column needs only a few constants and needles to show its null rules.
                for constant in column == late ? Array(constants.prefix(3)) : constants {
                    for op in KernelOperators.compare {
                        let rc = constant.withCValue { columnar_kernel_compare_mixed(&view, op, $0, &mask) }
                        try check(rc, "columnar_kernel_compare_mixed")
                        compare("compare op \(op.rawValue) with \(constant)") { Self.expectedCompare(op, row: $0, constant: constant) }
                    }
                }
                let fixedMasks: [UInt32] = [1, 0x1FFE, 0x1FFF, 1 << 4 | 1 << 1, 0]
                let typeMasks = fixedMasks + (0..<6).map { _ in UInt32.random(in: 0...0x1FFF, using: &generator) }
                for typeMask in typeMasks {
                    try check(columnar_kernel_mixed_type(&view, typeMask, &mask), "columnar_kernel_mixed_type")
                    compare("type mask \(String(typeMask, radix: 2))") { Self.expectedType($0, mask: typeMask) }
                }
                for needle in (column == late ? Array(needles.prefix(1)) : needles).map({ Optional($0) }) + [nil] {
                    for op in KernelOperators.string {
                        for foldCase in [false, true] {
                            let flags = foldCase ? UInt32(COLUMNAR_STRING_FOLD_ASCII_CASE) : 0
                            let rc: Int32
                            if let needle {
                                rc = withNonNullBytes(needle) { pointer, size in
                                    columnar_kernel_match_mixed_string(&view, op, pointer, size, false, flags, &mask)
                                }
                            } else {
                                rc = columnar_kernel_match_mixed_string(&view, op, nil, 0, true, flags, &mask)
                            }
                            try check(rc, "columnar_kernel_match_mixed_string")
                            compare("match op \(op.rawValue) fold \(foldCase) needle \(needle.map { hex($0) } ?? "null")") {
                                Self.expectedMatch(op, row: $0, needle: needle, foldCase: foldCase)
                            }
                        }
                    }
                }
            }
        }
    }

    func testMixedKernelsAgreeWithTheReferenceOnCommittedAndPrivateClusters() throws {
        var generator = makeSeededGenerator()
        let pools = Pools(generator: &generator)
        let rowCount = 2_000
        var expected: [ObjectKey: [Mixed]] = [:]
        // Column "any" holds every kind of value; "short" no long strings, so its clusters take the short form.
        let (table, columns) = try db.write { txn -> (TableID, [ColumnID]) in
            let table = try txn.addTable("rows")
            let columns = [try txn.addColumn(table, "any", COLUMNAR_TYPE_MIXED, nullable: true),
                           try txn.addColumn(table, "short", COLUMNAR_TYPE_MIXED, nullable: true)]
            for _ in 0..<rowCount {
                let key = try txn.createObject(table)
                var values: [Mixed] = []
                for (position, column) in columns.enumerated() {
                    var value = pools.random(&generator)
                    if position == 1, let encoding = value.encoding, encoding.count >= 32 { value = .null }
                    values.append(value)
                    try setMixed(txn, table, key, column, value.encoding)
                }
                expected[key] = values
            }
            return (table, columns)
        }
        let late = try db.write { txn in try txn.addColumn(table, "late", COLUMNAR_TYPE_MIXED, nullable: true) }
        // Constants: the edge values (decimals, NaN, int64 extremes against doubles beyond them), nulls, pool draws.
        let constants: [Mixed] = [.null] + Self.edgeValues.filter { ($0.encoding?.count ?? 0) < 64 } +
            (0..<20).map { _ in pools.random(&generator, nullWeight: 0) }
        var needles: [[UInt8]] = ["", "a", "A", "ab", "l", "ö", "*", "?b*", "a*c", "h?llo*"].map { Array($0.utf8) }
        needles += (0..<4).map { _ in pools.texts.randomElement(using: &generator)! }
        let mismatches = Mismatches()

        try db.read { txn in
            XCTAssertVerifies(txn)
            try checkKernels(txn, table: table, columns: columns, late: late, expected: expected, constants: constants,
                             needles: needles, generator: &generator, mismatches: mismatches)
        }
        let committedRows = mismatches.checkedRows
        // A write transaction changes rows here and there, deletes some and appends others: its private clusters
        // are viewed from scratch memory.
        let txn = try db.beginWrite()
        defer { txn.rollback() }
        let keys = expected.keys.sorted()
        for key in keys where Int.random(in: 0..<10, using: &generator) == 0 {
            if Bool.random(using: &generator) {
                try txn.deleteObject(table, key)
                expected[key] = nil
                continue
            }
            let value = pools.random(&generator)
            try setMixed(txn, table, key, columns[0], value.encoding)
            expected[key]![0] = value
        }
        for _ in 0..<200 {
            let key = try txn.createObject(table)
            let values = [pools.random(&generator), .null]
            try setMixed(txn, table, key, columns[0], values[0].encoding)
            expected[key] = values
        }
        // The late column of the new rows stays null; the reference knows it as null throughout.
        try checkKernels(txn, table: table, columns: columns, late: late, expected: expected, constants: constants,
                         needles: needles, generator: &generator, mismatches: mismatches)
        XCTAssertGreaterThan(committedRows, 0)
        XCTAssertEqual(mismatches.checkedRows - committedRows, 3 * expected.count, "every row of the write viewed")
        XCTAssertEqual(mismatches.count, 0, mismatches.first.joined(separator: "\n"))
    }

    func testMixedKernelsRefuseOtherViewsOperatorsAndConstants() throws {
        let (table, column, text) = try db.write { txn -> (TableID, ColumnID, ColumnID) in
            let table = try txn.addTable("t")
            let column = try txn.addColumn(table, "any", COLUMNAR_TYPE_MIXED, nullable: true)
            let text = try txn.addColumn(table, "text", COLUMNAR_TYPE_STRING)
            let key = try txn.createObject(table)
            try setMixed(txn, table, key, column, Mixed.string(Array("abc".utf8)).encoding)
            try txn.set(table, key, text, .string("abc"))
            return (table, column, text)
        }
        try db.read { txn in
            var scan: OpaquePointer?
            try check(columnar_scan_open(txn.handle, table, &scan))
            defer { columnar_scan_close(scan) }
            var cluster = columnar_cluster()
            try check(columnar_scan_next(scan, &cluster))
            var mixedView = columnar_column_view()
            var textView = columnar_column_view()
            try check(columnar_scan_column(scan, column, &mixedView))
            try check(columnar_scan_column(scan, text, &textView))
            var mask: [UInt8] = [9]
            let constant = Mixed.string(Array("abc".utf8))
            XCTAssertEqual(constant.withCValue { columnar_kernel_compare_mixed(&textView, COLUMNAR_COMPARE_EQ, $0, &mask) },
                           COLUMNAR_EMISUSE)
            XCTAssertEqual(mask, [0])
            XCTAssertEqual(constant.withCValue { columnar_kernel_compare_mixed(&mixedView, columnar_compare_op(rawValue: 7), $0, &mask) },
                           COLUMNAR_EMISUSE)
            try withMixedCValue([5, 0x61]) { value in
                XCTAssertEqual(columnar_kernel_compare_mixed(&mixedView, COLUMNAR_COMPARE_EQ, value, &mask), COLUMNAR_EMISUSE)
            }
            XCTAssertEqual(columnar_kernel_mixed_type(&textView, 0xFFFF, &mask), COLUMNAR_EMISUSE)
            XCTAssertEqual(columnar_kernel_match_mixed_string(&textView, COLUMNAR_STRING_EQ, "abc", 3, false, 0, &mask),
                           COLUMNAR_EMISUSE)
            XCTAssertEqual(columnar_kernel_match_string(&mixedView, COLUMNAR_STRING_EQ, "abc", 3, false, 0, &mask),
                           COLUMNAR_EMISUSE, "the string kernel does not read encodings as strings")
            XCTAssertEqual(columnar_kernel_match_mixed_string(&mixedView, columnar_string_op(rawValue: 11), "abc", 3, false,
                                                              0, &mask), COLUMNAR_EMISUSE)
            XCTAssertEqual(columnar_kernel_match_mixed_string(&mixedView, COLUMNAR_STRING_EQ, "abc", 3, false, 0, &mask),
                           COLUMNAR_OK)
            XCTAssertEqual(mask, [1])
            XCTAssertEqual(constant.withCValue { columnar_kernel_compare_mixed(&mixedView, COLUMNAR_COMPARE_EQ, $0, &mask) },
                           COLUMNAR_OK)
            XCTAssertEqual(mask, [1])
            XCTAssertEqual(Mixed.binary(Array("abc".utf8)).withCValue {
                columnar_kernel_compare_mixed(&mixedView, COLUMNAR_COMPARE_EQ, $0, &mask)
            }, COLUMNAR_OK)
            XCTAssertEqual(mask, [1], "a string equals the binary value of its bytes")
        }
    }
}
