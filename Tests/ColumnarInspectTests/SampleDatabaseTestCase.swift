// SampleDatabaseTestCase.swift — test cases that look at one SampleDatabase, built once per test class (building
// it takes longer than most of the tests that read it). Tests that change the file work on a copy (`copy()`).

import CColumnar
import ColumnarTestSupport
import XCTest

class SampleDatabaseTestCase: XCTestCase {
    nonisolated(unsafe) private static var directories: [ObjectIdentifier: TemporaryDirectory] = [:]
    nonisolated(unsafe) private static var samples: [ObjectIdentifier: SampleDatabase] = [:]

    override class func setUp() {
        super.setUp()
        do {
            let directory = try TemporaryDirectory(prefix: "inspect")
            directories[ObjectIdentifier(self)] = directory
            samples[ObjectIdentifier(self)] = try SampleDatabase.build(at: directory.file("sample.columnar"))
        } catch {
            XCTFail("building the sample database failed: \(error)")
        }
    }

    override class func tearDown() {
        directories[ObjectIdentifier(self)]?.cleanup()
        directories[ObjectIdentifier(self)] = nil
        samples[ObjectIdentifier(self)] = nil
        super.tearDown()
    }

    /// The sample (read-only: copy it before changing it).
    var sample: SampleDatabase {
        get throws {
            guard let sample = SampleDatabaseTestCase.samples[ObjectIdentifier(type(of: self))] else {
                throw TestFailure("no sample database")
            }
            return sample
        }
    }

    /// A private copy of the sample database file (without its lock file) in a fresh directory.
    func copy(named name: String = "copy.columnar") throws -> (path: String, directory: TemporaryDirectory) {
        let directory = try TemporaryDirectory(prefix: "inspect-copy")
        let path = directory.file(name)
        try FileManager.default.copyItem(atPath: try sample.path, toPath: path)
        return (path, directory)
    }

    /// Runs the tool and fails the test when it crashed.
    @discardableResult
    func inspect(_ arguments: String..., file: StaticString = #filePath, line: UInt = #line) throws -> ToolResult {
        try inspect(arguments, file: file, line: line)
    }

    @discardableResult
    func inspect(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> ToolResult {
        let result = try InspectTool.run(arguments)
        XCTAssertFalse(result.crashed, result.description, file: file, line: line)
        return result
    }
}

/// JSON helpers: numbers as Int64 / UInt64 / Double whatever JSONSerialization made of them.
extension Dictionary where Key == String, Value == Any {
    func int(_ key: String) -> Int64? { (self[key] as? NSNumber)?.int64Value }
    func uint(_ key: String) -> UInt64? { (self[key] as? NSNumber)?.uint64Value }
    func string(_ key: String) -> String? { self[key] as? String }
    func bool(_ key: String) -> Bool? { (self[key] as? NSNumber)?.boolValue }
    func objects(_ key: String) -> [[String: Any]] { (self[key] as? [[String: Any]]) ?? [] }
    func object(_ key: String) -> [String: Any]? { self[key] as? [String: Any] }
}
