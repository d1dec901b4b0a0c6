// ObjectIdTests: ObjectId's text form, byte layout, ordering, generation and Codable form, checked against the
// BSON ObjectId layout that the storage engine and Realm share.

import ColumnarTestSupport
import Foundation
import XCTest

@testable import Columnar

final class ObjectIdTests: XCTestCase {
    // MARK: Text

    func testDefaultInitializerIsAllZeros() {
        XCTAssertEqual(ObjectId().stringValue, "000000000000000000000000")
        XCTAssertEqual(ObjectId().timestamp, Date(timeIntervalSince1970: 0))
    }

    func testStringRoundTripsAndPrintsLowercase() throws {
        let text = "507f1f77bcf86cd799439011"
        let objectId = try ObjectId(string: text)
        XCTAssertEqual(objectId.stringValue, text)
        XCTAssertEqual(objectId.description, text)
        XCTAssertEqual(try ObjectId(string: text.uppercased()), objectId)
        XCTAssertEqual(try ObjectId(string: "FFFFFFFFFFFFFFFFFFFFFFFF").stringValue, "ffffffffffffffffffffffff")
        XCTAssertEqual(ObjectId("507f1f77bcf86cd799439011"), objectId)
    }

    func testTimestampIsTheFirstFourBytesAsBigEndianSeconds() throws {
        let objectId = try ObjectId(string: "507f1f77bcf86cd799439011")
        XCTAssertEqual(objectId.timestamp, Date(timeIntervalSince1970: 0x507F_1F77))
        XCTAssertEqual(try ObjectId(string: "ffffffff0000000000000000").timestamp.timeIntervalSince1970, 4_294_967_295)
    }

    func testInvalidStringsThrowAnErrorNamingTheInput() {
        let invalid = [
            "", "507f1f77bcf86cd79943901", "507f1f77bcf86cd7994390111", "507f1f77bcf86cd79943901g",
            " 507f1f77bcf86cd79943901", "507f1f77-cf86cd799439011", "５０７f1f77bcf86cd79943901",
        ]
        for text in invalid {
            XCTAssertThrowsError(try ObjectId(string: text), "\"\(text)\" was accepted") { error in
                guard let error = error as? ColumnarError else {
                    return XCTFail("\"\(text)\" threw \(type(of: error)), not ColumnarError")
                }
                XCTAssertEqual(error.code, .misuse)
                XCTAssertTrue(error.message.contains("\"\(text)\""), "message does not name the input: \(error)")
            }
        }
    }

    // MARK: Bytes and ordering

    func testRawBytesAreTheHexDigitsInOrder() throws {
        let objectId = try ObjectId(string: "000102030405060708090a0b")
        let bytes = objectId.withUnsafeBytes { Array($0) }
        XCTAssertEqual(bytes, Array(0 ..< 12))
        XCTAssertEqual(bytes.withUnsafeBytes { ObjectId(rawBytes: $0) }, objectId)
        XCTAssertEqual(ObjectId(bytes: objectId.bytes), objectId)
        XCTAssertEqual(objectId.bytes.0, 0)
        XCTAssertEqual(objectId.bytes.11, 11)
    }

    func testOrderIsBytewiseAsTheEngineSortsIt() throws {
        var generator = SeededGenerator.fromEnvironment()
        let seed = generator.seed
        // Few distinct byte values, so that many pairs share long prefixes.
        let byteValues: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF]
        let byteArrays = (0 ..< 300).map { _ in (0 ..< 12).map { _ in byteValues.randomElement(using: &generator)! } }
        let objectIds = byteArrays.map { bytes in bytes.withUnsafeBytes { ObjectId(rawBytes: $0) } }
        for (leftIndex, left) in objectIds.enumerated() {
            for (rightIndex, right) in objectIds.enumerated() {
                let expected = byteArrays[leftIndex].lexicographicallyPrecedes(byteArrays[rightIndex])
                XCTAssertEqual(left < right, expected, "\(left) < \(right) (seed \(seed))")
                XCTAssertEqual(left == right, byteArrays[leftIndex] == byteArrays[rightIndex], "seed \(seed)")
            }
        }
        XCTAssertLessThan(ObjectId("0fffffffffffffffffffffff"), ObjectId("f00000000000000000000000"))
        XCTAssertLessThan(ObjectId("0000000000000000000000ff"), ObjectId("000000000000000000000100"))
    }

    // MARK: Generation

    func testGeneratedObjectIdsAreUniqueAndCarryTheCurrentTime() {
        let before = Date().timeIntervalSince1970.rounded(.down)
        let objectIds = (0 ..< 10_000).map { _ in ObjectId.generate() }
        let after = Date().timeIntervalSince1970.rounded(.down)

        XCTAssertEqual(Set(objectIds).count, objectIds.count)
        for objectId in objectIds {
            XCTAssertGreaterThanOrEqual(objectId.timestamp.timeIntervalSince1970, before)
            XCTAssertLessThanOrEqual(objectId.timestamp.timeIntervalSince1970, after)
        }
        for (earlier, later) in zip(objectIds, objectIds.dropFirst()) {
            XCTAssertLessThanOrEqual(earlier.timestamp, later.timestamp)
        }
    }

    func testGeneratedObjectIdsShareProcessBytesAndCountUpByOne() {
        let objectIds = (0 ..< 100).map { _ in ObjectId.generate() }
        let processBytes = objectIds.map { objectId in objectId.withUnsafeBytes { Array($0[4 ..< 9]) } }
        XCTAssertEqual(Set(processBytes).count, 1)
        let counters = objectIds.map { objectId in
            objectId.withUnsafeBytes { bytes in UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11]) }
        }
        for (earlier, later) in zip(counters, counters.dropFirst()) {
            XCTAssertEqual(later, (earlier + 1) & 0xFF_FFFF)
        }
    }

    func testTimestampMachineAndProcessInitializerPlacesEachField() {
        let date = Date(timeIntervalSince1970: 1_600_000_000.75)
        let first = ObjectId(timestamp: date, machineId: 0x0A0B0C, processId: 0x0D0E)
        let second = ObjectId(timestamp: date, machineId: 0x0A0B0C, processId: 0x0D0E)
        XCTAssertEqual(first.timestamp, Date(timeIntervalSince1970: 1_600_000_000))
        // Realm copies the low bytes of both integers least significant byte first.
        XCTAssertEqual(first.withUnsafeBytes { Array($0[4 ..< 9]) }, [0x0C, 0x0B, 0x0A, 0x0E, 0x0D])
        XCTAssertEqual(first.withUnsafeBytes { Array($0[0 ..< 4]) }, [0x5F, 0x5E, 0x10, 0x00])
        XCTAssertNotEqual(first, second, "the counter must differ between calls")
    }

    // MARK: Codable and hashing

    func testCodableIsASingleHexString() throws {
        let objectIds = [try ObjectId(string: "507f1f77bcf86cd799439011"), ObjectId(), ObjectId.generate()]
        let json = try JSONEncoder().encode(objectIds)
        let expected = "[" + objectIds.map { "\"\($0.stringValue)\"" }.joined(separator: ",") + "]"
        XCTAssertEqual(String(decoding: json, as: UTF8.self), expected)
        XCTAssertEqual(try JSONDecoder().decode([ObjectId].self, from: json), objectIds)
    }

    func testDecodingAnInvalidStringThrowsDataCorrupted() {
        let json = Data(#"["not an object id"]"#.utf8)
        XCTAssertThrowsError(try JSONDecoder().decode([ObjectId].self, from: json)) { error in
            guard case DecodingError.dataCorrupted = error else {
                return XCTFail("expected DecodingError.dataCorrupted, got \(error)")
            }
        }
    }

    func testEqualObjectIdsHashAlike() throws {
        let text = "507f1f77bcf86cd799439011"
        let set: Set = [try ObjectId(string: text), try ObjectId(string: text.uppercased()), ObjectId()]
        XCTAssertEqual(set.count, 2)
        XCTAssertTrue(set.contains(try ObjectId(string: text)))
    }
}
