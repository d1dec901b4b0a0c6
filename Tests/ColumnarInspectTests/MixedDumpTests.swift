// MixedDumpTests.swift — `dump` of a MIXED column shows the value each row holds (an object as its table and key),
// and `dump --where` runs mixed comparisons and `@type` on it.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class MixedDumpTests: SampleDatabaseTestCase {
    /// A file with table "mixed": column "v" holding 5, 2.5, "text", an object of table "mixed" itself (row 0),
    /// and null, one per row.
    private func mixedFile() throws -> (path: String, directory: TemporaryDirectory) {
        let directory = try TemporaryDirectory(prefix: "mixed-dump")
        let path = directory.file("mixed.columnar")
        let db = try TestDatabase(path: path)
        defer { db.close() }
        try db.write { txn in
            let table = try txn.addTable("mixed")
            let column = try txn.addColumn(table, "v", COLUMNAR_TYPE_MIXED, nullable: true)
            var inner: [columnar_value] = []
            var value = columnar_value()
            value.type = COLUMNAR_TYPE_INT; value.as.i = 5; inner.append(value)
            value = columnar_value(); value.type = COLUMNAR_TYPE_DOUBLE; value.as.d = 2.5; inner.append(value)
            let text = Array("text".utf8)
            for index in 0 ..< 5 {
                let key = try txn.createObject(table)
                var stored = columnar_value()
                stored.type = COLUMNAR_TYPE_MIXED
                var buffer = [UInt8](repeating: 0, count: 64)
                var size = 0
                try text.withUnsafeBytes { textBytes in
                    var source = columnar_value()
                    switch index {
                    case 0, 1: source = inner[index]
                    case 2:
                        source.type = COLUMNAR_TYPE_STRING
                        source.as.bytes.data = textBytes.baseAddress
                        source.as.bytes.size = textBytes.count
                    case 3:
                        source.type = COLUMNAR_TYPE_LINK
                        source.as.typed_link.table = table
                        source.as.typed_link.key = 0
                    default: stored.is_null = true
                    }
                    if !stored.is_null {
                        XCTAssertEqual(columnar_mixed_encode(&source, &buffer, buffer.count, &size), 0)
                    }
                    try buffer.withUnsafeBytes { bytes in
                        stored.as.bytes.data = bytes.baseAddress
                        stored.as.bytes.size = stored.is_null ? 0 : size
                        XCTAssertEqual(columnar_obj_set(txn.handle, table, key, column, &stored), 0)
                    }
                }
            }
        }
        return (path, directory)
    }

    private func dump(_ arguments: [String]) throws -> DumpDocument {
        let result = try inspect(["dump", "--format", "json"] + arguments)
        XCTAssertEqual(result.status, 0, result.description)
        return try JSONDecoder().decode(DumpDocument.self, from: Data(result.stdout.utf8))
    }

    func testDumpShowsTheValueEachMixedRowHolds() throws {
        let (path, directory) = try mixedFile()
        defer { directory.cleanup() }
        let rows = try dump([path, "mixed"]).rows.map { $0.values["v"] }
        XCTAssertEqual(rows, [.int(5), .double(2.5), .string("text"), .object(["table": .int(0), "key": .int(0)]),
                              .null])
        let text = try inspect("dump", "--format", "csv", path, "mixed")
        XCTAssertTrue(text.stdout.contains("0:0"), text.stdout)
    }

    func testDumpWhereComparesMixedValuesAndTheirTypes() throws {
        let (path, directory) = try mixedFile()
        defer { directory.cleanup() }
        XCTAssertEqual(try dump(["--where", "v > 2", path, "mixed"]).rows.map(\.key), [0, 1])
        XCTAssertEqual(try dump(["--where", "v == 'text'", path, "mixed"]).rows.map(\.key), [2])
        XCTAssertEqual(try dump(["--where", "v.@type == 'numeric'", path, "mixed"]).rows.map(\.key), [0, 1])
        XCTAssertEqual(try dump(["--where", "v.@type IN {'object', 'null'}", path, "mixed"]).rows.map(\.key), [3, 4])
    }

    func testDumpShowsNestedCollectionsAsJSONArraysAndObjects() throws {
        let directory = try TemporaryDirectory(prefix: "mixed-nested-dump")
        defer { directory.cleanup() }
        let path = directory.file("nested.columnar")
        func le32(_ x: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(x).littleEndian) { Array($0) } }
        func sized(_ bytes: [UInt8]) -> [UInt8] { le32(bytes.count) + bytes }
        let five = [UInt8(COLUMNAR_TYPE_INT.rawValue)] + withUnsafeBytes(of: Int64(5).littleEndian) { Array($0) }
        let text = [UInt8(COLUMNAR_TYPE_STRING.rawValue)] + Array("x".utf8)
        let dictionary = [UInt8(COLUMNAR_MIXED_DICTIONARY)] + le32(1) + sized(Array("a".utf8)) + sized(text)
        let list = [UInt8(COLUMNAR_MIXED_LIST)] + le32(3) + sized(five) + le32(0) + sized(dictionary)
        let db = try TestDatabase(path: path)
        try db.write { txn in
            let table = try txn.addTable("mixed")
            let column = try txn.addColumn(table, "v", COLUMNAR_TYPE_MIXED, nullable: true)
            let key = try txn.createObject(table)
            var stored = columnar_value()
            stored.type = COLUMNAR_TYPE_MIXED
            try list.withUnsafeBytes { bytes in
                stored.as.bytes.data = bytes.baseAddress
                stored.as.bytes.size = bytes.count
                XCTAssertEqual(columnar_obj_set(txn.handle, table, key, column, &stored), 0)
            }
        }
        db.close()
        let rows = try dump([path, "mixed"]).rows.map { $0.values["v"] }
        XCTAssertEqual(rows, [.array([.int(5), .null, .object(["a": .string("x")])])])
        XCTAssertEqual(try dump(["--where", "v[2]['a'] == 'x'", path, "mixed"]).rows.map(\.key), [0])
        XCTAssertEqual(try dump(["--where", "v.@type == 'list'", path, "mixed"]).rows.map(\.key), [0])
    }
}
