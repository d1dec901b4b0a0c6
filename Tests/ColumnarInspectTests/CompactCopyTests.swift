// CompactCopyTests.swift — `compact` and `copy` on the sample file: the results verify and hold the same objects;
// `compact` leaves an open file alone (exit 3) and honours --if-unused-above; `copy` never writes over a file.

import CColumnar
import ColumnarTestSupport
import Foundation
import XCTest

final class CompactCopyTests: SampleDatabaseTestCase {
    func testCompactRewritesAClosedFileAndLeavesAnOpenOneAlone() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let expected = try objectCountsByTable(path)
        let before = try fileSizeBytes(atPath: path)

        let open = try TestDatabase(path: path, flags: [])
        let busy = try inspect("compact", "--json", path)
        XCTAssertEqual(busy.status, 3, busy.description)
        XCTAssertEqual(busy.object().string("status"), "open")
        open.close()

        let declined = try inspect("compact", "--if-unused-above", "100", "--json", path)
        XCTAssertEqual(declined.status, 0, declined.description)
        XCTAssertEqual(declined.object().string("status"), "left alone")
        XCTAssertEqual(try fileSizeBytes(atPath: path), before)

        let result = try inspect("compact", "--json", path)
        XCTAssertEqual(result.status, 0, result.description)
        let report = result.object()
        XCTAssertEqual(report.string("status"), "compacted")
        XCTAssertEqual(report.uint("sizeBeforeBytes"), before)
        XCTAssertEqual(report.uint("sizeAfterBytes"), try fileSizeBytes(atPath: path))
        XCTAssertEqual(try objectCountsByTable(path), expected)
        let verify = try inspect("verify", path)
        XCTAssertEqual(verify.status, 0, verify.description)
        XCTAssertTrue(try inspect("compact", path).stdout.contains("compacted from"))
    }

    func testCopyWritesAVerifiedCopyAndNeverOverwrites() throws {
        let (path, directory) = try copy()
        defer { directory.cleanup() }
        let destination = directory.file("backup.columnar")
        let result = try inspect("copy", "--json", path, destination)
        XCTAssertEqual(result.status, 0, result.description)
        XCTAssertEqual(result.object().string("status"), "copied")
        XCTAssertEqual(result.object().uint("sizeBytes"), try fileSizeBytes(atPath: destination))
        XCTAssertEqual(try objectCountsByTable(destination), try objectCountsByTable(path))
        XCTAssertEqual(try inspect("verify", destination).status, 0)
        let again = try inspect("copy", path, destination)
        XCTAssertEqual(again.status, 2, again.description)
        XCTAssertTrue(again.stdout.contains("exists"), again.description)
    }
}
