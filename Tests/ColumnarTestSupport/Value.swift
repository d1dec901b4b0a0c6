// Value.swift — Swift values for the engine's columnar_value, for tests.
//
// A `Value` owns its bytes (strings and binary data are copied out of the mapping), so tests can keep values
// after the transaction that produced them has ended and compare them with `==`. Going the other way,
// `withCValue(type:_:)` lends the engine a columnar_value whose string or binary pointer is valid only inside the
// closure, which is the whole life of the C call that receives it.

import CColumnar
import Foundation

public enum Value: Hashable, Sendable, CustomStringConvertible {
    case null
    case int(Int64)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case string(String)
    case binary(Data)
    case timestamp(seconds: Int64, nanoseconds: Int32)
    case objectID([UInt8])    // 12 bytes
    case uuid([UInt8])        // 16 bytes
    case decimal128([UInt8])  // 16 bytes
    case link(Int64)
    /// A value whose type tag the engine reported but the test does not know (only from damaged files).
    case unknown(typeRawValue: UInt32)

    /// Convenience constructor from a Swift `Int`.
    public static func int(_ value: Int) -> Value { .int(Int64(value)) }

    /// The engine type of a non-null value; nil for `.null` (which takes the column's type).
    public var type: columnar_type? {
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
        case .unknown(let raw): return columnar_type(rawValue: raw)
        }
    }

    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// Copies a value the engine handed out (its bytes are read now, while they are valid).
    public init(_ value: columnar_value) {
        if value.is_null {
            self = .null
            return
        }
        let payload = value.`as`
        switch value.type {
        case COLUMNAR_TYPE_INT: self = .int(payload.i)
        case COLUMNAR_TYPE_BOOL: self = .bool(payload.b)
        case COLUMNAR_TYPE_FLOAT: self = .float(payload.f)
        case COLUMNAR_TYPE_DOUBLE: self = .double(payload.d)
        case COLUMNAR_TYPE_STRING:
            self = .string(String(decoding: rawBytes(payload.bytes.data, payload.bytes.size), as: UTF8.self))
        case COLUMNAR_TYPE_BINARY:
            self = .binary(Data(rawBytes(payload.bytes.data, payload.bytes.size)))
        case COLUMNAR_TYPE_TIMESTAMP:
            self = .timestamp(seconds: payload.timestamp.seconds, nanoseconds: payload.timestamp.nanoseconds)
        case COLUMNAR_TYPE_OBJECTID: self = .objectID(tupleBytes(payload.objectid))
        case COLUMNAR_TYPE_UUID: self = .uuid(tupleBytes(payload.uuid))
        case COLUMNAR_TYPE_DECIMAL128: self = .decimal128(tupleBytes(payload.decimal128))
        case COLUMNAR_TYPE_LINK: self = .link(payload.link)
        default: self = .unknown(typeRawValue: value.type.rawValue)
        }
    }

    /// Lends the engine this value as a columnar_value. `type` is used for `.null` (the column's type); other
    /// values carry their own. String and binary pointers are valid only inside `body`.
    public func withCValue<R>(type columnType: columnar_type,
                              _ body: (UnsafePointer<columnar_value>) throws -> R) rethrows -> R {
        var value = columnar_value()
        value.type = self.type ?? columnType
        value.is_null = false
        switch self {
        case .null: value.is_null = true
        case .int(let x): value.`as`.i = x
        case .bool(let x): value.`as`.b = x
        case .float(let x): value.`as`.f = x
        case .double(let x): value.`as`.d = x
        case .string(let text):
            // withCString always yields a non-null pointer, also for "", and the bytes before the terminator
            // are exactly the string's UTF-8 (embedded NULs included), so the size is utf8.count.
            return try text.withCString { pointer in
                value.`as`.bytes.data = UnsafeRawPointer(pointer)
                value.`as`.bytes.size = text.utf8.count
                return try body(&value)
            }
        case .binary(let data):
            return try withNonNullBytes(data) { pointer, count in
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
        case .link(let key): value.`as`.link = key
        case .unknown: break
        }
        return try body(&value)
    }

    // Floats compare by bit pattern (so NaN == NaN and -0 != +0: a round trip must be exact) and strings by
    // their UTF-8 bytes (Swift's String == would equate canonically equivalent but different byte sequences).
    public static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.int(let a), .int(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.float(let a), .float(let b)): return a.bitPattern == b.bitPattern
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.binary(let a), .binary(let b)): return a == b
        case (.timestamp(let s1, let n1), .timestamp(let s2, let n2)): return s1 == s2 && n1 == n2
        case (.objectID(let a), .objectID(let b)): return a == b
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.decimal128(let a), .decimal128(let b)): return a == b
        case (.link(let a), .link(let b)): return a == b
        case (.unknown(let a), .unknown(let b)): return a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(type?.rawValue ?? 0)
        switch self {
        case .null, .unknown: break
        case .int(let x), .link(let x): hasher.combine(x)
        case .bool(let x): hasher.combine(x)
        case .float(let x): hasher.combine(x.bitPattern)
        case .double(let x): hasher.combine(x.bitPattern)
        case .string(let text): hasher.combine(Array(text.utf8))
        case .binary(let data): hasher.combine(data)
        case .timestamp(let seconds, let nanoseconds):
            hasher.combine(seconds)
            hasher.combine(nanoseconds)
        case .objectID(let bytes), .uuid(let bytes), .decimal128(let bytes): hasher.combine(bytes)
        }
    }

    public var description: String {
        switch self {
        case .null: return "null"
        case .int(let x): return "int(\(x))"
        case .bool(let x): return "bool(\(x))"
        case .float(let x): return "float(\(x))"
        case .double(let x): return "double(\(x))"
        case .string(let text): return "string(\(text.debugDescription))"
        case .binary(let data): return "binary(\(data.count) bytes: \(hex(data.prefix(32))))"
        case .timestamp(let seconds, let nanoseconds): return "timestamp(\(seconds)s \(nanoseconds)ns)"
        case .objectID(let bytes): return "objectID(\(hex(bytes)))"
        case .uuid(let bytes): return "uuid(\(hex(bytes)))"
        case .decimal128(let bytes): return "decimal128(\(hex(bytes)))"
        case .link(let key): return "link(\(key))"
        case .unknown(let raw): return "unknown(type \(raw))"
        }
    }
}

// MARK: - Byte helpers shared by the test support

/// The bytes of a C (pointer, size) pair; an empty buffer when the pointer is NULL.
@inline(__always)
public func rawBytes(_ pointer: UnsafeRawPointer?, _ count: Int) -> UnsafeRawBufferPointer {
    guard let pointer, count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
    return UnsafeRawBufferPointer(start: pointer, count: count)
}

/// Calls `body` with a pointer that is never NULL (a C API may read NULL as "no value" even when the size is 0).
public func withNonNullBytes<R>(_ bytes: some ContiguousBytes,
                                _ body: (UnsafeRawPointer, Int) throws -> R) rethrows -> R {
    try bytes.withUnsafeBytes { buffer in
        if let base = buffer.baseAddress, buffer.count > 0 {
            return try body(base, buffer.count)
        }
        var placeholder: UInt8 = 0
        return try withUnsafePointer(to: &placeholder) { try body(UnsafeRawPointer($0), 0) }
    }
}

/// The bytes of a fixed-size C array (imported as a tuple).
public func tupleBytes<T>(_ tuple: T) -> [UInt8] {
    withUnsafeBytes(of: tuple) { Array($0) }
}

/// Overwrites a fixed-size C array (imported as a tuple) with `bytes` (extra bytes ignored, missing ones zero).
public func setTupleBytes<T>(_ tuple: inout T, _ bytes: [UInt8]) {
    withUnsafeMutableBytes(of: &tuple) { destination in
        for index in 0..<destination.count {
            destination[index] = index < bytes.count ? bytes[index] : 0
        }
    }
}

/// Lower-case hexadecimal, for messages.
public func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// The name of a column type, for messages.
public func typeName(_ type: columnar_type) -> String {
    switch type {
    case COLUMNAR_TYPE_INT: return "INT"
    case COLUMNAR_TYPE_BOOL: return "BOOL"
    case COLUMNAR_TYPE_FLOAT: return "FLOAT"
    case COLUMNAR_TYPE_DOUBLE: return "DOUBLE"
    case COLUMNAR_TYPE_STRING: return "STRING"
    case COLUMNAR_TYPE_BINARY: return "BINARY"
    case COLUMNAR_TYPE_TIMESTAMP: return "TIMESTAMP"
    case COLUMNAR_TYPE_OBJECTID: return "OBJECTID"
    case COLUMNAR_TYPE_UUID: return "UUID"
    case COLUMNAR_TYPE_DECIMAL128: return "DECIMAL128"
    case COLUMNAR_TYPE_LINK: return "LINK"
    case COLUMNAR_TYPE_MIXED: return "MIXED"
    default: return "type(\(type.rawValue))"
    }
}

/// Whether two engine values are the same value: both null, or the same type and bit-identical contents (bytes of
/// strings and binary data compared, not pointers). Cheap enough for loops over millions of values.
public func cValuesEqual(_ lhs: columnar_value, _ rhs: columnar_value) -> Bool {
    if lhs.is_null || rhs.is_null { return lhs.is_null == rhs.is_null }
    guard lhs.type == rhs.type else { return false }
    let a = lhs.`as`
    let b = rhs.`as`
    switch lhs.type {
    case COLUMNAR_TYPE_INT: return a.i == b.i
    case COLUMNAR_TYPE_BOOL: return a.b == b.b
    case COLUMNAR_TYPE_FLOAT: return a.f.bitPattern == b.f.bitPattern
    case COLUMNAR_TYPE_DOUBLE: return a.d.bitPattern == b.d.bitPattern
    case COLUMNAR_TYPE_STRING, COLUMNAR_TYPE_BINARY:
        guard a.bytes.size == b.bytes.size else { return false }
        if a.bytes.size == 0 { return true }
        guard let pa = a.bytes.data, let pb = b.bytes.data else { return false }
        return memcmp(pa, pb, a.bytes.size) == 0
    case COLUMNAR_TYPE_TIMESTAMP:
        return a.timestamp.seconds == b.timestamp.seconds && a.timestamp.nanoseconds == b.timestamp.nanoseconds
    case COLUMNAR_TYPE_OBJECTID: return sameBytes(a.objectid, b.objectid)
    case COLUMNAR_TYPE_UUID: return sameBytes(a.uuid, b.uuid)
    case COLUMNAR_TYPE_DECIMAL128: return sameBytes(a.decimal128, b.decimal128)
    case COLUMNAR_TYPE_LINK: return a.link == b.link
    default: return false
    }
}

/// Whether two fixed-size C arrays (tuples) hold the same bytes.
@inline(__always)
private func sameBytes<T>(_ lhs: T, _ rhs: T) -> Bool {
    withUnsafeBytes(of: lhs) { a in
        withUnsafeBytes(of: rhs) { b in memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
    }
}
