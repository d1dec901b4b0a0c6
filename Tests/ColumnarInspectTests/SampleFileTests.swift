// SampleFileTests.swift — writes the sample database to a path of your choice, to try the tool on by hand (the
// session in docs/Inspect.md was made on it): COLUMNAR_INSPECT_SAMPLE=/path/sample.columnar swift test --filter
// SampleFileTests. Without the variable the test is skipped.

import ColumnarTestSupport
import Foundation
import XCTest

final class SampleFileTests: XCTestCase {
    func testWriteTheSampleDatabaseWhereTheEnvironmentSays() throws {
        guard let path = ProcessInfo.processInfo.environment["COLUMNAR_INSPECT_SAMPLE"] else {
            throw XCTSkip("set COLUMNAR_INSPECT_SAMPLE to a path to write the sample database there")
        }
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: path + ".lock")
        _ = try SampleDatabase.build(at: path)
        try? FileManager.default.removeItem(atPath: path + ".lock")
    }
}
