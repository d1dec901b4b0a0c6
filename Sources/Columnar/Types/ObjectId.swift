// ObjectId: RealmSwift's 12-byte object identifier (the BSON ObjectId layout) as a Swift value type.
//
// RealmSwift declares `ObjectId` as a final class deriving from the Objective-C `RLMObjectId`. Linux has no
// Objective-C runtime, so here it is a struct with the same public names: code that creates, parses, prints,
// compares and encodes ObjectIds compiles unchanged; only identity (`===`) and `NSObject` behaviour are gone.
//
// The twelve bytes are, in order: a 4-byte big-endian count of seconds since the Unix epoch, 5 bytes that are
// random once per process, and a 3-byte big-endian counter that starts at a random value. The storage engine
// keeps exactly these bytes (COLUMNAR_TYPE_OBJECTID) and orders them with memcmp, so `<` here is bytewise too,
// and ObjectIds generated later sort later (except when the counter wraps within one second).

import Foundation
import Synchronization

/// A 12-byte (probably) unique object identifier.
///
/// ObjectIds are similar to a GUID or a UUID, and can be used to uniquely identify objects without a centralized
/// ID generator. An ObjectId consists of:
///
/// 1. A 4 byte timestamp measuring the creation time of the ObjectId in seconds since the Unix epoch.
/// 2. A 5 byte random value.
/// 3. A 3 byte counter, initialized to a random value.
///
/// ObjectIds are intended to be fast to generate. Sorting by an ObjectId field will typically result in the
/// objects being sorted in creation order.
public struct ObjectId: Sendable {
    // The bytes are held as two big-endian integers rather than an array, so that copying an ObjectId never
    // allocates and comparing two of them is two integer comparisons that agree with memcmp on the bytes.

    /// Bytes 0 ..< 8 of the identifier, byte 0 in the most significant position.
    package var leadingBytes: UInt64
    /// Bytes 8 ..< 12 of the identifier, byte 8 in the most significant position.
    package var trailingBytes: UInt32

    /// The twelve bytes as a C `uint8_t[12]` imports into Swift (the `objectid` member of `columnar_value`).
    package typealias Bytes = (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

    /// The number of bytes in an ObjectId, in storage and in the engine's value struct.
    package static let byteCount = 12

    // MARK: Initializers

    /// Creates a new zero-initialized ObjectId.
    public init() {
        leadingBytes = 0
        trailingBytes = 0
    }

    /// Creates a new randomly-initialized ObjectId.
    public static func generate() -> ObjectId {
        ObjectId(
            secondsSinceEpoch: UInt32(truncatingIfNeeded: Int64(Date().timeIntervalSince1970.rounded(.down))),
            middleBytes: Generator.processUniqueBytes,
            counter: Generator.nextCounter())
    }

    /// Creates a new ObjectId from the given 24-byte hexadecimal string.
    ///
    /// Throws if the string is not 24 characters or contains any characters other than 0-9a-fA-F.
    /// - Parameter string: The string to parse.
    public init(string: String) throws {
        let characters = Array(string.utf8)
        guard characters.count == 2 * Self.byteCount else {
            throw Self.parseError(string, reason: "it has \(string.count) characters, not 24 hexadecimal digits")
        }
        var leading: UInt64 = 0
        var trailing: UInt32 = 0
        for (position, character) in characters.enumerated() {
            guard let nibble = Self.hexValue(character) else {
                throw Self.parseError(string, reason: "character \(position + 1) is not a hexadecimal digit")
            }
            if position < 16 {
                leading = leading << 4 | UInt64(nibble)
            } else {
                trailing = trailing << 4 | UInt32(nibble)
            }
        }
        leadingBytes = leading
        trailingBytes = trailing
    }

    /// Creates a new ObjectId from the given 24-byte hexadecimal static string.
    ///
    /// Aborts if the string is not 24 characters or contains any characters other than 0-9a-fA-F. Use the
    /// initializer which takes a String to handle invalid strings at runtime.
    public init(_ str: StaticString) {
        let text = str.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
        do {
            try self.init(string: text)
        } catch {
            fatalError("\(error)")
        }
    }

    /// Creates a new ObjectId using the given date, machine identifier, process identifier.
    ///
    /// As in Realm, the low three bytes of `machineId` and the low two bytes of `processId` fill bytes 4 ..< 9
    /// (least significant byte first), and the last three bytes come from the same counter that ``generate()``
    /// uses, so two calls with the same arguments give different ObjectIds.
    ///
    /// - Parameters:
    ///   - timestamp: A timestamp as a Date; only whole seconds since the Unix epoch are kept.
    ///   - machineId: The machine identifier.
    ///   - processId: The process identifier.
    public init(timestamp: Date, machineId: Int, processId: Int) {
        let machine = UInt64(truncatingIfNeeded: machineId)
        let process = UInt64(truncatingIfNeeded: processId)
        // Bytes 4, 5, 6 are machineId's bytes 0, 1, 2; bytes 7, 8 are processId's bytes 0, 1 (Realm copies the
        // integers with memcpy on a little-endian machine).
        let middle =
            (machine & 0xFF) << 32 | (machine >> 8 & 0xFF) << 24 | (machine >> 16 & 0xFF) << 16
            | (process & 0xFF) << 8 | (process >> 8 & 0xFF)
        self.init(
            secondsSinceEpoch: UInt32(truncatingIfNeeded: Int64(timestamp.timeIntervalSince1970.rounded(.down))),
            middleBytes: middle,
            counter: Generator.nextCounter())
    }

    /// Assembles an ObjectId from its three fields: `middleBytes` holds 5 bytes (40 bits) and `counter` 3 bytes
    /// (24 bits); higher bits are ignored.
    init(secondsSinceEpoch: UInt32, middleBytes: UInt64, counter: UInt32) {
        leadingBytes = UInt64(secondsSinceEpoch) << 32 | (middleBytes >> 8 & 0xFFFF_FFFF)
        trailingBytes = UInt32(truncatingIfNeeded: middleBytes & 0xFF) << 24 | (counter & 0xFF_FFFF)
    }

    // MARK: Properties

    /// The ObjectId as a 24-character lowercase hexadecimal string.
    public var stringValue: String {
        let leading = String(leadingBytes, radix: 16)
        let trailing = String(trailingBytes, radix: 16)
        return String(repeating: "0", count: 16 - leading.count) + leading
            + String(repeating: "0", count: 8 - trailing.count) + trailing
    }

    /// The time the ObjectId was created, to the second (its first four bytes).
    public var timestamp: Date {
        Date(timeIntervalSince1970: TimeInterval(leadingBytes >> 32))
    }

    // MARK: Raw bytes, for storage

    /// Reads an ObjectId from exactly 12 bytes as the engine stores them.
    package init(rawBytes: UnsafeRawBufferPointer) {
        precondition(rawBytes.count == Self.byteCount, "an ObjectId is 12 bytes, not \(rawBytes.count)")
        leadingBytes = UInt64(bigEndian: rawBytes.loadUnaligned(as: UInt64.self))
        trailingBytes = UInt32(bigEndian: rawBytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
    }

    /// Reads an ObjectId from the engine's `uint8_t[12]`.
    package init(bytes: Bytes) {
        var copy = bytes
        self = Swift.withUnsafeBytes(of: &copy) {
            ObjectId(rawBytes: UnsafeRawBufferPointer(rebasing: $0[0 ..< Self.byteCount]))
        }
    }

    /// The twelve bytes in storage order, as the engine's `uint8_t[12]`.
    package var bytes: Bytes {
        var result: Bytes = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeBytes { source in
            Swift.withUnsafeMutableBytes(of: &result) { $0.copyMemory(from: source) }
        }
        return result
    }

    /// Calls `body` with the twelve bytes in storage order; the buffer is valid only during the call.
    package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        var bigEndian = (leadingBytes.bigEndian, trailingBytes.bigEndian)
        // The tuple's size is 12 bytes; the slice makes that explicit rather than relying on how the tuple is
        // laid out after its last member.
        return try Swift.withUnsafeBytes(of: &bigEndian) {
            try body(UnsafeRawBufferPointer(rebasing: $0[0 ..< Self.byteCount]))
        }
    }

    // MARK: Helpers

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): return character - UInt8(ascii: "0")
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): return character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): return character - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func parseError(_ string: String, reason: String) -> ColumnarError {
        ColumnarError(code: .misuse, message: "\"\(string)\" is not a valid ObjectId: \(reason)")
    }

    /// The per-process state of ``generate()``: random, as Realm's is, because process and machine numbers
    /// collide more often than random bytes do.
    ///
    /// A child created by fork() inherits this state, so ObjectIds generated in both parent and child after the
    /// fork can coincide; a forked child that generates ObjectIds should exec or not share the database.
    private enum Generator {
        /// Bytes 4 ..< 9 of every generated ObjectId in this process (the low 40 bits).
        static let processUniqueBytes = UInt64.random(in: 0 ..< 1 << 40)
        /// The counter for bytes 9 ..< 12; only its low 24 bits are used, so wrapping at 2^32 is harmless.
        static let counter = Atomic<UInt32>(UInt32.random(in: 0 ... 0xFF_FFFF))

        static func nextCounter() -> UInt32 {
            counter.wrappingAdd(1, ordering: .relaxed).oldValue
        }
    }
}

// MARK: - Protocol conformances

extension ObjectId: Hashable {}

extension ObjectId: Comparable {
    /// Bytewise order, the order the storage engine sorts and indexes ObjectIds in.
    public static func < (lhs: ObjectId, rhs: ObjectId) -> Bool {
        (lhs.leadingBytes, lhs.trailingBytes) < (rhs.leadingBytes, rhs.trailingBytes)
    }
}

extension ObjectId: CustomStringConvertible {
    /// The 24-character hexadecimal string, as ``stringValue``.
    public var description: String { stringValue }
}

extension ObjectId: Codable {
    /// Creates a new ObjectId by decoding from the given decoder.
    ///
    /// This initializer throws an error if reading from the decoder fails, or if the data read is not a
    /// 24-character hexadecimal string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        do {
            try self.init(string: string)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
        }
    }

    /// Encodes this ObjectId into the given encoder as its 24-character hexadecimal string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}

// MARK: - RLMObjectId's method names

extension ObjectId {
    /// `self > objectId`; false for nil.
    public func isGreaterThan(_ objectId: ObjectId?) -> Bool { objectId.map { self > $0 } ?? false }

    /// `self >= objectId`; false for nil.
    public func isGreaterThanOrEqualTo(_ objectId: ObjectId?) -> Bool { objectId.map { self >= $0 } ?? false }

    /// `self < objectId`; false for nil.
    public func isLessThan(_ objectId: ObjectId?) -> Bool { objectId.map { self < $0 } ?? false }

    /// `self <= objectId`; false for nil.
    public func isLessThanOrEqualTo(_ objectId: ObjectId?) -> Bool { objectId.map { self <= $0 } ?? false }
}
